"""Every `#RATES!` message a worksheet function can give, written by the code that writes them.

Nothing here restates a message: each text is produced by running the real code on an input
that triggers it, so the reference pages and the troubleshooting page cannot drift from what
a cell shows.

- Argument messages: each argument's coercer (args.py, history.py, through `core.validate`)
  is fed a set of probes, values a cell may really pass that its kind refuses (`PROBES`,
  `KIND_PROBES`); `tests/docs` checks that the probes reach every `raise ArgProblem` there. The
  cross-argument rules (an end before its start) are probed with dates in the wrong order.
- Service and network messages: each failure the client can raise (client/errors.py, the
  transport's "no answer" reasons) is built and passed through `messages.message_for`. The
  cause and what to do are written here, once, beside the failure that produces them.

Placeholders in angle brackets (`<the service's detail>`) stand for what varies.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from functools import cache
from typing import TYPE_CHECKING

from rates_xl.functions import args as coerce
from rates_xl.functions.core import Arg, FunctionSpec, validate
from rates_xl.functions.messages import PENDING, ArgumentError, message_for

if TYPE_CHECKING:
    import requests

DETAIL = "<the service's detail>"
BASE_URL = "<base URL>"


@dataclass(frozen=True)
class Message:
    """One message a cell can show, why it shows, and what to do about it."""

    text: str  # exactly as the cell shows it (placeholders in <>)
    cause: str
    action: str
    argument: str | None = None  # the argument it names, for bad input
    general: bool = False  # any argument can give it (a range, an error value), whatever its kind


# -- bad input -------------------------------------------------------------------------------------

_LATE, _EARLY = date(2026, 6, 1), date(2026, 1, 1)


class XlError:
    """Stands for the `formulas` engine's error value (args.scalar knows it by its class name;
    importing `formulas` here would cost every help page a second)."""

    def __str__(self) -> str:
        return "#N/A"


#: Probes every argument kind refuses the same way (scalar() in args.py): value -> what to do.
PROBES: tuple[tuple[object, str, str], ...] = (
    ([1.0, 2.0], "the argument points at a range of several cells",
     "point it at one cell"),
    ("#N/A", "the cell the argument points at holds an Excel error (shown as text)",
     "fix that cell first; the error travels into every formula that reads it"),
    (-2146826246, "the cell the argument points at holds an Excel error (as Excel passes it)",
     "fix that cell first"),
    (XlError(), "the cell holds an error value (as the headless engine passes it)", "fix that cell first"),
    (float("nan"), "the argument is not a finite number", "give a real value"),
)

#: Per kind: values a cell may pass that this kind refuses (each reaches a different check).
KIND_PROBES: dict[str, tuple[object, ...]] = {
    "index": (42.0, "!!"),
    "date_or_tenor": (True, "10X", "01/02/2026", 10.0),
    "date": (True, "10Y", "01/02/2026", "tomorrow", 10.0),
    "timestamp": (True, "01/02/2026", "noon"),
    "tenor": ("10X", "0M"),
    "frequency": ("fortnightly", "0M"),
    "day_count": ("Act/999",),
    "currency_pair": ("EUREUR", "EURUS"),
    "country": ("Narnia",),
    "bool": ("maybe",),
    "number": (True, "3.6%"),
    # history.py: a range whole (Arg.many), so a bad range is its own message
    "tenors": ("10X", "0M", "2Y,,5Y", "2Y,5X", "5Y,5y", "1Y,12M", ",".join(f"{n}Y" for n in range(1, 32)),
               [["2Y"], ["#N/A"]], [[None], [None]], [[None]], [["2Y", "5Y"], ["7Y", "10Y"]]),
    "history_options": ("Per=X", "Per=AM", "Frq=M", "monthly", "Per=M Per=Q", "CDR=Mars", 3.0,
                        [["Per=M"], ["Fill=Z"]]),
}


def _base_values(spec: FunctionSpec) -> list[object]:
    """Valid values for every argument: the table's first example, empty beyond it."""
    example = spec.examples[0] if spec.examples else ()
    return list(example) + [None] * (len(spec.args) - len(example))


