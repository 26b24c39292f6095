"""The Rates tab's handlers, behind one dispatch table.

Every button calls the VBA callback `RatesRibbon.RatesOnAction`, which runs
`import rates_xl.addin.classic.ribbon as r; r.on_action("<button id>")` through xlwings'
RunPython, which the add-in's xlwings module always runs inside the UDF server (see
`rates_xl.addin.classic.vba`): the same Python process as the RATES_* cells, so Refresh and
Clear Cache act on the cells' own client and cache.

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

Handlers take a `Context` (the calling book plus the two dialogs xlwings lacks) and return
a one-line summary; `on_action` turns every failure into a message box: no traceback
reaches the user, and no message ever contains the key.
"""

from __future__ import annotations

import contextlib
import logging
import math
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rates_xl.addin.classic import scope, valuation
from rates_xl.addin.classic.excel_surface import App, Book, Sheet
from rates_xl.errors import TaskError
from rates_xl.functions.sheet import Area, cell_address

log = logging.getLogger("rates_xl.addin")

TITLE = "Rates"


# -- the context handlers work in --------------------------------------------------------------
class DialogUnavailable(TaskError):
    """A dialog cannot be shown in this Python (no Tk, no COM); the message says what to do."""


@dataclass
class Context:
    """What a handler may touch: the calling workbook (an xlwings Book) and two dialogs."""

    book: Book
    prompt_secret: Callable[[str, str], str | None]
    choose: Callable[[App, str, str, list[str]], int | None]
    #: Asked while a refresh fetches: True stops it. Default: Esc pressed in Excel (Windows).
    cancel_requested: Callable[[], bool] | None = None

    @property
    def app(self) -> App:
        return self.book.app

    def should_cancel(self) -> bool:
        if self.cancel_requested is not None:
            return bool(self.cancel_requested())
        return escape_pressed(self.app)

    def alert(self, text: str, title: str = TITLE) -> None:
        self.app.alert(text, title=title)

    def notify(self, text: str) -> None:
        """A short note in Excel's status bar (no dialog to dismiss)."""
        try:
            self.app.status_bar = text
        except Exception:  # some hosts have no status bar: the note is optional
            log.debug("no status bar for: %s", text)


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


def escape_pressed(app: App) -> bool:
    """Esc pressed (since the last poll, or held) while Excel's window is in front. Windows only.

    Excel is busy in RunPython meanwhile, so it never sees the key itself; `quiet_excel` sets
    `EnableCancelKey` to xlDisabled so Esc cannot interrupt the VBA callback instead.
    """
    if sys.platform != "win32":
        return False
    import ctypes

    user32 = ctypes.windll.user32  # type: ignore[attr-defined]
    if not user32.GetAsyncKeyState(0x1B) & 0x8001:  # VK_ESCAPE: down now, or pressed since
        return False
    try:
        return int(user32.GetForegroundWindow()) == int(app.hwnd)
    except Exception:  # no window handle to compare: trust the key
        return True


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


# -- cache, key, status ------------------------------------------------------------------------
def clear_cache(ctx: Context) -> str:
    from rates_xl.addin.classic import rtd
    from rates_xl.functions import get_client

    client = get_client()
    count = client.stats().get("cached_answers", 0)
    client.clear_cache()
    # A failure a waiting cell was shown is remembered FAILURE_MEMORY s (rtd.py); the user
    # clearing the cache may have fixed its cause: the next calculation asks again.
    rtd.waits.forget_failures()
    ctx.notify(f"Rates: cleared {count} cached answers; cells fetch again when next calculated")
    return f"cleared {count}"


