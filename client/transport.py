"""One attempt of one request: the `Transport` protocol, and `HTTPTransport`, which sends a
GET and turns the answer into parsed JSON or a typed error.

As in httpx, the client object and the transport layer are apart: `RatesClient` keeps the
cache, coalescing, limiter, breaker, retries and deadlines, and hands each attempt to its
transport (`RatesClient(transport=...)`), which does one thing: send it, or say why it could
not. `HTTPTransport` is the real one; `PackTransport` (pack_replay.py) answers from a market-data
pack; the tests wrap either to inject faults at the attempt (tests/support/faults.py).
Nothing here retries, waits or caches. The API key lives only in the session's default
headers, never in a message.

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
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, NamedTuple, Protocol

import requests
import urllib3
from requests.adapters import HTTPAdapter

from rates_xl.client import errors, urls
from rates_xl.client.deadline import AttemptDeadline, WatchedPools
from rates_xl.client.json_types import JSONValue
from rates_xl.client.redaction import redact

USER_AGENT = "rates-xl"
#: Same-origin redirects followed in one attempt (each one is charged to the limiter).
MAX_REDIRECTS = 3
_REDIRECTS = (301, 302, 303, 307, 308)
#: Bytes read from the network at a time; the size cap and the deadline are checked between.
CHUNK = 64 * 1024


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


def describe_detail(detail: JSONValue) -> str:
    """The service's `detail` in plain words: a string as is, a validation list joined."""
    if detail is None:
        return ""
    if isinstance(detail, str):
        return detail
    if isinstance(detail, list):
        parts = []
        for item in detail:
            if isinstance(item, dict):
                where = item.get("loc", [])
                loc = [str(p) for p in (where if isinstance(where, list) else [where]) if p not in ("query", "body")]
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
    kwargs: dict[str, Any] = {"status": status, "endpoint": endpoint,
                              "detail": detail if detail is not None else detail_text}
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
        self.poolmanager.pool_classes_by_scheme = WatchedPools  # see deadline.py

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        if self._ssl_context is not None:
            proxy_kwargs["ssl_context"] = self._ssl_context
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if not proxy.lower().startswith("socks"):  # SOCKS pools have their own connections
            manager.pool_classes_by_scheme = WatchedPools
        return manager

    def cert_verify(self, conn: Any, url: str, verify: Any, cert: Any) -> None:
        super().cert_verify(conn, url, verify, cert)
        if verify is True and self._ssl_context is not None:
            # requests would also load certifi's bundle into our context (on every new
            # connection): the OS store alone is what "use the system's certificates" means.
            # A bundle given as REQUESTS_CA_BUNDLE (verify is then its path) is still loaded.
            conn.ca_certs = conn.ca_cert_dir = None


class Answer(NamedTuple):
    """A 200 answer: its parsed JSON, and its text exactly as the service sent it."""

    payload: JSONValue
    text: str


class Transport(Protocol):
    """What `RatesClient` sends each attempt through (httpx's transport, for one service).

    `fetch` makes one attempt of the GET `path?params` for `endpoint` (a name of the endpoint
    table) within `timeout` seconds in all, calling `before_redirect(url)` before following a
    same-origin redirect (the client charges it to its limiter). It returns the `Answer`, or
    raises a `RatesError` subclass (client/errors.py): a `ServiceUnavailable` with
    `transport_failure` set when no HTTP answer arrived because of the network path (the
    breaker counts those), any other when the service answered (a 4xx, a 429, a 5xx, a body
    that is not its JSON). It never retries or waits: the client does."""

    def fetch(self, endpoint: str, path: str, params: dict[str, str], timeout: float, *,
              before_redirect: Callable[[str], None] | None = None) -> Answer: ...

    def close(self) -> None: ...


