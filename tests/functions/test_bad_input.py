"""Every class of bad input, for every argument of every function: a `#RATES!` message that
names the argument and what was expected, and no request (the client's counters and the
sandbox's answers prove it)."""

from __future__ import annotations

from datetime import datetime

import pytest

from rates_xl.addin.classic.udfs import UDFS
from rates_xl.functions import FUNCTIONS
from rates_xl.functions.messages import MAX_LENGTH
from rates_xl.functions.source import REFERENCE_ARGS
from tests.support.samples import SAMPLES

# kind -> [(bad value, what the message must say)]
BAD: dict[str, list[tuple[object, str]]] = {
    "index": [(5.0, "is not an index name like SOFR"), (True, "is not an index name"),
              ("!!", "is not an index name"), (datetime(2026, 1, 1), "is not an index name")],
    "date_or_tenor": [("10X", "'10X' is not a date or a tenor like 10Y"), (10.0, "10 is not a date or a tenor"),
                      ("01/02/2026", "ambiguous"), (False, "is not a date or a tenor")],
    "date": [("1M", "is a tenor; this argument takes a date"), ("soon", "is not a date"), (3.0, "not a date")],
    "timestamp": [("5Y", "is not a date-time"), ("noon", "is not a date-time"), (True, "is not a date-time")],
    "tenor": [("3", "is not a tenor like 3M"), ("0M", "empty period"), (3.0, "is not a tenor")],
    "frequency": [("3X", "is not a frequency like 3M"), ("0M", "is not a frequency"), (6.0, "is not a frequency")],
    "day_count": [("Act/999", "is not a day count like Actual360"), (360.0, "is not a day count")],
    "currency_pair": [("EURUS", "is not a currency pair like EURUSD"), ("EUREUR", "same currency twice"),
                      (1.17, "is not a currency pair")],
    "country": [("Germany", "is not a country code like US"), (1.0, "is not a country code")],
    "bool": [("maybe", "is not TRUE or FALSE"), (2.0, "is not TRUE or FALSE")],
    "number": [("3.6%", "'3.6%' is not a number"), (True, "TRUE is not a number")],
    # Arguments that take a range whole (Arg.many): a bad range is named by its cell.
    "tenors": [("3", "is not a tenor like 3M"), ("0M", "empty period"), (3.0, "is not a tenor"),
               ("2Y,,5Y", "item 2 of the list is empty"), ("5Y,5y", "5Y appears twice (items 1 and 2 of the list)"),
               ([["2Y"], ["5X"]], "cell 2 of the range: '5X' is not a tenor"),
               ([["2Y"], [None], ["5Y"]], "cell 2 of the range is empty"),
               ([["1Y", "12M"]], "1Y and 12M are the same tenor"),
               ([["2Y", "5Y"], ["7Y", "10Y"]], "a block of 2 x 2 cells")],
    "history_options": [("Per=X", "Per=X: X is not a periodicity; use Per=D, W, M, Q, S"),
                         ("Frq=M", "'Frq' is not an option; use Per, Fill, Days"),
                         ("Per=M Per=Q", "Per is given twice"), ("monthly", "is not NAME=VALUE"),
                         ("Per=AM", "anchored on the end date"), ("CDR=Mars", "Mars is not a calendar"),
                         (3.0, "is not options text"), ([["Per=M"], ["Fill=Z"]], "Fill=Z: Z is not a fill")],
}
# Any argument: an error cell, a multi-cell range, a non-finite number.
ANY_BAD: list[tuple[object, str]] = [
    ("#N/A", "the input is an error (#N/A)"), (-2146826273, "the input is an error (#VALUE!)"),
    ([["a"], ["b"]], "got a range of 2 values"), (float("nan"), "not a usable number"),
]


