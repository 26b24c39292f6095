"""Business-day calendars: the one table of which days each market closes.

`CALENDARS` names every calendar the project uses and says how QuantLib builds it (the
definition: the sandbox prices, rolls and publishes history on these very objects);
`INDEX_CALENDARS` says which calendar each rate index closes on; `GOVERNMENT_CALENDARS`
and `FX_CALENDARS` the same for government curves and currencies. Nothing else in the
project names a calendar.

The client must not need QuantLib (a desk's Excel installs without it), so the holidays
QuantLib gives each calendar from `FIRST_YEAR` to `LAST_YEAR` ship beside this module as
data (`data/calendars.json`, about 90 KB), written by `python -m rates_xl.client.calendars`
and held equal to QuantLib's, day by day, by tests/client/test_calendars.py. A QuantLib
release that moves a holiday fails that test until the data is written again, so the
sandbox and the client never disagree about a day.

    >>> cal = index_calendar("SOFR")
    >>> cal.is_business_day(date(2025, 7, 4))   # Independence Day
    False
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from importlib import resources
from typing import Any, NotRequired, TypedDict

#: The years the shipped holiday data covers (history before or after: see `Calendar.covers`).
FIRST_YEAR, LAST_YEAR = 1990, 2080
DATA = "data/calendars.json"


@dataclass(frozen=True)
class CalendarSpec:
    """One calendar: its name, what it is, how QuantLib builds it, other spellings."""

    name: str
    describes: str
    build: Callable[[Any], Any]  # the QuantLib module -> a ql.Calendar
    codes: tuple[str, ...] = ()  # other spellings the history option CDR= accepts


CALENDARS: dict[str, CalendarSpec] = {c.name: c for c in [
    # SIFMA's US government securities days, on which SOFR is published (not New York Fed
    # Bankwire days: the two differ on Good Friday).
    CalendarSpec("SOFR", "SOFR publication days (SIFMA)", lambda ql: ql.Sofr().fixingCalendar(), ("SIFMA",)),
    CalendarSpec("FederalReserve", "Federal Reserve Bankwire days (Fed Funds, USD settlement)",
                 lambda ql: ql.UnitedStates(ql.UnitedStates.FederalReserve), ("US", "FED")),
    CalendarSpec("USGovernmentBond", "US Treasury market days",
                 lambda ql: ql.UnitedStates(ql.UnitedStates.GovernmentBond), ("UST",)),
    CalendarSpec("TARGET", "TARGET2 (euro settlement, ESTR, EURIBOR)", lambda ql: ql.TARGET(), ("EUR", "TE")),
    CalendarSpec("UnitedKingdom", "UK settlement days (SONIA)", lambda ql: ql.UnitedKingdom(), ("UK", "GB", "EN")),
    CalendarSpec("LondonStockExchange", "London Stock Exchange days (gilts)",
                 lambda ql: ql.UnitedKingdom(ql.UnitedKingdom.Exchange), ("LSE",)),
    CalendarSpec("Eurex", "Eurex days (German government bonds)", lambda ql: ql.Germany(ql.Germany.Eurex), ("DE",)),
    CalendarSpec("France", "French settlement days", lambda ql: ql.France(), ("FR",)),
    CalendarSpec("Italy", "Italian settlement days", lambda ql: ql.Italy(), ("IT",)),
    CalendarSpec("Japan", "Japanese settlement days (TONAR)", lambda ql: ql.Japan(), ("JP", "JN")),
    CalendarSpec("Switzerland", "Swiss settlement days (SARON)", lambda ql: ql.Switzerland(), ("CH", "SZ")),
    CalendarSpec("Canada", "Canadian settlement days (CORRA)", lambda ql: ql.Canada(), ("CA", "CN")),
    CalendarSpec("Australia", "Australian settlement days (AONIA, BBSW)", lambda ql: ql.Australia(), ("AU",)),
    CalendarSpec("SaudiArabia", "Tadawul days, Friday and Saturday weekend (SAIBOR)",
                 lambda ql: ql.SaudiArabia(), ("SA",)),
    CalendarSpec("Sweden", "Swedish settlement days (STIBOR)", lambda ql: ql.Sweden(), ("SE",)),
    CalendarSpec("Norway", "Norwegian settlement days (NIBOR)", lambda ql: ql.Norway(), ("NO",)),
    CalendarSpec("Denmark", "Danish settlement days (CIBOR)", lambda ql: ql.Denmark(), ("DK",)),
    CalendarSpec("Poland", "Polish settlement days (WIBOR)", lambda ql: ql.Poland(), ("PL",)),
    CalendarSpec("HongKong", "Hong Kong exchange days (HIBOR)", lambda ql: ql.HongKong(), ("HK",)),
    CalendarSpec("SouthAfrica", "South African settlement days (JIBAR)", lambda ql: ql.SouthAfrica(), ("ZA",)),
]}

#: Rate index (as the service spells it) -> the calendar its closes and fixings follow.
INDEX_CALENDARS: dict[str, str] = {
    "SOFR": "SOFR", "1M TERM SOFR": "SOFR", "3M TERM SOFR": "SOFR", "Fed Funds": "FederalReserve",
    "ESTR": "TARGET", "1M EURIBOR": "TARGET", "3M EURIBOR": "TARGET", "6M EURIBOR": "TARGET",
    "12M EURIBOR": "TARGET", "SONIA": "UnitedKingdom", "TONAR": "Japan", "SARON": "Switzerland",
    "CORRA": "Canada", "AONIA": "Australia", "3M BBSW": "Australia", "6M BBSW": "Australia",
    "3M SAIBOR": "SaudiArabia", "6M SAIBOR": "SaudiArabia", "3M STIBOR": "Sweden",
    "3M NIBOR": "Norway", "6M NIBOR": "Norway", "3M CIBOR": "Denmark", "6M CIBOR": "Denmark",
    "3M WIBOR": "Poland", "6M WIBOR": "Poland", "3M HIBOR": "HongKong", "3M JIBAR": "SouthAfrica",
}

#: Government curve (country code) -> the calendar its market trades on.
GOVERNMENT_CALENDARS: dict[str, str] = {
    "US": "USGovernmentBond", "UK": "LondonStockExchange", "DE": "Eurex", "FR": "France",
    "IT": "Italy", "ES": "TARGET", "JP": "Japan", "CA": "Canada", "AU": "Australia",
}

#: Currency -> the calendar its payments settle on (FX value dates).
FX_CALENDARS: dict[str, str] = {
    "USD": "FederalReserve", "EUR": "TARGET", "GBP": "UnitedKingdom", "JPY": "Japan",
    "CHF": "Switzerland", "CAD": "Canada", "AUD": "Australia", "SAR": "SaudiArabia",
}

_BY_SPELLING = {s.upper(): c.name for c in CALENDARS.values() for s in (c.name, *c.codes)}


# -- QuantLib's objects (the sandbox, the data writer) ----------------------------------------------

@functools.cache
def quantlib(name: str) -> Any:
    """The QuantLib calendar `name` stands for (needs QuantLib: the sandbox extra)."""
    import QuantLib as ql

    return CALENDARS[name].build(ql)


# -- the client's calendars (no QuantLib) -------------------------------------------------------

@dataclass(frozen=True)
class Calendar:
    """A calendar's weekend and holidays, from the shipped data."""

    name: str
    weekend: frozenset[int]  # date.weekday() numbers: Saturday 5, Sunday 6
    holidays: frozenset[date] = field(repr=False)  # weekdays it is closed
    #: days of a weekend weekday it is open: a market whose weekend moved (Saudi Arabia's
    #: was Thursday and Friday until June 2013)
    open_weekend_days: frozenset[date] = field(default=frozenset(), repr=False)

    def covers(self, day: date) -> bool:
        """Whether the data knows this day's holidays (FIRST_YEAR to LAST_YEAR)."""
        return FIRST_YEAR <= day.year <= LAST_YEAR

    def is_business_day(self, day: date) -> bool:
        if day.weekday() in self.weekend:
            return day in self.open_weekend_days
        return day not in self.holidays

    def business_days(self, first: date, last: date) -> Iterator[date]:
        """Every business day from `first` to `last`, both included."""
        day = first
        while day <= last:
            if self.is_business_day(day):
                yield day
            day += timedelta(days=1)


