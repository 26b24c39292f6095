"""`python -m bench`: run every benchmark, print each table, write bench/results/*.json.

    python -m bench                    everything, each with its default number of runs
    python -m bench cold_fill startup  only these
    python -m bench --runs 3           this many runs each (medians are quoted)
    python -m bench --list             the benchmarks and what they measure

Each benchmark is a module of this package exposing `run(runs: int) -> dict` (see
bench/common.py for the result's shape). A module that is missing or fails is reported
and the others still run; the exit code is 1 if any failed.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
import traceback

# The order of the README's table: the letters of issue 7, section 1.
BENCHMARKS = {
    "cold_fill": "(a) cold fill of 1000 distinct requests vs the ideal bound; 429s",
    "duplicates": "(b) every request in 10 cells: requests sent / distinct",
    "warm_recalc": "(c) warm recalculation of 10,000 cells: microseconds per call",
    "warm_call": "(c') one warm RATES_SWAP call: microseconds (the functions' own figure)",
    "naive_baseline": "(d) one request per cell, no cache, one at a time, vs ours",
    "startup": "(e) import time of the UDF module (rates_xl.addin.classic.udfs) in a fresh process",
    "sandbox_speed": "(f) sandbox: swap_rate requests per second, server time per request",
    "workbook_fill": "a template workbook computed headless by the plan/fetch loop",
    "officejs_fill": "Office.js host: 400 distinct cells in one batched POST over TLS vs the rate-limit bound",
    "serve_load": "rates-xl serve: GET latency under 45 held batches and 100 hanging connections",
    "excel_refresh": "Refresh Workbook on the serial-Excel stand-in: today's path vs plan/fetch/compute",
    "excel_async": "500 RATES_ cells pasted, asynchronous through RTD: Excel's main thread held, time to final",
    "calc_speed": "headless calculation per engine: swap_pricer.xlsx and a 12,000-formula workbook",
    "soak": "reliability soak at full length (2 minutes, 8 threads): memory and sockets",
    "hostile": "a hostile service: trickling body vs the cell and headless budgets, a 50 MB 500, a redirect loop",
    "hostile_setup": "a cell vs a trickled TLS handshake, a trickled proxy CONNECT, a dead team claim",
    "team": "team backend: 4 processes share one key's limit via Redis; history reopened from disk",
    "team_fair": "team server: one user's 10 cells while another's 5,000 fill at the limit",
    "team_serve": "2 team-server processes, one Redis: 20 users x 100 cells at once; 10 cells during a 5,000 fill",
    "team_live": "team server: another user's one-cell batch while one user's Live subscriptions flood",
    "signin": "team server sign-in behind a trickled and a 60 MB JWKS: known keys, a cold start, memory",
    "live": "Live mode: 200 live cells at half the limit, refreshed within lifetime + 5 s; typed formulas meanwhile",
    "interrupt": "Ctrl+C: SIGINT to the end of a command waiting on a silent service (call, calc)",
    "risk": "rates-xl risk: a 5-bucket ladder of the swap pricer's outputs vs bump-and-recompute on sandbox --shift",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help="benchmarks to run (default: all)")
    parser.add_argument("--runs", type=int, default=None, help="runs per benchmark (default: its own)")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    args = parser.parse_args(argv)
    if args.list:
        for name, what in BENCHMARKS.items():
            print(f"{name:16} {what}")
        return 0
    unknown = [n for n in args.names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(unknown)}; see --list")

    from bench.common import machine, print_table, report, write_json

    info = machine()
    print(f"machine: {info['cpu']}, {info['cores']} cores, Python {info['python']}, {info['platform']}")
    summary, failed = [], []
    for name in args.names or list(BENCHMARKS):
        print(f"\n== {name}: {BENCHMARKS[name]}")
        started = time.perf_counter()
        try:
            module = importlib.import_module(f"bench.{name}")
            run = getattr(module, "run", None)
            if run is None:
                raise RuntimeError(f"bench/{name}.py has no run(runs) function")
            res = run(args.runs) if args.runs is not None else run()
        except ModuleNotFoundError as exc:
            if exc.name != f"bench.{name}":
                raise
            print(f"   skipped: bench/{name}.py does not exist yet")
            failed.append(name)
            continue
        except Exception:
            traceback.print_exc()
            failed.append(name)
            continue
        if isinstance(res, dict) and "figures" in res:
            report(res)
        else:  # a result in another shape: keep it, print it as JSON
            res = {"name": name, "title": BENCHMARKS[name], "runs": args.runs, "figures": [], "raw": res}
            print(json.dumps(res["raw"], indent=2, default=str))
            write_json(res)
        res["seconds"] = round(time.perf_counter() - started, 1)
        summary.append(res)

    overview = {
        "name": "summary", "title": "Every figure with a target", "runs": args.runs or "default",
        "figures": [dict(f, metric=f"{r['name']}: {f['metric']}") for r in summary
                    for f in r["figures"] if f.get("target") is not None],
        "notes": [f"failed or missing: {', '.join(failed)}"] if failed else [],
        "benchmarks": {r["name"]: r.get("seconds") for r in summary},
    }
    print()
    print_table(overview)
    path = write_json(overview)
    print(f"  wrote {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
