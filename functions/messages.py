"""The one place where a failure becomes the text of a cell.

Every worksheet function answers a value or one string starting with `#RATES!`, shorter
than 255 characters (xlwings turns longer strings into #VALUE!). This module writes those
strings:

- bad input:      `#RATES! maturity: '10X' is not a date or a tenor like 10Y`
- service errors: status and the service's detail in plain words, with what to do
  (`#RATES! 403 no API key was sent: set one with rates-xl key set ...`)
- no answer:      `#RATES! service unreachable: cannot reach the service at ...`
- not a number:   `#RATES! the service answered NaN (not a number) for swap_rate: no value is
                  shown rather than a wrong one; ...` (never `nan` or `inf` in a cell)
- network down:   `#RATES! network down: no answer from the service within 2 s, 3 times in a
                  row; not trying again until 10:42:13 (in 10 s) ...` (the circuit breaker)
- anything else:  `#RATES! internal error (KeyError); see the rates-xl log`

Never a traceback, never the API key (scrubbed even if a detail echoes it), never a URL
password.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, TypeGuard

from rates_xl.errors import InputError

if TYPE_CHECKING:
    from pydantic import ValidationError

    from rates_xl.client.errors import NetworkDown

PREFIX = "#RATES!"
MAX_LENGTH = 254  # xlwings writes strings of 255+ characters as #VALUE!
#: What a cell shows while the headless engine plans (the request is recorded, not sent).
PENDING = f"{PREFIX} pending: the answer is being fetched; calculate again"
#: A cell of a spill that has no value by design (a history's Fill=NA): each host shows it
#: as Excel's own #N/A error, which a line chart skips and a SUM does not hide; never as text,
#: which a chart would plot as zero.
NOT_AVAILABLE = "#N/A"

#: The logger an unexpected error is logged to (logging is imported by the first such error).
LOGGER = "rates_xl.functions"


class ArgumentError(InputError):
    """Bad input for one argument of a worksheet function; no request was made."""

    def __init__(self, argument: str, problem: str) -> None:
        super().__init__(f"{argument}: {problem}")
        self.argument = argument
        self.problem = problem


def is_message(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and value.startswith(PREFIX)


def clip(text: str) -> str:
    """One line, shorter than 255 characters."""
    text = " ".join(text.split())
    return text if len(text) <= MAX_LENGTH else text[: MAX_LENGTH - 3] + "..."


_URL_PASSWORD = re.compile(r"(?<=://)[^/@\s]+@")


def scrub(text: str, secret: str | None = None) -> str:
    """Drop the key and any piece of it (should a detail echo it) and any user:password@
    in a URL."""
    from rates_xl.client.redaction import redact_text

    if secret and len(secret) >= 4:
        text = redact_text(text, secret, "***")
    return _URL_PASSWORD.sub("", text)


# 403: what the key problem is, and what to do about it (AuthError.reason -> words);
# {how}: how to set a key on this machine (client/api_key.py decides: keychain or RATES_API_KEY).
_AUTH = {
    "missing": "no API key is set: set one {how}",
    "invalid": "the API key was not accepted: check it, then set it again {how}",
    "expired": "the trial key has expired: set a paid key {how}",
    "trial_past_data": "a trial key cannot ask for past data: leave valuation_time/date "
    "empty, or set a paid key {how}",
    "refused": "the service refused this request for this API key (set another {how})",
}


def _how_to_set_key() -> str:
    try:
        from rates_xl.client.api_key import how_to_set_key

        return how_to_set_key()
    except Exception:  # keyring itself broken: the variable always works
        return "in the environment variable RATES_API_KEY"


def _trial_refusal(refused: dict[str, str]) -> str:
    """A trial key refused what the cell asked for: say which argument, and what to do.
    The client reports the service's parameter names; cells know their own names."""
    from rates_xl.client.transport import is_past

    param, value = next(iter(refused.items()))
    if param == "valuation_date":  # RATES_FIXING's fixing_date
        what = "a past fixing" if is_past(param, value) else "a fixing by date"
        return (f"a trial key cannot ask for {what}: leave fixing_date empty (today's fixing), "
                f"or use a paid key (set it {_how_to_set_key()})")
    when = "as of a past time" if is_past(param, value) else "as of a chosen time"
    return (f"a trial key cannot value {when}: leave {param} empty, "
            f"or use a paid key (set it {_how_to_set_key()})")


