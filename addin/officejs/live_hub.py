"""Live mode for the Office.js host: one `LiveScheduler` per `rates-xl serve`, shared by every
page (every Excel) that uses the server, so they share one cadence and one budget.

A streaming custom function (`options.stream` in functions.json) first gets its value
through the batch endpoint like any cell; while the page's Live switch is on it then
*subscribes*: `POST /api/live/subscribe {"session", "subs": [{"id", "fn", "args"}]}`. The
server computes the cell once more (from the cache), its call context collecting the
requests it uses (functions/context.py `used`), to learn which requests its value depends on and watches it (client/live_scheduler.py: only cells valued as
of now; a past valuation time answers `"live": false` and is never refreshed). When the
scheduler has refetched a request, every subscribed cell using it is computed again and
its outcome queued for its page; the page long-polls `POST /api/live/poll {"session"}`,
answered at once when something is queued, else after `POLL_SECONDS` with nothing, and
calls `invocation.setResult` with each. Excel cancelling the function (formula deleted or
changed, workbook closed: `onCanceled`) sends `POST /api/live/cancel {"session", "ids"}`.
A page that stops polling for `IDLE_SECONDS` (Excel closed) loses its subscriptions.

On a team server a subscription is one of its user's batches (app.py: `Team.run`): it
waits in that user's queue, takes a batch worker, is refused 503 past the user's queue, and
its cells and the service requests it sends are counted in the user's `/api/me` and the
access log. What it must fetch is fetched as a batch fetches (the plan/fetch loop, at most
`max_workers` requests in the limiter's queue), never one request after another on a worker
of everyone's. A session belongs to the user who created it: another user's subscribe,
poll or cancel is told there is no such session (404), and a user holds at most
`MAX_SESSIONS` pages and `MAX_SUBSCRIPTIONS` cells.

Why a long poll and not a WebSocket or server-sent events: the same origin rules, body
limits and connection caps as the batch endpoint apply unchanged (app.py, limits.py), and
each answer is one small JSON document.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from rates_xl.addin.officejs.batch import (
    book_dates,
    book_moment,
    check_call,
    functions_by_id,
    outcome,
)
from rates_xl.client.live_scheduler import LiveScheduler
from rates_xl.errors import Refusal
from rates_xl.functions.context import CallContext
from rates_xl.functions.core import evaluate

log = logging.getLogger("rates_xl.addin.officejs")

#: Seconds a poll waits for news before answering with none (the page polls again).
POLL_SECONDS = 20.0
#: Seconds without a poll after which a page counts as gone (Excel closed).
IDLE_SECONDS = 90.0
#: Subscriptions one user may hold, all pages together (a workbook of this many live cells
#: is far beyond a screen).
MAX_SUBSCRIPTIONS = 20000
#: Pages (Excel windows, each a session) one user may have live at once.
MAX_SESSIONS = 16
#: Characters of a session id (the page makes a random one).
MAX_SESSION = 64


class NoSuchSession(Refusal):
    """The session is another user's (or one more than the user may open): answered 404."""


@dataclass
class _Session:
    owner: str | None = None  # the signed-in user who created it (None: the local server)
    subs: dict[int, tuple[Any, tuple]] = field(default_factory=dict)  # id -> (spec, args)
    outbox: dict[int, dict[str, Any]] = field(default_factory=dict)  # id -> latest outcome
    dates: bool | str = False  # its book's date system (batch.book_dates): the page is one book's
    seen: float = field(default_factory=time.monotonic)
    waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = field(default_factory=list)


