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
import time

import pytest

from tests.support.sandbox import free_port

REDIS_BINARY = shutil.which("redis-server")
needs_redis = pytest.mark.skipif(
    REDIS_BINARY is None,
    reason="redis-server is not installed (Debian: apt-get install redis-server; .ci/run does it)",
)


class RedisServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.folder = tempfile.mkdtemp(prefix="rates-xl-redis-")
        self.process: subprocess.Popen | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.process = subprocess.Popen(
            [REDIS_BINARY, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self.folder, "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
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

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)

    def stop(self) -> None:
        self.kill()
        shutil.rmtree(self.folder, ignore_errors=True)

    def client(self):
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2)


@pytest.fixture
def redis_server():
    if REDIS_BINARY is None:
        pytest.skip("redis-server is not installed (Debian: apt-get install redis-server; .ci/run does it)")
    server = RedisServer().start()
    yield server
    server.stop()
