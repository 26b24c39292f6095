"""The team backend against a real redis-server and the sandbox over loopback.

The sandbox's own log of arrivals (`RunningSandbox.arrivals`) is the judge of what the
clients sent: how many, how fast, and what it answered; never the clients' own counts.
"""

from __future__ import annotations

import collections
import logging
import re
import socket
import threading
import time
from urllib.parse import parse_qs

import pytest

from rates_xl.client import AuthError, RatesClient
from rates_xl.sandbox import PAID_KEY, TRIAL_KEY
from tests.support.redis_server import needs_redis
from tests.support.sends import most_in_window
from tests.support.team_worker import run_workers
from tests.support.timing import within

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


def test_a_server_running_many_batches_at_once_keeps_to_the_shared_limit(sandbox_factory, redis_server):
    """Two processes each run 8 batches at once on 16 fetch threads apiece, as a team
    server's batch pool does: 128 threads ask Redis together, more than the connection
    pool's size (2 x 16 + 2). Before: the pool raised "Too many connections", the process
    took that for Redis being down and sent on its own at the whole rate (it had not heard
    yet how many share the bucket) for `team_retry` seconds: 202 429s in a 2,000-cell run
    of `bench team_serve`, and 40 to 70 here. Now a thread waits for a free connection."""
    service = sandbox_factory(rate_limit=RATE, burst=BURST, extra_keys={"warm-up-key": "paid"})
    _warm_up(service, "SOFR")
    start_at = time.time() + 4
    # What is tested is a full connection pool, not Redis's speed: the default 0.25 s limit on
    # one Redis operation is what 128 threads of a process can miss on a loaded machine (under
    # `stress --cpu 4` one was marked down "no answer in time", which is that limit working),
    # so each operation here has 5 s.
    specs = [{**_spec(service, redis_server.url,
                      [_swap("SOFR", f"{w * 8 + n % 8 + 1}M", f"{n // 8 + 1}Y") for n in range(128)],
                      start_at, max_attempts=8, deadline=60, team_retry=30, team_timeout=5.0),
              "threads": 16, "batches": 8}
             for w in range(2)]
    results = run_workers(specs, timeout=180)
    statuses = collections.Counter(a.status for a in service.arrivals if a.at >= start_at - 1)
    assert statuses == {200: 256}, statuses
    for result in results:
        assert result["errors"] == [] and result["answered"] == 128, result["errors"]
        assert result["stats"]["team_outages"] == 0, result["stats"]["team"]


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


def test_a_call_under_way_when_another_fails_does_not_report_the_team_up(redis_server):
    """One thread's call fails (the link is down for `team_retry`, calls refused at once)
    while another thread's call, slowed 150 ms by Redis, then succeeds. Before: that late
    success cleared the outage, so RATES_STATUS said "up" while every call went solo (seen
    with 128 threads in the multi-batch test). Now only a call made after the failure does."""
    from rates_xl.client.team import _DOWN, TeamLink

    link = TeamLink(redis_server.url, "status", timeout=0.25, retry_every=30)
    try:
        assert link.ping()
        redis_server.client().execute_command("CLIENT", "PAUSE", "150", "ALL")
        slow = threading.Thread(target=lambda: link.call(lambda r: r.get("rates-xl:v1:status:x")))
        slow.start()
        time.sleep(0.05)

        def fails(r):
            raise ConnectionError("this thread's connection was reset")

        assert link.call(fails) is _DOWN
        slow.join(5)
        assert link.call(lambda r: r.ping()) is _DOWN  # refused for team_retry
        assert link.describe().startswith("down since"), link.describe()
    finally:
        link.close()


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
    from rates_xl.addin import doctor, doctor_check

    monkeypatch.setenv("RATES_API_KEY", PAID_KEY)
    monkeypatch.setenv("RATES_TEAM_URL", redis_server.url)
    check = doctor.check_caches()
    assert check.state == doctor_check.OK and "team: up (redis://127.0.0.1" in check.detail, check
    assert "persistent: 0 answers in" in check.detail
    redis_server.kill()
    check = doctor.check_caches()
    assert check.state == doctor_check.WARN and "connection refused" in check.detail, check
    assert "works solo" in check.fix
    monkeypatch.setenv("RATES_TEAM_URL", "http://not-redis")
    check = doctor.check_caches()
    assert check.state == doctor_check.FAIL and "not a Redis URL" in check.detail, check


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