def set_key(ctx: Context) -> str:
    from rates_xl.client import api_key as keys
    from rates_xl.functions import set_client

    secret = ctx.prompt_secret("Paste your Rates API key. It is stored in the system keychain, "
                               "never in a workbook.", f"{TITLE}: Set API Key")
    if secret is None or not secret.strip():
        return "cancelled"
    keys.store_key(secret)
    del secret
    set_client(None)  # the next RATES_ call builds a client that reads the new key
    from rates_xl.addin.classic import live_rtd, rtd
    from rates_xl.functions import get_client

    rtd.waits.forget_failures()  # e.g. "key rejected", remembered for the waiting cells
    live_rtd.renew(get_client)  # Live refetches with the new key, into the cells' cache
    text = ("API key stored in the keychain. RATES_ cells use it from their next "
            "calculation (Refresh Workbook to recalculate now).")
    if keys.key_state().in_environment:
        text += (f"\n\nNote: {keys.ENV_VAR} is set in the environment and takes precedence "
                 "over the keychain; remove it to use the stored key.")
    ctx.alert(text)
    return "stored"


def status_text(base_url: str, reachability: str, key_description: str,
                stats: dict[str, Any]) -> str:
    """The Status box: connection, key state (never the key), counters, the last error."""
    errors = stats.get("errors_by_status") or {}
    error_counts = ", ".join(f"{status} x{n}" for status, n in sorted(errors.items())) or "none"
    last_error = stats.get("last_error") or "none"
    if len(last_error) > 300:
        last_error = last_error[:297] + "..."
    return "\n".join([
        f"Service: {base_url}",
        f"Connection: {reachability}",
        f"API key: {key_description}",
        "",
        f"Requests sent: {stats.get('requests_sent', 0)}",
        f"Answered from cache: {stats.get('cache_hits', 0)}",
        f"Shared with an identical request: {stats.get('coalesced_waits', 0)}",
        f"Retries: {stats.get('retries', 0)}",
        f"Waits for the rate limit: {stats.get('throttled_waits', 0)} "
        f"({stats.get('throttle_wait_seconds', 0):g} s)",
        f"Answers in the cache: {stats.get('cached_answers', 0)}",
        f"Errors: {error_counts}",
        f"Last error: {last_error}",
    ])


def explain(ctx: Context) -> str:
    """Explain Cell: the selected cell's message (functions/errors.py, what RATES_ERROR shows),
    in a message box: a failing RATES_ cell shows #VALUE! or #N/A, its words are here."""
    from rates_xl.addin.classic.source import error_of

    selection = ctx.book.selection
    if selection is None:
        ctx.alert("Select a RATES_ cell first.")
        return "no selection"
    area = scope.parse_address(selection.address)[0]
    first = selection.sheet.range((area.top, area.left))
    where = f"{first.sheet.name}!{str(first.address).replace('$', '')}"
    message = error_of(first)
    if message:
        ctx.alert(f"{where}: {message}", f"{TITLE}: Explain Cell")
        return "explained"
    formula = first.formula
    formula = formula[0] if isinstance(formula, list) else formula
    has_rates = isinstance(formula, str) and scope.is_rates_formula(formula)
    ctx.alert(f"{where} has an answer: no message." if has_rates else
              f"{where} holds no RATES_ formula (or a cell of a table: select its top-left cell).",
              f"{TITLE}: Explain Cell")
    return "no message"


def status(ctx: Context) -> str:
    from rates_xl.addin.doctor import probe
    from rates_xl.client import api_key as keys
    from rates_xl.functions import get_client

    client = get_client()
    reach = probe(client.base_url, timeout=3.0)
    state = keys.key_state()
    description = state.describe()
    if client.has_key != state.is_set:
        description += ("; the running add-in still has the previous state (Set API Key or a "
                        "restart of Excel picks it up)")
    ctx.alert(status_text(client.base_url, reach.summary, description, client.stats()),
              f"{TITLE}: Status")
    return "shown"


