"""Excel's `^` (calc/formula/powers.py): 0^0 is #NUM!, 0 to a negative power #DIV/0!, a negative
number to a fraction #NUM!, as POWER's are (formulas_test.xlsx's POWER(C51,C51) and
POWER(C51,G51), read at test time; superuser.com's "Is there a way to get Excel to work with a
zero in the exponent": `=D47^0` over 0 is #NUM!). formualizer's `^` answered 1 for 0^0, silently,
and #NUM! for 0^-1; `formulas`' answered 1, #VALUE! and a complex number for (-8)^(1/3), and
read `=1--A1^2` as `1-(-(A1^2))` (5 where Excel's is -3)."""

from __future__ import annotations

import openpyxl
import pytest
from openpyxl.worksheet.formula import ArrayFormula

from rates_xl.calc.formula.passes import one
from rates_xl.calc.workbook import WorkbookCalculation
from tests.calc.excel_cases import corpus_book, corpus_cells_against_excel

ENGINES = ["fast", "formulas"]

#: formula -> Excel's answer, over D1 = 0, D2 = "0" (text), D3 = TRUE, D4 = -8, D5 = 2, E1:E2 empty.
CASES = {
    "0^0": "#NUM!", "D1^D1": "#NUM!", "E1^E2": "#NUM!", "D2^0": "#NUM!", "D1^D1+1": "#NUM!",
    "D1^-1": "#DIV/0!", "D1^-D5": "#DIV/0!", "D4^(1/3)": "#NUM!", "D5^1024": "#NUM!",
    "IFERROR(D1^D1,\"none\")": "none", "D3^0": 1, "D5^D5": 4, "-D5^2": 4, "1--D5^2": -3,
    "D5^3^2": 64, "D5^50%": pytest.approx(2 ** 0.5), "SUM(D5^{1,2,3})": 14, "0^D5": 0,
    "D4^3": -512, "(1+D1)^-D5": 1, "1+-D5^2": 5, "2*-D5^2": 8, "1--2^2": -3,
}


@pytest.mark.parametrize("engine", ENGINES)
def test_powers_are_excels(tmp_path, engine):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    sheet["D1"], sheet["D2"], sheet["D3"], sheet["D4"], sheet["D5"] = 0, "0", True, -8, 2
    for row, formula in enumerate(CASES, start=1):
        sheet.cell(row=row, column=1).value = "=" + formula
    sheet["B1"] = ArrayFormula("B1:B3", "=D4:D6^D5")  # a legacy array, element by element
    sheet["C1"] = ArrayFormula("C1:C2", "=D1:D2^D1")
    book.save(tmp_path / "powers.xlsx")
    values = WorkbookCalculation(tmp_path / "powers.xlsx", full=True, engine_name=engine).compute().values
    got = {formula: values[("S", f"A{row}")] for row, formula in enumerate(CASES, start=1)}
    assert got == CASES
    assert [values[("S", f"B{row}")] for row in (1, 2, 3)] == [64, 4, 0]
    assert [values[("S", f"C{row}")] for row in (1, 2)] == ["#NUM!", "#NUM!"]


def test_powers_of_the_corpus_stay_excels():
    """formulas_test.xlsx's POWER cells over 0 (Excel: #NUM! and #DIV/0!), and every `^` of the
    corpus books holding one, computed to Excel's cached values."""
    for name in ("formulas_test.xlsx", "poi_FormulaEvalTestData_Copy.xlsx"):
        cells, differ = corpus_cells_against_excel(name, lambda text: "^" in text or "POWER(" in text.upper())
        assert len(cells) >= 15
        assert differ == []
    sheet = openpyxl.load_workbook(corpus_book("formulas_test.xlsx"), data_only=True)["MATH & TRIG"]
    # POWER(C51,C51) and POWER(C51,G51) over 0 and -1: Excel's #NUM! and #DIV/0!
    assert [sheet[c].value for c in ("C51", "G51", "T51", "U51")] == [0, -1, "#NUM!", "#DIV/0!"]


@pytest.mark.parametrize(("written", "expected"), [
    ("=1--A1^2", "=1-(-A1)^2"), ("=1+-A1^B1^2", "=1+(-A1)^B1^2"), ("=-A1^2", "=(-A1)^2"), ("=A1^-2", "=A1^-2"),
])
def test_signed_bases_are_bracketed_for_the_formulas_engine(written, expected):
    from rates_xl.calc.formula.powers import signed_bases

    assert signed_bases(written) == expected


@pytest.mark.parametrize(("written", "expected"), [
    ("=A1^2", "=A1^2"),  # a positive exponent as typed: 0^2 is 0 in both, the engine's own
    ("=10^B1", "=10^B1"), ("=-2^B1", "=-2^B1"),  # a base other than 0 as typed
    ("=A1^B1", "=POWER(A1,B1)"), ("=-A1^B1", "=POWER(-A1,B1)"),  # a sign binds tighter than ^
    ("=1--A1^B1", "=1-POWER(-A1,B1)"), ("=(1+A1)^-B1", "=POWER((1+A1),-B1)"),
    ("=A1^B1^C1", "=POWER(POWER(A1,B1),C1)"), ("=A1%^B1%", "=POWER(A1%,B1%)"),
    ("=SUM(A1:A3)^B1+1", "=POWER(SUM(A1:A3),B1)+1"), ("=A1 ^ B1 * 2", "=POWER(A1,B1) * 2"),
    ("=A1^0", "=POWER(A1,0)"), ("=A1:A3 A2:A4^B1", "=A1:A3 A2:A4^B1"),  # an intersection: as written
])
def test_which_powers_are_written_as_power(written, expected):
    assert one("excel_powers", written) == expected
