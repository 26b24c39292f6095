"""`rates-xl doctor`'s network checks (issue 11, point 4): which certificate store and proxy
the client uses for the service URL, and whether a TLS handshake with it succeeds, with a fix
for each failure. Against an HTTPS service on 127.0.0.1 whose certificate comes from a
throwaway root (trustme), standing in for a company's TLS-inspection certificate."""

from __future__ import annotations

import pytest

from rates_xl.addin import doctor_check, doctor_network
from tests.client.test_tls import PROXY_ENV, TLS_ENV
from tests.client.tlsserver import https_service


@pytest.fixture(autouse=True)
def _clean_network_env(monkeypatch):
    for name in (*TLS_ENV, *PROXY_ENV, "RATES_TRUST_STORE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def service(tmp_path):
    with https_service(tmp_path) as running:
        yield running


def test_an_untrusted_company_root_fails_the_tls_check_with_a_fix(service):
    check = doctor_network.check_tls(service.base_url, 5.0, "os")
    host = service.base_url.removeprefix("https://")
    assert check.state == doctor_check.FAIL
    assert check.detail == (f"handshake with {host} failed: the certificate of {service.base_url} "
                            "is not trusted (unable to get local issuer certificate)")
    assert "its root certificate must be in this computer's store" in check.fix
    assert "REQUESTS_CA_BUNDLE" in check.fix


def test_once_the_root_is_in_the_os_store_the_handshake_succeeds_and_names_the_issuer(
        service, monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(service.ca_pem))
    check = doctor_network.check_tls(service.base_url, 5.0, "os")
    assert check.state == doctor_check.OK, check
    assert check.detail.startswith(f"handshake with {service.base_url.removeprefix('https://')} succeeded, TLSv1.")
    assert check.detail.endswith("certificate issued by Example Corp TLS Inspection")


def test_with_certifi_the_fix_is_to_use_the_os_store(service, monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(service.ca_pem))
    check = doctor_network.check_tls(service.base_url, 5.0, "certifi")
    assert check.state == doctor_check.FAIL
    assert check.fix.startswith("unset RATES_TRUST_STORE to use the operating system's store")


def test_a_certificate_for_another_host_says_so(tmp_path, monkeypatch):
    with https_service(tmp_path, names=("rates.example.com",)) as other:
        monkeypatch.setenv("SSL_CERT_FILE", str(other.ca_pem))
        check = doctor_network.check_tls(other.base_url, 5.0, "os")
    assert check.state == doctor_check.FAIL
    assert check.fix.startswith("the certificate is for another host: check RATES_BASE_URL")


def test_nothing_listening_fails_the_tls_check_with_a_network_fix():
    from tests.support.sandbox import free_port

    check = doctor_network.check_tls(f"https://127.0.0.1:{free_port()}", 2.0, "os")
    assert check.state == doctor_check.FAIL and check.detail.endswith("connection refused")
    assert "firewall" in check.fix


def test_plain_http_needs_no_tls():
    check = doctor_network.check_tls("http://127.0.0.1:8765", 2.0, "os")
    assert (check.state, check.detail) == (doctor_check.OK, "not used: http://127.0.0.1:8765 is plain HTTP")


def test_the_certificate_store_in_use(monkeypatch):
    check = doctor_network.check_certificates(doctor_network.configured_trust_store())
    assert check.state == doctor_check.OK
    assert check.detail.startswith("the operating system's store (truststore ")
    monkeypatch.setenv("RATES_TRUST_STORE", "certifi")
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", "/etc/company-root.pem")
    check = doctor_network.check_certificates(doctor_network.configured_trust_store())
    assert check.state == doctor_check.WARN
    assert "certifi's bundle at " in check.detail and "(RATES_TRUST_STORE=certifi)" in check.detail
    assert check.detail.endswith("; also REQUESTS_CA_BUNDLE=/etc/company-root.pem")
    assert "unset RATES_TRUST_STORE" in check.fix


def test_the_proxy_in_use_and_where_it_comes_from(monkeypatch):
    url = "https://api.bluegamma.io"
    assert doctor_network.check_proxy(url).detail == "direct to api.bluegamma.io (no proxy set)"
    monkeypatch.setenv("HTTPS_PROXY", "http://alice:s3cret@proxy.corp.example:3128")
    check = doctor_network.check_proxy(url)
    assert check.state == doctor_check.OK
    assert check.detail == "http://proxy.corp.example:3128 (from HTTPS_PROXY) for api.bluegamma.io"
    assert "s3cret" not in check.detail  # a proxy password never reaches the screen
    monkeypatch.setenv("NO_PROXY", ".bluegamma.io")
    assert doctor_network.check_proxy(url).detail == (
        "direct to api.bluegamma.io (NO_PROXY or the system's exceptions leave this host out)")


def test_doctor_end_to_end_names_the_tls_failure_and_its_fix(cli, paths, keychain, service):
    code, out, _ = cli("doctor", "--base-url", service.base_url, "--timeout", "3")
    assert code == 1
    assert "] tls " in out and "is not trusted (unable to get local issuer certificate)" in out
    assert "fix: if your company inspects TLS" in out
    assert "[  ok] certificates" in out and "[  ok] proxy" in out