def _problem(spec: FunctionSpec, values: list[object]) -> ArgumentError | None:
    try:
        validate(spec, tuple(values))
    except ArgumentError as exc:
        return exc
    return None


def argument_messages(spec: FunctionSpec, arg: Arg) -> list[Message]:
    """What a cell shows when this argument is wrong, one message per distinct check."""
    position = spec.args.index(arg)
    expected = coerce.COERCERS[arg.kind][1]
    found: dict[str, Message] = {}

    def probe(value: object, cause: str, action: str, general: bool = False) -> None:
        values = _base_values(spec)
        values[position] = value
        exc = _problem(spec, values)
        if exc is not None and exc.argument == arg.name:
            text = message_for(exc)
            found.setdefault(text, Message(text, cause, action, arg.name, general))

    if arg.required:
        probe(None, f"{arg.name} is required and the cell is empty", f"give {expected}")
    for value in KIND_PROBES[arg.kind]:
        probe(value, f"{arg.name} is not {expected}", f"give {expected}")
    for value, cause, action in PROBES:
        probe(value, cause, action, general=True)
    return list(found.values())


def cross_messages(spec: FunctionSpec) -> list[Message]:
    """The rules between arguments (an end on or before its start), probed with real dates."""
    dated = [i for i, a in enumerate(spec.args) if a.kind in ("date", "date_or_tenor")]
    found: dict[str, Message] = {}
    for i in dated:
        for j in dated:
            if i >= j:
                continue
            for first, second in ((_LATE, _EARLY), (_EARLY, _EARLY)):
                values = _base_values(spec)
                values[i], values[j] = first, second
                exc = _problem(spec, values)
                if exc is not None:
                    text = message_for(exc)
                    found.setdefault(text, Message(
                        text, f"{exc.argument} does not come after {spec.args[i].name}",
                        f"give a later {exc.argument}, or a tenor (counted from {spec.args[i].name})",
                        exc.argument))
    return list(found.values())


def too_many_arguments(spec: FunctionSpec) -> Message:
    exc = _problem(spec, [None] * (len(spec.args) + 1))
    assert exc is not None  # validate() refuses more values than arguments before anything else
    return Message(message_for(exc), "the formula passes more arguments than the function takes",
                   f"pass at most {len(spec.args)} arguments, in the order of the signature")


# -- the service and the network -------------------------------------------------------------------

@dataclass(frozen=True)
class Failure:
    """A failure the client can raise, how to build one, and what a user should do about it."""

    key: str  # a stable name (the troubleshooting page's anchor)
    build: Callable[[FunctionSpec], BaseException | None]  # None: cannot happen for this function
    cause: str
    action: str


def _asks_service(spec: FunctionSpec) -> bool:
    return spec.endpoint is not None


def _only_with_request(factory: Callable[[], BaseException]) -> Callable[[FunctionSpec], BaseException | None]:
    return lambda spec: factory() if _asks_service(spec) else None


def _auth(reason: str) -> Callable[[FunctionSpec], BaseException | None]:
    from rates_xl.client import errors

    return _only_with_request(lambda: errors.AuthError(DETAIL, reason=reason, detail=DETAIL))


def _trial(when: str) -> Callable[[FunctionSpec], BaseException | None]:
    """A trial key refused a valuation time or fixing date this function can send."""
    from rates_xl.client import errors
    from rates_xl.client.transport import TRIAL_REFUSED_PARAMS

    def build(spec: FunctionSpec) -> BaseException | None:
        params = [a.param for a in spec.args if a.param in TRIAL_REFUSED_PARAMS]
        if not params:
            return None
        param = params[0]
        moment = "2025-06-02" if when == "past" else "2099-06-02"
        value = moment if param == "valuation_date" else moment + "T16:00:00Z"
        return errors.AuthError(DETAIL, reason="trial_past_data", refused={param: value})

    return build


