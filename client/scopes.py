"""What one context asks of `RatesClient` (a thread, and the fetch threads it starts: context
variables): a freshness floor (a Refresh), planning (record misses, send nothing), recording
(the market-data pack), the answers one calculation holds (its rounds), the requests a cell
used (Live mode), a limiter of its own (Live's share). `Scopes` is mixed into the client; `client.py` reads the variables on each call.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rates_xl.client.cache import HeldAnswers
    from rates_xl.client.client import RequestKey
    from rates_xl.client.limiter import Limiter
    from rates_xl.client.pack import PackRecorder

# Set by `fresh_since` and `planning`; context-local so a refresh or a plan in one thread
# does not change what other cells see.
FLOOR: contextvars.ContextVar[float | None] = contextvars.ContextVar("fresh_since", default=None)
PLAN: contextvars.ContextVar[set[RequestKey] | None] = contextvars.ContextVar("plan", default=None)
# Set by `recording`: where answers are written down for the market-data pack (pack.py).
RECORDER: contextvars.ContextVar[PackRecorder | None] = contextvars.ContextVar("recorder", default=None)
# Set by `holding`: the answers this calculation used, kept until it ends (cache.HeldAnswers).
HELD: contextvars.ContextVar[HeldAnswers | None] = contextvars.ContextVar("held", default=None)
# Set by `limited_by`: the limiter this context's requests take their tokens from (Live
# mode's share of the bucket, see limiter.ShareLimiter); None: the client's own.
LIMITER: contextvars.ContextVar[Limiter | None] = contextvars.ContextVar("limiter_here", default=None)
# Set by `requests_used`: every request asked for in this context (Live mode: what a cell uses).
USED: contextvars.ContextVar[set[RequestKey] | None] = contextvars.ContextVar("used", default=None)


class Scopes:
    """The client's scopes (mixed into `RatesClient`)."""

    def pack_recorder(self) -> PackRecorder:
        raise NotImplementedError  # RatesClient's

    @contextlib.contextmanager
    def fresh_since(self, moment: float | datetime) -> Iterator[None]:
        """Within this block (this thread or context), answers cached before `moment` are stale."""
        if isinstance(moment, datetime):
            moment = moment.timestamp()
        token = FLOOR.set(moment)
        try:
            yield
        finally:
            FLOOR.reset(token)

    @contextlib.contextmanager
    def holding(self, held: HeldAnswers) -> Iterator[HeldAnswers]:
        """Within this block (this thread or context, and `fetch_many`'s workers) every answer
        used is kept in `held`, and an answer the cache has since dropped (its TTL ran out) is
        served from there: one calculation in rounds uses one answer per request."""
        token = HELD.set(held)
        try:
            yield held
        finally:
            HELD.reset(token)

    @contextlib.contextmanager
    def requests_used(self, used: set[RequestKey] | None = None) -> Iterator[set[RequestKey]]:
        """Within this block (this thread or context) every request asked for, answered or
        not, is added to the set (`used`, or a new one): the requests a cell's value depends
        on (Live mode)."""
        used = set() if used is None else used
        token = USED.set(used)
        try:
            yield used
        finally:
            USED.reset(token)

    @contextlib.contextmanager
    def limited_by(self, limiter: Limiter) -> Iterator[None]:
        """Within this block (this thread or context) requests take their tokens from
        `limiter` instead of the client's own (Live mode: limiter.ShareLimiter)."""
        token = LIMITER.set(limiter)
        try:
            yield
        finally:
            LIMITER.reset(token)

    @contextlib.contextmanager
    def planning(self) -> Iterator[set[RequestKey]]:
        """Within this block cache misses are recorded, not sent: they raise `NotFetched`.

        Evaluate a workbook inside it, `fetch_many` what was recorded, evaluate again.
        """
        recorded: set[RequestKey] = set()
        token = PLAN.set(recorded)
        try:
            yield recorded
        finally:
            PLAN.reset(token)

    @contextlib.contextmanager
    def recording(self, recorder: PackRecorder | None = None) -> Iterator[PackRecorder]:
        """Within this block (this thread or context, and `fetch_many`'s workers) every answer
        used is written down, with its fetch time: `recorder.pack()` is the market-data pack.
        Pass a `recorder` to go on adding to one (a book evaluated in several rounds). A
        replaying client records the pack's own entries (their original fetch times)."""
        if recorder is None:
            recorder = self.pack_recorder()
        token = RECORDER.set(recorder)
        try:
            yield recorder
        finally:
            RECORDER.reset(token)
