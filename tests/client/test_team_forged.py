"""The team's rate-limit state in Redis, forged by someone who can write to Redis (issue 27,
point 7): a state that is not a number, or further ahead than any client schedules (an
hour), is ignored (the bucket starts empty, as after a restart) and logged once; members
dated in the future are not counted. Before, a state that was not a number made the script
fail, which every client took for Redis being down (each then worked solo, for as long as
the forged key lived), and a state of 9e18 refused every call."""

from __future__ import annotations

import logging
import time

import pytest

from rates_xl.client.errors import RateLimited
from rates_xl.client.limiter import TokenBucket
from rates_xl.client.team import TeamLimiter, TeamLink
from tests.support.redis_server import needs_redis

pytestmark = needs_redis

RATE, BURST = 10, 20


@pytest.fixture
def limiter(redis_server):
    link = TeamLink(redis_server.url, "bucket", timeout=0.5, retry_every=30)
    made = TeamLimiter(link, TokenBucket(RATE, BURST), BURST)
    made.acquire(time.monotonic() + 5)  # the state exists
    yield made
    link.close()


def redis_now_us(redis) -> int:
    seconds, micros = redis.time()
    return seconds * 1_000_000 + micros


@pytest.mark.parametrize("forged", ["lots", "", "nan", "inf", "-inf", "9e18", "0x7fffffffffffffff",
                                    "two hours ahead"])
def test_a_forged_bucket_state_is_ignored_and_the_team_stays_up(redis_server, limiter, caplog, forged):
    caplog.set_level(logging.WARNING, logger="rates_xl")
    redis = redis_server.client()
    value = str(redis_now_us(redis) + 7200 * 1_000_000) if forged == "two hours ahead" else forged
    redis.set(limiter.link.prefix + "bucket", value)
    redis.zadd(limiter.link.prefix + "members", {f"made-up-{i}": 9e18 for i in range(50)})
    for _ in range(3):
        waited = limiter.acquire(time.monotonic() + 2)  # no RateLimited: the forged state is not used
        assert waited < 2
    assert limiter.link.up and limiter.local_acquires == 0  # shared, not solo
    assert limiter.members == 1  # the made-up members dated in the future are not counted
    warnings = [r for r in caplog.records if "rate-limit state" in r.getMessage()]
    assert len(warnings) == 1


def test_a_state_within_the_hour_delays_calls_up_to_their_deadline(redis_server, limiter):
    """What write access can still do: set the state ahead, within an hour, and every call
    waits up to its own deadline, then says rate limit (docs/caches.md)."""
    redis = redis_server.client()
    redis.set(limiter.link.prefix + "bucket", str(redis_now_us(redis) + 600 * 1_000_000))
    with pytest.raises(RateLimited):
        limiter.acquire(time.monotonic() + 0.5)
    assert limiter.link.up
