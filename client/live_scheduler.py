"""Live mode, host-free: keep the answers of "as of now" cells fresh, within a share of the
service's limit, and tell the host which cells to recalculate.

A host (the classic add-in through RTD, `rates-xl serve` for Office.js streaming functions)
`watch`es a cell with the requests its value used; `LiveScheduler` refetches each request
when its cache lifetime ends (swap rates and curves, US yields: `ttl_live`; FX: `ttl_fx`;
other government yields: `ttl_daily`) and calls `notify(cells)` with the cells whose
answers are new. Requests pinned to a valuation time, and history (`ttl_history`), never
change: a cell using only those is not live and is not watched.

Rules, each tested in tests/client/test_live.py:
- the budget: every refetch takes its token from a `ShareLimiter` (limiter.py), `share` of
  the limit (default half) that never makes an interactive request queue behind it;
- on time: requests are started in order of expiry, each early enough that every one due
  can start at the share's pace before its lifetime ends (earliest-deadline-first with the
  latest start computed backwards), so a block of cells typed together does not all expire
  in one burst that the share cannot serve in time;
- paused: nothing is fetched while a pause reason is set (`pause("edit mode")`); a group's
  cells (a hidden workbook) are skipped while the group is hidden;
- a cell that leaves the sheet is `forget`-ten; a request no cell uses is dropped;
- errors surface: a failed refetch is `status().last_error` (the host shows it) and is
  tried again after `RETRY_SECONDS`; a refusal (400/404/422, cached by the client) is an
  answer like any other and its cells are notified, so they show its message.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Hashable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from rates_xl.client.endpoints import ENDPOINTS, CacheClass, cache_class_of
from rates_xl.client.errors import RatesError
from rates_xl.client.limiter import Prepaid, ShareLimiter

if TYPE_CHECKING:
    from rates_xl.client.client import RatesClient, RequestKey
from rates_xl.client.tiers import local_ttl

log = logging.getLogger("rates_xl.client.live")

DEFAULT_SHARE = 0.5
#: Seconds before a failed refetch is tried again (never later than the answer's lifetime).
RETRY_SECONDS = 5.0
#: Seconds between two looks at what is due.
TICK_SECONDS = 0.1
#: Concurrent refetches: enough to keep the share's pace with 100 ms or more of latency.
WORKERS = 4


def is_live(key: RequestKey) -> bool:
    """True when the answer to `key` changes with time: valued as of now, not history."""
    params = dict(key.params)
    if params.get("valuation_time"):
        return False  # pinned to a moment (past: never changes; future: not "now" either)
    spec = ENDPOINTS[key.endpoint]
    return cache_class_of(spec, params, datetime.now(UTC).date()) is not CacheClass.HISTORY


@dataclass
class LiveStatus:
    """What the host shows: the status bar, the task pane."""

    running: bool
    paused: tuple[str, ...]
    cells: int
    requests: int
    last_refresh: float | None  # time.time() of the last refetch answered
    last_error: str | None
    refreshed: int
    failed: int
    #: the largest delay seen between an answer's end of life and its refetch starting (s)
    late_max: float

    def text(self) -> str:
        """The status bar's words: "Live, last refresh 14:02:07" (local time), the pause, the error."""
        if not self.running:
            return "Live off"
        parts = ["Live"]
        if self.paused:
            parts.append("paused (" + ", ".join(self.paused) + ")")
        if self.last_refresh is not None:
            parts.append("last refresh " + time.strftime("%H:%M:%S", time.localtime(self.last_refresh)))
        else:
            parts.append(f"{self.cells} cell{'' if self.cells == 1 else 's'}, nothing refreshed yet")
        text = ", ".join(parts)
        if self.last_error:
            text += f"; error: {self.last_error}"
        return text


@dataclass
class _Watched:
    cells: set[Hashable] = field(default_factory=set)
    expires: float = 0.0  # time.time() when the cached answer's lifetime ends
    ttl: float = 0.0
    busy: bool = False


