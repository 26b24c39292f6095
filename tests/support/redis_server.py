"""A real redis-server for the team tests: started on a free loopback port, in a temp folder,
with persistence off; killed (SIGKILL, as a crash would) and restarted on the same port.

Debian's `redis-server` package; `.ci/run` installs it when absent. Where the binary is not
there, the tests that need it are skipped with that reason.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.sandbox import free_port

REDIS_BINARY = shutil.which("redis-server")
needs_redis = pytest.mark.skipif(
    REDIS_BINARY is None,
    reason="redis-server is not installed (Debian: apt-get install redis-server; .ci/run does it)",
)


class RedisServer:
    """`tls=True`: TLS only (no plain port), with a certificate for 127.0.0.1 from a throwaway
    root (trustme) at `ca_pem`; `url` is then `rediss://` and names no CA."""

    def __init__(self, *, tls: bool = False) -> None:
        self.port = free_port()
        self.folder = tempfile.mkdtemp(prefix="rates-xl-redis-")
        self.process: subprocess.Popen | None = None
        self.tls_args: list[str] = []
        self.url = f"redis://127.0.0.1:{self.port}/0"
        if tls:
            self._make_certificates()
            self.url = f"rediss://127.0.0.1:{self.port}/0"

    def _make_certificates(self) -> None:
        import trustme

        folder = Path(self.folder)
        ca = trustme.CA()
        certificate = ca.issue_cert("127.0.0.1")
        self.ca_pem = folder / "ca.pem"
        ca.cert_pem.write_to_path(str(self.ca_pem))
        certificate.cert_chain_pems[0].write_to_path(str(folder / "server.pem"))
        certificate.private_key_pem.write_to_path(str(folder / "server.key"))
        self.tls_args = ["--port", "0", "--tls-port", str(self.port),
                         "--tls-cert-file", str(folder / "server.pem"),
                         "--tls-key-file", str(folder / "server.key"),
                         "--tls-ca-cert-file", str(self.ca_pem), "--tls-auth-clients", "no"]

    def start(self) -> RedisServer:
        self.process = subprocess.Popen(
            [REDIS_BINARY, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self.folder, "--protected-mode", "yes", *self.tls_args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        if self.tls_args:
            return self._wait_for_tls()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited: {self.process.stderr.read()[-500:]!r}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("redis-server did not answer PING within 10 s")

    def _wait_for_tls(self) -> RedisServer:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited: {self.process.stderr.read()[-500:]!r}")
            try:
                if self.client().ping():
                    return self
            except Exception:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not answer PING over TLS within 10 s")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)

    def restart_empty_when(self, started: Callable[[], bool], down: float) -> threading.Thread:
        """In a thread: kill this Redis once `started()` (a fill is under way, however slowly
        its processes started) and start it again `down` seconds later, empty (no
        persistence). Join the thread to know it is back; its `fired` says whether `started()`
        came true (the outage hit the fill, not an idle Redis after it): tests assert it."""
        def run() -> None:
            deadline = time.monotonic() + 60
            while not started() and time.monotonic() < deadline:
                time.sleep(0.005)
            thread.fired = time.monotonic() < deadline
            self.kill()
            time.sleep(down)
            self.start()

        thread = threading.Thread(target=run, daemon=True)
        thread.fired = False
        thread.start()
        return thread

    def stop(self) -> None:
        self.kill()
        shutil.rmtree(self.folder, ignore_errors=True)

    def client(self):
        import redis

        if self.tls_args:
            return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2, ssl=True,
                               ssl_ca_certs=str(self.ca_pem))
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2)


@pytest.fixture
def redis_server():
    if REDIS_BINARY is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server; .ci/run does it)")
    server = RedisServer().start()
    yield server
    server.stop()


@pytest.fixture
def tls_redis_server():
    if REDIS_BINARY is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server; .ci/run does it)")
    server = RedisServer(tls=True)
    try:
        server.start()
    except RuntimeError as exc:
        server.stop()
        pytest.skip(f"this redis-server cannot serve TLS (built without it?): {exc}")
    yield server
    server.stop()
