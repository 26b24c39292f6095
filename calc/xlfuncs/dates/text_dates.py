"""Date text as Excel reads it where `formulas` reads it otherwise, for every `formulas` function
reading one (VALUE, DATEVALUE, EDATE, EOMONTH, TIMEVALUE ... and its engine's YEAR, MONTH, DAY):
they all ask `formulas.functions.date._text2datetime`, which reads the text with dateutil's
parser and then counts it as DATE counts its arguments. Three readings were numbers Excel
never gives, silently (bench/libreoffice_opinion.py's family `date_texts` found them):

- a four-digit year before 1900 ("1/1/1899"): DATE's rule for a small year (1899 is 3799) made
  VALUE 693598 and EDATE 693629, and DATEVALUE's -364. Excel's dates begin in 1900: "the
  date_text argument must represent a date between January 1, 1900 and December 31, 9999 ...
  DATEVALUE returns the #VALUE! error value if [it] falls outside of this range" (Microsoft's
  DATEVALUE page). #VALUE!;
- a day the month does not have ("29-Feb-2023", "31 Apr 2024"): DATE's rule rolled it into
  the next month (1 March 2023). Excel reads no date in it, whatever its locale: #VALUE!
  (as value_text.py's "2024-02-30"; 29 February 1900 is Excel's day 60, as typed);
- a time alone whose minutes Excel carries ("0:75" is 1:15, pycel's Excel-made text.xlsx,
  value_text.py): dateutil put it on 1 January of the current year, so EDATE("0:75",1) was a
  date in February of this year where Excel counts from day 0 (31). Now the time of day 0 as
  value_text.py reads it, or its error, or not computed where it is not settled there;

and three depend on the locale, so they are not computed (#NAME?, listed by the check, Excel's
value kept), as the same text in arithmetic is (calc/xlfuncs/text/number_text.py):
day.month.year with dots ("1.5.2024": 1 May 2024 to a German Excel, text to an English one;
dateutil read 5 January 2024), digits around commas ("12,34": 12.34 to a German Excel, #VALUE!
to an English one; dateutil read 12 January of this year), and numbers around slashes or dashes that read as a date in
either order of day and month ("1/2/2024": dateutil read 2 January, month first, where a
day-first Excel has 1 February). Where one order alone reads a date ("13/1/2024",
"29/02/1900"), that date is taken, as the corpus' Excel took it (formulas_test.xlsx reads
"29/02/1900" as day 60 in some 900 cells; an Excel reading month first has #VALUE! there);
ISO dates ("2024-01-02"), named months and a day equal to its month ("3/3/2024") as before.

DATEVALUE is formualizer's otherwise, and its own read "1/1/1899" as -364, "1899-12-31" as a
date, and "2/29/1900" (Excel's day 60) as #VALUE!: it is `formulas`' with the reading above,
a time alone and a plain number not settled (not computed). tests/calc/test_date_text_read.py.
"""

from __future__ import annotations

import calendar
import functools
import re
import threading
from collections.abc import Callable

from rates_xl.calc.xlfuncs.coercion import Callback, Factory
from rates_xl.calc.xlfuncs.types import Answer, EngineValue

#: `formulas`' reading of a date text: year, month, day, hour, minute, second.
Reading = Callable[[str], tuple[float, ...]]

#: Day.month.year with dots: the locale's reading.
_DOTTED = re.compile(r"\s*\d{1,2}\.\d{1,2}\.\d{2,4}\s*")
#: Numbers around slashes or dashes (day and month, or month and day), a year and a time after them.
_SLASHED = re.compile(r"\s*(\d{1,2})\s*([/-])\s*(\d{1,2})(?:\s*\2\s*\d{1,4})?(?:\s+\S.*)?\s*")
#: Digits around commas: a number to a locale whose decimal sign is the comma ("12,34" is 12.34
#: to a German Excel, #VALUE! to an English one, IronCalc's Excel-made T_VALUE_VALUETOTEXT.xlsx
#: I10), never a date; dateutil read 12 January of this year.
_COMMAS = re.compile(r"\s*\d+(?:,\d+)+\s*")
#: A four-digit number: the year as typed.
_FOUR_DIGITS = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_lock = threading.Lock()


def install() -> None:
    """Put Excel's reading in front of `formulas`' (once per process; every caller of
    `_text2datetime` looks it up in its module when called)."""
    from formulas.functions import date

    with _lock:
        if getattr(date._text2datetime, "rates_xl_excel", False):
            return
        date._text2datetime = _excel_reading(date._text2datetime)


def _excel_reading(original: Reading) -> Reading:
    from formulas.functions import Error, FoundError

    from rates_xl.calc.xlfuncs.text import value_text

    def refuse(answer: str) -> FoundError:
        return FoundError(err=Error.errors[answer])

    @functools.lru_cache(maxsize=4096)
    def reading(text: str) -> tuple[float, ...]:
        if not isinstance(text, str):
            return original(text)
        if value_text.time_alone(text):
            read = value_text.read(text)
            if isinstance(read, str):
                raise refuse(read)
            if read is None:
                return original(text)
            days, seconds = divmod(round(read * 86400, 6), 86400)
            hours, rest = divmod(seconds, 3600)
            minutes, second = divmod(rest, 60)
            return 1900, 1, int(days), int(hours), int(minutes), second  # day 0 is 0 January 1900
        slashed = _SLASHED.fullmatch(text)
        if _DOTTED.fullmatch(text) or _COMMAS.fullmatch(text) or (
                slashed is not None and _either_order(int(slashed[1]), int(slashed[3]))):
            raise refuse(value_text.NOT_COMPUTED)
        year, month, day, *clock = original(text)
        typed = [int(found) for found in _FOUR_DIGITS.findall(text)]
        if year in typed and year < 1900:
            raise ValueError(text)  # #VALUE! to the callers
        if 1 <= month <= 12 and 1 <= year <= 9999 and day > calendar.monthrange(int(year), int(month))[1] \
                and (year, month, day) != (1900, 2, 29):
            raise ValueError(text)
        return (year, month, day, *clock)

    reading.rates_xl_excel = True  # type: ignore[attr-defined]
    return reading


def _either_order(first: int, second: int) -> bool:
    """Whether both orders of day and month read a date, and different ones ("1/2")."""
    return first != second and 1 <= first <= 12 and 1 <= second <= 12


def _datevalue(bridged: Callback) -> Callback:
    from rates_xl.calc.engines.formualizer.values import error, is_error
    from rates_xl.calc.xlfuncs.text import number_text, value_text

    def call(text: EngineValue) -> Answer:
        if is_error(text):
            return text
        if not isinstance(text, str):
            return error("#VALUE!")  # a number, a logical, an empty cell: Excel reads text alone
        if value_text.time_alone(text) or number_text.plain_number(text):
            return error(value_text.NOT_COMPUTED)
        return bridged(text)
    return call


def _factories() -> dict[str, Factory]:
    from rates_xl.calc.xlfuncs.bridge import wrapped

    return {"DATEVALUE": wrapped("DATEVALUE", _datevalue)}


FUNCTIONS = _factories()
