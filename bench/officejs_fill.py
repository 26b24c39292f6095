"""The Office.js host filling a sheet: 400 distinct cells in one batched POST to
`rates-xl serve` over TLS, against a sandbox with 100 ms latency at the service's limits.

    python -m bench officejs_fill [--runs 3]      (or: python -m bench.officejs_fill 3)

What Excel does with RATES.* cells: every dirty cell is called at once, the script sends them
as one POST, the server plans the batch (400 distinct requests recorded, none sent), fetches
them concurrently under the shared client's rate limiter, then computes every cell from the
cache. One request at a time would cost 400 x 100 ms of latency on top of the limit; planned,
the fill is bound by the rate limit alone: (400 - 50) / 20 = 17.5 s.

The sandbox runs in its own process (20/s, burst 50, 100 ms on every answer); the server
(FastAPI + uvicorn, TLS with a throwaway local CA) runs in this process with a fresh client
each run (cold cache, full bucket); the POST is sent from this process. Curves are
bootstrapped once before timing, and the sandbox's bucket is let refill before each run.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import figure, main_for, result  # noqa: E402

DISTINCT = 400
LATENCY_MS = 100
RATE, BURST = 20.0, 50
BOUND_SECONDS = (DISTINCT - BURST) / RATE
TARGET = 1.1


def one_run(sandbox_url: str, tls, calls: list[dict]) -> dict[str, float]:
    import requests

    from rates_xl.addin.officejs import app as appmod
    from rates_xl.addin.officejs import server
    from rates_xl.client import RatesClient
    from rates_xl.functions import set_client
    from rates_xl.sandbox import PAID_KEY

    time.sleep(BURST / RATE + 0.5)  # the sandbox's bucket refills before each run
    client = RatesClient(sandbox_url, api_key=PAID_KEY, rate_limit=RATE, burst=BURST)
    running, _ = server.start_in_thread(lambda url: appmod.create_app(url, client=client), tls.cert, tls.key)
    url = f"https://localhost:{running.port}"
    http = requests.Session()
    http.trust_env, http.verify = False, str(tls.ca)
    try:
        http.get(url + "/manifest.xml", timeout=10)  # TLS handshake and app warm, as Excel's page load
        started = time.perf_counter()
        response = http.post(url + "/api/batch", json={"calls": calls}, headers={"Origin": url}, timeout=300)
        wall = time.perf_counter() - started
        results = response.json()["results"]
        stats = client.stats()
    finally:
        http.close()
        running.stop()
        set_client(None)
        client.close()
    errors = [r for r in results if "value" not in r]
    if errors:
        raise RuntimeError(f"{len(errors)} cells failed, e.g. {errors[0]}")
    return {
        "wall": wall,
        "ratio": wall / BOUND_SECONDS,
        "sent": stats["requests_sent"],
        "throttled_429": stats["errors_by_status"].get("429", 0) + stats["retries"],
    }


def measure(runs: int) -> list[dict[str, float]]:
    from rates_xl.addin.officejs import certs
    from rates_xl.addin.officejs.metadata import officejs_name
    from rates_xl.client import RatesClient
    from rates_xl.functions import FUNCTIONS
    from rates_xl.sandbox import PAID_KEY
    from tests.support.cells import INDICES, VALUATION_TIME, distinct_cells
    from tests.support.sandbox import sandbox_process

    cells = distinct_cells(DISTINCT)
    calls = [{"fn": officejs_name(FUNCTIONS[name]), "args": list(args)} for name, args in cells]
    rows = []
    with tempfile.TemporaryDirectory(prefix="rates-bench-tls-") as tmp, \
            sandbox_process(rate_limit=RATE, burst=BURST, latency_ms=LATENCY_MS) as sandbox:
        tls, _ = certs.ensure(certs.CertPaths(Path(tmp)))
        with RatesClient(sandbox.base_url, api_key=PAID_KEY) as warm:  # bootstrap every curve once
            warm.fetch_many(warm.request_key("swap_rate", index=i, start_date="0D", maturity_date="40Y",
                                             fixed_leg_frequency="1Y", valuation_time=VALUATION_TIME)
                            for i in INDICES)
        for _ in range(runs):
            rows.append(one_run(sandbox.base_url, tls, calls))
    return rows


def run(runs: int = 3) -> dict:
    rows = measure(runs)
    col = lambda key: [r[key] for r in rows]  # noqa: E731
    return result(
        "officejs_fill",
        f"Office.js host: {DISTINCT} distinct cells in one batched POST over TLS "
        f"({LATENCY_MS} ms latency, {RATE:g}/s burst {BURST})",
        [
            figure("wall time / rate-limit bound (400 - 50) / 20 s", col("ratio"), "x", target=TARGET),
            figure("wall time of the POST", col("wall"), "s", target=TARGET * BOUND_SECONDS),
            figure("requests sent", col("sent"), "requests", target=DISTINCT, better="equal", digits=0),
            figure("429 answers or retries", col("throttled_429"), "", target=0, better="equal", digits=0),
        ],
        runs=runs,
        setup={"distinct": DISTINCT, "latency_ms": LATENCY_MS, "rate_limit": RATE, "burst": BURST,
               "bound_seconds": BOUND_SECONDS},
        notes=["sandbox in its own process; server and caller in this one; each run a fresh client"],
    )


if __name__ == "__main__":
    main_for(run, 3)
