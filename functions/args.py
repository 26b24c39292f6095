"""Argument coercion: what an Excel cell really passes -> the value the client expects.

Excel (through xlwings, the `formulas` engine or Office.js) hands a worksheet function
floats for numbers, `datetime` for date-formatted cells, floats for unformatted dates
(serial numbers: 46023 is 2026-01-01), strings with stray spaces and any case, booleans
or 1/0, None or "" for empty cells, error values (#N/A) as strings or COM error codes,
and lists (or numpy arrays) when a range is passed. Each *kind* of argument has one
coercer here; it returns the canonical Python value or raises `ArgProblem` with a short
text saying what was expected. `table.py` names each function's arguments and kinds;
`core.py` runs these coercers inside one pydantic model per function (so cross-argument
rules and error locations come from pydantic) and turns the first problem into the
`#RATES! <argument>: <problem>` message.

Kinds: index, date_or_tenor, date, timestamp, tenor, frequency, day_count, currency_pair,
country, bool, number; and two that take a range whole (`Arg.many`): tenors (one, a range
or a comma list) and history_options (BDH's "Per=M Fill=P"), both read by history.py.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, TypeGuard

from rates_xl.client.daycounts import canonical_day_count
from rates_xl.errors import InputError
from rates_xl.functions.values import COM_ERRORS, EPOCH_1900, ERRORS

if TYPE_CHECKING:
    from rates_xl.functions.history import HistoryOptions, Tenors

TENOR_RE = re.compile(r"^[0-9]{1,4}[DWMY]$")


class ArgProblem(InputError):
    """A value an argument cannot take; the text says what was expected (no argument name)."""


# -- what is "not given" and what is an Excel error ------------------------------------------

#: Excel's error values as text (functions/values.py), and our own messages' prefix.
_ERROR_TEXTS = (*ERRORS, "#RATES!")


def show(value: object) -> str:
    """A value as a person would recognise it in a message (short, quoted if text)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime):
        return value.isoformat(sep=" ", timespec="seconds") if value.time() else value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str):
        text = value if len(value) <= 30 else value[:27] + "..."
        return repr(text)
    text = repr(value)
    return text if len(text) <= 30 else text[:27] + "..."


def scalar(value: object) -> object:
    """One cell's value: None when empty; lists and arrays of one cell unwrapped.

    Raises ArgProblem for a multi-cell range, an Excel error value or a non-finite number.
    """
    if isinstance(value, str):  # the common case first
        text = value.strip()
        if not text:
            return None
        if text[0] == "#":
            upper = text.upper()
            for err in _ERROR_TEXTS:
                if upper.startswith(err):
                    raise ArgProblem(f"the input is an error ({err}); fix the cell it comes from")
        return text
    if hasattr(value, "tolist") and hasattr(value, "shape"):  # numpy arrays and scalars
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        cells = list(_flatten(value))
        cells = [c for c in cells if not _is_empty(c)]
        if len(cells) > 1:
            raise ArgProblem(f"expected one value, got a range of {len(cells)} values")
        value = cells[0] if cells else None
    if _is_empty(value):
        return None
    if isinstance(value, str):
        return scalar(value)
    if isinstance(value, int) and not isinstance(value, bool) and value in COM_ERRORS:
        raise ArgProblem(f"the input is an error ({COM_ERRORS[value]}); fix the cell it comes from")
    if isinstance(value, float) and not math.isfinite(value):
        raise ArgProblem(f"{value} is not a usable number")
    if type(value).__name__ == "XlError":  # the `formulas` engine's error values
        raise ArgProblem(f"the input is an error ({value}); fix the cell it comes from")
    return value


def _is_empty(value: object) -> bool:
    if value is None:
        return True
    if isinstance(value, str) and not value.strip():
        return True
    return type(value).__name__ in ("_Empty", "EmptyCell")  # `formulas`' EMPTY sentinel


def _flatten(value: Iterable[object]) -> Iterator[object]:
    for item in value:
        if isinstance(item, (list, tuple)):
            yield from _flatten(item)
        else:
            yield item


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# -- dates -------------------------------------------------------------------------------------

_EXCEL_EPOCH = EPOCH_1900.date()  # serial 0 (the rates range below starts long after Excel's 1900 quirk)
# Plausible dates for rates data, as serial numbers: 1950-01-01 .. 2199-12-31. A small
# number is far more likely a tenor typed without its unit (10 for 10Y) than the year 1900.
_SERIAL_MIN, _SERIAL_MAX = 18264, 109574


def serial_to_datetime(serial: float) -> datetime:
    """An Excel serial number (1900 date system) as a naive datetime; 46023 -> 2026-01-01."""
    if not _SERIAL_MIN <= serial < _SERIAL_MAX + 1:
        raise ArgProblem(
            f"{show(serial)} is a number, not a date (Excel date numbers here run from "
            f"{_SERIAL_MIN} = 1950-01-01)"
        )
    days = math.floor(serial)
    seconds = round((serial - days) * 86400)
    return EPOCH_1900 + timedelta(days=days, seconds=seconds)


