"""(e) Start-up: import time of `rates_xl.addin.classic.udfs` in a fresh process (Excel's UDF
server imports it before the first cell can compute). Target 0.5 s.

Each run is a new interpreter; the figure is the import alone, timed inside the child.
The slowest modules of the last run (from `python -X importtime`) are listed to show
where the time goes.
"""

from __future__ import annotations

import re
import subprocess
import sys

from bench.common import figure, main_for, result

_CHILD = ("import time; t = time.perf_counter(); import rates_xl.addin.classic.udfs; "
          "print(time.perf_counter() - t)")


def import_seconds() -> float:
    out = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def heaviest(n: int = 6) -> list[tuple[str, float]]:
    """The n modules that rates_xl.addin.classic.udfs imports directly (or one level below) with the
    largest cumulative import time, in seconds."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", "import rates_xl.addin.classic.udfs"],
                         capture_output=True, text=True, check=True)
    tops: dict[str, float] = {}
    for line in out.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m and 3 <= len(m.group(3)) <= 5:  # imported by rates_xl.addin.classic.udfs, or one below
            tops[m.group(4)] = int(m.group(2)) / 1e6
    return sorted(tops.items(), key=lambda kv: -kv[1])[:n]


def run(runs: int = 7) -> dict:
    import_seconds()  # one untimed run: the first may read every file from disk
    values = [import_seconds() for _ in range(runs)]
    top = heaviest()
    return result(
        "startup", "(e) Start-up: import rates_xl.addin.classic.udfs in a fresh process",
        [figure("import time", values, "s", target=0.5)],
        runs=runs, setup={"heaviest_imports_s": dict(top)},
        notes=["heaviest imports: " + ", ".join(f"{k} {v:.3f} s" for k, v in top)],
    )


if __name__ == "__main__":
    main_for(run, 7)
