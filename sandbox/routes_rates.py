"""Rate-curve endpoints: swap rates, forwards and discount factors, single points and curves."""

from __future__ import annotations

from typing import Annotated

import QuantLib as ql
from fastapi import APIRouter, Depends, Query

from rates_xl.sandbox import conventions as cv
from rates_xl.sandbox import schemas
from rates_xl.sandbox.errors import ServiceError
from rates_xl.sandbox.market import Market
from rates_xl.sandbox.params import format_timestamp, valuation
from rates_xl.sandbox.routes_common import (
    DayCount,
    Frequency,
    IndexParam,
    SpacingQuery,
    TenorQuery,
    ValuationTime,
    date_or_tenor,
    get_market,
    require_after,
    resolve_end,
    resolve_index,
    resolve_start,
    schedule_dates,
    within_horizon,
)

router = APIRouter()
MarketDep = Annotated[Market, Depends(get_market)]
BDC_NAMES = {ql.ModifiedFollowing: "ModifiedFollowing", ql.Following: "Following"}


def _floating_frequency(conv: cv.IndexConvention, requested: str | None, fixed: str) -> str:
    if conv.kind == "overnight":
        return cv.frequency_name(requested or fixed)
    tenor = conv.float_frequency
    if requested is not None and cv.FREQUENCIES[requested][0] != conv.tenor:
        raise ServiceError(400, f"floating_leg_frequency {requested} does not match the {conv.name} tenor "
                                f"({tenor}): a {conv.name} floating leg pays every {tenor}; "
                                f"omit floating_leg_frequency or pass {tenor}")
    return tenor


@router.get("/swap_rate", response_model=schemas.SwapRate, summary="Par swap rate (percent)")
def swap_rate(
    market: MarketDep,
    index: IndexParam,
    start_date: Annotated[str, date_or_tenor("Start: a date, or a tenor from the valuation date (0D, 2D, 1Y)")],
    maturity_date: Annotated[str, date_or_tenor("Maturity: a date, or a tenor from the start")],
    fixed_leg_frequency: Annotated[Frequency, Query()],
    floating_leg_frequency: Annotated[Frequency | None, Query()] = None,
    fixed_leg_day_count: Annotated[DayCount | None, Query()] = None,
    floating_leg_day_count: Annotated[DayCount | None, Query()] = None,
    valuation_time: ValuationTime = None,
) -> dict:
    conv = resolve_index(index)
    val = valuation(valuation_time)
    start = resolve_start(market, conv, "start_date", start_date, val.date)
    if start < val.date:
        raise ServiceError(400, f"start_date {start} is before the valuation date {val.date}; "
                                "to price on a past market, set valuation_time")
    maturity, tenor = resolve_end(market, conv, "maturity_date", maturity_date, start)
    require_after("maturity_date", maturity, "start_date", start)
    floating = _floating_frequency(conv, floating_leg_frequency, fixed_leg_frequency)
    fixed_dc = fixed_leg_day_count or conv.fixed_day_count
    floating_dc = floating_leg_day_count or conv.day_count
    result = market.swap_rate(conv.name, val.date, start, tenor or maturity, fixed_leg_frequency,
                              floating, fixed_dc, floating_dc)
    method = ("overnight rate compounded daily, flat" if conv.kind == "overnight"
              else f"{conv.name} fixings, indexed coupons")
    return {
        "index": conv.name,
        "start_date": result.start.isoformat(),
        "maturity_date": result.maturity.isoformat(),
        "fixed_leg_first_payment_date": result.fixed_first_payment.isoformat(),
        "floating_leg_first_payment_date": result.floating_first_payment.isoformat(),
        "floating_leg_frequency": cv.frequency_name(floating),
        "floating_leg_day_count": floating_dc,
        "fixed_leg_frequency": cv.frequency_name(fixed_leg_frequency),
        "fixed_leg_day_count": fixed_dc,
        "valuation_time": val.stamp,
        "swap_rate": result.rate,
        "conventions": {
            "calendar": conv.calendar.name(),
            "business_day_convention": BDC_NAMES.get(conv.business_day, str(conv.business_day)),
            "end_of_month": conv.end_of_month,
            "spot_lag_days": conv.spot_lag,
            "payment_lag_days": conv.payment_lag,
            "discount_curve": conv.discount_index or conv.name,
            "floating_leg_method": method,
        },
    }


@router.get("/get_swap_curve", response_model=schemas.SwapCurve, summary="Spot swap rates at every curve tenor")
def get_swap_curve(market: MarketDep, index: IndexParam, valuation_time: ValuationTime = None) -> dict:
    conv = resolve_index(index)
    val = valuation(valuation_time)
    points = market.swap_curve(conv.name, val.date)
    if not points:
        raise ServiceError(404, f"No swap tenors are configured for {conv.name}")
    close = market.curve(conv.name, val.date).market_date
    stamp = format_timestamp(val.time) if close == val.date else f"{close.isoformat()}T00:00:00Z"
    return {
        "index_name": conv.name,
        "start_date": points[0][1].start.isoformat(),
        "floating_leg_frequency": conv.float_frequency,
        "floating_leg_day_count": conv.day_count,
        "fixed_leg_frequency": conv.fixed_frequency,
        "fixed_leg_day_count": conv.fixed_day_count,
        "valuation_time": val.stamp,
        "timestamp": stamp,
        "swap_rates": [{"tenor": t, "swap_rate": r.rate, "timestamp": stamp} for t, r in points],
    }


