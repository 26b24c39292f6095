"""Limits, coalescing, caching, retries and errors, against real HTTP on loopback."""

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from rates_xl.client import (
    AuthError,
    BadRequest,
    InvalidResponse,
    NotFetched,
    NotFound,
    RateLimited,
    RatesClient,
    ServerError,
    ServiceUnavailable,
    Unprocessable,
)
from tests.client.conftest import SECRET
from tests.support.faultserver import Reply
from tests.support.sends import most_in_window, recording_sends


def test_200_distinct_calls_from_16_threads_stay_inside_the_service_limits(server, make_client):
    client = make_client()  # the defaults: 20 requests/s, burst 50
    with ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda i: client.discount_factor("SOFR", f"{i + 1}D"), range(200)))
    times = [a.at for a in server.arrivals]
    assert len(times) == 200
    # Burst: never more than 50 at one instant (10 ms window).
    assert most_in_window(times, 0.010) <= 50
    # Sustained: a 20/s bucket with burst 50 admits at most 50 + 20 x W in any window W.
    for window in (0.5, 1.0, 2.0, 5.0):
        assert most_in_window(times, window) <= 50 + 20 * window
    # And over the whole run the rate after the burst is 20/s, not more.
    span = times[-1] - times[0]
    assert (200 - 50) / span <= 20.5
    stats = client.stats()
    assert stats["requests_sent"] == 200 and stats["throttled_waits"] > 0
    print(f"\nmost requests in any 1 s window: {most_in_window(times, 1.0)}; "
          f"in any 10 ms: {most_in_window(times, 0.010)}; run {span:.2f} s")


def test_100_identical_concurrent_calls_make_one_request(server, make_client):
    server.responder = lambda a: Reply(delay=0.3)
    client = make_client()
    barrier = threading.Barrier(100)

    def call(_):
        barrier.wait()
        return client.swap_rate("SOFR", "0D", "5Y", "1Y").swap_rate

    with ThreadPoolExecutor(100) as pool:
        rates = list(pool.map(call, range(100)))
    assert server.count() == 1
    assert rates == [3.6412] * 100
    assert client.stats()["coalesced_waits"] + client.stats()["cache_hits"] == 99


def test_an_error_reaches_every_coalesced_caller(server, make_client):
    server.responder = lambda a: Reply(status=422, body={"detail": "Index 'SOFA' not in configuration"}, delay=0.3)
    client = make_client()
    barrier = threading.Barrier(20)

    def call(_):
        barrier.wait()
        try:
            client.swap_rate("SOFA", "0D", "5Y", "1Y")
        except Unprocessable as exc:
            return str(exc)

    with ThreadPoolExecutor(20) as pool:
        messages = list(pool.map(call, range(20)))
    assert server.count() == 1
    assert all("SOFA" in m for m in messages)


def test_ttl_expiry_refetches(server, make_client):
    client = make_client(ttl_live=0.3)
    client.swap_rate("SOFR", "0D", "5Y", "1Y")
    client.swap_rate("SOFR", "0D", "5Y", "1Y")
    assert server.count() == 1
    time.sleep(0.4)
    client.swap_rate("SOFR", "0D", "5Y", "1Y")
    assert server.count() == 2


def test_ttl_classes(make_client):
    client = make_client(ttl_live=60, ttl_fx=15, ttl_daily=86400, ttl_history=86401)
    ttl = lambda endpoint, **p: client._ttl(client.request_key(endpoint, **p))  # noqa: E731
    assert ttl("swap_rate", index="SOFR", start_date="0D", maturity_date="5Y", fixed_leg_frequency="1Y") == 60
    assert ttl("fx_spot", currency_pair="EURUSD") == 15
    assert ttl("gov_yield", country_code="US", maturity="10Y") == 60
    assert ttl("gov_yield", country_code="DE", maturity="10Y") == 86400
    assert ttl("fixing", index="SOFR", valuation_date="2020-01-02") == 86401
    assert ttl("fixing", index="SOFR") == 60
    assert ttl("historical_swap_rates", index="SOFR", tenor="5Y", start_date="2020-01-01",
               end_date="2020-02-01") == 86401
    # A request pinned to a past moment never changes: the long TTL.
    assert ttl("swap_rate", index="SOFR", start_date="0D", maturity_date="5Y", fixed_leg_frequency="1Y",
               valuation_time="2024-01-02T16:00:00Z") == 86401


def test_429_with_retry_after_is_honoured(server, make_client):
    replies = iter([Reply(status=429, body={"detail": "Too Many Requests"}, headers={"Retry-After": "1"})])
    server.responder = lambda a: next(replies, Reply())
    client = make_client()
    assert client.fx_spot("EURUSD").rate == pytest.approx(1.17732)
    first, second = server.arrivals
    assert second.at - first.at >= 1.0
    assert client.stats()["retries"] == 1