class CalendarEntry(TypedDict):
    """One calendar in data/calendars.json."""

    #: Python weekday numbers (Monday 0)
    weekend: list[int]
    #: days closed outside the weekend, "MMDD MMDD ..." by year
    holidays: dict[str, str]
    #: days open on the weekend (a weekend that moved), "MMDD ..." by year
    open_weekend_days: NotRequired[dict[str, str]]


class CalendarData(TypedDict):
    """data/calendars.json, as `quantlib_data` writes it."""

    source: str
    first_year: int
    last_year: int
    note: str
    calendars: dict[str, CalendarEntry]


@functools.cache
def _data() -> CalendarData:
    return json.loads(resources.files("rates_xl.client").joinpath(DATA).read_text(encoding="utf-8"))


@functools.cache
def calendar(name: str) -> Calendar:
    """The calendar called `name` (a name of CALENDARS or one of its codes, any case).
    KeyError for a name the table does not hold."""
    canonical = _BY_SPELLING[name.strip().upper()]
    entry = _data()["calendars"][canonical]
    return Calendar(canonical, frozenset(entry["weekend"]), _days(entry["holidays"]),
                    _days(entry.get("open_weekend_days", {})))


def _days(by_year: dict[str, str]) -> frozenset[date]:
    return frozenset(date(int(year), int(day[:2]), int(day[2:]))
                     for year, days in by_year.items() for day in days.split())