def _cases():
    for name, spec in FUNCTIONS.items():
        for position, arg in enumerate(spec.args):
            # An argument that takes a range whole has its own range cases above.
            anything = [case for case in ANY_BAD if not (arg.many and isinstance(case[0], list))]
            for value, fragment in BAD[arg.kind] + anything:
                yield pytest.param(name, position, value, fragment, id=f"{name}-{arg.name}-{value!r}"[:80])
            if arg.required:
                yield pytest.param(name, position, None, "missing; give", id=f"{name}-{arg.name}-missing")
                yield pytest.param(name, position, "  ", "missing; give", id=f"{name}-{arg.name}-blank")


@pytest.mark.parametrize("name, position, value, fragment", list(_cases()))
def test_bad_argument_names_itself_and_sends_nothing(client, name, position, value, fragment):
    spec = FUNCTIONS[name]
    cells = list(SAMPLES[name]) + [None] * (len(spec.args) - len(SAMPLES[name]))
    cells[position] = value
    by_reference = spec.args[position].name in REFERENCE_ARGS.get(name, ())
    for call in (spec.core, UDFS[name]):  # the host-free core and the xlwings UDF agree
        answer = call(*cells)
        assert isinstance(answer, str), answer
        assert answer.startswith(f"#RATES! {spec.args[position].name}: "), answer
        if by_reference and call is UDFS[name]:
            # The classic UDF takes this argument as the cell itself (a Range): any plain value
            # is answered with what it needs instead (addin/classic/source.py).
            assert "needs a cell holding a RATES_* formula" in answer, answer
        else:
            assert fragment in answer, answer
        assert len(answer) <= MAX_LENGTH
    assert client.stats()["requests_sent"] == 0


@pytest.mark.parametrize(
    "name, cells, message",
    [
        ("RATES_SWAP", ("SOFR", 46388.0, 46023.0, "1Y"),
         "#RATES! maturity: 2026-01-01 is not after start 2027-01-01"),
        ("RATES_FORWARD", ("SOFR", "2027-06-01", "2027-06-01"),
         "#RATES! end_date: 2027-06-01 is not after start 2027-06-01"),
        ("RATES_DISCOUNTCURVE", ("SOFR", datetime(2030, 1, 1), datetime(2029, 1, 1), "6M"),
         "#RATES! end_date: 2029-01-01 is not after start 2030-01-01"),
        ("RATES_SWAPHISTORY", ("SOFR", "10Y", "2025-02-01", "2025-01-01"),
         "#RATES! end_date: 2025-01-01 is before start 2025-02-01"),
        ("RATES_SWAP", ("SOFR", "0D", "5Y", "1Y", None, None, None, None, "extra"),
         "#RATES! RATES_SWAP: takes at most 8 arguments"),
        ("RATES_STATUS", ("extra",), "#RATES! RATES_STATUS: takes at most 0 arguments"),
    ],
)
def test_cross_argument_rules_and_arity(client, name, cells, message):
    assert FUNCTIONS[name].core(*cells).startswith(message)
    assert client.stats()["requests_sent"] == 0


def test_the_issues_own_example(client):
    assert UDFS["RATES_SWAP"]("SOFR", "0D", "10X", "1Y") == (
        "#RATES! maturity: '10X' is not a date or a tenor like 10Y"
    )


def test_bad_input_never_reaches_the_server(httpserver):
    """Counted at the far end too: a loopback server logs every request it receives."""
    from rates_xl.client import RatesClient
    from rates_xl.functions import set_client

    httpserver.expect_request("/v1/fx").respond_with_json({"currency_pair": "EURUSD", "rate": 1.17})
    with RatesClient(base_url=httpserver.url_for("/").rstrip("/"), api_key="k-test") as client:
        set_client(client)
        for spec in FUNCTIONS.values():
            for value, _ in ANY_BAD:
                if spec.args:
                    spec.core(*([value] * len(spec.args)))
        assert httpserver.log == []
        assert client.stats()["requests_sent"] == 0
        assert UDFS["RATES_FXSPOT"]("eur/usd") == 1.17  # the server does answer good input
        assert len(httpserver.log) == 1
