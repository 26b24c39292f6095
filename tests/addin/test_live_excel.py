"""Live mode in the classic add-in, on the serial-Excel stand-in (issue 21): the ribbon's
toggle turns it on; a RATES_ cell valued as of now gets a new answer once its answer's
lifetime ends, pushed through the add-in's one RTD server (`RatesXL.RTD`, its `live`
channel: live_rtd.py; Excel's side modelled by the stand-in: ConnectData, UpdateNotify,
RefreshData when Excel is idle and the throttle interval has passed, the cell and its
dependents recalculated, DisconnectData when a formula leaves); nothing is fetched in edit
mode or for a hidden workbook; a cell that leaves the sheet stops; a past valuation time
never refreshes; the status bar says Live, the last refresh and any error.

The cells are plain RATES_ formulas: the VBA wrapper's rule (`rtd.excel_answer`, with the
flag the Live toggle sets) subscribes each answered cell to its live topic. The service is
the fault server on loopback, answering a new swap rate each time, so a refreshed cell
shows a different number. Lifetimes are scaled down (0.4 s) and the RTD throttle interval
set to 0.1 s (Excel's default is 2 s) so the test takes seconds.
"""

from __future__ import annotations

import itertools
import re
import time

import pytest

from rates_xl.addin.classic import live_mode, live_rtd, ribbon, rtd, udfs
from rates_xl.addin.classic.live_mode import CellRef, ClassicLive
from rates_xl.client import RatesClient
from tests.support import serial_excel, serial_excel_book
from tests.support.async_excel import async_app, settle, stop_async
from tests.support.faultserver import FaultServer, Reply

SWAP = 'RATES_SWAP("SOFR","0D","5Y","1Y")'
PAST = 'RATES_SWAP("SOFR","0D","5Y","1Y",,,,"2026-11-20T16:00:00Z")'


