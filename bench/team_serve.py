"""Two team-server processes sharing one Redis team backend, against the sandbox at the
service's limits (20/s, burst 50, 30 ms):

    python -m bench team_serve [--runs 3]      (or: python -m bench.team_serve 3)

Each run: a real redis-server and the sandbox on loopback, two `rates-xl serve` processes
(TLS, per-user tokens from one shared users file, RATES_TEAM_URL to the Redis:
tests/support/team_servers.py), then two phases:

1. 20 users alternating between the two servers, as a load balancer would send them, each
   posting 100 distinct cells in one batch at the same moment. The sandbox's arrival log is
   the judge: 429s (target 0), requests sent / distinct (target 1.00) and wall time / the
   bound (2000 - 50) / 20 = 97.5 s (target <= 1.15, issue 18).
2. Alice fills 5,000 distinct cells the way the script posts them (three POSTs of at most
   2,000), alternating between the servers; 2 s in, bob posts 10 distinct cells to the
   second server: his wall time (target <= 2 s). The run ends there (alice's fill is cut).

The machine's load average (1 minute) is taken before each run: the benchmark shares it.
"""

from __future__ import annotations

import collections
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import figure, main_for, result  # noqa: E402

USERS, CELLS, SERVERS = 20, 100, 2
RATE, BURST, LATENCY_MS = 20.0, 50, 30
FILL, BOB_CELLS, HEAD_START_S = 5000, 10, 2.0
ALICE_OFFSET, BOB_OFFSET = 150, 600  # months: no request of a phase is another's (the sandbox prices <= 1,200)


def one_run(tmp: Path) -> dict[str, float]:
    from rates_xl.addin.officejs.batch import MAX_BATCH
    from rates_xl.sandbox.server import start_in_thread
    from tests.support.cells import distinct_cells
    from tests.support.officejs_calls import calls_for
    from tests.support.redis_server import RedisServer
    from tests.support.team_servers import team_servers

    load = os.getloadavg()[0]
    names = [f"user{i:02d}" for i in range(USERS)]
    redis = RedisServer().start()
    try:
        with start_in_thread(rate_limit=RATE, burst=BURST, latency_ms=LATENCY_MS) as sandbox, \
                team_servers(tmp, sandbox.base_url, redis.url, users=[*names, "alice", "bob"],
                             workers=SERVERS) as team:
            answered = [0] * USERS
            start_at = time.time() + 1

            def user(i: int) -> None:
                calls = calls_for(distinct_cells(CELLS, offset=i * 7))
                time.sleep(max(0.0, start_at - time.time()))
                response = team.post(i % SERVERS, names[i], calls)
                if response.status_code == 200:
                    answered[i] = sum("value" in r for r in response.json()["results"])

            threads = [threading.Thread(target=user, args=(i,)) for i in range(USERS)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(600)
            wall = time.time() - start_at
            arrivals = [a for a in list(sandbox.arrivals) if a.at >= start_at - 0.5]

            time.sleep(BURST / RATE)  # the service's bucket full again
            alice = calls_for(distinct_cells(FILL, offset=ALICE_OFFSET))
            for n, i in enumerate(range(0, FILL, MAX_BATCH)):
                threading.Thread(target=_quietly, args=(team.post, n % SERVERS, "alice", alice[i:i + MAX_BATCH]),
                                 daemon=True).start()
            time.sleep(HEAD_START_S)
            started = time.perf_counter()
            bob = team.post(SERVERS - 1, "bob", calls_for(distinct_cells(BOB_CELLS, offset=BOB_OFFSET)))
            bob_wall = time.perf_counter() - started
            if bob.status_code != 200 or not all("value" in r for r in bob.json()["results"]):
                raise RuntimeError(f"bob's batch: {bob.status_code} {bob.text[:200]}")
    finally:
        redis.kill()
    statuses = collections.Counter(a.status for a in arrivals)
    distinct = USERS * CELLS
    bound = (distinct - BURST) / RATE
    return {"429s": statuses.get(429, 0), "ratio": statuses.get(200, 0) / distinct,
            "wall": wall, "wall_ratio": wall / bound, "unanswered": USERS * CELLS - sum(answered),
            "bob": bob_wall, "load": load}


def _quietly(fn, *args) -> None:
    try:
        fn(*args)
    except Exception:  # the servers stop under alice's fill at the end of the run
        pass


def run(runs: int = 3) -> dict:
    rows = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="rates-bench-team-serve-") as tmp:
            rows.append(one_run(Path(tmp)))
    col = lambda key: [r[key] for r in rows]  # noqa: E731
    return result(
        "team_serve",
        f"{SERVERS} team-server processes, one Redis: {USERS} users x {CELLS} distinct cells at once, "
        f"sandbox at {RATE:g}/s burst {BURST}, {LATENCY_MS} ms",
        [
            figure("429s", col("429s"), "responses", target=0, digits=0),
            figure("requests sent (200) / distinct", col("ratio"), "", target=1.0),
            figure(f"wall time / bound {(USERS * CELLS - BURST) / RATE:g} s", col("wall_ratio"), "", target=1.15),
            figure("wall time", col("wall"), "s"),
            figure("cells without a value", col("unanswered"), "cells", digits=0),
            figure(f"bob's {BOB_CELLS} cells while alice fills {FILL:,} (both across the servers)", col("bob"), "s",
                   target=2.0),
            figure("load average (1 min) before the run", col("load"), "", digits=2),
        ],
        runs=runs,
        setup={"users": USERS, "cells": CELLS, "servers": SERVERS, "rate": RATE, "burst": BURST,
               "latency_ms": LATENCY_MS, "fill": FILL, "bob_cells": BOB_CELLS, "head_start_s": HEAD_START_S},
        notes=["servers, sandbox, Redis and users on one machine; users alternate between servers",
               "alice's three POSTs go to servers 0, 1, 0; bob's to server 1"],
    )


if __name__ == "__main__":
    main_for(run, 3)
