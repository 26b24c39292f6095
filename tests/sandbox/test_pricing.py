"""The numbers: pillars reprice, and every endpoint agrees with the others' curves."""

from __future__ import annotations

from datetime import date

import pytest
import QuantLib as ql

from rates_xl.sandbox import PAID_KEY, scenario
from rates_xl.sandbox import conventions as cv
from rates_xl.sandbox.market import from_ql, market_for, to_ql

from .conftest import stamp

DAY = date(2026, 3, 10)
VT = stamp(DAY)


@pytest.mark.parametrize("index", list(cv.INDEXES))
def test_swap_pillars_reprice_their_quotes(api, index):
    curve = api.ok("get_swap_curve", index=index, valuation_time=VT)
    conv = cv.INDEXES[index]
    quotes = scenario.index_quotes(0, index, scenario.market_date(conv.calendar, DAY))
    assert [p["tenor"] for p in curve["swap_rates"]] == list(conv.swap_tenors)
    for point in curve["swap_rates"]:
        assert point["swap_rate"] == pytest.approx(quotes[point["tenor"]], abs=1e-8), point["tenor"]
    # the same through /swap_rate with a spot start and a tenor maturity
    one = api.ok("swap_rate", index=index, start_date=f"{conv.spot_lag}D", maturity_date="5Y",
                 fixed_leg_frequency=conv.fixed_frequency, valuation_time=VT)
    assert one["swap_rate"] == pytest.approx(quotes["5Y"], abs=1e-8)


@pytest.mark.parametrize("index", ["3M EURIBOR", "6M EURIBOR", "3M SAIBOR"])
def test_deposit_and_fra_pillars_reprice(api, index):
    conv = cv.INDEXES[index]
    quotes = scenario.index_quotes(0, index, DAY)
    ql.Settings.instance().evaluationDate = to_ql(DAY)
    ql_index = conv.make_index(ql.YieldTermStructureHandle())
    spot = from_ql(conv.calendar.advance(to_ql(DAY), conv.spot_lag, ql.Days))
    for pillar in conv.pillars:
        if pillar == conv.float_frequency:
            start = spot
        elif pillar.startswith("FRA "):
            months = int(pillar[4:].split("x")[0])
            start = from_ql(conv.calendar.advance(to_ql(spot), months, ql.Months, conv.business_day,
                                                  conv.end_of_month))
        else:
            continue
        end = from_ql(ql_index.maturityDate(to_ql(start)))
        got = api.ok("forward_rate", index=index, start_date=start.isoformat(), end_date=end.isoformat(),
                     valuation_time=VT)
        assert got["forward_rate"] == pytest.approx(quotes[pillar], abs=1e-8), pillar


def _fixed_schedule(result: dict, conv: cv.IndexConvention, tenor: str) -> list[ql.Date]:
    # As in the market: generated backwards from the unadjusted end, start + tenor
    start = to_ql(date.fromisoformat(result["start_date"]))
    end = start + ql.Period(tenor)
    period = cv.FREQUENCIES[result["fixed_leg_frequency"]][0]
    schedule = ql.Schedule(start, end, period, conv.calendar, conv.business_day, conv.business_day,
                           ql.DateGeneration.Backward, conv.end_of_month)
    return list(schedule)


