"""500 new RATES_ cells pasted into "Excel" and computed by ordinary calculation, with the
asynchronous path (RTD): how long Excel's main thread is held, and when every cell is final.

    python -m bench excel_async [--runs 1]      (or: python bench/excel_async.py --runs 1)

The cells: 400 distinct formulas and 100 respellings of the first 100 (bench/workbook_fill.py's
layout), pasted at once into a new workbook of the serial-Excel stand-in
(tests/support/serial_excel.py: one cell at a time on one thread, the real UDFs) with Excel's
RTD machinery (tests/support/serial_excel_rtd.py: RefreshData at most once per 2 s, the
default ThrottleInterval, only when idle) and the add-in's RTD server (addin/classic/rtd.py).
The service: the sandbox in its own process, 100 ms latency, its real 20/s burst 50. Each run
a fresh client (nothing cached).

Figures: the main thread's time inside calculations (the paste's, and each pull's
recalculation), all of it and the part spent in the UDFs (the stand-in's formula engine is
the rest: Excel's own would be faster); the time from the paste to the last cell final, over
the service's bound max(0, (400 - 50) / 20) = 17.5 s; requests sent; 429s.
Targets (issue 21): blocked <= 0.5 s in all; final <= 1.15x the bound; 0 429s; 400 sent.
Before (Excel computing each miss synchronously): 2.58x the bound, frozen throughout.

Manual calculation (issue 28, `--manual` rows): the same cells in manual mode, one F9, then
Excel left alone: the add-in's RatesFill (scheduled with Application.OnTime after the F9) runs
the plan/fetch/compute loop on Excel's main thread. Figure: F9 to every cell final, over the
same bound (target 1.15x); before issue 28 a second F9 was needed (a chain: one more per link).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

LATENCY_MS = 100
RATE, BURST = 20.0, 50
FORMULAS, DISTINCT = 500, 400
BOUND_SECONDS = max(0.0, (DISTINCT - BURST) / RATE)


def paste_cells(valuation: str) -> dict[str, str]:
    from tests.support.cells import distinct_formulas

    formulas = distinct_formulas(DISTINCT, valuation)
    cells = {f"A{row}": f for row, f in enumerate(formulas, 1)}
    for row, f in enumerate(formulas[:FORMULAS - DISTINCT], 1):
        cells[f"C{row}"] = f.replace('("SOFR"', '(" sofr "').replace('"2D"', '"2d"')
    return cells


def one_run(base_url: str, cells: dict[str, str], manual: bool = False) -> dict[str, float]:
    from rates_xl.addin.classic import rtd
    from rates_xl.client import RatesClient
    from rates_xl.functions import set_client
    from rates_xl.sandbox import PAID_KEY
    from tests.support.async_excel import async_app, settle, stop_async

    app = async_app()  # Excel's default throttle interval: 2 s
    book = app.add_book("Paste.xlsx", {"Fill": {}})
    sheet = book.sheets[0]
    client = RatesClient(base_url, api_key=PAID_KEY, rate_limit=RATE, burst=BURST)
    set_client(client)
    # Wall time, and the main thread's CPU time (what the add-in costs Excel's thread; the
    # wall time also counts other processes on a shared machine).
    held = {"calc": 0.0, "udf": 0.0, "calc_cpu": 0.0, "udf_cpu": 0.0}
    calculate, call_udf = app.calculate, app.call_udf

    def timed_calculate() -> None:
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            calculate()
        finally:
            held["calc"] += time.perf_counter() - started
            held["calc_cpu"] += time.thread_time() - cpu

    def timed_udf(name, args):
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            return call_udf(name, args)
        finally:
            held["udf"] += time.perf_counter() - started
            held["udf_cpu"] += time.thread_time() - cpu

    app.calculate, app.call_udf = timed_calculate, timed_udf
    final_at = [None]

    def all_final() -> bool:
        return all(isinstance(sheet.values.get(cell), float) for cell in sheet.formulas)

    try:
        # The paste: cells typed and parsed (the stand-in's formula compiler is slow and is
        # not Excel's: not timed), then the one recalculation a paste makes.
        app.calculation = "manual"
        sheet.paste(cells)
        if not manual:
            app.calculation = "automatic"
        started = time.perf_counter()
        app.calculate()  # automatic: the paste's recalculation; manual: the user's F9
        paste_seconds = time.perf_counter() - started
        paste_udfs, paste_udfs_cpu = held["udf"], held["udf_cpu"]

        def on_pull(_seconds: float) -> None:
            if final_at[0] is None and all_final():
                final_at[0] = time.perf_counter() - started

        if manual:  # Excel left alone after the F9: OnTime runs RatesFill when Ready
            ends = started + 120
            while not all_final() and time.perf_counter() < ends:
                if not (app.idle() or app.rtd.idle()):
                    time.sleep(0.005)
            if all_final():
                final_at[0] = time.perf_counter() - started
        pulls = settle(app, timeout=120, on_pull=on_pull)
        stats = client.stats()
        submitted = rtd.waits.submitted
    finally:
        set_client(None)
        client.close()
        stop_async()
    if final_at[0] is None or not all_final():
        bad = [v for v in sheet.values.values() if not isinstance(v, float)][:3]
        raise RuntimeError(f"not every cell is final: e.g. {bad}")
    return {
        "blocked": held["calc"], "in_udfs": held["udf"], "paste": paste_seconds, "paste_udfs": paste_udfs,
        "calc_cpu": held["calc_cpu"], "udf_cpu": held["udf_cpu"], "paste_udfs_cpu": paste_udfs_cpu,
        "load": os.getloadavg()[0],
        "final": final_at[0], "ratio": final_at[0] / BOUND_SECONDS,
        "sent": stats["requests_sent"], "submitted": submitted,
        "throttled_429": stats["errors_by_status"].get("429", 0) + stats["retries"],
        "pulls": pulls, "udf_calls": app.udf_calls,
    }


def measure(runs: int, manual: bool = False) -> list[dict[str, float]]:
    from bench.excel_refresh import _warm_sandbox
    from tests.support.cells import VALUATION_TIME
    from tests.support.sandbox import sandbox_process

    cells = paste_cells(VALUATION_TIME)
    assert len(cells) == FORMULAS
    rows = []
    with sandbox_process(latency_ms=LATENCY_MS, rate_limit=RATE, burst=BURST) as sandbox:
        _warm_sandbox(sandbox.base_url)
        for _ in range(runs):
            time.sleep(BURST / RATE + 0.5)  # let the service's bucket fill up again
            rows.append(one_run(sandbox.base_url, cells, manual))
            r = rows[-1]
            print(f"  blocked {r['blocked']:.3f} s, final {r['final']:.2f} s ({r['ratio']:.3f}x)", flush=True)
    return rows


def run(runs: int = 1) -> dict:
    """For `python -m bench`."""
    from bench.common import figure, result

    rows = measure(runs)
    print("manual calculation: one F9, then Excel left alone", flush=True)
    manual = measure(runs, manual=True)
    col = lambda key: [r[key] for r in rows]  # noqa: E731
    mcol = lambda key: [r[key] for r in manual]  # noqa: E731
    figures = [
        figure("main thread held by the RATES_ UDFs, in all (paste + every pull), CPU time", col("udf_cpu"), "s",
               target=0.5),
        figure("  the same, wall time", col("in_udfs"), "s"),
        figure("  the paste's calculation: in the UDFs, CPU time", col("paste_udfs_cpu"), "s"),
        figure("main thread held by calculations, all of it (the stand-in's formula engine too), CPU",
               col("calc_cpu"), "s"),
        figure("  the same, wall time", col("blocked"), "s"),
        figure("  the paste's own calculation (500 cells, each answering #N/A at once), wall", col("paste"), "s"),
        figure("paste to every cell final", col("final"), "s"),
        figure(f"paste to every cell final / {BOUND_SECONDS:g} s bound", col("ratio"), "x", target=1.15,
               digits=3),
        figure("requests sent", col("sent"), "", target=DISTINCT, better="equal", digits=0),
        figure("requests queued by the UDFs (each distinct once)", col("submitted"), "", target=DISTINCT,
               better="equal", digits=0),
        figure("429 answers or retries", col("throttled_429"), "", target=0, better="equal", digits=0),
        figure("RTD pulls (RefreshData, 2 s apart at least)", col("pulls"), "", digits=0),
        figure("UDF calls", col("udf_calls"), "", digits=0),
        figure("machine load average (1 min) at the end of the run", col("load"), "", digits=1),
        figure("manual mode: F9 to every cell final", mcol("final"), "s"),
        figure(f"manual mode: F9 to every cell final / {BOUND_SECONDS:g} s bound", mcol("ratio"), "x",
               target=1.15, digits=3),
        figure("manual mode: requests sent (each distinct once)", mcol("sent"), "", target=DISTINCT,
               better="equal", digits=0),
        figure("manual mode: 429 answers or retries", mcol("throttled_429"), "", target=0, better="equal",
               digits=0),
        figure("manual mode: the F9's own calculation (500 cells answering #N/A at once), wall", mcol("paste"), "s"),
        figure("manual mode: machine load average (1 min)", mcol("load"), "", digits=1),
    ]
    return result(
        "excel_async", f"{FORMULAS} new RATES_ cells pasted, asynchronous through RTD, on the serial-Excel "
                       f"stand-in: {DISTINCT} distinct requests, {LATENCY_MS} ms latency, {RATE:g}/s burst {BURST}",
        figures, runs=runs,
        setup={"formulas": FORMULAS, "distinct": DISTINCT, "latency_ms": LATENCY_MS, "rate": RATE,
               "burst": BURST, "bound_seconds": BOUND_SECONDS, "throttle_interval_s": 2.0},
        notes=[f"bound = max(0, ({DISTINCT} - {BURST}) / {RATE:g}) = {BOUND_SECONDS:g} s; the client keeps 5 "
               "tokens of the burst in reserve, so the fetch alone ends near 17.9 s",
               "Excel pulls at most once per 2 s: the last answers wait up to 2 s for the pull"],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args(argv)
    from bench.common import report

    res = run(args.runs)
    report(res)
    met = all(f["met"] for f in res["figures"] if f.get("target") is not None)
    print("targets met" if met else "targets NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
