"""openpyxl's read of a book's sheets, keeping what it drops of each cell as it parses it.

calc needs two things of every `<c>` that openpyxl's model does not hold: the value the file
stored for a formula cell (Excel's answer: openpyxl keeps the formula and drops its `<v>`)
and the `cm` that marks a dynamic array (calc/package.py says why). calc/package.py reads
them in a pass of its own over each sheet part; inside `recording()`, openpyxl's own parse of
the sheets hands each row's `<c>` elements to `package.raw_cell` before it clears them, so the
sheets are parsed once for everything (formulas_test.xlsx: that second parse was 0.1 CPU s of
a 3.3 s run). The cells so kept go to `Package.keep`; a part openpyxl did not parse (none in
a book it reads whole) is still parsed by calc/package.py. What is kept is what openpyxl
reads as cells, the `<c>` children of each `<row>`: a `<c>` anywhere else in the XML is
not a cell of the book for openpyxl, and no longer for the stored values either.

openpyxl has no hook for this: while `recording()` is open in a thread, its
`WorkSheetParser.parse_row` (openpyxl 3.1.5's, `REPRODUCED`: it is handed every `<row>`
element, whole, before the parser clears it, and the parser's source is the zip part it
reads) is followed by the keeping; in another thread, or outside it, openpyxl reads as usual
(a thread-local flag, as calc/merged_read.py does). With any other openpyxl `recording()`
keeps nothing and calc/package.py parses every sheet itself, as before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, cast

from rates_xl.calc.package import CELL_TAG, Kept, RawCell, raw_cell

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

    from openpyxl.worksheet._reader import WorkSheetParser

#: What `parse_row` answers: the row's number and its cells (openpyxl's dicts).
_Parsed = tuple[int, list[dict[str, object]]]

#: The openpyxl versions whose `WorkSheetParser.parse_row` the keeping was checked against
#: (tests/calc/test_stored_cells.py). Another version keeps nothing.
REPRODUCED = ("3.1.5",)

_here = threading.local()
_lock = threading.Lock()
_original: list[Callable[[WorkSheetParser, Element], _Parsed]] = []
_CELLS = "_rates_xl_cells"  # a parser's own list of the cells it kept


def _parse_row(parser: WorkSheetParser, row: Element) -> _Parsed:
    """openpyxl's `parse_row`, then each of the row's cells kept (while `recording`)."""
    parsed = _original[0](parser, row)
    kept: Kept | None = getattr(_here, "kept", None)
    if kept is None:
        return parsed
    cells: list[RawCell] | None = parser.__dict__.get(_CELLS)
    if cells is None:
        part = getattr(parser.source, "name", None)  # (a zip part: `ZipExtFile.name`)
        cells = parser.__dict__[_CELLS] = []
        if isinstance(part, str):
            kept.setdefault(part, cells)  # (a part read twice: its first read stands)
    for element in row:
        if element.tag == CELL_TAG and (cell := raw_cell(element)) is not None:
            cells.append(cell)
    return parsed


def _install() -> None:
    from openpyxl.worksheet._reader import WorkSheetParser

    with _lock:
        if not _original:
            _original.append(cast("Callable[[WorkSheetParser, Element], _Parsed]", WorkSheetParser.parse_row))
            setattr(WorkSheetParser, "parse_row", _parse_row)  # noqa: B010 (openpyxl's stub types the row apart)


@contextmanager
def recording() -> Iterator[Kept | None]:
    """Within: openpyxl's reads of sheets in this thread keep each part's cells in the dict
    yielded (for `Package.keep`); None with an openpyxl this was not checked against, which
    keeps nothing."""
    import openpyxl

    if openpyxl.__version__ not in REPRODUCED:
        yield None
        return
    _install()
    kept: Kept = {}
    outer, _here.kept = getattr(_here, "kept", None), kept
    try:
        yield kept
    finally:
        _here.kept = outer
