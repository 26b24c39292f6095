"""What every endpoint shares: the market, index lookup, and date resolution by the rules."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from fastapi import Query, Request

from rates_xl.sandbox import conventions as cv
from rates_xl.sandbox.errors import ServiceError, bad_param
from rates_xl.sandbox.market import Market
from rates_xl.sandbox.params import (
    DATE_OR_TENOR_PATTERN,
    TENOR_PATTERN,
    parse_date_or_tenor,
    parse_tenor,
)

Frequency = Literal[tuple(cv.FREQUENCIES)]  # type: ignore[valid-type]
DayCount = Literal[tuple(cv.DAY_COUNTS)]  # type: ignore[valid-type]
IndexParam = Annotated[str, Query(min_length=1, max_length=64, description="Index name, e.g. SOFR or 3M EURIBOR",
                                  examples=["SOFR"])]
ValuationTime = Annotated[str | None, Query(max_length=40, description="YYYY-MM-DDThh:mm:ssZ (UTC); default now")]


def date_or_tenor(description: str):
    return Query(pattern=DATE_OR_TENOR_PATTERN, description=description)


TenorQuery = Query(pattern=TENOR_PATTERN, description="A tenor such as 3M or 10Y")
SpacingQuery = Query(pattern=TENOR_PATTERN, description="Spacing between points, a tenor such as 1M or 3M")


LAST_PRICED_DATE = date(2150, 12, 31)  # QuantLib's calendars end in 2199: room for schedules


def within_horizon(name: str, compute) -> date:
    """The date `compute()` gives, or a 400 if it falls past what the sandbox prices."""
    try:
        result = compute()
    except RuntimeError:  # QuantLib: a date past 2199
        result = None
    if result is None or result > LAST_PRICED_DATE:
        raise bad_param(name, f"{name} falls after {LAST_PRICED_DATE}, beyond the dates the sandbox prices")
    return result


def get_market(request: Request) -> Market:
    return request.app.state.market


def resolve_index(name: str) -> cv.IndexConvention:
    canonical = cv.INDEX_ALIASES.get(name)
    if canonical is None:
        known = ", ".join(cv.INDEXES)
        raise ServiceError(422, f"Unknown index {name!r}: not in the sandbox's configuration. Known: {known}")
    return cv.INDEXES[canonical]


def resolve_start(market: Market, conv: cv.IndexConvention, name: str, value: str, valuation_date: date) -> date:
    """A start: a tenor counts from the valuation date, a date rolls by the index calendar."""
    parsed = parse_date_or_tenor(name, value)
    if isinstance(parsed, str):
        return within_horizon(name, lambda: market.advance(conv, valuation_date, parsed))
    return within_horizon(name, lambda: market.roll(conv.calendar, parsed, conv.business_day))


def resolve_end(market: Market, conv: cv.IndexConvention, name: str, value: str, start: date,
                end_of_month: bool | None = None) -> tuple[date, str | None]:
    """An end: a tenor counts from the start. Returns (date, tenor or None)."""
    parsed = parse_date_or_tenor(name, value)
    if isinstance(parsed, str):
        if int(parsed[:-1]) == 0:
            raise bad_param(name, f"{name} {parsed} is the start itself; give a positive tenor")
        return within_horizon(name, lambda: market.advance(conv, start, parsed, end_of_month)), parsed
    return within_horizon(name, lambda: market.roll(conv.calendar, parsed, conv.business_day)), None


def require_after(name: str, value: date, other_name: str, other: date) -> None:
    if value <= other:
        raise ServiceError(400, f"{name} {value} must be later than {other_name} {other}")


def schedule_dates(conv: cv.IndexConvention, start: date, end: date, spacing: str, eom: bool,
                   limit: int = 2000) -> list[date]:
    import QuantLib as ql

    from rates_xl.sandbox.market import from_ql, to_ql

    step = ql.Period(parse_tenor("frequency", spacing))  # 400 past a century
    if step.length() == 0:
        raise bad_param("frequency", "frequency must be a positive tenor such as 1M")
    span_days = (end - start).days
    approx_step = max(1, step.length() * {ql.Days: 1, ql.Weeks: 7, ql.Months: 30, ql.Years: 365}[step.units()])
    if span_days / approx_step > limit:
        raise ServiceError(400, f"frequency {spacing} from {start} to {end} gives more than {limit} points; "
                                "use a longer frequency or a shorter range")
    try:
        schedule = ql.Schedule(to_ql(start), to_ql(end), step, conv.calendar, conv.business_day,
                               conv.business_day, ql.DateGeneration.Forward, eom)
    except RuntimeError:  # QuantLib: a step that lands past its last date (2199)
        raise bad_param("frequency", f"frequency {spacing} steps past the dates the sandbox prices") from None
    return [from_ql(d) for d in schedule]
