"""The service misbehaves (the sandbox's fault knobs, real HTTP on loopback): cells stay
right, or say clearly what is wrong, within a bounded time; nothing hangs, nothing is sent
beyond the limits."""

from __future__ import annotations

import time

from rates_xl.client import RatesClient
from rates_xl.functions import FUNCTIONS
from rates_xl.sandbox import PAID_KEY
from tests.reliability.conftest import compute, make_cells
from tests.support.sandbox import free_port
from tests.support.sends import most_in_window, recording_sends
from tests.support.timing import within


def messages(values) -> list[str]:
    return [v for v in values if isinstance(v, str) and v.startswith("#RATES!")]


def test_a_3_second_429_storm_leaves_every_cell_right_with_bounded_retries_inside_the_limit(
        sandbox_factory, use_client, right_answers):
    cells = make_cells(60)  # more cells than the burst, so the limiter has work to do
    expected = right_answers(cells)
    service = sandbox_factory(storm_seconds=3)  # the service's own limits: 20/s, burst 50
    # What this test is about is the 429s being waited out inside the limit, so each cell has
    # 8 s, not a cell's 4 s: 4 s minus a 3 s storm left under 1 s for the retry, which a
    # loaded machine (CI runs 4 test processes on 2 cores) missed in 2 of 4 parallel runs
    # ("0 of 113 bytes in 0.93 s"). A deadline's own rule is tested in tests/client.
    client = use_client(RatesClient(base_url=service.base_url, api_key=PAID_KEY, cell_deadline=8))
    with recording_sends() as sends:
        values = compute(cells)
    stats = client.stats()

    assert sends.count_retries("RateLimited") >= 1, "the storm was not hit: the test proves nothing"
    assert values == expected  # every cell right: the 429s were waited out, not shown or cached
    attempts = client.settings.max_attempts
    assert stats["retries"] <= len(cells) * (attempts - 1)
    assert len(sends.sent) == stats["requests_sent"] <= len(cells) * attempts
    # Never beyond the limit: a 20/s bucket with burst 50 admits at most 50 + 20 W in W seconds.
    for window in (0.01, 0.5, 1.0, 2.0, 5.0):
        assert most_in_window(sends.sent, window) <= 50 + 20 * window, window
    # Right afterwards, new cells go straight through: the storm leaves nothing behind (no
    # Retry-After still obeyed, no breaker open, no 429 of the storm's). A 429 there can only
    # be the sandbox's own rate limit, which the client never earns by sending too much
    # (checked above, from what it sent); under load the server can still see requests the
    # client paced apart bunched together (its key check runs in a thread pool, late and out of
    # order): a clean-clone CI run at load 7-13 met two such 429s 2.46 s after the storm, a
    # full run here at load 12 one at 1.05 s (issue 31). Those are retried like any 429.
    fresh = make_cells(20, offset=100)
    with recording_sends() as after:
        assert compute(fresh) == right_answers(fresh)
    first_answer = min(a.at for a in service.arrivals if a.status == 200)
    leftovers = [round(a.at - first_answer, 3) for a in service.arrivals if a.stormed and a.at > first_answer]
    assert not leftovers, f"the storm's 429s at {leftovers} s after its end"
    late_limit = [a for a in service.arrivals if a.status == 429 and a.at > first_answer]
    assert after.count_retries("RateLimited") <= len(late_limit)  # each one the service's own
    # (A single ServiceUnavailable retry was seen twice in ~100 runs on a loaded machine: a
    # pooled connection the sandbox's uvicorn closed as idle (5 s keep-alive) just as it was
    # reused. That is the transport's concern, not the limiter's; it is noted, not hidden.)
    assert set(after.retries_after) <= {"ServiceUnavailable", "RateLimited"}, after.retries_after


