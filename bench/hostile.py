"""A hostile service on loopback (tests/support/faultserver.py), with the client's default
settings: how long a cell and a headless call wait for an answer that trickles in a byte a
second (targets: the budget + 0.5 s), what a 50 MB 500 costs in memory and requests, and
how many requests a redirect loop sends for one call against the tokens it takes.

    python -m bench hostile          (about 50 s: the 30 s headless call is measured once)
"""

from __future__ import annotations

import time
import tracemalloc

from bench.common import figure, main_for, result

MB = 1 << 20


def run(runs: int = 3) -> dict:
    from rates_xl.client import RatesClient, RatesError
    from rates_xl.client.limiter import TokenBucket
    from rates_xl.functions import FUNCTIONS, using_client
    from tests.support.faultserver import FaultServer, Reply

    class CountingLimiter(TokenBucket):
        charges = 0

        def acquire(self, deadline: float) -> float:
            self.charges += 1
            return super().acquire(deadline)

    def trickle(arrival):
        return Reply(chunks=lambda: (b"x" for _ in range(600)), pause=1.0, headers={"Content-Length": "600"})

    piece = b"x" * (256 * 1024)

    def huge(arrival):
        return Reply(status=500, chunks=lambda: (piece for _ in range(50 * MB // len(piece))))

    hops = iter(range(10**9))

    def loop(arrival):
        return Reply(status=302, headers={"Location": f"/v1/fx?hop={next(hops)}"})

    server = FaultServer()
    cell_walls, memory, fetched, loop_sent, loop_charged = [], [], [], [], []
    try:
        def client(**settings):
            return RatesClient(base_url=server.base_url, api_key="bench-key-0123456789", persistent=False,
                               **settings)

        server.responder = trickle
        for _ in range(runs):
            with client() as c, using_client(c):
                started = time.monotonic()
                FUNCTIONS["RATES_FXSPOT"].core("EURUSD")
                cell_walls.append(time.monotonic() - started)
        with client() as c:  # the headless path: the default 30 s budget, once
            started = time.monotonic()
            try:
                c.fx_spot("EURUSD")
            except RatesError as exc:
                headless_message = str(exc)
            headless_wall = time.monotonic() - started

        server.responder = huge
        for _ in range(runs):
            before = server.count()
            with client() as c:
                tracemalloc.start()
                try:
                    c.fx_spot("EURUSD")
                except RatesError:
                    pass
                memory.append(tracemalloc.get_traced_memory()[1] / MB)
                tracemalloc.stop()
            fetched.append(server.count() - before)

        server.responder = loop
        for _ in range(runs):
            before = server.count()
            limiter = CountingLimiter(1000, 1000)
            with client(limiter=limiter) as c:
                try:
                    c.fx_spot("EURUSD")
                except RatesError:
                    pass
            loop_sent.append(server.count() - before)
            loop_charged.append(limiter.charges)
    finally:
        server.stop()
    return result(
        "hostile", "A hostile service: trickling, huge and looping answers (default settings)",
        [
            figure("cell (4 s budget) vs 1 byte/s body: wall time", cell_walls, "s", target=4.5),
            figure("headless call (30 s budget) vs 1 byte/s body: wall time (1 run)", [headless_wall], "s",
                   target=30.5),
            figure("50 MB 500 answer: peak traced memory", memory, "MB"),
            figure("50 MB 500 answer: times fetched", fetched, "", target=1, better="equal", digits=0),
            figure("redirect loop: HTTP requests sent for one call", loop_sent, "", digits=0),
            figure("redirect loop: limiter tokens taken", loop_charged, "", digits=0),
        ],
        runs=runs,
        notes=[f"headless message: {headless_message}"],
    )


if __name__ == "__main__":
    main_for(run, 3)