# -- what someone who can write to the team's Redis, but has no API key, can do --------------

def _stored_entry(redis_client, request_text: str) -> tuple[bytes, bytes, dict]:
    """The Redis key holding the answer to `request_text`, the bytes before its JSON (the MAC,
    where there is one) and the JSON record."""
    import json

    for name in redis_client.scan_iter(match="rates-xl:*", _type="string"):
        value = redis_client.get(name)
        if value is None or b"{" not in value:
            continue
        head, brace, body = value.partition(b"{")
        record = json.loads(brace + body)
        if isinstance(record, dict) and record.get("k") == request_text:
            return name, head, record
    raise AssertionError(f"no stored answer for {request_text}")


def _team_client(service, key=PAID_KEY, **settings):
    return RatesClient(base_url=service.base_url, api_key=key, persistent=False, **settings)


def test_an_answer_edited_in_redis_is_not_served(sandbox, redis_server, caplog):
    import json

    from rates_xl.client.tiers import request_text

    first = _team_client(sandbox, team_url=redis_server.url)
    second = _team_client(sandbox, team_url=redis_server.url)
    try:
        real = first.swap_rate("SOFR", "0D", "10Y", "1Y").swap_rate
        key = first.request_key("swap_rate", index="SOFR", start_date="0D", maturity_date="10Y",
                                fixed_leg_frequency="1Y")
        store = redis_server.client()
        name, head, record = _stored_entry(store, request_text(key))
        record["v"]["swap_rate"], record["ttl"] = 99.99, 1e9
        store.set(name, head + json.dumps(record, separators=(",", ":")).encode(), ex=10**9)

        with caplog.at_level(logging.WARNING):
            served = second.swap_rate("SOFR", "0D", "10Y", "1Y").swap_rate
            second.swap_rate("SOFR", "0D", "10Y", "1Y")  # again: from memory, the real one
        assert served == real and served != 99.99
        stats = second.stats()
        assert stats["requests_sent"] == 1 and stats["team_hits"] == 0, stats
        assert stats["team_refused"] >= 1  # each read of it is refused
        warnings = [r.getMessage() for r in caplog.records if "failed authentication" in r.getMessage()]
        assert len(warnings) == 1 and PAID_KEY not in caplog.text
        # The refused entry was overwritten by the real answer, which a third client trusts.
        third = _team_client(sandbox, team_url=redis_server.url)
        assert third.swap_rate("SOFR", "0D", "10Y", "1Y").swap_rate == real
        assert third.stats()["requests_sent"] == 0 and third.stats()["team_hits"] == 1
        third.close()
    finally:
        first.close()
        second.close()


