"""The plan / fetch / compute loop (rates_xl.functions.plan), on the real client and sandbox.

`evaluate` here computes cells through the worksheet functions' core, as every host does;
the hosts' own tests (tests/calc, tests/addin/test_refresh_excel.py) run it on workbooks.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from rates_xl.client import RatesClient
from rates_xl.functions import FUNCTIONS, PENDING, core, using_client
from rates_xl.functions.context import CallContext
from rates_xl.functions.plan import FetchProgress, plan_and_evaluate

SWAP = FUNCTIONS["RATES_SWAP"]
DISCOUNT = FUNCTIONS["RATES_DISCOUNT"]


@pytest.fixture
def client(sandbox, sandbox_key):
    with RatesClient(base_url=sandbox.base_url, api_key=sandbox_key) as live, using_client(live):
        yield live


def swaps(n):
    return [(SWAP, ("SOFR", "0D", f"{m}M", "1Y")) for m in range(1, n + 1)]


def test_a_chain_costs_one_round_per_link_and_each_request_once(client):
    def evaluate(context):
        first = core.evaluate(SWAP, ("SOFR", "0D", "10Y", "1Y"), context)
        again = core.evaluate(SWAP, ("sofr ", "0d", "10y", "1Y"), context)  # the same request
        second = core.evaluate(DISCOUNT, ("SOFR", f"{round(first) + 1}Y") if isinstance(first, float)
                               else ("SOFR", first), context)
        return first, again, second

    (first, again, second), report = plan_and_evaluate(evaluate, client)
    assert isinstance(first, float) and again == first and isinstance(second, float)
    assert report.rounds == 3 and report.distinct_requests == 2 == report.requests_sent
    assert not report.finished_unplanned and not report.cancelled


def test_the_round_reaches_cells_computed_on_other_threads(client):
    """Excel may call the UDFs on another thread than the one that opened the round, and
    formualizer computes on its own pool: the round travels in the call's context."""
    cells = swaps(12)
    pool = ThreadPoolExecutor(1, thread_name_prefix="udf-server")
    sent_during_plan = []

    def evaluate(context):
        before = client.stats()["requests_sent"]
        values = pool.submit(lambda: [core.evaluate(spec, args, context) for spec, args in cells]).result()
        sent_during_plan.append(client.stats()["requests_sent"] - before)
        return values

    try:
        values, report = plan_and_evaluate(evaluate, client)
    finally:
        pool.shutdown()
    assert sent_during_plan == [0, 0]  # the other thread planned: nothing sent while computing
    assert report.requests_sent == report.distinct_requests == 12 and report.rounds == 2
    assert all(isinstance(v, float) for v in values)


def test_a_call_without_the_rounds_context_fetches_cell_by_cell(client):
    """Why every host hands the round's context to its calls: without it a call is not
    planned, wherever it runs."""
    pool = ThreadPoolExecutor(1)
    try:
        values, report = plan_and_evaluate(
            lambda context: pool.submit(lambda: [core.evaluate(s, a) for s, a in swaps(3)]).result(), client)
    finally:
        pool.shutdown()
    assert report.rounds == 1 and report.distinct_requests == 0 and report.requests_sent == 3


def test_recorded_requests_are_fetched_afresh_even_if_an_older_answer_is_cached(client):
    """A cell under a refresh floor records a request whose older answer is still cached: the
    fetch must replace it, or the next round would record it again (and fall back to serial)."""
    core.evaluate(SWAP, ("SOFR", "0D", "7Y", "1Y"))
    sent = client.stats()["requests_sent"]
    floor = time.time()
    value, report = plan_and_evaluate(lambda context: core.evaluate(SWAP, ("SOFR", "0D", "7Y", "1Y"), context),
                                      client, context=CallContext(fresh_since=floor))
    assert isinstance(value, float)
    assert client.stats()["requests_sent"] - sent == 1
    assert report.rounds == 2 and not report.finished_unplanned


def test_progress_is_reported_on_the_calling_thread_and_a_cancel_stops_sending(sandbox_factory, sandbox_key):
    slow = sandbox_factory(latency_ms=50, rate_limit=1000, burst=1000)
    with RatesClient(base_url=slow.base_url, api_key=sandbox_key, rate_limit=10, burst=1,
                     max_workers=2) as client, using_client(client):
        caller = threading.get_ident()
        seen: list[tuple[FetchProgress, int]] = []
        cancelled_at = []
        passes = []

        def evaluate(context):
            passes.append(1)
            return [core.evaluate(spec, args, context) for spec, args in swaps(30)]

        def cancel():
            return any(p.done >= 3 for p, _ in seen)

        values, report = plan_and_evaluate(
            evaluate, client, on_progress=lambda p: seen.append((p, threading.get_ident())),
            should_cancel=cancel, on_cancel=lambda: cancelled_at.append(len(passes)))
    assert report.cancelled and not report.finished_unplanned
    assert cancelled_at == [1] and len(passes) == 2  # the plan pass, then one last pass
    assert {thread for _, thread in seen} == {caller}
    assert all(p.total == 30 for p, _ in seen) and seen[-1][0].per_second > 0
    fetched = 30 - report.not_fetched
    assert 3 <= fetched < 30
    # The last pass runs outside planning, so a host with nothing better to show computes the
    # rest as it always did (here: sends them now, one cell at a time) and no cell is left
    # pending; the ribbon's last pass gives such a cell back its old value instead
    # (tests/addin/test_refresh_excel.py).
    assert PENDING not in values and all(isinstance(v, float) for v in values)
    assert report.requests_sent == 30


@pytest.mark.parametrize("ttl_live", [0.0, 0.3], ids=["never-cached", "expires-between-rounds"])
def test_rounds_that_outlast_an_answers_ttl_use_it_without_fetching_it_again(sandbox, sandbox_key, ttl_live):
    """A Refresh of a big book on a slow service or a busy machine can take longer than
    `ttl_live` (60 s): the answers the first round fetched have left the cache by the last.
    The loop holds every answer it used until it ends, so each request is sent once and
    every cell of the book uses the same answer (issue 31: swap_pricer's Refresh at load 30)."""
    with RatesClient(base_url=sandbox.base_url, api_key=sandbox_key, ttl_live=ttl_live,
                     persistent=False) as live, using_client(live):
        seen = []

        def evaluate(context):
            first = core.evaluate(SWAP, ("SOFR", "0D", "10Y", "1Y"), context)
            second = (core.evaluate(DISCOUNT, ("SOFR", f"{round(first) + 1}Y"), context)
                      if isinstance(first, float) else PENDING)
            seen.append((first, second))
            time.sleep(ttl_live + 0.2)  # a round slower than the TTL: the cache drops `first`
            return first, second

        (first, second), report = plan_and_evaluate(evaluate, live)
        assert isinstance(first, float) and isinstance(second, float)
        assert report.requests_sent == report.distinct_requests == 2 == live.stats()["requests_sent"]
        assert report.rounds == 3 and not report.finished_unplanned
        # One answer per request in every round that had it.
        assert {f for f, _ in seen if isinstance(f, float)} == {first}
        # Outside the loop the cache's TTL rules again: nothing is held past it.
        assert len(live.cache) == 0