def test_5xx_and_dropped_connections_are_retried(server, make_client):
    replies = iter([Reply(status=503, body="Service Unavailable"), Reply(reset=True), Reply(status=500)])
    server.responder = lambda a: next(replies, Reply())
    client = make_client()
    assert client.fx_spot("EURUSD").rate == pytest.approx(1.17732)
    assert server.count() == 4


def test_persistent_429_ends_as_rate_limited_within_the_attempt_budget(server, make_client):
    server.responder = lambda a: Reply(status=429, body={"detail": "Too Many Requests"}, headers={"Retry-After": "0"})
    client = make_client(max_attempts=3)
    with pytest.raises(RateLimited):
        client.fx_spot("EURUSD")
    assert server.count() == 3


@pytest.mark.parametrize("status, detail, error", [
    (400, [{"loc": ["query", "maturity_date"], "msg": "field required", "type": "missing"}], BadRequest),
    (403, "Missing or invalid API key — check your x-api-key header", AuthError),
    (404, "Fixing not found for SOFR on 2026-01-01", NotFound),
    (422, "Index 'SOFA' not in configuration", Unprocessable),
])
def test_other_4xx_are_not_retried_and_carry_the_detail(server, make_client, status, detail, error):
    server.responder = lambda a: Reply(status=status, body={"detail": detail})
    client = make_client()
    with pytest.raises(error) as caught:
        client.fixing("SOFR", "2026-01-01")
    assert server.count() == 1
    exc = caught.value
    assert (exc.status, exc.endpoint, exc.detail) == (status, "fixing", detail)
    if status == 400:
        assert "maturity_date: field required" in str(exc)


def test_final_refusals_are_cached_but_auth_errors_are_not(server, make_client):
    server.responder = lambda a: Reply(status=404, body={"detail": "Fixing not found"})
    client = make_client()
    for _ in range(3):
        with pytest.raises(NotFound):
            client.fixing("SOFR", "2026-01-01")
    assert server.count() == 1
    server.responder = lambda a: Reply(status=403, body={"detail": "Invalid API key"})
    for _ in range(2):
        with pytest.raises(AuthError):
            client.fixing("SOFR", "2026-01-02")
    assert server.count() == 3


@pytest.mark.parametrize("detail, reason, words", [
    ("Missing API key", "missing", "no API key was sent"),
    ("Invalid API key", "invalid", "not accepted"),
    ("Your trial has expired", "expired", "trial key has expired"),
    ("Trial keys cannot request valuation_time or valuation_date (past data)", "trial_past_data",
     "trial key cannot ask for past data"),
])
def test_403_says_why_in_plain_words(server, make_client, detail, reason, words):
    server.responder = lambda a: Reply(status=403, body={"detail": detail})
    with pytest.raises(AuthError) as caught:
        make_client().swap_curve("SOFR", valuation_time="2025-01-02T00:00:00Z")
    assert caught.value.reason == reason
    assert words in str(caught.value)


def test_timeouts_are_bounded_by_attempts(server, make_client):
    server.responder = lambda a: Reply(delay=3)
    client = make_client(timeout=0.2, max_attempts=2)
    with pytest.raises(ServiceUnavailable, match="within 0.2 s"):
        client.fx_spot("EURUSD")
    assert server.count() == 2


def test_the_total_deadline_stops_retries(server, make_client):
    server.responder = lambda a: Reply(status=503, headers={"Retry-After": "5"})
    client = make_client(max_attempts=10, deadline=1.0)
    with pytest.raises(ServerError):
        client.fx_spot("EURUSD")
    assert server.count() == 1  # the next attempt would start after the deadline


def test_connection_refused_fails_at_once_with_a_clear_message():
    client = RatesClient(base_url="http://127.0.0.1:9", api_key=SECRET, backoff=1)
    with pytest.raises(ServiceUnavailable, match="connection refused") as caught:
        client.fx_spot("EURUSD")
    assert "127.0.0.1:9" in str(caught.value)
    assert client.stats()["requests_sent"] == 1


@pytest.mark.parametrize("reply, error, words", [
    (Reply(body="{not json"), InvalidResponse, "not JSON"),
    (Reply(body="<html><body>Bad gateway</body></html>", headers={"Content-Type": "text/html"}),
     InvalidResponse, "HTML page"),
    (Reply(status=502, body="<html><h1>502 Bad Gateway</h1></html>", headers={"Content-Type": "text/html"}),
     ServerError, "HTML page"),
])
def test_malformed_answers_give_clear_errors(server, make_client, reply, error, words):
    server.responder = lambda a: reply
    with pytest.raises(error, match=words):
        make_client(max_attempts=2).fx_spot("EURUSD")


def test_the_key_never_leaks(server, make_client, caplog):
    caplog.set_level(logging.DEBUG)
    texts = []
    for status in (400, 403, 404, 422, 429, 500):
        server.responder = lambda a, s=status: Reply(status=s, body={"detail": f"failure {s}"})
        client = make_client(max_attempts=2)
        try:
            client.fx_spot("EURUSD")
        except Exception as exc:
            texts += [str(exc), repr(exc), str(exc.detail)]
        texts += [repr(client), str(client.stats()), repr(client.settings), str(client.settings)]
    timeout_client = RatesClient(base_url="http://127.0.0.1:9", api_key=SECRET)
    try:
        timeout_client.fx_spot("EURUSD")
    except Exception as exc:
        texts += [str(exc), repr(exc)]
    texts += [r.getMessage() for r in caplog.records]
    assert texts and not [t for t in texts if SECRET in t]
    assert any("GET /v1/fx" in r.getMessage() for r in caplog.records)  # logs were captured


