"""Headless calculation speed and memory, per engine: `swap_pricer.xlsx` from a cold process
to its last evaluation round (load + every round + the fetch against the sandbox), and a
12,000-formula workbook (load + compute + values-frozen copy, peak memory).

    python -m bench calc_speed                 the fast engine (auto), and formulas on swap_pricer
    python -m bench.calc_speed --formulas-12k  also formulas on the 12,000-formula book (~1-2 min, ~1 GB)

With ../shared/corpus/excel present, also formulas_test.xlsx with --full (every formula) and a
book with nothing to recompute in default mode (against reading the file alone). `cpu` is the
process's CPU time over load + compute: on the shared 2-core machine (load average often 10 to
20) it moves far less than the wall time, so old and new code are compared on it too.

Each measurement runs in a fresh process (`--child`), so imports, loading and peak memory
(ru_maxrss) are the workbook's own.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIG = ROOT / "tests" / "calc" / "corpus" / "source" / "generated_12000.xlsx"
#: Excel-made books (never copied into the project): the --full bound's book, and one with no
#: RATES_*, no volatile call and every value cached (default mode computes nothing there).
EXCEL = ROOT.parent / "shared" / "corpus" / "excel"
FULL_BOOK = EXCEL / "formulas_test.xlsx"
SETTLED_BOOK = EXCEL / "ironcalc_XLOOKUP.xlsx"
LATENCY_MS = 30


def child(book: str, engine_name: str, mode: str = "default") -> dict:
    """Run in a fresh process: time one workbook from import to the frozen copy (`mode`:
    "default", only what changed recomputed; "full", every formula)."""
    import resource
    import tempfile

    started = time.perf_counter()
    cpu: dict[str, float] = {}  # process time (every thread) over load + compute
    from rates_xl.calc.workbook import WorkbookCalculation

    imported = time.perf_counter()
    if book == "swap_pricer":
        from rates_xl.client import RatesClient
        from rates_xl.sandbox import PAID_KEY
        from rates_xl.sandbox.server import start_in_thread
        from rates_xl.templates import template_path
        from tests.support.cells import VALUATION_TIME

        with start_in_thread(latency_ms=LATENCY_MS) as sandbox:
            with RatesClient(sandbox.base_url, api_key=PAID_KEY) as client:
                begin = time.perf_counter()
                cpu["begin"] = time.process_time()
                calc = WorkbookCalculation(template_path("swap_pricer"), engine_name=engine_name,
                                           full=mode == "full")
                loaded = time.perf_counter()
                result = calc.compute(client, valuation_time=VALUATION_TIME)
                computed = time.perf_counter()
                cpu["end"] = time.process_time()
    else:
        import os

        import openpyxl

        from bench import SERVICE_SETTINGS

        for name in SERVICE_SETTINGS:  # no service asked: a user's environment, no RATES_* set
            os.environ.pop(name, None)
        begin = time.perf_counter()
        openpyxl.load_workbook(book)  # what reading the file alone costs
        read = time.perf_counter() - begin
        begin = time.perf_counter()
        cpu["begin"] = time.process_time()
        calc = WorkbookCalculation(book, engine_name=engine_name, full=mode == "full")
        loaded = time.perf_counter()
        result = calc.compute()
        computed = time.perf_counter()
        cpu["end"] = time.process_time()
    with tempfile.TemporaryDirectory() as tmp:
        calc.freeze(result, Path(tmp) / "out.xlsx")
    frozen = time.perf_counter()
    return {
        "engine": calc.engine_name, "formulas": result.formula_cells, "errors": len(result.errors),
        "import": imported - started, "load": loaded - begin, "compute": computed - loaded,
        "freeze": frozen - computed, "wall": computed - begin,
        "cpu": cpu["end"] - cpu["begin"], "wall_with_freeze": frozen - begin,
        "rounds": result.report.rounds, "round_seconds": calc.round_seconds,
        "fetch": result.report.fetch_seconds, "requests": result.report.distinct_requests,
        "recomputed_cells": result.recomputed, "checked": result.checked, "stale": len(result.stale),
        "read": locals().get("read", 0.0),
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def measure(book: str, engine_name: str, mode: str = "default") -> dict:
    out = subprocess.run([sys.executable, "-m", "bench.calc_speed", "--child", book, engine_name, mode],
                         cwd=ROOT, capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        raise RuntimeError(f"{book} / {engine_name}: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(runs: int = 3, formulas_12k: bool = False) -> dict:
    """For `python -m bench`."""
    from bench.common import figure, result

    rows = {("swap_pricer", "auto"): [measure("swap_pricer", "auto") for _ in range(runs)],
            ("swap_pricer", "formulas"): [measure("swap_pricer", "formulas")],
            ("big", "auto"): [measure(str(BIG), "auto") for _ in range(runs)]}
    if FULL_BOOK.exists():
        rows[("full", "auto")] = [measure(str(FULL_BOOK), "auto", "full")]
        rows[("settled", "auto")] = [measure(str(SETTLED_BOOK), "auto") for _ in range(runs)]
    if formulas_12k:
        rows[("big", "formulas")] = [measure(str(BIG), "formulas")]

    def col(key: tuple, field: str) -> list[float]:
        return [r[field] for r in rows[key]]

    def later_rounds(key: tuple) -> list[float]:
        return [max(r["round_seconds"][1:] or [0.0]) for r in rows[key]]

    figures = [
        figure("swap_pricer.xlsx, fast: load + every round (wall)", col(("swap_pricer", "auto"), "wall"), "s", target=1.5),
        figure("  of which loading into the engine", col(("swap_pricer", "auto"), "load"), "s"),
        figure("  first evaluation round", [r["round_seconds"][0] for r in rows[("swap_pricer", "auto")]], "s"),
        figure("  slowest later round (RATES_* cells and their dependents only)",
               later_rounds(("swap_pricer", "auto")), "s"),
        figure("  evaluation rounds", col(("swap_pricer", "auto"), "rounds"), "", digits=0),
        figure("  distinct requests (30 ms latency, fetched concurrently)", col(("swap_pricer", "auto"), "requests"), "", digits=0),
        figure("  peak memory (whole process, sandbox included)", col(("swap_pricer", "auto"), "peak_mb"), "MB", digits=0),
        figure("  CPU time", col(("swap_pricer", "auto"), "cpu"), "s"),
        figure("swap_pricer.xlsx, formulas: load + every round (wall)", col(("swap_pricer", "formulas"), "wall"), "s"),
        figure("  of which loading into the engine", col(("swap_pricer", "formulas"), "load"), "s"),
        figure("  peak memory", col(("swap_pricer", "formulas"), "peak_mb"), "MB", digits=0),
        figure("12,000 formulas, fast: load + compute (wall)", col(("big", "auto"), "wall"), "s", target=3.0),
        figure("  CPU time", col(("big", "auto"), "cpu"), "s"),
        figure("  the same with the values-frozen copy written", col(("big", "auto"), "wall_with_freeze"), "s"),
        figure("  peak memory", col(("big", "auto"), "peak_mb"), "MB", target=400.0, digits=0),
    ]
    if ("full", "auto") in rows:
        figures += [
            figure("formulas_test.xlsx --full: load + compute (wall)", col(("full", "auto"), "wall"), "s", target=15.0),
            figure("  CPU time", col(("full", "auto"), "cpu"), "s"),
            figure("  peak memory", col(("full", "auto"), "peak_mb"), "MB", target=600.0, digits=0),
            figure(f"{SETTLED_BOOK.name}, nothing to recompute: load + compute (wall)", col(("settled", "auto"), "wall"), "s"),
            figure("  reading the file alone (openpyxl)", col(("settled", "auto"), "read"), "s"),
            figure("  the same with the values-frozen copy written", col(("settled", "auto"), "wall_with_freeze"), "s"),
        ]
    if formulas_12k:
        figures += [figure("12,000 formulas, formulas: load + compute (wall)", col(("big", "formulas"), "wall"), "s"),
                    figure("  peak memory", col(("big", "formulas"), "peak_mb"), "MB", digits=0)]
    return result("calc_speed", "headless calculation: swap_pricer.xlsx and a 12,000-formula workbook, per engine",
                  figures, runs=runs, setup={"latency_ms": LATENCY_MS, "big": BIG.name},
                  notes=["each measurement in a fresh process; formulas runs once (it is slow)"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=3, metavar=("BOOK", "ENGINE", "MODE"), help=argparse.SUPPRESS)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--formulas-12k", action="store_true", help="also formulas on the 12,000-formula book")
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0
    from bench.common import report

    report(run(args.runs, args.formulas_12k))
    return 0


if __name__ == "__main__":
    sys.exit(main())
