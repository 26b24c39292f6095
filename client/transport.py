"""One HTTP attempt: send a GET, turn the answer into parsed JSON or a typed error.

Nothing here retries, waits or caches; `RatesClient` does that around `Transport.get`.
The API key lives only in the session's default headers, never in a message.
"""

from __future__ import annotations

import email.utils
import json
import re
import time
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
                        retry_after: float | None) -> errors.RatesError:
    """The typed error for a non-200 answer (`body` already redacted)."""
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
        return errors.AuthError(f"403 {_AUTH_ADVICE[reason]} ({detail_text})", reason=reason, **kwargs)
    if status == 429:
        wait = f"; retry after {retry_after:g} s" if retry_after is not None else ""
        return errors.RateLimited(f"429 rate limit exceeded{wait}", retry_after=retry_after, **kwargs)
    if status >= 500:
        return errors.ServerError(f"{status} service error: {detail_text}", retry_after=retry_after, **kwargs)
    cls = _STATUS_CLASSES.get(status, errors.BadRequest)
    return cls(f"{status} {detail_text}", **kwargs)


class Transport:
    """A pooled requests.Session with the key in its headers, one GET per call."""

    def __init__(self, base_url: str, api_key: str | None, pool_size: int = 32) -> None:
        self.base_url = base_url.rstrip("/")
        self._secret = api_key
        self.session = requests.Session()
        # Retries are the client's (they must take a token from the shared limiter).
        adapter = HTTPAdapter(pool_connections=4, pool_maxsize=pool_size, max_retries=0)
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)
        self.session.headers["User-Agent"] = USER_AGENT
        self.session.headers["Accept"] = "application/json"
        if api_key:
            self.session.headers["x-api-key"] = api_key

    def get(self, endpoint: str, path: str, params: dict[str, str], timeout: float) -> Any:
        url = self.base_url + path
        try:
            response = self.session.get(url, params=params, timeout=timeout)
        except requests.Timeout:
            raise errors.ServiceUnavailable(
                f"no answer from the service within {timeout:g} s", endpoint=endpoint
            ) from None
        except requests.ConnectionError as exc:
            reason = _connection_reason(exc)
            error = errors.ServiceUnavailable(
                f"cannot reach the service at {self.base_url} ({reason})", endpoint=endpoint
            )
            # Nothing listens there: another try within seconds gets the same answer, and
            # a sheet full of cells should say so at once instead of each backing off.
            error.retryable = reason != "connection refused"
            raise error from None
        except requests.RequestException as exc:
            raise errors.ServiceUnavailable(
                f"request failed: {type(exc).__name__}", endpoint=endpoint
            ) from None
        body = redact(response.text, self._secret)
        if response.status_code != 200:
            raise error_from_response(
                endpoint, response.status_code, body, response.headers.get("content-type", ""),
                parse_retry_after(response.headers.get("Retry-After")),
            )
        try:
            return json.loads(body)  # redacted too: a result never needs the key
        except ValueError:
            kind = "an HTML page" if "<html" in body[:500].lower() else "text that is not JSON"
            raise errors.InvalidResponse(
                f"the service answered {kind} instead of JSON", status=200, endpoint=endpoint
            ) from None

    def close(self) -> None:
        self.session.close()


def _connection_reason(exc: Exception) -> str:
    text = str(exc).lower()
    if "refused" in text:
        return "connection refused"
    if "reset" in text or "aborted" in text:
        return "connection reset"
    if "name or service" in text or "nodename" in text or "resolve" in text:
        return "host name not found"
    return "connection failed"
