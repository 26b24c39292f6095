"""One wall-clock deadline for one HTTP attempt: connecting, the headers and the whole body.

requests and urllib3 only bound each wait for the network: a connect timeout, and a read
timeout that applies to every single recv. urllib3's `Timeout(total=...)` does not help
either: it is turned into the socket's timeout once, when the request starts, so it too
bounds each recv, not the answer. A server that sends its headers and then one byte a
second keeps every recv short and held a cell for two minutes.

So each attempt has an `AttemptDeadline`. `WatchedPools` makes the adapter's connections
register their socket with the calling thread's deadline: a new connection's plain socket
as soon as it is connected (`_new_conn`), so the TLS handshake is covered too, and the
socket that reads the answer (`getresponse`, where urllib3 hands it to http.client). When
the deadline passes, a timer shuts the socket down (shutdown, not close: the reading thread
still owns it), which ends the blocked read at once; the transport then sees `expired` and
says the answer was too slow. Watching from `_new_conn` matters through a proxy: its
CONNECT answer is read before any TLS, one recv at a time, and a proxy trickling it held a
4 s cell 112 s. (CPython's TLS handshake already counts its socket timeout over the whole
handshake, not per read.) Connecting itself is bounded by the connect timeout, which the
transport sets to what is left of the deadline. The body is also checked against the
deadline after every piece that arrives (transport.py), so where the timer cannot act, a
body's trickle still stops at most one read timeout late: through a SOCKS proxy (its own connection classes,
not watched), or should a shutdown not wake a blocked read (checked here on Linux, over
HTTP and TLS; Windows documents the same for closing, not for shutdown).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import Any

from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

# The deadline of the attempt this thread is making: requests gives no way to hand it to
# the connection that will serve the request, and a request runs on its caller's thread.
_current = threading.local()


class AttemptDeadline:
    """`seconds` from now, the socket the attempt reads from (if any yet) is shut down."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.ends = time.monotonic() + seconds
        self.expired = False
        self._sock: socket.socket | None = None
        self._handshake: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.name = "rates-deadline"

    def remaining(self) -> float:
        return self.ends - time.monotonic()

    def __enter__(self) -> AttemptDeadline:
        _current.deadline = self
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        _current.deadline = None
        self._timer.cancel()
        with self._lock:
            self._sock = None  # from now on the socket is the pool's again
            self._drop_handshake()

    def watch(self, sock: socket.socket | None) -> None:
        with self._lock:
            self._sock = sock
            if self.expired:
                _shut(sock)

    def watch_new(self, sock: socket.socket) -> None:
        """A connection just made `sock`, which a TLS handshake may read from next. The
        SSL wrap detaches `sock` before its handshake (the object's descriptor becomes -1),
        so a duplicate descriptor is kept: shutting it down ends the same connection."""
        with self._lock:
            self._drop_handshake()
            self._handshake = sock.dup()
            if self.expired:
                _shut(self._handshake)

    def _drop_handshake(self) -> None:
        if self._handshake is not None:
            self._handshake.close()  # only the duplicate: the connection lives on
            self._handshake = None

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            _shut(self._sock)
            _shut(self._handshake)


def _shut(sock: socket.socket | None) -> None:
    if sock is None:
        return
    with contextlib.suppress(OSError):
        # The plain socket's shutdown: SSLSocket.shutdown would also drop its SSL object
        # under the reading thread's feet.
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


def _watch_current(sock: socket.socket | None) -> None:
    deadline = getattr(_current, "deadline", None)
    if deadline is not None:
        deadline.watch(sock)


def _watch_new(sock: socket.socket) -> socket.socket:
    deadline = getattr(_current, "deadline", None)
    if deadline is not None:
        deadline.watch_new(sock)
    return sock


class _WatchedHTTPConnection(HTTPConnection):
    def _new_conn(self) -> socket.socket:
        return _watch_new(super()._new_conn())

    def getresponse(self) -> Any:
        _watch_current(self.sock)
        return super().getresponse()


class _WatchedHTTPSConnection(HTTPSConnection):
    def _new_conn(self) -> socket.socket:  # before connect() wraps it in TLS and shakes hands
        return _watch_new(super()._new_conn())

    def getresponse(self) -> Any:
        _watch_current(self.sock)
        return super().getresponse()


class _WatchedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _WatchedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


#: For a PoolManager's `pool_classes_by_scheme` (direct and HTTP(S) proxy managers).
WatchedPools = {"http": _WatchedHTTPPool, "https": _WatchedHTTPSPool}
