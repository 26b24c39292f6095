"""Sandbox speed: server time per swap_rate request on a cached curve, and per bootstrap.

    python bench/sandbox_speed.py [--requests 500]

Three figures:
- bootstrap: QuantLib bootstrap of one index's curve for one day (cache off), per index;
- swap_rate, in-process: the market call alone on a cached curve;
- swap_rate, server: the whole FastAPI app (routing, validation, key and limit checks,
  pricing, JSON) called as ASGI, without the network, on a cached curve;
- swap_rate, over HTTP: a keep-alive client on loopback against the running sandbox.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import statistics
import time
from datetime import date, timedelta

from rates_xl.sandbox import PAID_KEY, scenario
from rates_xl.sandbox import conventions as cv
from rates_xl.sandbox.app import create_app
from rates_xl.sandbox.market import Market
from rates_xl.sandbox.server import start_in_thread

QUERY = ("index=SOFR&start_date=2D&maturity_date=5Y&fixed_leg_frequency=1Y"
         "&valuation_time=2026-03-10T16:00:00Z")


def bench_bootstrap(days: int = 20) -> dict[str, float]:
    out = {}
    for index in cv.INDEXES:
        market = Market(seed=0)  # a fresh cache
        conv = cv.INDEXES[index]
        if conv.discount_index:  # time this curve alone, not its discount curve's bootstrap
            for k in range(days):
                market.curve(conv.discount_index, date(2026, 1, 5) + timedelta(days=k))
        times = []
        for k in range(days):
            day = date(2026, 1, 5) + timedelta(days=k)
            scenario.index_quotes(0, index, scenario.market_date(conv.calendar, day))  # quotes apart
            t = time.perf_counter()
            market.curve(index, day)
            times.append(time.perf_counter() - t)
        out[index] = 1000 * statistics.median(times)
    return out


def bench_in_process(n: int) -> float:
    market = Market(seed=0)
    day = date(2026, 3, 10)
    market.curve("SOFR", day)
    t = time.perf_counter()
    for _ in range(n):
        market.swap_rate("SOFR", day, date(2026, 3, 12), "5Y", "12M", "12M", "Actual360", "Actual360")
    return 1000 * (time.perf_counter() - t) / n


def bench_asgi(n: int) -> float:
    app = create_app(rate_limit=1e9, burst=10**9)
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
             "path": "/v1/swap_rate", "raw_path": b"/v1/swap_rate", "query_string": QUERY.encode(),
             "headers": [(b"x-api-key", PAID_KEY.encode()), (b"host", b"bench")],
             "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1), "scheme": "http", "root_path": ""}

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            assert message["status"] == 200, message

    async def run(count):
        for _ in range(count):
            await app(dict(scope), receive, send)

    asyncio.run(run(5))
    t = time.perf_counter()
    asyncio.run(run(n))
    return 1000 * (time.perf_counter() - t) / n


def bench_http(n: int) -> float:
    with start_in_thread(rate_limit=1e9, burst=10**9) as sandbox:
        conn = http.client.HTTPConnection("127.0.0.1", sandbox.port)
        times = []
        for _ in range(n + 5):
            t = time.perf_counter()
            conn.request("GET", f"/v1/swap_rate?{QUERY}", headers={"x-api-key": PAID_KEY})
            response = conn.getresponse()
            response.read()
            assert response.status == 200
            times.append(time.perf_counter() - t)
        return 1000 * statistics.median(times[5:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=500)
    args = parser.parse_args()
    boots = bench_bootstrap()
    print("bootstrap, ms per curve (median of 20 days):")
    for index, ms in boots.items():
        print(f"  {index:<12} {ms:6.2f}")
    print(f"  range        {min(boots.values()):.2f} .. {max(boots.values()):.2f}")
    print("swap_rate (SOFR 5Y, cached curve), ms per request:")
    print(f"  in-process pricing   {bench_in_process(args.requests):6.3f}")
    print(f"  server (ASGI app)    {bench_asgi(args.requests):6.3f}")
    print(f"  over HTTP, loopback  {bench_http(args.requests):6.3f}  (median, client included)")


def run(runs: int = 5, requests: int = 500) -> dict:
    """For `python -m bench`: each figure's median over `runs` repetitions."""
    from bench.common import figure, result

    boots = [bench_bootstrap(days=10) for _ in range(min(runs, 3))]
    in_process = [bench_in_process(requests) for _ in range(runs)]
    asgi = [bench_asgi(requests) for _ in range(runs)]
    http = [bench_http(requests) for _ in range(runs)]
    per_index = {index: statistics.median(b[index] for b in boots) for index in boots[0]}
    return result(
        "sandbox_speed", "(f) Sandbox: swap_rate on a cached curve (SOFR 5Y), and bootstraps",
        [
            figure("swap_rate server time (ASGI app, no network)", asgi, "ms", target=5),
            figure("swap_rate pricing alone (in-process)", in_process, "ms"),
            figure("swap_rate over HTTP, loopback, one connection", http, "ms"),
            figure("swap_rate requests per second, one connection", [1000 / ms for ms in http], "/s", better="higher"),
            figure("bootstrap, fastest index", [min(b.values()) for b in boots], "ms"),
            figure("bootstrap, slowest index", [max(b.values()) for b in boots], "ms"),
        ],
        runs=runs, setup={"requests_per_run": requests, "bootstrap_ms_by_index": per_index},
        notes=["bootstrap: median over 10 days per index, cache off; "
               f"{len(boots)} runs for the bootstraps"],
    )


if __name__ == "__main__":
    main()
