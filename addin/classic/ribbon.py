"""The Rates tab's handlers, behind one dispatch table.

Every button calls the VBA callback `RatesRibbon.RatesOnAction`, which runs
`import rates_xl.addin.classic.ribbon as r; r.on_action("<button id>")` through xlwings'
RunPython. With "USE UDF SERVER" = True (written by `rates-xl addin install`) that runs in
the same Python process as the RATES_* cells, so Refresh and Clear Cache act on the cells'
own client and cache.

Refresh (see `rates_xl.addin.classic.refresh` for the freshness floor):
1. find the RATES_* cells in scope from the sheet's formulas (one `used_range.formula`
   call per sheet; the rules are pure Python in `rates_xl.addin.classic.scope`);
2. register the scope with `request_refresh`: from now on those cells evaluate under a
   floor, so an answer cached before it counts as expired for them; identical requests
   still coalesce into one fetch, and every other cell keeps its cache;
3. mark exactly those cells dirty (`Range.api.Dirty`, in chunks of addresses) and let
   Excel recalculate (`App.calculate`: dirty cells and their dependents only, never a full
   recalculation).

Handlers take a `Context` (the calling book plus the two dialogs xlwings lacks) and return
a one-line summary; `on_action` turns every failure into a message box: no traceback
reaches the user, and no message ever contains the key.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rates_xl.addin.classic import scope

log = logging.getLogger("rates_xl.addin")

TITLE = "Rates"


# -- the context handlers work in --------------------------------------------------------------
class DialogUnavailable(Exception):
    """A dialog cannot be shown in this Python (no Tk, no COM); the message says what to do."""


@dataclass
class Context:
    """What a handler may touch: the calling workbook (an xlwings Book) and two dialogs."""

    book: Any
    prompt_secret: Callable[[str, str], str | None]
    choose: Callable[[Any, str, str, list[str]], int | None]

    @property
    def app(self) -> Any:
        return self.book.app

    def alert(self, text: str, title: str = TITLE) -> None:
        self.app.alert(text, title=title)

    def notify(self, text: str) -> None:
        """A short note in Excel's status bar (no dialog to dismiss)."""
        try:
            self.app.status_bar = text
        except Exception:  # some hosts have no status bar: the note is optional
            log.debug("no status bar for: %s", text)


# -- refresh ---------------------------------------------------------------------------------
def sheet_rates_cells(sheet: Any) -> dict[tuple[int, int], str]:
    """The RATES_* cells of a sheet: {(row, col): formula}, from one bulk formula read."""
    used = sheet.used_range
    origin = scope.parse_address(used.address)[0]
    return scope.rates_cells(used.formula, origin)


def spill_extent(sheet: Any, cell: tuple[int, int]) -> scope.Rect | None:
    """The range a dynamic-array anchor currently spills into (Windows: Range.SpillingToRange)."""
    try:
        api = sheet.range(cell).api
        if not api.HasSpill:
            return None
        return scope.parse_address(api.SpillingToRange.Address)[0]
    except Exception:  # older Excel without dynamic arrays, or no spill: treat as one cell
        return None


def mark_dirty(sheet: Any, cells: list[tuple[int, int]]) -> None:
    for chunk in scope.address_chunks(cells):
        sheet.range(chunk).api.Dirty()


def _recalculate(ctx: Context, dirty: dict[Any, list[tuple[int, int]]], refresh_scope: Any) -> int:
    from rates_xl.addin.classic.refresh import request_refresh

    count = sum(len(cells) for cells in dirty.values())
    if not count:
        return 0
    request_refresh(refresh_scope)
    for sheet, cells in dirty.items():
        mark_dirty(sheet, cells)
    ctx.app.calculate()
    return count


def _rect_address(rect: scope.Rect) -> str:
    first = scope.cell_address(rect.top, rect.left)
    last = scope.cell_address(rect.bottom, rect.right)
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
    addresses = [_rect_address(a) for a in areas] + [scope.cell_address(*c) for c in outside]
    refresh_scope = RefreshScope(ctx.book.name, sheet.name, frozenset(addresses))
    count = _recalculate(ctx, {sheet: chosen}, refresh_scope)
    ctx.notify(f"Rates: refreshed {_cells(count)} in the selection")
    return f"refreshed {count}"


