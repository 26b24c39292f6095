"""Refresh through Excel's own calculation, on the serial-Excel stand-in (tests/support/serial_excel.py).

The stand-in computes one cell at a time on one thread and calls the real UDFs, so a refresh
that let Excel fetch cell by cell would show it here: these tests check that the ribbon's
refresh plans, fetches each distinct request once and concurrently, computes from the cache
in rounds, ends equal to `rates-xl calc`, can be cancelled without leaving a pending cell,
and always gives Excel back its screen updating, status bar and cancel key.
"""

from __future__ import annotations

import math
import threading
from datetime import date, datetime
from pathlib import Path

import pytest

from rates_xl.addin.classic import refresh, ribbon, ribbon_buttons, ribbon_refresh, scope, udfs
from rates_xl.client import RatesClient
from rates_xl.functions import PENDING
from rates_xl.functions.sheet import cell_address
from tests.support import serial_excel
from tests.support.sends import most_in_window, recording_sends

TEMPLATES = Path(ribbon_buttons.template_catalogue()[0][1]).parent
LATENCY_MS = 100


@pytest.fixture(autouse=True)
def clean_scopes():
    refresh.clear_scopes()
    yield
    refresh.clear_scopes()


@pytest.fixture(scope="module")
def slow_sandbox():
    """The service 100 ms away: a request served one at a time would be plain to see."""
    from rates_xl.sandbox.server import start_in_thread

    with start_in_thread(latency_ms=LATENCY_MS, rate_limit=1000, burst=1000) as running:
        yield running


_clients: list[RatesClient] = []


def client_for(sandbox, key, **settings):
    """A client for the cells (as the UDF server's shared client), closed after the test."""
    live = RatesClient(base_url=sandbox.base_url, api_key=key, **settings)
    _clients.append(live)
    udfs.set_client(live)
    return live


@pytest.fixture
def cleanup_client():
    yield
    udfs.set_client(None)
    while _clients:
        _clients.pop().close()


