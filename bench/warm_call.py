"""Median time of a warm RATES_SWAP call: argument coercion plus a cache hit (target <= 30 us).

    python bench/warm_call.py [--batches 200] [--calls 1000]

Starts the sandbox on loopback, makes one call to fill the cache, then times the xlwings
UDF as Excel calls it (Python side only: the COM round trip Excel adds is not measured).
Figures printed, median over batches of the per-call mean:

- warm call: what a recalculated cell costs (validation is memoised on the raw values);
- cold validation: the same call with the validation memo bypassed (pydantic model,
  coercers, request key) plus the cache hit: what a cell with new arguments costs
  before its request;
- under a refresh scope: a warm call whose caller is looked up in the refresh registry.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from types import SimpleNamespace


def _median_us(fn, batches: int, calls: int) -> float:
    means = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        means.append((time.perf_counter() - start) / calls)
    return statistics.median(means) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=200)
    parser.add_argument("--calls", type=int, default=1000)
    opts = parser.parse_args(argv)

    from rates_xl.addin.classic import refresh
    from rates_xl.addin.classic.udfs import RATES_SWAP
    from rates_xl.client import RatesClient
    from rates_xl.functions import FUNCTIONS, core, set_client
    from rates_xl.sandbox import PAID_KEY
    from rates_xl.sandbox.server import start_in_thread

    cells = ("sofr", " 0d", " 10y ", "1Y", None, "act/360", None, None)  # as a cell may pass them
    spec = FUNCTIONS["RATES_SWAP"]
    with start_in_thread() as sandbox, RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY) as client:
        set_client(client)
        first = RATES_SWAP(*cells)
        if not isinstance(first, float):
            print(f"the first call failed: {first}", file=sys.stderr)
            return 1
        sent = client.stats()["requests_sent"]

        warm = _median_us(lambda: RATES_SWAP(*cells), opts.batches, opts.calls)

        def cold() -> None:
            checked = core.validate(spec, cells)
            params = {a.param: checked[a.name] for a in spec.args if a.param and checked[a.name] is not None}
            client.get_key(RatesClient.request_key(spec.endpoint, **params))

        cold_us = _median_us(cold, max(20, opts.batches // 4), max(100, opts.calls // 4))

        refresh.request_refresh(refresh.RefreshScope("Book1", "Sheet1"), moment=time.time() - 3600)
        caller = SimpleNamespace(address="$B$2", sheet=SimpleNamespace(name="Sheet1", book=SimpleNamespace(name="Book1")))
        scoped = _median_us(lambda: RATES_SWAP(*cells, caller=caller), opts.batches, opts.calls)
        refresh.clear_scopes()

        assert client.stats()["requests_sent"] == sent, "the timed calls must all be cache hits"
        set_client(None)

    print(f"warm RATES_SWAP call (coercion + cache hit): median {warm:.1f} us per call  (target <= 30 us)")
    print(f"cold validation (memo bypassed) + cache hit:  median {cold_us:.1f} us per call")
    print(f"warm call under a refresh scope (caller looked up): median {scoped:.1f} us per call")
    print(f"({opts.batches} batches x {opts.calls} calls; Python {sys.version.split()[0]}; one request sent in all)")
    return 0


def run(runs: int = 5) -> dict:
    """For `python -m bench`: the three figures of `main`, median over `runs` runs of
    200 batches x 1000 calls each (the figures printed by each run are captured)."""
    import contextlib
    import io
    import re

    from bench.common import figure, result

    figures: dict[str, list[float]] = {"warm": [], "cold": [], "scoped": []}
    for _ in range(runs):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            if main([]) != 0:
                raise RuntimeError("warm_call: the first call failed")
        found = [float(x) for x in re.findall(r"median ([0-9.]+) us", out.getvalue())]
        for name, value in zip(figures, found, strict=True):
            figures[name].append(value)
    return result(
        "warm_call", "(c') One warm RATES_SWAP call (coercion + cache hit)",
        [
            figure("warm RATES_SWAP call", figures["warm"], "us", target=30),
            figure("cold validation (memo bypassed) + cache hit", figures["cold"], "us"),
            figure("warm call under a refresh scope", figures["scoped"], "us"),
        ],
        runs=runs,
    )


if __name__ == "__main__":
    sys.exit(main())