def _unreachable(exc_factory: Callable[[], requests.RequestException]) -> Callable[[FunctionSpec], BaseException | None]:
    """What the transport says when no answer came (its own wording, built by it)."""
    from rates_xl.client.transport import HTTPTransport

    def build() -> BaseException:
        transport = HTTPTransport("https://service.invalid", None)
        transport.base_url = BASE_URL  # the messages name the root; a placeholder here
        try:
            return transport._unreachable("swap_rate", exc_factory(), 2.0)
        finally:
            transport.close()

    return _only_with_request(build)


def _empty_table(spec: FunctionSpec) -> object:
    """A table function's answer when the service sends no points: the shaped text."""
    if spec.result not in ("table", "column"):
        return None

    class Empty:
        def __getattr__(self, name: str) -> list[object]:
            return []

    if spec.fan_out is not None:  # one empty answer for its first example's arguments
        from rates_xl.functions.core import validate

        return spec.fan_out.shape([Empty()], validate(spec, spec.examples[0]), True)
    return spec.shape(Empty(), True) if spec.shape is not None else None


def _settings_error() -> BaseException:
    from pydantic import ValidationError

    from rates_xl.client.settings import Settings

    try:
        Settings.model_validate({"timeout": "soon"})
    except ValidationError as exc:
        return exc
    raise AssertionError("Settings accepted a timeout of 'soon'")