def test_an_entry_moved_to_another_request_or_from_another_key_is_refused(sandbox_factory, redis_server):
    other_key = "team-b-paid-key-0123456789"
    service = sandbox_factory(rate_limit=1000, burst=1000, extra_keys={other_key: "paid"})
    from rates_xl.client.tiers import key_fingerprint, request_text

    ours = _team_client(service, team_url=redis_server.url)
    theirs = _team_client(service, other_key, team_url=redis_server.url)
    reader = _team_client(service, team_url=redis_server.url)
    store = redis_server.client()
    try:
        def key(client, maturity):
            return client.request_key("swap_rate", index="SOFR", start_date="0D",
                                      maturity_date=maturity, fixed_leg_frequency="1Y")

        # Moved: the 2Y answer copied over the 3Y one, record and all.
        ours.swap_rate("SOFR", "0D", "2Y", "1Y")
        ours.swap_rate("SOFR", "0D", "3Y", "1Y")
        two, _, _ = _stored_entry(store, request_text(key(ours, "2Y")))
        three, _, _ = _stored_entry(store, request_text(key(ours, "3Y")))
        store.set(three, store.get(two))
        assert reader.swap_rate("SOFR", "0D", "3Y", "1Y").swap_rate != ours.swap_rate("SOFR", "0D", "2Y", "1Y").swap_rate
        assert reader.stats()["requests_sent"] == 1 and reader.stats()["team_hits"] == 0

        # From another key: team B's answer copied into our key's place for the same request.
        theirs.swap_rate("SOFR", "0D", "5Y", "1Y")
        their_name, _, _ = _stored_entry(store, request_text(key(theirs, "5Y")))
        our_name = their_name.replace(key_fingerprint(service.base_url, other_key).encode(),
                                      key_fingerprint(service.base_url, PAID_KEY).encode())
        store.set(our_name, store.get(their_name))
        reader.swap_rate("SOFR", "0D", "5Y", "1Y")
        assert reader.stats()["requests_sent"] == 2 and reader.stats()["team_hits"] == 0
        assert reader.stats()["team_refused"] >= 2
    finally:
        for client in (ours, theirs, reader):
            client.close()


def test_a_teammate_with_longer_ttls_does_not_make_us_keep_an_answer_longer(sandbox, redis_server):
    writer = _team_client(sandbox, team_url=redis_server.url, ttl_live=10**6)
    reader = _team_client(sandbox, team_url=redis_server.url, ttl_live=1.0)
    try:
        writer.swap_rate("SOFR", "0D", "6Y", "1Y")
        reader.swap_rate("SOFR", "0D", "6Y", "1Y")
        assert reader.stats()["requests_sent"] == 0 and reader.stats()["team_hits"] == 1
        time.sleep(1.2)  # past the reader's own TTL, far inside the writer's
        reader.swap_rate("SOFR", "0D", "6Y", "1Y")
        assert reader.stats()["requests_sent"] == 1, reader.stats()
    finally:
        writer.close()
        reader.close()


def test_a_claim_written_by_someone_else_delays_a_cell_but_does_not_fail_it(sandbox, redis_server):
    client = _team_client(sandbox, team_url=redis_server.url)
    try:
        key = client.request_key("swap_rate", index="SOFR", start_date="0D", maturity_date="8Y",
                                 fixed_leg_frequency="1Y")
        redis_server.client().set(client.cache.team.claim_key(key), "not-a-teammate", ex=3600)
        started = time.monotonic()
        answer = client.get_key(key, deadline=4.0)
        elapsed = time.monotonic() - started
        # It waited about half its budget for the "teammate" (a lower bound: load only adds), and
        # kept the rest to fetch: the answer came within the 4 s budget, which would be spent
        # had it waited the whole of it on the claim.
        assert answer.swap_rate > 0 and client.stats()["requests_sent"] == 1
        assert elapsed >= 4.0 / 2 * 0.9, elapsed
    finally:
        client.close()


# -- failovers start from what the service's bucket may still hold, not a full burst ---------
# Half the service's rate and a smaller burst: a burst the limiter wrongly allows then goes
# out faster than the service refills even on a loaded machine, and the fills stay short.
SLOW_RATE, SLOW_BURST = 10, 20

def _fill(service, redis_url: str, count: int, tag: str, **settings) -> RatesClient:
    """A client that asks `count` distinct swap rates at once through the team."""
    client = _team_client(service, team_url=redis_url, max_workers=8, backoff=0.05,
                          rate_limit=SLOW_RATE, burst=SLOW_BURST, **settings)
    keys = [client.request_key("swap_rate", index="SOFR", start_date=f"{n % 11 + 1}M",
                               maturity_date=f"{n // 11 + 1}Y", fixed_leg_frequency=tag)
            for n in range(count)]
    results = client.fetch_many(keys)
    assert not [v for v in results.values() if not hasattr(v, "swap_rate")], results
    return client


