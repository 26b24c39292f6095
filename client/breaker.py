"""The circuit breaker: when the network is wrong, calls fail at once instead of each
waiting out its timeouts.

Excel calls cells one at a time on its main thread, so 400 cells that each wait 4 s on a
firewall that drops packets freeze Excel for half an hour. After `failures` transport
failures in a row (timeouts, DNS, TLS, resets; never an HTTP answer, whatever its status)
the breaker opens for `cooldown` seconds: every call fails at once with `NetworkDown`,
which names the last failure and when the client will try again. Then one attempt at a
time is let through as a probe (half-open): an HTTP answer closes the breaker, a
transport failure opens it for another period.

Written by hand rather than with pybreaker (BSD, maintained), for three reasons that
matter here: pybreaker runs the protected call under its lock, which would serialise the
concurrent fetches of a workbook; in half-open it makes other callers queue behind the
probe instead of failing at once; and it counts 16 concurrent timeouts of one outage as 16
failures in a row. Here an attempt's failure counts only if the attempt started after the
previous counted failure: concurrent attempts that hung on the same outage are one piece
of evidence, sequential ones (Excel's case) each count.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import NamedTuple

from rates_xl.client.errors import NetworkDown

CLOSED, OPEN, HALF_OPEN = "closed", "open", "half-open"


class Ticket(NamedTuple):
    """Handed out by `admit` for one attempt; given back with its outcome."""

    started: float  # the breaker's clock when admitted
    probe: bool  # the one attempt let through while half-open


class CircuitBreaker:
    """Thread-safe; one per client. `admit` before each attempt, then exactly one of
    `succeeded` (any HTTP answer), `failed` (a transport failure) or `released` (neither:
    a refused connection, or no request sent)."""

    def __init__(self, failures: int, cooldown: float, *,
                 clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], float] = time.time) -> None:
        self.failures_to_open = failures
        self.cooldown = cooldown
        self._clock = clock
        self._wall_clock = wall_clock
        self._lock = threading.Lock()
        self._state = CLOSED
        self._failures = 0
        self._last_failure_at = -math.inf
        self._cause = ""
        self._open_until = 0.0
        self._probing = False

    # -- what callers see -------------------------------------------------------------------
    @property
    def state(self) -> str:
        with self._lock:
            if self._state == OPEN and self._clock() >= self._open_until:
                return HALF_OPEN  # the next admit lets a probe through
            return self._state

    @property
    def is_open(self) -> bool:
        """True while calls would be refused (open and cooling down, or a probe under way)."""
        with self._lock:
            if self._state == OPEN:
                return self._clock() < self._open_until
            return self._state == HALF_OPEN and self._probing

    def describe(self) -> str:
        """One line for the status panel."""
        with self._lock:
            if self._state == CLOSED:
                return f"closed ({self._failures} transport failures in a row)"
            return f"{self._state}: {self._cause}"

    def admit(self, endpoint: str | None = None) -> Ticket:
        """Before an attempt: a ticket, or `NetworkDown` while the breaker is open."""
        with self._lock:
            now = self._clock()
            if self._state == OPEN:
                if now < self._open_until:
                    raise self._down(now, endpoint)
                self._state = HALF_OPEN
            if self._state == HALF_OPEN:
                if self._probing:
                    raise self._down(now, endpoint)
                self._probing = True
                return Ticket(now, probe=True)
            return Ticket(now, probe=False)

    # -- outcomes ---------------------------------------------------------------------------
    def succeeded(self, ticket: Ticket) -> None:
        """An HTTP answer arrived: the network works, whatever the status."""
        with self._lock:
            self._state = CLOSED
            self._failures = 0
            self._last_failure_at = -math.inf
            if ticket.probe:
                self._probing = False

    def failed(self, ticket: Ticket, cause: str) -> None:
        """A transport failure (`cause` in plain words, e.g. 'no answer within 2 s')."""
        with self._lock:
            now = self._clock()
            if ticket.probe:
                self._probing = False
                self._failures += 1
                self._open(now, cause)
                return
            if self._state != CLOSED:
                return  # admitted before the breaker opened: no news
            if ticket.started < self._last_failure_at:
                return  # in flight when the last failure was counted: the same outage
            self._failures += 1
            self._last_failure_at = now
            self._cause = cause
            if self._failures >= self.failures_to_open:
                self._open(now, cause)

    def released(self, ticket: Ticket) -> None:
        """The attempt proved nothing about the network path (refused, or never sent)."""
        if ticket.probe:
            with self._lock:
                self._probing = False

    # -- internals --------------------------------------------------------------------------
    def _open(self, now: float, cause: str) -> None:
        self._state = OPEN
        self._open_until = now + self.cooldown
        self._cause = cause

    def _down(self, now: float, endpoint: str | None) -> NetworkDown:
        wait = max(0.0, self._open_until - now)
        retry_at = self._wall_clock() + wait
        if wait > 0:
            when = f"until {time.strftime('%H:%M:%S', time.localtime(retry_at))} (in {math.ceil(wait):g} s)"
        else:
            when = "while one test request is under way"
        message = (f"not trying the service {when}: {self._failures} network failures in a row, "
                   f"the last: {self._cause}")
        return NetworkDown(message, cause=self._cause, retry_at=retry_at, failures=self._failures,
                           endpoint=endpoint)
