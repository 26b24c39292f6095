"""The local model: each index's curve rebuilt with QuantLib from the service's own quotes.

The service returns finished numbers; a scenario needs a curve it can shift. For each index
and valuation moment, the curve is bootstrapped exactly as the sandbox bootstraps its own
(`rates_xl.sandbox.market.Market`, the conventions table `sandbox/conventions.py`: the
same instruments, calendars, day counts and lags), from the par quotes the service gives
for them:

- the swap pillars: the index's swap curve (`/v1/get_swap_curve`) at that moment;
- an overnight index's `ON` pillar: its fixing on the close the moment sees (`/v1/fixing`);
- a term (IBOR) index's deposit and FRA pillars: the forward rate over each one's period
  (`/v1/forward_rate` on the dates the conventions give it);
- the fixings a swap priced that day may read (the last business days' `/v1/fixing`).

These calibration requests are looked up in the pack first and otherwise fetched once, at the
answers' own moment, from the service that recorded the pack, and recorded in the scenario's
pack (scenario/apply.py). Against the sandbox the rebuilt curve is the sandbox's own (its swap
curve reprices its pillars to 1e-10 %), so a shift moves both the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from rates_xl.client.endpoints import ENDPOINTS, normalise_params
from rates_xl.errors import Internal
from rates_xl.sandbox import conventions as cv
from rates_xl.sandbox import scenario as history
from rates_xl.sandbox.market import Market, fixing_window, from_ql, to_ql

#: Fewer swap pillars than this and an index's curve is not built ("too few points").
MIN_SWAP_PILLARS = 3


class NotModelled(Internal):
    """What the local model cannot move, and why (one phrase: "not shifted: <this>")."""


@dataclass(frozen=True)
class Request:
    """One calibration request: its endpoint and normalised parameters (the pack's key)."""

    endpoint: str
    params: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, endpoint: str, **params: Any) -> Request:
        return cls(endpoint, normalise_params(ENDPOINTS[endpoint], params))

    @property
    def text(self) -> str:
        return self.endpoint + "?" + "&".join(f"{k}={v}" for k, v in self.params)


def canonical(index: str) -> str:
    """The conventions table's name for an index (aliases: €STR -> ESTR); NotModelled if none."""
    name = cv.INDEX_ALIASES.get(" ".join(str(index).split()))
    if name is None:
        raise NotModelled(f"rates-xl's conventions table (sandbox/conventions.py) has no index {index!r}, "
                          "so its curve cannot be rebuilt")
    return name


def needed(index: str) -> list[str]:
    """`index` and the curves its own is built on (EURIBOR's discounting on ESTR), innermost first."""
    conv = cv.INDEXES[index]
    return ([*needed(conv.discount_index)] if conv.discount_index else []) + [index]


def valuation_date(moment: str) -> date:
    return datetime.fromisoformat(moment.replace("Z", "+00:00")).astimezone(UTC).date()