class Excel:
    """The stand-in Excel with the add-in's RTD server, a client on the fault server, and
    the pump Excel's idle loop would be."""

    def __init__(self, server: FaultServer) -> None:
        counter = itertools.count(1)
        self.server = server
        server.responder = lambda arrival: Reply(body={
            "index": "SOFR", "start_date": "2026-04-03", "maturity_date": "2031-04-03",
            "valuation_time": "2026-04-01T16:00:00Z", "swap_rate": 3.0 + next(counter) / 100})
        self.client = RatesClient(base_url=server.base_url, api_key="sk-live-test", persistent=False,
                                  ttl_live=0.4, backoff=0.01, max_backoff=0.05)
        udfs.set_client(self.client)
        self.app = async_app(throttle=0.1)
        self.rtd = self.app.rtd
        self.live = ClassicLive(self.client, live_rtd.channel, self.app, tick=0.02)
        live_mode.install(self.live)  # the ribbon attaches it to the live channel

    def book(self, name: str, cells: dict[str, str]) -> serial_excel_book.Book:
        book = self.app.add_book(name, {"S": {
            address: f"={call}" if call.startswith("RATES_") else call for address, call in cells.items()}})
        self.app.calculate_full()
        settle(self.app)  # the first answers arrive (the cells waited on RTD meanwhile)
        return book

    def run(self, seconds: float) -> None:
        """Excel idle for `seconds`: it pulls whenever rung (and ready)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.rtd.idle()
            time.sleep(0.02)

    def until(self, predicate, timeout: float = 10.0) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.rtd.idle()
            if predicate():
                return True
            time.sleep(0.02)
        return predicate()

    def requests(self, **query: str) -> int:
        return sum(1 for a in self.server.arrivals
                   if a.path == "/v1/swap_rate" and all(a.query.get(k) == v for k, v in query.items()))

    def live_topics(self) -> list[tuple[str, ...]]:
        """The live topics Excel holds: (book, sheet, address) of each subscribed cell."""
        return [strings[1:] for (progid, strings) in self.rtd.topics
                if progid == rtd.PROGID.casefold() and strings[:1] == (rtd.LIVE_CHANNEL,)]

    def close(self) -> None:
        live_mode.install(None)
        stop_async()
        udfs.set_client(None)
        self.client.close()


@pytest.fixture
def excel():
    server = FaultServer()
    made = Excel(server)
    yield made
    made.close()
    server.stop()


def press(book, control_id: str) -> str:
    """A button; the Live toggle as RatesOnToggle presses it (the VBA's flag, then Python)."""
    if control_id in ("rates_live_on", "rates_live_off"):
        return book.app.toggle("rates_live", control_id.endswith("_on"), book)
    return ribbon.on_action(control_id, book=book)


def value(book, address: str):
    return book.sheets[0].range(address).value


def changed(book, address: str, *old: float) -> bool:
    """The cell shows a new answer (not #N/A: a cell whose answer had expired when Live was
    turned on waits for it like any miss)."""
    shown = value(book, address)
    return isinstance(shown, float) and shown not in old


def test_the_toggle_refreshes_live_cells_and_their_dependents(excel):
    book = excel.book("Book1.xlsx", {"A1": SWAP, "B1": "=A1*2", "A2": PAST})
    first, pinned = value(book, "A1"), value(book, "A2")
    assert isinstance(first, float) and isinstance(pinned, float)
    excel.run(1.0)  # Live is off: nothing changes after the lifetime
    assert value(book, "A1") == first and excel.requests() == 2

    assert press(book, "rates_live_on").startswith("Rates: Live")
    assert excel.until(lambda: changed(book, "A1", first))
    second = value(book, "A1")
    assert value(book, "B1") == pytest.approx(second * 2)  # the dependent recalculated too
    assert excel.until(lambda: changed(book, "A1", first, second))  # and again, next lifetime
    # The cell valued as of a past time was never asked again, and still shows its answer.
    assert excel.requests(valuation_time="2026-11-20T16:00:00Z") == 1 and value(book, "A2") == pinned
    assert re.fullmatch(r"Rates: Live, last refresh \d\d:\d\d:\d\d", excel.app.status_bar)

    assert press(book, "rates_live_off") == "Rates: Live off"
    sent = excel.requests()
    excel.run(1.0)
    assert excel.requests() == sent


def test_nothing_is_fetched_in_edit_mode_and_excel_pulls_after(excel):
    book = excel.book("Book1.xlsx", {"A1": SWAP})
    press(book, "rates_live_on")  # (the ribbon cannot be pressed in edit mode)
    assert excel.until(lambda: excel.live.scheduler.status().cells == 1 and changed(book, "A1"))
    excel.app.ready = False  # the user is typing in a cell
    excel.run(0.3)  # a refetch already on the wire lands; its pull waits for Excel
    first, sent = value(book, "A1"), excel.requests()
    excel.run(1.2)  # three lifetimes
    assert excel.requests() == sent and value(book, "A1") == first
    assert excel.app.status_bar.startswith("Rates: Live, paused (edit mode)")
    excel.app.ready = True
    assert excel.until(lambda: changed(book, "A1", first))


def test_a_hidden_workbook_is_skipped(excel):
    shown = excel.book("Shown.xlsx", {"A1": 'RATES_SWAP("SOFR","0D","5Y","1Y")'})
    hidden = excel.book("Hidden.xlsx", {"A1": 'RATES_SWAP("SOFR","0D","7Y","1Y")'})
    hidden.hidden = True
    press(shown, "rates_live_on")  # every open book's cells subscribe (a hidden one's too)
    assert excel.until(lambda: excel.live.scheduler.status().cells == 2
                       and changed(hidden, "A1") and changed(shown, "A1"))
    before, asked = value(hidden, "A1"), excel.requests(maturity_date="7Y")
    fives = excel.requests(maturity_date="5Y")
    assert excel.until(lambda: excel.requests(maturity_date="5Y") >= fives + 3)
    assert excel.requests(maturity_date="7Y") == asked and value(hidden, "A1") == before
    hidden.hidden = False
    assert excel.until(lambda: changed(hidden, "A1", before))


def test_a_cell_that_leaves_the_sheet_stops(excel):
    book = excel.book("Book1.xlsx", {"A1": SWAP, "A2": 'RATES_SWAP("SOFR","0D","7Y","1Y")'})
    press(book, "rates_live_on")
    assert excel.until(lambda: excel.requests(maturity_date="5Y") >= 2)
    assert ("Book1.xlsx", "S", "$A$1") in excel.live_topics()
    book.sheets[0].range("A1").value = 1.5  # the user overwrites the formula
    # Excel's DisconnectData for its live topic: the channel has Live forget the cell.
    assert ("Book1.xlsx", "S", "$A$1") not in excel.live_topics()
    assert CellRef("Book1.xlsx", "S", "$A$1") not in excel.live.scheduler.cells()
    excel.run(0.5)  # a refetch already on the wire may land
    sent = excel.requests(maturity_date="5Y")
    excel.run(1.2)
    assert excel.requests(maturity_date="5Y") == sent
    assert excel.requests(maturity_date="7Y") >= 3  # the other cell carries on
    excel.app.close_book(book)  # its last live cell leaves with the workbook
    excel.run(0.5)
    assert excel.live.scheduler.status().cells == 0


def test_an_error_shows_in_the_status_bar_and_clears(excel):
    book = excel.book("Book1.xlsx", {"A1": SWAP})
    first = value(book, "A1")
    responder = excel.server.responder
    excel.server.responder = lambda arrival: Reply(status=503, body={"detail": "maintenance"})
    press(book, "rates_live_on")
    assert excel.until(lambda: excel.live.scheduler.status().last_error is not None)
    # Shown without any cell changing (the status bar is written a moment after the
    # scheduler records the error: waited for, as the line below waits for the error itself).
    assert excel.until(lambda: "; error: swap_rate: " in excel.app.status_bar), excel.app.status_bar
    assert value(book, "A1") == first  # the cell keeps its answer while the error shows
    excel.server.responder = responder
    assert excel.until(lambda: changed(book, "A1", first), timeout=15)
    assert excel.until(lambda: excel.live.scheduler.status().last_error is None)
    assert excel.until(lambda: "error" not in excel.app.status_bar)


def test_live_share_is_asked_and_checked(excel):
    book = excel.book("Book1.xlsx", {"A1": SWAP})
    excel.app.api.input_answers = [25, "150", False]
    assert press(book, "rates_live_share") == "share 0.25"
    assert excel.live.scheduler.share == 0.25
    assert press(book, "rates_live_share") == "failed"  # 150%: said in a message box
    assert "outside 1 to 100" in excel.app.alerts[-1][0]
    assert press(book, "rates_live_share") == "cancelled"
    assert excel.live.scheduler.share == 0.25


def test_the_toggle_before_the_rtd_server_started_says_so():
    app = serial_excel.App()
    book = app.add_book("Book1.xlsx", {"S": {"A1": 1}})
    live_mode.install(None)
    assert ribbon.on_action("rates_live_on", book=book) == "not ready"
    assert "real-time data (RTD) server" in app.alerts[-1][0]


def test_live_goes_through_the_one_rtd_server_and_stops_on_disconnect_data(excel):
    """The join of Live and RTD: one COM class (`RatesXL.RTD`), one server, whose `live`
    topics carry Live's refreshes; the cell's topic is disconnected when its formula goes."""
    book = excel.book("Book1.xlsx", {"A1": SWAP, "B1": "=A1*2"})
    press(book, "rates_live_on")
    assert excel.until(lambda: excel.live_topics() == [("Book1.xlsx", "S", "$A$1")])  # B1 is no RATES_ cell
    assert list(excel.rtd.servers) == [rtd.PROGID.casefold()]  # no second server (RatesXL.Live)
    (server,) = excel.rtd.servers.values()
    disconnected: list[int] = []
    original = server.DisconnectData
    server.DisconnectData = lambda topic_id: (disconnected.append(topic_id), original(topic_id))[1]
    first, pulls = value(book, "A1"), excel.rtd.refreshes
    assert excel.until(lambda: changed(book, "A1", first))  # after its lifetime, pushed and pulled
    assert excel.rtd.refreshes > pulls
    assert value(book, "B1") == pytest.approx(value(book, "A1") * 2)
    assert excel.live_topics() == [("Book1.xlsx", "S", "$A$1")]  # still subscribed after the refresh

    book.sheets[0].range("A1").formula = "=1+1"  # the formula goes away
    assert len(disconnected) == 1 and excel.live_topics() == []
    assert excel.live.scheduler.status().cells == 0
    excel.run(0.5)  # a refetch already on the wire may land
    sent = excel.requests()
    excel.run(1.2)  # three lifetimes
    assert excel.requests() == sent and value(book, "A1") == 2


def test_the_channel_forgets_cells_that_never_subscribed(monkeypatch):
    """A cell computed while Live is on but deleted before it subscribed (it was waiting)
    leaves no entry behind for long: the channel's table stays bounded."""
    monkeypatch.setattr(live_rtd, "MAX_UNSUBSCRIBED", 3)
    channel = live_rtd.LiveChannel()
    for row in range(1, 10):
        channel.saw(CellRef("B.xlsx", "S", f"$A${row}"), {f"key{row}"})
    assert len(channel._used) <= 4
    assert channel._used[CellRef("B.xlsx", "S", "$A$9")] == frozenset({"key9"})


def test_a_new_key_gives_live_the_cells_new_client(excel, keychain, monkeypatch):
    """Set API Key makes a new client for the cells; Live is made again on it (still on,
    same share, same cells), so its refetches use the new key and fill the cache the cells
    read."""
    monkeypatch.delenv("RATES_API_KEY", raising=False)
    monkeypatch.setenv("RATES_BASE_URL", excel.server.base_url)
    book = excel.book("Book1.xlsx", {"A1": SWAP})
    excel.app.api.input_answers = [30]
    press(book, "rates_live_share")
    press(book, "rates_live_on")
    assert excel.until(lambda: excel.live.scheduler.status().cells == 1)
    assert ribbon.on_action("rates_set_key", book=book, prompt_secret=lambda p, t: "sk-new-key-123456") == "stored"
    renewed = live_mode.current()
    assert renewed is not excel.live and not excel.live.on  # the old one stopped
    assert renewed.on and renewed.scheduler.client is udfs.get_client() is not excel.client
    assert renewed.scheduler.share == 0.3 and renewed.scheduler.status().cells == 1
