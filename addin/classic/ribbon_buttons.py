"""The Rates tab's other buttons: Clear Cache, Set API Key, Status, Explain Cell, Templates,
Help, Valuation Time, Live (on, off, share) and the Scenario group. Each takes the press's
`Context` (ribbon_context.py) and returns a one-line summary; the Refresh buttons are in
`ribbon_refresh.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rates_xl.addin.classic import scope, valuation
from rates_xl.addin.classic.ribbon_context import TITLE, Context
from rates_xl.addin.classic.ribbon_refresh import mark_dirty, sheet_rates_cells


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
    from rates_xl.addin.doctor_network import probe
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


def scenario_apply(ctx: Context) -> str:
    from rates_xl.addin.classic import scenario

    return scenario.apply(ctx)


def scenario_off(ctx: Context) -> str:
    from rates_xl.addin.classic import scenario

    return scenario.back_to_market(ctx)
