"""Typed results, one pydantic model per documented result object.

Field names are the service's own. Units are the service's: swap, forward, fixing and
historical rates in percent (2.6 means 2.6 %), government yields as decimals (0.0347),
FX as quote currency per one unit of base. Unknown fields are ignored (the service adds
some, such as `timestamp`); timestamps become aware UTC datetimes.

A number must be finite: `NaN`, `Infinity` or `1e999` (which JSON parsers read as infinity)
is refused here, where every answer is parsed (the wire, a cache tier, a teammate's answer,
a market-data pack's), so no host can show `nan` or `inf` in a cell (`non_finite` names the
field for the cell's message).
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError


def _as_utc(value: datetime) -> datetime:
    # The service writes UTC, sometimes without the trailing Z.
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


UtcTimestamp = Annotated[datetime, AfterValidator(_as_utc)]


class Result(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True, allow_inf_nan=False)


def non_finite(exc: ValidationError) -> str | None:
    """'NaN (not a number) for swap_rate of point 3 of swap_rates' when the answer was refused
    for a number that is not finite; None when it was refused for something else."""
    for err in exc.errors(include_url=False):
        value = err.get("input")
        if err["type"] == "finite_number" or (err["type"] == "float_type" and isinstance(value, int)
                                              and not isinstance(value, bool)):
            return f"{_spelled(value)} for {_where(err['loc'])}"
    return None


def _spelled(value: object) -> str:
    text = str(value).strip().lower()
    if text in ("nan", "-nan", "+nan"):
        return "NaN (not a number)"
    if isinstance(value, int) or "e" in text and "inf" not in text:
        return "a number too large to hold"
    return "an infinite number (Infinity, or one too large to hold such as 1e999)"


def _where(loc: tuple[int | str, ...]) -> str:
    """('swap_rates', 2, 'swap_rate') -> 'swap_rate of point 3 of swap_rates'."""
    words, parts = [], list(loc)
    while parts:
        name = parts.pop()
        if isinstance(name, int):
            continue
        words.append(str(name))
        if len(parts) >= 2 and isinstance(parts[-1], int):
            words.append(f"of point {parts[-1] + 1} of")
            parts.pop()
        elif parts:
            words.append("of")
    return " ".join(words)


class SwapRate(Result):
    index: str
    start_date: date
    maturity_date: date
    fixed_leg_first_payment_date: date | None = None
    floating_leg_first_payment_date: date | None = None
    floating_leg_frequency: str | None = None
    floating_leg_day_count: str | None = None
    fixed_leg_frequency: str | None = None
    fixed_leg_day_count: str | None = None
    valuation_time: UtcTimestamp | None = None
    swap_rate: float


class SwapCurvePoint(Result):
    tenor: str
    swap_rate: float


class SwapCurve(Result):
    index_name: str
    start_date: date | None = None
    floating_leg_frequency: str | None = None
    floating_leg_day_count: str | None = None
    fixed_leg_frequency: str | None = None
    fixed_leg_day_count: str | None = None
    valuation_time: UtcTimestamp | None = None
    swap_rates: list[SwapCurvePoint]


class ForwardRate(Result):
    index: str
    start_date: date
    end_date: date
    valuation_time: UtcTimestamp | None = None
    forward_rate: float


class DiscountFactor(Result):
    index: str
    date: date
    valuation_time: UtcTimestamp | None = None
    discount_factor: float


class FxSpot(Result):
    currency_pair: str
    valuation_time: UtcTimestamp | None = None
    rate: float


class FxForward(Result):
    currency_pair: str
    date: date
    rate: float
    valuation_time: UtcTimestamp | None = None
    spot_rate: float | None = None


class GovYield(Result):
    country_code: str
    tenor: str | None = None
    valuation_time: UtcTimestamp | None = None
    # `yield` is a Python keyword: the attribute is `yield_`, the JSON field `yield`.
    yield_: float = Field(alias="yield")
    maturity: date | None = None


class ForwardCurvePoint(Result):
    start_date: date
    end_date: date
    forward_rate: float


class ForwardCurve(Result):
    start_date: date
    end_date: date
    index: str
    tenor: str
    valuation_time: UtcTimestamp | None = None
    is_end_of_month: bool | None = None
    frequency: str
    curve: list[ForwardCurvePoint]


class DiscountCurvePoint(Result):
    date: date
    discount_factor: float


class DiscountCurve(Result):
    start_date: date
    end_date: date
    index: str
    valuation_time: UtcTimestamp | None = None
    is_end_of_month: bool | None = None
    frequency: str
    curve: list[DiscountCurvePoint]


class Fixing(Result):
    index: str
    valuation_date: date | None = None
    fixing_rate: float
    fixing_date: date


class HistoricalSwapRate(Result):
    rate: float
    date: date
    tenor: str


class HistoricalSwapRates(Result):
    index_name: str
    currency: str | None = None
    fixed_leg_day_count: str | None = None
    floating_leg_day_count: str | None = None
    fixed_leg_frequency: str | None = None
    floating_leg_frequency: str | None = None
    swap_rates: list[HistoricalSwapRate]


class SwapRateTenors(Result):
    index: str
    tenors: list[str]
