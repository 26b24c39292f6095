"""The Rates tab's Refresh Selection / Sheet / Workbook, and the two runs without a button:
the add-in's start (cells a reopened book left waiting) and manual mode's fill.

Refresh (see `rates_xl.addin.classic.refresh` for the freshness floor) goes through
Excel's own calculation, as plan, fetch, compute (`rates_xl.functions.plan.plan_and_evaluate`,
the loop `rates-xl calc` uses too):
1. find the RATES_* cells in scope from the sheet's formulas (one `used_range.formula`
   call per sheet; the rules are pure Python in `rates_xl.addin.classic.scope`) and keep
   what they show now (one `used_range.value` call per sheet), for a cancel;
2. register the scope with `request_refresh`: from now on those cells evaluate under a
   floor, so an answer cached before it counts as expired for them; every other cell keeps
   its cache;
3. plan: mark exactly those cells dirty (`Range.api.Dirty`, in chunks of addresses) and let
   Excel recalculate (`App.calculate`: dirty cells and their dependents only) while the
   client plans process-wide: a cache miss records its request and the cell answers
   `PENDING` at once;
4. fetch every recorded request concurrently under the rate limiter, with done / total,
   requests per second and time left in Excel's status bar; Esc cancels;
5. compute: mark the cells that answered `PENDING` dirty and calculate again, from the
   cache; repeat 3-5 while RATES_* arguments depend on other RATES_* results.
Screen updating is off meanwhile; it, the status bar and Excel's cancel key are put back in
a `finally`. A cancel withdraws the floor and computes the pending cells once more without
sending anything: each shows its fresh answer if it came, else what it showed before.
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from rates_xl.addin.classic import scope, valuation
from rates_xl.addin.classic.excel_surface import App, Sheet
from rates_xl.addin.classic.ribbon_context import Context, escape_pressed
from rates_xl.functions.sheet import Area, cell_address

log = logging.getLogger("rates_xl.addin")


# -- refresh ---------------------------------------------------------------------------------
def sheet_rates_cells(sheet: Sheet) -> dict[tuple[int, int], str]:
    """The RATES_* cells of a sheet: {(row, col): formula}, from one bulk formula read."""
    used = sheet.used_range
    origin = scope.parse_address(used.address)[0]
    return scope.rates_cells(used.formula, origin)


def spill_extent(sheet: Sheet, cell: tuple[int, int]) -> Area | None:
    """The range a dynamic-array anchor currently spills into (Windows: Range.SpillingToRange)."""
    try:
        api = sheet.range(cell).api
        if not api.HasSpill:
            return None
        return scope.parse_address(api.SpillingToRange.Address)[0]
    except Exception:  # older Excel without dynamic arrays, or no spill: treat as one cell
        return None


def mark_dirty(sheet: Sheet, cells: list[tuple[int, int]]) -> None:
    for chunk in scope.address_chunks(cells):
        sheet.range(chunk).api.Dirty()


XL_CANCEL_DISABLED = 0  # Application.EnableCancelKey = xlDisabled


@contextlib.contextmanager
def quiet_excel(app: App) -> Iterator[None]:
    """Screen updating off and Esc kept from VBA while a refresh runs; the status bar, screen
    updating and cancel key as they were afterwards, whatever happens."""
    saved: list[tuple[Callable[[], None], str]] = []

    def swap(name: str, value: Any, target: Any = app) -> None:
        try:
            before = getattr(target, name)
            setattr(target, name, value)
        except Exception:  # an older Excel or a host without it: carry on without
            return
        saved.append((lambda: setattr(target, name, before), name))

    swap("screen_updating", False)
    try:
        status_before = app.status_bar
    except Exception:
        status_before = False
    saved.append((lambda: setattr(app, "status_bar", status_before), "status_bar"))
    swap("EnableCancelKey", XL_CANCEL_DISABLED, getattr(app, "api", None))
    try:
        yield
    finally:
        for restore, name in reversed(saved):
            try:
                restore()
            except Exception:
                log.warning("could not restore Excel's %s", name)


def progress_text(progress: Any) -> str:
    """The status bar while a batch is fetched: done / total, pace, time left, how to cancel."""
    text = f"Rates: fetching {progress.done} of {progress.total} requests"
    if progress.done:
        text += f", {progress.per_second:.1f}/s"
    left = progress.seconds_left
    if left is not None and progress.done < progress.total:
        text += f", about {math.ceil(left)} s left"
    return text + " (Esc cancels)"


@dataclass
class RefreshOutcome:
    """What the last refresh did (`last_refresh`): for the status bar, Status and tests."""

    cells: int = 0
    requests: int = 0
    seconds: float = 0.0
    rounds: int = 0
    cancelled: bool = False
    not_fetched: int = 0


#: The outcome of the latest refresh in this process.
last_refresh: RefreshOutcome | None = None


#: The market-data pack of the latest refresh: every answer its cells used (client/pack.py).
last_pack: Any = None


def _sheet_named(app: App, known: dict[tuple[str, str], Sheet], book: str, sheet: str) -> Sheet | None:
    """The sheet object of a cell the UDFs named (usually one of the refreshed sheets)."""
    folded = (book.strip().casefold(), sheet.strip().casefold())
    if folded in known:
        return known[folded]
    for candidate_book in app.books:
        if candidate_book.name.strip().casefold() == folded[0]:
            for candidate in candidate_book.sheets:
                if candidate.name.strip().casefold() == folded[1]:
                    known[folded] = candidate
                    return candidate
    return None


def _dirty_pending(app: App, run: Any, sheets: dict[tuple[str, str], Sheet]) -> None:
    """Mark dirty the cells that answered PENDING in the last pass, wherever they are."""
    again: dict[Sheet, list[tuple[int, int]]] = {}
    for book, sheet_name, address in run.take_pending():
        sheet = _sheet_named(app, sheets, book, sheet_name)
        if sheet is not None:
            rect = scope.parse_address(address)[0]
            again.setdefault(sheet, []).append((rect.top, rect.left))
    for sheet, cells in again.items():
        mark_dirty(sheet, cells)


def snapshot(book_name: str, sheet: Sheet, cells: dict[tuple[int, int], str]) -> dict[Any, Any]:
    """What the cells show now ({cell id: value, a block for a spill}), from one bulk read."""
    from rates_xl.addin.classic.refresh import cell_id

    used = sheet.used_range
    origin = scope.parse_address(used.address)[0]
    grid = dict(scope.block_values(used.value, origin))
    shown: dict[Any, Any] = {}
    for cell, formula in cells.items():
        key = cell_id(book_name, sheet.name, cell_address(*cell))
        extent = spill_extent(sheet, cell) if scope.spills(formula) else None
        if extent is not None:
            shown[key] = [[grid.get((r, c)) for c in range(extent.left, extent.right + 1)]
                          for r in range(extent.top, extent.bottom + 1)]
        else:
            shown[key] = grid.get(cell)
    return shown


def _refresh(ctx: Context, dirty: dict[Sheet, dict[tuple[int, int], str]], refresh_scope: Any) -> RefreshOutcome:
    """Plan, fetch and compute the cells in `dirty` ({sheet: {cell: formula}}) through Excel."""
    from rates_xl.addin.classic import refresh, scenario
    from rates_xl.functions import get_client
    from rates_xl.functions.context import CallContext
    from rates_xl.functions.plan import plan_and_evaluate

    scenario.refuse_while_on(ctx.book.name, "refreshing (a Refresh records its answers as the book's market data)")
    dirty = {sheet: cells for sheet, cells in dirty.items() if cells}
    outcome = RefreshOutcome(cells=sum(len(cells) for cells in dirty.values()))
    if not outcome.cells:
        return outcome
    app, started = ctx.app, time.perf_counter()
    shown: dict[Any, Any] = {}
    for sheet, cells in dirty.items():
        shown.update(snapshot(ctx.book.name, sheet, cells))
    sheets = {(ctx.book.name.strip().casefold(), sheet.name.strip().casefold()): sheet for sheet in dirty}
    # One valuation moment per book: the defined name, read once per refresh.
    valuation.pin(ctx.book.name, valuation.read_name(ctx.book))
    run = refresh.begin_pass(shown)
    run.recorder = get_client().pack_recorder()
    # Every cell the refresh computes records its answers into the book's pack.
    base = CallContext(recorder=run.recorder)
    try:
        # No scope (a manual-mode fill): no freshness floor, the cache serves as it is.
        floor = refresh.request_refresh(refresh_scope) if refresh_scope is not None else None
        rounds = [0]

        def calculation_pass(context: CallContext) -> None:
            """One pass of Excel's calculation: the scope at first, then what answered PENDING.
            Excel calls the UDFs on threads of its own: they read the pass's context (its
            planning round) from the refresh in progress (refresh.context_for)."""
            run.context = context
            rounds[0] += 1
            if rounds[0] == 1:
                for sheet, cells in dirty.items():
                    mark_dirty(sheet, sorted(cells))
            else:
                _dirty_pending(app, run, sheets)
            ctx.notify(f"Rates: calculating (pass {rounds[0]})")
            app.calculate()

        def on_cancel() -> None:
            if refresh_scope is not None:
                refresh.withdraw_refresh(refresh_scope, floor)
            run.restoring = True

        if ctx.cancel_requested is None:
            escape_pressed(app)  # forget an Esc pressed before this refresh began
        with quiet_excel(app):
            try:
                _, report = plan_and_evaluate(
                    calculation_pass, get_client(), context=base,
                    on_progress=lambda progress: ctx.notify(progress_text(progress)),
                    should_cancel=ctx.should_cancel, on_cancel=on_cancel)
            except BaseException:
                # Whatever failed, try once to leave no cell pending (as after a cancel); the
                # failure itself is what the user is told about.
                run.context = base
                try:
                    on_cancel()
                    _dirty_pending(app, run, sheets)
                    app.calculate()
                except Exception:
                    log.warning("could not recalculate the pending cells after a failed refresh")
                raise
    finally:
        refresh.end_pass(run)
    _keep_pack(ctx, run.recorder.pack(), merge=refresh_scope.sheet is not None, signer=run.recorder.signer)
    global last_refresh
    outcome.requests, outcome.rounds = report.requests_sent, report.rounds
    outcome.cancelled, outcome.not_fetched = report.cancelled, report.not_fetched
    outcome.seconds = time.perf_counter() - started
    last_refresh = outcome
    return outcome


def _keep_pack(ctx: Context, pack: Any, *, merge: bool, signer: Any = None) -> None:
    """The refresh's pack into the open book (Excel saves it with the book), merged with the
    one it carries when only part of the book was refreshed. A book the pack cannot be put
    into (no CustomXMLParts) still has `last_pack`; its cells are unaffected either way."""
    global last_pack
    last_pack = pack
    if not pack.answers:
        return
    try:
        last_pack = valuation.store_pack(ctx.book, pack, merge=merge, signer=signer)
    except Exception as exc:  # never fail a refresh over its record; say so in the log
        log.warning("could not put the market-data pack into %s: %s", ctx.book.name, type(exc).__name__)


def _summary(outcome: RefreshOutcome, where: str) -> str:
    if outcome.cancelled:
        return (f"Rates: refresh cancelled {where}; {outcome.not_fetched} request"
                f"{'' if outcome.not_fetched == 1 else 's'} not fetched, those cells show what they showed before")
    return (f"Rates: refreshed {_cells(outcome.cells)} {where} ({outcome.requests} request"
            f"{'' if outcome.requests == 1 else 's'}, {outcome.seconds:.1f} s)")


def _rect_address(rect: Area) -> str:
    first = cell_address(rect.top, rect.left)
    last = cell_address(rect.bottom, rect.right)
    return first if first == last else f"{first}:{last}"


def refresh_selection(ctx: Context) -> str:
    from rates_xl.addin.classic.refresh import RefreshScope

    selection = ctx.book.selection
    if selection is None:
        ctx.alert("Select the cells to refresh first.")
        return "no selection"
    sheet = selection.sheet
    areas = scope.parse_address(selection.address)
    cells = sheet_rates_cells(sheet)
    chosen = scope.cells_in_selection(cells, areas, lambda cell: spill_extent(sheet, cell))
    if not chosen:
        ctx.notify("Rates: no RATES_ formulas in the selection")
        return "nothing to refresh"
    # The scope: the selected areas plus the anchors of curves spilling into them (a
    # spilled formula's caller is its anchor). A few areas, not one entry per cell, keeps
    # every cell's floor lookup cheap.
    outside = [cell for cell in chosen if not any(cell in area for area in areas)]
    addresses = [_rect_address(a) for a in areas] + [cell_address(*c) for c in outside]
    refresh_scope = RefreshScope(ctx.book.name, sheet.name, frozenset(addresses))
    outcome = _refresh(ctx, {sheet: {cell: cells[cell] for cell in chosen}}, refresh_scope)
    ctx.notify(_summary(outcome, "in the selection"))
    return _result(outcome)


def refresh_sheet(ctx: Context) -> str:
    from rates_xl.addin.classic.refresh import RefreshScope

    sheet = ctx.book.sheets.active
    outcome = _refresh(ctx, {sheet: sheet_rates_cells(sheet)}, RefreshScope(ctx.book.name, sheet.name))
    ctx.notify(_summary(outcome, f"on {sheet.name}") if outcome.cells
               else f"Rates: no RATES_ formulas on {sheet.name}")
    return _result(outcome)


def refresh_workbook(ctx: Context) -> str:
    from rates_xl.addin.classic.refresh import RefreshScope

    dirty = {sheet: sheet_rates_cells(sheet) for sheet in ctx.book.sheets}
    outcome = _refresh(ctx, dirty, RefreshScope(ctx.book.name))
    ctx.notify(_summary(outcome, f"in {ctx.book.name}") if outcome.cells
               else f"Rates: no RATES_ formulas in {ctx.book.name}")
    return _result(outcome)


def _result(outcome: RefreshOutcome) -> str:
    return f"cancelled {outcome.cells}" if outcome.cancelled else f"refreshed {outcome.cells}"


def _cells(count: int) -> str:
    return f"{count} cell" + ("" if count == 1 else "s")


def _shows_no_answer(value: Any) -> bool:
    """A cell value that is no answer: an error value (xlwings reads one as None; the
    stand-in as its error object) or a `#`-text."""
    if value is None:
        return True
    if isinstance(value, str):
        return value.startswith("#")
    return type(value).__name__ in ("XlError", "Error")


def start(ctx: Context) -> str:
    """The add-in's start, once Excel is ready (RatesRibbon.RatesOnLoad schedules RatesStart
    with Application.OnTime, which runs this in the UDF server). From now on Excel can create
    the RTD server, which lives in this process (rtd_com.enable ran when the UDF module was
    imported). A workbook opened before (a book saved while cells waited, double-clicked to
    start Excel: Excel may reconnect its RTD topics before an add-in has loaded, Excel-DNA
    issue 350) kept the error its waiting cells were saved with, and nothing would recalculate
    them: its RATES_ cells that show no answer are marked dirty (Range.Dirty) and, in automatic
    mode, calculated (Application.Calculate; in manual mode the next F9 does it)."""
    from rates_xl.addin.classic import udfs  # noqa: F401 - the UDF module (and RTD server) loaded

    app, marked = ctx.app, 0
    for book in list(app.books):
        for sheet in book.sheets:
            cells = sheet_rates_cells(sheet)
            if not cells:
                continue
            used = sheet.used_range
            shown = dict(scope.block_values(used.value, scope.parse_address(used.address)[0]))
            waiting = sorted(c for c in cells if _shows_no_answer(shown.get(c)))
            if waiting:
                mark_dirty(sheet, waiting)
                marked += len(waiting)
    if marked and str(getattr(app, "calculation", "automatic")).lower() != "manual":
        app.calculate()
    from rates_xl.addin.classic import scenario

    saved_under = scenario.reopened(ctx)  # books saved while a scenario was on: back to market
    return f"started; {_cells(marked)} without an answer recalculated" + (
        f"; {len(saved_under)} saved under a scenario recalculated at market" if saved_under else "")


def fill(ctx: Context) -> str:
    """Manual calculation in one F9 (addin/classic/manual.py): the cells the last calculation
    left waiting, through the Refresh's plan, fetch, compute loop with no freshness floor,
    book by book, until nothing is pending (chains included). Run by RatesRibbon.RatesFill,
    which Application.OnTime starts once Excel is Ready after that calculation."""
    from rates_xl.addin.classic import manual

    noted = manual.fill.take()
    known: dict[tuple[str, str], Sheet] = {}
    by_sheet: dict[Sheet, set[tuple[int, int]]] = {}
    for book, sheet_name, address in noted:
        sheet = _sheet_named(ctx.app, known, book, sheet_name)
        if sheet is not None:
            rect = scope.parse_address(address)[0]
            by_sheet.setdefault(sheet, set()).add((rect.top, rect.left))
    filled = requests = 0
    started = time.perf_counter()
    for book in list(ctx.app.books):
        dirty = {}
        for sheet, cells in by_sheet.items():
            if sheet.book.name == book.name:
                formulas = sheet_rates_cells(sheet)
                dirty[sheet] = {c: formulas[c] for c in cells if c in formulas}
        if not any(dirty.values()):
            continue
        outcome = _refresh(Context(book, ctx.prompt_secret, ctx.choose, ctx.cancel_requested), dirty, None)
        filled, requests = filled + outcome.cells, requests + outcome.requests
    ctx.notify(f"Rates: filled {_cells(filled)} ({requests} request{'' if requests == 1 else 's'}, "
               f"{time.perf_counter() - started:.1f} s)")
    return f"filled {filled}"
