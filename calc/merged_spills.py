"""A dynamic array whose spill would cover merged cells: #SPILL! in its anchor, as in Excel.

Excel: "Spill into merged cells. Spilled array formulas cannot spill into merged cells.
Un-merge the cells in question, or move the formula to fill another range" (Microsoft support,
"What is a #SPILL! error?" and "How to correct a #SPILL! error"); Office.js names the reason
`Excel.SpillErrorCellValueSubType.mergedCell`, "a merged cell blocking a dynamic array". The
merged cells keep what they hold (the range's first cell its value, the others nothing) and
what reads them reads that. Any merged cell the spill range meets blocks it, the anchor's own
merged range too ("move the formula to another range that doesn't intersect with merged cells").

Both engines' copies hold the hidden cells of a merged range empty, so both would spill over
them (and whatever reads those cells would read the spill): each finds, after an evaluation,
the spills that cover merged cells, holds their anchors at #SPILL! and computes again.

Legacy (Ctrl+Shift+Enter) arrays and what-if data tables (`{=TABLE(...)}`, an array formula
too) cannot meet merged cells in a book Excel wrote: Excel refuses to enter one over them
("Array formulas are not valid in merged cells"; `Range.FormulaArray` raises there). Only a
file another program wrote can hold one, and what Excel would show for it is not known: it is
computed, the values-frozen copy leaves the merged cells as they are (calc/frozen.py), and the
summary and a note on its anchor say so (`arrays_over_merged`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rates_xl.functions.sheet import Area, Key

if TYPE_CHECKING:
    from openpyxl import Workbook

    from rates_xl.calc.book import Book


def merged_ranges(workbook: Workbook) -> dict[str, tuple[Area, ...]]:
    """Sheet title -> its merged ranges (only sheets that have some)."""
    found = {}
    for ws in workbook.worksheets:
        ranges = tuple(Area(r.min_row, r.min_col, r.max_row, r.max_col) for r in ws.merged_cells.ranges)
        if ranges:
            found[ws.title] = ranges
    return found


def unmerged(workbook: Workbook) -> Workbook:
    """`workbook` (an engine's copy) with its merged ranges undone: each hidden cell (openpyxl's
    MergedCell, whose value it refuses to set) becomes an empty cell, as a formula reads it, so
    the preparation may write into an array's range wherever it lies."""
    from openpyxl.cell.cell import MergedCell

    for ws in workbook.worksheets:
        for merged in list(ws.merged_cells.ranges):
            ws.merged_cells.remove(merged)
            for at in merged.cells:  # (openpyxl's unmerge_cells fails on ranges that overlap)
                if isinstance(ws._cells.get(at), MergedCell):
                    del ws._cells[at]
    return workbook


def in_the_way(merged: tuple[Area, ...], spilled: Area) -> Area | None:
    """The first merged range a spill over `spilled` meets (None: it may spill; one cell
    never spills)."""
    if spilled.is_cell:
        return None
    return next((area for area in merged if area.intersects(spilled)), None)


def arrays_over_merged(book: Book) -> dict[Key, str]:
    """Legacy arrays and what-if data tables whose range holds a merged range's hidden cell
    (only in a file another program wrote): why the copy cannot show all of it."""
    found = {}
    for key in sorted(book.legacy_arrays | set(book.data_tables)):
        sheet, anchor = key
        area = book.cells[key][1]
        for merged in book.merged.get(sheet, ()):
            common = merged.intersection(area)
            if common is not None and common != Area.cell(merged.top, merged.left):
                kind = "what-if data table" if key in book.data_tables else "array formula"
                found[key] = (f"this {kind}'s range {area.a1()} covers merged cells ({merged.a1()}), where Excel "
                              "enters no array formula (\"Array formulas are not valid in merged cells\"): the file "
                              "was not saved by Excel; the merged cells keep their own content in this copy, and "
                              "the formulas here that read them read the array's values")
                break
    return found


def message(area: Area) -> str:
    """Why the anchor shows #SPILL!, for the summary and the copy's note."""
    return (f"the table does not fit: the range it spills into meets merged cells ({area.a1()}); "
            "unmerge them or move the formula")
