"""`rates-xl serve` under load: how fast the files Excel fetches still answer while 45 batches
wait on a service that holds every request, and while 100 connections hang in their headers.

    python -m bench serve_load [--runs 3]      (or: python -m bench.serve_load 3)

Each run: a fresh server (in this process, TLS, default limits) whose client talks to a
"hold" network on loopback (accepts, never answers), 45 one-cell batches posted at once from
45 threads, then 20 GETs of /manifest.xml and 20 of functions.json, each on a new
connection (TLS handshake included, as a browser's first fetch). Then 100 TLS connections
that send half a request line, and 20 GETs again. Goal (issue 17): under 0.5 s.
Before the limits (issue 17): 27.8 s for the manifest under 45 batches.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import figure, main_for, result  # noqa: E402

BATCHES = 45
HANGING = 100
GETS = 20
GOAL_S = 0.5


def _gets(http_factory, url: str) -> list[float]:
    times = []
    for _ in range(GETS):
        http = http_factory()  # a new connection each time
        started = time.perf_counter()
        response = http.get(url, timeout=60)
        times.append(time.perf_counter() - started)
        http.close()
        if response.status_code != 200:
            raise RuntimeError(f"{url}: {response.status_code}")
    return times


def one_run(tls) -> dict[str, float]:
    import requests

    from rates_xl.addin.officejs import app as appmod
    from rates_xl.addin.officejs import server
    from rates_xl.client import RatesClient
    from rates_xl.functions import set_client
    from rates_xl.sandbox import PAID_KEY
    from tests.support.badnet import BadNetwork
    from tests.support.rawtls import tls_socket
    from tests.support.sandbox import wait_until

    held = BadNetwork("hold")
    client = RatesClient(held.base_url, api_key=PAID_KEY, max_attempts=1, timeout=60, deadline=60)
    running, app = server.start_in_thread(lambda u: appmod.create_app(u, client=client), tls.cert, tls.key)
    url = f"https://localhost:{running.port}"

    def http_factory():
        session = requests.Session()
        session.trust_env, session.verify = False, str(tls.ca)
        return session

    def one_batch(i: int) -> None:
        call = {"fn": "SWAP", "args": ["SOFR", "0D", f"{i + 1}Y", "1Y"]}
        with http_factory() as http:
            http.post(url + "/api/batch", json={"calls": [call]}, headers={"Origin": url}, timeout=120)

    threads = [threading.Thread(target=one_batch, args=(i,), daemon=True) for i in range(BATCHES)]
    hanging = []
    try:
        for thread in threads:
            thread.start()
        if not wait_until(lambda: app.state.batches.in_flight == BATCHES, timeout=60):
            raise RuntimeError(f"only {app.state.batches.in_flight} batches in flight")
        workers = sum(t.name.startswith(("rates-batch", "rates-fetch")) for t in threading.enumerate())
        manifest = _gets(http_factory, url + "/manifest.xml")
        metadata = _gets(http_factory, f"{url}/v/{app.state.version}/functions.json")
        for _ in range(HANGING):
            sock = tls_socket(running.port)
            sock.sendall(b"GET /manifest.xml HT")
            hanging.append(sock)
        with_hanging = _gets(http_factory, url + "/manifest.xml")
    finally:
        for sock in hanging:
            sock.close()
        held.stop()
        for thread in threads:
            thread.join(60)
        running.stop()
        set_client(None)
        client.close()
    return {
        "manifest": statistics.median(manifest), "manifest_max": max(manifest),
        "metadata": statistics.median(metadata),
        "hanging": statistics.median(with_hanging), "held_requests": held.accepted, "workers": workers,
    }


def measure(runs: int) -> list[dict[str, float]]:
    from rates_xl.addin.officejs import certs

    with tempfile.TemporaryDirectory(prefix="rates-bench-tls-") as tmp:
        tls, _ = certs.ensure(certs.CertPaths(Path(tmp)))
        return [one_run(tls) for _ in range(runs)]


def run(runs: int = 3) -> dict:
    rows = measure(runs)
    col = lambda key: [r[key] for r in rows]  # noqa: E731
    return result(
        "serve_load",
        f"rates-xl serve: GET latency (new TLS connection each) under {BATCHES} held batches, "
        f"then with {HANGING} connections hanging in their headers",
        [
            figure(f"GET /manifest.xml under {BATCHES} batches, median of {GETS}", col("manifest"), "s",
                   target=GOAL_S),
            figure(f"GET /manifest.xml under {BATCHES} batches, slowest of {GETS}", col("manifest_max"), "s",
                   target=GOAL_S),
            figure(f"GET functions.json under {BATCHES} batches, median of {GETS}", col("metadata"), "s",
                   target=GOAL_S),
            figure(f"GET /manifest.xml with {HANGING} hanging connections too, median", col("hanging"), "s",
                   target=GOAL_S),
            figure("service requests held at once (batches computing)", col("held_requests"), "requests",
                   digits=0),
            figure("batch and fetch threads while loaded", col("workers"), "threads", digits=0),
        ],
        runs=runs,
        setup={"batches": BATCHES, "hanging": HANGING, "gets": GETS},
        notes=["server and callers in this process; the service is a loopback socket that never answers"],
    )


if __name__ == "__main__":
    main_for(run, 3)
