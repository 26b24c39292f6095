"""What the client sent and what this process holds: every HTTP attempt from the client's
log, the most attempts in any window (the rate limit seen from outside), open sockets.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections import Counter
from collections.abc import Iterator


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
        self.requests: list[str] = []  # each attempt's "GET <path> <params>", in order
        self.retries_after: list[str] = []
        self._lock_sent = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        with self._lock_sent:
            if message.startswith("GET "):
                self.sent.append(record.created)
                self.requests.append(message)
            elif message.startswith("retrying after "):
                self.retries_after.append(message.split()[2])

    def repeated(self) -> dict[str, int]:
        """The requests sent more than once (retries, or a duplicate the cache did not share),
        each with how many times: what a test that counts sends names when the count is off."""
        with self._lock_sent:
            counts = Counter(self.requests)
        return {request: n for request, n in counts.items() if n > 1}

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
