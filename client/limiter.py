"""The request limiter: one token bucket shared by every thread of the process.

Written by hand because what the client needs is small and specific: a continuously
refilling bucket (burst N, then R per second), waits bounded by the caller's deadline, FIFO
reservations so no thread starves, and the time spent waiting reported for the status panel.
The libraries we looked at count requests in fixed or sliding windows instead, which admit
2 x burst across a window edge. A shared backend (Redis) would implement `Limiter`.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Protocol

from rates_xl.client.errors import RateLimited


class Limiter(Protocol):
    def acquire(self, deadline: float) -> float:
        """Take one token, waiting until `deadline` (time.monotonic()) at the latest.

        Returns the seconds waited; raises RateLimited when no token is free by then.
        """


class TokenBucket:
    """Burst `burst`, refill `rate` per second.

    `headroom` tokens of the service's burst are never used: the service charges its bucket
    when a request reaches it, and the delays between our token and its charge differ from
    request to request (network, threads, the service's own queue), which bunches requests
    together; the client keeps slack to stay strictly inside the service's own bucket. By
    default the slack is 250 ms worth of requests (5 at 20/s), never more than half the
    burst: with 100 ms, one process of 8 threads on 2 busy cores measured up to 158 ms
    between its token and the sandbox's charge and drew a 429 (docs/reliability.md).
    """

    JITTER_SLACK_SECONDS = 0.25

    def __init__(self, rate: float, burst: int, headroom: int | None = None,
                 clock=time.monotonic, sleep=time.sleep) -> None:
        if headroom is None:
            headroom = min(burst // 2, math.ceil(rate * self.JITTER_SLACK_SECONDS))
        self.rate = float(rate)
        self.capacity = max(1, burst - headroom)
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._tokens = float(self.capacity)
        self._updated = clock()

    def acquire(self, deadline: float) -> float:
        with self._lock:
            now = self._clock()
            self._tokens = min(self.capacity, self._tokens + (now - self._updated) * self.rate)
            self._updated = now
            # Reserve a token even if it has not refilled yet: the balance goes negative and
            # later callers queue behind this one.
            wait = max(0.0, (1.0 - self._tokens) / self.rate)
            if now + wait > deadline:
                raise RateLimited(
                    f"local rate limit: no request slot within the deadline "
                    f"({self.rate:g}/s, burst {self.capacity})",
                    retry_after=wait,
                )
            self._tokens -= 1.0
        if wait > 0:
            self._sleep(wait)
        return wait

    def backlog(self) -> int:
        """The slots promised that have not come yet, in requests: to requests now waiting
        for them, and those `drain(until)` holds back."""
        with self._lock:
            tokens = self._tokens + (self._clock() - self._updated) * self.rate
        return math.ceil(-tokens) if tokens < 0 else 0

    def drain(self, until: float | None = None) -> None:
        """Empty the bucket, and keep it empty until `until` (clock time) if given: for a
        limiter that takes over from another one, which may have spent the service's burst
        and promised slots up to then."""
        with self._lock:
            now = self._clock()
            self._tokens = min(0.0, self._tokens + (now - self._updated) * self.rate)
            if until is not None and until > now:
                self._tokens -= (until - now) * self.rate
            self._updated = now
