"""Market-data endpoints: FX spot and forwards, government yields, fixings, history."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Annotated

import QuantLib as ql
from fastapi import APIRouter, Depends, Query

from rates_xl.sandbox import conventions as cv
from rates_xl.sandbox import scenario, schemas
from rates_xl.sandbox.errors import ServiceError
from rates_xl.sandbox.market import Market, from_ql, to_ql
from rates_xl.sandbox.params import (
    DATE_PATTERN,
    parse_date,
    parse_date_or_tenor,
    parse_tenor,
    valuation,
)
from rates_xl.sandbox.routes_common import (
    IndexParam,
    TenorQuery,
    ValuationTime,
    date_or_tenor,
    get_market,
    resolve_index,
    within_horizon,
)

router = APIRouter()
MarketDep = Annotated[Market, Depends(get_market)]
PairQuery = Query(pattern=r"^[A-Za-z]{6}$", description="Base then quote ISO codes, e.g. EURUSD")
DateQuery = Query(pattern=DATE_PATTERN, description="YYYY-MM-DD")


def _pair(currency_pair: str) -> tuple[str, str, str]:
    pair = currency_pair.upper()
    base, quote = pair[:3], pair[3:]
    unknown = [c for c in (base, quote) if c not in cv.FX_DISCOUNT_INDEX]
    if unknown:
        raise ServiceError(422, f"Unknown currency pair {pair}: {', '.join(unknown)} not in the sandbox's "
                                f"configuration. Currencies: {', '.join(cv.FX_DISCOUNT_INDEX)}")
    if base == quote:
        raise ServiceError(400, f"currency_pair {pair} names the same currency twice")
    return pair, base, quote


@router.get("/fx", response_model=schemas.FxSpot, summary="FX spot: quote currency per one base unit")
def fx(market: MarketDep, currency_pair: Annotated[str, PairQuery], valuation_time: ValuationTime = None) -> dict:
    pair, base, quote = _pair(currency_pair)
    val = valuation(valuation_time)
    close = scenario.market_date(market.fx_calendar(base, quote), val.date)
    return {"currency_pair": pair, "valuation_time": val.stamp,
            "rate": market.fx_spot(base, quote, val.date), "close_date": close.isoformat()}


@router.get("/fx_forward", response_model=schemas.FxForward,
            summary="FX forward by covered interest parity on the two currencies' OIS curves")
def fx_forward(
    market: MarketDep,
    currency_pair: Annotated[str, PairQuery],
    date: Annotated[str | None, DateQuery] = None,
    valuation_time: ValuationTime = None,
) -> dict:
    pair, base, quote = _pair(currency_pair)
    val = valuation(valuation_time)
    when = val.date if date is None else parse_date("date", date)
    calendar = market.fx_calendar(base, quote)
    when = within_horizon("date", lambda: from_ql(calendar.adjust(to_ql(when), ql.Following)))
    if when < val.date:
        raise ServiceError(400, f"date {when} is before the valuation date {val.date}")
    rate, spot, spot_date = market.fx_forward(base, quote, val.date, when)
    return {
        "currency_pair": pair, "date": when.isoformat(), "rate": rate, "valuation_time": val.stamp,
        "spot_rate": spot, "spot_date": spot_date.isoformat(), "forward_diff": rate - spot,
        "days_forward": (when - spot_date).days,
    }


def _gov_date(gov: cv.GovernmentConvention, start, parsed) -> date:
    """A tenor counts from `start`; every date rolls by the country's calendar."""
    if isinstance(parsed, str):
        return from_ql(gov.calendar.advance(to_ql(start), ql.Period(parsed), ql.ModifiedFollowing))
    return from_ql(gov.calendar.adjust(to_ql(parsed), ql.ModifiedFollowing))


@router.get("/gov_yield", response_model=schemas.GovernmentYield, response_model_by_alias=True,
            summary="Government zero-coupon yield (decimal, semi-annual compounding)")
