"""Corporate networks (issue 11, point 4): the operating system's certificate store and the
usual proxy settings, against an HTTPS service on 127.0.0.1 whose certificate comes from a
throwaway root (trustme) standing in for a company's TLS-inspection certificate.

On Linux "the OS store" is OpenSSL's system store, which SSL_CERT_FILE replaces: that is how
these tests put the company root into it or leave it out. On Windows and macOS truststore
asks the OS itself (the store where IT installs such a root); only Excel's machines show that.
"""

from __future__ import annotations

import pytest

from rates_xl.client import NetworkDown, RatesClient, ServiceUnavailable
from rates_xl.functions import FUNCTIONS, set_client
from rates_xl.functions.messages import MAX_LENGTH
from tests.client.conftest import SECRET
from tests.client.connectproxy import ConnectProxy
from tests.client.tlsserver import https_service

TLS_ENV = ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")
PROXY_ENV = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy",
             "NO_PROXY", "no_proxy")


@pytest.fixture(autouse=True)
def _clean_network_env(monkeypatch):
    for name in (*TLS_ENV, *PROXY_ENV, "RATES_TRUST_STORE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def service(tmp_path):
    with https_service(tmp_path) as running:
        yield running


def client_for(service, **settings) -> RatesClient:
    return RatesClient(base_url=service.base_url, api_key=SECRET, backoff=0.01, max_backoff=0.05,
                       **settings)


def test_an_untrusted_certificate_says_so_and_is_not_retried(service):
    with client_for(service) as client:
        with pytest.raises(ServiceUnavailable) as caught:
            client.fx_spot("EURUSD")
        assert client.stats()["requests_sent"] == 1  # retrying cannot make it trusted
    text = str(caught.value)
    assert text == (f"the certificate of {service.base_url} is not trusted (unable to get local "
                    "issuer certificate); a company proxy inspecting TLS? run rates-xl doctor")
    assert service.hits == []


def test_the_cell_says_the_certificate_is_not_trusted(service):
    with client_for(service) as client:
        set_client(client)
        try:
            answer = FUNCTIONS["RATES_FXSPOT"].core("EURUSD")
        finally:
            set_client(None)
    assert answer.startswith("#RATES! service unreachable: the certificate of https://127.0.0.1:")
    assert "is not trusted" in answer and "rates-xl doctor" in answer and len(answer) <= MAX_LENGTH


def test_the_os_store_trusts_the_company_root_once_it_is_there(service, monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(service.ca_pem))  # the "OS store" now holds it
    with client_for(service) as client:
        assert client._transport.trust_store == "os"
        assert client.fx_spot("EURUSD").rate == pytest.approx(1.17732)
    assert service.hits == ["/v1/fx"]


def test_certifi_alone_does_not_know_the_company_root(service, monkeypatch):
    """Why the OS store is the default: requests' bundled list ignores what IT installed."""
    monkeypatch.setenv("SSL_CERT_FILE", str(service.ca_pem))
    with client_for(service, trust_store="certifi") as client:
        assert client._transport.trust_store == "certifi"
        with pytest.raises(ServiceUnavailable, match="is not trusted"):
            client.fx_spot("EURUSD")


@pytest.mark.parametrize("trust_store", ["os", "certifi"])
def test_a_bundle_named_by_requests_ca_bundle_is_trusted_too(service, monkeypatch, trust_store):
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(service.ca_pem))
    with client_for(service, trust_store=trust_store) as client:
        assert client.fx_spot("EURUSD").rate == pytest.approx(1.17732)


def test_requests_go_through_the_proxy_from_https_proxy_with_tls_verified_end_to_end(
        service, monkeypatch):
    proxy = ConnectProxy()
    try:
        monkeypatch.setenv("HTTPS_PROXY", proxy.url)
        port = service.base_url.rsplit(":", 1)[1]
        with client_for(service) as client:
            # Through the proxy, the service's certificate is still checked against the OS store.
            with pytest.raises(ServiceUnavailable, match="is not trusted"):
                client.fx_spot("EURUSD")
            monkeypatch.setenv("SSL_CERT_FILE", str(service.ca_pem))
            assert client.fx_spot("GBPUSD").rate == pytest.approx(1.17732)
        assert proxy.targets == [f"127.0.0.1:{port}", f"127.0.0.1:{port}"]
        # NO_PROXY names the hosts that bypass it.
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        with client_for(service) as client:
            assert client.fx_spot("USDJPY").rate == pytest.approx(1.17732)
        assert len(proxy.targets) == 2
    finally:
        proxy.stop()


def test_an_untrusted_certificate_counts_towards_the_breaker(service):
    with client_for(service, breaker_failures=2) as client:
        for pair in ("EURUSD", "GBPUSD"):
            with pytest.raises(ServiceUnavailable, match="is not trusted"):
                client.fx_spot(pair)
        with pytest.raises(NetworkDown, match="is not trusted"):
            client.fx_spot("USDJPY")
        assert client.stats()["requests_sent"] == 2


def test_the_system_proxy_is_used_when_no_variable_is_set(service, monkeypatch):
    """On Windows urllib's getproxies() reads the registry (Internet Options) when no
    *_PROXY variable is set, and requests asks it for every request. Linux has no registry:
    stand in for that one function, and let everything else run for real."""
    import urllib.request

    import requests.utils

    proxy = ConnectProxy()
    try:
        system = lambda: {"https": proxy.url, "http": proxy.url}  # noqa: E731
        monkeypatch.setattr(requests.utils, "getproxies", system)
        monkeypatch.setattr(urllib.request, "getproxies", system)
        monkeypatch.setenv("SSL_CERT_FILE", str(service.ca_pem))
        with client_for(service) as client:
            assert client.fx_spot("EURUSD").rate == pytest.approx(1.17732)
        assert proxy.targets == [service.base_url.removeprefix("https://")]

        from rates_xl.addin import doctor_network

        assert doctor_network.check_proxy(service.base_url).detail == (
            f"{proxy.url} (from the system's proxy settings) for {service.base_url.removeprefix('https://')}")
    finally:
        proxy.stop()
