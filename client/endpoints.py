"""The endpoint table: every service endpoint in one place.

For each endpoint: its path, its result model, its parameters with their kind (which says
how a value is normalised for the wire and for the cache key) and which are required, and
its cache class (which TTL setting applies). The typed methods of `RatesClient` are thin
wrappers over this table.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from enum import Enum
from typing import NamedTuple

from rates_xl.client import models
from rates_xl.client.daycounts import canonical_day_count

TENOR_RE = re.compile(r"^[0-9]+[DWMY]$")


class Kind(Enum):
    INDEX = "index"
    DATE_OR_TENOR = "date_or_tenor"
    DATE = "date"
    TIMESTAMP = "timestamp"
    TENOR = "tenor"
    FREQUENCY = "frequency"
    DAY_COUNT = "day_count"
    CURRENCY_PAIR = "currency_pair"
    COUNTRY = "country"
    BOOL = "bool"


class CacheClass(Enum):
    """Which TTL setting an answer lives for (the interface document's suggestions)."""

    LIVE = "live"  # swap rates, curves, forwards, discount factors, US gov yields
    FX = "fx"  # FX spot and forwards
    DAILY = "daily"  # non-US government yields, updated daily
    HISTORY = "history"  # historical swap rates, fixings of past dates, tenor lists


class RequestKey(NamedTuple):
    """One distinct service request: the endpoint and its normalised parameters."""

    endpoint: str
    params: tuple[tuple[str, str], ...]

    def __str__(self) -> str:
        return f"{self.endpoint}({', '.join(f'{k}={v}' for k, v in self.params)})"


@dataclass(frozen=True)
class Endpoint:
    name: str
    path: str
    model: type[models.Result]
    params: Mapping[str, Kind]
    required: tuple[str, ...]
    cache_class: CacheClass


_V = "valuation_time"

ENDPOINTS: dict[str, Endpoint] = {
    e.name: e
    for e in [
        Endpoint(
            "swap_rate", "/v1/swap_rate", models.SwapRate,
            {"index": Kind.INDEX, "start_date": Kind.DATE_OR_TENOR,
             "maturity_date": Kind.DATE_OR_TENOR, "fixed_leg_frequency": Kind.FREQUENCY,
             "floating_leg_frequency": Kind.FREQUENCY, "fixed_leg_day_count": Kind.DAY_COUNT,
             "floating_leg_day_count": Kind.DAY_COUNT, _V: Kind.TIMESTAMP},
            ("index", "start_date", "maturity_date", "fixed_leg_frequency"), CacheClass.LIVE,
        ),
        Endpoint(
            "swap_curve", "/v1/get_swap_curve", models.SwapCurve,
            {"index": Kind.INDEX, _V: Kind.TIMESTAMP}, ("index",), CacheClass.LIVE,
        ),
        Endpoint(
            "forward_rate", "/v1/forward_rate", models.ForwardRate,
            {"index": Kind.INDEX, "start_date": Kind.DATE_OR_TENOR,
             "end_date": Kind.DATE_OR_TENOR, _V: Kind.TIMESTAMP},
            ("index", "start_date", "end_date"), CacheClass.LIVE,
        ),
        Endpoint(
            "forward_curve", "/v1/forward_curve", models.ForwardCurve,
            {"index": Kind.INDEX, "start_date": Kind.DATE_OR_TENOR,
             "end_date": Kind.DATE_OR_TENOR, "tenor": Kind.TENOR, "frequency": Kind.FREQUENCY,
             "is_end_of_month": Kind.BOOL, _V: Kind.TIMESTAMP},
            ("index", "start_date", "end_date", "tenor", "frequency"), CacheClass.LIVE,
        ),
        Endpoint(
            "discount_factor", "/v1/discount_factor", models.DiscountFactor,
            {"index": Kind.INDEX, "date": Kind.DATE_OR_TENOR, _V: Kind.TIMESTAMP},
            ("index", "date"), CacheClass.LIVE,
        ),
        Endpoint(
            "discount_curve", "/v1/discount_curve", models.DiscountCurve,
            {"index": Kind.INDEX, "start_date": Kind.DATE_OR_TENOR,
             "end_date": Kind.DATE_OR_TENOR, "frequency": Kind.FREQUENCY,
             "is_end_of_month": Kind.BOOL, _V: Kind.TIMESTAMP},
            ("index", "start_date", "end_date", "frequency"), CacheClass.LIVE,
        ),
        Endpoint(
            "fx_spot", "/v1/fx", models.FxSpot,
            {"currency_pair": Kind.CURRENCY_PAIR, _V: Kind.TIMESTAMP},
            ("currency_pair",), CacheClass.FX,
        ),
        Endpoint(
            "fx_forward", "/v1/fx_forward", models.FxForward,
            {"currency_pair": Kind.CURRENCY_PAIR, "date": Kind.DATE, _V: Kind.TIMESTAMP},
            ("currency_pair",), CacheClass.FX,
        ),
        Endpoint(
            "gov_yield", "/v1/gov_yield", models.GovYield,
            {"country_code": Kind.COUNTRY, "maturity": Kind.DATE_OR_TENOR,
             "forward_start": Kind.DATE_OR_TENOR, _V: Kind.TIMESTAMP},
            ("country_code", "maturity"), CacheClass.DAILY,  # US: LIVE, see cache_class_of
        ),
        Endpoint(
            "fixing", "/v1/fixing", models.Fixing,
            {"index": Kind.INDEX, "valuation_date": Kind.DATE},
            ("index",), CacheClass.LIVE,  # a past date: HISTORY, see cache_class_of
        ),
        Endpoint(
            "historical_swap_rates", "/v1/historical_swap_rates", models.HistoricalSwapRates,
            {"index": Kind.INDEX, "tenor": Kind.TENOR, "start_date": Kind.DATE,
             "end_date": Kind.DATE},
            ("index", "tenor", "start_date", "end_date"), CacheClass.HISTORY,
        ),
        Endpoint(
            "swap_rate_tenors", "/v1/swap_rate_tenors", models.SwapRateTenors,
            {"index": Kind.INDEX}, ("index",), CacheClass.HISTORY,
        ),
    ]
}

def format_timestamp(value: datetime) -> str:
    """The service's timestamp form, `YYYY-MM-DDThh:mm:ssZ`; naive values are taken as UTC."""
    value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def _as_date_text(value: object) -> str | None:
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return None


def normalise_value(kind: Kind, value: object) -> str:
    """One canonical wire spelling per meaning, so the cache sees one entry per answer."""
    if kind is Kind.BOOL:
        if isinstance(value, str):
            return "true" if value.strip().lower() in ("true", "1", "yes") else "false"
        return "true" if value else "false"
    if kind is Kind.TIMESTAMP:
        if isinstance(value, datetime):
            return format_timestamp(value)
        if isinstance(value, date):
            return format_timestamp(datetime(value.year, value.month, value.day))
        text = str(value).strip()
        try:
            return format_timestamp(datetime.fromisoformat(text.replace("Z", "+00:00")))
        except ValueError:
            return text  # let the service say what is wrong with it
    as_date = _as_date_text(value)
    if as_date is not None and kind in (Kind.DATE, Kind.DATE_OR_TENOR):
        return as_date
    text = " ".join(str(value).split())
    if kind is Kind.INDEX:
        return text  # index names are case-sensitive at the service
    if kind is Kind.DAY_COUNT:
        return canonical_day_count(text) or text
    if kind is Kind.CURRENCY_PAIR:
        return text.replace("/", "").replace(" ", "").upper()
    if kind in (Kind.DATE, Kind.DATE_OR_TENOR):
        return text.upper() if TENOR_RE.match(text.upper()) else text
    return text.upper()  # tenors, frequencies, country codes


def normalise_params(endpoint: Endpoint, params: Mapping[str, object]) -> tuple[tuple[str, str], ...]:
    """Drop unset values, normalise the rest, sort by name: the wire form and the cache key."""
    unknown = set(params) - set(endpoint.params)
    if unknown:
        raise TypeError(f"{endpoint.name}() got unexpected parameters: {', '.join(sorted(unknown))}")
    missing = [p for p in endpoint.required if params.get(p) is None or params.get(p) == ""]
    if missing:
        raise TypeError(f"{endpoint.name}() missing required parameters: {', '.join(missing)}")
    return tuple(
        sorted(
            (name, normalise_value(endpoint.params[name], value))
            for name, value in params.items()
            if value is not None and value != ""
        )
    )


def cache_class_of(endpoint: Endpoint, params: Mapping[str, str], today: date) -> CacheClass:
    """The cache class of one normalised request (some depend on the parameters)."""
    if endpoint.name == "gov_yield" and params.get("country_code") == "US":
        return CacheClass.LIVE
    if endpoint.name == "fixing":
        day = params.get("valuation_date")
        if day and day < today.isoformat():
            return CacheClass.HISTORY
    return endpoint.cache_class
