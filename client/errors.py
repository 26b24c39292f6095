"""The client's exception tree: one base class, one subclass per kind of failure.

Every error carries the HTTP status (None when no answer arrived), the endpoint and the
service's `detail` (a string, or the list of validation errors). Messages are written for
people and never contain the API key.
"""

from __future__ import annotations

from typing import TypedDict, Unpack

from rates_xl.client.json_types import JSONValue
from rates_xl.errors import RatesXlError


class ErrorFields(TypedDict, total=False):
    """What every `RatesError` takes besides its message (a subclass's `**fields`)."""

    status: int | None
    endpoint: str | None
    detail: JSONValue


class RatesError(RatesXlError):
    """Base class of every error the rates client raises."""

    status: int | None = None
    #: False when another attempt cannot help (see `is_retryable`).
    retryable: bool = True

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        endpoint: str | None = None,
        detail: JSONValue = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        self.endpoint = endpoint
        self.detail = detail

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status!r}, endpoint={self.endpoint!r}, message={self.message!r})"


class BadRequest(RatesError):
    """400: the service refused the parameters."""

    status = 400


class AuthError(RatesError):
    """403: the key is missing, invalid, an expired trial, or not permitted this request."""

    status = 403

    def __init__(self, message: str, *, reason: str = "refused",
                 refused: dict[str, str] | None = None, **fields: Unpack[ErrorFields]) -> None:
        super().__init__(message, **fields)
        #: one of "missing", "invalid", "expired", "trial_past_data", "refused"
        self.reason = reason
        #: for "trial_past_data" when the client knows: the refused parameters as sent
        #: (service names, e.g. {"valuation_time": "2025-06-02T16:00:00Z"})
        self.refused = refused or {}


class NotFound(RatesError):
    """404: no data for that request (no fixing that day, no tenors for the index)."""

    status = 404


class Unprocessable(RatesError):
    """422: well-formed but not meaningful, e.g. an index name the service does not know."""

    status = 422


class RateLimited(RatesError):
    """429 after every retry, or the local limiter could not admit the call in time."""

    status = 429

    def __init__(self, message: str, *, retry_after: float | None = None, **fields: Unpack[ErrorFields]) -> None:
        super().__init__(message, **fields)
        self.retry_after = retry_after


class ServerError(RatesError):
    """5xx after every retry."""

    def __init__(self, message: str, *, retry_after: float | None = None, **fields: Unpack[ErrorFields]) -> None:
        super().__init__(message, **fields)
        self.retry_after = retry_after


class ServiceUnavailable(RatesError):
    """No answer: connection refused or reset, DNS failure, timeout, deadline spent."""

    #: True when the network path failed (timeout, DNS, TLS, a reset or dropped connection):
    #: what the circuit breaker counts. A refused connection is not one: it costs no time,
    #: so it is simply not retried. Neither is a spent deadline (no attempt was made).
    transport_failure: bool = False


class NetworkDown(ServiceUnavailable):
    """The circuit breaker is open: the last few attempts all failed on the network, so calls
    fail at once until `retry_at` (a time.time() moment) instead of each waiting out its
    timeouts. `cause` is the last transport failure in plain words."""

    retryable = False

    def __init__(self, message: str, *, cause: str, retry_at: float, failures: int,
                 **fields: Unpack[ErrorFields]) -> None:
        super().__init__(message, **fields)
        self.cause = cause
        self.retry_at = retry_at
        self.failures = failures


class InvalidResponse(RatesError):
    """An answer that is not JSON, or not the documented shape."""


class NonFiniteNumber(InvalidResponse):
    """A number in the answer (or computed from it for a cell) that is NaN or infinite: never
    shown as a value. The message names the field."""

    retryable = False


class Redirected(RatesError):
    """A redirect the client does not follow: to another origin (scheme, host or port; the
    API key would go there), or one too many in a row (a loop). `target` is where it
    pointed (scheme://host:port, nothing more). Not retried: it would redirect again."""

    retryable = False

    def __init__(self, message: str, *, target: str, **fields: Unpack[ErrorFields]) -> None:
        super().__init__(message, **fields)
        self.target = target


class NotFetched(RatesError):
    """Raised while planning (see `RatesClient.planning`): the answer is not cached yet.

    The request has been recorded; fetch the recorded requests and evaluate again.
    """


#: Which failures are worth another attempt (the interface document: 429 and 5xx; also
#: timeouts and dropped connections).
RETRYABLE = (RateLimited, ServerError, ServiceUnavailable)


def is_retryable(exc: BaseException) -> bool:
    return isinstance(exc, RETRYABLE) and exc.retryable