def _same(a, b) -> bool:
    """Equal as Excel shows them: empty and "" alike, dates as serial numbers, floats to 1e-9."""
    from rates_xl.functions.values import to_serial

    def norm(x):
        if x in ("", None):
            return None
        if isinstance(x, (date, datetime)):
            return to_serial(x)
        return x

    a, b = norm(a), norm(b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return str(a) == str(b)


def pending_cells(book):
    return [(sheet.name, cell_address(*cell)) for sheet in book.sheets
            for cell, value in sheet.values.items() if value == PENDING]


# -- a template, refreshed like a user would ---------------------------------------------------------
@pytest.mark.parametrize("template", ["swap_spreads.xlsx", "swap_pricer.xlsx"])
def test_template_refresh_fetches_each_request_once_concurrently_and_ends_equal_to_calc(
        template, slow_sandbox, sandbox_key, cleanup_client):
    from rates_xl.calc.workbook import WorkbookCalculation

    app = serial_excel.App()
    book = app.open(TEMPLATES / template)  # as saved: nothing calculated in this session
    client = client_for(slow_sandbox, sandbox_key)
    with recording_sends() as sends:
        assert ribbon.on_action("rates_refresh_workbook", book=book).startswith("refreshed ")
    outcome = ribbon_refresh.last_refresh
    stats = client.stats()

    # What `rates-xl calc` computes for the same file, with a client of its own (cold cache).
    with RatesClient(base_url=slow_sandbox.base_url, api_key=sandbox_key) as calc_client:
        expected = WorkbookCalculation(TEMPLATES / template).compute(calc_client)
    distinct = expected.report.distinct_requests
    assert distinct > 10

    # Each distinct request asked once (duplicates shared it), nothing else sent. A request may
    # go twice only as a counted retry (a transport failure, which a busy machine can cause). A
    # clean-clone CI next to `stress --cpu 2` once sent two requests twice (27 sends where calc
    # counted 25) and its message did not say whether they were retries; this one does.
    repeats = sum(count - 1 for count in sends.repeated().values())
    assert stats["requests_sent"] == outcome.requests and outcome.requests - repeats == distinct \
        and repeats == stats["retries"], \
        f"sent {stats['requests_sent']}, refresh counted {outcome.requests}, calc {distinct}, retried " \
        f"{stats['retries']}; sent more than once: {sends.repeated()}"
    assert not stats["errors_by_status"]
    # Concurrently: a serial refresh leaves >= 100 ms between two sends; here several go at once.
    assert most_in_window(sends.sent, LATENCY_MS / 2000) > 1
    # Excel computed every cell on its one calculation thread.
    assert app.udf_threads == {threading.get_ident()}

    # Every cell the engine computes ends equal in "Excel", and none is left pending.
    assert pending_cells(book) == []
    different = [(sheet, cell, want, book.sheets[sheet].range(cell).value)
                 for (sheet, cell), want in expected.values.items()
                 if not _same(want, book.sheets[sheet].range(cell).value)]
    assert different == []
    assert not outcome.cancelled
    if template == "swap_pricer.xlsx":
        # Payment dates come from the discount curve's spill and RATES_DISCOUNT reads them:
        # the curve is fetched after round 1, the discount factors on its dates after round 2.
        assert outcome.rounds >= 3
        assert 0 < book.sheets["Fixed leg"].range("H7").value < 1


# -- a chain of RATES_* results --------------------------------------------------------------------
CHAIN = {
    "A1": '=RATES_FIXING("SOFR")',
    "A2": '=RATES_SWAP("SOFR","0D",(ROUND(A1,0)+1)&"Y","1Y")',
    "A3": '=RATES_DISCOUNT("SOFR",(ROUND(A2,0)+1)&"Y")',
    "B3": "=A3*100",
}


@pytest.mark.parametrize("udf_thread", [False, True], ids=["udfs-on-calc-thread", "udfs-on-server-thread"])
def test_a_dependent_chain_resolves_in_rounds(udf_thread, sandbox, sandbox_key, cleanup_client):
    """Each RATES_* argument is computed from the previous RATES_* result: one round each.

    With `udf_thread` the UDFs run on a thread of their own (as a COM server may answer
    Excel): the planning round is process-wide, so they plan all the same."""
    app = serial_excel.App(udf_thread=udf_thread)
    book = app.add_book("Chain.xlsx", {"Chain": CHAIN})
    client = client_for(sandbox, sandbox_key)
    try:
        assert ribbon.on_action("rates_refresh_sheet", book=book) == "refreshed 3"
    finally:
        app.close()
    outcome = ribbon_refresh.last_refresh
    assert outcome.requests == client.stats()["requests_sent"] == 3
    assert outcome.rounds == 4  # three rounds that each fetch one link, one that needs nothing

    sheet = book.sheets[0]
    a1, a2, a3 = (sheet.range(c).value for c in ("A1", "A2", "A3"))
    assert all(isinstance(v, float) for v in (a1, a2, a3)), (a1, a2, a3)
    assert a1 == pytest.approx(client.fixing("SOFR").fixing_rate)
    assert a2 == pytest.approx(client.swap_rate("SOFR", "0D", f"{round(a1) + 1}Y", "1Y").swap_rate)
    assert a3 == pytest.approx(client.discount_factor("SOFR", f"{round(a2) + 1}Y").discount_factor)
    assert sheet.range("B3").value == pytest.approx(a3 * 100)
    if udf_thread:
        assert threading.get_ident() not in app.udf_threads
    assert pending_cells(book) == []


# -- cancel --------------------------------------------------------------------------------------------
def test_a_cancelled_refresh_leaves_every_cell_fresh_or_as_it_was(sandbox, sandbox_key, cleanup_client):
    from tests.support.cells import VALUATION_TIME, distinct_formulas

    formulas = distinct_formulas(40, VALUATION_TIME)
    app = serial_excel.App()
    book = app.add_book("Big.xlsx", {"Fill": {f"A{i}": f for i, f in enumerate(formulas, 1)}})
    sheet = book.sheets[0]
    for row in range(1, 41):  # what the file showed when it was opened (nothing cached yet)
        sheet.show((row, 1), f"saved {row}")
    # A slow fetch: 4 requests a second, two at a time; Esc "pressed" after the first report.
    client = client_for(sandbox, sandbox_key, rate_limit=4, burst=1, max_workers=2)
    polls = []

    def escape():
        polls.append(1)
        return len(polls) >= 3

    assert ribbon.on_action("rates_refresh_sheet", book=book, cancel_requested=escape) == "cancelled 40"
    outcome = ribbon_refresh.last_refresh
    assert outcome.cancelled and outcome.not_fetched > 0

    values = [sheet.range(f"A{row}").value for row in range(1, 41)]
    fresh = [v for v in values if isinstance(v, float)]
    kept = [row for row, v in enumerate(values, 1) if v == f"saved {row}"]
    assert pending_cells(book) == []
    assert len(fresh) + len(kept) == 40, values  # nothing else: no pending, no error
    assert fresh and kept
    assert len(fresh) == client.stats()["requests_sent"] < 40
    # The floor was withdrawn: the cells it covered keep their cache from now on.
    assert refresh.floor_for("Big.xlsx", "Fill", "A1") is None
    # Excel got its status bar back with one line about the cancel; progress was shown meanwhile.
    assert "refresh cancelled" in app.status_bar
    progress = [s for s in app.status_history if isinstance(s, str) and s.startswith("Rates: fetching")]
    assert progress and "/s" in progress[-1] and "Esc cancels" in progress[-1]
    assert app.screen_updating is True and app.api.EnableCancelKey == 1
    assert refresh.current_pass() is None

    # Pressing Refresh again (at the service's own pace now) refreshes every cell, once each.
    client = client_for(sandbox, sandbox_key)
    assert ribbon.on_action("rates_refresh_sheet", book=book) == "refreshed 40"
    assert all(isinstance(sheet.range(f"A{row}").value, float) for row in range(1, 41))
    assert client.stats()["requests_sent"] == 40


# -- Excel is always given back ------------------------------------------------------------------------
def test_screen_updating_status_bar_and_cancel_key_are_restored_when_a_refresh_fails(
        sandbox, sandbox_key, cleanup_client):
    app = serial_excel.App()
    book = app.add_book("Chain.xlsx", {"Chain": CHAIN})
    client_for(sandbox, sandbox_key)
    app.status_bar = "the user's own status text"
    calls = []
    original = app.calculate

    def failing_calculate():
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("Excel went away")
        original()

    app.calculate = failing_calculate
    assert ribbon.on_action("rates_refresh_sheet", book=book) == "failed"
    assert app.screen_updating is True
    assert app.status_bar == "the user's own status text"
    assert app.api.EnableCancelKey == 1
    assert False in app.screen_history  # it was off meanwhile
    assert refresh.current_pass() is None  # the next refresh can run
    assert pending_cells(book) == []  # one last pass put every pending cell right
    text, _ = app.alerts[-1]
    assert "Traceback" not in text

    app.calculate = original
    assert ribbon.on_action("rates_refresh_sheet", book=book) == "refreshed 3"
    assert app.screen_updating is True and pending_cells(book) == []


def test_progress_text():
    from rates_xl.functions.plan import FetchProgress

    assert ribbon_refresh.progress_text(FetchProgress(0, 400, 0.1, 1)) == "Rates: fetching 0 of 400 requests (Esc cancels)"
    text = ribbon_refresh.progress_text(FetchProgress(100, 400, 5.0, 1))
    assert text == "Rates: fetching 100 of 400 requests, 20.0/s, about 15 s left (Esc cancels)"


def test_a_cancelled_refresh_gives_a_spilled_curve_back_its_whole_block(sandbox, sandbox_key, cleanup_client):
    app = serial_excel.App()
    book = app.open(TEMPLATES / "curve_dashboard.xlsx")
    sheet = book.sheets["Curves"]
    anchors = ("B24", "F24", "J24")  # three curves, saved spilled in the file
    saved = {}
    for anchor in anchors:
        block = sheet.range(anchor).api.SpillingToRange.Address
        cell = scope.parse_address(anchor)[0]
        sheet.show((cell.top + 1, cell.left), "saved")  # mark the saved block: first tenor
        saved[anchor] = sheet.range(block).value
    # One request a second, one at a time: cancelled after the first curve came.
    client = client_for(sandbox, sandbox_key, rate_limit=1, burst=1, max_workers=1)
    assert ribbon.on_action("rates_refresh_sheet", book=book,
                            cancel_requested=lambda: client.stats()["requests_sent"] >= 1).startswith("cancelled")
    assert ribbon_refresh.last_refresh.not_fetched >= 1
    assert pending_cells(book) == []
    restored = fresh = 0
    for anchor in anchors:
        block = sheet.range(sheet.range(anchor).api.SpillingToRange.Address).value
        if block == saved[anchor]:
            restored += 1  # the whole block as it was, "saved" mark included
        else:
            assert block[0] == ["Tenor", "Rate"] and block[1][0] != "saved" and isinstance(block[1][1], float)
            fresh += 1
    assert restored >= 1 and fresh >= 1
