"""Live mode's scheduler (client/live_scheduler.py) and its share of the limiter (limiter.ShareLimiter),
against the fault server on loopback: refetch when the lifetime ends, never for a past
valuation time, paused, hidden, forgotten, errors surfaced, and an interactive request
never queued behind Live."""

from __future__ import annotations

import threading
import time

import pytest

from rates_xl.client.cache import Entry
from rates_xl.client.limiter import ShareLimiter, TokenBucket
from rates_xl.client.live_scheduler import LiveScheduler, LiveStatus, is_live
from tests.support.faultserver import Reply
from tests.support.sandbox import wait_until


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class Notified:
    """The host's side of `notify`: every cell it was told to recalculate, with the time."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, frozenset]] = []
        self._lock = threading.Lock()

    def __call__(self, cells: frozenset) -> None:
        with self._lock:
            self.calls.append((time.time(), cells))

    def times(self, cell) -> list[float]:
        with self._lock:
            return [at for at, cells in self.calls if cell in cells]


def swap_key(client, maturity="5Y", **extra):
    return client.request_key("swap_rate", index="SOFR", start_date="0D", maturity_date=maturity,
                              fixed_leg_frequency="1Y", **extra)


# -- the limiter's share ----------------------------------------------------------------------

def test_share_keeps_the_reserve_for_interactive_requests():
    clock = FakeClock()
    shared = TokenBucket(20, 50, clock=clock, sleep=clock.sleep)  # capacity 45 after the jitter slack
    live = ShareLimiter(shared, 0.5, clock=clock, sleep=clock.sleep)
    assert live.rate == 10 and live.keep == pytest.approx(22.5)
    # Live asks for far more than its share, at once: it never takes the bucket below the
    # reserve, and never reserves ahead (the bucket's balance stays positive).
    start = clock.now
    for _ in range(200):
        live.acquire(clock.now + 1000)
        assert shared._tokens >= live.keep - 1e-9
    assert (clock.now - start) >= 200 / 10 - 23 / 10  # its own pace: half the rate (after its burst)
    # A formula typed now is sent at once: a token is free, nothing is queued ahead of it.
    assert shared.acquire(clock.now) == 0.0
    assert shared.backlog() == 0


def test_share_waits_while_interactive_requests_hold_the_bucket():
    clock = FakeClock()
    shared = TokenBucket(20, 50, clock=clock, sleep=clock.sleep)
    live = ShareLimiter(shared, 0.5, clock=clock, sleep=clock.sleep)
    for _ in range(45):  # a paste of 45 new cells empties the bucket
        shared.acquire(clock.now + 100)
    before = clock.now
    live.acquire(clock.now + 100)
    # Live waited until the bucket refilled above the reserve: 23.5 tokens at 20/s ...
    assert clock.now - before >= 23 / 20
    # ... and took nothing a formula typed now needs: it is sent at once, while a Live that
    # queued in the shared bucket (acquire, first come first served) would have taken the
    # first token to refill and made it wait.
    assert shared.acquire(clock.now) == 0.0
    with pytest.raises(Exception, match="interactive reserve"):
        for _ in range(45):
            shared.acquire(clock.now + 100)
        live.acquire(clock.now + 0.01)


@pytest.mark.parametrize("share", [0, -0.5, 1.5])
def test_share_outside_zero_to_one_is_refused(share):
    with pytest.raises(ValueError, match="share"):
        ShareLimiter(TokenBucket(20, 50), share)


# -- which cells are live -----------------------------------------------------------------------

def test_live_means_valued_as_of_now(make_client):
    client = make_client(persistent=False)
    assert is_live(swap_key(client))
    assert is_live(client.request_key("fx_spot", currency_pair="EURUSD"))
    assert is_live(client.request_key("gov_yield", country_code="US", maturity="10Y"))
    assert not is_live(swap_key(client, valuation_time="2025-01-02T16:00:00Z"))
    assert not is_live(client.request_key("fixing", index="SOFR", valuation_date="2024-01-02"))
    assert not is_live(client.request_key("swap_rate_tenors", index="SOFR"))


# -- the scheduler --------------------------------------------------------------------------------

def test_refetched_when_the_lifetime_ends_and_the_cell_told(server, make_client):
    client = make_client(persistent=False, ttl_live=0.6)
    key = swap_key(client)
    client.get_key(key)  # the cell's own first answer
    notified = Notified()
    live = LiveScheduler(client, notified, tick=0.02)
    assert live.watch(("Book1", "Sheet1", "A1"), [key], group="Book1")
    live.start()
    try:
        assert wait_until(lambda: len(notified.times(("Book1", "Sheet1", "A1"))) >= 3, 15)
    finally:
        live.stop()
    sent = [a.at for a in server.arrivals if a.path == "/v1/swap_rate"]
    gaps = [b - a for a, b in zip(sent, sent[1:], strict=False)]
    # Each refetch comes once the answer has lived its lifetime, not before half of it,
    # not much after it (a loose bound: the test only catches a scheduler that idles).
    assert all(0.3 <= gap <= 3.0 for gap in gaps), gaps
    status = live.status()
    assert status.refreshed >= 3 and status.last_error is None
    assert "last refresh" in LiveStatus(**{**status.__dict__, "running": True}).text()


def test_a_past_valuation_time_is_never_refreshed(server, make_client):
    client = make_client(persistent=False, ttl_live=0.2)
    pinned = swap_key(client, valuation_time="2025-01-02T16:00:00Z")
    history = client.request_key("swap_rate_tenors", index="SOFR")
    live = LiveScheduler(client, Notified(), tick=0.02)
    assert not live.watch("A1", [pinned, history])
    live.start()
    time.sleep(0.5)
    live.stop()
    assert server.count() == 0 and live.status().cells == 0


def test_paused_in_edit_mode_and_skipped_while_hidden(server, make_client):
    client = make_client(persistent=False, ttl_live=0.2)
    notified = Notified()
    live = LiveScheduler(client, notified, tick=0.02)
    live.watch("A1", [swap_key(client, "5Y")], group="Book1")
    live.watch("B1", [swap_key(client, "7Y")], group="Book2")
    live.pause("edit mode")
    live.start()
    try:
        time.sleep(0.6)
        assert server.count() == 0
        assert live.status().paused == ("edit mode",)
        assert "paused (edit mode)" in live.status().text()
        live.hide("Book2")
        live.resume("edit mode")
        assert wait_until(lambda: len(notified.times("A1")) >= 2, 10)
        assert notified.times("B1") == []
        assert all(a.query["maturity_date"] == "5Y" for a in server.arrivals)
        live.hide("Book2", hidden=False)
        assert wait_until(lambda: notified.times("B1"), 10)
    finally:
        live.stop()


def test_host_state_pauses_and_hides(server, make_client):
    """The host is asked each tick (the classic add-in reads Excel's Ready and its windows)."""
    client = make_client(persistent=False, ttl_live=0.2)
    state = {"busy": "edit mode", "hidden": frozenset()}
    live = LiveScheduler(client, Notified(), tick=0.02,
                         host_state=lambda: (state["busy"], state["hidden"]))
    live.watch("A1", [swap_key(client)], group="Book1")
    live.start()
    try:
        time.sleep(0.4)
        assert server.count() == 0
        state.update(busy=None, hidden=frozenset({"Book1"}))
        time.sleep(0.4)
        assert server.count() == 0
        state.update(hidden=frozenset())
        assert wait_until(lambda: server.count() >= 1, 10)
    finally:
        live.stop()


def test_a_cell_that_leaves_the_sheet_stops(server, make_client):
    client = make_client(persistent=False, ttl_live=0.2)
    notified = Notified()
    live = LiveScheduler(client, notified, tick=0.02)
    key = swap_key(client)
    live.watch("A1", [key])
    live.watch("A2", [key])  # two cells, one request
    live.start()
    try:
        assert wait_until(lambda: len(notified.times("A2")) >= 1, 10)
        live.forget("A1")
        assert wait_until(lambda: len(notified.times("A2")) >= 3, 10)
        live.forget("A2")
        time.sleep(0.3)  # one refetch may have been on the wire
        count = server.count()
        time.sleep(0.6)
        assert server.count() == count
        assert live.status().requests == 0
    finally:
        live.stop()


def test_errors_surface_and_clear_when_answered_again(server, make_client):
    client = make_client(persistent=False, ttl_live=0.3, max_attempts=1)
    key = swap_key(client)
    client.get_key(key)
    server.responder = lambda arrival: Reply(status=503, body={"detail": "maintenance"})
    notified = Notified()
    live = LiveScheduler(client, notified, tick=0.02)
    live.watch("A1", [key])
    live.start()
    try:
        assert wait_until(lambda: live.status().last_error is not None, 10)
        status = live.status()
        assert "swap_rate" in status.last_error and status.failed >= 1
        assert "error: swap_rate" in status.text()
        assert notified.times("A1") == []  # the cell keeps its last answer, the error is shown
        server.responder = lambda arrival: Reply()
        assert wait_until(lambda: notified.times("A1"), 15)  # retried, then answered
        assert wait_until(lambda: live.status().last_error is None, 5)
    finally:
        live.stop()


def test_a_refusal_is_an_answer_its_cells_show(server, make_client):
    client = make_client(persistent=False, ttl_live=0.3)
    key = swap_key(client)
    client.get_key(key)
    server.responder = lambda arrival: Reply(status=404, body={"detail": "no data for SOFR"})
    notified = Notified()
    live = LiveScheduler(client, notified, tick=0.02)
    live.watch("A1", [key])
    live.start()
    try:
        assert wait_until(lambda: notified.times("A1"), 10)
    finally:
        live.stop()
    assert client.cache.get(key).error is not None  # what the cell now computes from


def test_keys_due_together_start_early_enough_for_the_pace(make_client):
    """40 cells typed together all expire at T: at 10/s the last can start at T - 0.1 s,
    so the first must start by T - 4 s; none starts before it needs to."""
    client = make_client(persistent=False, ttl_live=60)
    wall = FakeClock()
    live = LiveScheduler(client, Notified(), wall=wall)
    expires = wall.now + 30
    keys = [swap_key(client, f"{n}M") for n in range(1, 41)]
    for key in keys:
        client.cache.put(key, Entry(value=None, fetched_at=expires - 60, ttl=60))
    for i, key in enumerate(keys):
        live.watch(i, [key])
    assert live._due(expires - 4.05) == []
    assert live._due(expires - 3.99) == [keys[0]]
    assert len(live._due(expires + 10)) >= 1


def test_a_typed_formula_is_never_queued_behind_live(server, make_client):
    """120 live requests due at once, Live at half the limit: meanwhile a new cell's
    request takes its token at once (the limiter reports no wait) and the bucket never
    owes slots to Live."""
    client = make_client(persistent=False, ttl_live=60, rate_limit=20, burst=50)
    live = LiveScheduler(client, Notified(), tick=0.02)
    for n in range(1, 121):
        live.watch(n, [swap_key(client, f"{n}M")])
    live.start()
    try:
        assert wait_until(lambda: server.count() >= 30, 20)
        waits = []
        for _ in range(5):
            waits.append(client.limiter.acquire(time.monotonic() + 5))
            assert client.limiter.backlog() == 0
            time.sleep(0.2)
        assert waits == [0.0] * 5
    finally:
        live.stop()


def test_the_share_comes_from_the_settings_unless_the_host_gives_one(make_client, monkeypatch):
    monkeypatch.setenv("RATES_LIVE_SHARE", "0.25")
    client = make_client(persistent=False)
    assert client.settings.live_share == 0.25
    live = LiveScheduler(client, Notified())
    assert live.share == 0.25 and live._limiter.rate == pytest.approx(5.0)
    assert LiveScheduler(client, Notified(), share=0.75).share == 0.75
    monkeypatch.setenv("RATES_LIVE_SHARE", "1.5")
    with pytest.raises(Exception, match="live_share"):
        make_client(persistent=False)
