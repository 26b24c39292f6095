"""A legacy array's range filled past its result, across planning rounds (model.py
`_fill_legacy`): the rectangles the results leave to fill, and whether those a workbook holds
from the last round are still the ones to fill (`Fills`), so that a later round sets only
what changed instead of emptying and setting them all again.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable

from rates_xl.calc.engines.formualizer.cells import fit_legacy
from rates_xl.calc.engines.formualizer.values import EngineScalar, scalar_to_engine
from rates_xl.functions.sheet import Area
from rates_xl.functions.values import CellValue

#: A cell, or a rectangle's first cell: (sheet, row, column).
Spot = tuple[str, int, int]
#: A rectangle's rows of engine values.
Rows = list[list[EngineScalar | None]]


class Wanted:
    """What `wanted` found: the rectangles to fill (their first cell -> rows of engine values),
    each one's array (its anchor), the anchors that read #SPILL! where a fill was in place (a
    result may have grown into one), and each array's extent and values as read."""

    def __init__(self) -> None:
        self.fills: dict[Spot, Rows] = {}
        self.owners: dict[Spot, Spot] = {}
        self.blocked: list[Spot] = []
        self.read: dict[tuple[str, str], tuple[Area | None, list[list[CellValue]]]] = {}


def wanted(legacy_spills: dict[tuple[str, str], Area], held: Container[Spot], filled: bool,
           spill_extent: Callable[[str, str], Area | None],
           block: Callable[[str, int, int, int, int], list[list[CellValue]]]) -> Wanted:
    """The fills the legacy arrays' results (`legacy_spills`: (sheet, anchor) -> stored range)
    leave, as the book stands: right of the result, then below it, `fit_legacy`'s values; none
    for an array whose anchor is `held`. `filled`: a fill of the last round is in place."""
    found = Wanted()
    for (sheet, anchor), (r1, c1, r2, c2) in legacy_spills.items():
        if (sheet, r1, c1) in held:
            continue
        extent = spill_extent(sheet, anchor)
        h2, w2 = r1, c1
        if extent:
            h2, w2 = extent.bottom, extent.right
        result = block(sheet, r1, c1, h2, w2)
        if filled and result[0][0] == "#SPILL!":
            found.blocked.append((sheet, r1, c1))
        found.read[(sheet, anchor)] = (extent, result)
        if (h2, w2) == (r2, c2):
            continue
        fitted = fit_legacy(result, r2 - r1 + 1, c2 - c1 + 1)
        right = [line[w2 - c1 + 1:] for line in fitted[:h2 - r1 + 1]]
        for row, col, rest in ((r1, w2 + 1, right), (h2 + 1, c1, fitted[h2 - r1 + 1:])):
            if rest and rest[0]:
                found.fills[(sheet, row, col)] = [
                    [scalar_to_engine(value) if value is not None else None for value in line] for line in rest]
                found.owners[(sheet, row, col)] = (sheet, r1, c1)
    return found


class Fills:
    """The fills a loaded workbook holds: each rectangle's rows and array, and those a cell of
    which was set since (held, or its formula put back)."""

    def __init__(self) -> None:
        self.rows: dict[Spot, Rows] = {}
        self.owners: dict[Spot, Spot] = {}
        self.touched: set[Spot] = set()

    def in_step(self, fills: dict[Spot, Rows], held: Container[Spot]) -> bool:
        """Whether `fills` are these rectangles, less those of arrays `held` since, each of the
        same size: every result kept its extent."""
        kept = {key: shape for key, shape in _shapes(self.rows).items() if self.owners[key] not in held}
        return kept == _shapes(fills)

    def changed(self, fills: dict[Spot, Rows]) -> list[tuple[Spot, Rows]]:
        """The rectangles of `fills` to set: new, of other values, or touched since."""
        rows, touched = self.rows, self.touched
        return [(key, new) for key, new in fills.items() if key in touched or not _same_rows(rows.get(key), new)]

    def touch(self, cells: Iterable[Spot]) -> None:
        """These cells were set: a rectangle holding one is set again by the next round."""
        if not self.rows:
            return
        cells = set(cells)
        self.touched |= {
            (sheet, row, col) for (sheet, row, col), rows in self.rows.items()
            if any((sheet, r, c) in cells for r in range(row, row + len(rows)) for c in range(col, col + len(rows[0])))}


def emptied(rows: Rows) -> Rows:
    """A rectangle of `rows`' size, empty."""
    return [[None] * len(rows[0]) for _ in rows]


def _shapes(fills: dict[Spot, Rows]) -> dict[Spot, tuple[int, int]]:
    return {key: (len(rows), len(rows[0])) for key, rows in fills.items()}


def _same_rows(old: Rows | None, new: Rows) -> bool:
    """Whether a fill's rows hold the same values, type for type (1.0 == True in Python; -0.0
    == 0.0; an engine's error value is a dict, compared by its kind)."""
    if old is None or old != new:
        return False
    return all(type(a) is type(b) and (a != 0 or type(a) is not float or str(a) == str(b))
               for line_a, line_b in zip(old, new, strict=True) for a, b in zip(line_a, line_b, strict=True))