# -- templates and help --------------------------------------------------------------------------
def template_catalogue(folder: Path | None = None) -> list[tuple[str, Path]]:
    """(title, path) of each template workbook shipped in rates_xl.templates."""
    if folder is None:
        import rates_xl.templates as templates_package

        folder = Path(templates_package.__file__).parent
    found = []
    for path in sorted(folder.glob("*.xlsx")):
        if path.name.startswith(("~$", ".")):
            continue
        found.append((path.stem.replace("_", " ").replace("-", " ").strip().capitalize(), path))
    return found


def numbered_menu(prompt: str, options: list[str]) -> str:
    lines = [prompt, ""] + [f"{n}. {option}" for n, option in enumerate(options, 1)]
    return "\n".join(lines + ["", "Type a number:"])


def parse_choice(answer: Any, count: int) -> int | None:
    """What InputBox returned -> a 0-based index, or None (cancelled or out of range)."""
    if answer is False or answer is None:
        return None
    try:
        number = int(float(answer))
    except (TypeError, ValueError):
        return None
    return number - 1 if 1 <= number <= count else None


def templates(ctx: Context) -> str:
    catalogue = template_catalogue()
    if not catalogue:
        ctx.alert("No template workbooks are installed with this rates-xl package.")
        return "none"
    index = ctx.choose(ctx.app, "Open a pricing template as a new workbook:",
                       f"{TITLE}: Templates", [title for title, _ in catalogue])
    if index is None:
        return "cancelled"
    title, path = catalogue[index]
    # Workbooks.Add(template) opens an unsaved copy: the shipped file is never overwritten.
    ctx.app.api.Workbooks.Add(str(path))
    ctx.notify(f"Rates: opened the {title} template as a new workbook")
    return f"opened {path.name}"


def help_text(function_names: list[str]) -> str:
    return "\n".join([
        "Worksheet functions (category RATES; Shift+F3 describes each argument):",
        ", ".join(function_names),
        "",
        "Refresh Selection / Sheet / Workbook: fetch fresh answers for those RATES_ cells now;",
        "other cells keep their cached answers. Clear Cache: forget every cached answer.",
        "Set API Key: store your key in the system keychain. Status: connection, key state,",
        "request counters and the last error. Templates: open a pricing workbook.",
        "",
        "A cell showing #RATES! says which argument is wrong and what was expected.",
        "",
        "Commands (in a terminal): rates-xl doctor (checks everything and says what to fix),",
        "rates-xl key set | status | clear, rates-xl addin install | uninstall.",
    ])


def help_(ctx: Context) -> str:
    from rates_xl.functions.table import FUNCTIONS

    ctx.alert(help_text(list(FUNCTIONS)), f"{TITLE}: Help")
    return "shown"


def valuation_time(ctx: Context) -> str:
    """Pin the book's valuation moment (the defined name RATES_VALUATION_TIME, which `rates-xl
    calc` reads too): every RATES_ cell that leaves valuation_time empty values at it. Paid
    keys; a trial key values as of now, and RATES_STATUS shows the spread of its answers."""
    current = valuation.read_name(ctx.book)
    shown = f"{current:%Y-%m-%dT%H:%M:%SZ}" if current else ""
    answer = ctx.app.api.InputBox(
        "Valuation time (UTC) for every RATES_ cell of this workbook that leaves valuation_time empty, "
        "e.g. 2026-01-02T16:00:00Z. Leave it empty to value as of now. Paid keys only.",
        f"{TITLE}: Valuation Time", shown, Type=2)
    if answer is False:
        return "cancelled"
    moment = valuation.parse(answer)  # a ValueError is shown in a message box by on_action
    valuation.write_name(ctx.book, moment)
    valuation.pin(ctx.book.name, moment)
    if moment is None:
        ctx.notify("Rates: valuation time cleared; Refresh Workbook to value every cell as of now")
        return "cleared"
    ctx.notify(f"Rates: valuation time {moment:%Y-%m-%d %H:%M:%S} UTC; Refresh Workbook to value every cell at it")
    return f"pinned {moment:%Y-%m-%dT%H:%M:%SZ}"


