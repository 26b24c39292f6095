"""Asynchronous RATES_ cells through RTD, on the serial-Excel stand-in (issue 21).

A miss answers #N/A at once and subscribes its cell to the request's topic; the request is
fetched in the background at the limiter's pace; when it is answered the RTD server rings
Excel, Excel pulls when idle and recalculates the cell, which now returns the cached answer.
The stand-in models Excel's side (tests/support/serial_excel_rtd.py); the add-in's side is
the real one: the UDFs, `rtd.Waits`, `rtd_server.RtdServer`, and the VBA wrapper's rule
(`rtd.excel_answer`, what vba/RatesRtd.bas does).
"""

from __future__ import annotations

import threading

import pytest

from rates_xl.addin.classic import ribbon, rtd, udfs
from rates_xl.client import RatesClient
from rates_xl.functions import PENDING, errors
from rates_xl.functions.args import serial_of
from tests.support import rtd_fixtures
from tests.support.async_excel import async_app, cell_values, settle

clean, client = rtd_fixtures.clean, rtd_fixtures.client  # the shared fixtures, by name

THROTTLE = 0.05  # Excel's is 2 s; the tests' own pace (one test keeps the default)


def is_na(value) -> bool:
    return str(value) == "#N/A"


def failed(book, address: str, sheet: str = "S") -> bool:
    """The cell shows #N/A for a failure (issue 28: an error value), not for a wait: its
    message (RATES_ERROR's) is the failure's."""
    message = errors.messages.of(book.name, sheet, address)
    return is_na(book.sheets[sheet].range(address).value) and bool(message) and message != udfs.WAITING


def placeholders(book) -> list:
    """Cells showing the placeholder, a pending message or a wait marker (never allowed at rest)."""
    return [(where, v) for where, v in cell_values(book).items()
            if is_na(v) or v == PENDING or (isinstance(v, str) and v.startswith(rtd.WAIT_PREFIX))]


SWAPS = {f"A{i}": f'=RATES_SWAP("SOFR","0D","{i}Y","1Y")' for i in range(1, 6)}


# -- the rules ---------------------------------------------------------------------------------
def test_a_miss_answers_na_at_once_and_the_sum_is_right_once_the_answers_are_in(client):
    app = async_app(throttle=THROTTLE)
    book = app.add_book("Sum.xlsx", {"S": {}})
    sheet = book.sheets[0]
    sent = client.stats()["requests_sent"]
    sheet.paste({**SWAPS, "B1": "=SUM(A1:A5)"})

    # The calculation returned without a request answered: every cell is #N/A, and so is the
    # sum (an error propagates: a total over waiting cells is never a plausible number).
    assert all(is_na(sheet.range(a).value) for a in SWAPS), cell_values(book)
    assert is_na(sheet.range("B1").value)
    assert client.stats()["requests_sent"] - sent <= 5  # none waited for (the pool may have begun)

    settle(app)
    values = [sheet.range(a).value for a in SWAPS]
    assert all(isinstance(v, float) for v in values), values
    assert sheet.range("B1").value == pytest.approx(sum(values))
    for i, v in enumerate(values, start=1):
        assert v == pytest.approx(client.swap_rate("SOFR", "0D", f"{i}Y", "1Y").swap_rate)
    assert placeholders(book) == []
    assert rtd.waits.submitted == 5 and client.stats()["requests_sent"] - sent == 5
    # Each cell stopped calling RTD once answered: Excel disconnected every topic.
    assert app.rtd.topics == {}


def test_a_calculations_misses_leave_together_once_it_is_over(client, monkeypatch):
    """Nothing is sent while Excel calculates (the fetch threads would compete with it for
    the interpreter); the batch leaves when the calculation is over."""
    monkeypatch.setattr(rtd, "GATHER_QUIET", 0.5)  # far above the gap between two cells
    monkeypatch.setattr(rtd, "GATHER_MAX", 10.0)
    app = async_app(throttle=THROTTLE)
    book = app.add_book("Batch.xlsx", {"S": {}})
    sent = client.stats()["requests_sent"]
    during: list[int] = []
    call_udf = app.call_udf

    def watched(name, args):
        try:
            return call_udf(name, args)
        finally:
            during.append(client.stats()["requests_sent"] - sent)

    app.call_udf = watched
    book.sheets[0].paste({f"A{i}": f'=RATES_SWAP("SOFR","2D","{i}Y","1Y")' for i in range(1, 21)})
    assert len(during) == 20 and set(during) == {0}, during
    settle(app)
    assert client.stats()["requests_sent"] - sent == 20
    assert all(isinstance(v, float) for v in cell_values(book).values())


