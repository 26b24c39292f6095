"""Two `rates-xl serve` worker processes sharing one real redis-server: one fair share and
one set of per-user counters for the whole team, whichever worker a load balancer sends a
batch to. The sandbox's log of arrivals is the judge of what was sent, and when."""

from __future__ import annotations

import collections
import re
import threading
import time
from urllib.parse import parse_qs

from rates_xl.client import RatesClient
from tests.support.cells import INDICES, distinct_cells
from tests.support.officejs_calls import calls_for
from tests.support.redis_server import needs_redis
from tests.support.team_servers import team_servers

pytestmark = needs_redis

ALICE_A, ALICE_B, BOB = 0, 100, 200  # month offsets: each batch's requests are its own
MONTH = re.compile(r"(\d+)M")


def _batch_of(query: str) -> str:
    tenors = [v for name, values in parse_qs(query).items() if name != "index" for v in values]  # not "3M EURIBOR"
    month = min(int(m) for value in tenors for m in MONTH.findall(value))
    return "alice-a" if month < ALICE_B else "alice-b" if month < BOB else "bob"


def _warm_up(service) -> None:
    """Bootstrap the sandbox's curves with another key first (its own bucket), so the run's
    arrivals are the rate limiter's doing, not QuantLib's."""
    with RatesClient(base_url=service.base_url, api_key="warm-up-key", persistent=False) as client:
        for index in INDICES:
            client.swap_curve(index)


def test_one_users_batches_on_two_workers_take_turns_and_both_workers_count_them(
        sandbox_factory, redis_server, tmp_path):
    """Alice posts two batches at once, one to each worker; bob posts 10 cells to the second
    worker meanwhile. Per process (before), each worker ran one of alice's batches at once,
    so she held two turns (32 fetch threads' reservations ahead of bob in the shared limiter)
    and each worker's /api/me knew only its own batches. Now her batches run one after the
    other across the team, bob's cells are not held behind her second batch, and either
    worker reports everyone's use."""
    service = sandbox_factory(rate_limit=20, burst=50, extra_keys={"warm-up-key": "paid"})
    _warm_up(service)
    # Each Redis operation gets 5 s (default 0.25 s): what is tested is the team's one queue and
    # counters, and a worker that misses the default limit on a loaded machine rightly goes solo
    # (under `stress --cpu 4` one did, and counted alice's second batch on its own).
    with team_servers(tmp_path, service.base_url, redis_server.url, users=["alice", "bob"],
                      env={"RATES_TEAM_TIMEOUT": "5"}) as team:
        started = time.time()
        answers: dict[str, int] = {}

        def post(name: str, worker: int, user: str, offset: int, cells: int) -> None:
            answer = team.post(worker, user, calls_for(distinct_cells(cells, offset=offset)))
            answers[name] = answer.status_code
            assert all("value" in r for r in answer.json()["results"]), answer.text[:300]

        threads = [threading.Thread(target=post, args=("alice-a", 0, "alice", ALICE_A, 60)),
                   threading.Thread(target=post, args=("alice-b", 1, "alice", ALICE_B, 60))]
        for thread in threads:
            thread.start()
        time.sleep(0.5)
        post("bob", 1, "bob", BOB, 10)
        for thread in threads:
            thread.join(120)
        assert answers == {"alice-a": 200, "alice-b": 200, "bob": 200}, answers

        arrivals = [a for a in service.arrivals if a.at >= started]
        # Every cell answered once. The sandbox checks its rate limit in a thread pool, so
        # requests the team's limiter paced apart can reach the check bunched on a loaded machine
        # (3 429s under `stress --cpu 4`): such a 429 is retried like any other and counted as a
        # request sent, so the counters below expect exactly what arrived.
        statuses = collections.Counter(a.status for a in arrivals)
        assert statuses[200] == 130 and set(statuses) <= {200, 429}, statuses
        retried = collections.Counter(_batch_of(a.query) for a in arrivals if a.status == 429)
        alice_sent = 120 + retried["alice-a"] + retried["alice-b"]
        when = collections.defaultdict(list)
        for arrival in arrivals:
            when[_batch_of(arrival.query)].append(arrival.at)
        first, second = sorted(("alice-a", "alice-b"), key=lambda name: min(when[name]))
        # One turn for alice across both workers: her second batch sent nothing until her
        # first had finished (before: both ran at once, their requests interleaved).
        assert max(when[first]) < min(when[second]), (max(when[first]) - min(when[second]))
        # And bob was not held behind it (3 s at 20/s): his requests had their slots before
        # it began (0.5 s of slack for the order in which threads reach the sandbox).
        assert max(when["bob"]) < min(when[second]) + 0.5

        for worker in (0, 1):
            me = team.me(worker, "alice")
            assert {k: me["use"][k] for k in ("batches", "cells", "requests_sent")} == {
                "batches": 2, "cells": 120, "requests_sent": alice_sent}, (worker, me)
            assert me["team"] == {"users": 2, "batches": 3, "cells": 130, "requests_sent": len(arrivals)}, (worker, me)
        assert team.me(0, "bob")["use"]["batches"] == 1  # bob only ever used worker 1


def test_with_redis_down_each_worker_keeps_its_own_fair_share_and_counts(redis_server):
    """Redis gone: a batch still takes its turn (this worker's queue) and is counted (this
    worker's counters), at once, without an error; back on Redis the team's are used."""
    import asyncio

    from rates_xl.addin.officejs.fairness import FairShare, Usage
    from rates_xl.addin.officejs.shared_fairness import SharedFairShare, SharedUsage
    from rates_xl.client.team import TeamLink

    link = TeamLink(redis_server.url, "scope", timeout=0.25, retry_every=0.2)
    fair, usage = SharedFairShare(link, FairShare()), SharedUsage(link, Usage())

    async def batch(cells: int) -> None:
        async with fair.turn("alice"):
            usage.record("alice", cells=cells, requests_sent=cells, error=None)

    try:
        asyncio.run(batch(5))
        redis_server.kill()
        asyncio.run(batch(7))
        assert usage.of("alice")["cells"] == 7 and usage.team()["cells"] == 7  # this worker's own
        redis_server.start()
        time.sleep(0.3)  # past retry_every
        asyncio.run(batch(11))
        assert usage.of("alice")["cells"] == 11  # the team's again (Redis restarted empty)
        assert usage.team() == {"users": 1, "batches": 1, "cells": 11, "requests_sent": 11}
    finally:
        link.close()
