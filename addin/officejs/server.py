"""Serving the Office.js host over HTTPS: in the foreground (`rates-xl serve`) or in a
background thread (tests, benchmarks). Office loads add-in files over HTTPS only, localhost
included, so there is no plain-HTTP mode.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn

from rates_xl.addin.officejs.limits import DEFAULT_LIMITS, Limits, protocol_with

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8766  # the sandbox's is 8765
STARTUP_TIMEOUT_S = 15.0
#: The soft limit of open files `serve` asks for (macOS starts processes at 256).
WANTED_FILES = 4096


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _bind(host: str, port: int) -> socket.socket:
    # Bound first so port 0 picks a free port we know before uvicorn starts; IPPROTO_TCP so
    # asyncio sets TCP_NODELAY (see the sandbox's server for the 40 ms delayed-ACK story).
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock


def _server(app: Any, cert: Path, key: Path, limits: Limits, log_level: str = "warning") -> uvicorn.Server:
    return uvicorn.Server(uvicorn.Config(
        app, log_level=log_level, access_log=False, lifespan="off",
        ssl_certfile=str(cert), ssl_keyfile=str(key),
        # uvicorn's h11 protocol with a header timeout and a connection cap (limits.py)
        http=protocol_with(limits),
        timeout_keep_alive=5,  # an idle connection between requests; Excel reconnects at once
        h11_max_incomplete_event_size=16 * 1024,  # a request line and headers, at most
        # Excel keeps connections open: do not wait for them longer than this on Ctrl+C.
        timeout_graceful_shutdown=3,
    ))


def raise_file_limit(wanted: int = WANTED_FILES) -> int:
    """Raise this process's soft limit of open files towards `wanted` (never above the
    hard limit); returns the limit in force. The connection cap keeps us under it anyway;
    the headroom is for TLS handshakes that never finish (asyncio drops them after 60 s)."""
    try:
        import resource
    except ImportError:  # Windows: no such limit
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):  # macOS refuses more than kern.maxfilesperproc
            pass
    return soft


class RunningServer:
    """A server in a daemon thread; `stop()` or use as a context manager."""

    def __init__(self, server: uvicorn.Server, thread: threading.Thread, sock: socket.socket, app: Any) -> None:
        self._server, self._thread, self._sock, self._app = server, thread, sock, app
        self.port: int = sock.getsockname()[1]

    def stop(self, timeout: float = 10.0) -> None:
        self._server.should_exit = True
        self._thread.join(timeout)
        self._sock.close()
        _close_app(self._app)

    def __enter__(self) -> RunningServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _close_app(app: Any) -> None:
    batches = getattr(getattr(app, "state", None), "batches", None)
    if batches is not None:
        batches.close()
    live = getattr(getattr(app, "state", None), "live", None)
    if live is not None:
        live.close()


def start_in_thread(app_factory: Any, cert: Path, key: Path, host: str = DEFAULT_HOST,
                    port: int = 0, limits: Limits = DEFAULT_LIMITS) -> tuple[RunningServer, Any]:
    """Bind, build the app for its URL with `app_factory(public_url)`, serve; returns once
    it accepts connections. The URL is https://localhost:<port> (what the certificate names)."""
    sock = _bind(host, port)
    public_url = f"https://localhost:{sock.getsockname()[1]}"
    app = app_factory(public_url)
    server = _server(app, cert, key, limits)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True,
                              name=f"rates-xl-serve-{sock.getsockname()[1]}")
    thread.start()
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            sock.close()
            raise RuntimeError(f"the server did not start on {host}:{sock.getsockname()[1]}")
        time.sleep(0.01)
    return RunningServer(server, thread, sock, app), app


def serve(app: Any, host: str, port: int, cert: Path, key: Path, limits: Limits = DEFAULT_LIMITS,
          on_listening: Any = None) -> None:
    """Run in the foreground until interrupted (Ctrl+C); `on_listening()` once the port is bound."""
    raise_file_limit()
    sock = _bind(host, port)
    if on_listening is not None:
        on_listening()
    try:
        _server(app, cert, key, limits, log_level="info").run(sockets=[sock])
    finally:
        sock.close()
        _close_app(app)
