"""A book set to "precision as displayed" (`<calcPr fullPrecision="0"/>`) is computed as Excel
holds it: each formula's number rounded to the decimals its format shows before anything reads
it, General cells at full precision (Microsoft KB Q47577, KB 182197; calc/displayed_precision.py),
and a cell whose format's precision calc cannot tell listed. Before, every formula was computed
at full precision: `=B1*3` over a B1 showing 0.33 gave 1 where Excel has 0.99, silently in
cells the check cannot compare.

No Excel-made book set so was found (the corpus, POI's, ClosedXML's, EPPlus' and IronCalc's
test books hold none), so the cached values below are the ones Microsoft's rule gives.
"""

from __future__ import annotations

import re
from pathlib import Path

import openpyxl
import pytest
from openpyxl.utils.datetime import to_excel
from openpyxl.worksheet.formula import ArrayFormula

from rates_xl.calc.displayed_precision import UNKNOWN, decimals
from rates_xl.calc.engines.formualizer.displayed import ARRAY
from rates_xl.cli import main
from tests.calc.corpus.build import edit_parts

#: cell -> (formula, number format, Excel's value under precision as displayed)
CELLS = {
    "B1": ("=A1/3", "0.00", 0.33),
    "C1": ("=B1*3", "General", 0.99),  # reads B1 as Excel holds it
    "D1": ("=A1/3", "General", 0.3333333333333333),  # General: full precision
    "E1": ("=A1/8", "0.0%", 0.125),
    "F1": ('="x"&B1', "General", "x0.33"),
    "G1": ("=A1/7", "yyyy-mm-dd", 0.142857142857143),  # a date's precision: listed
    "H1": ("=ROUND(NOW(),0)*0+A1/3", "0.00", 0.33),  # recomputed in the default mode too
    "I1": ("=H1*3", "General", 0.99),
    "J1": ("=-A1/3", "#,##0.00_);[Red](#,##0.00)", -0.33),
    "K1": ("=B1-0.33", "0.00", 0),
    "L1": ('=IF(A1>0,"yes",1/3)', "0.00", "yes"),
}


#: Array formulas: anchor -> (range, formula, Excel's values down the range). One the fit lifts
#: into a formula per cell is rounded cell by cell; one spilled from one formula is listed when
#: any of its cells is formatted to round, its anchor General (P1) or not.
ARRAYS = {"M1": ("M1:M2", "=A1:A2/3", [0.33, 0.67]), "P1": ("P1:P2", "=MMULT(A1:A2,1/3)", [0.33, 0.67])}


def _book(path: Path) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet["A1"], sheet["A2"] = 1, 2
    for address, (formula, code, _value) in CELLS.items():
        sheet[address] = formula
        sheet[address].number_format = code
    for anchor, (area, formula, _values) in ARRAYS.items():
        sheet[anchor] = ArrayFormula(area, formula)
        for row in sheet[area]:
            row[0].number_format = "General" if row[0].coordinate == "P1" else "0.00"
    book.save(path)

    def excel_saved_it(parts: dict[str, bytes]) -> None:
        text = parts["xl/worksheets/sheet1.xml"].decode()
        for address, (_formula, _code, value) in CELLS.items():
            kind = ' t="str"' if isinstance(value, str) else ""
            text = re.sub(rf'<c r="{address}"([^>]*)><f>(.*?)</f><v\s*/?>(?:</v>)?',
                          rf'<c r="{address}"\1{kind}><f>\2</f><v>{value}</v>', text)
        for anchor, (_area, _formula, (first, second)) in ARRAYS.items():
            text = re.sub(rf'(<c r="{anchor}"[^>]*><f[^>]*>.*?</f>)<v\s*/?>(?:</v>)?', rf"\g<1><v>{first}</v>", text)
            below = anchor[0] + "2"
            text = re.sub(rf'<c r="{below}"([^>]*?)\s*(?:/>|></c>)', rf'<c r="{below}"\1><v>{second}</v></c>', text)
        parts["xl/worksheets/sheet1.xml"] = text.encode()
        workbook = re.sub(r"<calcPr[^>]*/>", '<calcPr calcId="191029" fullPrecision="0"/>',
                          parts["xl/workbook.xml"].decode())
        parts["xl/workbook.xml"] = workbook.encode()

    edit_parts(path, excel_saved_it)
    return path


@pytest.mark.parametrize("full", [True, False])
def test_each_formula_is_rounded_as_its_format_shows_it(tmp_path, capsys, full):
    book, out = _book(tmp_path / "shown.xlsx"), tmp_path / "out.xlsx"
    code = main(["calc", str(book), *(["--full"] if full else []), "-o", str(out), "--no-progress"])
    printed = capsys.readouterr().out
    assert "0 stale" in printed and "note: set to precision as displayed" in printed
    values = openpyxl.load_workbook(out)["Sheet"]
    for address, (_formula, _code, value) in CELLS.items():
        held = values[address].value  # (a date or time as openpyxl reads it: to the millisecond)
        assert (to_excel(held) == pytest.approx(value, abs=1e-8)) if values[address].is_date else held == value, address
    for anchor, (area, _formula, expected) in ARRAYS.items():
        assert [row[0].value for row in values[area]] == expected, anchor
    if full:  # (the date-formatted cell and the spilled array listed, Excel's values kept; the rest equal)
        assert code == 3 and f"Sheet!G1: not computed ({UNKNOWN.format('yyyy-mm-dd')})" in printed
        assert f"Sheet!P1: not computed ({ARRAY.format('0.00')})" in printed
        assert "10 checked against Excel's values at the book's stored inputs; 0 stale" in printed
    else:  # (NOW's readers recomputed, each rounded as Excel holds it)
        assert code == 0 and "Recomputed 2 formula cells (only what changed)" in printed


def test_the_formulas_engine_refuses_such_a_book_in_one_line(tmp_path, capsys):
    book = _book(tmp_path / "shown.xlsx")
    assert main(["calc", str(book), "--full", "--engine", "formulas", "-o", str(tmp_path / "f.xlsx"),
                 "--no-progress"]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [
        f"rates-xl calc: {book}: the formula engine cannot compute a book set to precision as displayed "
        "(Excel's fullPrecision off): it is computed by the fast engine only"]


@pytest.mark.parametrize(("code", "places"), [
    ("0.00", 2), ("0", 0), ("#,##0.00_);[Red](#,##0.00)", 2), ("0.0%", 3), ("0%", 2),
    ('_(* #,##0.00_);_(* (#,##0.00);_(* "-"??_);_(@_)', 2), ('"$"#,##0', 0), ('0.00" kg"', 2),
    ("[$-409]#,##0.000", 3), ("0.00;[Red]-0.00;0", 2), ("General", None), ("[Red]General", None),
])
def test_the_decimals_a_format_shows(code, places):
    assert decimals(code) == places


@pytest.mark.parametrize("code", [
    "yyyy-mm-dd", "h:mm", "[h]:mm", "0.00E+00", "# ?/?", "#,##0,", "#,##0.00,", "[>100]0.0;0.00",
    "0.0;-0.00", "@", "General;0.00",
])
def test_a_format_whose_precision_calc_cannot_tell_is_named(code):
    assert decimals(code) == UNKNOWN.format(code)