def _network_down(exc: NetworkDown) -> str:
    """The circuit breaker is open: the cause, when the client will try again, what to do."""
    import math
    import time

    wait = exc.retry_at - time.time()
    if wait > 0.5:
        clock = time.strftime("%H:%M:%S", time.localtime(exc.retry_at))
        when = f"not trying again until {clock} (in {math.ceil(wait):g} s): calculate again then"
    else:
        when = "one test request is under way: calculate again in a moment"
    cause = " ".join(str(exc.cause).split())
    doctor = "" if "rates-xl doctor" in cause else ", or run rates-xl doctor"
    rest = f", {exc.failures} times in a row; {when}{doctor}"
    head = f"{PREFIX} network down: "
    room = MAX_LENGTH - len(head) - len(rest)
    if len(cause) > room:  # shorten the cause, never when to try again
        cause = cause[: max(0, room - 3)] + "..."
    return head + cause + rest


def _detail(exc: object) -> str:
    """The service's detail in plain words (a validation list becomes 'field: msg; ...')."""
    from rates_xl.client.transport import describe_detail

    detail = getattr(exc, "detail", None)
    text = describe_detail(detail) if detail is not None else ""
    return text or str(exc)


def message_for(exc: BaseException, secret: str | None = None) -> str:
    """The cell text for a failure. `secret` (the API key) is scrubbed if it appears."""
    return clip(scrub(_describe(exc), secret))


def _describe(exc: BaseException) -> str:
    if isinstance(exc, ArgumentError):
        return f"{PREFIX} {exc.argument}: {exc.problem}"
    try:
        from rates_xl.client import errors
    except Exception:  # the client cannot even be imported: say so, nothing more
        return f"{PREFIX} internal error ({type(exc).__name__})"

    if isinstance(exc, errors.NotFetched):
        return PENDING
    if isinstance(exc, errors.AuthError) and getattr(exc, "refused", None):
        return f"{PREFIX} 403 {_trial_refusal(exc.refused)}"
    if isinstance(exc, errors.AuthError):
        advice = _AUTH.get(getattr(exc, "reason", "refused"), _AUTH["refused"])
        advice = advice.format(how=_how_to_set_key())
        detail = _detail(exc)
        return f"{PREFIX} 403 {advice} (service: {detail})"
    if isinstance(exc, errors.BadRequest):
        return f"{PREFIX} 400 the service refused the request: {_detail(exc)}"
    if isinstance(exc, errors.NotFound):
        return f"{PREFIX} 404 no data for this request: {_detail(exc)}"
    if isinstance(exc, errors.Unprocessable):
        return f"{PREFIX} 422 the service cannot use this request: {_detail(exc)}"
    if isinstance(exc, errors.RateLimited):
        return f"{PREFIX} 429 the service's rate limit was still exceeded after retries; calculate again shortly"
    if isinstance(exc, errors.ServerError):
        return f"{PREFIX} {exc.status or 500} service error: {_detail(exc)}; calculate again later"
    if isinstance(exc, errors.NetworkDown):
        return _network_down(exc)
    if isinstance(exc, errors.ServiceUnavailable):
        return f"{PREFIX} service unreachable: {exc}"
    if isinstance(exc, errors.NonFiniteNumber):
        return f"{PREFIX} {exc}: no value is shown rather than a wrong one; calculate again later"
    if isinstance(exc, errors.InvalidResponse):
        return f"{PREFIX} the service's answer was not understood: {exc}"
    if isinstance(exc, errors.RatesError):
        status = f"{exc.status} " if exc.status else ""
        return f"{PREFIX} {status}{exc}"
    # pydantic is loaded already when a cell fails: the core validates with it.
    from pydantic import ValidationError

    if isinstance(exc, ValidationError) and "Settings" in exc.title:
        return f"{PREFIX} settings: {settings_problem(exc)}"
    import logging

    logging.getLogger(LOGGER).exception("unexpected error in a worksheet function", exc_info=exc)
    return f"{PREFIX} internal error ({type(exc).__name__}); see the rates-xl log"


def settings_problem(exc: ValidationError) -> str:
    """A bad RATES_* environment value, named by its variable (never its value: it may be the key)."""
    parts = []
    for err in exc.errors()[:2]:
        name = "RATES_" + "_".join(str(p) for p in err.get("loc", ())).upper()
        problem = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        parts.append(f"{name}: {problem}")
    return "; ".join(parts) or "invalid client settings"