def test_duplicates_share_one_request_and_one_topic(client):
    app = async_app(throttle=THROTTLE)
    book = app.add_book("Dup.xlsx", {"S": {}})
    sent = client.stats()["requests_sent"]
    book.sheets[0].paste({f"A{i}": '=RATES_SWAP("SOFR","0D","7Y","1Y")' for i in range(1, 11)})
    assert len(app.rtd.topics) == 1
    settle(app)
    assert client.stats()["requests_sent"] - sent == 1 and rtd.waits.submitted == 1
    assert placeholders(book) == []


def test_a_spilled_curve_fills_its_whole_table(client):
    app = async_app(throttle=THROTTLE)
    book = app.add_book("Curve.xlsx", {"S": {}})
    sheet = book.sheets[0]
    sheet.paste({"A1": '=RATES_SWAPCURVE("SOFR")', "F1": "=COUNT(A1:B200)"})
    assert is_na(sheet.range("A1").value) and not sheet.range("A1").api.HasSpill
    settle(app)
    assert sheet.range("A1").api.HasSpill
    expected = udfs.RATES_SWAPCURVE("SOFR")  # no caller: the synchronous path, from the cache
    rows, cols = len(expected), len(expected[0])
    assert sheet.range("A1").api.SpillingToRange.Address == f"$A$1:${'AB'[cols - 1]}${rows}"
    shown = [[sheet.value_at((r, c)) for c in range(1, cols + 1)] for r in range(1, rows + 1)]
    assert shown == expected
    # The dependent recalculated with the whole table.
    assert sheet.range("F1").value == sum(isinstance(v, (int, float)) for row in expected for v in row)
    assert placeholders(book) == []


def test_a_history_grid_queues_every_tenor_at_once_and_fills_whole(client):
    """A 4-tenor grid misses 4 requests in one calculation: all four are queued together
    (4 requests, each once), the cell shows #N/A meanwhile, then the whole grid; a second
    grid sharing two tenors adds only its new ones."""
    app = async_app(throttle=THROTTLE)
    book = app.add_book("Grid.xlsx", {"S": {}})
    sheet = book.sheets[0]
    sent = client.stats()["requests_sent"]
    sheet.paste({"A1": '=RATES_SWAPHISTORY("SOFR","2Y,5Y,10Y,30Y","2024-01-01","2024-12-31",,"Per=M")'})
    assert is_na(sheet.range("A1").value)
    assert rtd.waits.submitted == 4  # every tenor queued by the first calculation
    settle(app)
    expected = udfs.RATES_SWAPHISTORY("SOFR", "2Y,5Y,10Y,30Y", "2024-01-01", "2024-12-31", None, "Per=M")
    assert len(expected) == 13 and expected[0] == ["Date", "2Y", "5Y", "10Y", "30Y"]
    shown = [[sheet.value_at((r, c)) for c in range(1, 6)] for r in range(1, 14)]
    assert shown == [expected[0]] + [[float(serial_of(r[0])), *r[1:]] for r in expected[1:]]
    assert client.stats()["requests_sent"] - sent == 4
    sheet.paste({"H1": '=RATES_SWAPHISTORY("SOFR","10Y,30Y,20Y","2024-01-01","2024-12-31")'})
    settle(app)
    assert client.stats()["requests_sent"] - sent == 5 and rtd.waits.submitted == 5
    assert sheet.value_at((1, 10)) == "30Y" and isinstance(sheet.value_at((2, 10)), float)
    assert placeholders(book) == []


