"""The client and its transport layer apart (client/transport.py, as in httpx): every attempt
goes through a `Transport`, the real `HTTPTransport` by default; a test hands in one that
injects faults at the attempt (tests/support/faults.py) over the real one, so the client's
retries and breaker meet the failure exactly where the network would put it."""

import pytest

from rates_xl.client import NetworkDown, RatesClient, ServiceUnavailable
from rates_xl.client.transport import HTTPTransport
from tests.client.conftest import SECRET
from tests.support.faults import FaultyTransport, dropped


def test_by_default_the_client_sends_through_the_real_http_transport(server, make_client):
    client = make_client()
    assert isinstance(client._transport, HTTPTransport)
    assert client.swap_rate("SOFR", "0D", "5Y", "1Y").swap_rate == pytest.approx(3.6412)
    assert server.count() == 1


def test_dropped_attempts_are_retried_and_the_real_transport_answers(server, monkeypatch):
    monkeypatch.delenv("RATES_API_KEY", raising=False)
    faulty = FaultyTransport(HTTPTransport(server.base_url, SECRET), [dropped, dropped])
    with RatesClient(base_url=server.base_url, api_key=SECRET, transport=faulty, backoff=0.01,
                     max_backoff=0.05) as client:
        assert client.swap_rate("SOFR", "0D", "5Y", "1Y").swap_rate == pytest.approx(3.6412)
        assert (faulty.attempts, faulty.passed, server.count()) == (3, 1, 1)
        assert client.stats()["retries"] == 2
        assert server.arrivals[0].headers.get("x-api-key") == SECRET  # the real transport sent it


def test_three_dropped_attempts_open_the_breaker_and_then_no_attempt_reaches_the_transport(server, monkeypatch):
    monkeypatch.delenv("RATES_API_KEY", raising=False)
    faulty = FaultyTransport(HTTPTransport(server.base_url, SECRET), [dropped] * 3)
    with RatesClient(base_url=server.base_url, api_key=SECRET, transport=faulty, max_attempts=1,
                     breaker_failures=3, breaker_cooldown=60) as client:
        for tenor in ("2Y", "5Y", "10Y"):
            with pytest.raises(ServiceUnavailable, match="connection reset by the test"):
                client.swap_rate("SOFR", "0D", tenor, "1Y")
        with pytest.raises(NetworkDown) as caught:
            client.swap_rate("SOFR", "0D", "30Y", "1Y")
        assert caught.value.failures == 3
        assert (faulty.attempts, faulty.passed, server.count()) == (3, 0, 0)


def test_a_service_answer_is_not_a_network_failure(server, monkeypatch):
    """A fault that is an HTTP answer (a 503 the transport read) keeps the breaker closed."""
    monkeypatch.delenv("RATES_API_KEY", raising=False)
    answered = ServiceUnavailable("the service answered 503", endpoint="swap_rate")
    faulty = FaultyTransport(HTTPTransport(server.base_url, SECRET), [answered] * 3)
    with RatesClient(base_url=server.base_url, api_key=SECRET, transport=faulty, max_attempts=1,
                     breaker_failures=3, breaker_cooldown=60) as client:
        for tenor in ("2Y", "5Y", "10Y"):
            with pytest.raises(ServiceUnavailable):
                client.swap_rate("SOFR", "0D", tenor, "1Y")
        assert client.swap_rate("SOFR", "0D", "30Y", "1Y").swap_rate == pytest.approx(3.6412)
        assert (faulty.attempts, faulty.passed, server.count()) == (4, 1, 1)
