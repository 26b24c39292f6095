"""Ctrl+C: the seconds from SIGINT to the end of a command that waits on a service that never
answers (docs/development.md's "stops within a second"; tests/test_cli_rule.py checks only
that the interrupt, not the wait, ends it). `rates-xl call` and `rates-xl calc` on the swap
pricer, each run in a fresh process, the signal sent half a second after the command starts.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import figure, main_for, result
from tests.support.commands import fresh_env, handlers_installed


def _silent() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    return sock


def once(argv: list[str], folder: Path, url: str) -> float:
    env = fresh_env(folder / "home", RATES_BASE_URL=url, RATES_API_KEY="k" * 16)
    proc = subprocess.Popen([sys.executable, "-m", "rates_xl.cli", *argv], cwd=folder, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    while not handlers_installed(proc.pid):
        time.sleep(0.005)
    time.sleep(0.5)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    proc.wait(60)
    return time.perf_counter() - sent


def run(runs: int = 5) -> dict:
    from rates_xl.templates import template_path

    figures = []
    with tempfile.TemporaryDirectory(prefix="rates-xl-bench-") as tmp:
        folder = Path(tmp)
        shutil.copyfile(template_path("swap_pricer"), folder / "book.xlsx")
        silent = _silent()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        try:
            for label, argv in (("call", ["call", "swap_rate_tenors", "index=SOFR"]),
                                ("calc", ["calc", "--no-progress", "book.xlsx"])):
                values = [once(argv, folder, url) for _ in range(runs)]
                figures.append(figure(f"{label}: SIGINT to exit", values, "s", target=1.0))
        finally:
            silent.close()
    return result("interrupt", "Ctrl+C: SIGINT to the command's end, waiting on a silent service", figures,
                  runs=runs, setup={"load_average": os.getloadavg()})


if __name__ == "__main__":
    main_for(run, 5)
