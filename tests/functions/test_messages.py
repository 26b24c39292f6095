"""Service errors in cells: status and detail in plain words, what to do, never a key or a traceback."""

from __future__ import annotations

import time

import pytest

from rates_xl.addin.classic.udfs import UDFS
from rates_xl.client import RatesClient, errors
from rates_xl.client.api_key import how_to_set_key
from rates_xl.functions import FUNCTIONS, set_client
from rates_xl.functions.messages import MAX_LENGTH, PENDING, message_for
from rates_xl.sandbox import EXPIRED_KEY, TRIAL_KEY


def _cell(answer):
    assert isinstance(answer, str) and answer.startswith("#RATES! "), answer
    assert len(answer) <= MAX_LENGTH and "\n" not in answer and "Traceback" not in answer
    return answer


@pytest.mark.parametrize(
    "key, call, expected",
    [
        (None, ("RATES_SWAP", "SOFR", "0D", "5Y", "1Y"),
         "#RATES! 403 no API key is set: set one {how}"),
        ("not-a-real-key-123", ("RATES_FXSPOT", "EURUSD"),
         "#RATES! 403 the API key was not accepted: check it, then set it again {how}"),
        (EXPIRED_KEY, ("RATES_TENORS", "SOFR"),
         "#RATES! 403 the trial key has expired: set a paid key {how}"),
        # An expired trial key that also asked for the past: expiry is the problem to fix first.
        (EXPIRED_KEY, ("RATES_SWAPCURVE", "SOFR", "2025-06-02T16:00:00Z"),
         "#RATES! 403 the trial key has expired: set a paid key {how}"),
    ],
)
def test_403_says_which_key_problem_and_what_to_do(sandbox, key, call, expected):
    with RatesClient(base_url=sandbox.base_url, api_key=key) as client:
        set_client(client)
        name, *cells = call
        answer = _cell(UDFS[name](*cells))
        assert answer.startswith(expected.format(how=how_to_set_key())), answer
        assert "(service: " in answer  # the service's own words follow
        if key:
            assert key not in answer


# A trial key refuses valuation_time and valuation_date (the sandbox with 403, as the real
# service does). The client knows what it sent, so the cell names the argument to empty.
PAST_TIME = ("#RATES! 403 a trial key cannot value as of a past time: leave valuation_time "
             "empty, or use a paid key (set it {how})")


@pytest.mark.parametrize(
    "call, expected",
    [
        (("RATES_SWAPCURVE", "SOFR", "2025-06-02T16:00:00Z"), PAST_TIME),
        (("RATES_SWAP", "SOFR", "0D", "5Y", "1Y", None, None, None, "2025-06-02T16:00:00Z"), PAST_TIME),
        (("RATES_FXSPOT", "EURUSD", 45810.5), PAST_TIME),  # an Excel date-time serial
        (("RATES_GOVYIELD", "US", "10Y", None, "2025-06-02"), PAST_TIME),
        (("RATES_SWAPCURVE", "SOFR", "2099-01-02T16:00:00Z"),
         "#RATES! 403 a trial key cannot value as of a chosen time: leave valuation_time empty, "
         "or use a paid key (set it {how})"),
        (("RATES_FIXING", "SOFR", "2025-06-02"),
         "#RATES! 403 a trial key cannot ask for a past fixing: leave fixing_date empty "
         "(today's fixing), or use a paid key (set it {how})"),
    ],
)
def test_a_trial_key_asked_for_a_valuation_time_says_which_argument_to_leave_empty(sandbox, call, expected):
    with RatesClient(base_url=sandbox.base_url, api_key=TRIAL_KEY) as client:
        set_client(client)
        name, *cells = call
        answer = _cell(UDFS[name](*cells))
        assert answer == expected.format(how=how_to_set_key())
        assert TRIAL_KEY not in answer


def test_a_vague_403_for_a_trial_request_still_names_the_argument(monkeypatch):
    """The real service's detail may only say "not permitted": what was sent decides."""
    from tests.support.faultserver import FaultServer, Reply

    server = FaultServer()
    server.responder = lambda a: Reply(status=403, body={"detail": "Not permitted for this API key"})
    try:
        with RatesClient(base_url=server.base_url, api_key="trial-key-xyz") as client:
            set_client(client)
            past = _cell(UDFS["RATES_DISCOUNT"]("SOFR", "1Y", "2024-03-01T16:00:00Z"))
            live = _cell(UDFS["RATES_DISCOUNT"]("SOFR", "1Y"))
    finally:
        server.stop()
    assert past == PAST_TIME.format(how=how_to_set_key())
    # Nothing a trial key refuses was sent: the service's words, with what to do.
    assert live.startswith("#RATES! 403 the service refused this request for this API key")
    assert "(service: Not permitted for this API key)" in live


def test_trial_key_answers_live_data(sandbox):
    with RatesClient(base_url=sandbox.base_url, api_key=TRIAL_KEY) as client:
        set_client(client)
        assert isinstance(UDFS["RATES_SWAP"]("SOFR", "0D", "5Y", "1Y"), float)


