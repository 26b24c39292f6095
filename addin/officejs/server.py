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

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8766  # the sandbox's is 8765
STARTUP_TIMEOUT_S = 15.0


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


def _server(app: Any, cert: Path, key: Path, log_level: str = "warning") -> uvicorn.Server:
    return uvicorn.Server(uvicorn.Config(
        app, log_level=log_level, access_log=False, lifespan="off",
        ssl_certfile=str(cert), ssl_keyfile=str(key),
        # Excel keeps connections open: do not wait for them longer than this on Ctrl+C.
        timeout_graceful_shutdown=3,
    ))


class RunningServer:
    """A server in a daemon thread; `stop()` or use as a context manager."""

    def __init__(self, server: uvicorn.Server, thread: threading.Thread, sock: socket.socket) -> None:
        self._server, self._thread, self._sock = server, thread, sock
        self.port: int = sock.getsockname()[1]

    def stop(self, timeout: float = 10.0) -> None:
        self._server.should_exit = True
        self._thread.join(timeout)
        self._sock.close()

    def __enter__(self) -> RunningServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_in_thread(app_factory: Any, cert: Path, key: Path, host: str = DEFAULT_HOST,
                    port: int = 0) -> tuple[RunningServer, Any]:
    """Bind, build the app for its URL with `app_factory(public_url)`, serve; returns once
    it accepts connections. The URL is https://localhost:<port> (what the certificate names)."""
    sock = _bind(host, port)
    public_url = f"https://localhost:{sock.getsockname()[1]}"
    app = app_factory(public_url)
    server = _server(app, cert, key)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True,
                              name=f"rates-xl-serve-{sock.getsockname()[1]}")
    thread.start()
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            sock.close()
            raise RuntimeError(f"the server did not start on {host}:{sock.getsockname()[1]}")
        time.sleep(0.01)
    return RunningServer(server, thread, sock), app


def serve(app: Any, host: str, port: int, cert: Path, key: Path,
          on_listening: Any = None) -> None:
    """Run in the foreground until interrupted (Ctrl+C); `on_listening()` once the port is bound."""
    sock = _bind(host, port)
    if on_listening is not None:
        on_listening()
    try:
        _server(app, cert, key, log_level="info").run(sockets=[sock])
    finally:
        sock.close()
