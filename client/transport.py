"""One HTTP attempt: send a GET, turn the answer into parsed JSON or a typed error.

Nothing here retries, waits or caches; `RatesClient` does that around `Transport.get`.
The API key lives only in the session's default headers, never in a message.

Corporate networks: certificates are verified against the operating system's store
(truststore), so a company's TLS-inspection root that the browser trusts works here too;
`trust_store="certifi"` falls back to requests' bundled Mozilla list. A bundle named by
REQUESTS_CA_BUNDLE is trusted in addition. Proxies are requests' own: HTTP(S)_PROXY and
NO_PROXY, and where none is set, the system's (urllib's getproxies: the Windows registry's
Internet Settings, macOS System Configuration). PAC scripts are not evaluated.
"""

from __future__ import annotations

import email.utils
import json
import re
import ssl
import time
from datetime import UTC, datetime
from typing import Any

import requests
from requests.adapters import HTTPAdapter

from rates_xl.client import errors

USER_AGENT = "rates-xl"


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def describe_detail(detail: Any) -> str:
    """The service's `detail` in plain words: a string as is, a validation list joined."""
    if detail is None:
        return ""
    if isinstance(detail, str):
        return detail
    if isinstance(detail, list):
        parts = []
        for item in detail:
            if isinstance(item, dict):
                loc = [str(p) for p in item.get("loc", []) if p not in ("query", "body")]
                msg = str(item.get("msg", "")).strip()
                parts.append(f"{'.'.join(loc)}: {msg}" if loc else msg)
            else:
                parts.append(str(item))
        return "; ".join(p for p in parts if p)
    return json.dumps(detail)[:300]


#: What a trial key may not send (the interface document: it rejects both).
TRIAL_REFUSED_PARAMS = ("valuation_time", "valuation_date")


def trial_refused(params: dict[str, str] | None) -> dict[str, str]:
    """The parameters of a request that a trial key refuses, with their values."""
    return {k: v for k, v in (params or {}).items() if k in TRIAL_REFUSED_PARAMS}


def is_past(param: str, value: str) -> bool:
    """Is a normalised valuation_time (…Z) or valuation_date before now?"""
    now = datetime.now(UTC)
    if param == "valuation_date":
        return value < now.strftime("%Y-%m-%d")
    return value < now.strftime("%Y-%m-%dT%H:%M:%SZ")


def trial_advice(refused: dict[str, str]) -> str:
    """What to do when a trial key refused a request that sent `refused` (service names).
    The worksheet's wording, with its argument names, is in functions/messages.py."""
    name = next(iter(refused))
    now = "gives today's fixing" if name == "valuation_date" else "values as of now"
    return f"a trial key cannot ask for past data: leave {name} out (a trial key {now}), or use a paid key"


def auth_reason(detail_text: str) -> str:
    text = detail_text.lower()
    if "trial" in text and ("valuation" in text or "past" in text or "historical" in text):
        return "trial_past_data"
    if "expired" in text:
        return "expired"
    if "missing" in text and "invalid" not in text:
        return "missing"
    if "invalid" in text or "unknown" in text:
        return "invalid"
    return "refused"


_AUTH_ADVICE = {
    "missing": "no API key was sent; set one with `rates-xl key set` or RATES_API_KEY",
    "invalid": "the API key was not accepted; check it, then `rates-xl key set`",
    "expired": "the trial key has expired; set a paid key with `rates-xl key set`",
    "trial_past_data": "a trial key cannot ask for past data; leave valuation_time and "
    "valuation_date out, or use a paid key",
    "refused": "the API key is not permitted this request",
}

_STATUS_CLASSES: dict[int, type[errors.RatesError]] = {
    400: errors.BadRequest,
    403: errors.AuthError,
    404: errors.NotFound,
    422: errors.Unprocessable,
    429: errors.RateLimited,
}


REDACTED = "[api key]"


def redact(value: Any, secret: str | None) -> Any:
    """`value` with every occurrence of the key replaced: some services echo it back."""
    if not secret:
        return value
    if isinstance(value, str):
        return value.replace(secret, REDACTED)
    if isinstance(value, list):
        return [redact(v, secret) for v in value]
    if isinstance(value, dict):
        return {k: redact(v, secret) for k, v in value.items()}
    return value


