"""A sandbox in its own process, and free loopback ports (tests and benchmarks share them).

The sandbox runs in a child process (`sandbox_process`) whenever the measurement is about
this process: its sockets, its memory and its GIL are then the client's alone, as they are
in Excel talking to the real service.
"""

from __future__ import annotations

import contextlib
import json
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


def wait_until(predicate, timeout: float, interval: float = 0.05) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()