@pytest.mark.parametrize("index,start", [("SONIA", "0D"), ("SOFR", "2D"), ("ESTR", "1M"), ("TONAR", "2D")])
@pytest.mark.parametrize("maturity,frequency", [("5Y", "1Y"), ("2Y", "6M"), ("10Y", "3M")])
def test_ois_par_rate_from_discount_factors(api, index, start, maturity, frequency):
    """par = sum DF(p_i)(DF(s_i)/DF(e_i) - 1) / sum tau_i DF(p_i); with no payment lag and a
    start on the valuation date (SONIA 0D) this is exactly (1 - DF(T)) / sum tau_i DF(t_i)."""
    conv = cv.INDEXES[index]
    result = api.ok("swap_rate", index=index, start_date=start, maturity_date=maturity,
                    fixed_leg_frequency=frequency, valuation_time=VT)
    assert result["floating_leg_frequency"] == cv.frequency_name(frequency)  # defaults to the fixed leg
    dates = _fixed_schedule(result, conv, maturity)
    assert from_ql(dates[-1]).isoformat() == result["maturity_date"]
    day_count = cv.DAY_COUNTS[result["fixed_leg_day_count"]]

    def df(d: ql.Date) -> float:
        return api.ok("discount_factor", index=index, date=from_ql(d).isoformat(),
                      valuation_time=VT)["discount_factor"]

    pay = [conv.calendar.advance(d, conv.payment_lag, ql.Days, ql.Following) for d in dates[1:]]
    assert from_ql(pay[0]).isoformat() == result["fixed_leg_first_payment_date"]
    annuity = sum(day_count.yearFraction(a, b) * df(p) for a, b, p in zip(dates[:-1], dates[1:], pay, strict=True))
    floating = sum(df(p) * (df(a) / df(b) - 1) for a, b, p in zip(dates[:-1], dates[1:], pay, strict=True))
    assert result["swap_rate"] == pytest.approx(100 * floating / annuity, abs=1e-6)
    if conv.payment_lag == 0 and start == "0D":
        textbook = (1 - df(dates[-1])) / sum(day_count.yearFraction(a, b) * df(b) for a, b in zip(dates[:-1], dates[1:], strict=True))
        assert dates[0] == to_ql(DAY)
        assert result["swap_rate"] == pytest.approx(100 * textbook, abs=1e-6)


@pytest.mark.parametrize("index", ["SOFR", "3M EURIBOR", "SONIA", "3M SAIBOR"])
@pytest.mark.parametrize("start,end", [("1M", "3M"), ("2Y", "6M"), ("2027-06-15", "2028-06-15")])
def test_forward_rate_is_simple_rate_between_discount_factors(api, index, start, end):
    got = api.ok("forward_rate", index=index, start_date=start, end_date=end, valuation_time=VT)
    dfs = [api.ok("discount_factor", index=index, date=got[k], valuation_time=VT)["discount_factor"]
           for k in ("start_date", "end_date")]
    tau = cv.DAY_COUNTS[cv.INDEXES[index].day_count].yearFraction(
        *(to_ql(date.fromisoformat(got[k])) for k in ("start_date", "end_date")))
    assert got["forward_rate"] == pytest.approx(100 * (dfs[0] / dfs[1] - 1) / tau, abs=1e-10)


def test_curves_agree_with_single_points(api):
    fwd = api.ok("forward_curve", index="3M EURIBOR", start_date="1M", end_date="2Y", tenor="3M",
                 frequency="3M", valuation_time=VT)
    assert len(fwd["curve"]) >= 8
    for point in fwd["curve"][:4]:
        single = api.ok("forward_rate", index="3M EURIBOR", start_date=point["start_date"],
                        end_date=point["end_date"], valuation_time=VT)
        assert point["forward_rate"] == pytest.approx(single["forward_rate"], abs=1e-12)
    disc = api.ok("discount_curve", index="SOFR", start_date="0D", end_date="30Y", frequency="1Y",
                  valuation_time=VT)
    assert disc["curve"][0]["discount_factor"] == pytest.approx(1.0, abs=1e-12)
    values = [p["discount_factor"] for p in disc["curve"]]
    assert all(a > b > 0 for a, b in zip(values, values[1:], strict=False))
    assert disc["curve"][-1]["date"] == disc["end_date"]


def test_end_of_month_schedules(api):
    eom = api.ok("discount_curve", index="SOFR", start_date="2026-03-31", end_date="2026-09-30",
                 frequency="1M", is_end_of_month="true", valuation_time=VT)
    assert [p["date"][-2:] for p in eom["curve"]] == ["31", "30", "29", "30", "31", "31", "30"]
    # 2026-05-31 is a Sunday: modified following rolls back to Friday 29th
    plain = api.ok("discount_curve", index="SOFR", start_date="2026-03-31", end_date="2026-09-30",
                   frequency="1M", is_end_of_month="false", valuation_time=VT)
    assert plain["is_end_of_month"] is False and plain["curve"][1]["date"] == "2026-04-30"
    assert plain["curve"][2]["date"] == "2026-05-29"  # from 31st, May 31 (Sun) rolls back


