"""`RatesClient`: the one object every cell, template and button goes through.

A call travels: normalise parameters -> cache -> coalesce with an identical call in flight
-> ask the circuit breaker -> take a token from the shared limiter -> one HTTP attempt ->
retry 429/5xx/timeouts with backoff (honouring Retry-After) inside a total deadline ->
parse into the typed result.

Two time budgets: `deadline` (30 s) for headless work (`fetch_many`, scripts, the CLI),
which can afford the full retry policy, and `cell_deadline` (4 s), which the worksheet
functions pass as `get_key(key, deadline=...)` because Excel waits on its main thread for
every cell. Either way an attempt gets at most half the call's budget, so a call whose first
connection stalls still has time for a second try.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import functools
import logging
import random
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import urlsplit

from pydantic import ValidationError
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_before_delay,
)

from rates_xl.client import models
from rates_xl.client.breaker import CircuitBreaker
from rates_xl.client.cache import AnswerCache, Entry, MemoryCache
from rates_xl.client.endpoints import (
    ENDPOINTS,
    CacheClass,
    Endpoint,
    RequestKey,
    normalise_params,
)
from rates_xl.client.errors import (
    InvalidResponse,
    NonFiniteNumber,
    NotFetched,
    RatesError,
    ServiceUnavailable,
    is_retryable,
)
from rates_xl.client.limiter import Limiter, TokenBucket
from rates_xl.client.pack import Pack, PackRecorder
from rates_xl.client.pack_replay import PackTransport
from rates_xl.client.scopes import FLOOR, HELD, LIMITER, PLAN, RECORDER, USED, Scopes
from rates_xl.client.settings import Settings, load_settings
from rates_xl.client.stats import ClientStats, Stats, sent_here
from rates_xl.client.tiers import build_tiers, key_fingerprint, local_ttl
from rates_xl.client.transport import Answer, HTTPTransport, Transport
from rates_xl.client.typed import TypedEndpoints

if TYPE_CHECKING:
    from rates_xl.client.pack import ScenarioRecord
    from rates_xl.client.pack_seal import Signer
    from rates_xl.client.team import TeamLink

log = logging.getLogger("rates_xl.client")

# Final answers worth remembering: asking again would get the same refusal.
_CACHEABLE_ERRORS = (400, 404, 422)


class RatesClient(TypedEndpoints, Scopes):
    """Thread-safe client of the Rates Data Service; share one per process.

    Unset arguments come from `Settings` (`RATES_*` environment variables, the keychain for
    the key). `cache` and `limiter` accept any object with the same interface, e.g. a shared
    team backend.

    `replay=pack` answers only from a market-data pack (pack.py): no key, no network, no
    disk or team cache; a request the pack does not hold raises `NotInPack`.

    `transport` sends each attempt (client/transport.py: the `Transport` protocol, as in
    httpx); by default an `HTTPTransport` to `base_url` with the key in its headers, when
    replaying the pack's `PackTransport`. A transport handed in brings its own key, if any.
    """

    def __init__(self, base_url: str | None = None, api_key: str | None = None, *,
                 cache: AnswerCache | None = None, limiter: Limiter | None = None,
                 replay: Pack | None = None, transport: Transport | None = None, **settings: object) -> None:
        if replay is not None:
            base_url = base_url or replay.base_url
        self.settings: Settings = load_settings(base_url=base_url, api_key=api_key, **settings)
        key = self.settings.api_key.get_secret_value() if self.settings.api_key else None
        self._transport: Transport
        #: The pack answering when replaying (its scenario, when each answer was fetched).
        self._pack: PackTransport | None = None
        if replay is not None:
            # The pack's answers, and only them: no cache outside this process may stand in,
            # and nothing is sent anywhere, so the key is not even handed on.
            key = None
            self._pack = PackTransport(replay)
            cache = cache if cache is not None else MemoryCache(self.settings.cache_size)
            limiter = limiter if limiter is not None else TokenBucket(1e9, 10**9)
        if transport is not None:
            self._transport = transport
        elif self._pack is not None:
            self._transport = self._pack
        else:
            self._transport = HTTPTransport(self.settings.base_url, key, pool_size=self.settings.max_workers * 2,
                                            trust_store=self.settings.trust_store,
                                            max_bytes=int(self.settings.max_answer_mb * 2**20))
        self.breaker = CircuitBreaker(self.settings.breaker_failures, self.settings.breaker_cooldown)
        # Memory, then disk for immutable answers, then the team's Redis when set (tiers.py).
        self.cache: AnswerCache
        self.limiter: Limiter
        self.cache, self.limiter, self._team = build_tiers(
            self.settings, key_fingerprint(self.settings.base_url, key), cache=cache, limiter=limiter)
        self._stats = Stats()
        self._stats_lock = threading.Lock()
        self._inflight: dict[RequestKey, Future[Entry]] = {}
        self._inflight_lock = threading.Lock()

    # -- identity ---------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return self.settings.base_url

    @property
    def has_key(self) -> bool:
        return self.settings.api_key is not None

    @property
    def team_link(self) -> TeamLink | None:
        """The team backend's Redis link (team.TeamLink) when `team_url` is set, else None."""
        return self._team

    @property
    def scenario(self) -> ScenarioRecord | None:
        """The scenario record when replaying a scenario pack (client/pack.py), else None: the
        answers are then a scenario's, never market data (RATES_STATUS and RATES_SOURCE say so)."""
        return self._pack.pack.scenario if self._pack is not None else None

    def scenario_line(self, key: RequestKey) -> str | None:
        """What the scenario did to the answer of `key`; None when not replaying a scenario."""
        return self._pack.scenario_line(key) if self._pack is not None else None

    def __repr__(self) -> str:
        return f"RatesClient(base_url={self.base_url!r}, key={'set' if self.has_key else 'not set'})"

    def close(self) -> None:
        self._transport.close()
        for tier in (self.cache, self._team):
            if tier is not None and hasattr(tier, "close"):
                tier.close()

    def __enter__(self) -> RatesClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the generic path ---------------------------------------------------------------------
    @staticmethod
    def request_key(endpoint: str, **params: object) -> RequestKey:
        """The normalised identity of a request: equal keys are one answer."""
        spec = _endpoint(endpoint)
        return RequestKey(spec.name, normalise_params(spec, params))

    def get(self, endpoint: str, **params: object) -> models.Result:
        """Call an endpoint by its name in the endpoint table; returns its result model."""
        return self.get_key(self.request_key(endpoint, **params))

    def get_key(self, key: RequestKey, *, deadline: float | None = None) -> models.Result:
        """The answer to one request. `deadline`: seconds this call may take in all (the
        worksheet functions pass `settings.cell_deadline`); default `settings.deadline`."""
        budget = self.settings.deadline if deadline is None else deadline
        started = time.monotonic()
        if (used := USED.get()) is not None:
            used.add(key)
        floor = FLOOR.get()
        entry = self.cache.get(key, fresh_since=floor)
        if entry is None and (held := HELD.get()) is not None:
            entry = held.get(key, fresh_since=floor)  # this calculation's, dropped by the cache since
        if entry is not None:
            with self._stats_lock:  # (not _count: the warm cell's path, one attribute)
                self._stats.cache_hits += 1
            _record(key, entry)
            return _answer(entry)
        plan = PLAN.get()
        if plan is not None:
            plan.add(key)
            raise NotFetched(f"not fetched yet: {key.endpoint}", endpoint=key.endpoint)
        with self._inflight_lock:
            future = self._inflight.get(key)
            leader = future is None
            if future is None:
                future = self._inflight[key] = Future()
        if not leader:
            self._count(coalesced_waits=1)
            try:
                # Waits, within this call's budget (the leader's may be longer); unlike
                # result(), exception() does not raise the shared object.
                error = future.exception(timeout=max(0.0, started + budget - time.monotonic()))
            except FutureTimeout:
                raise ServiceUnavailable(
                    f"no answer within the {budget:g} s deadline", endpoint=key.endpoint
                ) from None
            if error is not None:
                raise _fresh_copy(error)
            entry = future.result()  # the leader's Entry: value, fetch time and text as sent
            _record(key, entry)
            return _answer(entry)
        # One deadline for the whole call: time spent waiting on a teammate's claim comes
        # out of the fetch's budget, not on top of it.
        ends = started + budget
        with self._claim(key, ends) as shared:
            return self._lead(key, future, shared, budget, ends)

    def _claim(self, key: RequestKey, ends: float) -> contextlib.AbstractContextManager[Entry | None]:
        """With a team cache: wait while another process fetches this request (see tiers.py)."""
        claim = getattr(self.cache, "claim", None)
        if claim is None:
            return contextlib.nullcontext(None)
        return claim(key, fresh_since=FLOOR.get(), deadline=ends)

    def _lead(self, key: RequestKey, future: Future[Entry], shared: Entry | None, budget: float,
              ends: float) -> models.Result:
        try:
            if shared is not None:  # a teammate's answer, already in our memory tier
                self._count(cache_hits=1)
                _record(key, shared)
                answer = _answer(shared)
                future.set_result(shared)
                return answer
            value, raw = self._fetch(key, budget, ends)
        except RatesError as exc:
            self._record_error(exc)
            if exc.status in _CACHEABLE_ERRORS:
                # Cached without its traceback, which holds the response and its connection.
                refusal = Entry(None, self._fetched_at(key), self._ttl(key), error=_fresh_copy(exc))
                self.cache.put(key, refusal)
                _record(key, refusal)
            future.set_exception(exc)
            raise
        except BaseException as exc:  # never leave followers waiting
            future.set_exception(exc)
            raise
        else:
            entry = Entry(value, self._fetched_at(key), self._ttl(key), raw=raw)
            self.cache.put(key, entry)
            _record(key, entry)
            future.set_result(entry)
            return value
        finally:
            with self._inflight_lock:
                self._inflight.pop(key, None)

    def fetch_many(self, keys: Iterable[RequestKey], *, deadline: float | None = None,
                   cancelled: Callable[[], bool] | None = None,
                   on_done: Callable[[RequestKey, models.Result | RatesError], object] | None = None,
                   ) -> dict[RequestKey, models.Result | RatesError]:
        """Fetch distinct requests concurrently under the shared limiter.

        Returns each key's result model or its RatesError; raises nothing for one failure.
        `deadline`: seconds each request may take in all (default `settings.deadline`).
        `cancelled()` is asked before each request starts: once it is true, the requests not
        yet started end as `NotFetched` (those on the wire finish). `on_done(key, outcome)`
        is called from the fetching thread as each one ends (progress).
        """
        distinct = list(dict.fromkeys(keys))
        results: dict[RequestKey, models.Result | RatesError] = {}

        def one(key: RequestKey) -> models.Result | RatesError:
            if cancelled is not None and cancelled():
                return NotFetched(f"cancelled before it was sent: {key.endpoint}", endpoint=key.endpoint)
            outcome: models.Result | RatesError
            try:
                outcome = self.get_key(key, deadline=deadline)
            except RatesError as exc:
                outcome = exc
            if on_done is not None:
                on_done(key, outcome)
            return outcome

        if not distinct:
            return results
        workers = min(self.settings.max_workers, len(distinct))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rates-fetch") as pool:
            futures = {key: pool.submit(contextvars.copy_context().run, one, key) for key in distinct}
            for key, fut in futures.items():
                results[key] = fut.result()
        return results

    def _limiter(self) -> Limiter:
        return LIMITER.get() or self.limiter

    def pack_recorder(self) -> PackRecorder:
        """A new, empty recorder of this client's answers (a replaying client's records the
        pack's own entries); pass it to `recording` wherever the answers are used."""
        return PackRecorder(self.base_url, source=self._pack.pack if self._pack is not None else None, signer=self.pack_signer)

    @functools.cached_property
    def pack_signer(self) -> Signer | None:
        """The key a market-data pack is signed with, derived from this client's API key
        (pack_seal.py); None without a key. Replaying, the key is read for this only."""
        from rates_xl.client.pack_seal import signer_for

        key = self.settings.api_key
        return signer_for(key.get_secret_value()) if key is not None else None

    def expire(self, *, before: float | datetime | None = None,
               keys: Iterable[RequestKey] | None = None) -> int:
        """Drop cached answers fetched before `before` (all when None) among `keys` (all when None)."""
        if isinstance(before, datetime):
            before = before.timestamp()
        return self.cache.expire(before=before, keys=keys)

    def clear_cache(self) -> None:
        self.cache.clear()

    def answers(self) -> list[tuple[RequestKey, Entry]]:
        """The answers held in memory now, (request, entry): what RATES_SOURCE and RATES_STATUS
        read to say where a value came from and when the answers were valued."""
        memory = getattr(self.cache, "memory", self.cache)
        entries = getattr(memory, "entries", None)
        return entries() if entries is not None else []

    def stats(self) -> ClientStats:
        with self._stats_lock:
            counters = self._stats.as_dict()
        out: ClientStats = {**counters, "cached_answers": len(self.cache), "breaker": self.breaker.describe()}
        tiers = getattr(self.cache, "stats", None)
        if tiers is not None:
            out.update(tiers())
        return out

    # -- internals ----------------------------------------------------------------------------
    def _fetched_at(self, key: RequestKey) -> float:
        """Now; when replaying, when the pack says the answer was fetched (RATES_SOURCE and a
        pack recorded from a replay tell the original moment)."""
        moment = self._pack.recorded_at(key) if self._pack is not None else None
        return time.time() if moment is None else moment

    def _fetch(self, key: RequestKey, budget: float, deadline: float) -> tuple[models.Result, str]:
        """The parsed answer and its text as sent, by `deadline` (time.monotonic()), the end
        of the call's `budget` seconds, part of which may already be spent."""
        spec = ENDPOINTS[key.endpoint]
        params = dict(key.params)
        retrying = Retrying(
            # No retry once the breaker has opened: the next attempt would be refused anyway.
            retry=retry_if_exception(lambda exc: is_retryable(exc) and not self.breaker.is_open),
            stop=(stop_after_attempt(self.settings.max_attempts)
                  | stop_before_delay(max(0.0, deadline - time.monotonic()))),
            wait=self._retry_wait,
            before_sleep=self._before_retry,
            reraise=True,
        )
        answer = retrying(self._attempt, spec, params, deadline, budget)
        try:
            return spec.model.model_validate(answer.payload), answer.text
        except ValidationError as exc:
            if (what := models.non_finite(exc)) is not None:
                raise NonFiniteNumber(f"the service answered {what}", status=200, endpoint=spec.name) from None
            fields = ", ".join(".".join(str(p) for p in err["loc"]) for err in exc.errors()[:3])
            raise InvalidResponse(
                f"the service's answer does not have the documented shape ({fields})",
                status=200, endpoint=spec.name,
            ) from None

    def _attempt(self, spec: Endpoint, params: dict[str, str], deadline: float, budget: float) -> Answer:
        ticket = self.breaker.admit(spec.name)  # raises NetworkDown while open: no token spent
        try:
            waited = self._limiter().acquire(deadline)
            if waited > 0:
                self._count(throttled_waits=1, throttle_wait_seconds=waited)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ServiceUnavailable(f"no answer within the {budget:g} s deadline", endpoint=spec.name)
        except BaseException:
            self.breaker.released(ticket)  # nothing was sent
            raise
        self._count(requests_sent=1)
        if (counter := sent_here()) is not None:
            counter.add()
        log.debug("GET %s %s", spec.path, params)
        try:
            answer = self._transport.fetch(
                spec.name, spec.path, params, min(self.settings.timeout, remaining, budget / 2),
                before_redirect=lambda url: self._redirected(url, deadline))
        except ServiceUnavailable as exc:
            if exc.transport_failure:
                self.breaker.failed(ticket, str(exc))
            else:
                self.breaker.released(ticket)
            raise
        except RatesError:  # an HTTP answer (4xx, 429, 5xx, not JSON): the network works
            self.breaker.succeeded(ticket)
            raise
        except BaseException:
            self.breaker.released(ticket)
            raise
        self.breaker.succeeded(ticket)
        return answer

    def _redirected(self, url: str, deadline: float) -> None:
        """A same-origin redirect is about to be followed: one more request, one more token."""
        waited = self._limiter().acquire(deadline)
        if waited > 0:
            self._count(throttled_waits=1, throttle_wait_seconds=waited)
        self._count(requests_sent=1)
        log.debug("GET %s (redirected)", urlsplit(url).path)

    def _retry_wait(self, state: RetryCallState) -> float:
        """Exponential backoff with jitter, never less than the service's Retry-After."""
        ceiling = min(self.settings.max_backoff, self.settings.backoff * 2 ** (state.attempt_number - 1))
        wait = random.uniform(ceiling / 2, ceiling)
        exc = state.outcome.exception() if state.outcome else None
        retry_after = getattr(exc, "retry_after", None)
        if retry_after is not None:
            wait = max(wait, retry_after)
        return wait

    def _before_retry(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        self._count(retries=1)
        log.info("retrying after %s (attempt %d)", type(exc).__name__, state.attempt_number)

    def _ttl(self, key: RequestKey) -> float:
        return local_ttl(self.settings, key)

    def _count(self, **increments: float) -> None:
        with self._stats_lock:
            for name, amount in increments.items():
                setattr(self._stats, name, getattr(self._stats, name) + amount)

    def _record_error(self, exc: RatesError) -> None:
        with self._stats_lock:
            self._stats.errors_by_status[str(exc.status) if exc.status else type(exc).__name__] += 1
            self._stats.last_error = f"{exc.endpoint}: {exc}"


def _record(key: RequestKey, entry: Entry) -> None:
    """The market-data pack's hook: every answer a call returns passes here, whether it came
    from the wire, a cache tier or a teammate, with the time it was first fetched; and the
    hook of a calculation holding its answers (`holding`). Costs two context-variable reads
    when nothing is recording or holding."""
    recorder = RECORDER.get()
    if recorder is not None:
        recorder.record(key, entry.value, entry.fetched_at, raw=entry.raw, error=entry.error)
    held = HELD.get()
    if held is not None:
        held.put(key, entry)


def _answer(entry: Entry) -> models.Result:
    """The answer an entry holds, or its refusal raised (a copy: see `_fresh_copy`)."""
    if entry.error is not None:
        raise _fresh_copy(entry.error)
    if entry.value is None:  # an entry is an answer or a refusal; never neither
        raise InvalidResponse("a cached entry holds neither an answer nor a refusal", endpoint=None)
    return entry.value


E = TypeVar("E", bound=BaseException)


def _fresh_copy(error: E) -> E:
    """A copy of a shared error (cached, or from a coalesced call) to raise in this thread.

    Raising one exception object again and again chains each raise's frames onto its
    __traceback__, which would grow for as long as the refusal stays cached.
    """
    clone = copy.copy(error)
    clone.__traceback__ = None
    return clone


def _endpoint(name: str) -> Endpoint:
    try:
        return ENDPOINTS[name]
    except KeyError:
        raise ValueError(f"unknown endpoint {name!r}; known: {', '.join(ENDPOINTS)}") from None



__all__ = ["RatesClient", "RequestKey", "CacheClass"]
