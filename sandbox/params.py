"""Parsing of the service's parameter types and the date rules, in one place.

The rules (also in the README):
- A start given as a tenor counts from the valuation date: `0D` is the valuation date
  itself, `2D` is two business days later (spot for a T+2 index).
- A maturity or end date given as a tenor counts from the start.
- Tenors in days count business days of the index calendar; every date, given or
  computed, rolls to a business day of that calendar by the index's business-day rule.
- The valuation date is the UTC date of `valuation_time` (default: now); the market it
  sees is the close of that date, or of the last business day before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from rates_xl.sandbox.errors import ServiceError, bad_param
from rates_xl.sandbox.scenario import FIRST_DATE

TENOR_PATTERN = r"^[0-9]{1,4}[DWMY]$"
DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
DATE_OR_TENOR_PATTERN = r"^([0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{1,4}[DWMY])$"
_TENOR = re.compile(TENOR_PATTERN)
MAX_TENOR_DAYS = 100 * 366  # nothing the sandbox prices runs past a century
LAST_DATE = date(2199, 12, 31)  # QuantLib's calendars end here
FIRST_ALLOWED_DATE = date(1901, 1, 1)
FUTURE_TOLERANCE = timedelta(minutes=5)  # clock skew between a client and the sandbox
DAYS_PER_UNIT = {"D": 1, "W": 7, "M": 31, "Y": 366}


def parse_tenor(name: str, value: str) -> str:
    match = _TENOR.match(value)
    if not match:
        raise bad_param(name, f"expected a tenor such as 3M or 10Y, got {value!r}")
    if int(value[:-1]) * DAYS_PER_UNIT[value[-1]] > MAX_TENOR_DAYS:
        raise bad_param(name, f"tenor {value} is longer than the 100 years the sandbox prices")
    return value


def parse_date(name: str, value: str) -> date:
    try:
        parsed = date.fromisoformat(value)
    except ValueError:
        raise bad_param(name, f"expected a date YYYY-MM-DD, got {value!r}") from None
    if not FIRST_ALLOWED_DATE <= parsed <= LAST_DATE:
        raise bad_param(name, f"date {value} is outside 1901-01-01..{LAST_DATE}")
    return parsed


def parse_date_or_tenor(name: str, value: str) -> date | str:
    """A Date or a Tenor (never both: a repeated parameter is refused earlier)."""
    if _TENOR.match(value):
        return parse_tenor(name, value)
    if re.match(DATE_PATTERN, value):
        return parse_date(name, value)
    raise bad_param(name, f"expected a date YYYY-MM-DD or a tenor such as 5Y, got {value!r}")


def format_timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class Valuation:
    time: datetime  # UTC
    date: date

    @property
    def stamp(self) -> str:
        return format_timestamp(self.time)


def valuation(valuation_time: str | None, name: str = "valuation_time") -> Valuation:
    now = datetime.now(UTC)
    if valuation_time is None:
        moment = now
    else:
        try:
            moment = datetime.fromisoformat(valuation_time)
        except ValueError:
            raise bad_param(name, f"expected a timestamp YYYY-MM-DDThh:mm:ssZ, got {valuation_time!r}") from None
        moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    if moment > now + FUTURE_TOLERANCE:
        raise bad_param(name, f"{format_timestamp(moment)} is in the future; the market is known up to now")
    if moment.date() < FIRST_DATE:
        raise ServiceError(404, f"No market data before {FIRST_DATE}: {name} {format_timestamp(moment)} is too early")
    return Valuation(moment.replace(microsecond=0), moment.date())