def _failures() -> list[Failure]:
    import requests

    from rates_xl.client import errors

    doctor = "run `rates-xl doctor`: it checks the URL, proxy, certificates and key, and says what to fix"
    return [
        Failure("no-key", _auth("missing"), "no API key is set for this user (nor RATES_API_KEY)",
                "`rates-xl key set` on a desktop; RATES_API_KEY where there is no keychain (a server, CI)"),
        Failure("key-invalid", _auth("invalid"), "the service does not know the key",
                "check the key (copy it again from the service's account page), then `rates-xl key set`"),
        Failure("key-expired", _auth("expired"), "the trial key's period is over",
                "set a paid key with `rates-xl key set`"),
        Failure("trial-past", _trial("past"), "a trial key asked for a past valuation time or fixing date",
                "leave the argument the message names empty, or use a paid key"),
        Failure("trial-chosen", _trial("future"), "a trial key asked for a chosen valuation time or fixing date",
                "leave the argument the message names empty, or use a paid key"),
        Failure("key-refused", _auth("refused"), "the key is valid but not permitted this request",
                "ask the service's administrator what the key covers"),
        Failure("bad-request", _only_with_request(lambda: errors.BadRequest(DETAIL, detail=DETAIL)),
                "the service refused the parameters (the detail names them)",
                "correct the argument the detail names; the argument names map to the service's in the function reference"),
        Failure("not-found", _only_with_request(lambda: errors.NotFound(DETAIL, detail=DETAIL)),
                "the service has no data for this request (no fixing on that day, no tenors for that index)",
                "pick another date or index; a holiday has no fixing"),
        Failure("unprocessable", _only_with_request(lambda: errors.Unprocessable(DETAIL, detail=DETAIL)),
                "well-formed but not meaningful to the service, e.g. an index name it does not know",
                "check the spelling against the service's list (`=RATES_TENORS(index)` answers for a known index)"),
        Failure("rate-limited", _only_with_request(lambda: errors.RateLimited("429")),
                "the service still answered 429 after every retry: another program shares the key, "
                "or the settings allow more than the key's limit",
                "calculate again in a moment; lower RATES_RATE_LIMIT, or share one limit with the team backend"),
        Failure("server-error", _only_with_request(lambda: errors.ServerError(DETAIL, status=503, detail=DETAIL)),
                "the service failed (5xx) on every attempt", "calculate again later; if it lasts, tell the service"),
        Failure("refused", _unreachable(lambda: requests.ConnectionError("[Errno 111] Connection refused")),
                "nothing listens at the base URL (wrong URL or port, or the service is down)",
                "check RATES_BASE_URL; " + doctor),
        Failure("dns", _unreachable(lambda: requests.ConnectionError("Name or service not known")),
                "the base URL's host name does not resolve", "check RATES_BASE_URL and the network; " + doctor),
        Failure("connect-timeout", _unreachable(lambda: requests.ConnectTimeout()),
                "no connection within the time limit: often a firewall dropping packets", doctor),
        Failure("read-timeout", _unreachable(lambda: requests.ReadTimeout()),
                "connected, but no answer within the time limit", "calculate again; if it lasts, " + doctor),
        Failure("closed", _unreachable(lambda: requests.ConnectionError("Remote end closed connection without response")),
                "the connection closed without an answer (a proxy or load balancer in the way)", doctor),
        Failure("reset", _unreachable(lambda: requests.ConnectionError("Connection reset by peer")),
                "the connection was reset (a proxy or firewall in the way)", doctor),
        Failure("not-trusted", _unreachable(lambda: requests.exceptions.SSLError(
            "certificate verify failed: unable to get local issuer certificate (_ssl.c:1000)")),
                "the service's certificate is not trusted: usually a company proxy inspecting TLS whose root "
                "is not in the store the client uses",
                "`rates-xl doctor` names the issuer; have IT install the company root, or see Corporate networks in the client page"),
        Failure("wrong-host", _unreachable(lambda: requests.exceptions.SSLError("hostname mismatch")),
                "the certificate is for another host name (a wrong base URL, or a proxy)", doctor),
        Failure("tls", _unreachable(lambda: requests.exceptions.SSLError("handshake failure")),
                "the TLS handshake failed", doctor),
        Failure("proxy", _unreachable(lambda: requests.exceptions.ProxyError("tunnel refused")),
                "the proxy refused or dropped the connection",
                "set HTTPS_PROXY to the proxy the browser uses (with user:password@ if it asks for a login)"),
        Failure("connection-failed", _unreachable(lambda: requests.ConnectionError("boom")),
                "the connection failed for another reason", doctor),
        Failure("request-failed", _unreachable(lambda: requests.RequestException()),
                "the request could not be made at all (e.g. a base URL without https://)",
                "check RATES_BASE_URL: it starts with https://"),
        Failure("deadline", _only_with_request(lambda: errors.ServiceUnavailable(
            "no answer within the 4 s deadline")),
                "a cell waits at most RATES_CELL_DEADLINE seconds in all (limiter waits and retries)",
                "calculate again; a whole workbook fetches faster through Refresh or `rates-xl calc`"),
        Failure("network-down", _only_with_request(lambda: errors.NetworkDown(
            "network down", cause="no answer from the service within 2 s", retry_at=time.time() + 10,
            failures=3)),
                "the circuit breaker is open: the last attempts all failed on the network, so calls fail at once "
                "instead of each waiting out its time limit", "calculate again after the time it names; " + doctor),
        Failure("network-probing", _only_with_request(lambda: errors.NetworkDown(
            "network down", cause="no answer from the service within 2 s", retry_at=time.time() - 1,
            failures=3)),
                "the circuit breaker's wait is over and one test request is on its way; other calls still "
                "fail at once until it answers", "calculate again in a moment; if it lasts, " + doctor),
        Failure("redirected-away", _only_with_request(lambda: errors.Redirected(
            "the service redirected to another host, https://elsewhere.example: not followed, so the API "
            "key was not sent there (it goes to https://api.bluegamma.io only); if the service has moved, "
            "set RATES_BASE_URL to its new address", status=302, target="https://elsewhere.example")),
                "the service (or something on the path to it) answered with a redirect to another host; "
                "the client never follows one, so the key stays with the service",
                "check RATES_BASE_URL is the service's own address; if the service has moved, set it to the new one"),
        Failure("redirect-loop", _only_with_request(lambda: errors.Redirected(
            "the service redirected more than 3 times in a row (a redirect loop?): not followed further",
            status=302, target="https://api.bluegamma.io")),
                "the service's address keeps redirecting (a misconfigured proxy or base URL)",
                "check RATES_BASE_URL; " + doctor),
        Failure("too-slow", _only_with_request(lambda: errors.ServiceUnavailable(
            "the service sent its answer too slowly: 2 of 600 bytes in 4.0 s")),
                "the answer arrived slower than the time budget allows (a trickling proxy or an overloaded link)",
                "calculate again; if it lasts, " + doctor),
        Failure("too-large", _only_with_request(lambda: errors.InvalidResponse(
            "the service's answer is larger than 16 MB (RATES_MAX_ANSWER_MB): refused, not read", status=200)),
                "the answer is far larger than any the service documents: a wrong base URL or a hostile server",
                "check RATES_BASE_URL; raise RATES_MAX_ANSWER_MB only if you expect answers that large"),
        Failure("not-json", _only_with_request(lambda: errors.InvalidResponse(
            "the service answered an HTML page instead of JSON", status=200)),
                "something other than the service answered: a captive portal, a proxy's login page, a wrong base URL",
                "check RATES_BASE_URL; " + doctor),
        Failure("wrong-shape", _only_with_request(lambda: errors.InvalidResponse(
            "the service's answer does not have the documented shape (swap_rate)", status=200)),
                "the answer is JSON but not the documented shape: a different service, or a changed interface",
                "check RATES_BASE_URL; update rates-xl"),
        Failure("not-finite", _only_with_request(lambda: errors.NonFiniteNumber(
            "the service answered NaN (not a number) for swap_rate", status=200)),
                "a number in the service's answer is NaN or infinite (`NaN`, `Infinity`, `1e999`): a fault "
                "of the service or of something on the path; no host shows it as a number",
                "calculate again later; if it stays, report the request to the service"),
        Failure("pending", _only_with_request(lambda: errors.NotFetched("not fetched yet")),
                "shown for a moment while a workbook is planned: the request is recorded, not yet sent",
                "nothing: the next pass fills it in; if a saved file shows it, calculate again"),
        Failure("settings", lambda spec: _settings_error(),
                "a RATES_* environment variable holds a value the client cannot use (the message names it)",
                "correct or unset that variable; the settings page lists each one"),
        Failure("internal", lambda spec: KeyError("x"),
                "a defect in rates-xl", "send the rates-xl log (it has the details; never the key) to the maintainers"),
    ]


