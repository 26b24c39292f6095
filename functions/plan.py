"""The plan / fetch / compute loop every host uses: a workbook costs its distinct service
requests once, fetched concurrently at the limiter's pace, never one latency per cell.

`plan_and_evaluate(evaluate, client)` is independent of any engine. `evaluate(context)`
computes the workbook (or the part of it being refreshed) once, every RATES_* call of it
under `context` (functions/context.py): the headless engine in `rates-xl calc` (calc/),
Excel's own calculation in the add-in's Refresh buttons, the Office.js batch. Round 1 runs
it with a planning `Round` in the context, where a cache miss is recorded instead of sent
(the cell reads `PENDING` for that round); the recorded requests are fetched concurrently
under the client's rate limiter; the next round computes from the cache and records what
the newly known values ask for (a RATES_* argument that is another RATES_* result). It
stops when a round records nothing. Every answer the rounds use is held until the loop ends
(`CallContext.held`): rounds that outlast an answer's TTL do not fetch it again, and the
book uses one answer per request.

The round travels in the context, not in the thread: Excel calls the UDFs back through COM
while `evaluate()` waits in `Application.Calculate`, possibly on another thread of the UDF
server, and formualizer computes on threads of its own; each call plans itself and adds
what it recorded to the round (`Round.record`). The classic Refresh hands its round's
context to the UDFs through the refresh in progress (addin/classic/refresh.py).

Hosts that show progress and can be cancelled (the ribbon) pass `on_progress`, called on the
calling thread (the one COM allows to touch Excel) every `PROGRESS_INTERVAL` seconds while a
batch is fetched, and `should_cancel`, polled as often. On cancel the batch stops sending
(requests already on the wire finish), `on_cancel()` runs, and `evaluate()` runs once more
outside planning: the host makes that pass show every cell fresh or as it was.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from rates_xl.functions.context import NOW, CallContext, Round

if TYPE_CHECKING:
    from rates_xl.client import RatesClient
    from rates_xl.client.cache import HeldAnswers
    from rates_xl.client.client import RequestKey
    from rates_xl.client.errors import RatesError
    from rates_xl.client.models import Result

    #: What `fetch_many` answers: each request's answer or its failure.
    Outcomes = dict[RequestKey, Result | RatesError]

T = TypeVar("T")
#: `on_fetch(total, done)`: called before a batch; may answer a callable to call when it ends.
OnFetch = Callable[[int, Callable[[], int]], object]

DEFAULT_MAX_ROUNDS = 6
#: Seconds between two progress reports (and cancel polls) while a batch is fetched.
PROGRESS_INTERVAL = 0.25


@dataclass
class PlanReport:
    """What the planning loop did: rounds, distinct requests, what failed."""

    rounds: int = 0
    distinct_requests: int = 0
    requests_sent: int = 0
    fetch_seconds: float = 0.0
    failed: dict[RequestKey, Exception] = field(default_factory=dict)
    #: True when the last round still had misses (transient failures, or the round limit):
    #: those cells were computed once more outside planning so they show their real error.
    finished_unplanned: bool = False
    #: True when `should_cancel` stopped a fetch; `not_fetched` requests were never answered.
    cancelled: bool = False
    not_fetched: int = 0


@dataclass(frozen=True)
class FetchProgress:
    """One batch being fetched: what `on_progress` is shown."""

    done: int
    total: int
    elapsed: float
    round: int

    @property
    def per_second(self) -> float:
        return self.done / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def seconds_left(self) -> float | None:
        """At the pace so far; None before the first answer."""
        if self.done <= 0 or self.elapsed <= 0:
            return None
        return (self.total - self.done) / self.per_second


# -- the loop ---------------------------------------------------------------------------------------
def plan_and_evaluate(evaluate: Callable[[CallContext], T], client: RatesClient, *,
                      context: CallContext = NOW,
                      max_rounds: int = DEFAULT_MAX_ROUNDS,
                      on_fetch: OnFetch | None = None,
                      on_progress: Callable[[FetchProgress], object] | None = None,
                      should_cancel: Callable[[], bool] | None = None,
                      on_cancel: Callable[[], object] | None = None) -> tuple[T, PlanReport]:
    """Run `evaluate(context)` until it needs nothing new from the service; return its last
    result. Each round's context is `context` with that round's planning `Round`; the last
    pass outside planning gets `context` itself.

    `on_fetch(total, done)` is called before each batch of requests (with a callable giving
    how many of them have completed so far) and may return a callable to call when it ends:
    that is how a progress bar on its own thread follows the fetch (`rates-xl calc`).
    `on_progress`, `should_cancel` and `on_cancel`: see the module notes.
    """
    from rates_xl.client.cache import HeldAnswers  # (a book without RATES_* calls never gets here)

    report = PlanReport()
    held = context.held
    if held is None:
        held = HeldAnswers()
        context = context.replace(held=held)
    attempted: set[RequestKey] = set()
    sent_before = client.stats()["requests_sent"]
    result: T | None = None
    missing: set[RequestKey] = set()
    round_limit = False
    for _ in range(max_rounds):
        report.rounds += 1
        round_started = time.time()
        planned = Round()
        result = evaluate(context.replace(planning=planned))
        missing = set(planned.keys)
        new = missing - attempted
        if not missing:
            break
        if not new:  # only requests that failed with a transient error are still missing
            break
        attempted |= new
        report.distinct_requests = len(attempted)
        failed, unanswered = _fetch(client, new, round_started, held, report,
                                    on_fetch, on_progress, should_cancel)
        report.failed.update(failed)
        if report.cancelled:
            report.not_fetched = len(unanswered)
            if on_cancel is not None:
                on_cancel()
            break
    else:
        round_limit = True  # reached: finish below
    if missing or round_limit:
        # Cancelled: the host's last pass shows each cell fresh or as it was. Otherwise what is
        # still missing failed in a way not worth remembering (429 or 5xx after all retries)
        # or lies beyond the round limit: compute once more without planning so those cells
        # show the service's real answer instead of "not fetched yet".
        report.rounds += 1
        report.finished_unplanned = not report.cancelled
        result = evaluate(context)
    report.requests_sent = client.stats()["requests_sent"] - sent_before
    return result, report  # type: ignore[return-value]


def _fetch(client: RatesClient, keys: set[RequestKey], round_started: float,
           held: HeldAnswers, report: PlanReport,
           on_fetch: OnFetch | None, on_progress: Callable[[FetchProgress], object] | None,
           should_cancel: Callable[[], bool] | None) -> tuple[dict[RequestKey, RatesError], set[RequestKey]]:
    """Fetch one batch; returns (failures, keys left unanswered by a cancel)."""
    from rates_xl.client.errors import NotFetched, RatesError

    started = time.perf_counter()
    answered = [0]  # keys answered or failed so far (one list item: updated from fetch threads)
    answered_lock = threading.Lock()

    def one_done(key: object, outcome: object) -> None:
        with answered_lock:
            answered[0] += 1

    def completed() -> int:
        return answered[0]

    progress_done = on_fetch(len(keys), completed) if on_fetch is not None else None
    cancel = threading.Event()

    def fetch() -> Outcomes:
        # A key was recorded because no answer cached before this round would do for the cell
        # that asked (absent, expired, or older than its refresh floor): fetch it afresh even
        # if an older answer is still cached. What arrives is held for the rounds to come.
        with client.fresh_since(round_started), client.holding(held):
            return client.fetch_many(keys, cancelled=cancel.is_set, on_done=one_done)

    try:
        if on_progress is None and should_cancel is None:
            results = fetch()
        else:
            results = _watched(fetch, lambda: FetchProgress(completed(), len(keys),
                                                            time.perf_counter() - started,
                                                            report.rounds),
                               on_progress, should_cancel, cancel)
    finally:
        report.fetch_seconds += time.perf_counter() - started
        if callable(progress_done):
            progress_done()
    if cancel.is_set():
        report.cancelled = True
    unanswered = {k for k, v in results.items() if isinstance(v, NotFetched)}
    failed = {k: v for k, v in results.items() if isinstance(v, RatesError) and k not in unanswered}
    return failed, unanswered


def _watched(fetch: Callable[[], Outcomes], snapshot: Callable[[], FetchProgress],
             on_progress: Callable[[FetchProgress], object] | None,
             should_cancel: Callable[[], bool] | None, cancel: threading.Event) -> Outcomes:
    """Run `fetch` on a worker thread; report progress and poll for a cancel on this one."""
    results: list[Outcomes] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.append(fetch())
        except BaseException as exc:  # handed to the calling thread below
            errors.append(exc)

    worker = threading.Thread(target=work, name="rates-plan-fetch", daemon=True)
    worker.start()
    try:
        while True:
            worker.join(PROGRESS_INTERVAL)
            if not worker.is_alive():
                break
            if should_cancel is not None and not cancel.is_set() and should_cancel():
                cancel.set()
            if on_progress is not None:
                on_progress(snapshot())
    except BaseException as exc:
        # The host's hook failed (Excel went away...): send nothing more, let the requests on
        # the wire finish, and report the failure. An interrupt (Ctrl+C) does not wait for
        # them: the user asked to stop now, and the worker is a daemon thread.
        cancel.set()
        if not isinstance(exc, KeyboardInterrupt):
            worker.join()
        raise
    if errors:
        raise errors[0]
    if on_progress is not None:
        on_progress(snapshot())
    return results[0]
