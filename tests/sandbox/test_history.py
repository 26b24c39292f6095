"""Time: each day's market is deterministic, fixings and history agree with the day's curves."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import date, timedelta

import pytest

from rates_xl.sandbox import conventions as cv
from rates_xl.sandbox import scenario

from .conftest import stamp

DAYS = [date(2003, 6, 4), date(2012, 9, 12), date(2020, 4, 15), date(2026, 3, 10)]


@pytest.mark.parametrize("index", ["SOFR", "ESTR", "SONIA", "3M EURIBOR", "6M EURIBOR"])
def test_fixing_is_the_days_short_end(api, index):
    conv = cv.INDEXES[index]
    for day in DAYS:
        fixing = api.ok("fixing", index=index, valuation_date=day.isoformat())
        assert fixing["fixing_date"] == day.isoformat()
        if conv.kind == "overnight":  # the overnight rate from the day's curve
            end = conv.calendar.advance(*_ql(day), 1, 0)
            dfs = [api.ok("discount_factor", index=index, date=d, valuation_time=stamp(day))["discount_factor"]
                   for d in (day.isoformat(), end.ISO())]
            tau = cv.DAY_COUNTS[conv.day_count].yearFraction(_ql(day)[0], end)
            from_curve = 100 * (dfs[0] / dfs[1] - 1) / tau
        else:  # the deposit from spot over the index tenor
            import QuantLib as ql

            from rates_xl.sandbox.market import from_ql, to_ql

            ql.Settings.instance().evaluationDate = to_ql(day)
            ql_index = conv.make_index(ql.YieldTermStructureHandle())
            spot = ql_index.valueDate(to_ql(day))
            from_curve = api.ok("forward_rate", index=index, start_date=from_ql(spot).isoformat(),
                                end_date=from_ql(ql_index.maturityDate(spot)).isoformat(),
                                valuation_time=stamp(day))["forward_rate"]
        assert fixing["fixing_rate"] == pytest.approx(from_curve, abs=1e-8), day


def _ql(day):
    import QuantLib as ql

    return (ql.Date(day.day, day.month, day.year),)


@pytest.mark.parametrize("index,tenor", [("SOFR", "5Y"), ("3M EURIBOR", "10Y"), ("SONIA", "2Y"), ("3M SAIBOR", "1Y")])
def test_history_reprices_each_days_curve(api, index, tenor):
    history = api.ok("historical_swap_rates", index=index, tenor=tenor, start_date="2020-04-13",
                     end_date="2020-04-24")
    conv = cv.INDEXES[index]
    assert history["currency"] == conv.currency and history["index_name"] == index
    points = history["swap_rates"]
    assert len(points) >= 7  # business days only
    for point in points[::3]:
        curve = api.ok("get_swap_curve", index=index, valuation_time=stamp(date.fromisoformat(point["date"])))
        rate = {p["tenor"]: p["swap_rate"] for p in curve["swap_rates"]}[tenor]
        assert point["rate"] == pytest.approx(rate, abs=1e-8)
        assert point["tenor"] == tenor


def test_history_runs_over_decades(api):
    history = api.ok("historical_swap_rates", index="SOFR", tenor="10Y", start_date="1995-01-01",
                     end_date="2026-11-01")
    rates = [p["rate"] for p in history["swap_rates"]]
    assert history["swap_rates"][0]["date"] == "2000-01-03"
    assert 6500 < len(rates) < 7000  # ~250 business days a year
    assert min(rates) > 0 and max(rates) < 12
    daily = [abs(b - a) for a, b in zip(rates, rates[1:], strict=False)]
    assert max(daily) < 0.6 and 0.01 < sum(daily) / len(daily) < 0.15  # bp-scale daily moves


@pytest.mark.parametrize("index,floor", [("SOFR", 0.0), ("SONIA", 0.0), ("3M SAIBOR", 0.0), ("ESTR", -0.8)])
def test_rates_stay_plausible_for_26_years(index, floor):
    conv = cv.INDEXES[index]
    day, seen = date(2000, 1, 3), []
    while day <= date(2026, 11, 20):
        seen.append(scenario.index_quotes(0, index, day))
        day += timedelta(days=9)
    for pillar in ("ON" if conv.kind == "overnight" else conv.float_frequency, "2Y", "10Y"):
        values = [q[pillar] for q in seen]
        assert min(values) > floor and max(values) < 10, (pillar, min(values), max(values))


def test_overnight_fixings_step_like_a_policy_rate(api):
    history = [api.ok("fixing", index="SOFR", valuation_date=d.isoformat())["fixing_rate"]
               for d in (date(2019, 1, 2) + timedelta(days=k) for k in range(0, 400)) if d.weekday() < 5
               and cv.INDEXES["SOFR"].calendar.isBusinessDay(_ql(d)[0])][:200]
    moves = [b - a for a, b in zip(history, history[1:], strict=False)]
    small = [m for m in moves if abs(m) < 0.1]
    steps = [m for m in moves if abs(m) >= 0.1]
    assert len(small) >= len(moves) - 8  # flat between meetings
    assert max(abs(m) for m in small) < 0.08  # a few bp of noise
    assert all(abs(abs(m) - round(abs(m) / 0.25) * 0.25) < 0.08 for m in steps)  # 25 bp multiples


def test_answers_do_not_depend_on_order_or_concurrency(api, sandbox_factory):
    days = [date(2026, 1, 5) + timedelta(days=k) for k in range(0, 60, 3)]

    def swap(day):
        return api.ok("swap_rate", index="3M EURIBOR", start_date="2D", maturity_date="7Y",
                      fixed_leg_frequency="1Y", valuation_time=stamp(day))["swap_rate"]

    with ThreadPoolExecutor(8) as pool:
        concurrent = list(pool.map(swap, days))
    sequential = [swap(d) for d in reversed(days)][::-1]
    assert concurrent == sequential
    # a fresh sandbox (empty caches on other seeds do not matter) gives the same numbers
    other = sandbox_factory(rate_limit=1000, burst=1000)
    import requests

    again = requests.get(f"{other.base_url}/v1/swap_rate", headers={"x-api-key": "sandbox-paid"}, params={
        "index": "3M EURIBOR", "start_date": "2D", "maturity_date": "7Y", "fixed_leg_frequency": "1Y",
        "valuation_time": stamp(days[4])}, timeout=10).json()["swap_rate"]
    assert again == concurrent[4]


def test_a_different_seed_is_a_different_market(sandbox_factory):
    import requests

    answers = []
    for seed in (0, 1):
        running = sandbox_factory(seed=seed)
        answers.append(requests.get(f"{running.base_url}/v1/fixing", headers={"x-api-key": "sandbox-paid"},
                                    params={"index": "SOFR", "valuation_date": "2015-06-01"}, timeout=10).json())
    assert answers[0]["fixing_rate"] != answers[1]["fixing_rate"]


SCRIPT = """
import json, requests
from rates_xl.sandbox import start_in_thread, PAID_KEY
with start_in_thread() as sb:
    h = {"x-api-key": PAID_KEY}
    out = {
        "swap": requests.get(sb.base_url + "/v1/swap_rate", headers=h, params={"index": "6M EURIBOR",
                 "start_date": "2D", "maturity_date": "12Y", "fixed_leg_frequency": "1Y",
                 "valuation_time": "2011-08-09T16:00:00Z"}).json()["swap_rate"],
        "gov": requests.get(sb.base_url + "/v1/gov_yield", headers=h, params={"country_code": "IT",
                 "maturity": "7Y", "valuation_time": "2011-08-09T16:00:00Z"}).json()["yield"],
        "fx": requests.get(sb.base_url + "/v1/fx_forward", headers=h, params={"currency_pair": "USDJPY",
                 "date": "2012-02-09", "valuation_time": "2011-08-09T16:00:00Z"}).json()["rate"],
    }
print(json.dumps(out))
"""


def test_same_request_same_number_in_two_processes(api):
    runs = [json.loads(subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                                      check=True, timeout=120).stdout) for _ in range(2)]
    assert runs[0] == runs[1]
    here = api.ok("swap_rate", index="6M EURIBOR", start_date="2D", maturity_date="12Y", fixed_leg_frequency="1Y",
                  valuation_time="2011-08-09T16:00:00Z")["swap_rate"]
    assert runs[0]["swap"] == here
