"""Text VALUE reads where the bridged `formulas` VALUE reads it wrongly, whatever the locale
(calc/xlfuncs/text/numbers.py and the typed literals of calc/formula/arguments.py ask here
first; every other text goes on to `formulas`):

- a time alone is that time of day 0 (Microsoft's VALUE page: `VALUE("16:48:00")-VALUE("12:00:00")`
  is 0.2, and "16:48:00" is 0.7): `formulas` put it on 1 January of the current year
  (VALUE("14:30") was 46023.604..., Excel 0.604...); one with an hour of 24 or more, a minute or
  second of 60 or more, or an AM/PM hour outside 1 to 12 is not settled here: NOT_COMPUTED;
- a year-month-day date that is no date ("2024-02-30", "2023-02-29", "2024-13-01") is #VALUE!:
  `formulas` rolled it on (1 March 2024); formualizer's own VALUE answers #VALUE! too;
- a number followed by % is a hundredth of it ("50%" is 0.5; `formulas`: #VALUE!);
- a time of another form read as Excel reads it (pycel's Excel-made text.xlsx, TextDates!A30:A48,
  TEXT of each): "h:m" with an hour below 24 and up to 9999 minutes ("23:99" is 1.02708), "h:m:s"
  with minutes below 60 and up to 9999 seconds, "m:s.f" (a fraction of a second) with minutes
  below 60; past those limits Excel leaves the text as it is ("24:99", "0:0:10000": #VALUE! for
  VALUE); an hour of 24 or more within them, and any other text with a colon and no date in it
  ("23:59.:0"), is not settled here (NOT_COMPUTED). `formulas` put each on 1 January of this year;
- a number in parentheses is its negative ("(123)" is -123, as Excel reads an accounting
  negative typed in a cell; LibreOffice too): `formulas` answered #VALUE!, and `"(123)"+0` too;
- a whole number, a space and a fraction below 1 is their sum ("1 1/2" is 1.5, "0 3/8" 0.375:
  Microsoft's way of typing a fraction into a cell, "0 1/2"; LibreOffice too): `formulas` read a
  date in it, 2 January 2001 (37257), silently. A fraction of 1 or more, or over more than
  three digits, is not settled here (NOT_COMPUTED).
"""

from __future__ import annotations

import datetime
import re

#: The answer that lists a cell as not computed (the check names the cell: calc/results.py).
NOT_COMPUTED = "#NAME?"

_TIME = re.compile(r"\s*(\d{1,2})(?::(\d{1,2})(?::(\d{1,2}(?:\.\d+)?))?)?\s*([AP]M?)?\s*", re.IGNORECASE)
_ISO_DATE = re.compile(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T].*)?", re.DOTALL)
_PERCENT = re.compile(r"\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*%\s*")
#: A time's characters alone (digits, colons, points, spaces, AM/PM): no date beside it.
_TIME_ALONE = re.compile(r"(?=.*\d)[\d:.\s]*:[\d:.\s]*(?:[AP]M?)?\s*", re.IGNORECASE)


_NEGATIVE = re.compile(r"\s*\(\s*(\d+(?:\.\d*)?|\.\d+)\s*\)\s*")
_FRACTION = re.compile(r"\s*([+-]?)\s*(\d+) +(\d+)/(\d+)\s*")
_MOST_DENOMINATOR = 999  # (three digits: the most a fraction format shows, "# ???/???")


def signed_form(text: str) -> float | str | None:
    """A number in parentheses or a whole number and a fraction (the module's docstring), as
    Excel reads it; NOT_COMPUTED for a fraction not settled here; None for any other text."""
    if (found := _NEGATIVE.fullmatch(text)) is not None:
        return -float(found[1])
    if (found := _FRACTION.fullmatch(text)) is not None:
        whole, numerator, denominator = int(found[2]), int(found[3]), int(found[4])
        if not 0 < denominator <= _MOST_DENOMINATOR or numerator >= denominator:
            return NOT_COMPUTED
        value = whole + numerator / denominator
        return -value if found[1] == "-" else value
    return None


_CLOCK = re.compile(r"\s*(\d+):(\d+)(?:(\.)(\d*))?\s*")
_CLOCK_SECONDS = re.compile(r"\s*(\d+):(\d+):(\d+)(\.\d*)?\s*")
_MOST = 9999  # the most minutes (h:m) or seconds (h:m:s, m:s.f) Excel reads in a time's last part


def read(text: str) -> float | str | None:
    """`text` as Excel's VALUE reads it, an error's text, or None: left to `formulas`."""
    if (found := _TIME.fullmatch(text)) is not None and found[4] is not None:
        return _time(found)  # AM/PM; every other time of `_TIME`'s is one `_clock` reads
    if (clock := _clock(text)) is not None:
        return clock
    if (found := _ISO_DATE.fullmatch(text)) is not None:
        try:
            datetime.date(int(found[1]), int(found[2]), int(found[3]))
        except ValueError:
            return "#VALUE!"
        return None
    if (found := _PERCENT.fullmatch(text)) is not None:
        return float(found[1]) / 100
    if (signed := signed_form(text)) is not None:
        return signed
    if _TIME_ALONE.fullmatch(text):
        return NOT_COMPUTED  # a time of another form: not settled here
    return None


def time_alone(text: str) -> bool:
    """Whether `text` is a time of day and nothing else (a colon or AM/PM, no date in it)."""
    found = _TIME.fullmatch(text)
    return (found is not None and found[4] is not None) or _TIME_ALONE.fullmatch(text) is not None


def _clock(text: str) -> float | str | None:
    """A time without AM/PM in the forms Excel reads past 59 (the module's docstring), or None."""
    if (found := _CLOCK_SECONDS.fullmatch(text)) is not None:
        hours, minutes, seconds = int(found[1]), int(found[2]), float(found[3] + (found[4] or "").rstrip("."))
        if minutes >= 60 or int(found[3]) > _MOST:
            return "#VALUE!"
        if hours >= 24:
            return NOT_COMPUTED
        return (hours * 3600 + minutes * 60 + seconds) / 86400
    if (found := _CLOCK.fullmatch(text)) is not None:
        first, second = int(found[1]), int(found[2])
        if found[4]:  # m:s.f
            if first >= 60 or second > _MOST:
                return "#VALUE!"
            return (first * 60 + float(f"{found[2]}.{found[4]}")) / 86400
        if second > _MOST or first >= 24 and second >= 60:  # h:m ("23:59." too)
            return "#VALUE!"
        if first >= 24:
            return NOT_COMPUTED
        return (first * 60 + second) / 1440
    return None


def _time(found: re.Match[str]) -> float | str:
    hours, minutes = int(found[1]), int(found[2] or 0)
    seconds = float(found[3] or 0)
    if minutes >= 60 or seconds >= 60:
        return NOT_COMPUTED
    if found[4] is not None:  # 12-hour clock
        if not 1 <= hours <= 12:
            return NOT_COMPUTED
        hours = hours % 12 + (12 if found[4].upper().startswith("P") else 0)
    elif hours >= 24:
        return NOT_COMPUTED
    return (hours * 3600 + minutes * 60 + seconds) / 86400