@router.get("/swap_rate_tenors", response_model=schemas.SwapTenors, summary="Tenors of the index's swap curve")
def swap_rate_tenors(index: IndexParam) -> dict:
    conv = resolve_index(index)
    if not conv.swap_tenors:
        raise ServiceError(404, f"No swap tenors are configured for {conv.name}")
    return {"index": conv.name, "tenors": list(conv.swap_tenors)}


@router.get("/forward_rate", response_model=schemas.ForwardRate,
            summary="Simple forward rate (percent) on the index day count")
def forward_rate(
    market: MarketDep,
    index: IndexParam,
    start_date: Annotated[str, date_or_tenor("Start, after the valuation date: a date or a tenor from it")],
    end_date: Annotated[str, date_or_tenor("End: a date, or a tenor from the start")],
    valuation_time: ValuationTime = None,
) -> dict:
    conv = resolve_index(index)
    val = valuation(valuation_time)
    start = resolve_start(market, conv, "start_date", start_date, val.date)
    require_after("start_date", start, "the valuation date", val.date)
    end, _ = resolve_end(market, conv, "end_date", end_date, start)
    require_after("end_date", end, "start_date", start)
    return {
        "index": conv.name,
        "start_date": start.isoformat(),
        "end_date": end.isoformat(),
        "valuation_time": val.stamp,
        "forward_rate": market.forward_rate(conv.name, val.date, start, end),
        "day_count": conv.day_count,
    }


@router.get("/discount_factor", response_model=schemas.DiscountFactor, summary="Discount factor to a date")
def discount_factor(
    market: MarketDep,
    index: IndexParam,
    date: Annotated[str, date_or_tenor("A date, or a tenor from the valuation date")],
    valuation_time: ValuationTime = None,
) -> dict:
    conv = resolve_index(index)
    val = valuation(valuation_time)
    when = resolve_start(market, conv, "date", date, val.date)
    if when < val.date:
        raise ServiceError(400, f"date {when} is before the valuation date {val.date}")
    return {
        "index": conv.name,
        "date": when.isoformat(),
        "valuation_time": val.stamp,
        "discount_factor": market.discount(conv.name, val.date, when),
    }


def curve_window(market: Market, index: str, start_date: str, end_date: str,
                 is_end_of_month: bool | None, valuation_time: str | None, *, may_start_today: bool):
    """The index, valuation, end-of-month rule, start and end of a curve's schedule.

    A forward curve must start after the valuation date; a discount curve may start on it.
    """
    conv = resolve_index(index)
    val = valuation(valuation_time)
    eom = conv.end_of_month if is_end_of_month is None else is_end_of_month
    start = resolve_start(market, conv, "start_date", start_date, val.date)
    if may_start_today:
        if start < val.date:
            raise ServiceError(400, f"start_date {start} is before the valuation date {val.date}")
    else:
        require_after("start_date", start, "the valuation date", val.date)
    end, _ = resolve_end(market, conv, "end_date", end_date, start, eom)
    require_after("end_date", end, "start_date", start)
    return conv, val, eom, start, end


@router.get("/forward_curve", response_model=schemas.ForwardCurve,
            summary="Forward rates of `tenor`-long periods starting every `frequency`")
def forward_curve(
    market: MarketDep,
    index: IndexParam,
    start_date: Annotated[str, date_or_tenor("First period start, after the valuation date")],
    end_date: Annotated[str, date_or_tenor("Last period start: a date, or a tenor from start_date")],
    tenor: Annotated[str, TenorQuery],
    frequency: Annotated[str, SpacingQuery],
    is_end_of_month: bool | None = None,
    valuation_time: ValuationTime = None,
) -> dict:
    conv, val, eom, start, end = curve_window(
        market, index, start_date, end_date, is_end_of_month, valuation_time, may_start_today=False)
    if int(tenor[:-1]) == 0:
        raise ServiceError(400, "tenor must be a positive period such as 3M")
    points = []
    for period_start in schedule_dates(conv, start, end, frequency, eom):
        period_end = within_horizon("tenor", lambda d=period_start: market.advance(conv, d, tenor, eom))
        rate = market.forward_rate(conv.name, val.date, period_start, period_end)
        points.append({"start_date": period_start.isoformat(), "end_date": period_end.isoformat(),
                       "forward_rate": rate})
    return {
        "start_date": start.isoformat(), "end_date": end.isoformat(), "index": conv.name,
        "tenor": tenor, "valuation_time": val.stamp, "is_end_of_month": eom,
        "frequency": cv.frequency_name(frequency), "curve": points,
    }


@router.get("/discount_curve", response_model=schemas.DiscountCurve,
            summary="Discount factors on a schedule from start to end")
def discount_curve(
    market: MarketDep,
    index: IndexParam,
    start_date: Annotated[str, date_or_tenor("First date: a date, or a tenor from the valuation date")],
    end_date: Annotated[str, date_or_tenor("Last date: a date, or a tenor from start_date")],
    frequency: Annotated[str, SpacingQuery],
    is_end_of_month: bool | None = None,
    valuation_time: ValuationTime = None,
) -> dict:
    conv, val, eom, start, end = curve_window(
        market, index, start_date, end_date, is_end_of_month, valuation_time, may_start_today=True)
    points = [{"date": d.isoformat(), "discount_factor": market.discount(conv.name, val.date, d)}
              for d in schedule_dates(conv, start, end, frequency, eom)]
    return {
        "start_date": start.isoformat(), "end_date": end.isoformat(), "index": conv.name,
        "valuation_time": val.stamp, "is_end_of_month": eom,
        "frequency": cv.frequency_name(frequency), "curve": points,
    }
