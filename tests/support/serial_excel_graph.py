"""The serial stand-in's formula cells and the dependency graph its calculation walks
(tests/support/serial_excel.py): `Formula` (one formula cell, an anchor when it spills, and the
cells it may write), `Graph` (who reads whom over every open workbook, in topological order),
the limits Excel's grid sets, and dates as Excel's serials.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from rates_xl.functions.sheet import Area

if TYPE_CHECKING:
    from tests.support.serial_excel_book import Sheet


MAX_ROW = 1_048_576


VOLATILE = frozenset({"TODAY", "NOW", "RAND", "RANDBETWEEN", "OFFSET", "INDIRECT", "CELL", "INFO"})


#: How far down a RATES_* spill's footprint reaches over empty cells beyond the range stored in
#: the file (the same allowance `rates-xl calc` makes): a formula reading there depends on it.
SPILL_ALLOWANCE = 3000


def fold(name: str) -> str:
    return name.strip().casefold()


# -- cells ------------------------------------------------------------------------------------
@dataclass(eq=False)
class Formula:
    """One formula cell (an anchor when its result spills)."""

    sheet: Sheet
    cell: tuple[int, int]
    text: str
    stored_ref: Area | None = None  # the array range saved in the file, if any
    func: Any = None
    inputs: list[tuple[str, Sheet, Area]] = field(default_factory=list)  # (engine input, sheet, rect)
    volatile: bool = False
    rates: bool = False
    spill: Area | None = None  # where the current result spills (None: one cell)
    array: Area | None = None  # a legacy (CSE) array formula's block (serial_excel_legacy)

    @property
    def footprint(self) -> Area:
        """Cells this formula may write: its anchor, stored array range or current spill."""
        rects = [Area(*self.cell, *self.cell)]
        if self.stored_ref is not None:
            rects.append(self.stored_ref)
            if self.rates:  # a curve may come back longer than when the file was saved
                grown = self.sheet.grow_down(self.stored_ref, SPILL_ALLOWANCE)
                rects.append(grown)
        if self.spill is not None:
            rects.append(self.spill)
        if self.array is not None:
            rects.append(self.array)
        return Area(min(r.top for r in rects), min(r.left for r in rects),
                    max(r.bottom for r in rects), max(r.right for r in rects))


# -- the dependency graph -----------------------------------------------------------------------
class Graph:
    """Who reads whom, over every formula of the open workbooks; a topological order."""

    def __init__(self, formulas: list[Formula]) -> None:
        self.footprints = {f: f.footprint for f in formulas}
        owner: dict[tuple[int, int, int], Formula] = {}
        for f, rect in self.footprints.items():
            sid = id(f.sheet)
            for r in range(rect.top, rect.bottom + 1):
                for c in range(rect.left, rect.right + 1):
                    owner[(sid, r, c)] = f
        self._owner = owner
        self.precedents: dict[Formula, set[Formula]] = {}
        self.dependents: dict[Formula, set[Formula]] = {f: set() for f in formulas}
        for f in formulas:
            found: set[Formula] = set()
            for _, sheet, rect in f.inputs:
                found |= self._owners(sheet, rect)
            found.discard(f)
            self.precedents[f] = found
            for p in found:
                self.dependents[p].add(f)
        self.order = _topological(formulas, self.precedents)

    def _owners(self, sheet: Sheet, rect: Area) -> set[Formula]:
        sid = id(sheet)
        bottom = min(rect.bottom, sheet.max_row + SPILL_ALLOWANCE)
        right = min(rect.right, sheet.max_col)
        out = set()
        for r in range(rect.top, bottom + 1):
            for c in range(rect.left, right + 1):
                f = self._owner.get((sid, r, c))
                if f is not None:
                    out.add(f)
        return out

    def readers(self, sheet: Sheet, cell: tuple[int, int]) -> Iterator[Formula]:
        for f in self.dependents:
            if any(s is sheet and cell in rect for _, s, rect in f.inputs):
                yield f

    def closure(self, seeds: Iterable[Formula], only: Sheet | None) -> set[Formula]:
        todo: set[Formula] = set()
        stack = list(seeds)
        while stack:
            f = stack.pop()
            if f in todo:
                continue
            todo.add(f)
            stack.extend(d for d in self.dependents.get(f, ()) if only is None or d.sheet is only)
        return todo


def _topological(formulas: list[Formula], precedents: dict[Formula, set[Formula]]) -> list[Formula]:
    order: list[Formula] = []
    state: dict[Formula, int] = {}
    for root in formulas:
        if root in state:
            continue
        stack: list[tuple[Formula, Iterator[Formula]]] = [(root, iter(precedents[root]))]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next((p for p in it if state.get(p) is None), None)
            if nxt is not None:
                state[nxt] = 1
                stack.append((nxt, iter(precedents[nxt])))
                continue
            stack.pop()
            state[node] = 2
            order.append(node)
    return order


def to_serial(value: date | datetime) -> float:
    from rates_xl.functions.values import to_serial

    return to_serial(value)
