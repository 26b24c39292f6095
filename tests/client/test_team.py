"""The team backend against a real redis-server and the sandbox over loopback.

The sandbox's own log of arrivals (`RunningSandbox.arrivals`) is the judge of what the
clients sent: how many, how fast, and what it answered; never the clients' own counts.
"""

from __future__ import annotations

import collections
import logging
import socket
import threading
import time

import pytest

from rates_xl.client import AuthError, RatesClient
from rates_xl.sandbox import PAID_KEY, TRIAL_KEY
from tests.support.redis_server import needs_redis
from tests.support.sends import most_in_window
from tests.support.team_worker import run_workers

pytestmark = needs_redis

RATE, BURST = 20, 50  # the service's own limits per key
PAST = "2026-03-10T16:00:00Z"


def _status(client: RatesClient) -> dict:
    from rates_xl.functions import using_client
    from rates_xl.functions.table import FUNCTIONS

    with using_client(client):
        return {row[0]: row[1] for row in FUNCTIONS["RATES_STATUS"].core()}


def _swap(index: str, start: str, maturity: str) -> list:
    return ["swap_rate", {"index": index, "start_date": start, "maturity_date": maturity,
                          "fixed_leg_frequency": "1Y"}]


def _warm_up(service, *indices: str) -> None:
    """Bootstrap the curves first, with another key (its own bucket): the measured run then
    finds the sandbox answering in about a millisecond, as the real service would, and its
    rate-limit checks do not queue behind QuantLib."""
    with RatesClient(base_url=service.base_url, api_key="warm-up-key", persistent=False) as client:
        for index in indices:
            client.swap_curve(index)


def _spec(service, team_url: str, requests: list, start_at: float, **settings) -> dict:
    return {"base_url": service.base_url, "api_key": PAID_KEY, "requests": requests,
            "start_at": start_at, "threads": 8,
            "settings": {"team_url": team_url, "persistent": False, "backoff": 0.05, **settings}}


def test_processes_sharing_a_key_stay_inside_its_limit_and_send_a_shared_request_once(
        sandbox_factory, redis_server):
    service = sandbox_factory(rate_limit=RATE, burst=BURST, extra_keys={"warm-up-key": "paid"})
    _warm_up(service, "ESTR", "SOFR")
    shared = [_swap("ESTR", "0D", f"{m}Y") for m in range(1, 21)]
    specs = []
    start_at = time.time() + 4  # every process starts together, once all have imported
    for worker in range(4):
        own = [_swap("SOFR", f"{worker + 1}M", f"{m}Y") for m in range(1, 31)]
        specs.append(_spec(service, redis_server.url, shared + own, start_at))
    results = run_workers(specs)

    arrivals = [a for a in service.arrivals if a.at >= start_at - 1]
    for result in results:
        assert result["errors"] == [] and result["answered"] == 50, result["errors"]
        assert result["stats"]["team"].startswith("up"), result["stats"]["team"]
    statuses = collections.Counter(a.status for a in arrivals)
    assert statuses == {200: 4 * 30 + 20}, statuses  # no 429, nothing sent twice
    per_request = collections.Counter((a.path, a.query) for a in arrivals)
    assert max(per_request.values()) == 1, per_request.most_common(3)
    times = [a.at for a in arrivals]
    for window in (0.05, 0.1, 0.5, 1.0, 2.0, 4.0):
        assert most_in_window(times, window) <= BURST + RATE * window, window
    # The bucket really was the bottleneck: past the burst the clients waited for it.
    assert sum(r["stats"]["throttled_waits"] for r in results) > 0
    # Each shared request: one process sent it, the three others were given its answer.
    assert sum(r["stats"]["team_hits"] + r["stats"]["team_waits"] for r in results) == 3 * 20


def test_redis_killed_mid_run_every_cell_still_answers_from_the_local_tier(sandbox_factory, redis_server):
    service = sandbox_factory(rate_limit=RATE, burst=10)
    start_at = time.time() + 4
    specs = [_spec(service, redis_server.url, [_swap("SOFR", f"{w + 1}M", f"{m}Y") for m in range(1, 41)],
                   start_at, team_retry=0.5, max_attempts=8, deadline=60)
             for w in range(2)]
    killer = threading.Timer(start_at + 1.5 - time.time(), redis_server.kill)
    killer.start()
    try:
        results = run_workers(specs)
    finally:
        killer.cancel()
    assert redis_server.process.poll() is not None, "redis was not killed during the run"
    for result in results:
        assert result["errors"] == [] and result["answered"] == 40, result["errors"]
        assert result["stats"]["team"].startswith("down"), result["stats"]["team"]
    assert len([a for a in service.arrivals if a.status == 200 and a.at >= start_at - 1]) == 80


