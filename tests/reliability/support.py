"""Shared by the reliability tests and the benchmarks: a sandbox in its own process, counters
of what the client sent, and measurements of the process (open sockets, traced memory).

The sandbox runs in a child process (`sandbox_process`) whenever the measurement is about
this process: its sockets, its memory and its GIL are then the client's alone, as they are
in Excel talking to the real service.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

# The child: start the in-process sandbox with the given knobs, print its URL, serve until
# the parent closes our stdin (so an orphaned child never outlives its parent).
_CHILD = """
import json, sys
from rates_xl.sandbox.server import start_in_thread
running = start_in_thread(host="127.0.0.1", port=0, **json.loads(sys.argv[1]))
print(running.base_url, flush=True)
sys.stdin.read()
running.stop()
"""


@dataclass
class SandboxProcess:
    base_url: str
    process: subprocess.Popen

    @property
    def pid(self) -> int:
        return self.process.pid


@contextlib.contextmanager
def sandbox_process(start_timeout: float = 60.0, **knobs: object) -> Iterator[SandboxProcess]:
    """A sandbox on 127.0.0.1 with a free port, in a child process; knobs as start_in_thread's."""
    process = subprocess.Popen(
        [sys.executable, "-c", _CHILD, json.dumps(knobs)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        line = _read_line(process, start_timeout)
        if not line.startswith("http"):
            raise RuntimeError(f"sandbox did not start: {line!r} {process.stderr.read()[-2000:]!r}")
        yield SandboxProcess(line.strip(), process)
    finally:
        with contextlib.suppress(OSError):
            process.stdin.close()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def _read_line(process: subprocess.Popen, timeout: float) -> str:
    box: list[str] = []
    reader = threading.Thread(target=lambda: box.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    if not box:
        process.kill()
        raise RuntimeError(f"sandbox did not print its URL within {timeout:g} s")
    return box[0]


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def most_in_window(times: list[float], window: float) -> int:
    """The most events in any half-open interval of `window` seconds."""
    times = sorted(times)
    best, lo = 0, 0
    for hi, t in enumerate(times):
        while t - times[lo] >= window:
            lo += 1
        best = max(best, hi - lo + 1)
    return best


class SendLog(logging.Handler):
    """Records every HTTP attempt the client makes, from its DEBUG record "GET <path> <params>".

    Counting at the client's log keeps the tests on its public behaviour: each attempt,
    retries included, is logged just before it goes on the wire, after the limiter.
    """

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.sent: list[float] = []
        self.retries_after: list[str] = []
        self._lock_sent = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        with self._lock_sent:
            if message.startswith("GET "):
                self.sent.append(record.created)
            elif message.startswith("retrying after "):
                self.retries_after.append(message.split()[2])

    def count_retries(self, kind: str) -> int:
        with self._lock_sent:
            return sum(1 for k in self.retries_after if k == kind)


@contextlib.contextmanager
def recording_sends() -> Iterator[SendLog]:
    logger = logging.getLogger("rates_xl.client")
    handler = SendLog()
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)


def open_sockets() -> int:
    """Sockets this process holds open, counted from /proc/self/fd (Linux)."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
                count += 1
    return count


def wait_until(predicate, timeout: float, interval: float = 0.05) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


# One good cell per function that calls the service (the reliability tests share it).
GOOD_CELLS: dict[str, tuple] = {
    "RATES_SWAP": ("SOFR", "0D", "5Y", "1Y"),
    "RATES_SWAPCURVE": ("6M EURIBOR",),
    "RATES_FORWARD": ("SOFR", "3M", "6M"),
    "RATES_FORWARDCURVE": ("SOFR", "0D", "1Y", "3M", "3M"),
    "RATES_DISCOUNT": ("SOFR", "1Y"),
    "RATES_DISCOUNTCURVE": ("SOFR", "0D", "1Y", "6M"),
    "RATES_FXSPOT": ("EURUSD",),
    "RATES_FXFORWARD": ("EURUSD",),
    "RATES_GOVYIELD": ("US", "10Y"),
    "RATES_FIXING": ("SOFR", "2026-11-20"),
    "RATES_SWAPHISTORY": ("SOFR", "5Y", "2026-11-16", "2026-11-20"),
    "RATES_TENORS": ("SOFR",),
}