def refresh_sheet(ctx: Context) -> str:
    from rates_xl.addin.classic.refresh import RefreshScope

    sheet = ctx.book.sheets.active
    cells = sorted(sheet_rates_cells(sheet))
    count = _recalculate(ctx, {sheet: cells}, RefreshScope(ctx.book.name, sheet.name))
    ctx.notify(f"Rates: refreshed {_cells(count)} on {sheet.name}" if count
               else f"Rates: no RATES_ formulas on {sheet.name}")
    return f"refreshed {count}"


def refresh_workbook(ctx: Context) -> str:
    from rates_xl.addin.classic.refresh import RefreshScope

    dirty = {sheet: sorted(sheet_rates_cells(sheet)) for sheet in ctx.book.sheets}
    dirty = {sheet: cells for sheet, cells in dirty.items() if cells}
    count = _recalculate(ctx, dirty, RefreshScope(ctx.book.name))
    ctx.notify(f"Rates: refreshed {_cells(count)} in {ctx.book.name}" if count
               else f"Rates: no RATES_ formulas in {ctx.book.name}")
    return f"refreshed {count}"


def _cells(count: int) -> str:
    return f"{count} cell" + ("" if count == 1 else "s")


# -- cache, key, status ------------------------------------------------------------------------
def clear_cache(ctx: Context) -> str:
    from rates_xl.functions import get_client

    client = get_client()
    count = client.stats().get("cached_answers", 0)
    client.clear_cache()
    ctx.notify(f"Rates: cleared {count} cached answers; cells fetch again when next calculated")
    return f"cleared {count}"


def set_key(ctx: Context) -> str:
    from rates_xl.addin import keys
    from rates_xl.functions import set_client

    secret = ctx.prompt_secret("Paste your Rates API key. It is stored in the system keychain, "
                               "never in a workbook.", f"{TITLE}: Set API Key")
    if secret is None or not secret.strip():
        return "cancelled"
    keys.store_key(secret)
    del secret
    set_client(None)  # the next RATES_ call builds a client that reads the new key
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


def status(ctx: Context) -> str:
    from rates_xl.addin import keys
    from rates_xl.addin.doctor import probe
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


#: Button id (customUI14.xml) -> handler. The tests check both directions.
ACTIONS: dict[str, Callable[[Context], str]] = {
    "rates_refresh_selection": refresh_selection,
    "rates_refresh_sheet": refresh_sheet,
    "rates_refresh_workbook": refresh_workbook,
    "rates_clear_cache": clear_cache,
    "rates_set_key": set_key,
    "rates_status": status,
    "rates_templates": templates,
    "rates_help": help_,
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


def inputbox_choose(app: Any, prompt: str, title: str, options: list[str]) -> int | None:
    """Excel's own InputBox (Type 1 = a number) over a numbered list."""
    answer = app.api.InputBox(numbered_menu(prompt, options), title, "1", Type=1)
    return parse_choice(answer, len(options))


def error_text(control_id: str, exc: BaseException) -> str:
    """What the user sees when a handler fails: the cause and what to do, never a traceback."""
    from rates_xl.addin.classic.install import InstallError
    from rates_xl.addin.keys import KeychainError
    from rates_xl.client.errors import RatesError

    if isinstance(exc, (KeychainError, DialogUnavailable, InstallError, RatesError)):
        return str(exc)
    if isinstance(exc, ValueError):
        return f"{exc}."
    return (f"The {control_id} button failed ({type(exc).__name__}). Run `rates-xl doctor` in "
            "a terminal: it checks the installation and says what to fix.")


def on_action(control_id: str, book: Any = None,
              prompt_secret: Callable[[str, str], str | None] = tk_prompt_secret,
              choose: Callable[[Any, str, str, list[str]], int | None] = inputbox_choose) -> str:
    """Run the handler of a ribbon button. Called from VBA; `book` etc. are for tests."""
    if book is None:
        import xlwings as xw

        book = xw.Book.caller()
    ctx = Context(book, prompt_secret, choose)
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