@pytest.mark.parametrize("pair,base,quote", [("EURUSD", "ESTR", "SOFR"), ("USDJPY", "SOFR", "TONAR"),
                                             ("GBPUSD", "SONIA", "SOFR"), ("USDSAR", "SOFR", "3M SAIBOR"),
                                             ("AUDUSD", "AONIA", "SOFR"), ("USDCAD", "SOFR", "CORRA")])
def test_fx_forward_covered_interest_parity(api, pair, base, quote):
    spot = api.ok("fx", currency_pair=pair, valuation_time=VT)["rate"]
    fwd = api.ok("fx_forward", currency_pair=pair, date="2027-03-10", valuation_time=VT)
    assert fwd["spot_rate"] == spot

    def df(index, d):
        return api.ok("discount_factor", index=index, date=d, valuation_time=VT)["discount_factor"]

    t, s = fwd["date"], fwd["spot_date"]
    expected = spot * (df(base, t) / df(base, s)) / (df(quote, t) / df(quote, s))
    assert fwd["rate"] == pytest.approx(expected, rel=1e-12)
    assert fwd["forward_diff"] == pytest.approx(fwd["rate"] - spot)


def test_fx_spots_are_plausible_and_triangles_close(api):
    spots = {p: api.ok("fx", currency_pair=p, valuation_time=VT)["rate"]
             for p in ["EURUSD", "GBPUSD", "USDJPY", "USDCHF", "AUDUSD", "USDCAD", "EURGBP", "USDSAR"]}
    assert 0.9 < spots["EURUSD"] < 1.5 and 100 < spots["USDJPY"] < 200 and 3.7 < spots["USDSAR"] < 3.8
    assert spots["EURGBP"] == pytest.approx(spots["EURUSD"] / spots["GBPUSD"], rel=1e-12)


@pytest.mark.parametrize("country", list(cv.GOVERNMENTS))
@pytest.mark.parametrize("maturity,forward_start", [("1Y", None), ("10Y", None), ("2031-06-30", None), ("5Y", "2Y")])
def test_government_yield_is_semiannual_zero_of_the_curve(api, country, maturity, forward_start):
    params = {"country_code": country, "maturity": maturity, "valuation_time": VT}
    if forward_start:
        params["forward_start"] = forward_start
    got = api.ok("gov_yield", **params)
    assert got["day_count"] == "Actual365Fixed" and got["compounding"] == "Semiannual"
    market = market_for(0)
    start = date.fromisoformat(got["forward_start"]) if forward_start else DAY
    end = date.fromisoformat(got["maturity"])
    df = market.government_discount(country, DAY, end) / market.government_discount(country, DAY, start)
    t = ql.Actual365Fixed().yearFraction(to_ql(start), to_ql(end))
    assert got["discount_factor"] == pytest.approx(df, rel=1e-14)
    assert got["yield"] == pytest.approx(2 * ((1 / df) ** (1 / (2 * t)) - 1), abs=1e-12)
    assert -0.01 < got["yield"] < 0.09  # decimal, not percent


def test_government_yields_reprice_snapshot_levels(api):
    us = api.ok("gov_yield", country_code="US", maturity="10Y", valuation_time=stamp(date(2026, 11, 20)))
    assert us["yield"] == pytest.approx(0.0419, abs=2e-4)  # the snapshot's 10Y, decimal


