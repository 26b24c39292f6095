"""SUMPRODUCT as Excel reads its arrays, in a real book computed by the engine:

- a logical value in them counts as 0, as text and empty cells do (Microsoft's SUMPRODUCT page:
  "treats array entries that are not numeric as if they were zeros"; the reason for
  `SUMPRODUCT(--(A1:A5>10),B1:B5)`; Gnumeric's documentation: "This function ignores
  logicals, so using SUMPRODUCT(A1:A5>0) will not work ... This function is Excel
  compatible"). formualizer's own counted TRUE as 1.
- its arguments are evaluated as arrays in any formula: ROW and COLUMN of a range inside them
  give every row or column (the non-array `=SUMPRODUCT(--(MOD(ROW(A1:A10),2)=0),A1:A10)`
  idiom), not only the first, as elsewhere in a non-array formula.
"""

from __future__ import annotations

import datetime

import openpyxl
import pytest

from rates_xl.calc.formula.passes import one
from rates_xl.calc.workbook import WorkbookCalculation
from rates_xl.calc.xlfuncs import callbacks
from rates_xl.calc.xlfuncs.math_trig.sumproduct import LOGICALS

#: (formula, Excel's answer) over B1:B3 = 1, TRUE, 3 and C1:C3 = 2, 5, FALSE; D1:D3 = 1, 2, 3.
CASES = [
    ("=SUMPRODUCT(B1:B3)", 4),  # TRUE counts 0
    ("=SUMPRODUCT(B1:B3,C1:C3)", 2),  # 1*2 + 0*5 + 3*0
    ("=SUMPRODUCT(B1:B3>0,C1:C3)", 0),  # logical values only: 0
    ("=SUMPRODUCT(D1:D3>1)", 0),
    ("=SUMPRODUCT(ISNUMBER(B1:B3),C1:C3)", 0),
    ("=SUMPRODUCT(--(D1:D3>1),D1:D3)", 5),  # made numbers: 2 + 3
    ("=SUMPRODUCT((D1:D3>1)*D1:D3)", 5),  # arithmetic: formualizer's own, as it was
    ("=SUMPRODUCT(ISNUMBER(B1:B3)*C1:C3)", 2),
    ("=SUMPRODUCT({1,TRUE},{3,4})", 3),
    ("=SUMPRODUCT(D1:D3,D1:D3)", 14),
    ("=SUMPRODUCT(ROW(D1:D3),D1:D3)", 14),  # ROW in SUMPRODUCT: every row
    ("=SUMPRODUCT(ROW(D1:D3))", 6),
    ("=SUMPRODUCT(COLUMN(B1:D1))", 9),
    ("=SUMPRODUCT(ROW(D1:D3)*1,D1:D3*1)", 14),
    ("=ROW(D1:D3)+SUMPRODUCT(ROW(D1:D3))", 7),  # outside SUMPRODUCT: the first row, as before
    ("=SUMPRODUCT(B1:B3,D1:D2)", "#VALUE!"),  # sizes differ
    ("=SUMPRODUCT(B1:B3,E1:E3)", "#DIV/0!"),  # an error in an array comes first
]


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row, (b, c, d) in enumerate([(1, 2, 1), (True, 5, 2), (3, False, 3)], 1):
        sheet.cell(row=row, column=2, value=b)
        sheet.cell(row=row, column=3, value=c)
        sheet.cell(row=row, column=4, value=d)
        sheet.cell(row=row, column=5, value="=1/0" if row == 2 else row)
    for row, (formula, _) in enumerate(CASES, 10):
        sheet.cell(row=row, column=1, value=formula)
    path = tmp_path_factory.mktemp("sumproduct") / "sumproduct.xlsx"
    book.save(path)
    return WorkbookCalculation(path).compute().values


@pytest.mark.parametrize(("row", "formula", "expected"), [(r, f, e) for r, (f, e) in enumerate(CASES, 10)],
                         ids=[c[0] for c in CASES])
def test_sumproduct_as_excel(computed, row, formula, expected):
    assert computed[("S", f"A{row}")] == expected


@pytest.mark.parametrize(("formula", "engine_copy"), [
    ("=SUMPRODUCT(A1:A3,B1:B3)", f"={LOGICALS}(A1:A3,B1:B3)"),  # references may hold TRUE
    ("=SUMPRODUCT(A1:A3>1)", f"={LOGICALS}(A1:A3>1)"),
    ("=SUMPRODUCT(Prices,Units)", f"={LOGICALS}(Prices,Units)"),  # names
    ("=SUMPRODUCT(IF(A1:A3,1,0))", f"={LOGICALS}(IF(A1:A3,1,0))"),  # IF may answer a logical
    ("=SUMPRODUCT(--(A1:A3>1),B1:B3*1)", "=SUMPRODUCT(--(A1:A3>1),B1:B3*1)"),  # numbers: the engine's own
    ("=SUMPRODUCT((A1:A3>1)*B1:B3)", "=SUMPRODUCT((A1:A3>1)*B1:B3)"),
    ("=SUMPRODUCT(ROW(A1:A3),2)", "=SUMPRODUCT(ROW(A1:A3),2)"),
    ("=SUMPRODUCT(-A1:A3)", "=SUMPRODUCT(-A1:A3)"),
    ("=SUMPRODUCT(+A1:A3)", f"={LOGICALS}(+A1:A3)"),  # a plus sign makes nothing a number
    ("=SUMPRODUCT(A1:A3&1)", f"={LOGICALS}(A1:A3&1)"),
])
def test_which_calls_are_ours(formula, engine_copy):
    assert one("sumproduct_logicals", formula) == engine_copy


def test_the_callback_reads_entries_as_excel():
    SUMPRODUCT = callbacks()[LOGICALS]  # noqa: N806 - the function's name
    day = datetime.datetime(1900, 1, 3)  # a date-formatted 3
    assert SUMPRODUCT([[1.0, True, "2", None, day]], [[2.0, 5.0, 5.0, 5.0, 2.0]]) == 8.0
    assert SUMPRODUCT([[0.1], [0.2]], [[3.0], [3.0]]) == 0.1 * 3.0 + 0.2 * 3.0  # products summed in order
    assert SUMPRODUCT(2.0, 3.0) == 6.0
    assert SUMPRODUCT([["4"]], [[2.0]]) == {"type": "Error", "kind": "Value"}  # single values: text is #VALUE!
    assert SUMPRODUCT([[2.0]], [[None]]) == {"type": "Error", "kind": "Value"}
    assert SUMPRODUCT([[1.0, 2.0]], [[1.0], [2.0]]) == {"type": "Error", "kind": "Value"}
    assert SUMPRODUCT([[1.0, 2.0]], [[{"type": "Error", "kind": "Na"}, 1.0]]) == {"type": "Error", "kind": "Na"}


def test_no_negative_zero():
    """Excel has no -0: products of 0 and a negative number sum to 0 (formulas_test.xlsx MATH &
    TRIG!X75, whose values-frozen copy wrote -0 when the sum began at the first product)."""
    SUMPRODUCT = callbacks()[LOGICALS]  # noqa: N806 - the function's name
    total = SUMPRODUCT([[None, "ciao"]], [[1.2, -4.0]], [[-4.0, 1.3]])
    assert total == 0 and str(total) == "0.0"
