r"""A miss never blocks Excel: RATES_ cells wait through Excel's RTD, host-free.

The decision (addin/README.md, "Why RTD"): **RTD as the doorbell, the value still from the
UDF** (RTD cannot return an array, KB 286258). This module is all of its logic, with no
pywin32 and no Excel, so the serial-Excel stand-in (tests/support/serial_excel_rtd.py) and
the tests drive it on Linux; `rtd_server.py` is the IRtdServer Excel calls, over these waits,
`rtd_com.py` the thin Windows layer that hands it to COM and `rtd_registry.py` the per-user
registration.

How one cell goes, outside a ribbon refresh:

1. Excel calls the RATES_ UDF. `evaluate()` computes it while the client *plans*: a cached
   answer is returned as today (a number, a spilled table, a `#RATES!` message).
2. A miss is recorded, not sent. Its request joins the others missed in the same calculation
   (`Waits.miss`; the batch leaves when no new miss came for GATHER_QUIET s): each distinct
   request goes once to a pool of `max_workers` threads that fetch it under the client's
   shared rate limiter (identical requests in flight coalesce in the client). The UDF
   answers at once `WAIT_PREFIX + topic`, the topic being the request's id.
3. The add-in's VBA wrapper (`RatesAnswer`, vba/RatesRtd.bas; `excel_answer` below is the same
   rule in Python, used by the stand-in) sees that marker, calls
   `Application.WorksheetFunction.RTD(PROGID, "", topic)` (which subscribes the calling cell to
   the topic) and returns `#N/A` (`CVErr(xlErrNA)`): the placeholder. The marker itself never
   reaches a cell.
4. When the answer (or a failure) is in, the topic becomes "ready" and the RTD server calls
   Excel's `UpdateNotify`. Excel calls `RefreshData` when idle, at most once per throttle
   interval (2 s by default), and recalculates the cells of the topics it got: the UDF now
   finds the answer cached and returns it, the whole table for a curve; dependents follow;
   a chain's next link misses and waits in turn. The cell no longer calls RTD, so Excel
   disconnects its topic (`DisconnectData`).

The topic API (for Live mode and anything else that pushes values to cells), all of it:

- `topic_for(key)`: the topic of one request; `waits.notify_keys(keys)` makes Excel
  recalculate every cell waiting on those requests.
- Channels: a formula may subscribe to `=RTD("RatesXL.RTD", , name, strings...)` for a
  channel registered with `waits.add_channel(name, channel)`. Excel's ConnectData for such a
  topic calls `channel.connect(server, topic_id, strings)` (its answer is the topic's first
  value) and DisconnectData calls `channel.disconnect(server, topic_id)`;
  `server.push({topic_id: value})` gives topics new values and rings Excel (retried while
  Excel is busy), which pulls them at its pace and recalculates their cells.

What never takes this path: a call without a calling cell (VBA, the Function Wizard), a
ribbon refresh in progress (it plans and fetches itself, `refresh.py`), `rates-xl calc` and
every frozen copy (they never import this module's path: `functions.core.evaluate` fetches
synchronously), and any process where no RTD server is available (`Waits.enabled` False:
the UDF then fetches synchronously as before).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rates_xl.addin.classic.rtd_server import RtdServer

#: The RTD server's ProgID and class id (registered per user by `rates-xl addin install`).
PROGID = "RatesXL.RTD"
CLSID = "{5B0E2C1A-8F43-4E7B-9D51-6A2C3F70B1D4}"
#: What a waiting UDF answers the VBA wrapper, followed by the topic. Never shown in a cell.
WAIT_PREFIX = "#RATES-RTD "
#: The channel Live mode's cells subscribe to while the Live toggle is on (live_rtd.py).
LIVE_CHANNEL = "live"
#: A topic's RTD value while its request is in flight, and once it is answered (a counter is
#: appended so every answer is a new value: Excel recalculates a topic's cells on a change).
FETCHING = "fetching"
READY = "ready"
#: What ConnectData answers for a request topic this process never queued: a book saved while
#: its cells waited, reopened (Excel reconnects saved topics on open, with GetNewValues False:
#: Excel-DNA's ExcelObserverRtdServer.ConnectData, "called from the file open refresh"). A
#: value other than the one saved (FETCHING) makes Excel recalculate the cell, whose UDF then
#: queues the request again under the same topic ("Result should be a Disconnect followed by a
#: proper Connect via the wrapper", ibid.; Excel-DNA issue 102: a new value from ConnectData
#: "should cause an immediate update when the sheet is loaded").
RECONNECT = "reconnect"
#: A calculation's misses are handed to the fetch pool together once no new one came for
#: GATHER_QUIET seconds, or GATHER_MAX seconds after the first (a long calculation).
GATHER_QUIET = 0.03
GATHER_MAX = 0.5
#: How long a failed fetch is remembered so that every cell waiting on it shows the failure
#: in the recalculation that follows (then the next calculation asks again), seconds.
FAILURE_MEMORY = 10.0
#: Past this many requests remembered, answered ones older than KEEP_ANSWERED s are forgotten.
MAX_WAITS = 20_000
KEEP_ANSWERED = 60.0


def topic_for(key: Any) -> str:
    """The RTD topic of one request: a short id of its normalised key (stable in a process)."""
    return "r" + hashlib.sha1(repr(key).encode("utf-8")).hexdigest()[:20]


def wait_topic(result: Any) -> str | None:
    """The topic a UDF's answer says to wait on, else None. The marker comes alone, or as
    every element of a block the size of a legacy array formula (`wait_block`), which
    xlwings hands VBA as a 2-D array (a 1-D one for one row)."""
    first = result
    while isinstance(first, list | tuple) and first:
        first = first[0]
    if isinstance(first, str) and first.startswith(WAIT_PREFIX):
        return first[len(WAIT_PREFIX):]
    return None


def wait_block(marker: str, rows: int, cols: int) -> Any:
    """A wait marker for a caller of `rows` x `cols` cells (a legacy CSE array): the marker
    itself for one cell, else a block of it. xlwings' `expand` rewrites an array formula
    whose result is not the caller's size (udfs.call_udf, delayed_resize_dynamic_array_formula):
    a lone marker would cut a waiting curve's array down to one cell, leaving its other
    cells empty (a SUM over them a plausible 0)."""
    if rows <= 1 and cols <= 1:
        return marker
    return [[marker] * cols for _ in range(rows)]


def excel_answer(result: Any, call_rtd: Callable[..., Any], na: Any,
                 live_cell: tuple[str, str, str] | None = None, value_error: Any = None) -> Any:
    """What the VBA wrapper `RatesAnswer` (rtd_vba.py) does with a UDF's result: a wait
    marker (alone or as a block, `wait_topic`) subscribes the calling cell to its topic
    through RTD and becomes `na` (#N/A, which Excel shows in every cell of an array formula);
    a cell of an array holding an error's text (`errors.CELL_TEXT`) becomes that error;
    anything else passes. A failing RTD call still gives #N/A (never text a SUM would skip).
    `live_cell` (book, sheet, address), given while the ribbon's Live toggle is on: an
    answered cell also subscribes to its `live` channel topic (live_rtd.py), so Live mode
    can make Excel recalculate it; its value is still the answer. An error marker
    (functions/errors.py) becomes `value_error` (#VALUE!) or `na` (#N/A), as `RatesAnswer`
    returns CVErr(xlErrValue) or CVErr(xlErrNA)."""
    from rates_xl.functions import errors

    failed = errors.marker_kind(result)
    if failed is not None:
        return value_error if failed == errors.VALUE else na
    topic = wait_topic(result)
    if topic is not None:
        try:
            call_rtd(PROGID, "", topic)
        except Exception:  # the VBA has On Error Resume Next around the call
            pass
        return na
    if live_cell is not None:
        try:
            call_rtd(PROGID, "", LIVE_CHANNEL, *live_cell)
        except Exception:  # On Error Resume Next: the answer shows regardless
            pass
    if isinstance(result, list):  # NaCells: a cell holding an error's text is that error
        shown = {errors.CELL_TEXT[errors.NA]: na, errors.CELL_TEXT[errors.VALUE]: value_error}

        def cell(item: Any) -> Any:
            return shown.get(item, item) if isinstance(item, str) else item

        return [[cell(c) for c in row] if isinstance(row, list) else cell(row) for row in result]
    return result


# -- the waits: misses, fetches, topics ready ---------------------------------------------------
@dataclass
class _Wait:
    key: Any
    fetching: bool = True
    answers: int = 0  # how many times this request has been answered (the topic's value)
    failure: BaseException | None = None
    failed_until: float = 0.0
    answered_at: float = 0.0


@dataclass
class Waits:
    """The process's waiting requests and the RTD servers Excel started (one per instance)."""

    enabled: bool = False
    clock: Callable[[], float] = time.monotonic
    _by_topic: dict[str, _Wait] = field(default_factory=dict)
    _servers: list[RtdServer] = field(default_factory=list)
    _pool: ThreadPoolExecutor | None = None
    _queued: list[tuple[Any, Any, str, float | None]] = field(default_factory=list)
    _last_miss: float = 0.0
    _gatherer: threading.Thread | None = None
    _channels: dict[str, Any] = field(default_factory=dict)
    _lock: threading.RLock = field(default_factory=threading.RLock)
    #: Answers recorded whose servers are not yet rung: still "in flight" for `pending()`, or a
    #: caller could see nothing fetching and nothing notified in between (and stop waiting).
    _announcing: int = 0
    #: Requests handed to the pool (what the tests and the benchmark check: each once).
    submitted: int = 0

    # -- the UDF side --
    def answer(self, spec: Any, values: tuple[Any, ...], context: Any) -> Any:
        """One cell under its call context (functions/context.py: its book's valuation moment,
        its floor): its answer if cached, else `WAIT_PREFIX + topic` (the requests now queued,
        fetched under the same floor)."""
        from rates_xl.functions import core
        from rates_xl.functions.context import Round
        from rates_xl.functions.messages import message_for

        client = context.client or core.get_client()
        floor = context.fresh_since
        attempt = 0
        while True:
            started = self.clock()
            planned = Round()
            result = core.evaluate(spec, values, context.replace(planning=planned))
            recorded = planned.keys
            if not recorded:
                return result
            # One request per call, or one per tenor of a history grid: every miss is queued
            # now (they leave together), and the cell waits on the first still to come, in a
            # fixed order; answered, it recalculates and waits on the next if any is still on
            # its way.
            keys = sorted(recorded, key=repr)
            waiting = [key for key in keys if self._failure(key) is None]
            if not waiting:  # every request missing failed a moment ago: say why, do not ask again
                return message_for(self._failure(keys[0]), core._secret())
            # A fetch on a pool thread may land while this cell computes (a grid's tenors
            # arrive one by one): `miss` then queues nothing for it (None), and the cell is
            # computed once more rather than the answered request queued again (a second
            # submission, a second ring). The last attempt queues whatever is missing.
            landed_since = started if attempt < 2 else None
            topics = [self.miss(client, key, floor, landed_since=landed_since) for key in waiting]
            if None not in topics:
                return WAIT_PREFIX + topics[0]
            attempt += 1

    def miss(self, client: Any, key: Any, floor: float | None = None, *,
             landed_since: float | None = None) -> str | None:
        """Queue `key` (once while it is in flight); its topic. None, queueing nothing, when
        its request was answered at or after `landed_since` (an answer that landed while the
        asking cell computed: the cell computes again). The check and the queueing are one
        step under the lock the fetch records its answer under, so an answer landing between
        the cell's computation and its miss is never queued again."""
        topic = topic_for(key)
        with self._lock:
            wait = self._by_topic.get(topic)
            if wait is not None and wait.fetching:
                return topic
            if wait is not None and landed_since is not None and wait.failure is None and wait.answers > 0 \
                    and wait.answered_at >= landed_since:
                return None
            if wait is None:
                wait = self._by_topic[topic] = _Wait(key)
            wait.fetching, wait.failure = True, None
            self.submitted += 1
            self._queued.append((client, key, topic, floor))
            self._last_miss = self.clock()
            if self._gatherer is None or not self._gatherer.is_alive():
                self._gatherer = threading.Thread(target=self._gather, name="rates-rtd-gather", daemon=True)
                self._gatherer.start()
        return topic

    def _gather(self) -> None:
        """Hand the misses to the fetch pool once the calculation that made them is over (no
        new miss for GATHER_QUIET s, or GATHER_MAX s after the first): the fetch threads do
        not compete with Excel's calculation for the interpreter meanwhile, and the requests
        missed in one calculation go out as one batch."""
        first = self.clock()
        while True:
            time.sleep(GATHER_QUIET / 2)
            with self._lock:
                now = self.clock()
                if now - self._last_miss < GATHER_QUIET and now - first < GATHER_MAX:
                    continue
                batch, self._queued = self._queued, []
                if not batch:
                    self._gatherer = None
                    return
                if self._pool is None:
                    workers = max(1, int(getattr(batch[0][0].settings, "max_workers", 16)))
                    self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rates-rtd")
                for item in batch:
                    self._pool.submit(self._fetch, *item)
                first = now

    def _fetch(self, client: Any, key: Any, topic: str, floor: float | None) -> None:
        failure: BaseException | None = None
        try:
            if floor is None:
                client.get_key(key)  # the client's own deadline: Excel is not waiting
            else:
                with client.fresh_since(floor):
                    client.get_key(key)
        except Exception as exc:  # cached by the client when it is a lasting answer (404...)
            failure = exc
        with self._lock:
            wait = self._by_topic.get(topic)
            if wait is None:
                return  # reset meanwhile
            wait.fetching = False
            wait.answers += 1
            wait.answered_at = self.clock()
            if failure is not None:
                wait.failure, wait.failed_until = failure, wait.answered_at + FAILURE_MEMORY
            if len(self._by_topic) > MAX_WAITS:
                self._prune(wait.answered_at - KEEP_ANSWERED)
            self._announcing += 1
        try:
            self._ready([topic])
        finally:
            with self._lock:
                self._announcing -= 1

    def tidy(self) -> None:
        """Prune now if the table is past MAX_WAITS (a topic Excel just let go may go)."""
        with self._lock:
            if len(self._by_topic) > MAX_WAITS:
                self._prune(self.clock() - KEEP_ANSWERED)

    def _prune(self, before: float) -> None:
        """Forget answered requests older than `before` whose topic no cell still holds (their
        cells have recalculated; a later miss starts afresh): the table stays bounded in a long
        session. A topic a cell still holds is kept: forgotten, it would read FETCHING again,
        the value Excel already has, and an unchanged value recalculates nothing."""
        held = set().union(*(server.held_topics() for server in self._servers))
        for topic in [t for t, w in self._by_topic.items()
                      if not w.fetching and w.answered_at < before and w.failure is None and t not in held]:
            del self._by_topic[topic]

    def _failure(self, key: Any) -> BaseException | None:
        with self._lock:
            wait = self._by_topic.get(topic_for(key))
            if wait is None or wait.failure is None or wait.fetching:
                return None
            if self.clock() > wait.failed_until:
                wait.failure = None
                return None
            return wait.failure

    def forget_failures(self) -> int:
        """Forget every remembered failure (Clear Cache, a new API key): the user may have
        fixed its cause, so the next calculation of a cell that showed it asks again.
        How many were forgotten."""
        with self._lock:
            failed = [w for w in self._by_topic.values() if w.failure is not None]
            for wait in failed:
                wait.failure, wait.failed_until = None, 0.0
        return len(failed)

    # -- the topic API --
    def known(self, topic: str) -> bool:
        """Whether this process queued the topic's request (a reopened book's may not be)."""
        with self._lock:
            return topic in self._by_topic

    def state(self, topic: str) -> str:
        """The topic's RTD value now: FETCHING, or READY with its answer count."""
        with self._lock:
            wait = self._by_topic.get(topic)
            if wait is None or wait.fetching:
                return FETCHING
            return f"{READY} {wait.answers}"

    def notify_keys(self, keys: Iterable[Any]) -> None:
        """Recalculate every cell subscribed to these requests' topics (e.g. after Live mode
        refetched them): each topic's value changes, and Excel is rung."""
        topics = [topic_for(k) for k in keys]
        with self._lock:
            for topic in topics:
                wait = self._by_topic.get(topic)
                if wait is not None and not wait.fetching:
                    wait.answers += 1
        self._ready(topics)

    def _ready(self, topics: list[str]) -> None:
        with self._lock:
            servers = list(self._servers)
        for server in servers:
            server.topics_ready(topics)

    # -- channels: other topics served by the same RTD server (Live mode) --
    def add_channel(self, name: str, channel: Any) -> None:
        """Serve `=RTD(PROGID, , name, ...)` topics with `channel` (see the module notes)."""
        if name.startswith("r") and len(name) == 21:
            raise ValueError(f"channel name {name!r} looks like a request topic")
        with self._lock:
            self._channels[name.casefold()] = channel

    def channel(self, name: str) -> Any:
        with self._lock:
            return self._channels.get(name.casefold())

    # -- the servers Excel starts --
    def attach(self, server: RtdServer) -> None:
        with self._lock:
            self._servers.append(server)

    def detach(self, server: RtdServer) -> None:
        with self._lock:
            if server in self._servers:
                self._servers.remove(server)

    def pending(self) -> int:
        """Requests in flight (answered ones count until their servers have been rung)."""
        with self._lock:
            return self._announcing + sum(1 for w in self._by_topic.values() if w.fetching)

    def reset(self) -> None:
        """Forget every wait and server; stop the pool (tests, and Clear Cache)."""
        with self._lock:
            pool, self._pool = self._pool, None
            self._queued.clear()
            self._by_topic.clear()
            self._servers.clear()
            self._channels.clear()
            self.submitted = 0
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


#: The process's waits (the UDF server's one).
waits = Waits()
