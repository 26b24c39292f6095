"""Fixtures of the reliability suite: cells with known right answers, and a way to point
the worksheet functions at a client for one test."""

from __future__ import annotations

import pytest

from rates_xl.client import RatesClient
from rates_xl.functions import FUNCTIONS, set_client
from rates_xl.sandbox import PAID_KEY
from tests.support.cells import (
    VALUATION_TIME,  # noqa: F401 (the tests import it from here)
    distinct_cells,
)

# The benchmarks' generator of distinct cells, all pinned to one past business day, so
# every answer is the same in every sandbox and process.
make_cells = distinct_cells


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