@pytest.mark.parametrize("entered", ["over-its-block", "in-one-cell"])
def test_a_legacy_array_of_a_curve_waits_at_its_size_and_fills_whole(entered, client, sandbox,
                                                                      sandbox_key, monkeypatch):
    """RATES_XL_LEGACY_ARRAYS=1 (Excel without dynamic arrays, xlwings' expand="table"): a
    curve's array formula waiting on its answer keeps its block, every cell #N/A (a SUM
    over it too), and is filled whole once the answer is in; xlwings never cuts it."""
    from tests.support import serial_excel_legacy as legacy

    monkeypatch.setattr(udfs, "_LEGACY_ARRAYS", True)
    formula = '=RATES_SWAPCURVE("SOFR")'
    other = RatesClient(base_url=sandbox.base_url, api_key=sandbox_key)
    try:
        with udfs.using_client(other):  # the expected table, without filling the cells' cache
            expected = udfs.RATES_SWAPCURVE("SOFR")
    finally:
        other.close()
    rows, cols = len(expected), len(expected[0])
    block = f"A1:{'AB'[cols - 1]}{rows}"
    app = async_app(throttle=THROTTLE)
    book = app.add_book("Legacy.xlsx", {"S": {}})
    sheet = book.sheets[0]
    sheet.paste({"D1": f"=SUM(B1:B{rows})"})
    f = legacy.enter_array(sheet, block if entered == "over-its-block" else "A1", formula)
    legacy.run_resizes(app)  # xlwings' event loop, 0.1 s later
    waiting = sheet.range(block).value if entered == "over-its-block" else [[sheet.range("A1").value]]
    assert all(is_na(v) for row in waiting for v in row), waiting
    if entered == "over-its-block":
        assert sheet.formulas[(1, 1)] is f and f.array == sheet.range(block).rects[0]
        assert is_na(sheet.range("D1").value)  # never the total of a cut array (0)

    settle(app)
    anchor = sheet.formulas[(1, 1)]
    assert anchor.array == sheet.range(block).rects[0]
    assert [[sheet.value_at((r, c)) for c in range(1, cols + 1)] for r in range(1, rows + 1)] == expected
    assert sheet.range("D1").value == pytest.approx(sum(r[1] for r in expected if isinstance(r[1], float)))
    assert legacy.state(app).cuts == 0  # never cut
    assert legacy.state(app).rewrites == (0 if entered == "over-its-block" else 1)  # one grow
    assert placeholders(book) == [] and rtd.waits.submitted == 1


CHAIN = {
    "A1": '=RATES_FIXING("SOFR")',
    "A2": '=RATES_SWAP("SOFR","0D",(ROUND(A1,0)+1)&"Y","1Y")',
    "A3": '=RATES_DISCOUNT("SOFR",(ROUND(A2,0)+1)&"Y")',
    "B3": "=A3*100",
}


@pytest.mark.parametrize("udf_thread", [False, True], ids=["udfs-on-calc-thread", "udfs-on-server-thread"])
def test_a_chain_resolves_link_by_link_without_a_user_action(udf_thread, client):
    app = async_app(throttle=THROTTLE, udf_thread=udf_thread)
    book = app.add_book("Chain.xlsx", {"C": {}})
    sheet = book.sheets[0]
    try:
        sheet.paste(CHAIN)
        # A2 and A3 read #N/A: they answer it too (Excel passes the error, err_to_str).
        assert [rtd.waits.submitted] == [1]
        pulls = settle(app)
    finally:
        app.close()
    a1, a2, a3 = (sheet.range(c).value for c in ("A1", "A2", "A3"))
    assert all(isinstance(v, float) for v in (a1, a2, a3)), (a1, a2, a3)
    assert a3 == pytest.approx(client.discount_factor("SOFR", f"{round(a2) + 1}Y").discount_factor)
    assert sheet.range("B3").value == pytest.approx(a3 * 100)
    assert rtd.waits.submitted == 3 and pulls >= 3  # one link per answer
    assert placeholders(book) == []