# -- Live mode (classic/live_mode.py, through the RTD server's live channel: live_rtd.py) ---------------
LIVE_NOT_READY = ("Live mode needs the add-in's real-time data (RTD) server, which is not running "
                  "in this Excel: quit Excel, run rates-xl addin install, then check with "
                  "rates-xl doctor.")


def _live_or_say(ctx: Context) -> Any:
    """The process's Live, made at the first press where the RTD server runs (the UDF server
    with its registration); None, said in a message box, where it does not."""
    from rates_xl.addin.classic import live_mode, live_rtd, rtd

    running = live_mode.current()
    if running is None and rtd.waits.enabled:
        from rates_xl.functions import get_client

        running = live_mode.ClassicLive(get_client(), live_rtd.channel, ctx.app)
        live_mode.install(running)
    if running is None:
        ctx.alert(LIVE_NOT_READY)
        return None
    live_rtd.attach(running)  # the one RTD server's live topics serve this Live
    return running


def live_on(ctx: Context) -> str:
    """The Live toggle pressed: refresh every visible live cell as its answer's lifetime ends.
    RatesOnToggle has set the VBA's Live flag (RatesRtd.RatesLiveOn) before calling here, so
    each RATES_ cell subscribes to its live topic when next calculated: calculate them now
    (from the cache; an answer past its lifetime is fetched like any miss)."""
    from rates_xl.addin.classic import scenario

    if scenario.any_active():
        raise ValueError("a workbook shows a scenario (not market data): press Back to Market before Live")
    running = _live_or_say(ctx)
    if running is None:
        return "not ready"
    text = running.turn_on()
    for book in ctx.app.books:
        for sheet in book.sheets:
            cells = sheet_rates_cells(sheet)
            if cells:
                mark_dirty(sheet, sorted(cells))
    ctx.app.calculate()
    return text


def live_off(ctx: Context) -> str:
    running = _live_or_say(ctx)
    return running.turn_off() if running is not None else "not ready"


def parse_share(answer: Any) -> float | None:
    """The Live share typed in the InputBox (a percentage, 1 to 100), as a fraction; None
    for Cancel; ValueError with the reason otherwise."""
    if answer is False or answer is None or (isinstance(answer, str) and not answer.strip()):
        return None
    try:
        percent = float(str(answer).strip().rstrip("%"))
    except ValueError:
        raise ValueError(f"Live share: {str(answer)[:20]!r} is not a percentage; type a number "
                         "from 1 to 100") from None
    if not 1 <= percent <= 100:
        raise ValueError(f"Live share: {percent:g}% is outside 1 to 100")
    return percent / 100


def live_share(ctx: Context) -> str:
    """Ask for the share of the service's limit Live may use (new formulas keep the rest)."""
    running = _live_or_say(ctx)
    if running is None:
        return "not ready"
    now = round(running.scheduler.share * 100)
    answer = ctx.app.api.InputBox(
        f"Share of the service's rate limit Live mode may use, in percent (now {now}). New "
        "formulas always have the rest, so they never wait behind Live.", f"{TITLE}: Live Share",
        str(now), 1)
    share = parse_share(answer)
    if share is None:
        return "cancelled"
    running.set_share(share)  # for this session; RATES_LIVE_SHARE sets the default
    ctx.notify(f"Rates: Live may use {share * 100:g}% of the service's limit")
    return f"share {share:g}"


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


def _scenario_apply(ctx: Context) -> str:
    from rates_xl.addin.classic import scenario

    return scenario.apply(ctx)


def _scenario_off(ctx: Context) -> str:
    from rates_xl.addin.classic import scenario

    return scenario.back_to_market(ctx)


#: The handler RatesRibbon.RatesStart runs at the add-in's start (no button of its own).
START_ACTION = "rates_start"
#: The handler RatesRibbon.RatesFill runs after a manual calculation (no button either).
FILL_ACTION = "rates_fill"

