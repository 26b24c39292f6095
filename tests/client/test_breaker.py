"""The circuit breaker and the per-call time budget (issue 11, point 3).

The breaker's rules on a fake clock first (deterministic), then the client on real HTTP on
loopback: which failures open it, the one probe at a time, and the short budget of the
worksheet functions against the full retry policy of `fetch_many`.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from rates_xl.client import NetworkDown, RatesClient, ServiceUnavailable
from rates_xl.client.breaker import CLOSED, HALF_OPEN, OPEN, CircuitBreaker
from rates_xl.functions import FUNCTIONS, set_client
from tests.client.conftest import SECRET
from tests.support.faultserver import Reply


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def breaker(clock):
    return CircuitBreaker(3, 10.0, clock=clock, wall_clock=lambda: 1_700_000_000.0 + clock.now)


def fail(breaker, clock, cause="no answer from the service within 2 s", seconds=2.0):
    ticket = breaker.admit()
    clock.now += seconds
    breaker.failed(ticket, cause)


# -- the rules, on a fake clock ---------------------------------------------------------------

def test_three_transport_failures_in_a_row_open_it_and_calls_then_fail_at_once(breaker, clock):
    fail(breaker, clock)
    fail(breaker, clock)
    assert breaker.state == CLOSED
    fail(breaker, clock, cause="cannot reach the service at https://x (connection reset)")
    assert breaker.state == OPEN and breaker.is_open
    clock.now += 4
    with pytest.raises(NetworkDown) as caught:
        breaker.admit("fx_spot")
    down = caught.value
    assert down.cause == "cannot reach the service at https://x (connection reset)"
    assert down.failures == 3 and down.endpoint == "fx_spot" and not down.retryable
    assert down.retry_at == pytest.approx(1_700_000_000.0 + clock.now + 6)
    assert str(down) == (f"not trying the service until {time.strftime('%H:%M:%S', time.localtime(down.retry_at))}"
                         " (in 6 s): 3 network failures in a row, the last: cannot reach the service "
                         "at https://x (connection reset)")
    assert isinstance(down, ServiceUnavailable)  # existing handlers keep working


def test_an_http_answer_in_between_starts_the_count_again(breaker, clock):
    fail(breaker, clock)
    fail(breaker, clock)
    breaker.succeeded(breaker.admit())  # a 503 or a 429 is an answer too: the network works
    fail(breaker, clock)
    fail(breaker, clock)
    assert breaker.state == CLOSED


def test_failures_of_attempts_in_flight_together_count_once(breaker, clock):
    """16 concurrent timeouts of one outage are one piece of evidence, not 16."""
    tickets = [breaker.admit() for _ in range(16)]
    clock.now += 2
    for ticket in tickets:
        breaker.failed(ticket, "no answer")
    assert breaker.state == CLOSED
    fail(breaker, clock)  # started after that failure: new evidence
    assert breaker.state == CLOSED
    fail(breaker, clock)
    assert breaker.state == OPEN


def test_after_the_cooldown_exactly_one_probe_at_a_time(breaker, clock):
    for _ in range(3):
        fail(breaker, clock)
    clock.now += 10
    assert breaker.state == HALF_OPEN
    probe = breaker.admit()
    assert probe.probe
    for _ in range(5):  # everyone else fails at once while the probe is out
        with pytest.raises(NetworkDown, match="one test request is under way"):
            breaker.admit()
    breaker.succeeded(probe)
    assert breaker.state == CLOSED
    assert not breaker.admit().probe


def test_a_failed_probe_opens_it_for_another_period(breaker, clock):
    for _ in range(3):
        fail(breaker, clock)
    clock.now += 10
    fail(breaker, clock, cause="no connection", seconds=1)
    assert breaker.state == OPEN
    with pytest.raises(NetworkDown) as caught:
        breaker.admit()
    assert caught.value.failures == 4 and caught.value.cause == "no connection"
    assert "(in 10 s)" in str(caught.value)


def test_a_probe_that_proved_nothing_lets_the_next_one_through(breaker, clock):
    for _ in range(3):
        fail(breaker, clock)
    clock.now += 10
    breaker.released(breaker.admit())  # e.g. refused, or the limiter's deadline came first
    assert breaker.admit().probe


# -- the client, on real HTTP -----------------------------------------------------------------

def test_resets_open_it_and_then_no_request_is_sent(server, make_client):
    server.responder = lambda a: Reply(reset=True)
    client = make_client(max_attempts=4)
    with pytest.raises(ServiceUnavailable, match="connection reset"):
        client.fx_spot("EURUSD")
    assert server.count() == 3  # the 4th attempt was not made: the breaker had opened
    for pair in ("GBPUSD", "USDJPY", "EURGBP"):
        with pytest.raises(NetworkDown, match=r"the last: cannot reach .* \(connection reset\)$"):
            client.fx_spot(pair)
    assert server.count() == 3
    assert client.stats()["breaker"].startswith("open: cannot reach the service at ")


@pytest.mark.parametrize("reply", [
    Reply(status=503, body="Service Unavailable"),
    Reply(status=429, body={"detail": "Too Many Requests"}, headers={"Retry-After": "0"}),
    Reply(status=404, body={"detail": "Fixing not found"}),
    Reply(status=403, body={"detail": "Invalid API key"}),
    Reply(body="<html>a captive portal</html>", headers={"Content-Type": "text/html"}),
])
def test_http_answers_never_open_it(server, make_client, reply):
    server.responder = lambda a: reply
    client = make_client(max_attempts=2)
    for i in range(6):
        try:
            client.discount_factor("SOFR", f"{i + 1}M")
        except NetworkDown:  # pragma: no cover - the failure this test looks for
            raise
        except Exception:
            pass
    assert client.breaker.state == CLOSED
    sent = server.count()
    server.responder = lambda a: Reply()
    assert client.discount_factor("SOFR", "9M").discount_factor == pytest.approx(0.960977)
    assert server.count() == sent + 1


def test_refused_connections_fail_at_once_without_opening_it(make_client):
    client = RatesClient(base_url="http://127.0.0.1:9", api_key=SECRET)
    try:
        for i in range(6):
            with pytest.raises(ServiceUnavailable, match="connection refused"):
                client.discount_factor("SOFR", f"{i + 1}M")
        assert client.breaker.state == CLOSED
        assert client.stats()["requests_sent"] == 6  # one attempt each, as before
    finally:
        client.close()


def test_half_open_lets_one_probe_through_while_other_threads_fail_at_once(server, make_client):
    server.responder = lambda a: Reply(reset=True)
    client = make_client(max_attempts=1, breaker_cooldown=0.3)
    for i in range(3):
        with pytest.raises(ServiceUnavailable):
            client.discount_factor("SOFR", f"{i + 1}M")
    assert client.breaker.state == OPEN
    time.sleep(0.35)
    server.responder = lambda a: Reply(delay=0.5)  # the network is back, the probe is slow
    barrier = threading.Barrier(10)

    def call(i):
        barrier.wait()
        try:
            return client.discount_factor("SOFR", f"{i + 10}M").discount_factor
        except NetworkDown as exc:
            return str(exc)

    with ThreadPoolExecutor(10) as pool:
        results = list(pool.map(call, range(10)))
    answers = [r for r in results if isinstance(r, float)]
    refused = [r for r in results if isinstance(r, str)]
    assert len(answers) == 1 and server.count() == 4  # 3 resets, then exactly one probe
    assert len(refused) == 9 and all("one test request is under way" in r for r in refused)
    assert client.breaker.state == CLOSED
    assert client.discount_factor("SOFR", "30M").discount_factor == pytest.approx(0.960977)


# -- the two time budgets ---------------------------------------------------------------------

def test_a_cell_has_the_short_budget_and_fetch_many_the_full_retry_policy(server, make_client):
    server.responder = lambda a: Reply(delay=1.5)  # slower than a cell may wait, not a failure
    client = make_client(cell_deadline=1.0)
    set_client(client)
    try:
        cell = FUNCTIONS["RATES_FXSPOT"].core("EURUSD")
        assert cell.startswith("#RATES! service unreachable: no answer from the service within 0."), cell
        assert server.count() == 2  # two tries of half the budget each
        key = client.request_key("fx_spot", currency_pair="EURUSD")
        assert client.fetch_many([key])[key].rate == pytest.approx(1.17732)  # timeout 10, deadline 30
        assert server.count() == 3
        assert client.breaker.state == CLOSED  # the answer closed the count again
        assert FUNCTIONS["RATES_FXSPOT"].core("EURUSD") == pytest.approx(1.17732)  # now cached
    finally:
        set_client(None)


def test_a_cell_waiting_on_a_slow_shared_request_gives_up_at_its_own_budget(server, make_client):
    """Coalesced onto a refresh's request (30 s deadline), a cell still waits only its own."""
    server.responder = lambda a: Reply(delay=1.5)
    client = make_client(cell_deadline=0.4)
    set_client(client)
    key = client.request_key("fx_spot", currency_pair="EURUSD")
    try:
        with ThreadPoolExecutor(1) as pool:
            leader = pool.submit(client.fetch_many, [key])
            while server.count() == 0:  # the refresh's request is on the wire
                time.sleep(0.01)
            cell = FUNCTIONS["RATES_FXSPOT"].core("EURUSD")
            assert not leader.done()
            assert cell == "#RATES! service unreachable: no answer within the 0.4 s deadline"
            assert leader.result()[key].rate == pytest.approx(1.17732)
        assert server.count() == 1  # the cell never sent its own request
        assert FUNCTIONS["RATES_FXSPOT"].core("EURUSD") == pytest.approx(1.17732)
    finally:
        set_client(None)


