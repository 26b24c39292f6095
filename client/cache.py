"""The answer cache: a bounded, thread-safe TTL cache behind a small interface.

`AnswerCache` is what the client needs from a cache; `MemoryCache` is the in-process
implementation (cachetools' TLRUCache: per-entry TTL, least recently used evicted first).
A shared backend for a team behind one key (Redis, say) implements the same four methods.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from cachetools import TLRUCache

    from rates_xl.client.endpoints import RequestKey
    from rates_xl.client.models import Result


@dataclass(frozen=True)
class Entry:
    """One cached answer: a result model, or a final (non-retryable) error."""

    #: the result model (None for a refusal, which `error` holds)
    value: Result | None
    fetched_at: float  # time.time() when the answer arrived
    ttl: float
    error: Exception | None = None
    #: the answer's JSON text as the service sent it, kept for the market-data pack
    raw: str | None = None


class AnswerCache(Protocol):
    def get(self, key: RequestKey, *, fresh_since: float | None = None) -> Entry | None:
        """The live entry for key, or None; entries fetched before `fresh_since` count as expired."""

    def put(self, key: RequestKey, entry: Entry) -> None: ...

    def expire(self, *, before: float | None = None, keys: Iterable[RequestKey] | None = None) -> int:
        """Drop entries fetched before `before` (all, when None), among `keys` (all, when None)."""

    def clear(self) -> None: ...

    def __len__(self) -> int: ...


class HeldAnswers:
    """The answers one calculation used, held until it ends whatever their TTL (`client.holding`).

    A Refresh or a `rates-xl calc` computes in rounds (functions/plan.py): a round records
    what is missing, the client fetches it, the next round reads it. When the rounds take
    longer than an answer's TTL (a slow service, a busy machine, `ttl_live` = 0), the cache
    has dropped the first round's answers by the last: without this the book would fetch them
    again and mix two answers to one request in one calculation. The newest answer to a key
    wins (a refreshed cell's floor may need one newer than a cached answer another cell used).
    Bounded by the calculation's distinct requests; dropped with it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._data: dict[Hashable, Entry] = {}

    def get(self, key: Hashable, *, fresh_since: float | None = None) -> Entry | None:
        entry = self._data.get(key)
        if entry is None or (fresh_since is not None and entry.fetched_at < fresh_since):
            return None
        return entry

    def put(self, key: Hashable, entry: Entry) -> None:
        held = self._data.get(key)
        if held is not None and held.fetched_at >= entry.fetched_at:
            return  # the cheap exit: a warm round passes here once per cell
        with self._lock:
            held = self._data.get(key)
            if held is None or entry.fetched_at > held.fetched_at:
                self._data[key] = entry

    def __len__(self) -> int:
        return len(self._data)


class MemoryCache:
    def __init__(self, maxsize: int, timer=time.time) -> None:
        # (imported here: a book calling no RATES_* function makes no client, nor this cache)
        from cachetools import TLRUCache

        self._timer = timer
        self._lock = threading.Lock()
        self._data: TLRUCache = TLRUCache(
            maxsize=maxsize, ttu=lambda _key, entry, now: now + entry.ttl, timer=timer
        )

    def get(self, key: Hashable, *, fresh_since: float | None = None) -> Entry | None:
        with self._lock:
            try:
                # Not .get: it asks `key in` (an expiry check) before the item (another);
                # the item alone checks once, and a warm cell passes here each call.
                entry = self._data[key]
            except KeyError:
                return None
        if fresh_since is not None and entry.fetched_at < fresh_since:
            return None
        return entry

    def put(self, key: Hashable, entry: Entry) -> None:
        if entry.ttl <= 0:
            return
        with self._lock:
            self._data[key] = entry

    def expire(self, *, before: float | None = None, keys: Iterable[Hashable] | None = None) -> int:
        with self._lock:
            candidates = list(self._data.keys()) if keys is None else list(keys)
            dropped = 0
            for key in candidates:
                entry = self._data.get(key)
                if entry is not None and (before is None or entry.fetched_at < before):
                    del self._data[key]
                    dropped += 1
            return dropped

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def entries(self) -> list[tuple[Hashable, Entry]]:
        """A snapshot of the live entries (provenance: RATES_SOURCE, RATES_STATUS)."""
        with self._lock:
            self._data.expire()
            return list(self._data.items())

    def __len__(self) -> int:
        with self._lock:
            self._data.expire()
            return len(self._data)
