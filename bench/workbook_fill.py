"""A generated workbook of 500 RATES_* formulas (400 distinct requests) computed headless.

    python bench/workbook_fill.py [--runs 1]      (or: python -m bench workbook_fill)

The sandbox runs in-process with 30 ms latency on every answer and its default limit of
20 requests/s with a burst of 50; the client has the same defaults. The workbook is computed
by `WorkbookCalculation.compute`: round 1 records the 400 distinct requests, `fetch_many`
sends them concurrently under the rate limiter, round 2 computes from the cache. One
request at a time would cost 400 x 30 ms of latency on top of the limit; planned, the
fill is bound by the rate limit alone: max(0, (400 - 50) / 20) = 17.5 s.

Figures: requests sent against distinct requests (target: equal), wall time of the
computation against that bound (target: within 1.2x), 429s seen, rounds, and the time
to load the workbook into the engine (reported apart: it does not depend on the service).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

FORMULAS = 500
DISTINCT = 400
LATENCY_MS = 30
RATE, BURST = 20.0, 50
BOUND_SECONDS = max(0.0, (DISTINCT - BURST) / RATE)


def write_workbook(path: Path, valuation: str) -> None:
    """Column A: the 400 distinct formulas; column C: 100 repeats in other spellings of the
    first 100 (lower case, stray spaces), which must cost no request."""
    import xlsxwriter

    from tests.support.cells import distinct_formulas

    formulas = distinct_formulas(DISTINCT, valuation)
    wb = xlsxwriter.Workbook(path)
    ws = wb.add_worksheet("Fill")
    for row, formula in enumerate(formulas):
        ws.write_formula(row, 0, formula)
    for row, formula in enumerate(formulas[:FORMULAS - DISTINCT]):
        ws.write_formula(row, 2, formula.replace('("SOFR"', '(" sofr "').replace('"2D"', '"2d"'))
    wb.close()


def one_run(workdir: Path) -> dict[str, float]:
    from rates_xl.calc.workbook import WorkbookCalculation
    from rates_xl.client import RatesClient
    from rates_xl.sandbox import PAID_KEY
    from rates_xl.sandbox.server import start_in_thread
    from tests.support.cells import VALUATION_TIME

    book = workdir / "fill.xlsx"
    write_workbook(book, VALUATION_TIME)
    loaded_at = time.perf_counter()
    calc = WorkbookCalculation(book)
    load_seconds = time.perf_counter() - loaded_at
    assert calc.formula_count == FORMULAS, calc.formula_count
    with start_in_thread(latency_ms=LATENCY_MS) as sandbox:  # its defaults: 20/s, burst 50
        with RatesClient(sandbox.base_url, api_key=PAID_KEY, rate_limit=RATE, burst=BURST) as client:
            result = calc.compute(client)
            stats = client.stats()
    if result.errors:
        raise RuntimeError(f"{len(result.errors)} error cells, e.g. {result.errors[0]}")
    return {
        "sent": stats["requests_sent"],
        "distinct": result.report.distinct_requests,
        "wall": result.seconds,
        "ratio": result.seconds / BOUND_SECONDS,
        "fetch": result.report.fetch_seconds,
        "rounds": result.report.rounds,
        "throttled_429": stats["errors_by_status"].get("429", 0) + stats["retries"],
        "load": load_seconds,
    }


def measure(runs: int) -> list[dict[str, float]]:
    out = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="rates-bench-") as tmp:
            out.append(one_run(Path(tmp)))
    return out


def run(runs: int = 1) -> dict:
    """For `python -m bench`."""
    from bench.common import figure, result

    rows = measure(runs)
    col = lambda key: [r[key] for r in rows]  # noqa: E731
    return result(
        "workbook_fill", f"{FORMULAS} RATES_* formulas, {DISTINCT} distinct requests, computed headless "
                         f"({LATENCY_MS} ms latency, {RATE:g}/s burst {BURST})",
        [
            figure("requests sent", col("sent"), "requests", target=DISTINCT, better="equal", digits=0),
            figure("distinct requests planned", col("distinct"), "requests", target=DISTINCT, better="equal", digits=0),
            figure("wall time (plan + fetch + compute)", col("wall"), "s", target=1.2 * BOUND_SECONDS),
            figure("wall time / rate-limit bound", col("ratio"), "x", target=1.2, digits=3),
            figure("of which fetching", col("fetch"), "s"),
            figure("429 answers or retries", col("throttled_429"), "", target=0, better="equal", digits=0),
            figure("evaluation rounds", col("rounds"), "", digits=0),
            figure("loading the workbook into the engine", col("load"), "s"),
        ],
        runs=runs,
        setup={"formulas": FORMULAS, "distinct": DISTINCT, "latency_ms": LATENCY_MS, "rate": RATE,
               "burst": BURST, "bound_seconds": BOUND_SECONDS},
        notes=[f"bound = max(0, ({DISTINCT} - {BURST}) / {RATE:g}) = {BOUND_SECONDS:g} s; one request at a time "
               f"would add {DISTINCT} x {LATENCY_MS} ms = {DISTINCT * LATENCY_MS / 1000:g} s of latency"],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args(argv)
    rows = measure(args.runs)
    for i, r in enumerate(rows, 1):
        print(f"run {i}: requests sent {r['sent']} / distinct {r['distinct']}; "
              f"wall {r['wall']:.2f} s vs bound {BOUND_SECONDS:.2f} s = {r['ratio']:.3f}x (target <= 1.2x); "
              f"fetch {r['fetch']:.2f} s; rounds {r['rounds']}; 429s/retries {r['throttled_429']}; "
              f"load {r['load']:.2f} s")
    ok = all(r["sent"] == r["distinct"] == DISTINCT and r["ratio"] <= 1.2 for r in rows)
    print("target met" if ok else "target NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