def test_fetch_many_takes_a_budget_too(server, make_client):
    """For a caller that blocks Excel while it fetches (e.g. a ribbon button)."""
    server.responder = lambda a: Reply(delay=1.5)
    client = make_client()
    keys = [client.request_key("fx_spot", currency_pair=p) for p in ("EURUSD", "GBPUSD")]
    results = client.fetch_many(keys, deadline=0.6)
    assert all(isinstance(r, ServiceUnavailable) for r in results.values()), results
    assert all("no answer from the service within 0." in str(r) for r in results.values()), results


def test_a_host_name_dns_cannot_find_counts_as_a_network_failure(make_client):
    """`.invalid` never resolves (RFC 6761): the resolver says so without any traffic."""
    client = RatesClient(base_url="http://rates.invalid", api_key=SECRET, backoff=0.01, max_backoff=0.02)
    set_client(client)
    try:
        first = FUNCTIONS["RATES_FXSPOT"].core("EURUSD")
        later = FUNCTIONS["RATES_FXSPOT"].core("GBPUSD")
    finally:
        set_client(None)
        client.close()
    assert first == ("#RATES! service unreachable: cannot reach the service at http://rates.invalid "
                     "(host name not found by DNS)")
    assert later.startswith("#RATES! network down: cannot reach the service at http://rates.invalid "
                            "(host name not found by DNS), 3 times in a row; not trying again until ")
    assert client.stats()["requests_sent"] == 3
