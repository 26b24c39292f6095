"""openpyxl's reading of merged cells, with their border formatting left for when it is needed.

Reading a merged range, openpyxl gives its first cell the last cell's right and bottom borders
(`MergedCellRange._get_borders`), replaces the other cells with `MergedCell`s and formats them
(`MergedCellRange.format`): the edges get the first cell's borders and every cell its
protection, one new `Border` each, hashed and compared into the book's style list. On a book of
many merged ranges that is a large share of the read (poi_StructuredRefs: 426 ranges), and no
calculation looks at a border: the engine's copy is rewritten and handed to the engine, never
saved for anyone to see. The copy a user gets (the values-frozen book) is formatted exactly as
openpyxl formats it, range by range in the file's order (so its style list keeps its order):
`format_merged` before it is written.

openpyxl has no option for this. `unformatted()` makes the two methods do, in this thread only
and until it exits, everything but the formatting (a thread-local flag: a read in another thread
meanwhile formats as usual); each is openpyxl 3.1's with the formatting left out.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from copy import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypeVar, cast

if TYPE_CHECKING:
    from openpyxl import Workbook
    from openpyxl.styles.borders import Border
    from openpyxl.styles.cell_style import StyleArray
    from openpyxl.styles.protection import Protection
    from openpyxl.worksheet.merge import MergedCellRange
    from openpyxl.worksheet.worksheet import Worksheet

_here = threading.local()
_lock = threading.Lock()
_original: dict[str, Callable[..., None]] = {}
_UNREAD = object()  # (a `_Known.edges` key not read yet)
_Key = TypeVar("_Key", bound=tuple[object, ...])  # (what a border sum depends on: `_add_border`)
_LEFT = "_rates_xl_unformatted"  # a worksheet's [(merged range, its last cell's sides to add, that cell's border id)]


def _unformatted() -> bool:
    return getattr(_here, "unformatted", False)


def _get_borders(mcr: MergedCellRange) -> None:
    if not _unformatted():
        _original["_get_borders"](mcr)
        return
    from openpyxl.styles.borders import Border

    ws = mcr.ws
    start = ws._cells.get((mcr.min_row, mcr.min_col))
    mcr.start_cell = start if start is not None else ws.cell(row=mcr.min_row, column=mcr.min_col)
    end_cell = ws._cells.get((mcr.max_row, mcr.max_col))  # read now: it becomes a MergedCell
    end, end_id = None, 0
    if end_cell is not None:
        styled = cast(_Styled, end_cell)
        end = Border(right=styled.border.right, bottom=styled.border.bottom)
        end_id = styled._style.borderId  # (reading its border gave it a style array if it had none)
    left: list[tuple[MergedCellRange, Border | None, int]] = ws.__dict__.setdefault(_LEFT, [])
    left.append((mcr, end, end_id))


def _clean_merge_range(ws: Worksheet, mcr: MergedCellRange) -> None:
    if not _unformatted():
        _original["_clean_merge_range"](ws, mcr)
        return
    from openpyxl.cell.cell import MergedCell

    cells = mcr.cells
    next(cells)  # the first cell keeps its value
    for row, col in cells:
        ws._cells[row, col] = MergedCell(ws, row, col)


def _install() -> None:
    from openpyxl.worksheet.merge import MergedCellRange
    from openpyxl.worksheet.worksheet import Worksheet

    # openpyxl's private methods, by name (types-openpyxl's stubs do not declare them).
    ours = ((MergedCellRange, "_get_borders", _get_borders), (Worksheet, "_clean_merge_range", _clean_merge_range))
    with _lock:
        if not _original:
            for owner, name, method in ours:
                _original[name] = getattr(owner, name)
                setattr(owner, name, method)


@contextmanager
def unformatted() -> Iterator[None]:
    """openpyxl reads merged ranges in this thread without formatting them, until exit."""
    _install()
    _here.unformatted = True
    try:
        yield
    finally:
        _here.unformatted = False


def format_merged(workbook: Workbook) -> None:
    """What openpyxl's read would have done to the merged ranges of `workbook` (read under
    `unformatted`), in the same order: each range's first cell gets its last cell's right and
    bottom borders, then its edges their borders and its cells their protection."""
    from openpyxl.styles.cell_style import StyleArray

    known = _Known()
    for ws in workbook.worksheets:
        for mcr, end, end_id in ws.__dict__.pop(_LEFT, []):
            if end is not None:
                # `start.border += end`, its sum hashed into the book's border list once per
                # pair of borders (the first cell's, the last cell's `end_id`): an equal sum
                # has that sum's index (formulas_test: 207 ranges, 0.01 s).
                start = cast(_Styled, mcr.start_cell)
                if not start._style:
                    start._style = StyleArray()  # (what reading its border does)
                _add_border(start, end, (start._style.borderId, end_id), known.sums)
            _format(mcr, known)


def _add_border(cell: _Styled, border: Border, key: _Key, sums: dict[_Key, int]) -> None:
    """`cell.border += border`, the sum hashed into the book's border list once per `key` (what
    the sum depends on): a later cell with that key gets the index openpyxl gave the first."""
    found = sums.get(key)
    if found is None:
        cell.border += border
        sums[key] = cell._style.borderId
    else:
        cell._style.borderId = found


class _Styled(Protocol):
    """A cell as `_format` reads it (openpyxl's stubs leave out its style array)."""
    _style: StyleArray
    border: Border
    protection: Protection


@dataclass
class _Known:
    """What `_format` found once, for the next range that needs it: list indices only grow."""

    #: (a cell's border, the first cell's, edge) -> the border list's index of their sum
    borders: dict[tuple[int, int, str], int] = field(default_factory=dict)
    #: (the first cell's border, an edge) -> the Border openpyxl adds there, None for none
    edges: dict[tuple[int, str], Border | None] = field(default_factory=dict)
    #: the first cell's protection -> the protection list's index of its copy
    protections: dict[int, int] = field(default_factory=dict)
    #: (a first cell's border, its range's last cell's) -> the border list's index of the
    #: first's plus the last's right and bottom sides (`format_merged`)
    sums: dict[tuple[int, int], int] = field(default_factory=dict)


def _format(mcr: MergedCellRange, known: _Known) -> None:
    """openpyxl 3.1's `MergedCellRange.format`, each cell's new border found once per kind.

    There, each edge cell's `cell.border += Border(edge=side)` builds a new Border and hashes
    it into the book's border list (0.44 of formulas_test's 6.8 s profiled: 61,876 of them,
    most the same few). The new border depends only on the cell's border, the first cell's
    (whose side is added) and the edge, so the list's index for each such triple is kept and
    written into the next cell that has it: the list grows by the same borders in the same
    order (the first of each goes through openpyxl's own path), each cell gets the same
    index. Likewise the Border a first cell's border adds at an edge is built once per pair,
    and the copy of its protection added once per protection: openpyxl's list gives an equal
    copy the same index each time (poi_StructuredRefs: 426 ranges, 0.03 s)."""
    from openpyxl.cell.cell import MergedCell
    from openpyxl.styles.borders import Border
    from openpyxl.styles.cell_style import StyleArray

    ws = mcr.ws
    cells = ws._cells

    def cell_at(coord: tuple[int, int]) -> _Styled:
        cell = cells.get(coord)
        if cell is None:
            cell = MergedCell(ws, row=coord[0], column=coord[1])
            cells[coord] = cell
        styled = cast(_Styled, cell)
        if not styled._style:
            styled._style = StyleArray()
        return styled

    start = cast(_Styled, mcr.start_cell)
    for name in ("top", "left", "right", "bottom"):
        if not start._style:
            start._style = StyleArray()  # (what reading its border does)
        # (read again at each edge: the first cell lies on two, and its border changes there)
        start_id = start._style.borderId
        edge = known.edges.get((start_id, name), _UNREAD)
        if edge is _UNREAD:
            side = getattr(start.border, name)
            # (openpyxl's own test: no border style, nothing to add)
            edge = known.edges[start_id, name] = None if side and side.style is None else Border(**{name: side})
        if edge is None:
            continue
        border = cast("Border", edge)  # (not the `_UNREAD` mark)
        for coord in getattr(mcr, name):
            cell = cell_at(coord)
            _add_border(cell, border, (cell._style.borderId, start_id, name), known.borders)
    index = known.protections.get(start._style.protectionId)
    for coord in mcr.cells:
        cell = cell_at(coord)
        if index is None:
            first = start._style.protectionId
            cell.protection = copy(start.protection)
            index = known.protections[first] = cell._style.protectionId
        else:
            cell._style.protectionId = index
