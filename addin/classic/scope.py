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

from rates_xl.functions.sheet import Area, cell_address, parse_area, rates_calls

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
def parse_address(address: str) -> list[Area]:
    """`"$A$1:$B$3,D4"` (what `Range.address` gives, also with a `Sheet!` prefix) -> areas.

    Whole columns (`A:B`) and whole rows (`2:3`) are accepted too."""
    areas: list[Area] = []
    for area in address.split(","):
        area = area.strip()
        if "!" in area:
            area = area.rsplit("!", 1)[1]
        if not area:
            raise ValueError(f"empty area in address {address!r}")
        areas.append(parse_area(area))
    return areas


# -- formulas of a block -----------------------------------------------------------------------
def block_values(block: object, origin: Area) -> Iterator[tuple[tuple[int, int], object]]:
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


def formula_cells(formulas: object, origin: Area) -> Iterator[tuple[tuple[int, int], str]]:
    """The non-empty formulas (and constants) of what `Range.formula` returned for `origin`."""
    for cell, formula in block_values(formulas, origin):
        if isinstance(formula, str) and formula:
            yield cell, formula


def rates_cells(formulas: object, origin: Area) -> dict[tuple[int, int], str]:
    """The cells of a block holding RATES formulas: {(row, col): formula}."""
    return {cell: f for cell, f in formula_cells(formulas, origin) if is_rates_formula(f)}


def cells_in_selection(
    cells: dict[tuple[int, int], str],
    selection: Iterable[Area],
    spill_extent: Callable[[tuple[int, int]], Area | None] = lambda cell: None,
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