def error_from_response(endpoint: str, status: int, body: str, content_type: str,
                        retry_after: float | None,
                        params: dict[str, str] | None = None) -> errors.RatesError:
    """The typed error for a non-200 answer (`body` already redacted; `params` as sent)."""
    detail: Any = None
    if "json" in content_type or body.lstrip().startswith("{"):
        try:
            payload = json.loads(body)
            detail = payload.get("detail") if isinstance(payload, dict) else payload
        except ValueError:
            detail = None
    detail_text = describe_detail(detail)
    if not detail_text:
        if "<html" in body[:500].lower():
            detail_text = "the service answered with an HTML page instead of JSON"
        else:
            detail_text = re.sub(r"\s+", " ", body)[:120] or "no detail given"
    kwargs = {"status": status, "endpoint": endpoint, "detail": detail if detail is not None else detail_text}
    if status == 403:
        reason = auth_reason(detail_text)
        refused = trial_refused(params)
        if refused and reason in ("refused", "trial_past_data"):
            # The detail may be as vague as "not permitted"; we know what we sent. Our words
            # say it all, so the service's (kept in .detail) are not repeated after them.
            return errors.AuthError(f"403 {trial_advice(refused)}",
                                    reason="trial_past_data", refused=refused, **kwargs)
        return errors.AuthError(f"403 {_AUTH_ADVICE[reason]} ({detail_text})", reason=reason, **kwargs)
    if status == 429:
        wait = f"; retry after {retry_after:g} s" if retry_after is not None else ""
        return errors.RateLimited(f"429 rate limit exceeded{wait}", retry_after=retry_after, **kwargs)
    if status >= 500:
        return errors.ServerError(f"{status} service error: {detail_text}", retry_after=retry_after, **kwargs)
    cls = _STATUS_CLASSES.get(status, errors.BadRequest)
    return cls(f"{status} {detail_text}", **kwargs)


def os_trust_context() -> ssl.SSLContext | None:
    """An SSL context that verifies against the operating system's certificate store
    (Windows' and macOS' own APIs; OpenSSL's system paths on Linux, which honour
    SSL_CERT_FILE); None when truststore is not installed."""
    try:
        import truststore
    except ImportError:
        return None
    return truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


class _Adapter(HTTPAdapter):
    """requests' adapter with our SSL context, for direct and proxied (CONNECT) requests."""

    def __init__(self, ssl_context: ssl.SSLContext | None, **kwargs: Any) -> None:
        self._ssl_context = ssl_context
        super().__init__(**kwargs)

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        if self._ssl_context is not None:
            kwargs["ssl_context"] = self._ssl_context
        super().init_poolmanager(*args, **kwargs)

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        if self._ssl_context is not None:
            proxy_kwargs["ssl_context"] = self._ssl_context
        return super().proxy_manager_for(proxy, **proxy_kwargs)

    def cert_verify(self, conn: Any, url: str, verify: Any, cert: Any) -> None:
        super().cert_verify(conn, url, verify, cert)
        if verify is True and self._ssl_context is not None:
            # requests would also load certifi's bundle into our context (on every new
            # connection): the OS store alone is what "use the system's certificates" means.
            # A bundle given as REQUESTS_CA_BUNDLE (verify is then its path) is still loaded.
            conn.ca_certs = conn.ca_cert_dir = None