def test_422_unknown_index_is_the_services_word(client):
    answer = _cell(UDFS["RATES_SWAPCURVE"]("NOT AN INDEX"))
    assert answer.startswith("#RATES! 422 the service cannot use this request: ")
    assert "NOT AN INDEX" in answer


def test_404_and_400_carry_the_detail(client):
    assert _cell(UDFS["RATES_FIXING"]("3M SAIBOR")).startswith("#RATES! 404 no data for this request: ")
    answer = _cell(UDFS["RATES_SWAP"]("3M EURIBOR", "0D", "10Y", "1Y", "6M"))
    assert answer.startswith("#RATES! 400 the service refused the request: ")
    assert "floating_leg_frequency" in answer


def test_unreachable_service(offline_client):
    answer = _cell(UDFS["RATES_FXSPOT"]("EURUSD"))
    assert answer.startswith("#RATES! service unreachable: cannot reach the service at http://127.0.0.1:9")


@pytest.mark.parametrize(
    "exc, expected",
    [
        (errors.RateLimited("429 rate limit exceeded", endpoint="fx_spot"), "#RATES! 429 "),
        (errors.ServerError("503 service error: down", status=503, endpoint="fx_spot", detail="down for maintenance"),
         "#RATES! 503 service error: down for maintenance; calculate again later"),
        (errors.InvalidResponse("the service answered an HTML page instead of JSON", status=200),
         "#RATES! the service's answer was not understood: the service answered an HTML page"),
        (errors.BadRequest("400 x", detail=[{"loc": ["query", "maturity_date"], "msg": "must be in the future",
                                            "type": "value_error"}]),
         "#RATES! 400 the service refused the request: maturity_date: must be in the future"),
        (errors.NotFetched("not fetched yet: fx_spot"), PENDING),
        # (built at collection, so a retry time far enough ahead to still be ahead at the run)
        (errors.NetworkDown("x", cause="no answer from the service within 2 s", failures=3,
                            retry_at=time.time() + 3600),
         "#RATES! network down: no answer from the service within 2 s, 3 times in a row; "
         "not trying again until "),
        (errors.NetworkDown("x", cause="cannot reach the service at https://api.example.com "
                            "(connection reset)", failures=4, retry_at=time.time()),
         "#RATES! network down: cannot reach the service at https://api.example.com (connection "
         "reset), 4 times in a row; one test request is under way: calculate again in a moment"),
    ],
)
def test_each_error_class_has_its_words(exc, expected):
    assert _cell(message_for(exc)).startswith(expected)


def test_network_down_says_when_it_tries_again_as_a_clock_time_and_in_seconds():
    retry_at = time.time() + 9.6
    answer = _cell(message_for(errors.NetworkDown(
        "x", cause="no answer from the service within 2 s", failures=3, retry_at=retry_at)))
    clock = time.strftime("%H:%M:%S", time.localtime(retry_at))
    assert f"until {clock} (in 10 s): calculate again then, or run rates-xl doctor" in answer


def test_key_and_url_passwords_are_scrubbed():
    exc = errors.BadRequest("400 x", detail="bad key secret-key-123 at https://user:pw@host/v1")
    answer = message_for(exc, secret="secret-key-123")
    assert "secret-key-123" not in answer and "user:pw" not in answer
    assert "***" in answer


def test_long_details_are_clipped_below_255():
    exc = errors.Unprocessable("422", detail="x" * 1000)
    answer = _cell(message_for(exc))
    assert len(answer) == MAX_LENGTH and answer.endswith("...")


def test_unexpected_exceptions_are_a_short_message(caplog):
    answer = _cell(message_for(KeyError("boom")))
    assert answer == "#RATES! internal error (KeyError); see the rates-xl log"
    assert "boom" in caplog.text  # the traceback goes to the log, not to the cell


def test_a_bug_in_shaping_never_escapes(client):
    spec = FUNCTIONS["RATES_FXSPOT"]
    original = spec.shape

    def broken(answer, headers):
        raise ZeroDivisionError("division by zero")

    object.__setattr__(spec, "shape", broken)  # the spec is frozen; this test breaks it on purpose
    try:
        assert _cell(spec.core("EURUSD")) == "#RATES! internal error (ZeroDivisionError); see the rates-xl log"
    finally:
        object.__setattr__(spec, "shape", original)


def test_bad_settings_name_the_variable_not_its_value(monkeypatch):
    monkeypatch.setenv("RATES_TIMEOUT", "soon")
    set_client(None)
    answer = _cell(UDFS["RATES_STATUS"]())
    assert answer.startswith("#RATES! settings: RATES_TIMEOUT: ")
    assert "soon" not in answer


def test_network_down_with_a_long_cause_still_says_when_it_tries_again():
    cause = ("the certificate of https://rates-gateway.treasury.internal.example-corporation.com "
             "is not trusted (unable to get local issuer certificate); a company proxy inspecting "
             "TLS? run rates-xl doctor")
    answer = _cell(message_for(errors.NetworkDown("x", cause=cause, failures=3,
                                                  retry_at=time.time() + 9.6)))
    assert answer.startswith("#RATES! network down: the certificate of https://rates-gateway.")
    assert answer.endswith("(in 10 s): calculate again then")
    assert "..., 3 times in a row; not trying again until " in answer
