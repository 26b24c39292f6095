"""Two team-server processes sharing one Redis team backend: 20 users x 100 distinct cells
at once against the sandbox at the service's limits (20/s, burst 50, 30 ms).

    python -m bench team_serve [--runs 1]      (or: python -m bench.team_serve 1)

Each run: a real redis-server and the sandbox on loopback, two `rates-xl serve` processes
(TLS, per-user tokens from one shared users file, RATES_TEAM_URL to the Redis), users
alternating between them as a load balancer would send them, each posting their 100 cells
in one batch at the same moment. The sandbox's arrival log is the judge: 429s (target 0),
requests sent / distinct (target 1.00) and wall time / the bound (2000 - 50) / 20 = 97.5 s
(target <= 1.15, issue 18).
"""

from __future__ import annotations

import collections
import os
import subprocess
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


def _wait_healthy(url: str, ca: str, process: subprocess.Popen, timeout: float = 30) -> None:
    import requests

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"rates-xl serve exited: {process.stdout.read()[-500:]!r}")
        try:
            if requests.get(url + "/health", verify=ca, timeout=2).status_code == 200:
                return
        except requests.RequestException:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not become healthy")


def one_run(tmp: Path) -> dict[str, float]:
    import requests

    from rates_xl.addin.officejs import certs
    from rates_xl.addin.officejs.users import UserStore
    from rates_xl.sandbox import PAID_KEY
    from rates_xl.sandbox.server import start_in_thread
    from tests.support.cells import distinct_cells
    from tests.support.officejs_calls import calls_for
    from tests.support.redis_server import RedisServer, free_port

    tls, _ = certs.ensure(certs.CertPaths(tmp / "tls"))
    store = UserStore(tmp / "users.json")
    tokens = [store.add(f"user{i:02d}") for i in range(USERS)]
    redis = RedisServer().start()
    servers: list[subprocess.Popen] = []
    with start_in_thread(rate_limit=RATE, burst=BURST, latency_ms=LATENCY_MS) as sandbox:
        try:
            urls = []
            for _ in range(SERVERS):
                port = free_port()
                env = dict(os.environ, RATES_BASE_URL=sandbox.base_url, RATES_API_KEY=PAID_KEY,
                           RATES_TEAM_URL=redis.url, RATES_PERSISTENT="false", HOME=str(tmp),
                           XDG_DATA_HOME=str(tmp / "data"), XDG_CONFIG_HOME=str(tmp / "config"))
                servers.append(subprocess.Popen(
                    [sys.executable, "-m", "rates_xl.cli", "serve", "--port", str(port), "--cert", str(tls.cert),
                     "--key", str(tls.key), "--users", "--users-file", str(store.path)],
                    env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
                urls.append(f"https://localhost:{port}")
                _wait_healthy(urls[-1], str(tls.ca), servers[-1])
            answered = [0] * USERS
            start_at = time.time() + 1

            def user(i: int) -> None:
                url = urls[i % SERVERS]
                calls = calls_for(distinct_cells(CELLS, offset=i * 7))
                time.sleep(max(0.0, start_at - time.time()))
                response = requests.post(url + "/api/batch", json={"calls": calls}, verify=str(tls.ca), timeout=600,
                                         headers={"Origin": url, "Authorization": f"Bearer {tokens[i]}"})
                if response.status_code == 200:
                    answered[i] = sum("value" in r for r in response.json()["results"])

            threads = [threading.Thread(target=user, args=(i,)) for i in range(USERS)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(600)
            wall = time.time() - start_at
            arrivals = [a for a in list(sandbox.arrivals) if a.at >= start_at - 0.5]
        finally:
            for process in servers:
                process.terminate()
                process.wait(15)
            redis.kill()
    statuses = collections.Counter(a.status for a in arrivals)
    distinct = USERS * CELLS
    bound = (distinct - BURST) / RATE
    sent_ok = {(a.path, a.query) for a in arrivals if a.status == 200}
    return {"429s": statuses.get(429, 0), "ratio": statuses.get(200, 0) / distinct,
            "distinct_answered": len(sent_ok), "wall": wall, "wall_ratio": wall / bound,
            "unanswered": USERS * CELLS - sum(answered)}


def run(runs: int = 1) -> dict:
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
        ],
        runs=runs,
        setup={"users": USERS, "cells": CELLS, "servers": SERVERS, "rate": RATE, "burst": BURST,
               "latency_ms": LATENCY_MS},
        notes=["servers, sandbox, Redis and users on one 2-core machine; users alternate between servers"],
    )


if __name__ == "__main__":
    main_for(run, 1)
