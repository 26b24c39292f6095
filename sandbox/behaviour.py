"""How the real service treats a request before answering: keys, limits, faults.

`Knobs` are the test switches (all off by default except the service's own limits).
Every app gets its own `Behaviour`, so several sandboxes in one process keep separate
knobs, keys and rate-limit buckets.
"""

from __future__ import annotations

import asyncio
import collections
import math
import random
import threading
import time
from dataclasses import dataclass, field

from fastapi import Request, Security
from fastapi.security import APIKeyHeader
from starlette.responses import JSONResponse

from rates_xl.sandbox import BUILTIN_KEYS, KEY_KINDS
from rates_xl.sandbox.errors import ServiceError

TRIAL_REFUSED_PARAMS = ("valuation_time", "valuation_date")


@dataclass(frozen=True)
class Knobs:
    rate_limit: float = 20.0  # requests per second per key (the service's limit)
    burst: int = 50  # requests a key may send at once before throttling
    latency_ms: float = 0.0  # added to every answer under /v1
    fail_rate: float = 0.0  # fraction of answers turned into 503
    storm_seconds: float = 0.0  # every request gets 429 for this long after start
    extra_keys: dict[str, str] = field(default_factory=dict)  # key -> paid | trial | expired
    seed: int = 0  # the market scenario and the fault dice
    #: the curves shifted (`rates-xl sandbox --shift`): a rates_xl.scenario.spec.Scenario, or None
    shift: object = None

    def __post_init__(self):
        if self.rate_limit <= 0 or self.burst < 1:
            raise ValueError("rate_limit must be > 0 and burst >= 1")
        if not 0.0 <= self.fail_rate <= 1.0:
            raise ValueError("fail_rate must be between 0 and 1")
        if self.latency_ms < 0 or self.storm_seconds < 0:
            raise ValueError("latency_ms and storm_seconds must be >= 0")
        for key, kind in self.extra_keys.items():
            if kind not in KEY_KINDS:
                raise ValueError(f"extra key kind must be one of {KEY_KINDS}, got {kind!r} for {key[:4]}...")


class TokenBucket:
    """`burst` requests at once, then `rate` per second.

    Written by hand: the limiter libraries (limits, slowapi) count fixed or moving windows,
    not a bucket that refills continuously, and Retry-After needs the bucket's own refill time.
    """

    def __init__(self, rate: float, burst: int):
        self.rate, self.capacity = rate, float(burst)
        self.tokens, self.stamp = float(burst), time.monotonic()
        self.lock = threading.Lock()

    def take(self) -> float | None:
        """None if the request may pass, else the seconds until a token is back."""
        with self.lock:
            now = time.monotonic()
            self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now
            if self.tokens >= 1.0:
                self.tokens -= 1.0
                return None
            return (1.0 - self.tokens) / self.rate


@dataclass(frozen=True)
class Arrival:
    """One request under /v1 as the sandbox saw it: the judge of what clients really sent."""

    at: float  # time.time() when it arrived, before any latency knob
    path: str
    query: str  # the raw query string
    status: int  # the status answered (429 when throttled)
    stormed: bool = False  # the 429 is the storm knob's (else a 429 is the key's rate limit)


class Behaviour:
    def __init__(self, knobs: Knobs):
        self.knobs = knobs
        self.keys = {**BUILTIN_KEYS, **knobs.extra_keys}
        self.started = time.monotonic()
        self.buckets: dict[str, TokenBucket] = {}
        self.lock = threading.Lock()
        self.dice = random.Random(knobs.seed)
        self.arrivals: collections.deque[Arrival] = collections.deque(maxlen=200_000)

    def bucket(self, key: str) -> TokenBucket:
        with self.lock:
            if key not in self.buckets:
                self.buckets[key] = TokenBucket(self.knobs.rate_limit, self.knobs.burst)
            return self.buckets[key]

    def storm_left(self) -> float:
        return self.knobs.storm_seconds - (time.monotonic() - self.started)

    def roll_failure(self) -> bool:
        if self.knobs.fail_rate <= 0:
            return False
        with self.lock:
            return self.dice.random() < self.knobs.fail_rate