def test_a_client_falls_back_at_once_and_reconnects_by_itself(sandbox, redis_server, caplog):
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, team_url=redis_server.url,
                         team_retry=0.3, persistent=False)
    try:
        client.swap_rate("SOFR", "0D", "2Y", "1Y")
        assert client.stats()["team"].startswith("up")
        redis_server.kill()
        assert client.swap_rate("SOFR", "0D", "3Y", "1Y").swap_rate > 0
        state = client.stats()["team"]
        assert state.startswith("down") and "connection refused" in state, state
        assert sum("unreachable" in r.getMessage() for r in caplog.records) == 1  # one warning
        assert _status(client)["Team"].startswith("down since")  # RATES_STATUS says so
        assert client.swap_rate("SOFR", "0D", "4Y", "1Y").swap_rate > 0  # still down: local
        redis_server.start()  # the same port again
        time.sleep(0.4)
        client.swap_rate("SOFR", "0D", "5Y", "1Y")
        assert client.stats()["team"].startswith("up"), client.stats()["team"]
        assert _status(client)["Team"].startswith("up (redis://127.0.0.1")
        assert redis_server.client().dbsize() > 0  # sharing again
    finally:
        client.close()


def test_a_redis_that_never_answers_costs_one_timeout_not_a_hang(sandbox):
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)  # the kernel completes connections; nothing ever replies
    url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, team_url=url,
                         team_timeout=0.2, persistent=False)
    answers: list = []
    worker = threading.Thread(target=lambda: answers.extend(
        client.swap_rate("SOFR", "0D", f"{m}Y", "1Y").swap_rate for m in (1, 2, 3)))
    try:
        worker.start()
        worker.join(20)
        assert not worker.is_alive(), "a silent Redis hung the client"
        assert len(answers) == 3
        state = client.stats()["team"]
        assert state.startswith("down") and "no answer in time" in state, state
    finally:
        client.close()
        silent.close()


def test_answers_are_scoped_by_a_fingerprint_of_the_key_and_the_key_never_reaches_redis(
        sandbox_factory, redis_server):
    other_paid = "team-b-paid-key-0123456789"
    service = sandbox_factory(rate_limit=1000, burst=1000, extra_keys={other_paid: "paid"})

    def client(key):
        return RatesClient(base_url=service.base_url, api_key=key, team_url=redis_server.url,
                           persistent=False)

    paid, trial, team_b = client(PAID_KEY), client(TRIAL_KEY), client(other_paid)
    try:
        args = ("SOFR", "0D", "10Y", "1Y")
        assert paid.swap_rate(*args, valuation_time=PAST).swap_rate > 0
        assert paid.stats()["requests_sent"] == 1
        with pytest.raises(AuthError):  # the trial key is refused; the paid answer is not its
            trial.swap_rate(*args, valuation_time=PAST)
        assert trial.stats()["requests_sent"] == 1 and trial.stats()["team_hits"] == 0
        team_b.swap_rate(*args, valuation_time=PAST)
        assert team_b.stats()["requests_sent"] == 1 and team_b.stats()["team_hits"] == 0
        # A second process of the first team is served from Redis.
        again = client(PAID_KEY)
        assert again.swap_rate(*args, valuation_time=PAST).swap_rate == paid.swap_rate(
            *args, valuation_time=PAST).swap_rate
        assert again.stats()["requests_sent"] == 0 and again.stats()["team_hits"] == 1
        again.close()
        stored = redis_server.client()
        blob = b" ".join(name + b" " + (stored.dump(name) or b"") for name in stored.scan_iter())
        for key in (PAID_KEY, TRIAL_KEY, other_paid):
            assert key.encode() not in blob and key[: len(key) // 2].encode() not in blob
    finally:
        for c in (paid, trial, team_b):
            c.close()


def test_a_warm_cell_touches_neither_redis_nor_the_disk(sandbox, redis_server, tmp_path):
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, team_url=redis_server.url,
                         cache_dir=str(tmp_path))
    try:
        history = ("SOFR", "10Y", "2025-01-02", "2025-03-31")
        client.historical_swap_rates(*history)
        client.swap_rate("SOFR", "0D", "10Y", "1Y")
        server = redis_server.client()
        commands_before = server.info("stats")["total_commands_processed"]
        disk_before = client.cache.disk.info()
        for _ in range(500):
            client.historical_swap_rates(*history)
            client.swap_rate("SOFR", "0D", "10Y", "1Y")
        commands_after = server.info("stats")["total_commands_processed"]
        disk_after = client.cache.disk.info()
        assert commands_after - commands_before == 1  # the INFO call itself
        assert (disk_after["hits"], disk_after["misses"]) == (disk_before["hits"], disk_before["misses"])
        assert client.stats()["requests_sent"] == 2
    finally:
        client.close()


