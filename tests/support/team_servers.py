"""Team-server worker processes for the multi-worker tests and `bench team_serve`: real
`rates-xl serve` processes (TLS, per-user tokens from one users file) sharing one Redis
(`RATES_TEAM_URL`), in front of a sandbox on loopback.

    with team_servers(tmp, sandbox.base_url, redis.url, users=["alice", "bob"]) as team:
        team.post(0, "alice", calls)      # to worker 0, as a load balancer would send it
        team.me(1, "alice")               # /api/me as worker 1 sees it
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class TeamServers:
    urls: list[str]
    tokens: dict[str, str]
    ca: str
    logs: list[Path] = field(default_factory=list)

    def post(self, worker: int, user: str, calls: list[dict], timeout: float = 600) -> Any:
        import requests

        url = self.urls[worker]
        return requests.post(url + "/api/batch", json={"calls": calls}, verify=self.ca, timeout=timeout,
                             headers={"Origin": url, "Authorization": f"Bearer {self.tokens[user]}"})

    def me(self, worker: int, user: str) -> dict:
        import requests

        answer = requests.get(self.urls[worker] + "/api/me", verify=self.ca, timeout=30,
                              headers={"Authorization": f"Bearer {self.tokens[user]}"})
        answer.raise_for_status()
        return answer.json()

    def log_text(self) -> str:
        return "\n".join(path.read_text(errors="replace") for path in self.logs)


def _wait_healthy(url: str, ca: str, process: subprocess.Popen, log: Path, timeout: float = 60) -> None:
    import requests

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"rates-xl serve exited: {log.read_text()[-800:]!r}")
        try:
            if requests.get(url + "/health", verify=ca, timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not become healthy: {log.read_text()[-800:]!r}")


@contextlib.contextmanager
def team_servers(tmp: Path, base_url: str, team_url: str, *, users: list[str], workers: int = 2,
                 env: dict[str, str] | None = None) -> Iterator[TeamServers]:
    from rates_xl.addin.officejs import certs
    from rates_xl.addin.officejs.users import UserStore
    from rates_xl.sandbox import PAID_KEY
    from tests.support.redis_server import free_port

    tls, _ = certs.ensure(certs.CertPaths(tmp / "tls"))
    store = UserStore(tmp / "users.json")
    tokens = {name: store.add(name) for name in users}
    team = TeamServers([], tokens, str(tls.ca))
    processes: list[subprocess.Popen] = []
    try:
        for n in range(workers):
            port = free_port()
            log = tmp / f"serve-{n}.log"
            environment = dict(os.environ, RATES_BASE_URL=base_url, RATES_API_KEY=PAID_KEY, RATES_TEAM_URL=team_url,
                               RATES_PERSISTENT="false", HOME=str(tmp), XDG_DATA_HOME=str(tmp / "data"),
                               XDG_CONFIG_HOME=str(tmp / "config"), **(env or {}))
            with open(log, "w") as out:  # a file, not a pipe nobody reads: a full pipe stalls the server
                processes.append(subprocess.Popen(
                    [sys.executable, "-m", "rates_xl.cli", "serve", "--port", str(port), "--cert", str(tls.cert),
                     "--key", str(tls.key), "--users", "--users-file", str(store.path)],
                    env=environment, stdout=out, stderr=subprocess.STDOUT, text=True))
            team.urls.append(f"https://localhost:{port}")
            team.logs.append(log)
        for url, process, log in zip(team.urls, processes, team.logs, strict=True):
            _wait_healthy(url, team.ca, process, log)
        yield team
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
