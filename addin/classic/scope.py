"""Which cells a ribbon refresh touches: pure Python, no xlwings.

The ribbon handlers read a sheet's formulas in one call (`used_range.formula`), hand them
here, and get back the cells that hold RATES_* formulas in the chosen scope, as A1
addresses grouped for `Range.Dirty`. Keeping this apart from Excel means every rule below
is tested on Linux.

Rules:
- A RATES formula is one that *calls* a RATES function, as `functions/sheet.py`
  (`rates_calls`) recognises it: `RATES_SWAP(`, the Office.js spelling `RATES.SWAP(`, an
  add-in qualified call (`rates_xl.xlam!RATES_SWAP(`, `'C:\\...\\rates_xl.xlam'!RATES_SWAP(`)
  or Excel's stored forms `_xludf.RATES_SWAP(`, `_xldudf_RATES_SWAP(`; in any letter case.
  Text inside string literals or quoted sheet names does not count, nor do names that
  merely contain it (`MYRATES_SWAP(`).
- A selection refresh covers the RATES cells inside the selection, plus the anchor of any
  spilled RATES curve whose spill range the selection touches (selecting part of a curve
  refreshes the curve).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from rates_xl.functions.sheet import MAX_COL, MAX_ROW, parse_cell, rates_calls
from rates_xl.functions.sheet import cell_address as cell_address
from rates_xl.functions.sheet import column_letters as column_letters
from rates_xl.functions.sheet import column_number as column_number

#: Functions whose answer spills (curves, lists, the status table). Selecting any cell of
#: their spill range refreshes them.
SPILLING_FUNCTIONS = frozenset(
    {"SWAPCURVE", "FORWARDCURVE", "DISCOUNTCURVE", "SWAPHISTORY", "TENORS", "STATUS", "SOURCE"}
)

#: Excel refuses range addresses longer than 255 characters in `Range("...")`.
MAX_ADDRESS_CHARS = 255


def rates_functions(formula: object) -> list[str]:
    """The RATES functions a formula calls, upper-case, without the prefix, in order."""
    return rates_calls(formula)


def is_rates_formula(formula: object) -> bool:
    return bool(rates_functions(formula))


def spills(formula: object) -> bool:
    """True when the formula calls a RATES function whose answer spills."""
    return any(name in SPILLING_FUNCTIONS for name in rates_functions(formula))


# -- A1 addresses ------------------------------------------------------------------------------
@dataclass(frozen=True, order=True)
class Rect:
    """A block of cells, 1-based and inclusive."""

    top: int
    left: int
    bottom: int
    right: int

    def __contains__(self, cell: tuple[int, int]) -> bool:
        row, col = cell
        return self.top <= row <= self.bottom and self.left <= col <= self.right

    def intersects(self, other: Rect) -> bool:
        return not (other.left > self.right or other.right < self.left
                    or other.top > self.bottom or other.bottom < self.top)


def parse_address(address: str) -> list[Rect]:
    """`"$A$1:$B$3,D4"` (what `Range.address` gives, also with a `Sheet!` prefix) -> rects.

    Whole columns (`A:B`) and whole rows (`2:3`) are accepted too.
    """
    rects: list[Rect] = []
    for area in address.split(","):
        area = area.strip()
        if "!" in area:
            area = area.rsplit("!", 1)[1]
        if not area:
            raise ValueError(f"empty area in address {address!r}")
        first, colon, second = area.partition(":")
        if colon and not second:
            raise ValueError(f"incomplete range in address {address!r}")
        second = second or first
        whole = _whole_lines(first, second)
        if whole is not None:
            rects.append(whole)
            continue
        (r1, c1), (r2, c2) = parse_cell(first), parse_cell(second)
        rects.append(Rect(min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)))
    return rects


def _whole_lines(first: str, second: str) -> Rect | None:
    a, b = first.replace("$", ""), second.replace("$", "")
    if a.isalpha() and b.isalpha():
        c1, c2 = sorted((column_number(a), column_number(b)))
        return Rect(1, c1, MAX_ROW, c2)
    if a.isdigit() and b.isdigit():
        r1, r2 = sorted((int(a), int(b)))
        return Rect(r1, 1, r2, MAX_COL)
    return None


# -- formulas of a block -----------------------------------------------------------------------
def block_values(block: object, origin: Rect) -> Iterator[tuple[tuple[int, int], object]]:
    """Walk what `Range.formula` or `Range.value` returned for the block `origin`, every cell.

    COM gives a plain value for one cell and a tuple of row tuples for a block (xlwings a
    list of lists, or a flat list for a single row or column); accept all of them.
    """
    if isinstance(block, (list, tuple)):
        items = list(block)
        if items and all(isinstance(r, (list, tuple)) for r in items):
            rows = [list(r) for r in items]
        elif origin.top == origin.bottom:  # a flat single row
            rows = [items]
        else:  # a flat single column
            rows = [[v] for v in items]
    else:
        rows = [[block]]
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            yield (origin.top + i, origin.left + j), value


def formula_cells(formulas: object, origin: Rect) -> Iterator[tuple[tuple[int, int], str]]:
    """The non-empty formulas (and constants) of what `Range.formula` returned for `origin`."""
    for cell, formula in block_values(formulas, origin):
        if isinstance(formula, str) and formula:
            yield cell, formula


def rates_cells(formulas: object, origin: Rect) -> dict[tuple[int, int], str]:
    """The cells of a block holding RATES formulas: {(row, col): formula}."""
    return {cell: f for cell, f in formula_cells(formulas, origin) if is_rates_formula(f)}


def cells_in_selection(
    cells: dict[tuple[int, int], str],
    selection: Iterable[Rect],
    spill_extent: Callable[[tuple[int, int]], Rect | None] = lambda cell: None,
) -> list[tuple[int, int]]:
    """The RATES cells a selection refresh covers (see the module rules), sorted.

    `spill_extent(cell)` gives the current spill range of a spilling anchor (or None); it
    is asked only for spilling RATES anchors outside the selection.
    """
    areas = list(selection)
    chosen = {cell for cell in cells if any(cell in area for area in areas)}
    for cell, formula in cells.items():
        if cell in chosen or not spills(formula):
            continue
        extent = spill_extent(cell)
        if extent is not None and any(extent.intersects(area) for area in areas):
            chosen.add(cell)
    return sorted(chosen)


def address_chunks(cells: Iterable[tuple[int, int]], limit: int = MAX_ADDRESS_CHARS) -> list[str]:
    """Comma-joined A1 addresses, each string within Excel's `Range()` limit.

    Fewer COM calls than one per cell: `sheet.range(chunk).api.Dirty()` per chunk.
    """
    chunks: list[str] = []
    current = ""
    for row, col in sorted(set(cells)):
        address = cell_address(row, col)
        candidate = f"{current},{address}" if current else address
        if len(candidate) > limit and current:
            chunks.append(current)
            current = address
        else:
            current = candidate
    if current:
        chunks.append(current)
    return chunks