def gov_yield(
    market: MarketDep,
    country_code: Annotated[str, Query(pattern=r"^[A-Za-z]{2}$", description="US, UK, DE, FR, IT, ES, JP, CA, AU")],
    maturity: Annotated[str, date_or_tenor("A date, or a tenor from the start (forward_start or now)")],
    forward_start: Annotated[str | None, date_or_tenor("Optional forward start: a date or a tenor from now")] = None,
    valuation_time: ValuationTime = None,
) -> dict:
    country = cv.COUNTRY_ALIASES.get(country_code.upper())
    if country is None:
        raise ServiceError(422, f"Unknown country_code {country_code!r}: government curves exist for "
                                f"{', '.join(cv.GOVERNMENTS)}")
    gov = cv.GOVERNMENTS[country]
    val = valuation(valuation_time)
    start = val.date
    if forward_start is not None:
        parsed = parse_date_or_tenor("forward_start", forward_start)
        start = within_horizon("forward_start", lambda: _gov_date(gov, val.date, parsed))
        if start <= val.date:
            raise ServiceError(400, f"forward_start {start} must be later than the valuation date {val.date}")
    parsed = parse_date_or_tenor("maturity", maturity)
    end = within_horizon("maturity", lambda: _gov_date(gov, start, parsed))
    tenor = parsed if isinstance(parsed, str) else f"{(end - start).days}D"
    if end <= start:
        raise ServiceError(400, f"maturity {end} must be later than the start {start}")
    day_count = cv.DAY_COUNTS[gov.day_count]
    t = day_count.yearFraction(to_ql(start), to_ql(end))
    discount = (market.government_discount(country, val.date, end)
                / market.government_discount(country, val.date, start))
    zero = 2.0 * ((1.0 / discount) ** (1.0 / (2.0 * t)) - 1.0)
    return {
        "country_code": country, "tenor": tenor, "valuation_time": val.stamp, "yield": zero,
        "maturity": end.isoformat(), "forward_start": start.isoformat() if forward_start else None,
        "day_count": gov.day_count, "compounding": gov.compounding, "discount_factor": discount,
    }


@router.get("/fixing", response_model=schemas.Fixing, summary="Fixing (percent) of an index on a date")
def fixing(
    market: MarketDep,
    index: IndexParam,
    valuation_date: Annotated[str | None, DateQuery] = None,
) -> dict:
    conv = resolve_index(index)
    if not conv.publishes_fixings:
        raise ServiceError(404, f"Fixing not found: {conv.name} fixings are not published by the service")
    today = datetime.now(UTC).date()
    if valuation_date is None:
        asked = today
        day = scenario.market_date(conv.calendar, today)
    else:
        asked = day = parse_date("valuation_date", valuation_date)
        if day > today:
            raise ServiceError(404, f"Fixing not found: {conv.name} has no fixing for {day}, a future date")
        if day < scenario.FIRST_DATE:
            raise ServiceError(404, f"Fixing not found: no {conv.name} fixings before {scenario.FIRST_DATE}")
        if not conv.calendar.isBusinessDay(to_ql(day)):
            raise ServiceError(404, f"Fixing not found: {day} is not a business day on the "
                                    f"{conv.calendar.name()} calendar, so {conv.name} did not fix")
    return {"index": conv.name, "valuation_date": asked.isoformat(),
            "fixing_rate": scenario.fixing(market.seed, conv.name, day), "fixing_date": day.isoformat()}


def _same_tenor(a: str, b: str) -> bool:
    return ql.Period(a) == ql.Period(b)


@router.get("/historical_swap_rates", response_model=schemas.HistoricalSwapRates,
            summary="Each business day's closing swap rate (percent) at one curve tenor")
def historical_swap_rates(
    market: MarketDep,
    index: IndexParam,
    tenor: Annotated[str, TenorQuery],
    start_date: Annotated[str, DateQuery],
    end_date: Annotated[str, DateQuery],
) -> dict:
    conv = resolve_index(index)
    parse_tenor("tenor", tenor)
    first, last = parse_date("start_date", start_date), parse_date("end_date", end_date)
    if last < first:
        raise ServiceError(400, f"end_date {last} is before start_date {first}")
    pillar = next((t for t in conv.swap_tenors if _same_tenor(t, tenor)), None)
    if pillar is None:
        raise ServiceError(404, f"No history for {conv.name} {tenor}: history is kept for the curve tenors "
                                f"{', '.join(conv.swap_tenors)}")
    today = datetime.now(UTC).date()
    day, last = max(first, scenario.FIRST_DATE), min(last, today)
    points = []
    # One history at a time per index: requests for several tenors of one index arrive
    # together (a history grid) and need the same days' quotes; computed once and cached
    # (index_quotes), they are not computed once per request in parallel (a cold five-year
    # grid of four tenors took four times as long, past a client's attempt timeout).
    with scenario.history_lock(market.seed, conv.name):
        while day <= last:
            if conv.calendar.isBusinessDay(to_ql(day)):
                rate = scenario.index_quotes(market.seed, conv.name, day)[pillar]
                points.append({"rate": rate, "date": day.isoformat(), "tenor": pillar})
            day += timedelta(days=1)
    if not points:
        raise ServiceError(404, f"No {conv.name} history between {first} and {min(last, today)} "
                                f"(history runs from {scenario.FIRST_DATE} to today, business days only)")
    return {
        "index_name": conv.name, "currency": conv.currency,
        "fixed_leg_day_count": conv.fixed_day_count, "floating_leg_day_count": conv.day_count,
        "fixed_leg_frequency": conv.fixed_frequency, "floating_leg_frequency": conv.float_frequency,
        "swap_rates": points,
    }