def calendar_name(spelling: str) -> str | None:
    """The table's name for a calendar spelled `spelling` (a name or a code), or None."""
    return _BY_SPELLING.get(spelling.strip().upper())


def index_calendar(index: str) -> Calendar | None:
    """The calendar `index` closes on; None for an index the table does not know."""
    name = INDEX_CALENDARS.get(index)
    return calendar(name) if name is not None else None


# -- writing the data from QuantLib ---------------------------------------------------------------

def quantlib_data() -> CalendarData:
    """What data/calendars.json holds, computed from QuantLib now."""
    import QuantLib as ql

    # QuantLib numbers weekdays from Sunday = 1; Python from Monday = 0.
    weekday = {ql.Monday: 0, ql.Tuesday: 1, ql.Wednesday: 2, ql.Thursday: 3, ql.Friday: 4,
               ql.Saturday: 5, ql.Sunday: 6}
    out: dict[str, CalendarEntry] = {}
    for name in CALENDARS:
        cal = quantlib(name)
        weekend = {w for w in weekday if cal.isWeekend(w)}
        closed: dict[str, list[str]] = {}  # weekdays the market is closed
        opened: dict[str, list[str]] = {}  # weekend days it is open (a weekend that moved)
        d, last = ql.Date(1, 1, FIRST_YEAR), ql.Date(31, 12, LAST_YEAR)
        while d <= last:
            business = cal.isBusinessDay(d)
            on_weekend = d.weekday() in weekend
            if business == on_weekend:
                (opened if business else closed).setdefault(str(d.year()), []).append(
                    f"{d.month():02d}{d.dayOfMonth():02d}")
            d += 1
        entry: CalendarEntry = {"weekend": sorted(weekday[w] for w in weekend),
                                "holidays": {year: " ".join(mmdd) for year, mmdd in closed.items()}}
        if opened:
            entry["open_weekend_days"] = {year: " ".join(mmdd) for year, mmdd in opened.items()}
        out[name] = entry
    return {"source": f"QuantLib {ql.__version__}", "first_year": FIRST_YEAR, "last_year": LAST_YEAR,
            "note": "Days closed outside the weekend (holidays) and days open on it, MMDD by year; "
                    "weekend as Python weekday numbers (Monday 0). "
                    "Written by python -m rates_xl.client.calendars; do not edit by hand.",
            "calendars": out}


def write_data() -> str:
    """Write data/calendars.json from QuantLib; returns its path."""
    from pathlib import Path

    path = Path(__file__).with_name("data") / "calendars.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(quantlib_data(), indent=0, sort_keys=True) + "\n", encoding="utf-8")
    return str(path)


if __name__ == "__main__":
    print(write_data())
