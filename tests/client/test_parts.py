"""The limiter, the cache and the settings on their own."""

import threading

import pytest

from rates_xl.client import RateLimited, RatesClient
from rates_xl.client.cache import Entry, MemoryCache
from rates_xl.client.limiter import TokenBucket
from rates_xl.client.settings import Settings
from rates_xl.client.transport import parse_retry_after


class FakeClock:
    def __init__(self):
        self.now = 100.0
        self.lock = threading.Lock()

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        with self.lock:
            self.now += seconds


def test_token_bucket_admits_the_burst_then_the_rate():
    clock = FakeClock()
    bucket = TokenBucket(rate=20, burst=50, headroom=0, clock=clock, sleep=lambda s: None)
    waits = [bucket.acquire(deadline=1e9) for _ in range(70)]
    assert waits[:50] == [0.0] * 50
    # Reservations queue: the 51st waits 1/20 s, the 70th waits 20/20 s.
    assert waits[50] == pytest.approx(0.05) and waits[69] == pytest.approx(1.0)


def test_token_bucket_refuses_what_it_cannot_admit_before_the_deadline():
    clock = FakeClock()
    bucket = TokenBucket(rate=1, burst=1, headroom=0, clock=clock, sleep=lambda s: None)
    bucket.acquire(deadline=clock.now)
    with pytest.raises(RateLimited):
        bucket.acquire(deadline=clock.now + 0.5)
    assert bucket.acquire(deadline=clock.now + 1.0) == pytest.approx(1.0)


def test_a_drained_bucket_gives_no_burst_and_waits_for_the_slots_promised_before():
    """What a limiter taking over from the team's does (team.py): empty, and nothing before
    `until`; `backlog` counts what it has scheduled and not yet let go."""
    clock = FakeClock()
    bucket = TokenBucket(rate=20, burst=50, headroom=0, clock=clock, sleep=lambda s: None)
    bucket.drain(until=clock.now + 0.5)
    waits = [bucket.acquire(deadline=1e9) for _ in range(3)]
    assert waits == [pytest.approx(0.55), pytest.approx(0.6), pytest.approx(0.65)]
    assert bucket.backlog() == 13  # promised up to 0.65 s ahead, at 20/s
    clock.now += 0.65
    assert bucket.backlog() == 0


def test_token_bucket_keeps_headroom_below_the_service_burst():
    # 250 ms of requests held back: 100 ms (2 at 20/s) was less than the 158 ms measured
    # between a token and the service's charge after a 429 storm (docs/reliability.md).
    assert TokenBucket(rate=20, burst=50).capacity == 45
    assert TokenBucket(rate=200, burst=50).capacity == 25  # never more than half the burst
    assert TokenBucket(rate=20, burst=5).capacity == 3
    assert TokenBucket(rate=20, burst=1).capacity == 1


def test_cache_is_bounded_and_least_recently_used_goes_first():
    cache = MemoryCache(maxsize=2)
    for key in "abc":
        cache.put(key, Entry(key, fetched_at=0, ttl=60))
    assert cache.get("a") is None and cache.get("c").value == "c"
    assert len(cache) == 2


def test_cache_entries_expire_and_respect_a_freshness_floor():
    now = [1000.0]
    cache = MemoryCache(maxsize=10, timer=lambda: now[0])
    cache.put("k", Entry("v", fetched_at=1000.0, ttl=5))
    assert cache.get("k", fresh_since=999.0).value == "v"
    assert cache.get("k", fresh_since=1001.0) is None
    now[0] = 1006.0
    assert cache.get("k") is None


def test_settings_come_from_arguments_then_environment(monkeypatch):
    monkeypatch.setenv("RATES_RATE_LIMIT", "7.5")
    monkeypatch.setenv("RATES_TTL_FX", "3")
    monkeypatch.setenv("RATES_API_KEY", "env-key-xyz")
    settings = Settings()
    assert (settings.rate_limit, settings.ttl_fx, settings.burst, settings.timeout) == (7.5, 3.0, 50, 10.0)
    assert "env-key-xyz" not in repr(settings)
    client = RatesClient(rate_limit=2)
    assert client.settings.rate_limit == 2 and client.has_key
    assert client.base_url == "https://api.bluegamma.io"


def test_bad_settings_are_refused(monkeypatch):
    with pytest.raises(ValueError):
        RatesClient(rate_limit=0)
    with pytest.raises(ValueError):
        RatesClient(no_such_setting=1)


@pytest.mark.parametrize("header, seconds", [("3", 3.0), ("0.5", 0.5), (None, None), ("soon", None)])
def test_retry_after_parsing(header, seconds):
    assert parse_retry_after(header) == seconds


def test_retry_after_as_an_http_date():
    import time
    from email.utils import formatdate

    assert 1.0 <= parse_retry_after(formatdate(time.time() + 3, usegmt=True)) <= 3.0