def test_redis_killed_and_restarted_empty_mid_fill_draws_no_429(sandbox_factory, redis_server):
    """Four processes fill 100 requests together (8 s at the service's 10/s); Redis dies
    30 requests in, comes back empty 1.5 s later. The local buckets that take over, each at
    its share of the rate, and the shared one on Redis' return, all start empty: the
    service's bucket was drained by the requests just sent."""
    service = sandbox_factory(rate_limit=SLOW_RATE, burst=SLOW_BURST, extra_keys={"warm-up-key": "paid"})
    _warm_up(service, "SOFR")
    warm = len(service.arrivals)
    start_at = time.time() + 4
    specs = [_spec(service, redis_server.url,
                   [_swap("SOFR", f"{w * 10 + n % 10 + 1}M", f"{n // 10 + 1}Y") for n in range(25)],
                   start_at, team_retry=0.3, max_attempts=8, deadline=60,
                   rate_limit=SLOW_RATE, burst=SLOW_BURST)
             for w in range(4)]
    def under_way() -> bool:
        """30 requests in, and every process among them (its start dates are its own), so
        each has learnt from Redis how many share the bucket."""
        queries = [parse_qs(a.query) for a in list(service.arrivals)[warm:]]
        months = [q["start_date"][0] for q in queries if "start_date" in q]  # (not /health etc.)
        workers = {(int(m.rstrip("M")) - 1) // 10 for m in months}
        return len(months) >= 30 and len(workers) == 4

    outage = redis_server.restart_empty_when(under_way, down=1.5)
    results = run_workers(specs)
    outage.join(10)
    assert outage.fired, "the fill never got 30 requests in from all 4 processes: Redis was not killed mid-fill"
    assert redis_server.process.poll() is None and not outage.is_alive(), "Redis did not come back"
    for result in results:
        assert result["errors"] == [] and result["answered"] == 25, result["errors"]
    assert any(r["stats"]["team"].startswith("up") for r in results)  # it came back
    statuses = collections.Counter(a.status for a in list(service.arrivals)[warm:])
    # Before the limiter started empty on failover: 42 to 53 429s here. Then 1 or 2 in 2 of 6
    # runs; with threads waiting for their process's hand-over, 2 of 14 runs, and 4 in one CI
    # run beside other work: the processes came back to Redis at different moments, and the
    # first back took the whole rate while the others still sent at their shares. With the
    # shared bucket at the share of those back until all are (the test below): 0 in 23 runs
    # beside 2 to 4 busy processes (docs/reliability.md).
    assert statuses[429] == 0 and statuses[200] >= 100, statuses  # (a timed-out attempt may be sent twice)


def test_threads_that_ask_while_the_process_hands_over_to_redis_wait_for_it(redis_server):
    """Back from an outage one thread hands over, telling Redis what the local bucket still
    has scheduled. Redis is made to take 150 ms over that answer (CLIENT PAUSE), and 8
    threads ask meanwhile, then keep asking. Before: they took local slots during the
    hand-over, which the backlog Redis was told did not include, and Redis scheduled the
    next requests on top of them: more than the rate in a window (the "hand-over race"
    behind the 429 or two after a Redis restart). Now they wait for the hand-over and take
    their slots from Redis: the slots given keep to the rate."""
    from rates_xl.client.limiter import TokenBucket
    from rates_xl.client.team import TeamLimiter, TeamLink

    rate, burst = 10, 20
    link = TeamLink(redis_server.url, "race", timeout=0.25, retry_every=0.2)
    limiter = TeamLimiter(link, TokenBucket(rate, burst), burst)
    try:
        limiter.acquire(time.monotonic() + 5)
        redis_server.kill()
        limiter.acquire(time.monotonic() + 5)  # local now, empty
        assert limiter.local_acquires == 1
        redis_server.start()
        time.sleep(0.3)  # past retry_every: the next acquire hands over
        redis_server.client().execute_command("CLIENT", "PAUSE", "150", "WRITE")
        slots: list[float] = []
        lock = threading.Lock()
        # Each slot as Redis scheduled it (when the thread is told to wait until), not when the
        # thread got the CPU back: with CI's 4 test processes on 2 cores, late wake-ups bunched
        # paced slots into "11 in 0.5 s". A local slot (the old race) counts when it is taken.
        scheduled = threading.local()

        def sleep_until_slot(wait: float) -> None:
            scheduled.at = time.monotonic() + wait
            time.sleep(wait)

        limiter._sleep = sleep_until_slot

        def ask(times: int) -> None:
            for _ in range(times):
                scheduled.at = None
                limiter.acquire(time.monotonic() + 30)
                with lock:
                    slots.append(scheduled.at if scheduled.at is not None else time.monotonic())

        handing = threading.Thread(target=ask, args=(1,))
        handing.start()
        time.sleep(0.05)  # the hand-over is waiting for Redis
        others = [threading.Thread(target=ask, args=(3,)) for _ in range(8)]
        for thread in others:
            thread.start()
        for thread in (handing, *others):
            thread.join(60)
        assert len(slots) == 25
        for window in (0.5, 1.0, 2.0):
            assert most_in_window(slots, window) <= rate * window + 2, (window, most_in_window(slots, window))
    finally:
        link.close()


def test_a_redis_restarted_empty_paces_the_first_back_at_their_share_until_all_are(redis_server):
    """Four processes share the bucket; Redis restarts empty. Those still on their local
    buckets send at a quarter of the rate each until their `team_retry` comes round, so the
    shared bucket gives the first back one slot every 4 intervals, the second's pair one every
    2, and the whole rate once the fourth is back. Before, the first back had the whole rate
    while three others still sent at their shares: 1.75 times the rate, the restart's
    occasional 429s (4 in a CI run on a busy machine). Read from the bucket's own state in
    Redis (its next slot, on Redis' clock), so nothing here depends on timing."""
    from rates_xl.client.limiter import TokenBucket
    from rates_xl.client.team import TeamLimiter, TeamLink

    rate, burst, interval_us = 10, 20, 100_000
    links = [TeamLink(redis_server.url, "restart", timeout=1.0, retry_every=0.05) for _ in range(4)]
    team = [TeamLimiter(link, TokenBucket(rate, burst), burst, sleep=lambda wait: None) for link in links]
    bucket = links[0].prefix + "bucket"
    try:
        for _ in range(2):  # the second round: every one has heard there are 4
            for member in team:
                member.acquire(time.monotonic() + 60)
        assert [member.members for member in team] == [4, 4, 4, 4]
        redis_server.kill()
        redis_server.start()
        for link in links:  # each finds Redis gone, then back (not through its limiter)
            until = time.monotonic() + 10
            while not link.ping() and time.monotonic() < until:
                time.sleep(0.02)
        redis = redis_server.client()

        def step(member) -> int:
            before = int(redis.get(bucket) or 0)
            member.acquire(time.monotonic() + 60)
            return int(redis.get(bucket)) - before

        first, second, third, fourth = team
        step(first)  # finds the restart: starts empty, writes the recovery count
        assert redis.get(links[0].prefix + "recovering") == b"4"
        assert 0 < redis.pttl(links[0].prefix + "recovering") <= (2 * 0.05 + 1.0) * 1000
        assert [step(first), step(first)] == [4 * interval_us] * 2
        assert first.members == 4  # a second failover would take a quarter, not the whole rate
        assert [step(second), step(first)] == [2 * interval_us] * 2
        assert round(step(third)) == round(4 * interval_us / 3)
        assert [step(fourth), step(first), step(third)] == [interval_us] * 3
        assert redis.get(links[0].prefix + "recovering") is None
        assert [member.local_acquires for member in team] == [0, 0, 0, 0]
    finally:
        for link in links:
            link.close()


def test_a_recovery_count_someone_else_wrote_is_ignored_and_deleted(redis_server):
    """Whoever can write to Redis may write the recovery count: one that is not a whole
    number from 1 to 1000 is deleted, logged as ignored, and the bucket keeps the whole rate."""
    from rates_xl.client.limiter import TokenBucket
    from rates_xl.client.team import TeamLimiter, TeamLink

    link = TeamLink(redis_server.url, "forged", timeout=1.0, retry_every=0.05)
    limiter = TeamLimiter(link, TokenBucket(10, 20), 20, sleep=lambda wait: None)
    redis = redis_server.client()
    try:
        limiter.acquire(time.monotonic() + 60)
        for forged in (b"lots", b"1e9", b"2.5", b"0"):
            redis.set(link.prefix + "recovering", forged)
            before = int(redis.get(link.prefix + "bucket"))
            limiter.acquire(time.monotonic() + 60)
            assert int(redis.get(link.prefix + "bucket")) - before == 100_000, forged
            assert redis.get(link.prefix + "recovering") is None, forged
        assert limiter._warned
    finally:
        link.close()


def test_a_redis_restarted_empty_does_not_hand_a_newcomer_a_full_burst(sandbox_factory, redis_server):
    """The restart happens between two clients' fills: the second never saw an outage, and
    finds no state in Redis. Without the marker it would take a full burst from a service
    whose bucket the first has just emptied."""
    service = sandbox_factory(rate_limit=SLOW_RATE, burst=SLOW_BURST, extra_keys={"warm-up-key": "paid"})
    _warm_up(service, "SOFR")
    started = time.time()
    _fill(service, redis_server.url, 40, "1Y").close()
    redis_server.kill()
    redis_server.start()
    _fill(service, redis_server.url, 40, "6M").close()
    statuses = collections.Counter(a.status for a in service.arrivals if a.at >= started)
    assert statuses[429] == 0 and statuses[200] == 80, statuses


# -- the documented Redis set-up -----------------------------------------------------------

def _documented_acl() -> list[str]:
    from pathlib import Path

    docs = Path(__file__).resolve().parents[2] / "docs" / "caches.md"
    [line] = [line.strip() for line in docs.read_text().splitlines()
              if line.strip().startswith("ACL SETUSER rates-xl")]
    return line.split()


def _use_the_team_servers_shared_state(link) -> None:
    """What a team server's workers keep in Redis: a fair-share turn and a batch's count."""
    import asyncio

    from rates_xl.addin.officejs.fairness import FairShare, Usage
    from rates_xl.addin.officejs.shared_fairness import SharedFairShare, SharedUsage

    fair, usage = SharedFairShare(link, FairShare()), SharedUsage(link, Usage())

    async def one_turn() -> None:
        async with fair.turn("alice@corp.example"):
            usage.record("alice@corp.example", cells=3, requests_sent=2, error="a cell's error")

    asyncio.run(one_turn())
    assert usage.of("alice@corp.example")["requests_sent"] == 2
    assert usage.team() == {"users": 1, "batches": 1, "cells": 3, "requests_sent": 2}


def test_the_documented_acl_user_is_enough_and_no_more(sandbox, redis_server):
    import redis

    admin = redis_server.client()
    words = _documented_acl()
    words = [">acl-test-pw" if word.startswith(">") else word for word in words]
    admin.execute_command(*words)
    admin.execute_command("ACL", "LOG", "RESET")
    url = f"redis://rates-xl:acl-test-pw@127.0.0.1:{redis_server.port}/0"
    first = _team_client(sandbox, team_url=url)
    second = _team_client(sandbox, team_url=url)
    try:
        for maturity in ("2Y", "3Y"):
            first.swap_rate("SOFR", "0D", maturity, "1Y")
            second.swap_rate("SOFR", "0D", maturity, "1Y")
        assert second.stats()["requests_sent"] == 0 and second.stats()["team_hits"] == 2
        assert first.limiter.shared_acquires == 2 and first.limiter.local_acquires == 0
        admin.script_flush()  # Redis forgot the scripts: they are loaded again
        first.swap_rate("SOFR", "0D", "4Y", "1Y")
        assert first.limiter.shared_acquires == 3
        assert first.cache.team.clear_scope() == 3  # rates-xl cache clear --team
        assert first.stats()["team"].startswith("up"), first.stats()["team"]
        _use_the_team_servers_shared_state(first.team_link)
        assert admin.acl_log() == []  # nothing rates-xl did was refused
        admin.set("someone-elses-key", "x")
        restricted = redis.Redis.from_url(url)
        for command in (("GET", "someone-elses-key"), ("FLUSHALL",), ("CONFIG", "GET", "*"), ("KEYS", "*")):
            with pytest.raises(redis.exceptions.NoPermissionError):
                restricted.execute_command(*command)
        restricted.close()
    finally:
        first.close()
        second.close()


def test_a_tls_redis_is_used_with_the_root_named_in_the_url(sandbox, tls_redis_server):
    url = f"{tls_redis_server.url}?ssl_ca_certs={tls_redis_server.ca_pem}"
    assert url.startswith("rediss://")
    first = _team_client(sandbox, team_url=url)
    second = _team_client(sandbox, team_url=url)
    untrusted = _team_client(sandbox, team_url=tls_redis_server.url)  # the OS store only
    try:
        first.swap_rate("SOFR", "0D", "2Y", "1Y")
        second.swap_rate("SOFR", "0D", "2Y", "1Y")
        assert second.stats()["team_hits"] == 1 and second.stats()["requests_sent"] == 0
        assert first.stats()["team"] == f"up (rediss://127.0.0.1:{tls_redis_server.port}/0)"
        # A root the OS does not know: not trusted, the client works solo and says why.
        assert untrusted.swap_rate("SOFR", "0D", "2Y", "1Y").swap_rate > 0
        state = untrusted.stats()["team"]
        assert state.startswith("down") and "certificate" in state, state
    finally:
        for client in (first, second, untrusted):
            client.close()


def test_a_cell_behind_a_dead_claim_keeps_to_its_budget(server, redis_server):
    """A claim left by a "teammate" that never answers, and a service slower than what is
    left: the cell waits half its budget on the claim, then its own fetch gets only the other
    half. It used to start a fresh full budget there (about 6 s for a 4 s cell)."""
    from rates_xl.client import ServiceUnavailable
    from tests.support.faultserver import Reply

    server.responder = lambda arrival: Reply(delay=3.0)  # longer than the 2 s left after waiting
    client = RatesClient(base_url=server.base_url, api_key="sk-team-dead-claim", team_url=redis_server.url,
                         persistent=False, backoff=0.01, max_backoff=0.05)
    try:
        key = client.request_key("swap_rate", index="SOFR", start_date="0D", maturity_date="9Y",
                                 fixed_leg_frequency="1Y")
        redis_server.client().set(client.cache.team.claim_key(key), "not-a-teammate", ex=3600)
        started = time.monotonic()
        with pytest.raises(ServiceUnavailable) as caught:
            client.get_key(key, deadline=4.0)
        elapsed = time.monotonic() - started
        # Its fetch had what was left of the budget (about 2 s), not a fresh 4 s: the message
        # says the attempt's own limit, whatever the machine's load. Figure: docs/reliability.md.
        said = re.fullmatch(r"no answer from the service within ([\d.]+) s", caught.value.message)
        assert said and float(said[1]) <= 4.0 / 2 + 0.1, caught.value
        assert elapsed <= within(4.0, 4.0 / 2 + 4.0 + 3.0), elapsed  # the old path: 2 s + 4 s + the 3 s answer
        assert server.count() == 1  # no retry once the budget is spent
    finally:
        client.close()
