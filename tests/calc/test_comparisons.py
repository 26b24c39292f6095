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
from rates_xl.calc.formula.site import BookFacts, Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.calc.workbook import WorkbookCalculation
from rates_xl.calc.xlfuncs.logical.comparison import rounded, snapped
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
    # Both sides noisy, one a cell: one call of RATESXL.CMPSNAP (A4 is 0.15*2, 0.3 exactly
    # written, A1 0.1+0.2 one bit above it).
    ("=A1=A4", True),
    ("=A1>A4", False),  # IEEE: TRUE
    ("=A4<A1", False),  # IEEE: TRUE
    ("=A1+0<=A4", True),
    ("=A4>=A1+0", True),
    ("=A1+0<A4+0", False),  # neither side one cell: each rounded on its own
    ("=A1<>A5*3", False),  # 0.2999999999999996: 0.3 to 15 digits
    ("=Z1<>A1", True),  # text against a number
    ("=Z8<A1", "#DIV/0!"),
    ("=A1<Z8", "#DIV/0!"),
    ("=A1<Z7", True),  # numbers before booleans
    ("=SUMPRODUCT((A2:A4=A1)*1)", 3),  # an array against one cell, element by element
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
LIBREOFFICE_OWN = {"=0.1=(1.2-1.1)", "=A5=0.1", "=Z7>A1", "=A1<Z7"}


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


def test_both_noisy_sides_take_one_call_where_one_is_a_cell_or_a_number():
    book = BookFacts(name_range=lambda _sheet, name: "'S'!$C$3" if name == "Rate" else None,
                     range_size=lambda _sheet, _text: 1)

    def written(text):
        return excel_comparisons(Formula(text), Site("S", 1, 1, False, book))

    assert written("=A1<>B1") == "=A1<>RATESXL.CMPSNAP(B1,A1)"
    assert written("=IF(A1>=B1*2,1,0)") == "=IF(A1>=RATESXL.CMPSNAP(B1*2,A1),1,0)"
    assert written("=A1+B1<C1") == "=RATESXL.CMPSNAP(A1+B1,C1)<C1"
    assert written("=Rate>A1+B1") == "=Rate>RATESXL.CMPSNAP(A1+B1,Rate)"  # a name of one cell
    assert written("=A1*2=-0.30000000000000004") == "=RATESXL.CMPSNAP(A1*2,-0.30000000000000004)=-0.30000000000000004"
    # Neither side one cell, a chain, one side exact: each noisy side rounded on its own.
    assert written("=A1+B1<C1*2") == "=RATESXL.CMPROUND(A1+B1)<RATESXL.CMPROUND(C1*2)"
    assert written("=Other>A1+B1") == "=RATESXL.CMPROUND(Other)>RATESXL.CMPROUND(A1+B1)"
    assert written("=A1<B1<C1") == "=RATESXL.CMPROUND(A1)<RATESXL.CMPROUND(B1)<RATESXL.CMPROUND(C1)"
    assert written("=A1=0.3") == "=RATESXL.CMPROUND(A1)=0.3"


def test_snapped_keeps_everything_but_two_numbers_equal_to_15_digits():
    assert snapped(0.1 + 0.2, 0.3) == 0.3 and snapped(0.3, 0.1 + 0.2) == 0.1 + 0.2
    assert snapped(0.30000000000001, 0.3) == 0.30000000000001  # the 14th digit differs
    assert snapped(0.1 + 0.2, [[0.3]]) == 0.3  # a one-cell range given as one
    error = {"type": "Error", "kind": "Div"}
    assert snapped(error, 0.3) is error and snapped(0.3, error) == 0.3
    assert snapped("abc", 0.3) == "abc" and snapped(True, 1.0) is True and snapped(1.0, True) == 1.0
    assert snapped(None, 0.0) is None
    assert snapped([[0.1 + 0.2, "x"], [None, 0.5]], 0.3) == [[0.3, "x"], [None, 0.5]]


def test_one_call_answers_as_both_sides_rounded():
    """For every operator, `a op CMPSNAP(b, a)` and `CMPSNAP(a, b) op b` are `rounded(a) op
    rounded(b)`: pairs of numbers a few units of the 15th and 17th digit apart, on both sides
    of rounding's half-way points, across powers of ten."""
    import math
    import operator
    import random

    ops = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]
    rnd = random.Random(30)
    pairs = []
    for _ in range(4000):
        a = rnd.uniform(-1, 1) * 10 ** rnd.randint(-20, 20)
        step = abs(a) * 10 ** rnd.choice([-14, -15, -16, -17])
        b = a + rnd.randint(-12, 12) * step
        pairs.append((a, b))
        half = float(f"{a:.15e}") + math.copysign(0.5, a) * 10 ** (math.floor(math.log10(abs(a))) - 14)
        pairs.append((half, math.nextafter(half, math.inf)))  # astride a half-way point
        pairs.append((math.nextafter(half, -math.inf), half))
    for a, b in pairs:
        for op in ops:
            expected = op(rounded(a), rounded(b))
            assert op(a, snapped(b, a)) == expected, (a, b, op)
            assert op(snapped(a, b), b) == expected, (a, b, op)
