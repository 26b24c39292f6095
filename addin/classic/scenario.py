"""The Scenario control on the Rates tab: a workbook's RATES_ cells answered from its
market-data pack under a shift of the curves, and back to market (docs/scenarios.md).

- **Scenario** (`apply`): asks for a spec (SOFR+1bp, *+25bp, SOFR:10Y+1bp, a twist), reads
  the pack the book carries (recorded by Refresh, `valuation.stored_pack`), checks it, puts it
  under the scenario (scenario/apply.py: the local curves; what they need and the pack lacks
  is fetched once through the add-in's client, from the service that recorded the pack) and
  gives the book a replaying client of that scenario pack. From then on every RATES_ cell of
  that book is answered by that client alone (`client_for`, the call context's client:
  functions/context.py), synchronously, never through the RTD server (whose threads
  use the shared client) and never from the service: a request the pack lacks is the cell's
  "not in the market-data pack" message. The other open books keep the market.
- While on, the workbook says it is not at market: the Scenario button's label (RatesRibbon's
  getLabel: "SCENARIO SOFR+1bp"), RATES_STATUS's Scenario row, RATES_SOURCE's Scenario line,
  the status bar; Refresh and Live are refused (a Refresh would record the scenario's
  answers as the book's market data).
- **Back to Market** (`back_to_market`): the book's client is dropped and its RATES_ cells
  recalculated from the shared client (its cache still holds the market's answers).
- The book itself carries the mark while on: the defined name `RATES_SCENARIO` ("SOFR+1bp: not
  market data", in the Name Manager), removed by Back to Market. A book saved under a scenario
  keeps its cells' scenario values; when the add-in starts and finds the name, it recalculates
  that book's RATES_ cells from the market and says so (`reopened`).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("rates_xl.addin")

#: The add-in's macro that redraws the Scenario button (vba/RatesRibbon.bas), run by
#: Application.Run with the text it shows ("" at market).
SHOW_MACRO = "RatesShowScenario"
#: The defined name a book under a scenario carries (saved with it).
NAME = "RATES_SCENARIO"
EXAMPLES = "SOFR+1bp, *+25bp, SOFR:10Y+1bp, SOFR:2Y-5bp,SOFR:10Y+5bp"


@dataclass
class Active:
    """A book under a scenario: its spec, its replaying client, the scenario pack's record."""

    spec: str
    client: Any
    record: Any


_books: dict[str, Active] = {}
_lock = threading.Lock()


def _fold(name: str) -> str:
    return name.strip().casefold()


def active(book_name: str) -> Active | None:
    if not _books:  # the common case: no book is under a scenario
        return None
    return _books.get(_fold(book_name))


def any_active() -> bool:
    return bool(_books)


def client_for(where: tuple[str, str, str] | None) -> Any:
    """The replaying client of the calling cell's book (`where`: its book, sheet and address,
    refresh.caller_id) when it is under a scenario, else None."""
    if not _books or where is None:
        return None
    found = active(where[0])
    return found.client if found is not None else None


def refuse_while_on(book_name: str, what: str) -> None:
    """ValueError (the button's message box) when `book_name` is under a scenario."""
    found = active(book_name)
    if found is not None:
        raise ValueError(f"{book_name} shows the scenario {found.record.described}, not market data: "
                         f"press Back to Market before {what}")


def apply(ctx: Any) -> str:
    """The Scenario button: ask for a spec, put the book's pack under it, recalculate."""
    from rates_xl.addin.classic import live_mode, valuation
    from rates_xl.client.pack_seal import check, signer_from_settings
    from rates_xl.scenario.spec import parse

    running = live_mode.current()
    if running is not None and running.on:
        raise ValueError("Live mode is on: switch Live off before applying a scenario (a scenario answers from "
                         "the book's recorded pack, Live from the service)")
    book = ctx.book
    pack = valuation.stored_pack(book)
    if pack is None:
        ctx.alert(f"{book.name} carries no market-data pack yet: Refresh Workbook first. A scenario moves the "
                  "answers a Refresh recorded in the book.")
        return "no pack"
    verdict = check(pack, signer_from_settings())
    if verdict.is_edited:
        raise ValueError(f"the market-data pack in {book.name} was {verdict.headline()}: no scenario is applied to it")
    current = active(book.name)
    answer = ctx.app.api.InputBox(
        f"Scenario for {book.name}: a shift of the curves its RATES_ cells were computed on, e.g. {EXAMPLES} "
        "(key rates on the buckets 1Y 2Y 5Y 10Y 30Y). The cells then show the book's recorded answers moved by a "
        "local curve model: NOT market data until Back to Market.",
        "Rates: Scenario", current.spec if current is not None else "SOFR+1bp", Type=2)
    if answer is False or answer is None or not str(answer).strip():
        return "cancelled"
    scenario = parse(str(answer))  # a SpecError (ValueError) is the button's message box
    ctx.notify(f"Rates: building the curves for {scenario.text}...")
    under = _under(pack, scenario)
    from rates_xl.scenario.apply import replaying_client  # (loaded by _under already)

    client = replaying_client(under)
    with _lock:
        old = _books.pop(_fold(book.name), None)
        _books[_fold(book.name)] = Active(under.scenario.spec, client, under.scenario)
    if old is not None:
        old.client.close()
    _mark(book, under.scenario.described)
    _recalculate(ctx)
    _show(ctx, under.scenario.described)
    moved = sum(1 for a in under.scenario.answers if a.answer is not None)
    kept = [a for a in under.scenario.answers if a.not_shifted is not None]
    ctx.notify(f"Rates: SCENARIO {under.scenario.described} in {book.name}, not market data: {moved} answers "
               f"moved, {len(kept)} not shifted; Back to Market returns to the market")
    if kept:
        listed = "\n".join(f"- {a.request}: {a.not_shifted}" for a in kept[:10])
        more = f"\n... and {len(kept) - 10} more" if len(kept) > 10 else ""
        ctx.alert(f"Scenario {under.scenario.described}: these answers keep their recorded value (not shifted):\n"
                  f"{listed}{more}", "Rates: Scenario")
    return f"scenario {under.scenario.spec}"


