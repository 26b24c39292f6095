"""10,000 hypothesis-generated argument sets across every worksheet function, against the
sandbox: no exception escapes, and every answer is a finite number, a 2-D spill or one
`#RATES!` line (never an internal error).

Kept fast on purpose: most generated values are the junk a worksheet really passes (empty
cells, error values, stray text, ranges, out-of-range numbers), which validation rejects
before any request; the plausible values come from small pools, so the requests that do go
out mostly hit the client's cache or the sandbox's cached curves (a paid key, generous
limits: the session's `sandbox`).
"""

from __future__ import annotations

import math
from datetime import date, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rates_xl.client import RatesClient
from rates_xl.functions import FUNCTIONS
from rates_xl.sandbox import PAID_KEY
from tests.reliability.conftest import VALUATION_TIME

TOTAL_EXAMPLES = 10_000
PER_FUNCTION = -(-TOTAL_EXAMPLES // len(FUNCTIONS))

# -- what a cell can hold, whatever the argument --------------------------------------------------
_EXCEL_ERRORS = ("#N/A", "#VALUE!", "#REF!", "#DIV/0!", "#NUM!", "#NAME?", "#NULL!", "#RATES! 404 earlier")
_JUNK_TEXT = ("", "   ", "10X", "5YY", "1.5Y", "-5Y", "Y5", "99999Y", "0Y", "2026-13-45", "31/12/2026",
              "12/31/2026", "EUR/USD/JPY", "Actual/360", "tomorrow", "NaN", "inf", "None", "TRUE1",
              "🙂", "'; DROP TABLE", "a" * 300, "\t\n", "1e308", "0x10")
junk = st.one_of(
    st.none(),
    st.sampled_from(_EXCEL_ERRORS + _JUNK_TEXT),
    st.text(max_size=12),
    st.booleans(),
    # Numbers Excel may pass: serials far outside the service's dates, negatives, NaN, huge.
    st.integers(-1000, 60),
    st.floats(allow_nan=True, allow_infinity=True).filter(lambda x: not 30_000 < x < 2_958_466),
    st.sampled_from([2_958_466.0, 1e18, -0.5, 0.5, float("nan"), float("inf")]),
    st.dates(min_value=date(1, 1, 1), max_value=date(1999, 12, 31)),
    st.datetimes(min_value=datetime(2200, 1, 1)),
    st.lists(st.lists(st.sampled_from(["SOFR", 1.0, None]), max_size=3), max_size=3),  # a range
)

# -- plausible values per argument kind (small pools: cheap when they reach the service) ---------
_TENORS = ("0D", "2D", "1W", "1M", "3M", "6M", "1Y", "2Y", "5Y", "10Y", "30Y", " 5y ", "18m")
_DAYS = [date(2026, 11, d) for d in (16, 17, 18, 19, 20)] + [date(2026, 12, 15), date(2027, 5, 3), date(2031, 11, 20)]
_SERIALS = (46341.0, 46345, 46346.0)  # 2026-11-16, 2026-11-20 (a cell without a date format)
dates = st.one_of(st.sampled_from(_DAYS), st.sampled_from(_DAYS).map(lambda d: datetime(d.year, d.month, d.day)),
                  st.sampled_from(_DAYS).map(date.isoformat), st.sampled_from(_SERIALS))
PLAUSIBLE = {
    "index": st.sampled_from(["SOFR", "sofr", " ESTR ", "SONIA", "3M EURIBOR", "3m euribor", "6M EURIBOR",
                              "3M SAIBOR", "Fed Funds", "NOT AN INDEX", "SOFR3"]),
    "date_or_tenor": st.one_of(st.sampled_from(_TENORS), dates),
    "date": dates,
    "timestamp": st.sampled_from([VALUATION_TIME, datetime(2026, 11, 20, 16), "2026-11-19T16:00:00Z",
                                  "2026-11-20", 46346.5, datetime(2031, 1, 1)]),
    "tenor": st.sampled_from(_TENORS),
    "frequency": st.sampled_from(["1M", "3M", "6M", "12M", "1Y", "3m", " 6M ", "annual", "Quarterly", 6.0]),
    "day_count": st.sampled_from(["Actual360", "Actual365Fixed", "Thirty360BondBasis", "actual360", "ACT/360"]),
    "currency_pair": st.sampled_from(["EURUSD", "eur/usd", "GBPUSD", "USDJPY", "USDSAR", "XXXYYY", "EUR USD"]),
    "country": st.sampled_from(["US", "UK", "GB", "DE", "us", " de ", "ZZ", "USA"]),
    "bool": st.sampled_from([True, False, 1, 0, 1.0, "TRUE", "false", "yes"]),
    "number": st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(), st.sampled_from([3.61, True, "3.6"])),
    # Ranges taken whole (Arg.many): one tenor, a column or row of them, a comma list; options.
    "tenors": st.one_of(st.sampled_from(_TENORS), st.sampled_from(["2Y,5Y", "2Y, 10y", "5Y,5Y", "2Y,,5Y"]),
                        st.lists(st.sampled_from(["2Y", "5Y", "10Y", "30Y", None, "12M", "1Y"]),
                                 min_size=1, max_size=4).map(lambda c: [[t] for t in c])),
    "history_options": st.sampled_from(["", "Per=M", "per=w fill=na", "Days=A Fill=B Sort=D", "Dir=H Dts=H",
                                        "Quote=A Per=Q", "CDR=TARGET", "Per=X", "Fill", [["Per=M"], [None]]]),
}


