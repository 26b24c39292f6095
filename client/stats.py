"""What the client counts: `Stats`, its counters for the status panel (`RatesClient.stats()`),
and `counting_sent`, the requests one piece of work sent (a team server's batch, for its
user), which the process-wide counters mix with every other batch's."""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict


class Counters(TypedDict):
    """`Stats.as_dict()`: the counters as the status panel reads them."""

    requests_sent: int
    cache_hits: int
    coalesced_waits: int
    retries: int
    throttled_waits: int
    throttle_wait_seconds: float
    errors_by_status: dict[str, int]
    last_error: str | None


class TierStats(TypedDict):
    """`TieredCache.stats()` (tiers.py): the tiers below memory."""

    persistent_hits: int
    team_hits: int
    team_waits: int
    team_refused: int
    #: the disk tier's line (`DiskTier.describe`), "off" without one
    persistent: str
    #: the team link's line (`TeamLink.describe`), "off" without one
    team: str
    team_outages: int


class ClientStats(Counters):
    """`RatesClient.stats()`: the counters, the answers held, the breaker's line and, with
    tiered caching (the default), the tiers' figures."""

    cached_answers: int
    breaker: str
    persistent_hits: NotRequired[int]
    team_hits: NotRequired[int]
    team_waits: NotRequired[int]
    team_refused: NotRequired[int]
    persistent: NotRequired[str]
    team: NotRequired[str]
    team_outages: NotRequired[int]


@dataclass
class Stats:
    """Counters for the status panel. Never holds the key."""

    requests_sent: int = 0
    cache_hits: int = 0
    coalesced_waits: int = 0
    retries: int = 0
    throttled_waits: int = 0
    throttle_wait_seconds: float = 0.0
    errors_by_status: Counter[str] = field(default_factory=Counter)
    last_error: str | None = None

    def as_dict(self) -> Counters:
        return {
            "requests_sent": self.requests_sent,
            "cache_hits": self.cache_hits,
            "coalesced_waits": self.coalesced_waits,
            "retries": self.retries,
            "throttled_waits": self.throttled_waits,
            "throttle_wait_seconds": round(self.throttle_wait_seconds, 3),
            "errors_by_status": dict(self.errors_by_status),
            "last_error": self.last_error,
        }


#: The requests sent within one context and the fetch threads it starts (see `counting_sent`).
_sent_here: contextvars.ContextVar[SentCounter | None] = contextvars.ContextVar("sent_here", default=None)


class SentCounter:
    """Requests sent on behalf of one piece of work (a team server's batch, for its user):
    the client's stats() are process-wide, so their deltas mix concurrent batches."""

    def __init__(self) -> None:
        self.value = 0
        self._lock = threading.Lock()

    def add(self) -> None:
        with self._lock:
            self.value += 1


@contextlib.contextmanager
def counting_sent() -> Iterator[SentCounter]:
    """Count the requests this context (and the fetches it starts) sends."""
    counter = SentCounter()
    token = _sent_here.set(counter)
    try:
        yield counter
    finally:
        _sent_here.reset(token)


def sent_here() -> SentCounter | None:
    """The counter of the work this context belongs to, if one counts (`counting_sent`)."""
    return _sent_here.get()
