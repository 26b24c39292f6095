"""Response bodies, field for field as the interface document and service-facts.md name them.

Units: swap, forward, fixing and historical rates in percent; government yields as
decimals; dates `YYYY-MM-DD`; timestamps `YYYY-MM-DDThh:mm:ssZ`. Fields beyond the
documented ones are extras the real service is known to send (clients ignore them) or
the conventions the sandbox used, stated so nobody has to guess.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class SwapConventions(BaseModel):
    calendar: str
    business_day_convention: str
    end_of_month: bool
    spot_lag_days: int
    payment_lag_days: int
    discount_curve: str
    floating_leg_method: str


class SwapRate(BaseModel):
    index: str
    start_date: str
    maturity_date: str
    fixed_leg_first_payment_date: str
    floating_leg_first_payment_date: str
    floating_leg_frequency: str
    floating_leg_day_count: str
    fixed_leg_frequency: str
    fixed_leg_day_count: str
    valuation_time: str
    swap_rate: float
    conventions: SwapConventions


class SwapCurvePoint(BaseModel):
    tenor: str
    swap_rate: float
    timestamp: str


class SwapCurve(BaseModel):
    index_name: str
    start_date: str
    floating_leg_frequency: str
    floating_leg_day_count: str
    fixed_leg_frequency: str
    fixed_leg_day_count: str
    valuation_time: str
    timestamp: str
    swap_rates: list[SwapCurvePoint]


class ForwardRate(BaseModel):
    index: str
    start_date: str
    end_date: str
    valuation_time: str
    forward_rate: float
    day_count: str


class DiscountFactor(BaseModel):
    index: str
    date: str
    valuation_time: str
    discount_factor: float


class FxSpot(BaseModel):
    currency_pair: str
    valuation_time: str
    rate: float
    close_date: str


class FxForward(BaseModel):
    currency_pair: str
    date: str
    rate: float
    valuation_time: str
    spot_rate: float
    spot_date: str
    forward_diff: float
    days_forward: int


class GovernmentYield(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    country_code: str
    tenor: str
    valuation_time: str
    yield_: float = Field(alias="yield")
    maturity: str
    forward_start: str | None
    day_count: str
    compounding: str
    discount_factor: float


class ForwardCurvePoint(BaseModel):
    start_date: str
    end_date: str
    forward_rate: float


class ForwardCurve(BaseModel):
    start_date: str
    end_date: str
    index: str
    tenor: str
    valuation_time: str
    is_end_of_month: bool
    frequency: str
    curve: list[ForwardCurvePoint]


class DiscountCurvePoint(BaseModel):
    date: str
    discount_factor: float


class DiscountCurve(BaseModel):
    start_date: str
    end_date: str
    index: str
    valuation_time: str
    is_end_of_month: bool
    frequency: str
    curve: list[DiscountCurvePoint]


class Fixing(BaseModel):
    index: str
    valuation_date: str
    fixing_rate: float
    fixing_date: str


class HistoricalPoint(BaseModel):
    rate: float
    date: str
    tenor: str


class HistoricalSwapRates(BaseModel):
    index_name: str
    currency: str
    fixed_leg_day_count: str
    floating_leg_day_count: str
    fixed_leg_frequency: str
    floating_leg_frequency: str
    swap_rates: list[HistoricalPoint]


class SwapTenors(BaseModel):
    index: str
    tenors: list[str]


class ErrorBody(BaseModel):
    detail: str | list[dict]