def back_to_market(ctx: Any) -> str:
    """The Back to Market button: the book's scenario off, its cells from the market again."""
    with _lock:
        found = _books.pop(_fold(ctx.book.name), None)
    if found is None:
        ctx.notify(f"Rates: {ctx.book.name} is at market (no scenario on)")
        return "at market"
    found.client.close()
    _mark(ctx.book, None)
    _recalculate(ctx)
    remaining = next(iter(_books.values()), None)  # another open book still under one: it says so
    _show(ctx, remaining.record.described if remaining is not None else "")
    ctx.notify(f"Rates: {ctx.book.name} back to market: its RATES_ cells answer from the service's answers again")
    return "market"


def _under(pack: Any, scenario: Any) -> Any:
    """The book's pack under the scenario; the curves' missing answers fetched through the
    add-in's client when it is the service that recorded the pack."""
    from rates_xl.client.pack import public_url
    from rates_xl.functions.core import get_client

    try:
        from rates_xl.scenario.apply import ScenarioError, apply, prepare
    except ImportError as exc:  # QuantLib: the [sandbox] extra, which `pip install .` leaves out
        from rates_xl.extras import missing_extra

        raise ValueError(f"a scenario needs the local curve model: {missing_extra(exc, 'sandbox')}") from None

    shared = get_client()
    client = shared if public_url(shared.base_url) == pack.base_url else None
    try:
        return apply(prepare(pack, client), scenario)
    except ScenarioError as exc:
        raise ValueError(str(exc)) from None


def reopened(ctx: Any) -> list[str]:
    """At the add-in's start: each open book saved while a scenario was on (it carries the
    name) that this process has not put under one has its RATES_ cells recalculated from the
    market, its name removed, and the user told. The books' names."""
    found = []
    for book in list(ctx.app.books):
        try:
            text = str(book.names[NAME].refers_to or "")
        except Exception:  # no such name: the common case
            continue
        if active(book.name) is not None:
            continue
        _mark(book, None)
        _recalculate(ctx, book)
        found.append(book.name)
        ctx.alert(f"{book.name} was saved while a scenario was on ({text.lstrip('=').strip(chr(34))}): its RATES_ "
                  "cells showed it, not market data. They are recalculated from the market now.", "Rates: Scenario")
    return found


def _mark(book: Any, described: str | None) -> None:
    """The book's defined name RATES_SCENARIO while a scenario is on (None: removed)."""
    try:
        if described is None:
            book.names[NAME].delete()
        else:
            book.names.add(NAME, f'="{described}: not market data"')
    except Exception:  # noqa: BLE001 - no such name to delete; the label and the cells say it anyway
        log.debug("the name %s not changed in %s", NAME, getattr(book, "name", "?"))


def _recalculate(ctx: Any, book: Any = None) -> None:
    from rates_xl.addin.classic.ribbon_refresh import mark_dirty, sheet_rates_cells

    for sheet in (book or ctx.book).sheets:
        cells = sheet_rates_cells(sheet)
        if cells:
            mark_dirty(sheet, sorted(cells))
    ctx.app.calculate()


def _show(ctx: Any, text: str) -> None:
    """The Scenario button's label (RatesRibbon.RatesShowScenario); a label that cannot be set
    (no add-in workbook: a test, a broken install) is logged, the status bar says it anyway."""
    from rates_xl.addin.classic.manual import ADDIN_NAME

    try:
        ctx.app.api.Run(f"'{ADDIN_NAME}'!{SHOW_MACRO}", text)
    except Exception:  # noqa: BLE001 - the label is a courtesy; RATES_STATUS and the bar say it too
        log.warning("could not set the Scenario button's label")


__all__ = ["NAME", "Active", "active", "any_active", "apply", "back_to_market", "client_for", "refuse_while_on",
           "reopened"]