def test_several_books_share_the_requests_and_each_fills(client):
    app = async_app(throttle=THROTTLE)
    one = app.add_book("One.xlsx", {"S": {}})
    two = app.add_book("Two.xlsx", {"S": {}})
    sent = client.stats()["requests_sent"]
    one.sheets[0].paste(SWAPS)
    two.sheets[0].paste({"C3": SWAPS["A2"], "C4": '=RATES_FXSPOT("EURUSD")'})
    settle(app)
    assert placeholders(one) == [] and placeholders(two) == []
    assert two.sheets[0].range("C3").value == one.sheets[0].range("A2").value
    assert client.stats()["requests_sent"] - sent == 6  # A2's request once for both books


def test_a_book_closed_while_waiting_is_disconnected_and_its_answer_kept(client):
    app = async_app(throttle=THROTTLE)
    book = app.add_book("Closed.xlsx", {"S": {}})
    book.sheets[0].paste({"A1": SWAPS["A3"]})
    server = app.rtd.servers[rtd.PROGID.casefold()]
    app.close_book(book)
    assert app.rtd.topics == {} and rtd.PROGID.casefold() not in app.rtd.servers  # terminated
    assert server.callback is None
    settle(app)  # the fetch ends; nobody to ring, nothing fails
    assert rtd.waits.pending() == 0
    # Reopened, the cell answers from the cache without a request.
    sent = client.stats()["requests_sent"]
    again = app.add_book("Closed.xlsx", {"S": {}})
    again.sheets[0].paste({"A1": SWAPS["A3"]})
    assert isinstance(again.sheets[0].range("A1").value, float)
    assert client.stats()["requests_sent"] == sent


def test_an_edited_cell_leaves_its_topic(client):
    app = async_app(throttle=THROTTLE)
    book = app.add_book("Edit.xlsx", {"S": {}})
    sheet = book.sheets[0]
    sheet.paste({"A1": SWAPS["A4"]})
    assert len(app.rtd.topics) == 1
    sheet.paste({"A1": 42})
    assert app.rtd.topics == {}
    settle(app)
    assert sheet.range("A1").value == 42


def test_nothing_is_pulled_while_excel_is_in_edit_mode(client):
    app = async_app(throttle=THROTTLE)
    book = app.add_book("EditMode.xlsx", {"S": {}})
    sheet = book.sheets[0]
    sheet.paste({"A1": SWAPS["A1"]})
    app.ready = False  # the user is typing in a cell (Application.Ready False)
    while rtd.waits.pending():
        threading.Event().wait(0.01)
    threading.Event().wait(2 * THROTTLE)
    assert not app.rtd.idle() and is_na(sheet.range("A1").value)
    app.ready = True
    settle(app)
    assert isinstance(sheet.range("A1").value, float)


def test_excel_pulls_at_most_once_per_default_throttle_interval(client):
    """Excel's own 2 s: answers arriving meanwhile are pulled together."""
    app = async_app()
    pulls: list[float] = []
    original = app.rtd.pull

    def pull(now=None):
        pulls.append(app.rtd.clock())
        original(now)

    app.rtd.pull = pull
    book = app.add_book("Throttle.xlsx", {"S": {}})
    book.sheets[0].paste(SWAPS)
    settle(app, timeout=20)
    assert placeholders(book) == []
    assert all(b - a >= 2.0 for a, b in zip(pulls, pulls[1:], strict=False)), pulls


def test_a_rejected_update_notify_is_tried_again(client):
    """Excel busy: UpdateNotify fails with RPC_E_CALL_REJECTED; the server retries until taken."""
    app = async_app(throttle=THROTTLE)
    book = app.add_book("Busy.xlsx", {"S": {}})
    app.rtd.reject_calls = 3
    book.sheets[0].paste({"A1": SWAPS["A5"]})
    settle(app)
    server = app.rtd.servers.get(rtd.PROGID.casefold())
    assert isinstance(book.sheets[0].range("A1").value, float)
    assert app.rtd.rejected == 3
    assert server is None or server.rejected == 3