class HTTPTransport:
    """The real `Transport`: a pooled requests.Session with the key in its headers, one GET
    per call.

    requests' own redirect handling is off: it would send the key (in `x-api-key`; it only
    strips `Authorization`) to whatever host a redirect names, and follow up to 30 hops
    that no limiter sees. Here a redirect is read with the connection's own parser
    (urls.py): one that parsers could read as two places is refused, one to another origin
    (scheme, host, port) is an error naming it, and a same-origin one is followed at most
    MAX_REDIRECTS times, each hop announced to `before_redirect` so the client charges it to
    the limiter, and sent to the configured origin itself with the Location's path and
    query: the key goes nowhere else, whatever the Location's spelling.
    """

    def __init__(self, base_url: str, api_key: str | None, pool_size: int = 32,
                 trust_store: str = "os", max_bytes: int = 16 << 20) -> None:
        self.base_url = base_url.rstrip("/")
        #: Where the key goes, and nowhere else (urls.Ambiguous for a root read two ways).
        self.origin = urls.origin(self.base_url)
        self._secret = api_key
        #: Largest answer read; a larger one is refused (and not retried).
        self.max_bytes = max_bytes
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

    def fetch(self, endpoint: str, path: str, params: dict[str, str], timeout: float, *,
              before_redirect: Callable[[str], None] | None = None) -> Answer:
        """One GET: the parsed JSON and its text as sent (for the market-data pack), or a
        typed error, within `timeout` seconds in all
        (connecting, redirects, headers and the whole body). A `ServiceUnavailable` with
        `transport_failure` set means no HTTP answer arrived because of the network path."""
        url: str = self.base_url + path
        query: dict[str, str] | None = params
        with AttemptDeadline(timeout) as deadline:
            for hop in range(MAX_REDIRECTS + 1):
                response = self._send(endpoint, url, query, deadline)
                location = response.headers.get("location")
                if response.status_code not in _REDIRECTS or not location:
                    break
                response.close()
                url, query = self._redirect_target(endpoint, response, location, hop), None
                if before_redirect is not None:
                    before_redirect(url)
            try:
                data = self._read_body(endpoint, response, deadline)
            finally:
                response.close()
        body = redact(_decode(data, response.encoding), self._secret)
        if response.status_code != 200:
            raise error_from_response(
                endpoint, response.status_code, body, response.headers.get("content-type", ""),
                parse_retry_after(response.headers.get("Retry-After")), params,
            )
        try:
            return Answer(json.loads(body), body)  # redacted too: a result never needs the key
        except ValueError:
            kind = "an HTML page" if "<html" in body[:500].lower() else "text that is not JSON"
            raise errors.InvalidResponse(
                f"the service answered {kind} instead of JSON", status=200, endpoint=endpoint
            ) from None

    def _send(self, endpoint: str, url: str, query: dict[str, str] | None,
              deadline: AttemptDeadline) -> requests.Response:
        """Send one request and read its headers, within what is left of the deadline."""
        left = deadline.remaining()
        if left <= 0:
            raise self._too_slow(endpoint, deadline, None)
        try:
            return self.session.get(url, params=query, timeout=left, stream=True, allow_redirects=False)
        except requests.RequestException as exc:
            if deadline.expired:
                raise self._too_slow(endpoint, deadline, None) from None
            raise self._unreachable(endpoint, exc, deadline.seconds) from None

    def _redirect_target(self, endpoint: str, response: requests.Response, location: str,
                         hop: int) -> str:
        """Where a redirect points, if the client may follow it; else a `Redirected` error.
        A followed redirect goes to the configured origin, written as configured: only the
        Location's path and query are taken."""
        status = response.status_code
        try:
            target = urls.resolve(response.url, location)
        except urls.Ambiguous as exc:
            raise errors.Redirected(
                f"the service redirected to an address parsers read as different places ({exc}): "
                f"not followed, so the API key was not sent there (it goes to {self.origin} only)",
                status=status, endpoint=endpoint, target="an ambiguous address") from None
        there = urls.origin(target)
        if there != self.origin:
            raise errors.Redirected(
                f"the service redirected to another host, {there}: not followed, "
                f"so the API key was not sent there (it goes to {self.origin} "
                "only); if the service has moved, set RATES_BASE_URL to its new address",
                status=status, endpoint=endpoint, target=str(there))
        if hop == MAX_REDIRECTS:
            raise errors.Redirected(
                f"the service redirected more than {MAX_REDIRECTS} times in a row (a redirect "
                "loop?): not followed further", status=status, endpoint=endpoint, target=str(there))
        return f"{self.origin}{urls.request_target(target)}"

    def _read_body(self, endpoint: str, response: requests.Response, deadline: AttemptDeadline) -> bytes:
        """The whole body, read as it arrives: refused past `max_bytes` (without reading it
        at all when its length is declared), abandoned when the deadline passes. read1
        returns what has arrived (requests' iter_content waits for a full chunk), so a
        trickle is counted byte by byte and the message can say how much came."""
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            raise self._too_big(endpoint, response.status_code)
        body = bytearray()
        try:
            while chunk := response.raw.read1(CHUNK, decode_content=True):
                body += chunk
                if len(body) > self.max_bytes:
                    raise self._too_big(endpoint, response.status_code)
                if deadline.remaining() < 0:
                    raise self._too_slow(endpoint, deadline, len(body), declared)
        except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as exc:
            if deadline.expired or deadline.remaining() < 0:
                raise self._too_slow(endpoint, deadline, len(body), declared) from None
            raise self._unreachable(endpoint, _as_requests_error(exc), deadline.seconds) from None
        response.raw.release_conn()  # read to the end: the connection can serve the next one
        return bytes(body)

    def _too_big(self, endpoint: str, status: int) -> errors.InvalidResponse:
        # Not retryable: the same answer would be read again, to be refused again.
        return errors.InvalidResponse(
            f"the service's answer is larger than {self.max_bytes / 2**20:g} MB "
            "(RATES_MAX_ANSWER_MB): refused, not read",
            status=status, endpoint=endpoint)

    def _too_slow(self, endpoint: str, deadline: AttemptDeadline, received: int | None,
                  declared: str = "") -> errors.ServiceUnavailable:
        """The deadline passed: before the headers arrived, or while the body trickled in."""
        seconds = _seconds(deadline.seconds)
        if received is None:
            message = f"no answer from the service within {seconds} s"
        else:
            of = f" of {int(declared):,}" if declared.isdigit() else ""
            message = f"the service sent its answer too slowly: {received:,}{of} bytes in {seconds} s"
        error = errors.ServiceUnavailable(message, endpoint=endpoint)
        error.transport_failure = True
        return error

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


def _as_requests_error(exc: BaseException) -> requests.RequestException:
    """A failure while reading the body, as requests would have raised it (so `_unreachable`
    words it like any other): a dropped connection is a ConnectionError."""
    if isinstance(exc, requests.RequestException):
        return exc
    if isinstance(exc, urllib3.exceptions.ReadTimeoutError | TimeoutError):
        return requests.ReadTimeout(str(exc))
    return requests.ConnectionError(str(exc))


def _decode(data: bytes, encoding: str | None) -> str:
    """The body as text, in the encoding the headers name (requests' rules), else UTF-8."""
    try:
        return data.decode(encoding or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return data.decode("utf-8", errors="replace")


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
