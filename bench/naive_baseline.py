"""(d) Naive baseline: what a plain add-in does, one request per cell, no cache, one at a
time, against ours (the worksheet functions through the shared client, computed as the
headless calc does: plan, fetch the distinct requests at once, compute) on the same
workbook. Figure: naive wall time / ours.

The workbook: 300 distinct requests, each in two cells (a curve sheet and a pricing sheet
that quote the same points): 600 cells. Two service settings:
  scaled   30 ms latency, 200/s, burst 50 (the limits of (a), to keep runs short);
  real     30 ms latency, the service's own 20/s, burst 50.
The naive add-in keeps one HTTP connection open (a generous assumption) and, when it gets
a 429, waits the Retry-After and asks again, so its cells end up right too; its 429s are
counted.
"""

from __future__ import annotations

import time

from bench.common import figure, main_for, result, timed
from tests.support.cells import distinct_cells, duplicated, evaluate, is_message
from tests.support.sandbox import sandbox_process

DISTINCT, COPIES, LATENCY_MS, BURST = 300, 2, 30, 50
SETTINGS = {"scaled": 200.0, "real": 20.0}


def naive(cells: list, base_url: str, key: str) -> tuple[list, int]:
    """One GET per cell, in order, no cache; on 429 wait Retry-After and ask again."""
    import requests

    from rates_xl.client.endpoints import ENDPOINTS
    from rates_xl.functions import FUNCTIONS
    from rates_xl.functions.core import prepare

    values, got_429 = [], 0
    with requests.Session() as session:
        session.headers["x-api-key"] = key
        for name, args in cells:
            request = prepare(FUNCTIONS[name], args).key  # the same query our client would send
            while True:
                response = session.get(base_url + ENDPOINTS[request.endpoint].path,
                                       params=dict(request.params), timeout=30)
                if response.status_code != 429:
                    break
                got_429 += 1
                time.sleep(float(response.headers.get("Retry-After", "1")))
            values.append(response.json() if response.ok else f"#ERROR {response.status_code}")
    return values, got_429


def ours(cells: list, base_url: str, key: str, rate: float) -> tuple[list, dict]:
    """The worksheet functions over the shared client: plan (record misses), fetch, compute."""
    from rates_xl.client import RatesClient
    from rates_xl.functions import set_client

    client = RatesClient(base_url=base_url, api_key=key, rate_limit=rate, burst=BURST)
    set_client(client)
    try:
        with client.planning() as wanted:
            evaluate(cells)
        client.fetch_many(wanted)
        values = evaluate(cells)
        return values, client.stats()
    finally:
        set_client(None)
        client.close()


def run(runs: int = 3) -> dict:
    from rates_xl.sandbox import PAID_KEY

    cells = duplicated(distinct_cells(DISTINCT), COPIES)
    figures, setup = [], {"cells": len(cells), "distinct": DISTINCT, "latency_ms": LATENCY_MS,
                          "burst": BURST, "rates": SETTINGS}
    for label, rate in SETTINGS.items():
        naive_s, ours_s, naive_429, ours_msgs = [], [], [], []
        with sandbox_process(rate_limit=rate, burst=BURST, latency_ms=LATENCY_MS) as sandbox:
            evaluate_warmup(sandbox.base_url, PAID_KEY)
            for _ in range(runs):
                time.sleep(BURST / rate + 0.5)
                seconds, (_, n429) = timed(lambda sb=sandbox: naive(cells, sb.base_url, PAID_KEY))
                naive_s.append(seconds)
                naive_429.append(n429)
                time.sleep(BURST / rate + 0.5)
                seconds, (values, _stats) = timed(
                    lambda sb=sandbox, r=rate: ours(cells, sb.base_url, PAID_KEY, r))
                ours_s.append(seconds)
                ours_msgs.append(sum(is_message(v) for v in values))
        figures += [
            figure(f"{label} ({rate:g}/s): naive wall time", naive_s, "s"),
            figure(f"{label} ({rate:g}/s): ours wall time", ours_s, "s"),
            figure(f"{label} ({rate:g}/s): naive / ours", [n / o for n, o in zip(naive_s, ours_s, strict=True)], "x",
                   better="higher"),
            figure(f"{label} ({rate:g}/s): 429s the naive add-in got", naive_429, "", digits=0),
            figure(f"{label} ({rate:g}/s): our cells with a message", ours_msgs, "", target=0, digits=0),
        ]
    return result("naive_baseline", f"(d) Naive add-in vs ours: {len(cells)} cells, "
                  f"{DISTINCT} distinct requests, {LATENCY_MS} ms latency", figures, runs=runs,
                  setup=setup,
                  notes=["ours: plan (cache misses recorded), fetch_many, compute; naive: one "
                         "GET per cell in order on one keep-alive connection"])


def evaluate_warmup(base_url: str, key: str) -> None:
    """Bootstrap the sandbox's curves (one request per index) before anything is timed."""
    import requests

    for index in ("SOFR", "ESTR", "SONIA", "3M EURIBOR", "6M EURIBOR"):
        requests.get(f"{base_url}/v1/discount_factor", params={"index": index, "date": "1Y",
                     "valuation_time": "2026-11-20T16:00:00Z"}, headers={"x-api-key": key}, timeout=60)


if __name__ == "__main__":
    main_for(run, 3)
