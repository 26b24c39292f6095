"""What someone who can write to the team's Redis (but holds no API key) can do to a team
server: delay and deny, within bounds, not break it (issue 27, point 7). A real redis-server
(tests/support/redis_server.py) is written the forged values of the issue and more; every one
is checked for shape and range before use, ignored when wrong, logged once.

Before: a JSON list as a user's counters made `/api/me` a 500; a fair-share queue entry with
a lease of 9e18 (or one with no lease at all) made the user wait for ever (15 of 20 batches
timed out).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time

import pytest

from rates_xl.addin.officejs.auth import Authenticator
from rates_xl.addin.officejs.fairness import FairShare, Usage, UserBusy
from rates_xl.addin.officejs.shared_fairness import SharedFairShare, SharedUsage, _user_key
from rates_xl.addin.officejs.team import Team
from rates_xl.addin.officejs.users import UserStore
from rates_xl.client import RatesClient
from rates_xl.client.team import TeamLink
from rates_xl.sandbox import PAID_KEY
from tests.support.redis_server import needs_redis

pytestmark = needs_redis

#: Values written over a user's counters, or the team's: none is what a server writes.
FORGED_COUNTERS = {
    "a JSON list (the issue's)": b"[1, 2, 3]",
    "a JSON string": b'"lots"',
    "a number": b"5",
    "null": b"null",
    "not JSON": b"batches=5",
    "not UTF-8": b"\xff\xfe{",
    "a counter as text": b'{"batches": "lots"}',
    "a negative counter": b'{"batches": -5}',
    "a counter of 1e300": b'{"cells": 1e300}',
    "a counter past 2^53": b'{"cells": 18014398509481984}',
    "half a request": b'{"requests_sent": 2.5}',
    "NaN": b'{"batches": NaN}',
    "Infinity": b'{"cells": Infinity}',
    "true as a counter": b'{"batches": true}',
    "an object as a counter": b'{"batches": {"n": 5}}',
    "an error of 1,000 characters": json.dumps({"last_error": "x" * 1000}).encode(),
    "a time as text": b'{"last_seen": "yesterday"}',
    "a time in the year 50,000": b'{"last_seen": 1.5e12}',
    "10 kB": json.dumps({"batches": 1, "pad": "x" * 10_000}).encode(),
    "nested 10,000 deep": b"[" * 10_000 + b"]" * 10_000,
}


@pytest.fixture
def link(redis_server):
    # Patient (5 s, not the team's 0.25 s): these tests check what forged values do, not
    # Redis' latency, and at load 30 one round trip to redis-server can pass 0.5 s, which
    # counts the link as down (`link.up`) and sends the fair share to its local fallback.
    made = TeamLink(redis_server.url, "forged", timeout=5.0, retry_every=0.2)
    yield made
    made.close()


def test_forged_usage_counters_are_ignored_and_the_next_batch_writes_good_ones(redis_server, link, caplog):
    caplog.set_level(logging.WARNING, logger="rates_xl")
    usage = SharedUsage(link, Usage())
    redis = redis_server.client()
    mine = link.prefix + "usage:user:" + _user_key("alice")
    team = link.prefix + "usage:team"
    for case, value in FORGED_COUNTERS.items():
        redis.set(mine, value)
        redis.set(team, value)
        shown = usage.of("alice")
        assert {k: shown[k] for k in ("batches", "cells", "requests_sent")} == {
            "batches": 0, "cells": 0, "requests_sent": 0}, case
        assert shown["last_error"] is None, case
        totals = usage.team()
        assert {k: totals[k] for k in ("batches", "cells", "requests_sent")} == {
            "batches": 0, "cells": 0, "requests_sent": 0}, case
        assert link.up, case  # no script error taken for Redis being down
        usage.record("alice", cells=3, requests_sent=2, error=None)
        assert {k: usage.of("alice")[k] for k in ("batches", "cells", "requests_sent")} == {
            "batches": 1, "cells": 3, "requests_sent": 2}, case
        assert isinstance(json.loads(redis.get(mine)), dict)
    # Users dated in the future are not counted for ever.
    redis.zadd(link.prefix + "usage:users", {"made-up": 9e18})
    usage.record("alice", cells=1, requests_sent=1, error=None)
    assert usage.team()["users"] == 1
    warnings = [r for r in caplog.records if "the team's Redis" in r.getMessage()]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]  # once, not once per read


def test_api_me_answers_over_a_forged_counter(serve, sandbox_factory, redis_server, tmp_path):
    """The issue's case end to end: a JSON list as alice's counters; /api/me is a 200."""
    sandbox = sandbox_factory(rate_limit=1000, burst=1000)
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, persistent=False, team_url=redis_server.url)
    store = UserStore(tmp_path / "users.json")
    token = store.add("alice")
    served = serve(client=client, team=Team(Authenticator(users=store)))
    assert served.batch([{"fn": "TENORS", "args": ["SOFR"]}],
                        headers={"Authorization": f"Bearer {token}"}).status_code == 200
    redis = redis_server.client()
    [key] = [k for k in redis.scan_iter(match="rates-xl:*:usage:user:*")]
    redis.set(key, b"[1, 2, 3]")
    me = served.http.get(served.url + "/api/me", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert me.status_code == 200, me.text
    assert me.json()["use"]["batches"] == 0 and me.json()["user"] == "alice"
    client.close()


def run_turn(fair: SharedFairShare, user: str = "alice") -> threading.Thread:
    """One batch's turn (entered, then left) on a thread of its own; `done` once it ran,
    `busy` when it was refused (the user's queue is full: a 503)."""
    def body() -> None:
        async def batch() -> None:
            async with fair.turn(user):
                thread.done = True

        try:
            asyncio.run(batch())
        except UserBusy:
            thread.busy = True

    thread = threading.Thread(target=body, daemon=True)
    thread.done = thread.busy = False
    thread.start()
    return thread


@pytest.mark.parametrize("forgery", ["a lease of 9e18 at the head", "an entry without a lease at the head",
                                     "a lease of +inf", "20 entries leased for ever"])
def test_a_forged_queue_entry_delays_a_batch_at_most_one_lease(redis_server, link, monkeypatch, caplog, forgery):
    """The server's own lease (here 1 s) caps any lease found in Redis, and an entry without
    one is dropped: a batch behind forged entries runs within one lease, as behind a worker
    that died. Before, it waited for ever."""
    caplog.set_level(logging.WARNING, logger="rates_xl")
    monkeypatch.setattr(SharedFairShare, "LEASE_SECONDS", 1.0)
    fair = SharedFairShare(link, FairShare())
    queue, leases = fair._keys("alice")
    redis = redis_server.client()
    if forgery == "a lease of 9e18 at the head":
        redis.zadd(queue, {"forged": 0})
        redis.zadd(leases, {"forged": 9e18})
    elif forgery == "an entry without a lease at the head":
        redis.zadd(queue, {"forged": 0})
    elif forgery == "a lease of +inf":
        redis.zadd(queue, {"forged": 0})
        redis.zadd(leases, {"forged": float("inf")})
    else:  # alice's queue full of forged entries: a new batch is refused until they lapse
        redis.zadd(queue, {f"forged-{i}": i for i in range(20)})
        redis.zadd(leases, {f"forged-{i}": 9e18 for i in range(20)})
    started = time.monotonic()
    turns = [run_turn(fair) for _ in range(3)]
    ends = started + 15 * SharedFairShare.LEASE_SECONDS  # the bound: many leases, never for ever
    for thread in turns:
        thread.join(max(0.0, ends - time.monotonic()))
    if forgery == "20 entries leased for ever":
        # Refused at once (503: the queue is full), not held: deny, and only until they lapse.
        assert all(t.busy for t in turns)
        time.sleep(SharedFairShare.LEASE_SECONDS + 0.2)
        late = run_turn(fair)
        late.join(15 * SharedFairShare.LEASE_SECONDS)
        assert late.done
    else:
        assert all(t.done for t in turns), f"batches still waiting after {time.monotonic() - started:.1f} s"
    assert not redis.zscore(leases, "forged") or redis.zscore(leases, "forged") < 9e18
    warnings = [r for r in caplog.records if "fair-share queue entry" in r.getMessage()]
    assert len(warnings) == 1


def test_a_legitimate_wait_behind_a_live_batch_is_kept(redis_server, link, monkeypatch):
    """The checks do not cut a real batch's lease or drop its entry: a second batch still
    waits for the first, as before."""
    monkeypatch.setattr(SharedFairShare, "LEASE_SECONDS", 1.0)
    fair = SharedFairShare(link, FairShare())
    order: list[str] = []
    release = threading.Event()

    def first() -> None:
        async def batch() -> None:
            async with fair.turn("alice"):
                order.append("first in")
                await asyncio.get_running_loop().run_in_executor(None, release.wait, 10)
                order.append("first out")

        asyncio.run(batch())

    holder = threading.Thread(target=first, daemon=True)
    holder.start()
    while "first in" not in order:
        time.sleep(0.01)
    second = run_turn(fair)
    time.sleep(2.5 * SharedFairShare.LEASE_SECONDS)  # past a lease: the first renews its own
    assert not second.done  # still waiting for the first, which holds its turn
    release.set()
    second.join(10)
    holder.join(10)
    assert second.done and order == ["first in", "first out"]
