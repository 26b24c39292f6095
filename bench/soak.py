"""The reliability soak at full length: 2 minutes of mixed traffic from 8 threads
(tests/support/soak.py; CI runs it for RATES_SOAK_SECONDS, 20 s by default). Figures:
traced memory growth after warm-up, and open sockets, against the stated bounds."""

from __future__ import annotations

import os

from bench.common import figure, main_for, result
from tests.support.sandbox import sandbox_process
from tests.support.soak import EXTRA_SOCKETS_BOUND, MEMORY_GROWTH_BOUND, run_soak

SECONDS = float(os.environ.get("RATES_SOAK_SECONDS", "120"))
THREADS = 8


def run(runs: int = 1) -> dict:
    from rates_xl.sandbox import PAID_KEY

    results = []
    for _ in range(runs):
        with sandbox_process(rate_limit=200, burst=50, latency_ms=10) as service:
            results.append(run_soak(service.base_url, PAID_KEY, SECONDS, THREADS))
    col = lambda name: [getattr(r, name) for r in results]  # noqa: E731
    last = results[-1]
    half = len(last.samples) // 2
    first_half = [m for _, m, _ in last.samples[:half]] or [0]
    second_half = [m for _, m, _ in last.samples[half:]] or [0]
    return result(
        "soak", f"Soak: {SECONDS:g} s of mixed traffic from {THREADS} threads",
        [
            figure("traced memory growth after warm-up", [r.memory_growth / 1e3 for r in results], "kB",
                   target=MEMORY_GROWTH_BOUND / 1e3),
            figure("traced memory after warm-up", [r.memory_start / 1e3 for r in results], "kB"),
            figure("traced memory, peak sample", [r.memory_peak / 1e3 for r in results], "kB"),
            figure("mean sample, 2nd half - 1st half",
                   [(sum(second_half) / len(second_half) - sum(first_half) / len(first_half)) / 1e3], "kB"),
            figure("most open sockets (beyond before)", [r.sockets_max - r.sockets_before for r in results], "",
                   target=THREADS + EXTRA_SOCKETS_BOUND, digits=0),
            figure("sockets left after close (cache kept)", [r.sockets_after_close - r.sockets_before for r in results],
                   "", digits=0),
            figure("sockets left after close + clear_cache",
                   [r.sockets_after_clear - r.sockets_before for r in results], "", target=0, digits=0),
            figure("worksheet calls", col("calls"), "", digits=0),
            figure("requests sent", col("requests_sent"), "", digits=0),
            figure("exceptions escaped", [len(r.escaped) for r in results], "", target=0, digits=0),
        ],
        runs=runs,
        setup={"seconds": SECONDS, "threads": THREADS, "messages": last.messages,
               "samples (t, bytes, sockets)": last.samples},
        notes=["memory: tracemalloc, this process only (the sandbox runs in a child process); "
               "sockets: /proc/self/fd",
               "cached refusals (404/422) keep their traceback and with it an HTTP connection: "
               "those sockets outlive client.close() until the cache is cleared"],
    )


if __name__ == "__main__":
    main_for(run, 1)
