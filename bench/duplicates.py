"""(b) Duplicates: a workbook in which every request appears in 10 cells, each spelled a
little differently (case, spaces, a date-time cell or ISO text), computed by 16 threads
at once through the worksheet functions. Requests sent / distinct requests; target 1.00.

The sandbox runs with 30 ms latency and the scaled limits of (a), so copies of a request
really are in flight together: this measures coalescing as well as the cache.
"""

from __future__ import annotations

import time

from bench.common import figure, main_for, result, timed
from tests.support.cells import distinct_cells, duplicated, evaluate, is_message
from tests.support.sandbox import sandbox_process

DISTINCT, COPIES, THREADS = 200, 10, 16
RATE, BURST, LATENCY_MS = 200.0, 50, 30


def run(runs: int = 5) -> dict:
    from rates_xl.client import RatesClient
    from rates_xl.functions import set_client
    from rates_xl.sandbox import PAID_KEY

    cells = duplicated(distinct_cells(DISTINCT), COPIES)
    rows = []
    with sandbox_process(rate_limit=RATE, burst=BURST, latency_ms=LATENCY_MS) as sandbox:
        for _ in range(runs):
            time.sleep(BURST / RATE + 0.5)
            client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, rate_limit=RATE, burst=BURST)
            set_client(client)
            try:
                wall, values = timed(lambda: evaluate(cells, THREADS))
                stats = client.stats()
            finally:
                set_client(None)
                client.close()
            rows.append({
                "ratio": stats["requests_sent"] / DISTINCT, "sent": stats["requests_sent"],
                "coalesced": stats["coalesced_waits"], "hits": stats["cache_hits"],
                "messages": sum(is_message(v) for v in values), "wall": wall,
            })
    col = lambda name: [r[name] for r in rows]  # noqa: E731
    return result(
        "duplicates", f"(b) Duplicates: {DISTINCT} requests x {COPIES} spellings = "
        f"{len(cells)} cells, {THREADS} threads",
        [
            figure("requests sent / distinct", col("ratio"), "x", target=1.0, better="lower"),
            figure("requests sent", col("sent"), "", digits=0),
            figure("coalesced waits", col("coalesced"), "", digits=0),
            figure("cache hits", col("hits"), "", digits=0),
            figure("cells with a #RATES! message", col("messages"), "", target=0, digits=0),
            figure("wall time", col("wall"), "s"),
        ],
        runs=runs,
        setup={"distinct": DISTINCT, "copies": COPIES, "threads": THREADS, "rate_limit": RATE,
               "burst": BURST, "latency_ms": LATENCY_MS},
    )


if __name__ == "__main__":
    main_for(run, 5)