class LiveHub:
    """The server's streaming cells and the one scheduler that keeps them fresh."""

    def __init__(self, client: Any, share: float | None = None, *, tick: float = 0.1) -> None:
        self.client = client
        self.table = functions_by_id()
        self._lock = threading.Lock()
        self._sessions: dict[str, _Session] = {}
        self.scheduler = LiveScheduler(client, self._notify, share=share, tick=tick)
        self.scheduler.start()

    # -- sessions ---------------------------------------------------------------------------
    def _session(self, session: str, owner: str | None) -> _Session:
        """`owner`'s session of that id, created if new; NoSuchSession when it is another
        user's, or would be one page too many. Called with the lock held."""
        state = self._sessions.get(session)
        if state is None:
            if sum(1 for s in self._sessions.values() if s.owner == owner) >= MAX_SESSIONS:
                raise NoSuchSession(f"more than {MAX_SESSIONS} live pages for one user")
            state = self._sessions[session] = _Session(owner=owner)
        elif state.owner != owner:
            raise NoSuchSession("no such live session")
        state.seen = time.monotonic()
        return state

    # -- called on batch threads -------------------------------------------------------------
    def subscribe(self, session: str, subs: list[Any], owner: str | None = None,
                  valuation_time: Any = None, date1904: Any = None) -> list[dict[str, Any]]:
        """Watch each cell valued as of now; one answer per sub: {"id", "live": bool} or
        {"id", "error", "message"} for a call that is not one (its cell keeps its value).
        `valuation_time` is the book's pinned moment (RATES_VALUATION_TIME), as a batch's: a
        cell of a pinned book is valued at it, so it is answered `live: false`, never refetched
        as of now. `date1904` is the book's date system, as a batch's (batch.book_dates).
        NoSuchSession when the session is another user's."""
        from rates_xl.functions.plan import plan_and_evaluate

        answers: list[dict[str, Any]] = []
        todo: list[tuple[int, Any, tuple]] = []
        # What the cells use is fetched as a batch fetches (usually from the cache: the batch
        # computed them a moment ago), then each cell once more to learn its requests.
        dates = book_dates(date1904)
        base = CallContext(client=self.client, valuation_time=book_moment(valuation_time, dates))
        with self._lock:
            self._session(session, owner).dates = dates
            room = MAX_SUBSCRIPTIONS - sum(len(s.subs) for s in self._sessions.values() if s.owner == owner)
        for sub in subs:
            sub_id = sub_id_of(sub.get("id") if isinstance(sub, dict) else None)
            if sub_id is None:
                answers.append({"id": sub_id, "error": "invalidValue", "message": "a subscription needs an integer id"})
                continue
            checked = check_call(sub, self.table, dates)
            if isinstance(checked, dict):
                answers.append({"id": sub_id, **checked})
                continue
            if room <= len(todo):
                answers.append({"id": sub_id, "error": "notAvailable",
                                "message": f"more than {MAX_SUBSCRIPTIONS} live cells for one user"})
                continue
            answers.append({"id": sub_id})
            spec, args = checked
            todo.append((len(answers) - 1, spec, base.pin(spec, args)))
        if todo:
            plan_and_evaluate(lambda context: [evaluate(spec, args, context) for _, spec, args in todo],
                              self.client, context=base)
        for at, spec, args in todo:
            sub_id = answers[at]["id"]
            used: set[Any] = set()
            evaluate(spec, args, base.replace(used=used))  # from the cache now
            with self._lock:
                state = self._session(session, owner)
                state.subs[sub_id] = (spec, args)
            live = self.scheduler.watch((session, sub_id), used, group=session)
            if not live:
                with self._lock:
                    state.subs.pop(sub_id, None)
            answers[at]["live"] = live
        self._sweep()
        return answers

    def cancel(self, session: str, ids: list[Any], owner: str | None = None) -> int:
        """Excel cancelled these cells (onCanceled): stop refreshing them. NoSuchSession when
        the session is another user's."""
        dropped = 0
        with self._lock:
            state = self._sessions.get(session)
            if state is None:
                return 0
            if state.owner != owner:
                raise NoSuchSession("no such live session")
            state.seen = time.monotonic()
            for sub_id in ids:
                if state.subs.pop(sub_id, None) is not None:
                    state.outbox.pop(sub_id, None)
                    dropped += 1
        for sub_id in ids:
            if isinstance(sub_id, Hashable):
                self.scheduler.forget((session, sub_id))
        return dropped

    # -- called on the scheduler's thread ---------------------------------------------------
    def _notify(self, cells: frozenset) -> None:
        for session, sub_id in cells:
            with self._lock:
                state = self._sessions.get(session)
                call = state.subs.get(sub_id) if state else None
                dates = state.dates if state else False
            if call is None:
                continue
            spec, args = call
            context = CallContext(client=self.client)
            result = outcome(spec, args, evaluate(spec, args, context), context, dates)
            with self._lock:
                state.outbox[sub_id] = result
                waiters, state.waiters = state.waiters, []
            for loop, event in waiters:
                with contextlib.suppress(RuntimeError):  # the server stopped meanwhile
                    loop.call_soon_threadsafe(event.set)

    # -- called on the event loop ------------------------------------------------------------
    async def poll(self, session: str, wait: float | None = None, owner: str | None = None) -> dict[str, Any]:
        """The queued new outcomes of this page's cells, waiting up to `wait` s for some, and
        how many cells the server holds for the page (0 after a restart: it subscribes again).
        NoSuchSession when the session is another user's."""
        self._sweep()
        wait = POLL_SECONDS if wait is None else wait
        event = asyncio.Event()
        with self._lock:
            state = self._session(session, owner)
            if not state.outbox:
                state.waiters.append((asyncio.get_running_loop(), event))
        if not event.is_set() and not state.outbox:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), wait)
        with self._lock:
            state.seen = time.monotonic()
            updates, state.outbox = state.outbox, {}
            state.waiters = [(lp, ev) for lp, ev in state.waiters if ev is not event]
            subscribed = len(state.subs)
        return {"updates": [{"id": sub_id, **result} for sub_id, result in updates.items()],
                "subscribed": subscribed, "status": self.status()}

    def status(self) -> dict[str, Any]:
        status = self.scheduler.status()
        return {"text": status.text(), "cells": status.cells, "last_refresh": status.last_refresh,
                "last_error": status.last_error, "share": self.scheduler.share}

    def _sweep(self) -> None:
        """Forget the pages that stopped polling (Excel closed without cancelling)."""
        now = time.monotonic()
        with self._lock:
            gone = [s for s, state in self._sessions.items() if now - state.seen > IDLE_SECONDS]
            dropped = {s: list(self._sessions.pop(s).subs) for s in gone}
        for session, ids in dropped.items():
            for sub_id in ids:
                self.scheduler.forget((session, sub_id))
            log.info("live: page %s... gone quiet, %d cells dropped", session[:6], len(ids))

    def close(self) -> None:
        self.scheduler.stop()


def sub_id_of(value: Any) -> int | None:
    """A cell's subscription id as the page sent it (JSON numbers arrive as floats, app.py)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not (value.is_integer() and abs(value) < 2**53):
        return None
    return int(value)


def session_of(payload: Any) -> str | None:
    """The page's session id from a request body, or None when it is not a usable one."""
    session = payload.get("session") if isinstance(payload, dict) else None
    if isinstance(session, str) and 8 <= len(session) <= MAX_SESSION and session.isalnum():
        return session
    return None
