"""Speed as a ratio to LibreOffice, measured in one run (issue 30, item 7): each book of
../shared/corpus/excel and ../shared/corpus/models computed with `rates-xl calc --full` (every
formula, the values-frozen copy written) and with LibreOffice headless (every formula
recalculated on load, the book saved as .xlsx), back to back, A B A B ...

    python -m bench.libreoffice_ratio [--runs 3] [BOOK ...]

LibreOffice recalculates on load only when told to: a fresh profile (-env:UserInstallation)
whose registrymodifications.xcu sets Calc's OOXMLRecalcMode to 0, "always recalculate"
(tests/support/libreoffice.py); the benchmark first proves it does, on a book whose cached
value is wrong (tests/calc/test_libreoffice_profile.py shows the default profile does not).
Each figure is the whole process, from start to exit: wall seconds and peak memory
(the child's ru_maxrss from wait4, its descendants included: soffice.bin under its launcher),
and CPU seconds (user + system), which move far less than wall time on a shared machine.
The load average is printed beside each book's figures.

Our package's bytecode is compiled first (`compileall`), as pip compiles an installed
package's: in an editable install under PYTHONDONTWRITEBYTECODE (this project's development
machines) each run compiled about 120 of our modules from source again, 0.25 of a small
book's 0.65 CPU seconds, a cost no user pays.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support import libreoffice
from tests.support.bytecode import compile_project

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
FOLDERS = ("excel", "models")


def timed(argv: list[str], cwd: Path) -> tuple[float, float, int, float]:
    """(wall seconds, peak MB, exit code, CPU seconds) of one process, its children included."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024, proc.returncode, usage.ru_utime + usage.ru_stime


def ours(book: Path, out: Path) -> list[str]:
    script = Path(sys.executable).parent / "rates-xl"
    return [str(script), "calc", str(book), "--full", "--force", "--no-progress", "-o", str(out)]


def books(named: list[str]) -> list[Path]:
    if named:
        return [Path(n) for n in named]
    return [b for folder in FOLDERS for b in sorted((CORPUS / folder).glob("*.xlsx"))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.libreoffice_ratio", description=__doc__.splitlines()[0])
    parser.add_argument("books", nargs="*", help="workbooks (default: both corpus folders)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each, back to back (median)")
    args = parser.parse_args(argv)
    if libreoffice.SOFFICE is None:
        print("LibreOffice (soffice) is not installed: apt-get install libreoffice-calc")
        return 2
    chosen = books(args.books)
    if not chosen:
        print(f"no books: {CORPUS} is not here")
        return 2
    compile_project()  # (tests/support/bytecode.py: written beside the sources, as pip writes it)
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        profile = libreoffice.recalculating_profile(where / "profile")
        if not libreoffice.recalculates_on_load(profile, where):  # also the profile's first start, untimed
            print("LibreOffice did not recalculate on load: the figures would not compare")
            return 1
        print("| Book | ours s | LibreOffice s | ratio | ours CPU s | LibreOffice CPU s | CPU ratio | ours MB | "
              "LibreOffice MB | memory ratio | load |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for book in chosen:
            mine, theirs, loads = [], [], []
            for _ in range(args.runs):
                loads.append(os.getloadavg()[0])
                mine.append(timed(ours(book, where / "ours.xlsx"), where))
                theirs.append(timed(libreoffice.to_xlsx(profile, book, where / "lo"), where))
            a = statistics.median(r[0] for r in mine)
            b = statistics.median(r[0] for r in theirs)
            ca = statistics.median(r[3] for r in mine)
            cb = statistics.median(r[3] for r in theirs)
            ma, mb = max(r[1] for r in mine), max(r[1] for r in theirs)
            failed = [r[2] for r in mine if r[2] not in (0, 3)] + [r[2] for r in theirs if r[2] != 0]
            note = f" (exit {failed[0]})" if failed else ""
            print(f"| {book.name}{note} | {a:.2f} | {b:.2f} | {a / b:.2f} | {ca:.2f} | {cb:.2f} | {ca / cb:.2f} | "
                  f"{ma:.0f} | {mb:.0f} | {ma / mb:.2f} | "
                  f"{min(loads):.0f}-{max(loads):.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
