"""Refresh scopes: which cells must fetch fresh answers after a ribbon refresh button.

The ribbon's Refresh Selection / Sheet / Workbook buttons call `request_refresh(scope)`
and then make Excel recalculate that scope. Each RATES_* cell asks `floor_for(book, sheet,
address)` for its freshness floor: the moment of the newest refresh covering it. The cell
then evaluates inside `client.fresh_since(floor)`, so a cached answer fetched before the
floor counts as expired *for that cell*:

- the first cell needing a request fetches it once (identical requests in flight still
  coalesce); the new answer is newer than the floor, so every other cell under the same
  floor gets it from the cache: a floor forces one refetch per request, not per cell;
- cells outside the scope carry no floor and keep using the cache as usual;
- a floor stays registered (bounded, newest first) but costs nothing once answers are newer.

Each UDF call's context (functions/context.py) is built here, by `context_for(where)` (the
caller's book, sheet and address, read once by `caller_id`): the caller's floor, its book's valuation moment (`valuation.pinned`), and, while a refresh runs,
the refresh's own (its planning round, the pack recording it). Every path a cell takes (the
RTD wait, the synchronous one, a book under a scenario) computes under that one context.

While a refresh runs, a `RefreshPass` is open process-wide (`begin_pass` / `end_pass`): the
UDFs evaluate through `evaluate_cell`, which notes every cell that answered `PENDING` (the
ribbon marks exactly those dirty for the next round, wherever they are), and, after a cancel,
answers a cell whose request was never fetched with the value it showed before the refresh
(the pass's snapshot) instead of `PENDING`: every cell ends fresh or as it was.

Pure Python: no xlwings. Book and sheet names compare case-insensitively, as in Excel;
cells are A1 addresses or ranges ("$B$2", "A1:C10"), with or without `$`.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from rates_xl.addin.classic import valuation
from rates_xl.addin.classic.excel_surface import Range
from rates_xl.functions.context import NOW, CallContext, Round
from rates_xl.functions.sheet import parse_area, parse_cell

MAX_SCOPES = 256  # a user clicks refresh buttons; a few hundred scopes is far more than enough


def _fold(name: str) -> str:
    return name.strip().casefold()


@dataclass(frozen=True)
class RefreshScope:
    """A workbook, a sheet of it, or some cells of that sheet.

    `cells` holds A1 addresses or ranges (a selection may have several areas:
    "A1:B4,D7" is given as ("A1:B4", "D7")); it needs `sheet`.
    """

    book: str
    sheet: str | None = None
    cells: frozenset[str] | None = None
    # What it covers, folded once (__post_init__): every cell of a recalculation under the
    # scope compares with it.
    _target: tuple[str, str | None, frozenset[str] | None] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.book or not self.book.strip():
            raise ValueError("a refresh scope needs a workbook name")
        if self.cells is not None:
            if self.sheet is None:
                raise ValueError("a refresh scope with cells needs the sheet they are on")
            cells = self.cells
            if isinstance(cells, str):
                cells = cells.split(",")
            normalised = frozenset(a.strip().replace("$", "").upper() for a in cells if a.strip())
            if not normalised:
                raise ValueError("a refresh scope with cells needs at least one cell")
            for area in normalised:
                parse_area(area)  # fails early on a malformed address
            object.__setattr__(self, "cells", normalised)
        object.__setattr__(self, "_target",
                           (_fold(self.book), None if self.sheet is None else _fold(self.sheet), self.cells))

    @property
    def target(self) -> tuple[str, str | None, frozenset[str] | None]:
        """What the scope covers, folded: the registry keeps one floor per target."""
        return self._target

    def covers(self, book: str, sheet: str, address: str) -> bool:
        return self.covers_folded(_fold(book), _fold(sheet), address)

    def covers_folded(self, book: str, sheet: str, address: str) -> bool:
        """`covers` for a book and sheet name folded already (`_fold`)."""
        folded_book, folded_sheet, cells = self.target
        if book != folded_book:
            return False
        if folded_sheet is None:
            return True
        if sheet != folded_sheet:
            return False
        if cells is None:
            return True
        row, col = parse_cell(address.split(":")[0])  # a spill's anchor is its top-left cell
        for area in self.cells:
            if (row, col) in parse_area(area):
                return True
        return False


class RefreshRegistry:
    """Bounded registry of refresh floors: one per target, the newest request wins."""

    def __init__(self, max_scopes: int = MAX_SCOPES) -> None:
        self.max_scopes = max_scopes
        self._floors: OrderedDict[tuple, tuple[RefreshScope, float]] = OrderedDict()
        # The floors as a tuple, made again on each change under the lock: every cell of a
        # recalculation reads it without taking the lock or copying the registry.
        self._held: tuple[tuple[RefreshScope, float], ...] = ()
        self._lock = threading.Lock()

    def request(self, scope: RefreshScope, moment: float | None = None) -> float:
        floor = time.time() if moment is None else float(moment)
        with self._lock:
            self._floors.pop(scope.target, None)
            self._floors[scope.target] = (scope, floor)
            while len(self._floors) > self.max_scopes:
                self._floors.popitem(last=False)  # the oldest request goes first
            self._held = tuple(self._floors.values())
        return floor

    def withdraw(self, scope: RefreshScope, floor: float) -> bool:
        """Forget the floor `request` returned, unless a newer request replaced it."""
        with self._lock:
            held = self._floors.get(scope.target)
            if held is None or held[1] != floor:
                return False
            del self._floors[scope.target]
            self._held = tuple(self._floors.values())
            return True

    def floor_for(self, book: str, sheet: str, address: str) -> float | None:
        book, sheet = _fold(book), _fold(sheet)
        newest = None
        for scope, floor in self._held:
            if scope.covers_folded(book, sheet, address) and (newest is None or floor > newest):
                newest = floor
        return newest

    def __bool__(self) -> bool:
        return bool(self._floors)

    def __len__(self) -> int:
        return len(self._floors)

    def clear(self) -> None:
        with self._lock:
            self._floors.clear()
            self._held = ()


_registry = RefreshRegistry()


def request_refresh(scope: RefreshScope, moment: float | None = None) -> float:
    """Register a refresh of `scope` as of `moment` (default: now); returns the floor."""
    return _registry.request(scope, moment)


def floor_for(book: str, sheet: str, address: str) -> float | None:
    """The freshness floor of one cell: the newest refresh covering it, or None."""
    if not _registry:  # the common case, and the cheapest: no refresh was ever asked for
        return None
    return _registry.floor_for(book, sheet, address)


def withdraw_refresh(scope: RefreshScope, floor: float) -> bool:
    """Drop a refresh (a cancelled one): its cells keep the cache they had before it."""
    return _registry.withdraw(scope, floor)


def has_scopes() -> bool:
    return bool(_registry)


def clear_scopes() -> None:
    _registry.clear()


# -- the refresh in progress ---------------------------------------------------------------------
CellId = tuple[str, str, str]  # (book, sheet, "B7"): folded names, address without `$`


def cell_id(book: str, sheet: str, address: str) -> CellId:
    return _fold(book), _fold(sheet), address.split(":")[0].replace("$", "").upper()


class RefreshPass:
    """One ribbon refresh in progress, as the UDFs see it (one at a time per process).

    `snapshot` holds the values the refreshed cells showed before it ({CellId: value, or a
    2-D list for a spill}); `restoring` is set after a cancel.
    """

    def __init__(self, snapshot: dict[CellId, Any] | None = None) -> None:
        self.snapshot = dict(snapshot or {})
        self.restoring = False
        #: Where the answers the refreshed cells use are written down (the book's market-data
        #: pack, client/pack.py); set by the ribbon.
        self.recorder: Any = None
        #: The context of the calculation pass under way (its planning round, the recorder),
        #: set by the ribbon each pass. Excel calls the UDFs on its own threads, so the pass,
        #: not a context variable, carries it.
        self.context: CallContext = NOW
        self._pending: dict[CellId, tuple[str, str, str]] = {}
        self._lock = threading.Lock()

    def note_pending(self, book: str, sheet: str, address: str) -> None:
        with self._lock:
            self._pending[cell_id(book, sheet, address)] = (book, sheet, address)

    def take_pending(self) -> list[tuple[str, str, str]]:
        """The cells that answered PENDING since the last call: (book, sheet, address) as Excel named them."""
        with self._lock:
            cells, self._pending = list(self._pending.values()), {}
        return cells


_pass: RefreshPass | None = None


def begin_pass(snapshot: dict[CellId, Any] | None = None) -> RefreshPass:
    global _pass
    with _registry._lock:
        if _pass is not None:
            raise RuntimeError("a refresh is already running; wait for it to finish (or press Esc)")
        _pass = RefreshPass(snapshot)
        return _pass


def end_pass(run: RefreshPass) -> None:
    global _pass
    with _registry._lock:
        if _pass is run:
            _pass = None
        _derived.clear()


def current_pass() -> RefreshPass | None:
    return _pass


def caller_id(caller: Range | None) -> tuple[str, str, str] | None:
    """(book, sheet, address) of the calling cell (an xlwings Range), or None."""
    if caller is None:
        return None
    try:
        sheet = caller.sheet
        return sheet.book.name, sheet.name, caller.address
    except Exception:  # a caller we cannot read (not a worksheet cell)
        return None


def context_for(where: tuple[str, str, str] | None) -> CallContext:
    """The context of one UDF call from Excel, its caller at `where` (`caller_id`): the
    refresh under way (its round, its recorder), the caller's refresh floor and its book's
    valuation moment."""
    run = _pass
    base = run.context if run is not None else NOW
    if where is None or (not _registry and not valuation.any_pinned()):
        return base  # the common case: nothing to look up for the caller
    floor = _registry.floor_for(*where) if _registry else None
    moment = valuation.pinned(where[0])
    if floor is None and moment is None:
        return base
    # The cells under one floor and one moment share one context (it is immutable): a
    # recalculation of a refreshed sheet builds it once, not once per cell.
    key = (id(base), floor, moment)
    held = _derived.get(key)
    if held is not None and held[0] is base:
        return held[1]
    if len(_derived) >= MAX_SCOPES:
        _derived.clear()
    context = base.replace(fresh_since=floor, valuation_time=moment)
    _derived[key] = (base, context)
    return context


#: context_for's contexts made from a base (NOW or a pass's), by (id(base), floor, moment);
#: emptied as a pass ends, so no pass's recorder outlives it here.
_derived: dict[tuple[int, float | None, Any], tuple[CallContext, CallContext]] = {}


def evaluate_cell(spec: Any, values: tuple[Any, ...], where: tuple[str, str, str] | None,
                  context: CallContext) -> Any:
    """One UDF call from Excel, its caller at `where` (`caller_id`), under its `context`
    (`context_for`), seen by a refresh in progress: a cell that answered PENDING is noted for
    the next pass; after a cancel, a cell whose request was never fetched gets back what it
    showed before."""
    from rates_xl.functions.core import evaluate
    from rates_xl.functions.messages import PENDING

    run = _pass
    if run is None or where is None:
        return evaluate(spec, values, context)
    if run.restoring:
        # After a cancel: what is cached serves (the floor was withdrawn); a request that was
        # never fetched gives back what the cell showed before, without a request.
        key = cell_id(*where)
        if key in run.snapshot:
            result = evaluate(spec, values, context.replace(planning=Round()))
            return run.snapshot[key] if result == PENDING else result
    result = evaluate(spec, values, context)
    if isinstance(result, str) and result == PENDING:
        run.note_pending(*where)
    return result
