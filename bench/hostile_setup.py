"""What comes before an answer, made slow: a cell's wall time (its 4 s budget, default
settings) against a server trickling its TLS handshake and a proxy trickling its CONNECT
answer (a byte every 0.2 s each), and behind a team claim that a "teammate" never answers
with a service slower than the budget (targets: the budget + 0.5 s).

    python -m bench hostile_setup    (about 40 s; needs trustme and redis-server)
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from bench.common import figure, main_for, result

_PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy",
                    "NO_PROXY", "no_proxy", "REQUESTS_CA_BUNDLE")


def run(runs: int = 3) -> dict:
    import ssl

    import trustme

    from rates_xl.client import RatesClient, RatesError
    from rates_xl.functions import FUNCTIONS, using_client
    from tests.support.faultserver import FaultServer, Reply, TrickleRelay, TricklingProxy
    from tests.support.redis_server import RedisServer

    saved = {name: os.environ.pop(name) for name in _PROXY_VARIABLES if name in os.environ}

    def cell(base_url: str) -> float:
        with RatesClient(base_url=base_url, api_key="bench-key-0123456789", persistent=False) as c, \
                using_client(c):
            started = time.monotonic()
            FUNCTIONS["RATES_FXSPOT"].core("EURUSD")  # an error line, never an answer here
            return time.monotonic() - started

    handshake, proxied, claimed = [], [], []
    try:
        with tempfile.TemporaryDirectory() as folder:
            ca = trustme.CA()
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            ca.issue_cert("127.0.0.1").configure_cert(context)
            root = Path(folder) / "root.pem"
            ca.cert_pem.write_to_path(str(root))
            os.environ["REQUESTS_CA_BUNDLE"] = str(root)
            tls_server = FaultServer(tls=context)
            try:
                for _ in range(runs):
                    relay = TrickleRelay(tls_server.base_url)
                    try:
                        handshake.append(cell(f"https://127.0.0.1:{relay.port}"))
                    finally:
                        relay.close()
            finally:
                tls_server.stop()
                del os.environ["REQUESTS_CA_BUNDLE"]

        for _ in range(runs):
            proxy = TricklingProxy()
            os.environ["HTTPS_PROXY"] = proxy.url
            try:
                proxied.append(cell("https://127.0.0.1:9"))  # only the proxy is ever reached
            finally:
                del os.environ["HTTPS_PROXY"]
                proxy.close()

        server, redis = FaultServer(), RedisServer().start()
        server.responder = lambda arrival: Reply(delay=10.0)  # slower than any budget here
        try:
            for run_number in range(runs):
                with RatesClient(base_url=server.base_url, api_key="bench-key-0123456789", persistent=False,
                                 team_url=redis.url) as c:
                    key = c.request_key("fx_spot", currency_pair=("EURUSD", "GBPUSD", "USDJPY")[run_number % 3])
                    redis.client().set(c.cache.team.claim_key(key), "not-a-teammate", ex=3600)
                    started = time.monotonic()
                    try:
                        c.get_key(key, deadline=c.settings.cell_deadline)  # as a cell asks
                    except RatesError:
                        pass
                    claimed.append(time.monotonic() - started)
        finally:
            redis.stop()
            server.stop()
    finally:
        os.environ.update(saved)
    return result(
        "hostile_setup", "Slow before the answer: TLS handshake, proxy CONNECT, a dead team claim",
        [
            figure("cell (4 s budget) vs TLS handshake at 1 byte/0.2 s: wall time", handshake, "s", target=4.5),
            figure("cell (4 s budget) vs proxy CONNECT answer at 1 byte/0.2 s: wall time", proxied, "s",
                   target=4.5),
            figure("cell (4 s budget) behind a dead claim, service answering in 10 s: wall time", claimed, "s",
                   target=4.5),
        ],
        runs=runs,
    )


if __name__ == "__main__":
    main_for(run, 3)