def argument(kind: str, mode: str) -> st.SearchStrategy:
    return PLAUSIBLE[kind] if mode == "plausible" else st.one_of(PLAUSIBLE[kind], junk)


_POOL = {*_DAYS, *(datetime(d.year, d.month, d.day) for d in _DAYS), *map(date.isoformat, _DAYS), *_SERIALS}


def _history_junk_or_pool(value) -> bool:
    """Keep a swap history's date range small (junk like 40000, a 2009 serial, could ask for
    17 years of daily closes): pool dates, or junk that is no date at all."""
    if isinstance(value, list) or value is None:
        return True
    if value in _POOL:
        return True
    return not isinstance(value, date | datetime | int | float) or isinstance(value, bool)


@st.composite
def argument_sets(draw, name: str) -> tuple:
    spec = FUNCTIONS[name]
    # Half the sets look like what a careful user types (every argument from the pools, any
    # number of the optional ones): they reach the service. The other half mixes in junk and
    # any argument count, one too many included: validation must answer those.
    mode = draw(st.sampled_from(["plausible", "mixed"]))
    if mode == "plausible":
        count = draw(st.integers(spec.min_args, len(spec.args)))
    else:
        count = draw(st.integers(0, len(spec.args) + 1))
    values = []
    for i in range(count):
        if i >= len(spec.args):
            values.append(draw(junk))
            continue
        arg = spec.args[i]
        if name == "RATES_SWAPHISTORY" and arg.kind == "date":
            values.append(draw(argument("date", mode).filter(_history_junk_or_pool)))
        else:
            values.append(draw(argument(arg.kind, mode)))
    return tuple(values)


def check_answer(spec, value) -> None:
    if isinstance(value, str):
        assert value.startswith("#RATES! "), value
        assert len(value) < 255 and "\n" not in value, value
        assert "internal error" not in value, value
        return
    if spec.result == "number":
        assert isinstance(value, float) and math.isfinite(value), value
        return
    assert isinstance(value, list) and value and all(isinstance(row, list) and row for row in value), value
    width = len(value[0])
    assert all(len(row) == width for row in value), value


@pytest.fixture(scope="module")
def fuzz_client(sandbox):
    from rates_xl.functions import set_client

    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, rate_limit=1000, burst=1000,
                         backoff=0.01, max_backoff=0.05)
    set_client(client)
    yield client
    set_client(None)
    client.close()


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_no_exception_escapes_any_function(name, fuzz_client):
    spec = FUNCTIONS[name]
    tally = {"calls": 0, "values": 0}
    sent_before = fuzz_client.stats()["requests_sent"]

    @settings(max_examples=PER_FUNCTION, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                     HealthCheck.function_scoped_fixture])
    @given(values=argument_sets(name))
    def one(values):
        answer = spec.core(*values)
        check_answer(spec, answer)
        tally["calls"] += 1
        tally["values"] += not isinstance(answer, str)

    one()
    assert tally["calls"] >= PER_FUNCTION  # every example ran (10,000 across the functions)
    print(f"{name}: {tally['calls']} argument sets, {tally['values']} values, "
          f"{fuzz_client.stats()['requests_sent'] - sent_before} requests sent")
