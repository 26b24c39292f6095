"""A union of ranges given to a function, `SUM((B1,B3))`, `RANK(A1,(B1,B2,B3),1)`, as Excel reads
it (calc/formula/unions.py). formualizer knows no union: `SUM((B1,B3))` was #VALUE! and
`COUNT((B1,B3,D5))` 0, silently in a book whose cached values do not check them. POI's Excel-made
61063.xlsx holds `RANK(A1,(B1,B2,B3),1)` over 50 and 1, 50, 100: Excel's 2."""

from __future__ import annotations

import openpyxl
import pytest

from rates_xl.calc.workbook import WorkbookCalculation

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


def _book(path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    data = book.create_sheet("Data")
    for row, (b, c) in enumerate([(1, 4), (50, "x"), (100, None)], start=1):
        sheet[f"B{row}"], sheet[f"C{row}"], data[f"A{row}"] = b, c, row * 10
    sheet["A1"] = 50
    return book, sheet


def test_a_union_is_its_areas_as_arguments_where_a_function_reads_them_alike(tmp_path):
    book, sheet = _book(tmp_path)
    for row, (union, spread) in enumerate(PAIRS, start=10):
        sheet[f"E{row}"], sheet[f"F{row}"] = union, spread
    book.save(tmp_path / "unions.xlsx")
    result = WorkbookCalculation(tmp_path / "unions.xlsx", full=True).compute()
    got = [result.values[("S", f"E{row}")] for row in range(10, 10 + len(PAIRS))]
    assert got == [result.values[("S", f"F{row}")] for row in range(10, 10 + len(PAIRS))]
    assert got[:4] == [101, 55, 2, 5]
    assert not result.skipped


def test_ranks_reference_may_be_a_union(tmp_path):
    book, sheet = _book(tmp_path)
    sheet["E1"] = "=RANK(A1,(B1,B2,B3),1)"  # POI's 61063.xlsx: Excel's 2
    sheet["E2"] = "=RANK(A1,(B1,B3,C1:C3))"  # 50 among 1, 100, 4 ("x" and the empty cell read as a range's)
    sheet["E3"] = "=_xlfn.RANK.EQ(100,(B1:B2,B3,Data!A1:A3))"
    sheet["E4"] = "=_xlfn.RANK.AVG(50,(B1:B3,B2))"  # 50 twice: 2nd and 3rd
    sheet["E5"] = "=RANK(B1,(Data!A1:A3,C1))"
    book.save(tmp_path / "rank.xlsx")
    values = WorkbookCalculation(tmp_path / "rank.xlsx", full=True).compute().values
    assert [values[("S", f"E{row}")] for row in range(1, 6)] == [2, "#N/A", 1, 2.5, "#N/A"]


@pytest.mark.parametrize("formula", ["=LARGE((B1:B3,C1:C3),2)", "=SUM((B1,B3)+1)", "=1+INDEX((B1:B3,C1:C3),2,1,2)",
                                     "=(B1,B3)", "=COUNTBLANK((B1,D5))", "=SUM(((B1,B3),C1))"])
def test_a_union_anywhere_else_is_listed_not_guessed(tmp_path, formula):
    book, sheet = _book(tmp_path)
    sheet["E1"] = formula
    book.save(tmp_path / "listed.xlsx")
    result = WorkbookCalculation(tmp_path / "listed.xlsx", full=True).compute()
    assert [(s.cell, "union of ranges" in s.reason) for s in result.skipped] == [("E1", True)]
