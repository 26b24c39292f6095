"""Excel's comparison operators (=, <>, <, >, <=, >=) read both operands rounded to 15
significant digits, for the comparison only (calc/xlfuncs/logical/comparison.py; the pass
`excel_comparisons`, calc/formula/comparisons.py): `=0.1+0.2=0.3` is TRUE in Excel, and was
FALSE in both engines, a silently wrong answer (issue 30). Text still compares
case-insensitively, types in Excel's order (numbers, text, booleans), errors pass, arrays
element by element. Each expected value is Excel's (MrExcel thread 1149146's rule), and
LibreOffice, another implementation nobody here wrote, is asked too."""

from __future__ import annotations

import openpyxl
import pytest

from rates_xl.calc.formula.comparisons import excel_comparisons
from rates_xl.calc.formula.tree import Formula
from rates_xl.calc.workbook import WorkbookCalculation
from rates_xl.calc.xlfuncs.logical.comparison import rounded
from rates_xl.cli import main
from tests.support import libreoffice

#: Inputs in column A (A2:A4 an array's), in Z the other types.
INPUTS = {"A1": "=0.1+0.2", "A2": "=0.1+0.2", "A3": 0.3, "A4": "=0.15*2", "A5": "=1.2-1.1",
          "Z1": "abc", "Z2": "ABC", "Z3": "b", "Z5": 0, "Z6": 1, "Z7": "=1=2", "Z8": "=1/0",
          "Z4": 0.1 + 0.2}  # a constant pasted with its binary noise (the file holds 0.30000000000000004)
#: Column B: formula -> Excel's answer.
CASES = [
    ("=A1=0.3", True),  # a reference to a sum with binary noise
    ("=0.1+0.2=0.3", True),
    ("=IF(0.1+0.2=0.3,1,0)", 1),
    ("=0.1*3=0.3", True),
    ("=SUM(0.1,0.2)=0.3", True),
    ("=(0.1+0.2)<>0.3", False),
    ("=0.1=(1.2-1.1)", False),  # 0.0999999999999999 to 15 digits: Excel's FALSE too
    ("=A5=0.1", False),
    ("=A1>0.3", False),  # IEEE: TRUE
    ("=A1>=0.3", True),
    ("=A1<=0.3", True),  # IEEE: FALSE
    ("=A1=A3", True),
    ("=Z4=0.3", True),
    ("=Z4=A1", True),
    ('=Z1=Z2', True),  # text: case-insensitive
    ('="abc"="ABC"', True),
    ("=Z1<Z3", True),
    ('=A1="0.3"', False),  # a number is never text
    ("=A1<Z1", True),  # numbers before text
    ("=Z7>A1", True),  # booleans after numbers
    ("=Z7=Z9", True),  # FALSE = an empty cell
    ("=Z9=Z5", True),  # an empty cell = 0
    ("=Z9<Z6", True),
    ("=Z7=FALSE", True),
    ("=Z8=0.3", "#DIV/0!"),
    ("=SUMPRODUCT((A2:A4=0.3)*1)", 3),  # element by element
    ("=SUMPRODUCT((A2:A4<>0.3)*1)", 0),
    ('=SUMPRODUCT(((A2:A4&"")="0.3")*1)', 3),
]


def _book(path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for cell, value in INPUTS.items():
        sheet[cell] = value
    for row, (formula, _) in enumerate(CASES, start=1):
        sheet[f"B{row}"] = formula
    book.save(path)
    return path


ENGINES = ["fast", "formulas"]
#: The `formulas` engine's own differences, left as they were (not comparisons' rounding): FALSE
#: against an empty cell is FALSE there, and `&` writes a number with 17 digits.
FORMULAS_OWN = {"=Z7=Z9", '=SUMPRODUCT(((A2:A4&"")="0.3")*1)'}
#: Where LibreOffice is not Excel: its approxEqual takes 0.0999999999999999 for 0.1, and a
#: boolean is a number to it (FALSE > 0.3 is FALSE).
LIBREOFFICE_OWN = {"=0.1=(1.2-1.1)", "=A5=0.1", "=Z7>A1"}


@pytest.mark.parametrize("engine", ENGINES)
def test_comparisons_round_their_operands_to_15_digits_as_excel(tmp_path, engine):
    result = WorkbookCalculation(_book(tmp_path / "cmp.xlsx"), full=True, engine_name=engine).compute()
    own = FORMULAS_OWN if engine == "formulas" else set()
    got = {formula: result.value("S", f"B{row}") for row, (formula, _) in enumerate(CASES, start=1)
           if formula not in own}
    assert got == {formula: expected for formula, expected in CASES if formula not in own}


@pytest.mark.parametrize("engine", ENGINES)
def test_the_copy_holds_excels_answers(tmp_path, capsys, engine):
    book = _book(tmp_path / "cmp.xlsx")
    out = tmp_path / "out.xlsx"
    main(["calc", str(book), "--full", "--no-progress", "--engine", engine, "-o", str(out)])
    capsys.readouterr()
    copy = openpyxl.load_workbook(out, data_only=True)["S"]
    assert [copy[f"B{row}"].value for row in range(1, 8)] == [True, True, 1, True, True, False, False]


@libreoffice.needed
def test_libreoffice_agrees(tmp_path):
    rows = libreoffice.computed_rows(_book(tmp_path / "cmp.xlsx"), tmp_path)
    theirs = {formula: rows[row][1] for row, (formula, _) in enumerate(CASES) if formula not in LIBREOFFICE_OWN}
    assert theirs == {formula: "TRUE" if e is True else "FALSE" if e is False else str(e)
                      for formula, e in CASES if formula not in LIBREOFFICE_OWN}


def test_rounded_keeps_everything_but_numbers():
    assert rounded(0.1 + 0.2) == 0.3 and rounded(1.2 - 1.1) == 0.0999999999999999
    assert rounded(-1 / 3) == -0.333333333333333 and rounded(0.0) == 0.0 and rounded(5e-17) == 5e-17
    assert rounded("abc") == "abc" and rounded(True) is True and rounded(None) is None
    error = {"type": "Error", "kind": "Div"}
    assert rounded(error) is error
    assert rounded([[0.1 + 0.2, "x"], [None, 2]]) == [[0.3, "x"], [None, 2]]


def test_only_comparisons_rounding_can_change_are_rewritten():
    def written(text):
        return excel_comparisons(Formula(text))

    assert written("=A1=0.3") == "=RATESXL.CMPROUND(A1)=0.3"
    assert written("=A1<>B1") == "=RATESXL.CMPROUND(A1)<>RATESXL.CMPROUND(B1)"
    assert written("=IF(A1>=B1*2,1,0)") == "=IF(RATESXL.CMPROUND(A1)>=RATESXL.CMPROUND(B1*2),1,0)"
    assert written("=A1=1E-3") == "=RATESXL.CMPROUND(A1)=1E-3"  # 15 digits hold 1E-3
    for same in ('=A1>0', '=A1="x"', '=A1=TRUE', '=A1&"x"=B1', '=ISNUMBER(A1)=B1', '="a=b"', "=A1+1", "=A1<-0"):
        assert written(same) == same
