"""After `calc` the console script ends the process without freeing its heap object by object
(rates_xl.cli `run`, LEAVE_AT_ONCE), but only after what Python's exit does that matters:
threads that are not daemons finish, atexit functions run, the output is flushed whole."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import openpyxl

from rates_xl.cli import LEAVE_AT_ONCE

# A process that starts a thread and registers an atexit function, each writing a file, then
# runs the console script's entry point as `rates-xl ARGS` would.
_SCRIPT = textwrap.dedent("""
    import atexit, sys, threading, time
    from pathlib import Path
    folder = Path(sys.argv[1])

    def late_writer():
        time.sleep(0.5)
        (folder / "thread.txt").write_text("joined")

    threading.Thread(target=late_writer).start()
    atexit.register(lambda: (folder / "atexit.txt").write_text("ran"))
    sys.argv = ["rates-xl", *sys.argv[2:]]
    from rates_xl.cli import run
    run()
""")


def _run(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _SCRIPT, str(tmp_path), *args], capture_output=True,
                          text=True, timeout=120)


def _book(tmp_path):
    path = tmp_path / "book.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["A2"], ws["A3"] = 2, "=A1*21", "=1/0"
    wb.save(path)
    return path


def test_calc_leaves_at_once_after_threads_atexit_and_the_whole_output(tmp_path):
    assert "calc" in LEAVE_AT_ONCE
    out = tmp_path / "book.values.xlsx"
    done = _run(tmp_path, "calc", str(_book(tmp_path)), "-o", str(out), "--no-progress")
    assert done.returncode == 3, done.stderr  # (an error cell: calc's report code survives)
    assert done.stdout.startswith("Computed book.xlsx") and "A3: #DIV/0!" in done.stdout, done.stdout
    assert done.stderr == ""
    assert (tmp_path / "thread.txt").read_text() == "joined"
    assert (tmp_path / "atexit.txt").read_text() == "ran"
    assert openpyxl.load_workbook(out).active["A2"].value == 42


def test_other_commands_exit_as_python_does(tmp_path):
    done = _run(tmp_path, "templates", "list")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "thread.txt").read_text() == "joined"
    assert (tmp_path / "atexit.txt").read_text() == "ran"


def test_a_failed_calc_keeps_its_exit_code_and_line(tmp_path):
    done = _run(tmp_path, "calc", str(tmp_path / "missing.xlsx"), "--no-progress")
    assert done.returncode == 1
    assert done.stderr.startswith("rates-xl calc: ") and "Traceback" not in done.stderr
    assert (tmp_path / "atexit.txt").read_text() == "ran"


def test_under_a_profiler_the_exit_is_pythons_so_the_profile_is_written(tmp_path):
    profile = tmp_path / "calc.prof"
    done = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(profile), "-m", "rates_xl.cli", "calc",
                           str(_book(tmp_path)), "-o", str(tmp_path / "out.xlsx"), "--no-progress"],
                          capture_output=True, text=True, timeout=120)
    assert "Computed book.xlsx" in done.stdout, done.stderr
    assert profile.stat().st_size > 0
