"""The network as the client sees it, as `rates-xl doctor` checks it: which certificate store
verifies the service, which proxy carries the request, whether a TLS handshake with the
service succeeds, the base URL answering at all (`probe`, which the ribbon's Status uses
too), and one real request through the client (`swap_rate_tenors` for SOFR).
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from rates_xl.addin.doctor_check import FAIL, OK, WARN, Check


@dataclass(frozen=True)
class Reachability:
    reachable: bool
    summary: str


#: Where the probe asks: an endpoint every rates service has. Without a key or parameters it
#: answers 403 or 422; a 404 there means the base URL is not the service's root.
PROBE_PATH = "/v1/swap_rate_tenors"


def probe(base_url: str, timeout: float = 5.0, trust_store: str = "os") -> Reachability:
    """Does the rates service answer HTTP at the base URL? Any status but 404 at PROBE_PATH
    counts as reachable. Sent the way the client sends (its certificate store, the same
    proxies), without the key."""
    import requests

    from rates_xl.client.settings import base_url_problem
    from rates_xl.client.transport import HTTPTransport

    problem = base_url_problem(base_url)
    if problem:  # not a URL, or one that programs read as two places (client/urls.py)
        return Reachability(False, problem)
    started = time.perf_counter()
    transport = HTTPTransport(base_url, None, pool_size=1, trust_store=trust_store)
    try:
        response = transport.session.get(base_url.rstrip("/") + PROBE_PATH, timeout=timeout,
                                         allow_redirects=False)
    except requests.exceptions.InvalidURL:
        return Reachability(False, f"not a valid URL: {base_url}")
    except requests.exceptions.MissingSchema:
        return Reachability(False, f"not a valid URL (no http:// or https://): {base_url}")
    except requests.exceptions.SSLError:
        return Reachability(False, "TLS handshake failed (see the tls check)")
    except requests.exceptions.Timeout:
        return Reachability(False, f"no answer within {timeout:g} s")
    except requests.exceptions.ConnectionError as exc:
        reason = "connection refused" if "refused" in str(exc).lower() else "cannot connect"
        return Reachability(False, reason)
    except requests.exceptions.RequestException as exc:
        return Reachability(False, type(exc).__name__)
    finally:
        transport.close()
    elapsed = (time.perf_counter() - started) * 1000
    response.close()
    if response.status_code == 404:
        return Reachability(False, f"answers, but HTTP 404 at {PROBE_PATH}: this is not the rates "
                                   "service's root")
    return Reachability(True, f"reachable (HTTP {response.status_code} in {elapsed:.0f} ms)")


def configured_trust_store() -> str:
    """RATES_TRUST_STORE as the client reads it ("os" when unset or unreadable)."""
    value = os.environ.get("RATES_TRUST_STORE", "os").strip().lower()
    return value if value in ("os", "certifi") else "os"


def check_certificates(trust_store: str) -> Check:
    """Which certificate store verifies the service (and any bundle the environment adds)."""
    from rates_xl.client.transport import os_trust_context

    extra = [f"{name}={os.environ[name]}" for name in ("REQUESTS_CA_BUNDLE", "SSL_CERT_FILE")
             if os.environ.get(name)]
    added = f"; also {', '.join(extra)}" if extra else ""
    if trust_store == "os" and os_trust_context() is not None:
        from importlib import metadata

        return Check("certificates", OK, "the operating system's store (truststore "
                     f"{metadata.version('truststore')}), as the browser uses{added}")
    import certifi

    why = ("RATES_TRUST_STORE=certifi" if trust_store == "certifi"
           else "truststore is not installed")
    return Check("certificates", WARN, f"certifi's bundle at {certifi.where()} ({why}){added}",
                 "a company's TLS-inspection certificate is not in it: unset RATES_TRUST_STORE "
                 "(or pip install truststore) to use the operating system's store")


def proxy_for(url: str) -> tuple[str | None, str]:
    """(the proxy requests will use for `url` or None, where that comes from), exactly as the
    client decides: HTTP(S)_PROXY / NO_PROXY, else the system's settings (urllib's
    getproxies, which reads the Windows registry and macOS System Configuration)."""
    import urllib.request

    from requests.utils import get_environ_proxies, select_proxy

    proxy = select_proxy(url, get_environ_proxies(url))
    environment = urllib.request.getproxies_environment()
    if proxy is None:
        if urllib.request.getproxies() or environment:
            return None, "NO_PROXY or the system's exceptions leave this host out"
        return None, "no proxy set"
    for name, value in os.environ.items():
        if name.lower().endswith("_proxy") and name.lower() != "no_proxy" and value == proxy:
            return proxy, f"from {name}"
    return proxy, "from the system's proxy settings"


def check_proxy(base_url: str) -> Check:
    from rates_xl.functions.messages import scrub

    proxy, source = proxy_for(base_url)
    if proxy is None:
        detail = f"direct to {urlsplit(base_url).netloc} ({source})"
        if sys.platform == "win32":
            detail += "; a proxy from a PAC script is not read: set HTTPS_PROXY if the browser uses one"
        return Check("proxy", OK, detail)
    return Check("proxy", OK, f"{scrub(proxy)} ({source}) for {urlsplit(base_url).netloc}")


def check_tls(base_url: str, timeout: float, trust_store: str) -> Check:
    """A TLS handshake with the service, through the client's own transport (certificate
    store and proxy): the check that fails when a company proxy inspects TLS with a root
    this computer does not trust."""
    import requests

    from rates_xl.client.transport import HTTPTransport, tls_problem

    parts = urlsplit(base_url)
    if parts.scheme != "https":
        return Check("tls", OK, f"not used: {base_url} is plain HTTP")
    host = parts.netloc
    transport = HTTPTransport(base_url, None, pool_size=1, trust_store=trust_store)
    try:
        response = transport.session.get(base_url, timeout=timeout, allow_redirects=False,
                                         stream=True)
        details = _peer_details(response)
        response.close()
    except requests.exceptions.SSLError as exc:
        message, _ = tls_problem(exc, base_url)
        message = message.replace("; a company proxy inspecting TLS? run rates-xl doctor", "")
        return Check("tls", FAIL, f"handshake with {host} failed: {message}", _tls_fix(str(exc), trust_store))
    except requests.exceptions.ProxyError as exc:
        return Check("tls", FAIL, f"the proxy did not connect us to {host} ({type(exc).__name__})",
                     "check HTTPS_PROXY (or the system's proxy settings) and the proxy's login")
    except requests.exceptions.RequestException as exc:
        reason = "no answer in time" if isinstance(exc, requests.exceptions.Timeout) else (
            "connection refused" if "refused" in str(exc).lower() else "cannot connect")
        return Check("tls", FAIL, f"no handshake with {host}: {reason}",
                     "check the network, a firewall or a proxy (HTTPS_PROXY), and RATES_BASE_URL")
    finally:
        transport.close()
    return Check("tls", OK, f"handshake with {host} succeeded{details}")


def _peer_details(response) -> str:
    """', TLSv1.3, certificate issued by X' when the socket tells (best effort)."""
    try:
        sock = response.raw.connection.sock
        cert = sock.getpeercert() or {}
        issuer = dict(pair for rdn in cert.get("issuer", ()) for pair in rdn)
        name = issuer.get("organizationName") or issuer.get("commonName")
        return f", {sock.version()}" + (f", certificate issued by {name}" if name else "")
    except Exception:  # a detail only: never fail the check over it
        return ""


def _tls_fix(error_text: str, trust_store: str) -> str:
    text = error_text.lower()
    if "certificate verify failed" in text and ("hostname" in text or "ip address mismatch" in text):
        return ("the certificate is for another host: check RATES_BASE_URL; if a proxy inspects "
                "TLS, ask IT to exempt the service's host")
    if "certificate verify failed" in text:
        if "expired" in text:
            return "the certificate has expired, or this computer's clock is wrong: check the date"
        if trust_store == "certifi":
            return ("unset RATES_TRUST_STORE to use the operating system's store, where IT installs "
                    "the company's TLS-inspection certificate")
        return ("if your company inspects TLS, its root certificate must be in this computer's "
                "store (IT installs it; the browser then trusts it too), or save it as a .pem "
                "file and set REQUESTS_CA_BUNDLE to its path")
    return "a proxy or firewall interfering with TLS? set HTTPS_PROXY, or ask IT to allow the host"


def check_reachable(base_url: str, timeout: float, trust_store: str = "os") -> Check:
    reach = probe(base_url, timeout, trust_store)
    if reach.reachable:
        return Check("service", OK, f"{base_url}: {reach.summary}")
    if "HTTP 404" in reach.summary:
        return Check("service", FAIL, f"{base_url}: {reach.summary}",
                     "set RATES_BASE_URL (or --base-url) to the service's root, e.g. "
                     "https://api.bluegamma.io (without /v1)")
    return Check("service", FAIL, f"{base_url}: {reach.summary}",
                 "check the network, a proxy (HTTPS_PROXY) or RATES_BASE_URL")


def check_request(base_url: str, timeout: float) -> Check:
    from rates_xl.client import AuthError, RatesClient, RatesError

    try:
        with RatesClient(base_url=base_url, timeout=timeout, max_attempts=1,
                         deadline=timeout * 2) as client:
            answer = client.swap_rate_tenors(index="SOFR")
    except AuthError as exc:
        from rates_xl.client.api_key import how_to_set_key

        how = how_to_set_key()
        fix = {"missing": f"set a key {how}",
               "invalid": f"the key is wrong: set the right one {how}",
               "expired": f"the trial has ended: renew the subscription, then set the key {how}"}
        from rates_xl.functions.messages import PREFIX, message_for

        words = message_for(exc).removeprefix(PREFIX).strip()  # the cells' words
        return Check("test request", FAIL, f"swap_rate_tenors(SOFR): {words}",
                     fix.get(exc.reason, "check the key's permissions with the provider"))
    except RatesError as exc:
        return Check("test request", FAIL, f"swap_rate_tenors(SOFR): {exc}",
                     "see the message; rates-xl call swap_rate_tenors index=SOFR shows the answer")
    except Exception as exc:  # a settings problem (e.g. a bad RATES_TIMEOUT) lands here
        return Check("test request", FAIL, f"could not make the request: {type(exc).__name__}: {exc}",
                     "check the RATES_* environment variables")
    tenors = answer.tenors
    shown = ", ".join(tenors[:6]) + (", ..." if len(tenors) > 6 else "")
    return Check("test request", OK, f"swap_rate_tenors(SOFR): {len(tenors)} tenors ({shown})")