def test_a_failed_fetch_shows_its_error_not_the_placeholder(sandbox_key):
    """A service that cannot be reached: the cells end with the client's message (fail fast),
    never #N/A at rest and never a number."""
    import socket

    with socket.socket() as s:  # a loopback port with nobody listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    down = RatesClient(base_url=f"http://127.0.0.1:{port}", api_key=sandbox_key, max_attempts=1)
    udfs.set_client(down)
    try:
        app = async_app(throttle=THROTTLE)
        book = app.add_book("Down.xlsx", {"S": {}})
        book.sheets[0].paste({"A1": SWAPS["A1"], "A2": SWAPS["A1"]})
        settle(app, timeout=20)
        assert failed(book, "A1") and failed(book, "A2")  # an error value, its message kept
        assert "cannot reach" in errors.messages.of("Down.xlsx", "S", "A1")
        assert rtd.waits.submitted == 1  # one attempt for both cells, not one per recalculation
    finally:
        down.close()


def test_an_answer_counts_as_in_flight_until_excel_has_been_rung():
    """Between recording an answer and ringing the servers, `pending()` must not read 0 while
    nothing is yet notified: a waiter (Excel idle, `settle`) would stop with the cells still
    #N/A (seen once in CI under 4 processes)."""
    seen: list[int] = []
    waits = rtd.Waits()

    class Server:  # what an RtdServer is told; here it looks at the count while being rung
        def topics_ready(self, topics):
            seen.append(waits.pending())

    class Client:
        def get_key(self, key):
            raise ConnectionError("nobody listening")

    waits.attach(Server())
    topic = waits.miss(Client(), ("swap", "SOFR"))
    waits._fetch(Client(), ("swap", "SOFR"), topic, None)  # the pool's work, run here
    assert seen == [1]  # still counted while the servers were being rung
    assert waits.pending() == 0  # and no longer once they were
    waits.reset()


def test_an_answer_landing_while_the_cell_computes_is_not_queued_again():
    """A fetch may land between a cell's computation (which missed the request) and its miss:
    the miss then queues nothing (None) and the cell computes again, instead of a second
    submission (seen under `stress --cpu 2`: a history grid's 20Y submitted twice, once
    answered from the cache). An answer older than the computation (a cache the cell's
    floor finds stale) is queued again, as before."""
    waits = rtd.Waits()

    class Client:
        def get_key(self, key):
            return None

    key = ("swap", "SOFR")
    topic = waits.miss(Client(), key)
    started = waits.clock()  # the next calculation of the cell begins ...
    waits._fetch(Client(), key, topic, None)  # ... the answer lands meanwhile ...
    assert waits.miss(Client(), key, landed_since=started) is None  # ... so nothing is queued
    assert waits.submitted == 1
    later = waits.clock() + 1  # a calculation that began after the answer: a stale cache
    assert waits.miss(Client(), key, landed_since=later) == topic
    assert waits.submitted == 2
    waits.reset()


@pytest.mark.parametrize("button", ["rates_clear_cache", "rates_set_key"])
def test_clear_cache_forgets_a_remembered_failure_so_the_next_calculation_asks_again(button, keychain):
    """A failure is remembered FAILURE_MEMORY s so every waiting cell shows it; a user who
    fixed the cause and presses Clear Cache (or sets a new key) sees a fresh attempt, not the
    old message."""
    from tests.support.faultserver import FaultServer, Reply

    server = FaultServer()
    broken = [True]
    server.responder = lambda arrival: Reply(status=503) if broken[0] else Reply()
    client = RatesClient(base_url=server.base_url, api_key="sk-test-clear", max_attempts=1,
                         persistent=False)
    udfs.set_client(client)
    try:
        app = async_app(throttle=THROTTLE)
        book = app.add_book("Fixed.xlsx", {"S": {}})
        sheet = book.sheets[0]
        sheet.paste({"A1": SWAPS["A1"]})
        settle(app)
        assert failed(book, "A1")
        broken[0] = False  # the cause is fixed (the service is back)
        app.calculate_full()
        assert failed(book, "A1")  # remembered: no new attempt yet
        assert rtd.waits.submitted == 1

        assert ribbon.on_action(button, book=book, prompt_secret=lambda p, t: "sk-new-key-123456") \
            in ("cleared 0", "stored")
        udfs.set_client(client)  # (Set API Key made a new client: the one on the fault server)
        app.calculate_full()
        assert errors.messages.of("Fixed.xlsx", "S", "A1") == udfs.WAITING  # a fresh attempt
        settle(app)
        assert isinstance(sheet.range("A1").value, float)
        assert rtd.waits.submitted == 2 and placeholders(book) == []
    finally:
        client.close()
        server.stop()


