"""The one openpyxl workbook read of a book, lent to an engine and put back as it was read.

calc reads a book with openpyxl once (calc/book.py). The fast engine's preparation rewrites
that workbook in place (calc/engines/formualizer/prepare.py: formulas rewritten, cached values
written over formulas it cannot compute, empty text made explicit, spill ranges emptied,
helper cells and a helper sheet added, defined names' text rewritten, date formats dropped)
and saves it for the engine, and openpyxl's save itself leaves traces (the cell styles it
met, pivot tables, legacy drawings). The values-frozen copy is written from the same workbook
afterwards: `Snapshot(workbook)`, taken before the preparation, puts back everything either
can change (`restore`), so the copy is byte for byte the one a second read would give
(bench/frozen_identity.py compares them; tests/calc/test_one_read.py holds them equal).

Reading the book a second time instead cost formulas_test.xlsx 0.28 of its 0.70 CPU seconds
of writing the copy (in process), and kept two workbooks alive while it was written (its peak
then, 238-241 MB, against 231 now: the engine's first evaluation sets it). The snapshot is
what may change and no more: per cell its value, type,
style array and number format (references; about 40 bytes a cell), the sheets, the defined
names, the calculation settings, the lengths of the workbook's style lists, and each sheet's
merged ranges (the engine is given a set of its own) and pictures' bytes.

openpyxl's save closes each picture's buffer (`Image._data`): the snapshot keeps each
picture's bytes and gives it a new buffer. A picture held any other way (none that openpyxl
reads) makes the workbook not `reusable`: calc reads it again.
"""

from __future__ import annotations

import io
from copy import copy
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openpyxl import Workbook

#: The workbook's style lists (openpyxl IndexedLists) that a save or a style set may extend.
_INDEXED = ("_cell_styles", "_number_formats", "_fonts", "_fills", "_borders", "_alignments", "_protections")
#: `StyleArray.numFmtId`'s index (openpyxl's descriptor reads and writes it so, a Python call
#: a cell: the snapshot and `restore` index it themselves; tests/calc/test_one_read.py checks it).
_NUMBER_FORMAT = 3


class Snapshot:
    """What a workbook's cells, sheets, names and styles are now; `restore` puts them back."""

    def __init__(self, workbook: Workbook) -> None:
        self.workbook = workbook
        book: Any = workbook  # openpyxl's private attributes, which its stubs do not declare
        self.sheets = list(book._sheets)
        # openpyxl reads a picture into a buffer (reader/drawings.py); one held otherwise (a
        # chart sheet's, or a file's) cannot be read again after a save closed it.
        self.reusable = all(isinstance(image.ref, io.BytesIO) for ws in book.worksheets for image in ws._images) \
            and not any(getattr(getattr(sheet, "_drawing", None), "images", None) for sheet in book.chartsheets)
        self.cells = [_Cells(ws) for ws in book.worksheets]
        self.names = [_Names(book.defined_names)] + [_Names(ws.defined_names) for ws in book.worksheets]
        self.calculation = dict(vars(book.calculation)) if book.calculation is not None else None
        self.indexed = {name: (len(lst), dict(lst._dict), lst.clean)
                        for name in _INDEXED if (lst := getattr(book, name, None)) is not None}
        self.formats = (copy(book._date_formats), copy(book._timedelta_formats))  # (sets, once read)
        self.named_styles = len(book._named_styles)
        self.differential = len(book._differential_styles.dxf)
        self.pivots = len(book._pivots)

    def restore(self) -> None:
        """The workbook as it was when the snapshot was taken."""
        book: Any = self.workbook
        book._sheets[:] = self.sheets
        for cells in self.cells:
            cells.restore()
        for names in self.names:
            names.restore()
        if self.calculation is not None:
            vars(book.calculation).clear()
            vars(book.calculation).update(self.calculation)
        for name, (length, index, clean) in self.indexed.items():
            lst = getattr(book, name)
            del lst[length:]
            lst._dict, lst.clean = index, clean
        book._date_formats, book._timedelta_formats = self.formats
        del book._named_styles[self.named_styles:]
        dxf = book._differential_styles.dxf
        if len(dxf) != self.differential:
            book._differential_styles.dxf = dxf[:self.differential]
        del book._pivots[self.pivots:]


class _Cells:
    """One worksheet's cells: each cell (the object), its value, type, style array and that
    array's number format (set in place by openpyxl and by the preparation's `plain_numbers`),
    in parallel lists; and the few worksheet attributes a save or a new cell sets."""

    def __init__(self, ws: Any) -> None:
        from openpyxl.cell.cell import Cell

        self.ws = ws
        cells = list(ws._cells.values())
        self.cells = cells
        self.values = [cell._value for cell in cells]
        # None for a MergedCell: its value and type are its class's, which nothing sets.
        self.types = [cell.data_type if type(cell) is Cell else None for cell in cells]
        self.styles = [cell._style for cell in cells]
        self.formats = [None if style is None else style[_NUMBER_FORMAT] for style in self.styles]
        self.current_row = ws._current_row
        self.legacy_drawing = ws.legacy_drawing
        # The merged ranges: the engine gets a set of its own (calc/merged_spills.py `unmerged`
        # empties it); this one, untouched, comes back (so the copy writes them in its order).
        from openpyxl.worksheet.cell_range import MultiCellRange

        self.merged = ws.merged_cells
        ws.merged_cells = MultiCellRange(self.merged.ranges)
        # Pictures: openpyxl's save reads each from its buffer and closes it (`Image._data`).
        self.images = [(image, image.ref.getvalue()) for image in ws._images if isinstance(image.ref, io.BytesIO)]
        # openpyxl's writer sets these (the columns' outline, after it wrote the sheet's format).
        self.outline = ws.sheet_format.outlineLevelCol, ws.column_dimensions.max_outline

    def restore(self) -> None:
        ws = self.ws
        for cell, value, kind, style, fmt in zip(self.cells, self.values, self.types, self.styles, self.formats,
                                                strict=True):
            if kind is not None:
                cell._value = value
                cell.data_type = kind
            cell._style = style
            if style is not None:
                style[_NUMBER_FORMAT] = fmt
        # Without the cells the preparation added (helper cells, a lifted array's), in the file's order.
        ws._cells.clear()
        ws._cells.update(((cell.row, cell.column), cell) for cell in self.cells)
        ws._current_row = self.current_row
        ws.legacy_drawing = self.legacy_drawing
        ws.merged_cells = self.merged
        for image, data in self.images:
            image.ref = io.BytesIO(data)
        ws.sheet_format.outlineLevelCol, ws.column_dimensions.max_outline = self.outline


class _Names:
    """A scope's defined names (the workbook's or a sheet's): which, and each one's text."""

    def __init__(self, names: Any) -> None:
        self.names = names
        self.items = dict(names)
        self.texts = [(defined, defined.attr_text) for defined in names.values()]

    def restore(self) -> None:
        self.names.clear()
        self.names.update(self.items)
        for defined, text in self.texts:
            defined.attr_text = text