def _retry_after(seconds: float) -> dict[str, str]:
    return {"Retry-After": str(max(1, math.ceil(seconds)))}


class FaultMiddleware:
    """Latency, storm and injected 503s for every answer under /v1 (pure ASGI: cheap)."""

    def __init__(self, app, behaviour: Behaviour):
        self.app, self.behaviour = app, behaviour

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not scope["path"].startswith("/v1/"):
            return await self.app(scope, receive, send)
        arrived = time.time()
        logged = False
        stormed: list[bool] = []  # set by _serve when the storm answers

        def log(status: int) -> None:
            nonlocal logged
            if not logged:
                logged = True
                self.behaviour.arrivals.append(Arrival(
                    arrived, scope["path"], scope.get("query_string", b"").decode("latin-1"), status,
                    bool(stormed)))

        async def record(message):
            if message["type"] == "http.response.start":
                # Logged before the answer leaves: a client that has its answer finds its
                # request in the log (logged after it, a test counting at once could miss it).
                log(message["status"])
            await send(message)

        try:
            await self._serve(scope, receive, record, stormed)
        finally:
            log(0)  # no answer started (the app failed, the client left)

    async def _serve(self, scope, receive, send, stormed: list[bool]):
        knobs = self.behaviour.knobs
        if knobs.latency_ms > 0:
            await asyncio.sleep(knobs.latency_ms / 1000)
        storm = self.behaviour.storm_left()
        if storm > 0:
            stormed.append(True)
            response = JSONResponse(
                {"detail": f"Rate limit exceeded: the service is throttling every request "
                           f"(storm for {storm:.1f} s more)"},
                status_code=429, headers=_retry_after(storm))
            return await response(scope, receive, send)
        if self.behaviour.roll_failure():
            response = JSONResponse(
                {"detail": "Service unavailable (sandbox fault injection, fail_rate "
                           f"{knobs.fail_rate:g}): retry with backoff"}, status_code=503)
            return await response(scope, receive, send)
        return await self.app(scope, receive, send)


api_key_header = APIKeyHeader(name="x-api-key", auto_error=False,
                              description="Your API key; the sandbox's are listed by `rates-xl sandbox`.")


def check_request(request: Request, api_key: str | None = Security(api_key_header)) -> str:
    """Key, rate limit, trial limits and repeated parameters; returns the key's kind."""
    behaviour: Behaviour = request.app.state.behaviour
    if not api_key:
        raise ServiceError(403, "Missing API key — check your x-api-key header")
    kind = behaviour.keys.get(api_key)
    if kind is None:
        raise ServiceError(403, "Invalid API key — check your x-api-key header (the key is unknown)")
    if kind == "expired":
        raise ServiceError(403, "Trial expired: this trial key's 14 days are over; "
                                "upgrade to a paid plan or use a paid key")
    wait = behaviour.bucket(api_key).take()
    if wait is not None:
        knobs = behaviour.knobs
        raise ServiceError(429, f"Rate limit exceeded: {knobs.rate_limit:g} requests per second "
                                f"(burst {knobs.burst}) per key; retry after the Retry-After delay",
                           headers=_retry_after(wait))
    if kind == "trial":
        asked = [p for p in TRIAL_REFUSED_PARAMS if p in request.query_params]
        if asked:
            raise ServiceError(403, f"Trial keys cannot ask for past data: remove {' and '.join(asked)} "
                                    "(a trial key values as of now) or use a paid key")
    for name in set(request.query_params):
        values = request.query_params.getlist(name)
        if len(values) > 1:
            raise ServiceError(400, f"{name} was given {len(values)} times ({', '.join(map(repr, values))}): "
                                    "give it once, as a date or a tenor, never both")
    return kind
