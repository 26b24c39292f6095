"""BITAND, BITOR, BITXOR, BITLSHIFT and BITRSHIFT as Excel computes them (calc/xlfuncs/
engineering/bits.py): 2^48 - 1 taken, a left shift past 48 bits #NUM!, where the bridged
`formulas` answered #NUM! and 140737488355328.

Excel 16's values, cached in IronCalc's Excel-made ENGINEERING__BITs.xlsx (ironcalc/IronCalc
xlsx/tests/calc_tests, MIT or Apache-2.0), at the cells named; the ordinary cases of the book
beside them, which the new implementation must give as the bridged one did."""

from __future__ import annotations

import pytest

TOP = 2**48 - 1

#: (formula over A and B, A, B (None: an empty cell), Excel's value, the book's cell)
CASES = [
    ("_xlfn.BITAND(A,B)", TOP, 1, 1, "Sheet1!C10"),
    ("_xlfn.BITOR(A,B)", TOP, 1, TOP, "Sheet1!D10"),
    ("_xlfn.BITXOR(A,B)", TOP, 1, TOP - 1, "Sheet1!E10"),
    ("_xlfn.BITLSHIFT(A,B)", TOP, None, TOP, "Sheet1!J10"),
    ("_xlfn.BITRSHIFT(A,B)", TOP, None, TOP, "Sheet1!K10"),
    ("_xlfn.BITLSHIFT(A,B)", 12, 45, "#NUM!", "Sheet1!J47"),
    ("_xlfn.BITLSHIFT(A,B)", 12, 44, 211106232532992, "Sheet1!J46"),
    ("_xlfn.BITRSHIFT(A,B)", 12, 45, 0, "Sheet1!K47"),
    ("_xlfn.BITAND(A,B)", TOP + 1, 3, "#NUM!", "Sheet1!C11"),
    ("_xlfn.BITLSHIFT(A,B)", TOP + 1, None, "#NUM!", "Sheet1!J11"),
    ("_xlfn.BITAND(A,B)", -34, 2, "#NUM!", "Sheet1!C6"),
    ("_xlfn.BITOR(A,B)", 12.5, 3, "#NUM!", "Sheet1!D8"),
    ("_xlfn.BITXOR(A,B)", 3, 0.1, "#NUM!", "Sheet1!E20"),
    ("_xlfn.BITAND(A,B)", 123123123, 65662, 50, "Sheet1!C5"),
    ("_xlfn.BITOR(A,B)", True, 4, 5, "Sheet1!D13"),
    ("_xlfn.BITXOR(A,B)", True, False, 1, "Sheet1!E16"),
    ("_xlfn.BITAND(A,B)", "123", 456, 72, "Sheet1!C17"),
    ("_xlfn.BITLSHIFT(A,B)", "123", 2, 492, "Sheet1!J17"),
    ("_xlfn.BITLSHIFT(A,B)", 12, 34.67, 206158430208, "Sheet1!J41"),
    ("_xlfn.BITLSHIFT(A,B)", 12, 54, "#NUM!", "Sheet1!J36"),
    ("_xlfn.BITRSHIFT(A,B)", 12, 54, "#NUM!", "Sheet1!K36"),
    ("_xlfn.BITLSHIFT(A,B)", 12, -2, 3, "Sheet1!J38"),
    ("_xlfn.BITRSHIFT(A,B)", 12, -2, 48, "Sheet1!K38"),
    ("_xlfn.BITLSHIFT(A,B)", 12, -53, 0, "Sheet1!J39"),
    ("_xlfn.BITLSHIFT(A,B)", 12, -54, "#NUM!", "Sheet1!J40"),
    ("_xlfn.BITRSHIFT(A,B)", 145, -3, 1160, "Sheet1!K45"),
    ("_xlfn.BITLSHIFT(A,B)", 12.6, 12, "#NUM!", "Sheet1!J42"),
    ("_xlfn.BITLSHIFT(A,B)", 12.5, None, "#NUM!", "Sheet1!J8"),
    ("_xlfn.BITLSHIFT(A,B)", 3, None, 3, "Sheet1!J9"),
    ("_xlfn.BITAND(A,B)", "=1/0", 1, "#DIV/0!", "Sheet1!C18"),
]


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    from tests.calc.excel_cases import rows_computed

    return rows_computed(tmp_path_factory.mktemp("bits") / "bits.xlsx", CASES)


@pytest.mark.parametrize("row", range(1, len(CASES) + 1), ids=[f"{c[0]}:{c[4]}" for c in CASES])
def test_as_excel_answers(computed, row):
    assert computed.values[("S", f"C{row}")] == CASES[row - 1][3]


def test_an_array_goes_on_to_the_bridged_implementation(tmp_path):
    """Given an array, each element's answer, as the bridged implementation lifts over it."""
    from openpyxl.worksheet.formula import ArrayFormula

    from tests.calc.excel_cases import cases_computed

    result = cases_computed(tmp_path / "lifted.xlsx", {"A1": ArrayFormula("A1:B1", "=_xlfn.BITAND({12,7},6)")})
    assert (result.values[("S", "A1")], result.values[("S", "B1")]) == (4, 6)
