"""Whole-column references handed to one call are read to the same length (the pass
whole_columns, calc/formula/ranges.py),
as Excel reads each to row 1048576: formualizer cut each to its own column's used rows."""

from __future__ import annotations

from rates_xl.calc.fidelity import same
from rates_xl.calc.formula.passes import one
from rates_xl.calc.formula.site import BookFacts, Site
from tests.calc.excel_cases import computed, corpus_book, excel_value


def even(formula, rows):
    return one("whole_columns", formula, Site("Own", 1, 1, False, BookFacts(last_row=lambda _own, s: rows(s))))


def test_whole_columns_of_one_call_are_bounded_alike():
    rows = {None: 15, "S 2": 20}.get
    assert even("=XLOOKUP(,L:L,M:M,,1,2)", rows) == "=XLOOKUP(,L1:L15,M1:M15,,1,2)"
    assert even("=XLOOKUP(A1,L:L,'S 2'!$M:$M)", rows) == "=XLOOKUP(A1,L1:L20,'S 2'!$M1:$M20)"
    assert even("=SUMPRODUCT( A:B , C:D )", rows) == "=SUMPRODUCT( A1:B15 , C1:D15 )"


def test_a_single_whole_column_is_left_to_the_engine():
    rows = {None: 15}.get
    for formula in ("=SUM(A:A)+INDEX(B:B,3)", "=XLOOKUP(1,L:L,M1:M5)", "=SUM([1]S!A:A,[1]S!B:B)"):
        assert even(formula, rows) == formula


def test_xlookup_over_whole_columns_of_different_used_lengths(tmp_path):
    """ironcalc_XLOOKUP.xlsx Errors!N1: `XLOOKUP(,L:L,M:M,,1,2)`, L used to row 5, M to row
    6; the omitted lookup value finds L6's blank (formualizer: #VALUE!, the lengths differ)."""
    import openpyxl

    book, address = "ironcalc_XLOOKUP.xlsx", "Errors!N1"
    source = openpyxl.load_workbook(corpus_book(book), data_only=True)["Errors"]
    made = openpyxl.Workbook()
    ws = made.active
    ws.title = "Errors"
    for row in source.iter_rows(min_col=12, max_col=13):
        for cell in row:
            ws[cell.coordinate] = cell.value
    ws["N1"] = openpyxl.load_workbook(corpus_book(book))["Errors"]["N1"].value
    path = tmp_path / "whole_columns.xlsx"
    made.save(path)
    ours, flagged = computed(path, "Errors", "N1")
    theirs = excel_value(book, address)
    assert not flagged and same(ours, theirs), f"{address} gave {ours!r}, Excel {theirs!r}"


def test_an_empty_lookup_value_finds_a_blank_in_a_binary_search():
    from rates_xl.calc.xlfuncs.lookup.lookups import xlookup

    lookup_column = [["a"], ["b"], ["c"], ["d"], ["e"], [None], [None]]
    results = [[1.0], [2.0], [3.0], [4.0], [5.0], [6.0], [None]]
    assert xlookup({})(None, lookup_column, results, None, 1, 2) == 6.0


def test_whole_columns_still_read_a_spill_that_grew_past_what_the_file_stored(tmp_path):
    """Bounding whole columns at the file's last used row must not cut off a spill that grows
    when computed: SEQUENCE(A1) stored as 3 rows with A1 = 10 spills to D10, and Excel reads
    all of it (the bound came from the stored rows: #N/A and 14, silently)."""
    import xlsxwriter

    from rates_xl.calc.workbook import WorkbookCalculation

    path = tmp_path / "grown.xlsx"
    wb = xlsxwriter.Workbook(path)
    ws = wb.add_worksheet("S")
    ws.write("A1", 10)
    ws.write_dynamic_array_formula("D1:D3", "=SEQUENCE(A1)")
    ws.write_formula("F1", "=_xlfn.XLOOKUP(8,D:D,D:D)")
    ws.write_formula("F2", "=SUMPRODUCT(D:D,D:D)")
    wb.close()
    result = WorkbookCalculation(path).compute()
    assert result.values[("S", "D10")] == 10
    assert result.values[("S", "F1")] == 8
    assert result.values[("S", "F2")] == sum(n * n for n in range(1, 11))