def test_swap_rate_states_its_conventions(api):
    saibor = api.ok("swap_rate", index="3M SAIBOR", start_date="2D", maturity_date="5Y",
                    fixed_leg_frequency="1Y", valuation_time=VT)
    assert (saibor["fixed_leg_frequency"], saibor["fixed_leg_day_count"]) == ("12M", "Actual360")
    assert (saibor["floating_leg_frequency"], saibor["floating_leg_day_count"]) == ("3M", "Actual360")
    assert saibor["conventions"]["calendar"] == ql.SaudiArabia().name()
    euribor = api.ok("swap_rate", index="3M EURIBOR", start_date="2D", maturity_date="10Y",
                     fixed_leg_frequency="1Y", valuation_time=VT)
    assert euribor["fixed_leg_day_count"] == "Thirty360BondBasis"
    assert euribor["conventions"]["discount_curve"] == "ESTR"
    # asking for another day count changes the rate: conventions are applied, not just echoed
    other = api.ok("swap_rate", index="3M EURIBOR", start_date="2D", maturity_date="10Y",
                   fixed_leg_frequency="1Y", fixed_leg_day_count="Actual360", valuation_time=VT)
    assert other["fixed_leg_day_count"] == "Actual360"
    assert other["swap_rate"] == pytest.approx(euribor["swap_rate"] * 360 / 365.25, rel=3e-3)
    assert other["swap_rate"] != euribor["swap_rate"]


def test_sofr_uses_the_sofr_calendar_not_government_bond(api):
    # Good Friday 2026 (April 3rd): SOFR is not published, yet bond markets were open
    good_friday = ql.Date(3, 4, 2026)
    assert not cv.INDEXES["SOFR"].calendar.isBusinessDay(good_friday)
    assert ql.UnitedStates(ql.UnitedStates.GovernmentBond).isBusinessDay(good_friday)
    got = api.ok("swap_rate", index="SOFR", start_date="2D", maturity_date="1Y", fixed_leg_frequency="1Y",
                 valuation_time="2026-04-01T16:00:00Z")
    assert got["start_date"] == "2026-04-06"  # Wed 1st + 2 SOFR business days skips Good Friday


def test_sample_levels_are_realistic(api):
    snapshot_time = stamp(date(2026, 11, 20))
    curve = api.ok("get_swap_curve", index="6M EURIBOR", valuation_time=snapshot_time)
    rates = {p["tenor"]: p["swap_rate"] for p in curve["swap_rates"]}
    assert rates["10Y"] == pytest.approx(2.90, abs=1e-8) and rates["30Y"] == pytest.approx(3.20, abs=1e-8)
    sofr5 = api.ok("swap_rate", index="SOFR", start_date="2D", maturity_date="5Y", fixed_leg_frequency="12M",
                   valuation_time=snapshot_time)["swap_rate"]
    assert 3.0 < sofr5 < 4.2


# Sunday for every calendar here but Saudi (whose weekend is Friday and Saturday).
NON_BUSINESS_DAYS = {"3M EURIBOR": "2026-11-15", "6M EURIBOR": "2026-11-15", "SOFR": "2026-11-15",
                     "ESTR": "2026-11-15", "3M SAIBOR": "2026-11-13"}


@pytest.mark.parametrize("index", sorted(NON_BUSINESS_DAYS))
def test_a_weekend_valuation_keeps_a_sane_short_end(sandbox, index):
    """From a weekend, QuantLib dates a term deposit's fixing in the past; the bootstrap
    must not let that pillar float (it once gave DF 0.92 after a month, forwards of 112 %)."""
    import requests

    when = f"{NON_BUSINESS_DAYS[index]}T12:00:00Z"
    headers = {"x-api-key": PAID_KEY}
    common = {"index": index, "valuation_time": when}
    dfs = requests.get(f"{sandbox.base_url}/v1/discount_curve", headers=headers, timeout=30, params={
        **common, "start_date": "0D", "end_date": "3M", "frequency": "1M"}).json()["curve"]
    fwd = requests.get(f"{sandbox.base_url}/v1/forward_curve", headers=headers, timeout=30, params={
        **common, "start_date": "2D", "end_date": "6M", "tenor": "3M", "frequency": "3M"}).json()["curve"]
    assert dfs[0]["discount_factor"] == pytest.approx(1.0, abs=1e-3)
    assert all(0.98 < p["discount_factor"] <= 1.0 for p in dfs), dfs
    rates = [p["forward_rate"] for p in fwd]
    assert all(0 < r < 10 for r in rates), rates
    assert abs(rates[0] - rates[1]) < 0.5, rates