class Transport:
    """A pooled requests.Session with the key in its headers, one GET per call."""

    def __init__(self, base_url: str, api_key: str | None, pool_size: int = 32,
                 trust_store: str = "os") -> None:
        self.base_url = base_url.rstrip("/")
        self._secret = api_key
        self.session = requests.Session()
        context = os_trust_context() if trust_store == "os" else None
        #: "os" (truststore) or "certifi": which certificate store verifies the service.
        self.trust_store = "os" if context is not None else "certifi"
        # Retries are the client's (they must take a token from the shared limiter).
        adapter = _Adapter(context, pool_connections=4, pool_maxsize=pool_size, max_retries=0)
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        self.session.headers["User-Agent"] = USER_AGENT
        self.session.headers["Accept"] = "application/json"
        if api_key:
            self.session.headers["x-api-key"] = api_key

    def get(self, endpoint: str, path: str, params: dict[str, str], timeout: float) -> Any:
        """One GET: parsed JSON, or a typed error. A `ServiceUnavailable` with
        `transport_failure` set means no HTTP answer arrived because of the network path."""
        url = self.base_url + path
        try:
            response = self.session.get(url, params=params, timeout=timeout)
        except requests.RequestException as exc:
            raise self._unreachable(endpoint, exc, timeout) from None
        body = redact(response.text, self._secret)
        if response.status_code != 200:
            raise error_from_response(
                endpoint, response.status_code, body, response.headers.get("content-type", ""),
                parse_retry_after(response.headers.get("Retry-After")), params,
            )
        try:
            return json.loads(body)  # redacted too: a result never needs the key
        except ValueError:
            kind = "an HTML page" if "<html" in body[:500].lower() else "text that is not JSON"
            raise errors.InvalidResponse(
                f"the service answered {kind} instead of JSON", status=200, endpoint=endpoint
            ) from None

    def _unreachable(self, endpoint: str, exc: requests.RequestException,
                     timeout: float) -> errors.ServiceUnavailable:
        """No HTTP answer: say why in plain words, and whether it is the network's fault."""
        retryable, transport_failure = True, True
        if isinstance(exc, requests.ConnectTimeout):
            message = f"no connection to the service within {_seconds(timeout)} s (a firewall dropping it?)"
        elif isinstance(exc, requests.Timeout):
            message = f"no answer from the service within {_seconds(timeout)} s"
        elif isinstance(exc, requests.exceptions.SSLError):
            message, retryable = tls_problem(exc, self.base_url)
        elif isinstance(exc, requests.exceptions.ProxyError):
            message = f"the proxy refused or dropped the connection to {self.base_url}"
        elif isinstance(exc, requests.ConnectionError):
            reason = _connection_reason(exc)
            message = f"cannot reach the service at {self.base_url} ({reason})"
            if reason == "connection refused":
                # Nothing listens there: another try within seconds gets the same answer,
                # and a sheet full of cells should say so at once instead of each backing
                # off. It costs no time either, so the circuit breaker need not count it.
                retryable, transport_failure = False, False
        else:
            message = f"request failed: {type(exc).__name__}"
            transport_failure = False
        error = errors.ServiceUnavailable(message, endpoint=endpoint)
        error.retryable = retryable
        error.transport_failure = transport_failure
        return error

    def close(self) -> None:
        self.session.close()


def _seconds(value: float) -> str:
    """2, 1.9, 0.5, 0.25: a timeout as a person writes it."""
    return f"{value:.1f}".rstrip("0").rstrip(".") if value >= 1 else f"{value:.2g}"


def tls_problem(exc: BaseException, base_url: str) -> tuple[str, bool]:
    """(plain words, worth retrying?) for a failed TLS handshake."""
    text = str(exc)
    found = re.search(r"certificate verify failed: ([^(')\]]+)", text)
    if found:
        # Retrying cannot make an untrusted certificate trusted.
        return (f"the certificate of {base_url} is not trusted ({found.group(1).strip()}); "
                "a company proxy inspecting TLS? run rates-xl doctor"), False
    if "hostname mismatch" in text.lower() or "doesn't match" in text.lower():
        return f"the certificate of {base_url} is for another host name", False
    return f"the TLS handshake with {base_url} failed", True


def _connection_reason(exc: Exception) -> str:
    text = str(exc).lower()
    if "refused" in text:
        return "connection refused"
    if "without response" in text or "remotedisconnected" in text:
        return "connection closed without an answer"
    if "reset" in text or "aborted" in text or "broken pipe" in text:
        return "connection reset"
    if ("name or service" in text or "nodename" in text or "resolve" in text
            or "getaddrinfo" in text or "name resolution" in text):
        return "host name not found by DNS"
    return "connection failed"
