"""A calc's budget (issue 27, point 5), measured through `rates-xl calc` as a user runs it:

- the 5 KB book with `=SUM(Sheet2!A:XFD)` over one far cell (stopped at once, the line);
- a chain of N formula cells (`=A1+1`, `=A2+1`, ...; the issue: 200,000 cells, 67 s, 452 MB),
  computed within the default budget: wall time and peak memory of the whole process.

    python -m bench.calc_budget [--cells 200000] [--runs 1]

Each run is a fresh process (`rates-xl calc BOOK --full`), its peak memory the child's
ru_maxrss; the load average is printed beside the figures (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support.budget_books import chain_book, far_book


def run(book: Path, *extra: str) -> dict:
    """`rates-xl calc BOOK --full` in a child: wall and CPU seconds (user + system: on a busy
    machine the steadier figure), peak MB, exit code, stderr."""
    script = Path(sys.executable).parent / "rates-xl"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([str(script), "calc", str(book), "--full", "--force", "--no-progress", *extra],
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"seconds": wall, "cpu": cpu, "peak_mb": max(after.ru_maxrss, before.ru_maxrss) / 1024,
            "exit": done.returncode, "line": (done.stderr.strip().splitlines() or [""])[-1]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.calc_budget", description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        far = far_book(Path(tmp) / "far.xlsx")
        print(f"load average {os.getloadavg()[0]:.1f}")
        got = run(far)
        print(f"far.xlsx ({far.stat().st_size:,} bytes): {got['seconds']:.2f} s, exit {got['exit']}: {got['line']}")
        chain = chain_book(Path(tmp) / "chain.xlsx", args.cells)
        runs = [run(chain) for _ in range(args.runs)]
        seconds = statistics.median(r["seconds"] for r in runs)
        cpu = statistics.median(r["cpu"] for r in runs)
        peak = max(r["peak_mb"] for r in runs)
        print(f"chain of {args.cells:,} cells: {seconds:.1f} s, {cpu:.1f} s CPU (medians of {args.runs}), peak {peak:.0f} MB "
              f"(ru_maxrss; the largest child so far), exit {runs[-1]['exit']}; load average "
              f"{os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
