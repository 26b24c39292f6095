"""A union of ranges given to a function, `SUM((B1,B3))`, `RANK(A1,(B1,B2,B3),1)`, as Excel reads
it (calc/formula/unions.py). formualizer knows no union: `SUM((B1,B3))` was #VALUE! and
`COUNT((B1,B3,D5))` 0, silently in a book whose cached values do not check them. POI's Excel-made
61063.xlsx holds `RANK(A1,(B1,B2,B3),1)` over 50 and 1, 50, 100: Excel's 2."""

from __future__ import annotations

import pytest

from tests.calc.excel_cases import sheets_computed

#: Each formula with a union beside what Excel reads it as (its areas as arguments), over
#: B1:B3 = 1, 50, 100, C1:C3 = 4, "x", empty and D5 empty.
PAIRS = [("=SUM((B1,B3))", "=SUM(B1,B3)"), ("=SUM( (B1:B2,C1:C3) )", "=SUM(B1:B2,C1:C3)"),
         ("=COUNT((B1,B3,D5))", "=COUNT(B1,B3,D5)"), ("=COUNTA((B1:C3,D5))", "=COUNTA(B1:C3,D5)"),
         ("=MAX((B1:B2,C1))+MIN((B3,C1:C3))", "=MAX(B1:B2,C1)+MIN(B3,C1:C3)"),
         ("=AVERAGE((B1:B3,C1:C3))", "=AVERAGE(B1:B3,C1:C3)"), ("=MEDIAN((B1,B3),C1)", "=MEDIAN(B1,B3,C1)"),
         ("=_xlfn.STDEV.S((B1:B3,C1))", "=_xlfn.STDEV.S(B1:B3,C1)"), ("=SUM((Data!A1,Data!A3))", "=SUM(Data!A1,Data!A3)"),
         ("=AREAS((B1,Data!A3))", "=2"), ("=ROWS((B1,Data!A3))", "=#REF!"),
         # a LAMBDA's arguments are no union (formulas_test.xlsx LOGICAL!C12)
         ("=_xlfn.LAMBDA(_xlpm.x,_xlpm.y,SUM(_xlpm.x,(_xlpm.y+B1)))(1,2)", "=SUM(1,2+B1)")]


def _computed(path, formulas, *, listing=False):
    """The sheet S (A1 = 50, B1:B3 = 1, 50, 100, C1:C3 = 4, "x", empty) beside Data (A1:A3 =
    10, 20, 30), S also holding `formulas` (address -> formula), computed."""
    cells = {"A1": 50, "B1": 1, "B2": 50, "B3": 100, "C1": 4, "C2": "x", **formulas}
    return sheets_computed(path, {"S": cells, "Data": {"A1": 10, "A2": 20, "A3": 30}}, listing=listing)


def test_a_union_is_its_areas_as_arguments_where_a_function_reads_them_alike(tmp_path):
    cells = {f"{column}{row}": pair[i] for row, pair in enumerate(PAIRS, start=10) for i, column in enumerate("EF")}
    values = _computed(tmp_path / "unions.xlsx", cells).values
    got = [values[("S", f"E{row}")] for row in range(10, 10 + len(PAIRS))]
    assert got == [values[("S", f"F{row}")] for row in range(10, 10 + len(PAIRS))]
    assert got[:4] == [101, 55, 2, 5]


def test_ranks_reference_may_be_a_union(tmp_path):
    values = _computed(tmp_path / "rank.xlsx", {
        "E1": "=RANK(A1,(B1,B2,B3),1)",  # POI's 61063.xlsx: Excel's 2
        "E2": "=RANK(A1,(B1,B3,C1:C3))",  # 50 among 1, 100, 4 ("x" and the empty cell read as a range's)
        "E3": "=_xlfn.RANK.EQ(100,(B1:B2,B3,Data!A1:A3))",
        "E4": "=_xlfn.RANK.AVG(50,(B1:B3,B2))",  # 50 twice: 2nd and 3rd
        "E5": "=RANK(B1,(Data!A1:A3,C1))"}).values
    assert [values[("S", f"E{row}")] for row in range(1, 6)] == [2, "#N/A", 1, 2.5, "#N/A"]


@pytest.mark.parametrize("formula", ["=LARGE((B1:B3,C1:C3),2)", "=SUM((B1,B3)+1)", "=1+INDEX((B1:B3,C1:C3),2,1,2)",
                                     "=(B1,B3)", "=COUNTBLANK((B1,D5))", "=SUM(((B1,B3),C1))"])
def test_a_union_anywhere_else_is_listed_not_guessed(tmp_path, formula):
    result = _computed(tmp_path / "listed.xlsx", {"E1": formula}, listing=True)
    assert [(s.cell, "union of ranges" in s.reason) for s in result.skipped] == [("E1", True)]
