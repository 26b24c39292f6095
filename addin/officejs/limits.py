"""What one client can cost `rates-xl serve`: connections, time, memory and threads.

Every bound is in `Limits`, and each is enforced in one place:

- **Headers in time** (`GuardedH11Protocol`): a connection must deliver a request's headers
  within `header_timeout_s` of opening (after TLS) or of its previous answer, or it is
  closed. uvicorn has no such timeout: `timeout_keep_alive` only runs between requests and
  any byte received cancels it, so a client sending half a request line holds its
  connection (and a file descriptor) for ever. "--timeout-request-start" is still an open
  item of uvicorn's (Kludex/uvicorn#157). The protocol below is uvicorn's own h11 one with
  that timer added, nothing else.
- **Connections** (`GuardedH11Protocol`): at most `max_connections` past the TLS
  handshake. One more closes the connection that has waited longest without sending a
  request (a slow-header client or an idle keep-alive), or, when every connection is busy
  with a request, the new one. The bound stays well under macOS' default of 256 file
  descriptors, so real requests are still accepted when hundreds of sockets hang.
  (uvicorn's `limit_concurrency` counts hanging connections too and then answers every new
  request 503: the hanging ones would win.)
- **Bodies** (`RequestBody`): every body is read whole, before the app sees it, within
  `body_timeout_s` (else 408) and `max_body` bytes (else 413), chunked or not. Reading it
  here, outside the app's middleware (which runs in task groups), keeps the 413 a 413: an
  exception raised inside them would reach the client as a 500.
- **Batches** (`BatchGate`): at most `batch_workers` batches compute at once, on threads of
  their own (the core blocks: the limiter's waits, HTTP), and `batch_queue` more wait;
  beyond that a batch is answered 503 with Retry-After at once. The static files never
  touch these threads: they are bytes in memory served on the event loop.

A TLS handshake that never completes is closed by asyncio after 60 s (its default
ssl_handshake_timeout, which uvicorn does not expose); `serve` raises the soft limit of
file descriptors where the system allows, so those cannot starve the rest either.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
import math
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from uvicorn.protocols.http.h11_impl import H11Protocol

from rates_xl.errors import Internal, Refusal

log = logging.getLogger("rates_xl.addin.officejs")
T = TypeVar("T")


@dataclass(frozen=True)
class Limits:
    #: Seconds to receive a request's headers. Excel sends them at once, on loopback.
    header_timeout_s: float = 10.0
    #: Seconds to receive a whole body (a full batch is ~200 kB).
    body_timeout_s: float = 30.0
    #: Largest request body: a full batch of calls with typical arguments is ~200 kB.
    max_body: int = 1_000_000
    #: Open connections past the TLS handshake (Excel uses a handful).
    max_connections: int = 128
    #: Batches computing at once. The service's rate limit is shared by all of them, so
    #: more would only add threads (each batch fetches on up to `max_workers` of its own).
    batch_workers: int = 8
    #: Batches waiting for a worker before new ones are refused with 503.
    batch_queue: int = 56
    #: What a refused batch is told to wait (Retry-After), in seconds.
    retry_after_s: int = 2


DEFAULT_LIMITS = Limits()
ROOM_WARNING_EVERY_S = 60.0


# -- connections and headers (the HTTP protocol) ------------------------------------------

class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a header timeout and a cap on connections."""

    limits = DEFAULT_LIMITS
    closed_for_room = 0  # connections closed by the cap, in this process
    last_room_warning = -math.inf

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._header_timer: asyncio.TimerHandle | None = None
        self._answered: Any = None  # the request cycle answered last
        self.waiting_since: float | None = None
        self._await_request()
        if len(self.connections) > self.limits.max_connections:
            self._make_room()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.waiting_since is not None and self.cycle is not self._answered:
            self._request_arrived()  # uvicorn started a new request cycle: its headers are in

    def on_response_complete(self) -> None:
        # The rest of a refused body (413) is still discarded as it comes; it and the next
        # request's headers must arrive within the same time limit.
        self._answered = self.cycle
        super().on_response_complete()  # may start a pipelined request at once
        if not self.transport.is_closing() and self.cycle is self._answered:
            self._await_request()

    def connection_lost(self, exc: Exception | None) -> None:
        self._request_arrived()
        super().connection_lost(exc)

    def _await_request(self) -> None:
        self._request_arrived()
        self.waiting_since = time.monotonic()
        self._header_timer = self.loop.call_later(self.limits.header_timeout_s, self._headers_too_slow)

    def _request_arrived(self) -> None:
        self.waiting_since = None
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self.waiting_since is not None and not self.transport.is_closing():
            log.debug("closed a connection that sent no request within %s s", self.limits.header_timeout_s)
            self.close_now()

    def _make_room(self) -> None:
        idle = [c for c in self.connections
                if c is not self and getattr(c, "waiting_since", None) is not None and not c.transport.is_closing()]
        victim = min(idle, key=lambda c: c.waiting_since) if idle else self
        cls = GuardedH11Protocol
        cls.closed_for_room += 1
        now = time.monotonic()
        if now - cls.last_room_warning >= ROOM_WARNING_EVERY_S:  # once a minute, not once a socket
            cls.last_room_warning = now
            log.warning("more than %d connections: closed %d waiting ones so far (a client opening "
                        "connections it does not use?)", self.limits.max_connections, cls.closed_for_room)
        victim.close_now()

    def close_now(self) -> None:
        # abort, not close: a TLS close waits for the peer's close_notify, which a client
        # that never finishes its headers need not send.
        self._request_arrived()
        self.transport.abort()


