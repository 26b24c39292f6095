"""The conventions table: every market convention the sandbox uses, in one place.

Each rate index gets one `IndexConvention` row; government curves, FX pairs and the
frequency and day-count vocabularies follow. Nothing else in the sandbox hard-codes a
calendar, a day count, a lag or a tenor list: read it from here. The calendars themselves
are the project's one calendar table, `rates_xl.client.calendars`, which the client reads
too (a history grid's business days are the days the sandbox publishes).

Sources and choices worth knowing:
- SOFR OIS: annual/annual Act/360, T+2, payment lag 2, on `ql.Sofr().fixingCalendar()`
  (the SOFR calendar, which differs from US GovernmentBond on Good Friday 2026).
- 3M and 6M EURIBOR swaps: fixed annual 30/360 (Bond Basis) against the index on
  Act/360, TARGET, T+2, priced with indexed coupons, projected on their own curve and
  discounted on ESTR (the market's collateral rate), as the bootstrap assumes.
- 3M SAIBOR: Act/360, T+2, Saudi (Tadawul) calendar with its Friday/Saturday weekend.
  No authoritative source fixes the fixed leg of a SAIBOR swap. The sandbox chooses
  **annual, Act/360, Modified Following** (the day count of the floating leg, as GCC
  dealers commonly quote it) and returns it in every swap-rate response. The curve is
  single-curve (projected and discounted on itself): there is no SAR OIS market.
- SAIBOR publishes no fixings through the service (the interface excludes it).
- Floating legs of term (IBOR) indexes pay at the index tenor. A `floating_leg_frequency`
  other than the index tenor is refused with 400: compounding sub-periods is not a
  standard the sandbox wants to invent. When `floating_leg_frequency` is omitted it
  defaults to the fixed-leg frequency for overnight indexes (as the service documents)
  and to the index tenor for term indexes (the only frequency they price).
- Overnight legs compound the index flat; with no spread the compounded amount does not
  depend on the accrual day count, so any `floating_leg_day_count` gives the same rate.
- Government zero yields: semi-annual compounding on Actual/365 (Fixed), measured from
  the valuation date.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import QuantLib as ql

from rates_xl.client import calendars

# Input vocabulary. Responses write a year as "12M", as the service does.
FREQUENCIES: dict[str, tuple[ql.Period, int]] = {
    # name: (period, ql.Frequency)
    "1M": (ql.Period(1, ql.Months), ql.Monthly),
    "2M": (ql.Period(2, ql.Months), ql.Bimonthly),
    "3M": (ql.Period(3, ql.Months), ql.Quarterly),
    "4M": (ql.Period(4, ql.Months), ql.EveryFourthMonth),
    "6M": (ql.Period(6, ql.Months), ql.Semiannual),
    "12M": (ql.Period(12, ql.Months), ql.Annual),
    "1Y": (ql.Period(12, ql.Months), ql.Annual),
}


def frequency_name(name: str) -> str:
    """The name a response uses for a frequency: a year is written "12M"."""
    return "12M" if name == "1Y" else name


DAY_COUNTS: dict[str, ql.DayCounter] = {
    "Actual360": ql.Actual360(),
    "Actual365Fixed": ql.Actual365Fixed(),
    "Thirty360BondBasis": ql.Thirty360(ql.Thirty360.BondBasis),
    "Thirty360EurobondBasis": ql.Thirty360(ql.Thirty360.European),
    "ActualActualISDA": ql.ActualActual(ql.ActualActual.ISDA),
}


@dataclass(frozen=True)
class IndexConvention:
    name: str
    currency: str
    kind: str  # "overnight" or "ibor"
    make_index: Callable[[ql.YieldTermStructureHandle], ql.InterestRateIndex]
    calendar: ql.Calendar
    spot_lag: int  # business days from the trade date to the start of a spot swap
    day_count: str  # the index's own day count, also the floating leg's default
    float_frequency: str  # the index tenor for IBORs; the OIS floating payment frequency
    fixed_frequency: str
    fixed_day_count: str
    business_day: int  # schedule roll, e.g. ql.ModifiedFollowing
    end_of_month: bool
    payment_lag: int  # business days between the period end and the payment
    pillars: tuple[str, ...]  # curve instruments, keyed as in data/snapshot.json
    swap_tenors: tuple[str, ...]  # what get_swap_curve and swap_rate_tenors list
    discount_index: str | None = None  # another index's curve discounts this one
    publishes_fixings: bool = True
    family: str = ""  # the currency whose market factors drive this index
    aliases: tuple[str, ...] = field(default=())

    @property
    def tenor(self) -> ql.Period:
        return FREQUENCIES[self.float_frequency][0]


def _ois_pillars(*tenors: str) -> tuple[str, ...]:
    return ("ON", *tenors)


_LONG = ("1Y", "18M", "2Y", "3Y", "4Y", "5Y", "6Y", "7Y", "8Y", "9Y", "10Y", "12Y", "15Y", "20Y", "25Y", "30Y")
_OIS_MAJOR = ("1W", "2W", "1M", "2M", "3M", "4M", "6M", "9M", *_LONG, "40Y", "50Y")
_OIS_MINOR = ("1W", "1M", "3M", "6M", "1Y", "18M", "2Y", "3Y", "5Y", "7Y", "10Y", "15Y", "20Y", "30Y")


def _calendar(index: str) -> ql.Calendar:
    return calendars.quantlib(calendars.INDEX_CALENDARS[index])


def _saibor(handle: ql.YieldTermStructureHandle) -> ql.IborIndex:
    return ql.IborIndex(
        "SAIBOR", ql.Period(3, ql.Months), 2, ql.SARCurrency(), _calendar("3M SAIBOR"),
        ql.ModifiedFollowing, False, ql.Actual360(), handle,
    )


def _ois(name, currency, make, lag, dc, pay_lag, tenors, **kw) -> IndexConvention:
    return IndexConvention(
        name=name, currency=currency, kind="overnight", make_index=make, calendar=_calendar(name),
        spot_lag=lag, day_count=dc, float_frequency="12M", fixed_frequency="12M",
        fixed_day_count=dc, business_day=ql.ModifiedFollowing, end_of_month=True,
        payment_lag=pay_lag, pillars=_ois_pillars(*tenors), swap_tenors=tenors,
        family=currency, **kw,
    )


INDEXES: dict[str, IndexConvention] = {
    c.name: c
    for c in [
        _ois("SOFR", "USD", ql.Sofr, 2, "Actual360", 2, _OIS_MAJOR),
        _ois("ESTR", "EUR", ql.Estr, 2, "Actual360", 1, _OIS_MAJOR, aliases=("€STR",)),
        _ois("SONIA", "GBP", ql.Sonia, 0, "Actual365Fixed", 0, _OIS_MAJOR),
        _ois("TONAR", "JPY", ql.Tonar, 2, "Actual365Fixed", 2, _OIS_MINOR, aliases=("TONA",)),
        _ois("SARON", "CHF", ql.Saron, 2, "Actual360", 2, _OIS_MINOR),
        _ois("CORRA", "CAD", ql.Corra, 1, "Actual365Fixed", 1, _OIS_MINOR),
        _ois("AONIA", "AUD", ql.Aonia, 1, "Actual365Fixed", 1, _OIS_MINOR),
        IndexConvention(
            name="3M EURIBOR", currency="EUR", kind="ibor", make_index=ql.Euribor3M,
            calendar=_calendar("3M EURIBOR"), spot_lag=2, day_count="Actual360", float_frequency="3M",
            fixed_frequency="12M", fixed_day_count="Thirty360BondBasis",
            business_day=ql.ModifiedFollowing, end_of_month=True, payment_lag=0,
            pillars=("3M", "FRA 3x6", "FRA 6x9", *_LONG), swap_tenors=_LONG,
            discount_index="ESTR", family="EUR", aliases=("EURIBOR 3M", "EUR3M"),
        ),
        IndexConvention(
            name="6M EURIBOR", currency="EUR", kind="ibor", make_index=ql.Euribor6M,
            calendar=_calendar("6M EURIBOR"), spot_lag=2, day_count="Actual360", float_frequency="6M",
            fixed_frequency="12M", fixed_day_count="Thirty360BondBasis",
            business_day=ql.ModifiedFollowing, end_of_month=True, payment_lag=0,
            pillars=("6M", *_LONG), swap_tenors=_LONG,
            discount_index="ESTR", family="EUR", aliases=("EURIBOR 6M", "EUR6M"),
        ),
        IndexConvention(
            name="3M SAIBOR", currency="SAR", kind="ibor", make_index=_saibor,
            calendar=_calendar("3M SAIBOR"), spot_lag=2, day_count="Actual360", float_frequency="3M",
            fixed_frequency="12M", fixed_day_count="Actual360",  # the sandbox's choice, see above
            business_day=ql.ModifiedFollowing, end_of_month=False, payment_lag=0,
            pillars=("3M", "FRA 3x6", "FRA 6x9", "1Y", "18M", "2Y", "3Y", "4Y", "5Y", "7Y", "10Y", "15Y", "20Y"),
            swap_tenors=("1Y", "18M", "2Y", "3Y", "4Y", "5Y", "7Y", "10Y", "15Y", "20Y"),
            publishes_fixings=False, family="USD",  # the riyal is pegged: SAMA follows the Fed
            aliases=("SAIBOR",),
        ),
    ]
}

INDEX_ALIASES: dict[str, str] = {a: c.name for c in INDEXES.values() for a in (c.name, *c.aliases)}


@dataclass(frozen=True)
class GovernmentConvention:
    country: str
    currency: str
    calendar: ql.Calendar
    day_count: str = "Actual365Fixed"
    compounding: str = "Semiannual"
    aliases: tuple[str, ...] = ()


GOVERNMENTS: dict[str, GovernmentConvention] = {
    g.country: g
    for g in [
        GovernmentConvention(country, currency, calendars.quantlib(calendars.GOVERNMENT_CALENDARS[country]),
                             aliases=("GB",) if country == "UK" else ())
        for country, currency in [("US", "USD"), ("UK", "GBP"), ("DE", "EUR"), ("FR", "EUR"), ("IT", "EUR"),
                                  ("ES", "EUR"), ("JP", "JPY"), ("CA", "CAD"), ("AU", "AUD")]
    ]
}
COUNTRY_ALIASES: dict[str, str] = {a: g.country for g in GOVERNMENTS.values() for a in (g.country, *g.aliases)}

# FX: each currency discounts on its overnight curve (the collateral rate of a forward).
# SAR has no OIS market, so its 3M SAIBOR curve stands in.
FX_DISCOUNT_INDEX: dict[str, str] = {
    "USD": "SOFR", "EUR": "ESTR", "GBP": "SONIA", "JPY": "TONAR", "CHF": "SARON",
    "CAD": "CORRA", "AUD": "AONIA", "SAR": "3M SAIBOR",
}
FX_CALENDARS: dict[str, ql.Calendar] = {
    currency: calendars.quantlib(name) for currency, name in calendars.FX_CALENDARS.items()
}
FX_SPOT_LAG_DEFAULT = 2
FX_SPOT_LAG = {frozenset({"USD", "CAD"}): 1}  # USDCAD settles T+1

# Factor-model families: the currencies whose markets the scenario walks.
FAMILIES = tuple(FX_DISCOUNT_INDEX)
# No USD, GBP, SAR, CAD or AUD rate goes below this (percent); euro, franc and yen can.
RATE_FLOOR = {"EUR": -0.75, "CHF": -0.9, "JPY": -0.3}
RATE_FLOOR_DEFAULT = 0.02


def fx_spot_lag(base: str, quote: str) -> int:
    return FX_SPOT_LAG.get(frozenset({base, quote}), FX_SPOT_LAG_DEFAULT)