class LiveScheduler:
    """One per process (classic: the UDF server; Office.js: `rates-xl serve`)."""

    def __init__(self, client: RatesClient, notify: Callable[[frozenset[Hashable]], object], *,
                 share: float | None = None, tick: float = TICK_SECONDS, workers: int = WORKERS,
                 host_state: Callable[[], tuple[str | None, frozenset[Hashable]]] | None = None,
                 on_status: Callable[[LiveStatus], object] | None = None, wall=time.time) -> None:
        self.client = client
        self.notify = notify
        self.tick = tick
        self.host_state = host_state
        self.on_status = on_status  # told when a refetch ended or the error changed (status bar)
        self._reported: tuple[int, int, str | None, tuple[str, ...]] | None = None
        self._wall = wall
        self._lock = threading.RLock()
        self._keys: dict[RequestKey, _Watched] = {}
        self._cells: dict[Hashable, tuple[frozenset[RequestKey], Hashable]] = {}  # cell -> (keys, group)
        self._paused: dict[str, int] = {}
        self._hidden: set[Hashable] = set()
        self._polled: tuple[str | None, frozenset[Hashable]] = (None, frozenset())
        self._pending_notify: set[Hashable] = set()
        self._workers = workers
        self._pool: ThreadPoolExecutor | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._last_refresh: float | None = None
        self._last_error: str | None = None
        self._refreshed = self._failed = 0
        self._failing: dict[RequestKey, str] = {}  # key -> its last failure, until it is answered
        self._failure_texts: set[str] = set()
        self._late_max = 0.0
        # The user's setting (RATES_LIVE_SHARE) unless the host passes one.
        self.set_share(share if share is not None else getattr(client.settings, "live_share", DEFAULT_SHARE))

    # -- settings --------------------------------------------------------------------------
    def set_share(self, share: float) -> None:
        """The share of the service's limit Live may use (0 < share <= 1; default half)."""
        limiter = ShareLimiter(self.client.limiter, share)  # raises ValueError naming the share
        with self._lock:
            self.share, self._limiter = share, limiter

    # -- the registry ----------------------------------------------------------------------
    def watch(self, cell: Hashable, keys: Iterable[RequestKey], group: Hashable = None) -> bool:
        """Keep `cell` fresh: it uses `keys`. Returns False (and watches nothing) when none
        of them is live. Watching a cell again replaces what it used."""
        live = frozenset(k for k in keys if is_live(k))
        with self._lock:
            self._drop(cell)
            if not live:
                return False
            self._cells[cell] = (live, group)
            for key in live:
                watched = self._keys.get(key)
                if watched is None:
                    watched = self._keys[key] = _Watched()
                    self._expiry(key, watched)
                watched.cells.add(cell)
        self._wake.set()
        return True

    def forget(self, cell: Hashable) -> None:
        """The cell left the sheet (its formula changed, its book closed): stop refreshing it."""
        with self._lock:
            self._drop(cell)

    def cells(self) -> set[Hashable]:
        with self._lock:
            return set(self._cells)

    def _drop(self, cell: Hashable) -> None:
        keys, _ = self._cells.pop(cell, (frozenset(), None))
        for key in keys:
            watched = self._keys.get(key)
            if watched is not None:
                watched.cells.discard(cell)
                if not watched.cells and not watched.busy:
                    del self._keys[key]

    def _expiry(self, key: RequestKey, watched: _Watched) -> None:
        """When the cached answer to `key` ends its life (now, if none is cached)."""
        entry = self.client.cache.get(key)
        watched.ttl = entry.ttl if entry is not None else local_ttl(self.client.settings, key)
        watched.expires = entry.fetched_at + entry.ttl if entry is not None else self._wall()

    # -- pausing ---------------------------------------------------------------------------
    def pause(self, reason: str) -> None:
        """Fetch nothing until `resume(reason)` (e.g. "edit mode")."""
        with self._lock:
            self._paused[reason] = self._paused.get(reason, 0) + 1

    def resume(self, reason: str) -> None:
        with self._lock:
            count = self._paused.get(reason, 0) - 1
            if count > 0:
                self._paused[reason] = count
            else:
                self._paused.pop(reason, None)
        self._wake.set()

    def hide(self, group: Hashable, hidden: bool = True) -> None:
        """A group of cells (a workbook) is hidden (skipped) or shown again."""
        with self._lock:
            (self._hidden.add if hidden else self._hidden.discard)(group)
        self._wake.set()

    def _pause_reasons(self) -> tuple[str, ...]:
        reasons = list(self._paused)
        if self._polled[0]:
            reasons.append(self._polled[0])
        return tuple(dict.fromkeys(reasons))

    # -- running ---------------------------------------------------------------------------
    def start(self) -> None:
        with self._lock:
            if self._thread is not None:
                return
            self._stop.clear()
            self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="rates-live")
            self._thread = threading.Thread(target=self._run, name="rates-live", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop refreshing (Live off). Refetches on the wire finish; the registry is kept."""
        with self._lock:
            thread, pool = self._thread, self._pool
            self._thread = self._pool = None
        self._stop.set()
        self._wake.set()
        if thread is not None:
            thread.join(timeout)
        if pool is not None:
            # Not waiting: a refetch on the wire finishes on its own; the ribbon must not
            # freeze Excel for it (a hung service could hold it for the whole deadline).
            pool.shutdown(wait=False, cancel_futures=True)

    @property
    def running(self) -> bool:
        return self._thread is not None

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.step()
            except Exception as exc:  # the loop must outlive any one failure; say what it was
                log.exception("live: a step failed")
                with self._lock:
                    self._last_error = f"Live stopped a step: {type(exc).__name__}: {exc}"
            self._wake.wait(self.tick)
            self._wake.clear()

    def step(self) -> list[RequestKey]:
        """One look at what is due: start those refetches (on the pool when running, else
        here, one after another). Returns the keys started."""
        if self.host_state is not None:
            try:
                self._polled = self.host_state()
            except Exception as exc:  # the host could not say: treat as busy, try next tick
                self._polled = (f"host busy ({type(exc).__name__})", self._polled[1])
        self._flush_notify()
        with self._lock:
            paused = bool(self._pause_reasons())
            due = [] if paused else self._due(self._wall())
            for key in due:
                self._keys[key].busy = True
            pool = self._pool
        for key in due:
            if pool is not None:
                pool.submit(self._refetch, key)
            else:
                self._refetch(key)
        self._flush_notify()
        self._report()
        return due

    def _report(self) -> None:
        """Tell the host when something it shows changed: a refetch ended, the error, a pause."""
        if self.on_status is None:
            return
        status = self.status()
        seen = (status.refreshed, status.failed, status.last_error, status.paused)
        if seen != self._reported:
            self._reported = seen
            try:
                self.on_status(status)
            except Exception:  # the status bar is a courtesy: never stop Live for it
                log.debug("live: on_status failed", exc_info=True)

    def _due(self, now: float) -> list[RequestKey]:
        """The keys to start now: earliest expiry first, each started no later than the
        latest start that lets every later one start in time at the share's pace."""
        hidden = self._hidden | set(self._polled[1])
        queue = sorted(
            (w.expires, i, key) for i, (key, w) in enumerate(self._keys.items())
            if not w.busy and w.cells and not all(self._cells[c][1] in hidden for c in w.cells))
        if not queue:
            return []
        slot = 1.0 / self._limiter.rate
        latest = float("inf")
        starts = []
        for expires, _, _ in reversed(queue):
            latest = min(expires - slot, latest - slot)
            starts.append(latest)
        starts.reverse()
        # At most the pace's worth per tick (the limiter holds the rest back anyway).
        budget = max(1, int(self._limiter.rate * max(self.tick, slot)) + 1)
        chosen: list[RequestKey] = []
        for (_, _, key), start in zip(queue, starts, strict=True):
            if start > now or len(chosen) >= budget:
                break
            chosen.append(key)
        return chosen

    def _refetch(self, key: RequestKey) -> None:
        started = self._wall()
        with self._lock:
            watched = self._keys.get(key)
            expires = watched.expires if watched else started
            limiter = self._limiter
        client = self.client
        try:
            # The token is paid before the request joins the client's in-flight table, so
            # a cell asking for the same answer meanwhile never waits for Live's turn.
            limiter.acquire(time.monotonic() + client.settings.deadline)
            with client.fresh_since(started), client.limited_by(Prepaid(limiter)):
                client.get_key(key)
            answered = True
        except RatesError as exc:
            # A refusal is cached (the cells show its message); anything else is not.
            answered = client.cache.get(key, fresh_since=started) is not None
            self._record_failure(key, exc)
        except Exception as exc:  # never lose the key's schedule to an unexpected error
            answered = False
            self._record_failure(key, exc)
        with self._lock:
            watched = self._keys.get(key)
            if watched is None:
                return
            watched.busy = False
            if not watched.cells:
                del self._keys[key]
                return
            if answered:
                self._failing.pop(key, None)
                if not self._failing and self._last_error in self._failure_texts:
                    self._last_error = None  # every failing request is answered again
                self._expiry(key, watched)
                self._late_max = max(self._late_max, started - expires)
                self._last_refresh = self._wall()
                self._refreshed += 1
                self._pending_notify |= watched.cells
            else:
                watched.expires = self._wall() + min(RETRY_SECONDS, watched.ttl or RETRY_SECONDS)
        self._wake.set()

    def _record_failure(self, key: RequestKey, exc: BaseException) -> None:
        text = f"{key.endpoint}: {exc}" if isinstance(exc, RatesError) else \
            f"{key.endpoint}: {type(exc).__name__}: {exc}"
        log.warning("live: refetch failed: %s", text)
        with self._lock:
            self._failed += 1
            self._failing[key] = text
            self._failure_texts.add(text)
            self._last_error = text

    def _flush_notify(self) -> None:
        with self._lock:
            cells, self._pending_notify = frozenset(self._pending_notify), set()
        if cells:
            try:
                self.notify(cells)
            except Exception as exc:  # the host's push failed: say so, keep running
                log.exception("live: notify failed")
                with self._lock:
                    self._last_error = f"could not update the cells: {type(exc).__name__}: {exc}"

    def status(self) -> LiveStatus:
        with self._lock:
            return LiveStatus(
                running=self.running, paused=self._pause_reasons(), cells=len(self._cells),
                requests=len(self._keys), last_refresh=self._last_refresh,
                last_error=self._last_error, refreshed=self._refreshed, failed=self._failed,
                late_max=self._late_max)

    def clear_error(self) -> None:
        with self._lock:
            self._last_error = None