def _text(exc: BaseException) -> str:
    quiet = logging.getLogger("rates_xl.functions")
    was, quiet.disabled = quiet.disabled, True  # the "internal error" example is no real defect to log
    try:
        text = message_for(exc)
    finally:
        quiet.disabled = was
    # The breaker's message says the clock time it tries again: a fixed one reads the same each build.
    return re.sub(r"until \d\d:\d\d:\d\d \(in \d+ s\)", "until 10:42:13 (in 10 s)", text)


@cache
def failures() -> tuple[Failure, ...]:
    return tuple(_failures())


def service_messages(spec: FunctionSpec) -> list[Message]:
    """What this function's cell shows when the service, the network or the set-up fails."""
    found: list[Message] = []
    for failure in failures():
        exc = failure.build(spec)
        if exc is not None:
            found.append(Message(_text(exc), failure.cause, failure.action))
        if failure.key == "unprocessable":  # keep the service's refusals together, then the table's own
            empty = _empty_table(spec)
            if isinstance(empty, str):
                found.append(Message(empty, "the service answered, with no points for this request",
                                     "widen the dates, or check the index and tenor"))
    return found


def input_messages(spec: FunctionSpec) -> Iterator[tuple[Arg, list[Message]]]:
    for arg in spec.args:
        yield arg, argument_messages(spec, arg)


def all_messages(spec: FunctionSpec) -> list[Message]:
    """Every message this function can give: bad input, then the service and the network."""
    out = [m for _, messages in input_messages(spec) for m in messages]
    out += cross_messages(spec)
    out.append(too_many_arguments(spec))
    return out + service_messages(spec)


__all__ = ["Message", "Failure", "PROBES", "KIND_PROBES", "PENDING", "argument_messages",
           "cross_messages", "too_many_arguments", "service_messages", "all_messages", "failures"]
