"""Fixtures of the reliability suite: cells with known right answers, and a way to point
the worksheet functions at a client for one test."""

from __future__ import annotations

import pytest

from rates_xl.client import RatesClient
from rates_xl.functions import FUNCTIONS, set_client
from rates_xl.sandbox import PAID_KEY

# A past business day: every answer pinned to it is the same in every sandbox and process.
VALUATION_TIME = "2026-11-20T16:00:00Z"
INDICES = ("SOFR", "ESTR", "SONIA", "3M EURIBOR", "6M EURIBOR")


def make_cells(n: int, offset: int = 0) -> list[tuple[str, tuple]]:
    """n distinct cells (swap rates, discount factors, forwards, FX), as Excel passes them."""
    cells = []
    month = offset
    while len(cells) < n:
        month += 1
        for index in INDICES:
            cells.append(("RATES_SWAP", (index, "0D", f"{month}M", "1Y", None, None, None, VALUATION_TIME)))
            cells.append(("RATES_DF", (index, f"{month}M", VALUATION_TIME)))
            cells.append(("RATES_FORWARD", (index, f"{month}M", f"{month + 3}M", VALUATION_TIME)))
    return cells[:n]


def compute(cells, threads: int = 8) -> list:
    """Every cell through the worksheet functions, from `threads` threads like a recalc."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(lambda cell: FUNCTIONS[cell[0]].core(*cell[1]), cells))


@pytest.fixture
def use_client():
    """`use_client(client)`: the worksheet functions use it until the test ends."""
    made = []

    def use(client: RatesClient) -> RatesClient:
        made.append(client)
        set_client(client)
        return client

    yield use
    set_client(None)
    for client in made:
        client.close()


@pytest.fixture(scope="session")
def right_answers(sandbox):
    """cells -> the answers computed without any fault, from the session's clean sandbox."""
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY)
    known: dict = {}

    def answers(cells) -> list:
        missing = [c for c in cells if c not in known]
        if missing:
            set_client(client)
            try:
                for cell, value in zip(missing, compute(missing), strict=True):
                    assert not (isinstance(value, str) and value.startswith("#RATES!")), (cell, value)
                    known[cell] = value
            finally:
                set_client(None)
        return [known[c] for c in cells]

    yield answers
    client.close()
