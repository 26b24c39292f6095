"""The plan / fetch / compute loop every host uses: a workbook costs its distinct service
requests once, fetched concurrently at the limiter's pace, never one latency per cell.

`plan_and_evaluate(evaluate, client)` is independent of any engine. `evaluate()` computes the
workbook (or the part of it being refreshed) once: the `formulas` engine in `rates-xl calc`,
Excel's own calculation in the add-in. Round 1 runs it inside `client.planning()`, where a
cache miss is recorded instead of sent (the cell reads "not fetched yet" for that round); the
recorded requests are fetched concurrently under the client's rate limiter; the next round
computes from the cache and records what the newly known values ask for (a RATES_* argument
that is another RATES_* result). It stops when a round records nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")

DEFAULT_MAX_ROUNDS = 6


@dataclass
class PlanReport:
    """What the planning loop did: rounds, distinct requests, what failed."""

    rounds: int = 0
    distinct_requests: int = 0
    requests_sent: int = 0
    fetch_seconds: float = 0.0
    failed: dict[Any, Exception] = field(default_factory=dict)
    #: True when the last round still had misses (transient failures, or the round limit):
    #: those cells were computed once more outside planning so they show their real error.
    finished_unplanned: bool = False


def plan_and_evaluate(evaluate: Callable[[], T], client: Any, *,
                      max_rounds: int = DEFAULT_MAX_ROUNDS,
                      on_fetch: Callable[[int, Callable[[], int]], Any] | None = None) -> tuple[T, PlanReport]:
    """Run `evaluate` until it needs nothing new from the service; return its last result.

    `on_fetch(total, done)` is called before each batch of requests (with a callable giving
    how many of them have completed so far) and may return a callable to call when it ends:
    that is how a progress bar follows the fetch without the loop knowing about it.
    """
    report = PlanReport()
    attempted: set[Any] = set()
    sent_before = client.stats()["requests_sent"]
    result: T | None = None
    for _ in range(max_rounds):
        report.rounds += 1
        with client.planning() as missing:
            result = evaluate()
        new = set(missing) - attempted
        if not missing:
            break
        if not new:  # only requests that failed with a transient error are still missing
            break
        attempted |= new
        report.distinct_requests = len(attempted)
        report.failed.update(_fetch(client, new, on_fetch, report))
    else:
        missing = {True}  # the round limit was reached: finish below
    if missing:
        # What is still missing failed in a way not worth remembering (429 or 5xx after all
        # retries) or lies beyond the round limit: compute once more without planning so
        # those cells show the service's real answer instead of "not fetched yet".
        report.rounds += 1
        report.finished_unplanned = True
        result = evaluate()
    report.requests_sent = client.stats()["requests_sent"] - sent_before
    return result, report  # type: ignore[return-value]


def _fetch(client: Any, keys: set[Any], on_fetch: Callable[..., Any] | None,
           report: PlanReport) -> dict[Any, Exception]:
    from rates_xl.client.errors import RatesError

    started = time.perf_counter()
    baseline = client.stats()
    progress_done = None
    if on_fetch is not None:
        def completed() -> int:
            now = client.stats()
            # Each key ends as one answer cached or one error counted (retries aside).
            cached = now.get("cached_answers", 0) - baseline.get("cached_answers", 0)
            errors = sum(now["errors_by_status"].values()) - sum(baseline["errors_by_status"].values())
            return min(len(keys), max(0, cached + errors))
        progress_done = on_fetch(len(keys), completed)
    try:
        results = client.fetch_many(keys)
    finally:
        report.fetch_seconds += time.perf_counter() - started
        if callable(progress_done):
            progress_done()
    return {k: v for k, v in results.items() if isinstance(v, RatesError)}