def protocol_with(limits: Limits) -> type[GuardedH11Protocol]:
    """The protocol class for uvicorn's `http=` option, with these limits."""
    return type("GuardedH11Protocol", (GuardedH11Protocol,), {"limits": limits})


# -- bodies (ASGI middleware, outermost) --------------------------------------------------

class _TooLarge(Internal):
    pass


class _Gone(Internal):
    pass


class RequestBody:
    """Read each request's body whole (bounded in size and time), then hand it to the app."""

    def __init__(self, app: Any, limits: Limits) -> None:
        self.app, self.limits = app, limits

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and int(declared) > self.limits.max_body:  # h11 checked it is a number
            return await refuse(send, 413, f"request body over {self.limits.max_body} bytes")
        try:
            body = await asyncio.wait_for(self._read(receive), self.limits.body_timeout_s)
        except TimeoutError:
            return await refuse(send, 408, f"the request body did not arrive within {self.limits.body_timeout_s:g} s",
                                close=True)
        except _TooLarge:
            return await refuse(send, 413, f"request body over {self.limits.max_body} bytes")
        except _Gone:
            return None  # the client left: nobody to answer
        delivered = False

        async def replay() -> dict:
            nonlocal delivered
            if delivered:
                return await receive()  # after the body: only a disconnect can come
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def _read(self, receive: Any) -> bytes:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _Gone
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limits.max_body:
                raise _TooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)


async def refuse(send: Any, status: int, detail: str, *, close: bool = False) -> None:
    """A one-line JSON refusal. `close`: end the connection after it (a client too slow to
    send its body). A body too large is not closed on: a client still sending would see the
    connection reset instead of the 413; uvicorn discards the rest as it comes, within the
    header time limit (GuardedH11Protocol)."""
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status,
                "headers": headers + ([(b"connection", b"close")] if close else [])})
    await send({"type": "http.response.body", "body": body})


# -- batches in flight --------------------------------------------------------------------

class Busy(Refusal):
    """Every batch worker is busy and the queue is full."""


class BatchGate:
    """Run blocking batches on a bounded pool of threads, with a bounded queue."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._pool = ThreadPoolExecutor(max_workers=limits.batch_workers, thread_name_prefix="rates-batch")
        self.in_flight = 0  # running + queued; only touched on the event loop

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        if self.in_flight >= self.limits.batch_workers + self.limits.batch_queue:
            raise Busy
        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()  # as Starlette's run_in_threadpool does
        future = self._pool.submit(context.run, fn, *args)
        self.in_flight += 1
        # Counted until the thread is done, not until the request is: a batch whose client
        # left still occupies its worker.
        future.add_done_callback(lambda _: self._done_soon(loop))
        return await asyncio.wrap_future(future)

    def _done_soon(self, loop: asyncio.AbstractEventLoop) -> None:
        with contextlib.suppress(RuntimeError):  # the server has stopped: nothing to count
            loop.call_soon_threadsafe(self._done)

    def _done(self) -> None:
        self.in_flight -= 1

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
