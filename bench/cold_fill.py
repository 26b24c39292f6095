"""(a) Cold fill: 1000 distinct requests through `fetch_many`, against a sandbox with 30 ms
added latency and limits scaled up to keep the run short (200/s, burst 50; the client is set
the same). Figure of merit: wall time / the ideal bound max(0, (N - burst) / rate); 429s
received (retries after a 429 plus final 429 errors; the sandbox only ever sends them when
the client exceeds its limit).
"""

from __future__ import annotations

import time

from bench.common import figure, main_for, result, timed
from tests.support.sandbox import sandbox_process
from tests.support.sends import most_in_window, recording_sends

N = 1000
RATE, BURST, LATENCY_MS = 200.0, 50, 30
WIDE = 48  # fetch threads for the second variant: rate x round trip, with room
INDICES = ("SOFR", "ESTR", "SONIA", "3M EURIBOR", "6M EURIBOR")


def distinct_keys(client, n: int = N):
    """n distinct swap-rate requests: five indices x monthly maturities, as a grid of cells."""
    per_index = -(-n // len(INDICES))
    keys = [
        client.request_key("swap_rate", index=index, start_date="0D", maturity_date=f"{m}M",
                           fixed_leg_frequency="1Y")
        for index in INDICES for m in range(1, per_index + 1)
    ]
    return keys[:n]


def one_run(base_url: str, key: str, **settings) -> dict[str, float]:
    from rates_xl.client import RatesClient, RatesError

    with RatesClient(base_url=base_url, api_key=key, rate_limit=RATE, burst=BURST, **settings) as client:
        keys = distinct_keys(client)
        with recording_sends() as sends:
            wall, answers = timed(lambda: client.fetch_many(keys))
        failures = [a for a in answers.values() if isinstance(a, RatesError)]
        stats = client.stats()
    ideal = max(0.0, (N - BURST) / RATE)
    got_429 = sends.count_retries("RateLimited") + stats["errors_by_status"].get("429", 0)
    return {
        "wall": wall, "ratio": wall / ideal, "throughput": stats["requests_sent"] / wall,
        "throttled": stats["throttled_waits"], "429s": got_429, "failures": len(failures),
        "sent": stats["requests_sent"], "peak_1s": most_in_window(sends.sent, 1.0),
        "peak_10ms": most_in_window(sends.sent, 0.010),
    }


def run(runs: int = 5) -> dict:
    from rates_xl.sandbox import PAID_KEY

    variants = {"default": {}, f"max_workers={WIDE}": {"max_workers": WIDE}}
    rows: dict[str, list[dict]] = {name: [] for name in variants}
    with sandbox_process(rate_limit=RATE, burst=BURST, latency_ms=LATENCY_MS) as sandbox:
        # Bootstrap the sandbox's curves first: the figure is about the client, not QuantLib.
        warm = one_run_warmup(sandbox.base_url, PAID_KEY)
        for _ in range(runs):
            for name, settings in variants.items():
                time.sleep(BURST / RATE + 0.5)  # let the service's bucket fill up again
                rows[name].append(one_run(sandbox.base_url, PAID_KEY, **settings))
    figures = []
    for name, got in rows.items():
        col = lambda field, got=got: [r[field] for r in got]  # noqa: E731
        figures += [
            figure(f"{name}: wall time", col("wall"), "s"),
            figure(f"{name}: wall / ideal (N-burst)/rate", col("ratio"), "x", target=1.05),
            figure(f"{name}: 429s received", col("429s"), "", target=0, digits=0),
            figure(f"{name}: cells failed", col("failures"), "", target=0, digits=0),
            figure(f"{name}: requests sent", col("sent"), "", digits=0),
            figure(f"{name}: throttled waits", col("throttled"), "", digits=0),
            figure(f"{name}: requests per second", col("throughput"), "/s"),
            figure(f"{name}: most sent in any 1 s", col("peak_1s"), "", target=BURST + RATE, digits=0),
            figure(f"{name}: most sent in any 10 ms", col("peak_10ms"), "", target=BURST, digits=0),
        ]
    return result(
        "cold_fill", f"(a) Cold fill: {N} distinct requests, {LATENCY_MS} ms latency, "
        f"{RATE:g}/s burst {BURST}",
        figures, runs=runs,
        setup={"N": N, "rate_limit": RATE, "burst": BURST, "latency_ms": LATENCY_MS,
               "ideal_seconds": (N - BURST) / RATE, "indices": INDICES, "warmup": warm},
        notes=[f"ideal bound {(N - BURST) / RATE:.2f} s; sandbox in its own process, "
               "curves bootstrapped before timing; each run a fresh client (cold cache)",
               "default: the client's own settings (fetch_many uses max_workers=16 threads); "
               "throttled waits near 0 would mean the limiter never bound and the workers, "
               "each waiting one round trip, were the bottleneck",
               f"max_workers={WIDE}: the same client with more fetch threads"],
    )


def one_run_warmup(base_url: str, key: str) -> dict:
    """One request per index so every curve is bootstrapped before the timed runs."""
    from rates_xl.client import RatesClient

    with RatesClient(base_url=base_url, api_key=key, rate_limit=RATE, burst=BURST) as client:
        keys = distinct_keys(client)
        firsts = [k for i, k in enumerate(keys) if i % (N // len(INDICES)) == 0]
        client.fetch_many(firsts)
        return {"requests": client.stats()["requests_sent"]}


if __name__ == "__main__":
    main_for(run, 5)