def serial_of(day: date) -> int:
    return (day - _EXCEL_EPOCH).days


def _date_from_text(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def _as_datetime(value: object) -> datetime | None:
    """A datetime from a date cell, a serial number or ISO text; None if it is none of these."""
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if _is_number(value):
        return serial_to_datetime(float(value))
    if isinstance(value, str):
        return _date_from_text(value)
    return None


def _tenor_text(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    text = "".join(value.split()).upper()
    return text if TENOR_RE.match(text) else None


_AMBIGUOUS_DATE = re.compile(r"^\d{1,2}[./-]\d{1,2}[./-]\d{2,4}$")


def date_or_tenor(value: object) -> date | str:
    """A date (from a date cell, a serial number or YYYY-MM-DD) or a tenor like 10Y."""
    if isinstance(value, bool):
        raise ArgProblem(f"{show(value)} is not a date or a tenor like 10Y")
    tenor = _tenor_text(value)
    if tenor is not None:
        return tenor
    if isinstance(value, str) and _AMBIGUOUS_DATE.match(value):
        raise ArgProblem(f"{show(value)} is ambiguous text; use a date cell, 2026-01-01 or a tenor like 10Y")
    try:
        when = _as_datetime(value)
    except ArgProblem:  # a number too small or large to be a date: most likely a tenor without unit
        raise ArgProblem(
            f"{show(value)} is not a date or a tenor like 10Y (numbers count as Excel dates from "
            f"{_SERIAL_MIN} = 1950-01-01)"
        ) from None
    if when is None:
        raise ArgProblem(f"{show(value)} is not a date or a tenor like 10Y")
    return when.date()


def date_only(value: object) -> date:
    """A date (a date cell, a serial number or YYYY-MM-DD); tenors are not accepted."""
    if isinstance(value, bool):
        raise ArgProblem(f"{show(value)} is not a date")
    if _tenor_text(value) is not None:
        raise ArgProblem(f"{show(value)} is a tenor; this argument takes a date like 2026-01-01")
    if isinstance(value, str) and _AMBIGUOUS_DATE.match(value):
        raise ArgProblem(f"{show(value)} is ambiguous text; use a date cell or 2026-01-01")
    when = _as_datetime(value)
    if when is None:
        raise ArgProblem(f"{show(value)} is not a date; use a date cell or 2026-01-01")
    return when.date()


def timestamp(value: object) -> datetime:
    """A moment in UTC: a date-time cell, a serial number with a time part, ISO text.

    Naive values are taken as UTC (the service's time zone), a plain date as midnight.
    """
    if isinstance(value, bool) or _tenor_text(value) is not None:
        raise ArgProblem(f"{show(value)} is not a date-time; use a date cell or 2026-01-01T16:00:00Z")
    if isinstance(value, str) and _AMBIGUOUS_DATE.match(value):
        raise ArgProblem(f"{show(value)} is ambiguous text; use a date cell or 2026-01-01T16:00:00Z")
    when = _as_datetime(value)
    if when is None:
        raise ArgProblem(f"{show(value)} is not a date-time; use a date cell or 2026-01-01T16:00:00Z")
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


# -- periods -----------------------------------------------------------------------------------

def tenor(value: object) -> str:
    """A period like 3M or 10Y (number then D, W, M or Y)."""
    text = _tenor_text(value)
    if text is None:
        raise ArgProblem(f"{show(value)} is not a tenor like 3M or 10Y")
    if int(text[:-1]) == 0:
        raise ArgProblem(f"{show(value)} is an empty period; use e.g. 3M or 10Y")
    return text


_FREQUENCY_WORDS = {
    "ANNUAL": "1Y", "ANNUALLY": "1Y", "YEARLY": "1Y", "SEMIANNUAL": "6M", "SEMIANNUALLY": "6M",
    "QUARTERLY": "3M", "MONTHLY": "1M",
}


def frequency(value: object) -> str:
    """A payment frequency as a period (1M, 3M, 6M, 12M, 1Y) or a word like Quarterly."""
    if isinstance(value, str):
        word = re.sub(r"[\s_-]", "", value).upper()
        if word in _FREQUENCY_WORDS:
            return _FREQUENCY_WORDS[word]
    text = _tenor_text(value)
    if text is None or int(text[:-1]) == 0:
        raise ArgProblem(f"{show(value)} is not a frequency like 3M, 6M or 1Y")
    return text


# -- names -------------------------------------------------------------------------------------

def day_count(value: object) -> str:
    """A day count as the service names it (QuantLib's): Actual360, Actual365Fixed, ..."""
    if isinstance(value, str):
        name = canonical_day_count(value)
        if name is not None:
            return name
    raise ArgProblem(f"{show(value)} is not a day count like Actual360, Actual365Fixed or Thirty360BondBasis")


def currency_pair(value: object) -> str:
    """Six letters, base then quote: EURUSD (EUR/USD and eur usd are accepted too)."""
    if isinstance(value, str):
        text = re.sub(r"[\s/._-]", "", value).upper()
        if re.fullmatch(r"[A-Z]{6}", text):
            if text[:3] == text[3:]:
                raise ArgProblem(f"{show(value)} has the same currency twice")
            return text
    raise ArgProblem(f"{show(value)} is not a currency pair like EURUSD")


_COUNTRY_ALPHA3 = {
    "USA": "US", "GBR": "UK", "DEU": "DE", "FRA": "FR", "ITA": "IT", "ESP": "ES", "JPN": "JP",
    "CAN": "CA", "AUS": "AU", "CHE": "CH", "NLD": "NL",
}


def country(value: object) -> str:
    """A two-letter country code (US, UK, DE, ...); common three-letter codes are mapped."""
    if isinstance(value, str):
        text = value.strip().upper()
        if re.fullmatch(r"[A-Z]{2}", text):
            return text
        if text in _COUNTRY_ALPHA3:
            return _COUNTRY_ALPHA3[text]
    raise ArgProblem(f"{show(value)} is not a country code like US, UK or DE")


#: Index names seen at the service (service-facts.md). The service knows 60+; this list only
#: fixes case and spacing slips of well-known names. Unknown names go to the service as typed.
KNOWN_INDEXES = (
    "SOFR", "Fed Funds", "SONIA", "ESTR", "SARON", "CORRA", "TONAR", "AONIA", "1M EURIBOR",
    "3M EURIBOR", "6M EURIBOR", "12M EURIBOR", "3M SAIBOR", "6M SAIBOR", "3M STIBOR",
    "3M NIBOR", "6M NIBOR", "3M CIBOR", "6M CIBOR", "3M WIBOR", "6M WIBOR", "3M HIBOR",
    "3M BBSW", "6M BBSW", "3M JIBAR", "1M TERM SOFR", "3M TERM SOFR",
)
_INDEX_ALIASES = {"€STR": "ESTR", "EUROSTR": "ESTR", "TONA": "TONAR"}
_INDEX_BY_KEY = {n.replace(" ", "").upper(): n for n in KNOWN_INDEXES} | _INDEX_ALIASES
_INDEX_CHARS = re.compile(r"^[^\W_][\w .&/()€-]{0,39}$")


def index(value: object) -> str:
    """An index name: known names in any case or spacing; other names of a plausible shape."""
    if not isinstance(value, str):
        raise ArgProblem(f"{show(value)} is not an index name like SOFR or 3M EURIBOR")
    text = " ".join(value.split())
    known = _INDEX_BY_KEY.get(text.replace(" ", "").upper())
    if known is not None:
        return known
    if not _INDEX_CHARS.match(text) or not any(c.isalpha() for c in text):
        raise ArgProblem(f"{show(value)} is not an index name like SOFR or 3M EURIBOR")
    return text


_TRUE = {"TRUE", "YES", "Y", "1", "WAHR", "VRAI"}
_FALSE = {"FALSE", "NO", "N", "0", "FALSCH", "FAUX"}


def boolean(value: object) -> bool:
    """TRUE/FALSE, 1/0, or the text of either."""
    if isinstance(value, bool):
        return value
    if _is_number(value) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().upper()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    raise ArgProblem(f"{show(value)} is not TRUE or FALSE")


def number(value: object) -> float:
    """A number as a cell holds it (RATES_SOURCE's cell): TRUE and text are not numbers."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ArgProblem(f"{show(value)} is not a number")
    return float(value)


def tenors(value: object) -> Tenors:
    """One tenor, a range or array of tenors, or a comma list (functions/history.py)."""
    from rates_xl.functions.history import parse_tenors

    return parse_tenors(value)


def history_options(value: object) -> HistoryOptions:
    """BDH-style history options, "Per=M Fill=P" (functions/history.py)."""
    from rates_xl.functions.history import parse_options

    return parse_options(value)


#: kind -> (coercer, what a missing value should have been, for "required" messages)
COERCERS: dict[str, tuple[Callable[[object], object], str]] = {
    "index": (index, "an index name like SOFR or 3M EURIBOR"),
    "date_or_tenor": (date_or_tenor, "a date or a tenor like 10Y"),
    "date": (date_only, "a date like 2026-01-01"),
    "timestamp": (timestamp, "a date-time"),
    "tenor": (tenor, "a tenor like 3M or 10Y"),
    "frequency": (frequency, "a frequency like 3M, 6M or 1Y"),
    "day_count": (day_count, "a day count like Actual360"),
    "currency_pair": (currency_pair, "a currency pair like EURUSD"),
    "country": (country, "a country code like US, UK or DE"),
    "bool": (boolean, "TRUE or FALSE"),
    "number": (number, "a cell holding a number a RATES_* function returned"),
    "tenors": (tenors, "a tenor like 10Y, a range of tenors or a list like 2Y,5Y,10Y"),
    "history_options": (history_options, 'options like "Per=M Fill=P" (BDH\'s names)'),
}