def test_a_refusal_is_shared_and_a_fresh_since_refresh_fetches_again(sandbox, redis_server):
    def client():
        return RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, team_url=redis_server.url,
                           persistent=False)

    first, second = client(), client()
    try:
        from rates_xl.client import Unprocessable

        with pytest.raises(Unprocessable):
            first.swap_rate("NOPE", "0D", "10Y", "1Y")
        with pytest.raises(Unprocessable):
            second.swap_rate("NOPE", "0D", "10Y", "1Y")
        assert second.stats()["requests_sent"] == 0
        first.swap_rate("SOFR", "0D", "7Y", "1Y")
        with second.fresh_since(time.time()):
            second.swap_rate("SOFR", "0D", "7Y", "1Y")
        assert second.stats()["requests_sent"] == 1
    finally:
        first.close()
        second.close()


def test_doctor_reports_the_team_backend(redis_server, monkeypatch, tmp_path):
    from rates_xl.addin import doctor

    monkeypatch.setenv("RATES_API_KEY", PAID_KEY)
    monkeypatch.setenv("RATES_TEAM_URL", redis_server.url)
    check = doctor.check_caches()
    assert check.state == doctor.OK and "team: up (redis://127.0.0.1" in check.detail, check
    assert "persistent: 0 answers in" in check.detail
    redis_server.kill()
    check = doctor.check_caches()
    assert check.state == doctor.WARN and "connection refused" in check.detail, check
    assert "works solo" in check.fix
    monkeypatch.setenv("RATES_TEAM_URL", "http://not-redis")
    check = doctor.check_caches()
    assert check.state == doctor.FAIL and "not a Redis URL" in check.detail, check


def test_a_waiter_takes_over_when_the_holder_of_a_claim_fails(server, redis_server):
    """A fetches and fails (a slow 503, one attempt); B, waiting for A's answer meanwhile,
    takes the claim once A lets go and fetches for itself."""
    from rates_xl.client import ServerError
    from tests.support.faultserver import Reply

    calls = []

    def reply(arrival):
        calls.append(arrival)
        return Reply(status=503, delay=0.6) if len(calls) == 1 else Reply(delay=0.05)

    server.responder = reply

    def client():
        return RatesClient(base_url=server.base_url, api_key="sk-team-claim-test", team_url=redis_server.url,
                           persistent=False, max_attempts=1)

    first, second = client(), client()
    outcome: dict = {}

    def ask(name, c):
        try:
            outcome[name] = c.swap_rate("SOFR", "0D", "10Y", "1Y").swap_rate
        except ServerError as exc:
            outcome[name] = exc

    try:
        a = threading.Thread(target=ask, args=("first", first))
        a.start()
        time.sleep(0.2)  # the first holds the claim and waits for its 503
        b = threading.Thread(target=ask, args=("second", second))
        b.start()
        a.join(10)
        b.join(10)
        assert isinstance(outcome["first"], ServerError)
        assert isinstance(outcome["second"], float)
        assert len(calls) == 2  # the second waited, then asked once itself
        assert second.stats()["team_waits"] == 0 and second.stats()["requests_sent"] == 1
    finally:
        first.close()
        second.close()


def test_a_password_in_the_team_url_is_used_and_never_shown(sandbox, redis_server, caplog):
    redis_server.client().config_set("requirepass", "s3cret-team-pw")
    base = f"127.0.0.1:{redis_server.port}/0"
    with_password = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, persistent=False,
                                team_url=f"redis://:s3cret-team-pw@{base}")
    without = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, persistent=False,
                          team_url=f"redis://{base}")
    try:
        with caplog.at_level(logging.DEBUG):
            with_password.swap_rate("SOFR", "0D", "2Y", "1Y")
            without.swap_rate("SOFR", "0D", "2Y", "1Y")
        assert with_password.stats()["team"] == f"up (redis://***@{base})"
        assert "refused the credentials" in without.stats()["team"]
        shown = " ".join([str(with_password.stats()), repr(with_password), repr(with_password.settings),
                          str(with_password.settings.model_dump()), caplog.text,
                          str(_status(with_password))])
        assert "s3cret-team-pw" not in shown
    finally:
        with_password.close()
        without.close()
