"""Serving the sandbox: in a background thread (tests, demo) or in the foreground (CLI)."""

from __future__ import annotations

import socket
import threading
import time

import uvicorn

from rates_xl.sandbox.app import create_app

STARTUP_TIMEOUT_S = 15.0


def _bind(host: str, port: int) -> socket.socket:
    # Binding first lets port=0 pick a free port that we know before uvicorn starts.
    # proto=IPPROTO_TCP matters: asyncio only sets TCP_NODELAY on sockets that say they
    # are TCP, and without it every answer waits ~40 ms for a delayed ACK (Nagle).
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock


def _server(app, **config) -> uvicorn.Server:
    return uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", **config))


class RunningSandbox:
    """A sandbox serving on loopback in a daemon thread; `stop()` or use as a context manager."""

    def __init__(self, server: uvicorn.Server, thread: threading.Thread, sock: socket.socket, host: str):
        self._server, self._thread, self._sock = server, thread, sock
        self.host = host
        self.port: int = sock.getsockname()[1]
        self.base_url = f"http://{host}:{self.port}"
        #: every request under /v1 as it arrived (`behaviour.Arrival`), for tests and benchmarks
        state = server.config.app.state
        self.arrivals = state.behaviour.arrivals if hasattr(state, "behaviour") else state.arrivals

    def stop(self, timeout: float = 10.0) -> None:
        self._server.should_exit = True
        self._thread.join(timeout)
        self._sock.close()

    def __enter__(self) -> RunningSandbox:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"RunningSandbox({self.base_url})"


def start_in_thread(host: str = "127.0.0.1", port: int = 0, *, app=None, **knobs) -> RunningSandbox:
    """Start a sandbox with the given knobs (or serve `app`, e.g. a pack's); returns once it
    accepts connections."""
    app = app if app is not None else create_app(**knobs)
    sock = _bind(host, port)
    server = _server(app)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True,
                              name=f"rates-xl-sandbox-{sock.getsockname()[1]}")
    thread.start()
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            sock.close()
            raise RuntimeError(f"the sandbox did not start on {host}:{sock.getsockname()[1]}")
        time.sleep(0.01)
    return RunningSandbox(server, thread, sock, host)


def serve(host: str, port: int, announce=print, *, app=None, **knobs) -> None:
    """Run in the foreground until interrupted (Ctrl+C); `app` instead of a sandbox built from knobs."""
    app = app if app is not None else create_app(**knobs)
    sock = _bind(host, port)
    announce(sock.getsockname()[1])
    _server(app).run(sockets=[sock])
