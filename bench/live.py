"""Live mode (issue 21): 200 live cells kept fresh at the default budget (half the limit),
while new formulas are typed.

    python -m bench live                 one run, 3 minutes, swap-rate lifetimes scaled to 30 s
    python -m bench.live 1 --minutes 10 --ttl-live 60    the issue's full length, real lifetimes

A sandbox in its own process (100 ms latency, the service's 20/s, burst 50) and one client
at those limits. The 200 cells, valued as of now, are computed the way a host computes them
(each cell's requests learnt through its call context's `used` set, functions/context.py), first as one paste (the plan /
fetch loop), then watched by one `LiveScheduler` at its default share. Every 10 s a new
formula (a request never asked before) is computed on the calling thread, the way Excel
computes a typed cell, and timed from its call to its answer.

Cells: 150 swap rates on five indices (lifetime `ttl_live`), 30 FX forwards (`ttl_fx`,
15 s), 20 US Treasury yields (`ttl_live`). Demand at 30 s / 15 s lifetimes: 170/30 + 30/15
= 7.7 requests/s, within the share's 10/s. At the real 60 s it is 4.8/s.

Figures: the largest delay past a lifetime before a cell's next answer (each cell, each
cycle: its answer's age when the refreshed one arrived, minus the lifetime; target
<= 5 s), the typed formulas' time to answer (target <= 1 s), 429s (target 0), and the
share of the limit Live actually used.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from datetime import date, timedelta
from typing import Any

RATE, BURST, LATENCY_MS = 20.0, 50, 100
INDICES = ("SOFR", "ESTR", "SONIA", "3M EURIBOR", "6M EURIBOR")


def live_cells() -> list[tuple[str, tuple]]:
    cells: list[tuple[str, tuple]] = []
    for month in range(1, 31):
        for index in INDICES:
            cells.append(("RATES_SWAP", (index, "0D", f"{month * 6}M", "1Y")))
    today = date.today()
    for week in range(1, 31):
        cells.append(("RATES_FXFORWARD", ("EURUSD", (today + timedelta(weeks=week)).isoformat())))
    for year in range(1, 21):
        cells.append(("RATES_GOVYIELD", ("US", f"{year}Y")))
    return cells


def one_run(minutes: float, ttl_live: float, ttl_fx: float) -> dict[str, Any]:
    from rates_xl.client import RatesClient
    from rates_xl.client.live_scheduler import LiveScheduler
    from rates_xl.functions import FUNCTIONS, core
    from rates_xl.functions.context import CallContext
    from rates_xl.functions.plan import plan_and_evaluate
    from rates_xl.sandbox import PAID_KEY
    from tests.support.sandbox import sandbox_process
    from tests.support.sends import recording_sends

    cells = live_cells()
    arrivals: dict[int, list[float]] = {i: [] for i in range(len(cells))}
    lock = threading.Lock()

    def notify(changed: frozenset) -> None:
        now = time.time()
        with lock:
            for cell in changed:
                arrivals[cell].append(now)

    with sandbox_process(latency_ms=LATENCY_MS, rate_limit=RATE, burst=BURST) as sandbox, \
            RatesClient(sandbox.base_url, api_key=PAID_KEY, rate_limit=RATE, burst=BURST,
                        ttl_live=ttl_live, ttl_fx=ttl_fx, persistent=False) as client, \
            recording_sends() as sends:
        with core.using_client(client):
            # The paste: every cell computed by the plan / fetch loop, each cell's requests learnt.
            plan_and_evaluate(lambda context: [core.evaluate(FUNCTIONS[n], a, context) for n, a in cells], client)
            used = []
            for name, args in cells:
                keys: set = set()
                value = core.evaluate(FUNCTIONS[name], args, CallContext(used=keys))
                if isinstance(value, str):
                    raise RuntimeError(f"{name}{args}: {value}")
                used.append(keys)
            first = {i: min(client.cache.get(k).fetched_at for k in keys) for i, keys in enumerate(used)}
            live = LiveScheduler(client, notify)
            for i, keys in enumerate(used):
                if not live.watch(i, keys):
                    raise RuntimeError(f"cell {cells[i]} is not live")
            sent_before = client.stats()["requests_sent"]
            live.start()
            started = time.time()
            typed: list[float] = []
            n = 0
            try:
                while time.time() - started < minutes * 60:
                    time.sleep(10)
                    n += 1
                    call_started = time.perf_counter()  # a new formula, a request never asked before
                    value = FUNCTIONS["RATES_SWAP"].core("SOFR", "0D", f"{1000 + n}D", "1Y")
                    typed.append(time.perf_counter() - call_started)
                    if isinstance(value, str):
                        raise RuntimeError(f"typed formula {n}: {value}")
            finally:
                live.stop()
            ended = time.time()
            live_sent = client.stats()["requests_sent"] - sent_before - len(typed)
            status = live.status()
        stats = client.stats()
        got_429 = sends.count_retries("RateLimited") + stats["errors_by_status"].get("429", 0)

    ttl_of = [ttl_fx if name == "RATES_FXFORWARD" else ttl_live for name, _ in cells]
    lateness = []
    for i, times in arrivals.items():
        previous = first[i]
        for at in times:
            lateness.append(at - previous - ttl_of[i])
            previous = at
        if ended - previous > ttl_of[i] + 5:  # a cell left waiting at the end counts too
            lateness.append(ended - previous - ttl_of[i])
    return {
        "late_max": max(lateness), "late_median": statistics.median(lateness),
        "refreshes": sum(len(t) for t in arrivals.values()),
        "typed_max": max(typed), "typed_median": statistics.median(typed), "typed": len(typed),
        "429s": got_429, "live_rate": live_sent / (ended - started),
        "failed": status.failed, "last_error": status.last_error,
    }


def run(runs: int = 1, minutes: float = 3.0, ttl_live: float = 30.0, ttl_fx: float = 15.0) -> dict:
    from bench.common import figure, result

    results = [one_run(minutes, ttl_live, ttl_fx) for _ in range(runs)]

    def col(key: str) -> list[float]:
        return [r[key] for r in results]

    return result(
        "live", f"Live: 200 cells for {minutes:g} min at half the limit, a new formula every 10 s",
        [
            figure("largest delay past a lifetime before the next answer", col("late_max"), "s", target=5.0),
            figure("median delay past a lifetime (negative: refreshed early)", col("late_median"), "s"),
            figure("typed formula: slowest answer", col("typed_max"), "s", target=1.0),
            figure("typed formula: median answer", col("typed_median"), "s"),
            figure("429 answers or retries", col("429s"), "", target=0, better="equal", digits=0),
            figure("Live's request rate (the share's pace: 10/s)", col("live_rate"), "req/s", target=RATE / 2),
            figure("refreshes delivered", col("refreshes"), "", better="higher", digits=0),
            figure("failed refetches", col("failed"), "", target=0, better="equal", digits=0),
        ],
        runs=runs,
        setup={"cells": 200, "minutes": minutes, "ttl_live_s": ttl_live, "ttl_fx_s": ttl_fx,
               "rate": RATE, "burst": BURST, "latency_ms": LATENCY_MS, "share": 0.5},
        notes=[f"lifetimes: swap rates and US yields {ttl_live:g} s (real: 60 s), FX {ttl_fx:g} s",
               "typed formulas answered on the calling thread while Live ran",
               *(f"last error: {r['last_error']}" for r in results if r["last_error"])],
    )


def main(argv: list[str] | None = None) -> int:
    from bench.common import report

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--ttl-live", type=float, default=30.0)
    parser.add_argument("--ttl-fx", type=float, default=15.0)
    opts = parser.parse_args(argv)
    report(run(opts.runs, opts.minutes, opts.ttl_live, opts.ttl_fx))
    return 0


if __name__ == "__main__":
    sys.exit(main())
