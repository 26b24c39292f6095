"""Cycles on paper only: a cell is in a circular reference when its evaluation really reads
a cell still being computed, as Excel tracks it, not merely when the static dependency graph
has a cycle. Each case is rows of formulas_circular.xlsx (Excel-made, iterative calculation
off) copied into a fresh book; Excel's answers are the corpus book's cached values, read at
test time. Before the fix every cell of a static cycle was listed as a loop and given 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from rates_xl.calc.fidelity import same
from tests.calc.excel_cases import corpus_book, excel_value

BOOK = "formulas_circular.xlsx"


def _rows(rows: list[int], tmp: Path) -> Path:
    """A new book (iteration off, no cached values) holding these rows of the corpus sheet."""
    import openpyxl
    from openpyxl.worksheet.formula import ArrayFormula

    source = openpyxl.load_workbook(corpus_book(BOOK))["DATA"]
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "DATA"
    for row in rows:
        for cell in source[row]:
            value = cell.value
            if isinstance(value, ArrayFormula):
                value = ArrayFormula(value.ref, value.text)
            if value is not None:
                sheet[cell.coordinate] = value
    path = tmp / "paper_loops.xlsx"
    book.save(path)
    return path


def _compute(path: Path):
    from rates_xl.calc.workbook import WorkbookCalculation

    result = WorkbookCalculation(path).compute()
    listed = set(result.loops) | {f"{s.sheet}!{s.cell}" for s in result.skipped}
    return result, listed


#: (class, rows copied, cells Excel computes although they are in a static cycle)
PAPER = [
    ("the branch closing the loop not taken: IF(IF(A6,B6,TRUE),1,B6) with A6 FALSE", [6],
     ["B6", "C6", "D6", "E6"]),
    ("IFS whose first condition is met before the one reading the loop", [16], ["B16", "C16", "D16", "E16"]),
    ("an error decided before the sum over the cell itself (#REF!)", [14], ["C14", "D14"]),
    ("a cell summing itself behind an error test (#REF!)", [15], ["C15"]),
    ("IF(A10,C10,1) with A10 FALSE, its loop through a legacy array", [10, 11, 12], ["B10", "E10", "B12", "E12"]),
]


@pytest.mark.parametrize(("case", "rows", "cells"), PAPER, ids=[p[0] for p in PAPER])
def test_cycle_on_paper_only_computed_as_excel(case, rows, cells, tmp_path):
    result, listed = _compute(_rows(rows, tmp_path))
    for cell in cells:
        theirs = excel_value(BOOK, f"DATA!{cell}")
        ours = result.values.get(("DATA", cell))
        assert f"DATA!{cell}" not in listed and same(ours, theirs), (case, cell, ours, theirs, result.loops)


#: (class, rows copied): loops Excel reports (it shows 0, its value left over).
REAL = [
    ("a cell reading itself", [2]),
    ("a three-cell loop", [4]),
    ("IF(A5,B5,1) with A5 TRUE: the branch closing the loop taken", [5]),
    ("every branch in the loop", [7]),
    ("OR(A13,C13): OR reads every argument", [13]),
    ("IFS whose loop-reading condition is reached", [17]),
    # Excel evaluates every argument of an array formula whole: a loop whatever the branch.
    ("a legacy array IF over the loop with its conditions FALSE", [8, 9]),
]


@pytest.mark.parametrize(("case", "rows"), REAL, ids=[r[0] for r in REAL])
def test_real_loop_stays_listed(case, rows, tmp_path):
    import openpyxl

    path = _rows(rows, tmp_path)
    formulas = [c.coordinate for row in openpyxl.load_workbook(path)["DATA"].iter_rows()
                for c in row if c.data_type == "f" or type(c.value).__name__ == "ArrayFormula"]
    result, listed = _compute(path)
    loop_cells = [c for c in formulas if c[0] in "BCD"]
    assert loop_cells
    for cell in loop_cells:
        assert f"DATA!{cell}" in result.loops, (case, cell, result.loops)
        assert result.values.get(("DATA", cell)) == 0  # Excel's warning value, never a computed one


def test_a_loop_caught_by_an_error_test_stays_listed(tmp_path):
    """Read at run time, a loop is still one when the reading function would catch an error:
    `=IFERROR(A1,5)` in A1 is Excel's circular-reference warning, never 5."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "DATA"
    loops = {"A1": "=IFERROR(A1,5)", "A2": "=ISERROR(B2)", "B2": "=A2",
             "A3": "=IF(ISERROR(B3),1,2)", "B3": "=A3", "A4": "=COUNTBLANK(A4:B4)"}
    for cell, formula in loops.items():
        sheet[cell] = formula
    sheet["C1"] = "=IF(FALSE,A1,4)"  # reads no cell of a loop: computed
    path = tmp_path / "caught.xlsx"
    book.save(path)
    result, _listed = _compute(path)
    assert sorted(result.loops) == sorted(f"DATA!{cell}" for cell in loops), result.loops
    assert all(result.values.get(("DATA", cell)) == 0 for cell in loops)
    assert result.values.get(("DATA", "C1")) == 4
