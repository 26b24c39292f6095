"""The typed endpoint methods of `RatesClient`, one per service endpoint: each names its
parameters as the service does and returns its result model (models.py). They all go
through the client's one generic path, `get(endpoint, **params)` (client.py)."""

from __future__ import annotations

from datetime import date, datetime
from typing import TypeVar

from rates_xl.client import models
from rates_xl.client.errors import InvalidResponse

R = TypeVar("R", bound=models.Result)


class TypedEndpoints:
    """Mixed into `RatesClient`: `client.swap_rate("SOFR", "0D", "10Y", "1Y").swap_rate`."""

    def get(self, endpoint: str, **params: object) -> models.Result:
        raise NotImplementedError  # RatesClient's

    def _typed(self, model: type[R], endpoint: str, params: dict[str, object]) -> R:
        """`get(endpoint, **params)`, which answers with the endpoint's model (endpoints.py)."""
        answer = self.get(endpoint, **params)
        if not isinstance(answer, model):
            raise InvalidResponse(f"the answer is a {type(answer).__name__}, not a {model.__name__}",
                                  endpoint=endpoint)
        return answer

    def swap_rate(self, index: str, start_date: date | str, maturity_date: date | str,
                  fixed_leg_frequency: str, floating_leg_frequency: str | None = None,
                  fixed_leg_day_count: str | None = None, floating_leg_day_count: str | None = None,
                  valuation_time: datetime | str | None = None) -> models.SwapRate:
        return self._typed(models.SwapRate, "swap_rate", _args(locals()))

    def swap_curve(self, index: str, valuation_time: datetime | str | None = None) -> models.SwapCurve:
        return self._typed(models.SwapCurve, "swap_curve", _args(locals()))

    def forward_rate(self, index: str, start_date: date | str, end_date: date | str,
                     valuation_time: datetime | str | None = None) -> models.ForwardRate:
        return self._typed(models.ForwardRate, "forward_rate", _args(locals()))

    def forward_curve(self, index: str, start_date: date | str, end_date: date | str, tenor: str,
                      frequency: str, is_end_of_month: bool | None = None,
                      valuation_time: datetime | str | None = None) -> models.ForwardCurve:
        return self._typed(models.ForwardCurve, "forward_curve", _args(locals()))

    def discount_factor(self, index: str, date: date | str,
                        valuation_time: datetime | str | None = None) -> models.DiscountFactor:
        return self._typed(models.DiscountFactor, "discount_factor", _args(locals()))

    def discount_curve(self, index: str, start_date: date | str, end_date: date | str,
                       frequency: str, is_end_of_month: bool | None = None,
                       valuation_time: datetime | str | None = None) -> models.DiscountCurve:
        return self._typed(models.DiscountCurve, "discount_curve", _args(locals()))

    def fx_spot(self, currency_pair: str, valuation_time: datetime | str | None = None) -> models.FxSpot:
        return self._typed(models.FxSpot, "fx_spot", _args(locals()))

    def fx_forward(self, currency_pair: str, date: date | str | None = None,
                   valuation_time: datetime | str | None = None) -> models.FxForward:
        return self._typed(models.FxForward, "fx_forward", _args(locals()))

    def gov_yield(self, country_code: str, maturity: date | str, forward_start: date | str | None = None,
                  valuation_time: datetime | str | None = None) -> models.GovYield:
        return self._typed(models.GovYield, "gov_yield", _args(locals()))

    def fixing(self, index: str, valuation_date: date | str | None = None) -> models.Fixing:
        return self._typed(models.Fixing, "fixing", _args(locals()))

    def historical_swap_rates(self, index: str, tenor: str, start_date: date | str,
                              end_date: date | str) -> models.HistoricalSwapRates:
        return self._typed(models.HistoricalSwapRates, "historical_swap_rates", _args(locals()))

    def swap_rate_tenors(self, index: str) -> models.SwapRateTenors:
        return self._typed(models.SwapRateTenors, "swap_rate_tenors", _args(locals()))


def _args(local_vars: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in local_vars.items() if k != "self"}