#: Button id (customUI14.xml) -> handler. The tests check both directions.
ACTIONS: dict[str, Callable[[Context], str]] = {
    START_ACTION: start,
    FILL_ACTION: fill,
    "rates_valuation_time": valuation_time,
    "rates_refresh_selection": refresh_selection,
    "rates_refresh_sheet": refresh_sheet,
    "rates_refresh_workbook": refresh_workbook,
    "rates_clear_cache": clear_cache,
    "rates_set_key": set_key,
    "rates_status": status,
    "rates_explain": explain,
    "rates_templates": templates,
    "rates_help": help_,
    # The Live toggle: RatesOnToggle passes "<id>_on" or "<id>_off" (build.check_handlers).
    "rates_live_on": live_on,
    "rates_live_off": live_off,
    "rates_live_share": live_share,
    # The Scenario group (addin/classic/scenario.py): apply one, and back to market.
    "rates_scenario": _scenario_apply,
    "rates_market": _scenario_off,
}


# -- the real dialogs (Windows Excel) -------------------------------------------------------------
def tk_prompt_secret(prompt: str, title: str) -> str | None:
    """A masked input box; the key is never shown, typed into a cell or logged."""
    try:
        import tkinter
        from tkinter import simpledialog
    except ImportError:
        raise DialogUnavailable(
            "this Python has no Tk to ask for the key safely; run `rates-xl key set` in a "
            "terminal instead"
        ) from None
    try:
        root = tkinter.Tk()
    except tkinter.TclError:
        raise DialogUnavailable(
            "cannot open a window to ask for the key; run `rates-xl key set` in a terminal"
        ) from None
    try:
        root.withdraw()
        root.attributes("-topmost", True)
        return simpledialog.askstring(title, prompt, show="\u2022", parent=root)
    finally:
        root.destroy()


def inputbox_choose(app: App, prompt: str, title: str, options: list[str]) -> int | None:
    """Excel's own InputBox (Type 1 = a number) over a numbered list."""
    answer = app.api.InputBox(numbered_menu(prompt, options), title, "1", Type=1)
    return parse_choice(answer, len(options))


def error_text(control_id: str, exc: BaseException) -> str:
    """What the user sees when a handler fails: the cause and what to do, never a traceback."""
    from rates_xl.addin.classic.install import InstallError
    from rates_xl.client.api_key import KeychainError
    from rates_xl.client.errors import RatesError

    if isinstance(exc, (KeychainError, DialogUnavailable, InstallError, RatesError)):
        return str(exc)
    if isinstance(exc, ValueError):
        return f"{exc}."
    return (f"The {control_id} button failed ({type(exc).__name__}). Run `rates-xl doctor` in "
            "a terminal: it checks the installation and says what to fix.")


def on_action(control_id: str, book: Book | None = None,
              prompt_secret: Callable[[str, str], str | None] = tk_prompt_secret,
              choose: Callable[[App, str, str, list[str]], int | None] = inputbox_choose,
              cancel_requested: Callable[[], bool] | None = None) -> str:
    """Run the handler of a ribbon button. Called from VBA; `book` etc. are for tests."""
    if book is None:
        import xlwings as xw

        book = xw.Book.caller()
    ctx = Context(book, prompt_secret, choose, cancel_requested)
    handler = ACTIONS.get(control_id)
    if handler is None:
        ctx.alert(f"The button {control_id!r} has no handler in this rates-xl package: the "
                  "add-in and the package do not match. Run `rates-xl addin install` again.")
        return "unknown"
    try:
        return handler(ctx)
    except Exception as exc:
        log.warning("ribbon %s failed: %s", control_id, type(exc).__name__)
        try:
            ctx.alert(error_text(control_id, exc), f"{TITLE}: {control_id}")
        except Exception:  # even the message box failed: nothing else can be shown
            log.exception("could not show the error of %s", control_id)
        return "failed"
