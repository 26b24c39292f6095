"""How far a sheet's formulas reach, read once from the book: whether a formula reads whole
rows (`has_whole_rows`: helper cells right of a sheet's used range would be read by it), and
the last row each sheet may hold a value in once computed (`LastRows`: a whole column is read
down to it, past what the file stored where an array or a RATES_* call may spill).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.sheet import MAX_COL, read_area, split_reference

if TYPE_CHECKING:
    from openpyxl import Workbook
    from openpyxl.worksheet.worksheet import Worksheet

#: A digit, ":" and a digit (`2:5`, `$2:$5`): every whole-row reference holds one, few other
#: formulas do (`A1:B2` holds none), so only those are read token by token. (Searched only in
#: a formula holding a ":", which most do not: the search tries every character.)
_ROWS = re.compile(r"\d\s*:\s*\$?\d")


def has_whole_rows(book: Workbook) -> bool:
    """Whether a formula reads whole rows (`2:5`). (The preparation asks `reads_whole_rows` of
    each text as it reads the cells: the same answer without a walk of its own.)"""
    from openpyxl.worksheet.formula import ArrayFormula

    for ws in book.worksheets:
        for cell in ws._cells.values():  # (in no order: a cell is enough)
            value = cell.value
            if reads_whole_rows(value.text if isinstance(value, ArrayFormula) else value):
                return True
    return False


def reads_whole_rows(text: object) -> bool:
    """Whether a cell's text (a formula's, an array formula's) reads whole rows."""
    return isinstance(text, str) and text.startswith("=") and ":" in text and _ROWS.search(text) is not None and \
        any(_whole_rows(t.text) for t in Formula(text).tokens if t.is_range)


def _whole_rows(reference: str) -> bool:
    ref = split_reference(reference)[1]
    area = read_area(ref)
    return area is not None and area.left == 1 and area.right == MAX_COL and not any(ch.isalpha() for ch in ref)


class LastRows:
    """The last row each sheet may hold a value in once computed (read once, when a formula
    first needs it: the pass whole_columns): the last row holding a value in the file, or further
    where an array formula or a RATES_* call may spill past what the file stored (a curve
    that grew; `=SEQUENCE(A1)` with A1 raised), so a bounded whole column still reads it."""

    def __init__(self, book: Workbook) -> None:
        self._book = book
        self._rows: dict[str, int] | None = None

    def of(self, own: str, sheet: str | None) -> int:
        """The last row of `sheet` (None: `own`, the formula's sheet)."""
        if self._rows is None:
            self._rows = {ws.title: _last_row(ws) for ws in self._book.worksheets}
        return self._rows.get(own if sheet is None else sheet, 0)


def _last_row(ws: Worksheet) -> int:
    from openpyxl.worksheet.formula import ArrayFormula

    from rates_xl.calc.book import MAX_SPILL_ROWS

    last = 0
    for (r, _c), cell in ws._cells.items():
        value = cell.value
        if value is None:
            continue
        if isinstance(value, ArrayFormula) or (isinstance(value, str) and value.startswith("=")
                                               and "RATES" in value.upper()):
            last = max(last, r + MAX_SPILL_ROWS)  # may spill down this far (calc/book.py)
        last = max(last, r)
    return last
