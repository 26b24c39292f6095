"""The Rates tab's handlers, behind one dispatch table.

Every button calls the VBA callback `RatesRibbon.RatesOnAction`, which runs
`import rates_xl.addin.classic.ribbon as r; r.on_action("<button id>")` through xlwings'
RunPython, which the add-in's xlwings module always runs inside the UDF server (see
`rates_xl.addin.classic.vba`): the same Python process as the RATES_* cells, so Refresh and
Clear Cache act on the cells' own client and cache.

The handlers are in `ribbon_refresh.py` (Refresh Selection / Sheet / Workbook through
Excel's calculation as plan, fetch, compute; the add-in's start; manual mode's fill) and
`ribbon_buttons.py` (cache, key, status, explain, templates, help, valuation time, Live,
Scenario); what they work in, `Context` and the dialogs, in `ribbon_context.py`.

Handlers take a `Context` (the calling book plus the two dialogs xlwings lacks) and return
a one-line summary; `on_action` turns every failure into a message box: no traceback
reaches the user, and no message ever contains the key.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from rates_xl.addin.classic.excel_surface import App, Book
from rates_xl.addin.classic.ribbon_buttons import (
    clear_cache,
    explain,
    help_,
    live_off,
    live_on,
    live_share,
    scenario_apply,
    scenario_off,
    set_key,
    status,
    templates,
    valuation_time,
)
from rates_xl.addin.classic.ribbon_context import (
    TITLE,
    Context,
    DialogUnavailable,
    inputbox_choose,
    tk_prompt_secret,
)
from rates_xl.addin.classic.ribbon_refresh import (
    fill,
    refresh_selection,
    refresh_sheet,
    refresh_workbook,
    start,
)

log = logging.getLogger("rates_xl.addin")


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
    # The Live toggle: RatesOnToggle passes "<id>_on" or "<id>_off" (build_sources.check_handlers).
    "rates_live_on": live_on,
    "rates_live_off": live_off,
    "rates_live_share": live_share,
    # The Scenario group (addin/classic/scenario.py): apply one, and back to market.
    "rates_scenario": scenario_apply,
    "rates_market": scenario_off,
}


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