@dataclass
class Calibration:
    """The requests one index's curve is built from at one moment, and what they gave."""

    index: str
    moment: str
    swap_curve: Request
    short_end: dict[str, Request]  # pillar -> the request whose answer is its quote
    fixings: dict[date, Request]
    quotes: dict[str, float] = field(default_factory=dict)
    fixing_rates: dict[date, float] = field(default_factory=dict)

    @classmethod
    def of(cls, index: str, moment: str) -> Calibration:
        """The calibration of `index` at `moment`: the requests its curve is built from (their
        answers filled in later)."""
        conv = cv.INDEXES[index]
        day = valuation_date(moment)
        close = history.market_date(conv.calendar, day)
        reference = from_ql(conv.calendar.adjust(to_ql(day)))
        short: dict[str, Request] = {}
        if "ON" in conv.pillars:
            short["ON"] = Request.of("fixing", index=index, valuation_date=close)
        for pillar, (start, end) in Market.term_periods(conv, day).items():
            short[pillar] = Request.of("forward_rate", index=index, start_date=start, end_date=end,
                                       valuation_time=moment)
        fixings: dict[date, Request] = {}
        if conv.publishes_fixings:
            # An overnight swap starting on the valuation date reads that day's fixing (the
            # curve's too, where the spot lag is 0); a term rate fixes days before its start.
            days = fixing_window(conv, max(day, reference))
            if conv.kind == "overnight":
                days = [d for d in days if d >= close]
            fixings = {d: Request.of("fixing", index=index, valuation_date=d) for d in days}
        # The swap curve of the close the moment sees: on a business day the moment itself; on
        # a weekend or holiday the close's own day (its last second), whose curve is quoted on
        # the same par quotes as the moment's, for swaps starting from that day. The moment's
        # own swap curve would quote other swaps (from the holiday's spot), not the pillars.
        at = moment if close == day else f"{close.isoformat()}T23:59:59Z"
        return cls(index, moment, Request.of("swap_curve", index=index, valuation_time=at), short, fixings)

    def requests(self) -> list[Request]:
        return [self.swap_curve, *self.short_end.values(), *self.fixings.values()]

    def read(self, answers: dict[Request, Any]) -> None:
        """Quotes and fixings from the answers (parsed JSON, or an exception: the refusal);
        NotModelled when too few points came back."""
        conv = cv.INDEXES[self.index]
        curve = answers.get(self.swap_curve)
        if not isinstance(curve, dict):
            raise NotModelled(f"its swap curve at {self.moment} is not available ({_why(curve)}), so "
                              f"{self.index}'s curve cannot be rebuilt")
        by_tenor = {str(p.get("tenor", "")).upper(): p.get("swap_rate") for p in curve.get("swap_rates", [])
                    if isinstance(p, dict)}
        quotes = {}
        for pillar in conv.pillars:
            if pillar in by_tenor and _finite(by_tenor[pillar]):
                quotes[pillar] = float(by_tenor[pillar])
        swaps = [p for p in quotes if p in conv.swap_tenors]
        if len(swaps) < MIN_SWAP_PILLARS:
            raise NotModelled(f"its swap curve at {self.moment} has {len(swaps)} of the {len(conv.swap_tenors)} "
                              f"points {self.index}'s curve is built on: too few points")
        for pillar, request in self.short_end.items():
            found = answers.get(request)
            value = None
            if isinstance(found, dict):
                value = found.get("fixing_rate" if request.endpoint == "fixing" else "forward_rate")
            if not _finite(value):
                raise NotModelled(f"the quote of its {pillar} pillar ({request.text}) is not available "
                                  f"({_why(found)}), so {self.index}'s curve cannot be rebuilt")
            quotes[pillar] = float(value)
        self.quotes = quotes
        self.fixing_rates = {}
        for day, request in self.fixings.items():
            found = answers.get(request)
            if isinstance(found, dict) and _finite(found.get("fixing_rate")):
                self.fixing_rates[day] = float(found["fixing_rate"])


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value \
        and abs(value) != float("inf")


def _why(found: Any) -> str:
    if found is None:
        return "not in the pack, and not fetched"
    if isinstance(found, BaseException):
        return f"the service said: {str(found)[:160]}"
    return "an answer without it"


class LocalMarket(Market):
    """The sandbox's Market, its quotes and fixings a pack's (`Calibration`s) at one moment."""

    def __init__(self, calibrations: dict[str, Calibration], shift: Any = None) -> None:
        super().__init__(seed=0, cache_size=64, shift=shift)
        self.calibrations = calibrations

    def closing_quotes(self, conv: cv.IndexConvention, valuation_date: date) -> tuple[date, dict[str, float]]:
        found = self.calibrations.get(conv.name)
        if found is None or not found.quotes:
            raise NotModelled(f"{conv.name}'s curve was not calibrated")
        return history.market_date(conv.calendar, valuation_date), found.quotes

    def fixing_rate(self, conv: cv.IndexConvention, day: date) -> float | None:
        found = self.calibrations.get(conv.name)
        return None if found is None else found.fixing_rates.get(day)


__all__ = ["Calibration", "LocalMarket", "MIN_SWAP_PILLARS", "NotModelled", "Request", "canonical", "needed",
           "valuation_date"]