def test_a_storm_longer_than_the_retries_gives_a_clear_429_message_quickly(sandbox_factory, use_client):
    service = sandbox_factory(storm_seconds=30)
    client = use_client(RatesClient(base_url=service.base_url, api_key=PAID_KEY, max_attempts=2,
                                    deadline=2))
    with recording_sends() as sends:
        values = compute(make_cells(10))
    assert all(v.startswith("#RATES! 429 ") and "calculate again" in v for v in values), values
    assert client.stats()["requests_sent"] <= 10 * 2  # bounded: the Retry-After outlives the deadline
    assert len(sends.sent) == client.stats()["requests_sent"]


def test_20_percent_503s_leave_every_cell_right(sandbox_factory, use_client, right_answers):
    cells = make_cells(150)
    expected = right_answers(cells)
    service = sandbox_factory(fail_rate=0.2, rate_limit=1000, burst=1000)
    # 0.2^8 = 2.6e-6 per cell that all attempts fail; see the default-settings test below.
    client = use_client(RatesClient(base_url=service.base_url, api_key=PAID_KEY, rate_limit=1000,
                                    burst=1000, max_attempts=8, backoff=0.01, max_backoff=0.05))
    values = compute(cells)
    assert values == expected
    assert client.stats()["retries"] > 0  # the faults were there


def test_with_default_retries_a_503_outage_shows_each_cell_right_or_a_clear_503(
        sandbox_factory, use_client, right_answers):
    cells = make_cells(150)
    expected = right_answers(cells)
    service = sandbox_factory(fail_rate=0.2, rate_limit=1000, burst=1000)
    use_client(RatesClient(base_url=service.base_url, api_key=PAID_KEY, rate_limit=1000, burst=1000,
                           backoff=0.01, max_backoff=0.05))  # the default 4 attempts
    values = compute(cells)
    for value, right in zip(values, expected, strict=True):
        assert value == right or (value.startswith("#RATES! 503 service error")
                                  and "calculate again" in value), value


def test_answers_slower_than_the_timeout_give_a_clear_message_within_timeout_x_attempts(
        sandbox_factory, use_client):
    service = sandbox_factory(latency_ms=2500)
    timeout, attempts, backoff = 0.5, 2, 0.05
    client = use_client(RatesClient(base_url=service.base_url, api_key=PAID_KEY, timeout=timeout,
                                    max_attempts=attempts, backoff=backoff, max_backoff=backoff))
    cells = make_cells(8)
    started = time.monotonic()
    with recording_sends() as sends:
        values = compute(cells)
    elapsed = time.monotonic() - started
    for value in values:
        assert value == f"#RATES! service unreachable: no answer from the service within {timeout:g} s"
    assert len(sends.sent) == len(cells) * attempts
    # The timeouts end it (timeout x attempts, plus the backoff); without them every attempt
    # would wait for the answer (2.5 s x attempts). Not a speed figure: see tests/support/timing.
    assert elapsed < within(timeout * attempts + backoff * (attempts - 1), 2.5 * attempts)
    assert client.stats()["errors_by_status"] == {"ServiceUnavailable": len(cells)}


def test_service_down_gives_a_clear_message_at_once(monkeypatch, use_client):
    port = free_port()  # nothing listens there: connection refused
    monkeypatch.setenv("RATES_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("RATES_API_KEY", PAID_KEY)
    from rates_xl.functions import get_client, set_client

    set_client(None)  # the functions build their client from the environment, as in Excel
    cells = make_cells(20)
    with recording_sends() as sends:
        values = compute(cells, threads=4)
    for value in values:
        assert value == (f"#RATES! service unreachable: cannot reach the service at "
                         f"http://127.0.0.1:{port} (connection refused)")
    assert len(sends.sent) == len(cells)  # one attempt each: refused is not worth retrying
    assert sends.retries_after == []
    use_client(get_client())  # closed at the end of the test


def test_status_reports_the_outage(monkeypatch, use_client):
    port = free_port()
    use_client(RatesClient(base_url=f"http://127.0.0.1:{port}", api_key=PAID_KEY))
    compute(make_cells(1))
    status = dict((row[0], row[1]) for row in FUNCTIONS["RATES_STATUS"].core())
    assert status["API key"] == "set"
    assert "connection refused" in status["Last error"]