def test_a_pinned_book_recalculated_outside_refresh_values_at_its_moment(client):
    """Issue 29: a book pinned with the Valuation Time button, recalculated by Excel outside
    a Refresh with RTD on (an edited cell, F9), values at its moment, as a Refresh does: its
    request carries the pinned valuation_time. The RTD path reached the core without the
    moment, so the cell waited on, fetched and showed "now"."""
    from rates_xl.addin.classic import valuation

    moment = "2026-01-02T16:00:00Z"
    app = async_app(throttle=THROTTLE)
    book = app.add_book("PinnedRtd.xlsx", {"S": {}})
    try:
        app.api.input_answers = [moment]
        assert ribbon.on_action("rates_valuation_time", book=book) == f"pinned {moment}"
        book.sheets[0].paste({"A1": '=RATES_SWAP("SOFR","0D","10Y","1Y")'})
        assert is_na(book.sheets[0].range("A1").value)  # it waited on RTD: not the synchronous path
        settle(app)
        pinned = client.swap_rate("SOFR", "0D", "10Y", "1Y", valuation_time=moment).swap_rate
        now = client.swap_rate("SOFR", "0D", "10Y", "1Y").swap_rate
        assert pinned != now  # the two moments' answers differ, so the cell tells them apart
        assert book.sheets[0].range("A1").value == pinned
        assert rtd.waits.submitted == 1
        # The cell's one request was the pinned one (the pool fetched it; nothing at "now" waited).
        asked = [dict(key.params).get("valuation_time") for key, _ in client.answers()
                 if key.endpoint == "swap_rate"]
        assert moment in asked
    finally:
        valuation.pin(book.name, None)


# -- what keeps working --------------------------------------------------------------------------
def test_a_ribbon_refresh_still_plans_and_fetches_itself(client):
    app = async_app(throttle=THROTTLE)
    book = app.add_book("Refresh.xlsx", {"S": {}})
    book.sheets[0].paste(SWAPS)
    settle(app)
    sent = client.stats()["requests_sent"]
    assert ribbon.on_action("rates_refresh_workbook", book=book) == "refreshed 5"
    # The refresh fetched the 5 requests afresh itself; no cell waited on RTD meanwhile.
    assert client.stats()["requests_sent"] - sent == 5 and rtd.waits.submitted == 5
    assert placeholders(book) == []
    assert app.rtd.topics == {}


def test_a_cancelled_refresh_while_cells_wait_leaves_no_placeholder_at_rest(client):
    app = async_app(throttle=THROTTLE)
    book = app.add_book("Cancel.xlsx", {"S": {}})
    book.sheets[0].paste(SWAPS)  # waiting on RTD
    polls = []

    def escape():
        polls.append(1)
        return len(polls) >= 2

    assert ribbon.on_action("rates_refresh_workbook", book=book, cancel_requested=escape).startswith(
        ("cancelled", "refreshed"))
    settle(app)
    assert placeholders(book) == []


def test_calc_and_the_frozen_copy_never_see_the_placeholder(client, tmp_path):
    """With the asynchronous path on in this process, `rates-xl calc` still computes every
    cell (it never takes the UDFs' path) and its frozen copy holds numbers."""
    import openpyxl

    from rates_xl.calc.workbook import WorkbookCalculation

    rtd.waits.enabled = True
    path = tmp_path / "calc.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    for address, formula in {**SWAPS, "B1": "=SUM(A1:A5)"}.items():
        ws[address] = formula
    wb.save(path)
    calc = WorkbookCalculation(path)
    result = calc.compute(client)
    values = list(result.values.values())
    assert len(values) == 6 and all(isinstance(v, float) for v in values), values
    frozen = calc.freeze(result, tmp_path / "frozen.xlsx")
    shown = [c.value for row in openpyxl.load_workbook(frozen).active.iter_rows() for c in row
             if c.value is not None]
    assert len(shown) == 6 and all(isinstance(v, float) for v in shown), shown
    assert rtd.waits.submitted == 0


