"""Hypothesis over every function's arguments: no exception escapes, and every output is a
number, a rectangular 2-D list or one short `#RATES!` string."""

from __future__ import annotations

from datetime import date, datetime

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rates_xl.addin.classic.udfs import UDFS
from rates_xl.functions import FUNCTIONS
from rates_xl.functions.messages import MAX_LENGTH

# What cells hold: plausible values (so some calls do reach the sandbox) and junk.
PLAUSIBLE_TEXT = st.sampled_from([
    "SOFR", "sofr", "3m euribor", "ESTR", "SONIA", "Fed Funds", "NOPE", "EURUSD", "eur/usd", "GBPUSD",
    "US", "uk", "DE", "0D", "1Y", "2y", "5Y", "10Y", "3M", "6M", "12M", "quarterly", "Actual360", "ACT/360",
    "Thirty360BondBasis", "TRUE", "FALSE", "2026-01-01", "2025-06-02T16:00:00Z", "#N/A", "#RATES! x",
])
CELL = st.one_of(
    st.none(),
    st.just(""),
    PLAUSIBLE_TEXT,
    st.text(max_size=40),
    st.booleans(),
    st.integers(min_value=-2**40, max_value=2**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=18000, max_value=120000),  # serial numbers, some out of range
    st.dates(min_value=date(1900, 1, 1), max_value=date(2200, 1, 1)),
    st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1)),
    st.sampled_from([-2146826246, -2146826273]),  # COM error codes
    st.lists(st.lists(st.one_of(st.none(), PLAUSIBLE_TEXT, st.floats()), min_size=1, max_size=3),
             min_size=1, max_size=3),  # ranges
)


_DAYS = st.dates(min_value=date(2020, 1, 1), max_value=date(2040, 12, 31))
_DATES = st.one_of(
    _DAYS, _DAYS.map(lambda d: datetime(d.year, d.month, d.day)),
    _DAYS.map(lambda d: float((d - date(1899, 12, 30)).days)), _DAYS.map(date.isoformat),
)
# Per kind, values a user might well type: so that many calls reach the sandbox.
LIKELY = {
    "index": st.sampled_from(["SOFR", "sofr", "3m euribor", "ESTR", "SONIA", "6M EURIBOR", "3M SAIBOR", "NOPE"]),
    "date_or_tenor": st.one_of(st.sampled_from(["0D", "1Y", "2y", "5Y", "10Y", "18M", "1W"]), _DATES),
    "date": st.one_of(_DATES, st.dates(min_value=date(2024, 1, 1), max_value=date(2025, 12, 31))),
    "timestamp": st.one_of(st.none(), st.datetimes(min_value=datetime(2022, 1, 1), max_value=datetime(2026, 1, 1))),
    "tenor": st.sampled_from(["3M", "6M", "1Y", "10Y", "5y", "30Y"]),
    "frequency": st.sampled_from(["3M", "6M", "1Y", "12M", "quarterly", "1M"]),
    "day_count": st.sampled_from(["Actual360", "ACT/365F", "Thirty360BondBasis", None]),
    "currency_pair": st.sampled_from(["EURUSD", "gbp/usd", "USDJPY", "EURCHF", "USDSAR"]),
    "country": st.sampled_from(["US", "uk", "DE", "JP", "XX"]),
    "bool": st.sampled_from([True, False, 1.0, 0.0, "TRUE", None]),
}


@st.composite
def calls(draw):
    name = draw(st.sampled_from(sorted(FUNCTIONS)))
    spec = FUNCTIONS[name]
    count = draw(st.sampled_from([len(spec.args), spec.min_args, len(spec.args) + 1, 0]))
    cells = []
    for position in range(count):
        kind = spec.args[position].kind if position < len(spec.args) else None
        likely = LIKELY.get(kind)
        junk = likely is None or draw(st.sampled_from([False] * 7 + [True]))
        cells.append(draw(CELL if junk else likely))
    return name, tuple(cells)


def _assert_cell_value(out):
    if isinstance(out, str):
        assert out.startswith("#RATES! ") and len(out) <= MAX_LENGTH and "\n" not in out
    elif isinstance(out, list):
        assert out and all(isinstance(row, list) and row for row in out)
        assert len({len(row) for row in out}) == 1  # rectangular
        for row in out:
            for value in row:
                assert isinstance(value, (str, float, int, date)) and not isinstance(value, bool)
    else:
        assert type(out) is float


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(call=calls())
def test_no_exception_escapes_any_function(client, call):
    name, cells = call
    width = len(FUNCTIONS[name].args)
    if len(cells) <= width:  # the UDF gets every argument (Excel passes empty ones as None)
        _assert_cell_value(UDFS[name](*cells, *[None] * (width - len(cells))))
    out = FUNCTIONS[name].core(*cells)  # the core: any arity
    _assert_cell_value(out)
    # --hypothesis-show-statistics shows how many calls got answers, service errors, input errors
    event("value" if not isinstance(out, str) else "service error" if out[8:9].isdigit() else "input message")
