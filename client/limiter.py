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

    def try_acquire(self, keep: float = 0.0) -> bool:
        """Take one token only if one is free now and `keep` tokens are left after it; never
        waits and never reserves ahead (see `ShareLimiter`: the caller must not make anyone
        queue behind it)."""
        with self._lock:
            now = self._clock()
            self._tokens = min(self.capacity, self._tokens + (now - self._updated) * self.rate)
            self._updated = now
            if self._tokens - 1.0 < keep:
                return False
            self._tokens -= 1.0
            return True

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


class ShareLimiter:
    """A background user's share of the one bucket (Live mode), which interactive requests
    always bypass.

    Two rules: its own pace is `share` x the bucket's rate (a `TokenBucket` of its own, so
    it never spends more), and it takes a token from the shared bucket only when one is
    free *now* and `(1 - share)` of the bucket's capacity is still left after it
    (`try_acquire(keep=...)`). It never reserves ahead in the shared bucket, so a formula
    typed meanwhile never queues behind it: the interactive request finds that reserve, at
    least half the burst by default, and is sent at once. While interactive requests hold
    the bucket below the reserve the background waits, polling at the bucket's rate.

    A shared bucket without `try_acquire` (the team's Redis limiter) is used through its
    ordinary `acquire`: the pace still bounds the background to its share, but an
    interactive request may then wait one slot behind it.
    """

    def __init__(self, shared: Limiter, share: float, *, clock=time.monotonic, sleep=time.sleep) -> None:
        if not 0.0 < share <= 1.0:
            raise ValueError(f"share: {share!r} is not a fraction of the limit between 0 and 1")
        self.shared = shared
        self.share = share
        rate = float(getattr(shared, "rate", 20.0))
        capacity = int(getattr(shared, "capacity", 1))
        self.rate = rate * share
        self.keep = max(0.0, (1.0 - share) * capacity)
        self._pace = TokenBucket(self.rate, max(1, math.floor(capacity * share)), headroom=0,
                                 clock=clock, sleep=sleep)
        self._clock = clock
        self._sleep = sleep

    def acquire(self, deadline: float) -> float:
        started = self._clock()
        self._pace.acquire(deadline)
        take = getattr(self.shared, "try_acquire", None)
        if take is None:
            self.shared.acquire(deadline)
            return self._clock() - started
        while not take(self.keep):
            pause = 1.0 / max(self.rate / self.share, 1e-6)  # one slot of the shared bucket
            if self._clock() + pause > deadline:
                raise RateLimited("local rate limit: the interactive reserve is in use; the "
                                  "background request waits for its share", retry_after=pause)
            self._sleep(pause)
        return self._clock() - started


class Prepaid:
    """A limiter whose first token was taken before the request began (by `paid`), so the
    first attempt goes at once; retries and redirects pay through `paid` again. Live mode
    pays before it joins the client's in-flight table: a cell asking for the same answer
    meanwhile waits for a request on the wire, never for Live's turn."""

    def __init__(self, paid: Limiter) -> None:
        self._paid = paid
        self._first = True
        self._lock = threading.Lock()

    def acquire(self, deadline: float) -> float:
        with self._lock:
            first, self._first = self._first, False
        return 0.0 if first else self._paid.acquire(deadline)