def test_planning_records_misses_and_fetch_many_fills_them(server, make_client):
    client = make_client()
    client.fx_spot("EURUSD")
    with client.planning() as recorded:
        assert client.fx_spot("EURUSD").rate == pytest.approx(1.17732)  # cached: answers
        for pair in ("GBPUSD", "USDJPY", "GBPUSD"):
            with pytest.raises(NotFetched):
                client.fx_spot(pair)
    assert server.count() == 1
    assert {dict(k.params)["currency_pair"] for k in recorded} == {"GBPUSD", "USDJPY"}
    results = client.fetch_many(recorded)
    assert server.count() == 3 and len(results) == 2
    client.fx_spot("USDJPY")
    assert server.count() == 3


def test_fetch_many_returns_errors_per_request(server, make_client):
    server.responder = lambda a: Reply(status=422, body={"detail": "unknown pair"}) if a.query["currency_pair"] == "XXXYYY" else Reply()
    client = make_client()
    keys = [client.request_key("fx_spot", currency_pair=p) for p in ("EURUSD", "XXXYYY")]
    results = client.fetch_many(keys)
    assert results[keys[0]].rate == pytest.approx(1.17732)
    assert isinstance(results[keys[1]], Unprocessable)


def test_fresh_since_refetches_once_and_expire_drops_only_what_it_names(server, make_client):
    client = make_client()
    client.fx_spot("EURUSD")
    client.fx_spot("GBPUSD")
    floor = time.time()
    with client.fresh_since(floor):
        client.fx_spot("EURUSD")
        client.fx_spot("EURUSD")  # fetched after the floor: a cache hit again
    assert server.count() == 3
    client.fx_spot("GBPUSD")
    assert server.count() == 3
    assert client.expire(keys=[client.request_key("fx_spot", currency_pair="GBPUSD")]) == 1
    client.fx_spot("GBPUSD")
    client.fx_spot("EURUSD")
    assert server.count() == 4
    client.clear_cache()
    client.fx_spot("EURUSD")
    assert server.count() == 5


def test_a_key_echoed_by_the_service_is_redacted_everywhere(server, make_client):
    server.responder = lambda a: Reply(status=403, body={"detail": f"Invalid API key '{a.headers['x-api-key']}'"})
    client = make_client()
    with pytest.raises(AuthError) as caught:
        client.fx_spot("EURUSD")
    exc = caught.value
    texts = [str(exc), repr(exc), str(exc.detail), str(client.stats())]
    assert not [t for t in texts if SECRET in t]
    assert "[api key]" in str(exc)


@pytest.mark.parametrize("piece", [slice(0, 9), slice(5, 15), slice(-8, None), slice(3, -3)])
def test_a_piece_of_the_key_echoed_by_the_service_is_redacted(server, make_client, piece):
    """A service or proxy that repeats only part of the key (8 characters or more) must not
    show that part either: in the exception, its detail, the stats or the cell."""
    from rates_xl.functions.messages import message_for

    fragment = SECRET[piece]
    server.responder = lambda a: Reply(
        status=403, body={"detail": f"Invalid API key {a.headers['x-api-key'][piece]}... (unknown)"})
    client = make_client()
    with pytest.raises(AuthError) as caught:
        client.fx_spot("EURUSD")
    exc = caught.value
    texts = [str(exc), repr(exc), str(exc.detail), str(client.stats()), message_for(exc, SECRET)]
    assert [t for t in texts if fragment in t] == []
    assert "Invalid API key [api key]... (unknown)" in str(exc)


def test_redaction_keeps_text_that_shares_less_than_8_characters_with_the_key():
    from rates_xl.client.redaction import redact_text

    assert redact_text("sk-test-6 and DO-NOT-", SECRET) == "[api key] and DO-NOT-"
    assert redact_text("x" + SECRET + "y" + SECRET[4:20], SECRET) == "x[api key]y[api key]"
    assert redact_text("nothing here", SECRET) == "nothing here"


def test_the_send_log_names_a_request_sent_twice():
    """What a test counting sends prints when its count is off (tests/support/sends.py): each
    request sent more than once, with how many times, read from the client's own log lines."""
    log = logging.getLogger("rates_xl.client")
    with recording_sends() as sends:
        for line in ("GET /v1/swap/rate a=1", "GET /v1/fx/spot b=2", "GET /v1/swap/rate a=1", "retrying after 429 x"):
            log.debug(line)
    assert len(sends.sent) == 3 and sends.count_retries("429") == 1
    assert sends.repeated() == {"GET /v1/swap/rate a=1": 2}