def test_no_rtd_server_means_the_synchronous_path(client):
    """Where the RTD server is not available (Waits.enabled False) a miss fetches as before."""
    rtd.waits.enabled = False
    from tests.support import serial_excel

    app = serial_excel.App()
    book = app.add_book("Sync.xlsx", {"S": {}})
    book.sheets[0].paste({"A1": SWAPS["A2"]})
    assert isinstance(book.sheets[0].range("A1").value, float)
    assert rtd.waits.submitted == 0


# -- the topic API: channels (Live mode pushes through them) ---------------------------------
class Channel:
    def __init__(self) -> None:
        self.connected: dict[int, tuple] = {}
        self.disconnected: list[int] = []
        self.server = None

    def connect(self, server, topic_id, strings):
        self.server = server
        self.connected[topic_id] = tuple(strings)
        return 0

    def disconnect(self, server, topic_id):
        self.disconnected.append(topic_id)


def test_a_channel_pushes_values_to_its_cells_and_hears_them_leave():
    app = async_app(throttle=THROTTLE)
    channel = Channel()
    rtd.waits.add_channel("demo", channel)
    book = app.add_book("Live.xlsx", {"S": {}})
    sheet = book.sheets[0]
    sheet.paste({"A1": f'=RTD("{rtd.PROGID}",,"demo","Live.xlsx","S","A1")', "B1": "=A1*2"})
    assert sheet.range("A1").value == 0
    (topic_id, strings), = channel.connected.items()
    assert strings == ("Live.xlsx", "S", "A1")
    app.rtd.reject_calls = 1  # Excel busy at the first ring: retried
    channel.server.push({topic_id: 21})
    settle(app)
    assert sheet.range("A1").value == 21 and sheet.range("B1").value == 42
    channel.server.push({topic_id: 22, 999: "not a topic of this server"})
    settle(app)
    assert sheet.range("B1").value == 44
    sheet.paste({"A1": 1})
    assert channel.disconnected == [topic_id]


def test_a_channel_cannot_take_a_request_topics_name():
    with pytest.raises(ValueError):
        rtd.waits.add_channel(rtd.topic_for("anything"), Channel())


def test_the_table_of_waits_stays_bounded(client, monkeypatch):
    """Answered requests are forgotten past MAX_WAITS (a long session), the waiting ones kept."""
    monkeypatch.setattr(rtd, "MAX_WAITS", 5)
    monkeypatch.setattr(rtd, "KEEP_ANSWERED", 0.0)
    app = async_app(throttle=THROTTLE)
    book = app.add_book("Bound.xlsx", {"S": {}})
    book.sheets[0].paste({f"A{i}": f'=RATES_SWAP("SOFR","1D","{i}Y","1Y")' for i in range(1, 13)})
    settle(app)
    assert placeholders(book) == []
    assert all(isinstance(v, float) for v in cell_values(book).values())
    assert len(rtd.waits._by_topic) <= 6


def test_a_subscription_arriving_after_its_answer_still_recalculates_the_cell(client):
    """The answer lands between the cell's miss and Excel's ConnectData: ConnectData answers
    FETCHING and the server rings (from a thread of its own, not inside ConnectData), so
    RefreshData delivers READY as a changed value and the cell recalculates (Excel ignores an
    unchanged one: tests/support/serial_excel_rtd.py)."""
    app = async_app(throttle=THROTTLE)
    key = client.request_key("swap_rate", index="SOFR", start_date="0D", maturity_date="9Y",
                             fixed_leg_frequency="1Y")
    topic = rtd.waits.miss(client, key)
    while rtd.waits.pending():
        threading.Event().wait(0.01)
    book = app.add_book("Late.xlsx", {"S": {}})
    sheet = book.sheets[0]
    # The UDF would now answer from the cache; a wrapper subscribing late is modelled directly.
    sheet.paste({"A1": f'=RTD("{rtd.PROGID}",,"{topic}")'})
    assert sheet.range("A1").value == rtd.FETCHING
    assert app.rtd.servers
    for _ in range(500):  # the ring comes from a timer thread, at once
        if app.rtd.idle():
            break
        threading.Event().wait(0.01)
    assert app.rtd.refreshes == 1
