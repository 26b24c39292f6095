"""`rates-xl risk` on templates/swap_pricer.xlsx: a 5-bucket ladder of every output cell, timed,
beside a bump-and-recompute of the same book against the sandbox serving its curves shifted.

    python -m bench.risk [runs]

1. The template computed against a sandbox on loopback at one moment (its copy carries the
   market-data pack); then `rates-xl risk swap_pricer.xlsx` as a user runs it (the console
   script in a child process: start, load the book once, calibrate SOFR's curve (the two
   answers the pack lacks fetched from the sandbox), the market replay, 12 scenarios; the
   ladder workbook written): wall time, and the command's own breakdown. Target: 5 s.
2. The same 12 scenarios with the book loaded again for each (what "one book load" avoids).
3. Bump and recompute: the book computed live against `sandbox --shift` at +1 bp and -1 bp,
   parallel and each bucket (12 sandboxes, 12 computations), its NPV's DV01 and ladder beside
   `risk`'s, and how long it took.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

MOMENT = "2026-03-10T16:00:00Z"
BUCKETS = ("1Y", "2Y", "5Y", "10Y", "30Y")
NPV = ("Swap", "C31")


def run(runs: int = 3) -> dict:
    from bench.common import figure, result
    from rates_xl.sandbox import PAID_KEY
    from rates_xl.sandbox.server import start_in_thread
    from rates_xl.templates import template_path

    with tempfile.TemporaryDirectory(prefix="bench-risk-") as tmp, \
            start_in_thread(rate_limit=1000, burst=1000) as sandbox:
        folder = Path(tmp)
        shutil.copyfile(template_path("swap_pricer"), folder / "swap_pricer.xlsx")
        env = {**os.environ, "RATES_BASE_URL": sandbox.base_url, "RATES_API_KEY": PAID_KEY,
               "RATES_CACHE_DIR": str(folder / "cache"), "RATES_PERSISTENT": "0"}
        _command(["calc", "swap_pricer.xlsx", "--valuation-time", MOMENT, "--no-progress"], folder, env)
        walls, cpu, own, each = [], [], [], []
        for _ in range(runs):
            began, used = time.perf_counter(), _children_cpu()
            out = _command(["risk", "swap_pricer.xlsx", "--force"], folder, env)
            walls.append(time.perf_counter() - began)
            cpu.append(_children_cpu() - used)
            found = re.search(r"Timing: ([\d.]+) s in all: .* 12 scenarios [\d.]+ s \((\d+) ms each", out)
            own.append(float(found.group(1)))
            each.append(float(found.group(2)) / 1000)
        ours = _ladder_of(folder / "swap_pricer.risk.xlsx")
        reloaded = _reloaded(folder, sandbox.base_url, runs)
        bumped, bump_seconds = _bump_and_recompute(folder, sandbox)
    rows = [("DV01 (parallel)", ours["DV01"], bumped["DV01"])] + [(b, ours[b], bumped[b]) for b in BUCKETS]
    worst = max(abs(a - b) / max(abs(b), 1e-9) for _, a, b in rows if abs(b) > 1.0)
    notes = ["NPV sensitivity per +1 bp, risk vs bump-and-recompute against sandbox --shift: "
             + "; ".join(f"{name} {a:,.4f} vs {b:,.4f}" for name, a, b in rows),
             f"last risk run: {out.strip().splitlines()[-2]}"]
    figures = [
        figure("rates-xl risk swap_pricer.xlsx: 5-bucket ladder of every output, wall time (process start to exit)",
               walls, "s", target=5.0),
        figure("  its CPU time (user + system: what it takes on an idle core)", cpu, "s", target=5.0),
        figure("  the command's own time (load, curves, market replay, 12 scenarios)", own, "s"),
        figure("  one scenario (a replay of the loaded book)", each, "s"),
        figure("the 12 scenarios with the book loaded again for each", reloaded, "s"),
        figure("bump and recompute: 12 live computations against sandbox --shift", [bump_seconds], "s"),
        figure("largest relative gap, risk vs bump and recompute (NPV, parallel and each bucket)", [worst], "",
               target=0.005, digits=12),
    ]
    return result("risk", "rates-xl risk on swap_pricer.xlsx, and bump-and-recompute against sandbox --shift",
                  figures, runs=runs, setup={"moment": MOMENT, "buckets": BUCKETS, "load": os.getloadavg()},
                  notes=notes)


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _command(argv: list[str], folder: Path, env: dict[str, str]) -> str:
    import sys

    script = Path(sys.executable).with_name("rates-xl")
    done = subprocess.run([str(script), *argv], cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"rates-xl {' '.join(argv)}: exit {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def _ladder_of(report: Path) -> dict[str, float]:
    import openpyxl

    sheet = openpyxl.load_workbook(report)["Ladder"]
    rows = list(sheet.iter_rows(values_only=True))
    head = next(i for i, row in enumerate(rows) if row[0] == "Cell")
    columns = rows[head]
    npv = next(dict(zip(columns, row, strict=True)) for row in rows[head + 1:] if row[0] == "Swap!C31")
    return {"DV01": npv["DV01 (+1 bp parallel)"], **{b: npv[b] for b in BUCKETS}}


def _reloaded(folder: Path, base_url: str, runs: int) -> list[float]:
    """The 12 scenarios with a WorkbookCalculation made afresh for each."""
    from rates_xl.calc.workbook import WorkbookCalculation
    from rates_xl.client import RatesClient
    from rates_xl.client.pack_workbook import read_pack
    from rates_xl.sandbox import PAID_KEY
    from rates_xl.scenario.apply import apply, prepare
    from rates_xl.scenario.spec import Scenario, Shift

    pack = read_pack(folder / "swap_pricer.values.xlsx")
    with RatesClient(base_url, api_key=PAID_KEY, persistent=False) as client:
        prepared = prepare(pack, client)
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        for bucket in (None, *BUCKETS):
            for sign in (1, -1):
                under = apply(prepared, Scenario((Shift("SOFR", bucket, sign),), BUCKETS))
                calc = WorkbookCalculation(folder / "swap_pricer.xlsx")
                with RatesClient(replay=under) as replay:
                    calc.compute(replay, valuation_time=pack.valuation_time)
        times.append(time.perf_counter() - began)
    return times


def _bump_and_recompute(folder: Path, sandbox) -> tuple[dict[str, float], float]:
    from rates_xl.calc.workbook import WorkbookCalculation
    from rates_xl.client import RatesClient
    from rates_xl.sandbox import PAID_KEY
    from rates_xl.sandbox.server import start_in_thread

    began = time.perf_counter()
    found = {}
    for bucket in (None, *BUCKETS):
        npv = []
        for sign in ("+", "-"):
            spec = f"SOFR{':' + bucket if bucket else ''}{sign}1bp"
            with start_in_thread(rate_limit=1000, burst=1000, shift=spec) as shifted, \
                    RatesClient(shifted.base_url, api_key=PAID_KEY, persistent=False) as client:
                values = WorkbookCalculation(folder / "swap_pricer.xlsx").compute(client, valuation_time=MOMENT).values
                npv.append(values[NPV])
        found[bucket or "DV01"] = (npv[0] - npv[1]) / 2
    return found, time.perf_counter() - began


if __name__ == "__main__":
    from bench.common import main_for

    main_for(run, 3)
