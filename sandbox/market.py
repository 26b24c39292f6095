"""Curves and prices: QuantLib bootstraps of each day's quotes, cached, and the sums on them.

QuantLib keeps the evaluation date and the fixing history in process-global singletons.
Every touch of QuantLib state here happens under `QL_LOCK` with the evaluation date set
to the request's valuation date, so concurrent requests for different dates (and several
sandboxes in one process) cannot see each other's settings. A bootstrapped curve is
frozen into a plain `ql.DiscountCurve` on its own nodes (same log-linear interpolation,
so the same numbers) which, unlike the piecewise curve, does not re-bootstrap when the
global evaluation date moves: a cached curve stays valid however requests interleave.

A market under a scenario (`Market(seed, shift=...)`, `rates-xl sandbox --shift`): each index's
par quotes (every pillar of the conventions table) move by the scenario's amount at the
pillar's maturity (`shifted`: parallel, or the key-rate triangles of scenario/spec.py), and the
curve is bootstrapped again from them; fixings, FX spot and government yields do not move.
rates_xl.scenario.model builds its local curves with this same class, from a pack's quotes:
"the same way" is this one code path.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import date, timedelta

import QuantLib as ql
from cachetools import LRUCache

from rates_xl.sandbox import conventions as cv
from rates_xl.sandbox import scenario

QL_LOCK = threading.RLock()
CURVE_DAY_COUNT = ql.Actual365Fixed()  # the curves' internal time axis, not a market convention


def to_ql(d: date) -> ql.Date:
    return ql.Date(d.day, d.month, d.year)


def from_ql(d: ql.Date) -> date:
    return date(d.year(), d.month(), d.dayOfMonth())


def set_evaluation_date(d: date) -> None:
    """Callers hold QL_LOCK."""
    ql.Settings.instance().evaluationDate = to_ql(d)


@dataclass(frozen=True)
class Curve:
    index: str
    valuation_date: date
    market_date: date  # whose close the quotes are
    quotes: dict[str, float]  # percent, by pillar
    handle: ql.YieldTermStructureHandle

    def discount(self, d: date) -> float:
        return self.handle.discount(to_ql(d))


@dataclass(frozen=True)
class SwapResult:
    rate: float  # percent
    start: date
    maturity: date
    fixed_first_payment: date
    floating_first_payment: date


def shifted(conv: cv.IndexConvention, quotes: dict[str, float], shift) -> dict[str, float]:
    """The par quotes (percent) of `conv`'s pillars moved by the scenario `shift` (a
    rates_xl.scenario.spec.Scenario; None: as they are): each by its amount at the pillar's
    maturity (`scenario.pillar_years`)."""
    if shift is None or not shift.touches(conv.name):
        return quotes
    return {pillar: quote + shift.shift_bp(conv.name, scenario.pillar_years(pillar)) / 100
            for pillar, quote in quotes.items()}


class Market:
    """All market answers for one seed (and scenario). Curves are cached per (index,
    valuation date). `closing_quotes` and `fixing_rate` are where the numbers come from: the
    sandbox's walk here, a pack's answers in rates_xl.scenario.model."""

    def __init__(self, seed: int = 0, cache_size: int = 2048, shift=None):
        self.seed = seed
        self.shift = shift  # a rates_xl.scenario.spec.Scenario, or None
        self._curves: LRUCache = LRUCache(maxsize=cache_size)
        self._gov: LRUCache = LRUCache(maxsize=cache_size)

    def closing_quotes(self, conv: cv.IndexConvention, valuation_date: date) -> tuple[date, dict[str, float]]:
        """(the close a valuation on `valuation_date` sees, its par quotes by pillar, percent)."""
        close = scenario.market_date(conv.calendar, valuation_date)
        return close, scenario.index_quotes(self.seed, conv.name, close)

    def fixing_rate(self, conv: cv.IndexConvention, day: date) -> float | None:
        """The published fixing (percent) of a past business day, None where there is none."""
        if day < scenario.FIRST_DATE:
            return None
        return scenario.fixing(self.seed, conv.name, day)

    # --- curves -------------------------------------------------------------------

    def curve(self, index: str, valuation_date: date) -> Curve:
        key = (index, valuation_date)
        with QL_LOCK:
            cached = self._curves.get(key)
            if cached is None:
                cached = self._curves[key] = self._bootstrap(index, valuation_date)
            return cached

    def _bootstrap(self, index: str, valuation_date: date) -> Curve:
        conv = cv.INDEXES[index]
        close, quotes = self.closing_quotes(conv, valuation_date)
        quotes = shifted(conv, quotes, self.shift)
        discount = None
        if conv.discount_index:
            discount = self.curve(conv.discount_index, valuation_date).handle
        # The curve starts on the first business day from the valuation date. From a weekend
        # or holiday QuantLib would date a term deposit's fixing in the past, where a
        # published fixing, not the curve, sets its rate: that pillar would pin nothing and
        # the short end would go wild (DF 0.92 after a month).
        reference = from_ql(conv.calendar.adjust(to_ql(valuation_date)))
        set_evaluation_date(reference)
        helpers = self._helpers(conv, quotes, discount, reference)
        piecewise = ql.PiecewiseLogLinearDiscount(to_ql(reference), helpers, CURVE_DAY_COUNT)
        dates, dfs = zip(*piecewise.nodes(), strict=True)
        frozen = ql.DiscountCurve(list(dates), list(dfs), CURVE_DAY_COUNT)
        frozen.enableExtrapolation()
        return Curve(index, valuation_date, close, quotes, ql.YieldTermStructureHandle(frozen))

    def _helpers(self, conv: cv.IndexConvention, quotes: dict[str, float], discount,
                 valuation_date: date) -> list:
        index = conv.make_index(ql.YieldTermStructureHandle())
        self._add_fixings(conv, index, valuation_date)  # on a holiday the first fixing is past
        day_count = cv.DAY_COUNTS[conv.day_count]
        discount = discount or ql.YieldTermStructureHandle()
        helpers = []
        for pillar in conv.pillars:
            if pillar not in quotes:  # a pack's curve may lack a pillar (rates_xl.scenario.model)
                continue
            quote = ql.QuoteHandle(ql.SimpleQuote(quotes[pillar] / 100))
            if pillar == "ON":
                helpers.append(ql.DepositRateHelper(
                    quote, ql.Period(1, ql.Days), 0, conv.calendar, ql.Following, False, day_count))
            elif pillar.startswith("FRA "):
                months_to_start = int(pillar[4:].split("x")[0])
                helpers.append(ql.FraRateHelper(quote, months_to_start, index))
            elif conv.kind == "ibor" and pillar == conv.float_frequency:
                helpers.append(ql.DepositRateHelper(quote, index))
            elif conv.kind == "overnight":
                helpers.append(ql.OISRateHelper(
                    conv.spot_lag, ql.Period(pillar), quote, index,
                    discountingCurve=discount, paymentLag=conv.payment_lag,
                    paymentCalendar=conv.calendar, endOfMonth=conv.end_of_month,
                    convention=conv.business_day))
            else:
                helpers.append(ql.SwapRateHelper(
                    quote, ql.Period(pillar), conv.calendar,
                    cv.FREQUENCIES[conv.fixed_frequency][1], conv.business_day,
                    cv.DAY_COUNTS[conv.fixed_day_count], index, ql.QuoteHandle(),
                    ql.Period(0, ql.Days), discount, conv.spot_lag,
                    ql.Pillar.LastRelevantDate, ql.Date(), conv.end_of_month, True))  # indexed coupons
        return helpers

    @staticmethod
    def term_periods(conv: cv.IndexConvention, valuation_date: date) -> dict[str, tuple[date, date]]:
        """The period (start, end) of each term-rate pillar of an IBOR curve (its deposit and
        FRAs), as the curve built on `valuation_date` fixes them: the forward rate over it
        is the pillar's quote."""
        periods: dict[str, tuple[date, date]] = {}
        if conv.kind != "ibor":
            return periods
        reference = from_ql(conv.calendar.adjust(to_ql(valuation_date)))
        with QL_LOCK:
            set_evaluation_date(reference)
            index = conv.make_index(ql.YieldTermStructureHandle())
            for pillar in conv.pillars:
                quote = ql.QuoteHandle(ql.SimpleQuote(0.0))
                if pillar.startswith("FRA "):
                    helper = ql.FraRateHelper(quote, int(pillar[4:].split("x")[0]), index)
                elif pillar == conv.float_frequency:
                    helper = ql.DepositRateHelper(quote, index)
                else:
                    continue
                start = index.valueDate(index.fixingDate(helper.earliestDate()))
                periods[pillar] = (from_ql(start), from_ql(index.maturityDate(start)))
        return periods

    # --- single numbers -----------------------------------------------------------

    def discount(self, index: str, valuation_date: date, d: date) -> float:
        curve = self.curve(index, valuation_date)
        with QL_LOCK:
            return curve.discount(d)

    def forward_rate(self, index: str, valuation_date: date, start: date, end: date) -> float:
        """Simple forward rate (percent) on the index day count: (DF1/DF2 - 1) / tau."""
        curve = self.curve(index, valuation_date)
        tau = cv.DAY_COUNTS[cv.INDEXES[index].day_count].yearFraction(to_ql(start), to_ql(end))
        with QL_LOCK:
            return 100 * (curve.discount(start) / curve.discount(end) - 1) / tau

    def swap_rate(self, index: str, valuation_date: date, start: date, maturity: date | str,
                  fixed_frequency: str, floating_frequency: str,
                  fixed_day_count: str, floating_day_count: str) -> SwapResult:
        """Par rate of a swap starting on `start`, ending on a date or a tenor after it."""
        conv = cv.INDEXES[index]
        curve = self.curve(index, valuation_date)
        discount = self.curve(conv.discount_index, valuation_date).handle if conv.discount_index else curve.handle
        tenor = ql.Period(maturity) if isinstance(maturity, str) else ql.Period(1, ql.Years)
        ends = {} if isinstance(maturity, str) else {"terminationDate": to_ql(maturity)}
        with QL_LOCK:
            set_evaluation_date(valuation_date)
            ql_index = conv.make_index(curve.handle)
            self._add_fixings(conv, ql_index, valuation_date)
            if conv.kind == "overnight":
                swap = ql.MakeOIS(
                    tenor, ql_index, None, effectiveDate=to_ql(start), **ends,
                    paymentLag=conv.payment_lag, paymentCalendar=conv.calendar,
                    paymentAdjustmentConvention=ql.Following, convention=conv.business_day,
                    endOfMonth=conv.end_of_month,
                    fixedLegPaymentFrequency=cv.FREQUENCIES[fixed_frequency][1],
                    overnightLegPaymentFrequency=cv.FREQUENCIES[floating_frequency][1],
                    fixedLegDayCount=cv.DAY_COUNTS[fixed_day_count],
                    discountingTermStructure=discount)
                floating_leg = swap.overnightLeg()
            else:
                swap = ql.MakeVanillaSwap(
                    tenor, ql_index, None, ql.Period(0, ql.Days), effectiveDate=to_ql(start), **ends,
                    fixedLegTenor=cv.FREQUENCIES[fixed_frequency][0],
                    fixedLegDayCount=cv.DAY_COUNTS[fixed_day_count],
                    fixedLegConvention=conv.business_day,
                    fixedLegTerminationDateConvention=conv.business_day,
                    fixedLegCalendar=conv.calendar, floatingLegCalendar=conv.calendar,
                    fixedLegEndOfMonth=conv.end_of_month, floatingLegEndOfMonth=conv.end_of_month,
                    floatingLegDayCount=cv.DAY_COUNTS[floating_day_count],
                    withIndexedCoupons=True, discountingTermStructure=discount)
                floating_leg = swap.floatingLeg()
            return SwapResult(
                rate=100 * swap.fairRate(),
                start=from_ql(swap.startDate()),
                maturity=from_ql(swap.maturityDate()),
                fixed_first_payment=from_ql(swap.fixedLeg()[0].date()),
                floating_first_payment=from_ql(floating_leg[0].date()),
            )

    def _add_fixings(self, conv: cv.IndexConvention, ql_index, valuation_date: date) -> None:
        """Give QuantLib the fixings a swap starting today may need (at most a week back).

        SAIBOR gets them too: the service does not publish its fixings, but its swaps
        still fix. QuantLib's fixing history is global and keyed by index name, so every pricing
        rewrites the window it may read while holding QL_LOCK: sandboxes with different
        seeds in one process never see each other's history, and a market that lacks a day's
        fixing (a pack's: rates_xl.scenario.model) never reads another market's.
        """
        ql_index.clearFixings()
        for day in fixing_window(conv, valuation_date):
            rate = self.fixing_rate(conv, day)
            if rate is not None:
                ql_index.addFixing(to_ql(day), rate / 100, True)

    def swap_curve(self, index: str, valuation_date: date) -> list[tuple[str, SwapResult]]:
        conv = cv.INDEXES[index]
        start = self.advance(conv, valuation_date, f"{conv.spot_lag}D")
        return [
            (tenor, self.swap_rate(index, valuation_date, start, tenor, conv.fixed_frequency,
                                   conv.float_frequency, conv.fixed_day_count, conv.day_count))
            for tenor in conv.swap_tenors
        ]

    # --- dates --------------------------------------------------------------------

    @staticmethod
    def advance(conv_or_calendar, d: date, tenor: str, end_of_month: bool | None = None) -> date:
        """`d` moved by `tenor` on the index calendar (days count business days)."""
        if isinstance(conv_or_calendar, cv.IndexConvention):
            calendar, rule = conv_or_calendar.calendar, conv_or_calendar.business_day
            eom = conv_or_calendar.end_of_month if end_of_month is None else end_of_month
        else:
            calendar, rule, eom = conv_or_calendar, ql.ModifiedFollowing, bool(end_of_month)
        return from_ql(calendar.advance(to_ql(d), ql.Period(tenor), rule, eom))

    @staticmethod
    def roll(calendar: ql.Calendar, d: date, rule: int = ql.ModifiedFollowing) -> date:
        return from_ql(calendar.adjust(to_ql(d), rule))

    # --- government curves and FX -------------------------------------------------

    def government_curve(self, country: str, valuation_date: date) -> ql.YieldTermStructureHandle:
        key = (country, valuation_date)
        with QL_LOCK:
            cached = self._gov.get(key)
            if cached is None:
                gov = cv.GOVERNMENTS[country]
                close = scenario.market_date(gov.calendar, valuation_date)
                yields = scenario.government_yields(self.seed, country, close)
                ref = to_ql(valuation_date)
                dates = [ref] + [ref + ql.Period(t) for t in yields]
                rates = [next(iter(yields.values())) / 100] + [y / 100 for y in yields.values()]
                curve = ql.ZeroCurve(dates, rates, cv.DAY_COUNTS[gov.day_count], ql.NullCalendar(),
                                     ql.Linear(), ql.Compounded, ql.Semiannual)
                curve.enableExtrapolation()
                cached = self._gov[key] = ql.YieldTermStructureHandle(curve)
            return cached

    def government_discount(self, country: str, valuation_date: date, d: date) -> float:
        curve = self.government_curve(country, valuation_date)
        with QL_LOCK:
            return curve.discount(to_ql(d))

    def fx_spot(self, base: str, quote: str, valuation_date: date) -> float:
        close = scenario.market_date(self.fx_calendar(base, quote), valuation_date)
        return scenario.fx_rate(self.seed, base, quote, close)

    @staticmethod
    def fx_calendar(base: str, quote: str) -> ql.Calendar:
        return ql.JointCalendar(cv.FX_CALENDARS[base], cv.FX_CALENDARS[quote])

    def fx_spot_date(self, base: str, quote: str, valuation_date: date) -> date:
        calendar = ql.JointCalendar(self.fx_calendar(base, quote), cv.FX_CALENDARS["USD"])
        lag = cv.fx_spot_lag(base, quote)
        return from_ql(calendar.advance(to_ql(valuation_date), lag, ql.Days))

    def fx_forward(self, base: str, quote: str, valuation_date: date, d: date) -> tuple[float, float, date]:
        """(forward, spot, spot date) by covered interest parity on the two OIS curves."""
        spot = self.fx_spot(base, quote, valuation_date)
        spot_date = self.fx_spot_date(base, quote, valuation_date)
        base_curve = self.curve(cv.FX_DISCOUNT_INDEX[base], valuation_date)
        quote_curve = self.curve(cv.FX_DISCOUNT_INDEX[quote], valuation_date)
        with QL_LOCK:
            growth_base = base_curve.discount(d) / base_curve.discount(spot_date)
            growth_quote = quote_curve.discount(d) / quote_curve.discount(spot_date)
        return spot * growth_base / growth_quote, spot, spot_date


def fixing_window(conv: cv.IndexConvention, valuation_date: date) -> list[date]:
    """The business days whose fixings a swap valued on `valuation_date` may read (a week and
    a bit back: a term rate fixes two days before its start, a holiday's first fixing is past)."""
    days, day = [], valuation_date - timedelta(days=10)
    while day <= valuation_date:
        if conv.calendar.isBusinessDay(to_ql(day)):
            days.append(day)
        day += timedelta(days=1)
    return days


_markets: dict[tuple[int, str | None], Market] = {}
_markets_lock = threading.Lock()


def market_for(seed: int = 0, shift=None) -> Market:
    """One shared Market per seed and scenario: its caches hold immutable, deterministic curves."""
    key = (seed, None if shift is None else shift.described())
    with _markets_lock:
        if key not in _markets:
            _markets[key] = Market(seed, shift=shift)
        return _markets[key]
