"""Text VALUE reads where the bridged `formulas` VALUE reads it wrongly, whatever the locale
(calc/xlfuncs/text/numbers.py and the typed literals of calc/formula/arguments.py ask here
first; every other text goes on to `formulas`):

- a time alone is that time of day 0 (Microsoft's VALUE page: `VALUE("16:48:00")-VALUE("12:00:00")`
  is 0.2, and "16:48:00" is 0.7): `formulas` put it on 1 January of the current year
  (VALUE("14:30") was 46023.604..., Excel 0.604...); one with an hour of 24 or more, a minute or
  second of 60 or more, or an AM/PM hour outside 1 to 12 is not settled here: NOT_COMPUTED;
- a year-month-day date that is no date ("2024-02-30", "2023-02-29", "2024-13-01") is #VALUE!:
  `formulas` rolled it on (1 March 2024); formualizer's own VALUE answers #VALUE! too;
- a number followed by % is a hundredth of it ("50%" is 0.5; `formulas`: #VALUE!).
"""

from __future__ import annotations

import datetime
import re

#: The answer that lists a cell as not computed (the check names the cell: calc/results.py).
NOT_COMPUTED = "#NAME?"

_TIME = re.compile(r"\s*(\d{1,2})(?::(\d{1,2})(?::(\d{1,2}(?:\.\d+)?))?)?\s*([AP]M?)?\s*", re.IGNORECASE)
_ISO_DATE = re.compile(r"\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T].*)?", re.DOTALL)
_PERCENT = re.compile(r"\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*%\s*")


def read(text: str) -> float | str | None:
    """`text` as Excel's VALUE reads it, an error's text, or None: left to `formulas`."""
    if (found := _TIME.fullmatch(text)) is not None and (found[2] is not None or found[4] is not None):
        return _time(found)
    if (found := _ISO_DATE.fullmatch(text)) is not None:
        try:
            datetime.date(int(found[1]), int(found[2]), int(found[3]))
        except ValueError:
            return "#VALUE!"
        return None
    if (found := _PERCENT.fullmatch(text)) is not None:
        return float(found[1]) / 100
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
