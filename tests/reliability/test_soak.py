"""A bounded soak: mixed traffic from 8 threads; no growth in memory or open sockets beyond
the stated bounds (tests/support/soak.py). RATES_SOAK_SECONDS sets the length: 20 s by
default here, so CI stays short; `python -m bench soak` runs the full 2 minutes."""

from __future__ import annotations

import os

from rates_xl.sandbox import PAID_KEY
from tests.support.sandbox import sandbox_process
from tests.support.soak import (
    EXTRA_SOCKETS_BOUND,
    MEMORY_GROWTH_BOUND,
    cached_refusal_grows,
    run_soak,
)

SECONDS = float(os.environ.get("RATES_SOAK_SECONDS", "20"))
THREADS = 8


def test_a_soak_of_mixed_traffic_grows_neither_memory_nor_sockets():
    with sandbox_process(rate_limit=200, burst=50, latency_ms=10) as service:
        result = run_soak(service.base_url, PAID_KEY, SECONDS, THREADS)
    print(f"\nsoak {SECONDS:g} s: {result.calls} calls, {result.requests_sent} requests, memory "
          f"{result.memory_start} -> {result.memory_end} B (growth {result.memory_growth} B), sockets "
          f"{result.sockets_before} before, max {result.sockets_max}, end {result.sockets_end}, "
          f"after close {result.sockets_after_close}, after clearing its cache {result.sockets_after_clear}")
    assert result.escaped == []
    # Real traffic: many calls, steady requests (live answers expire every second), every kind.
    assert result.calls > 1000 and result.requests_sent > 100
    assert set(result.messages) >= {"404 no", "422 the"}, result.messages
    assert result.values > result.calls // 2
    failures = {kind: n for kind, n in result.messages.items()
                if kind.startswith(("429", "5", "service", "internal"))}
    assert failures == {}, failures
    # The bounds.
    assert result.sockets_max <= result.sockets_before + THREADS + EXTRA_SOCKETS_BOUND, result.samples
    assert result.sockets_after_clear <= result.sockets_before
    assert result.memory_growth <= MEMORY_GROWTH_BOUND, result.samples


def test_a_cached_refusal_served_many_times_keeps_its_size():
    # The first raise comes up through the transport; later ones are served from the cache
    # and must not be deeper than that.
    assert cached_refusal_grows(200) <= 0
