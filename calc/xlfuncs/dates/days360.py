"""DAYS360 as Excel computes it. formualizer's answered another number for four kinds of
argument, and #VALUE! for a method typed as the text "TRUE" (Excel 16's values in IronCalc's
Excel-made DATE_AND_TIME__DAYS_DAYS360.xlsx, MIT or Apache-2.0, not committed; the rows named):

- serial 0 is Excel's day 0, "January 0, 1900": DAYS360(10, 0) is -10 (D29, with the end an
  empty cell), DAYS360(TRUE, 0) -1 (D40), DAYS360(1, 0.00625) -1 (D44); formualizer read it as
  31 December 1899 (-9, 0, 0);
- a date with a time of day is rounded to the second first, as Excel's dates are: 46000.999999
  is day 46001 (D24: 9 from 45992.000001, formualizer 8);
- the method: a logical value, a number (any but 0 is TRUE: 18, -2, 0.9999, 0.0001), an empty
  cell FALSE, the text "TRUE" or "FALSE" (H12); other text #VALUE! (H5, H13, H14).

The US (NASD) method, as Excel and LibreOffice (ScGetDiffDate360) count it: a start on the 31st
or on the last day of February is the 30th; an end on the 31st is the 30th when the start (so
moved) is the 30th, else it stays the 31st; an end on the last day of February stays as it is
(DAYS360(29 Feb 2024, 28 Feb 2025) is 358, D14). The European method: each 31st is the 30th.
Dates are read as numbers (a logical value as 1 or 0, an empty cell 0); below 0 or past
31 December 9999, #NUM! (D25). Excel's 1900 has its 29 February (serial 60).
"""

from __future__ import annotations

import math

from rates_xl.calc.engines.formualizer.values import is_error
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, elementwise
from rates_xl.calc.xlfuncs.dates.daycount import day
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted
from rates_xl.calc.xlfuncs.text import number_text
from rates_xl.calc.xlfuncs.types import Answer, EngineValue

_LAST_SERIAL = 2958465  # 31 December 9999


def days360(_facts: Facts) -> Callback:
    def DAYS360(start: EngineValue, end: EngineValue, method: EngineValue = OMITTED) -> Answer:  # noqa: N802
        for value in (start, end, method):
            if is_error(value):
                return value
        first, last = _date(start), _date(end)
        european = _method(method)
        (y1, m1, d1), (y2, m2, d2) = first, last
        if european:
            d1, d2 = min(d1, 30), min(d2, 30)
        else:
            if d1 == 31 or (m1 == 2 and d1 == _february(y1)):
                d1 = 30
            if d2 == 31 and d1 == 30:
                d2 = 30
        return float((y2 - y1) * 360 + (m2 - m1) * 30 + d2 - d1)

    DAYS360.__name__ = "DAYS360"
    return reads_omitted(elementwise(DAYS360))


def _date(value: EngineValue) -> tuple[int, int, int]:
    """(year, month, day) of a date argument, day 0 as (1900, 1, 0)."""
    if value is None or value == OMITTED:
        serial = 0.0
    elif isinstance(value, bool | int | float):
        serial = float(value)
    elif isinstance(value, str):
        read = number_text.number(value)  # (typed text reaches here read already: text_as_numbers)
        if isinstance(read, str):
            raise ExcelError(read)
        serial = read
    else:
        raise ExcelError("#VALUE!")
    if not 0 <= serial <= _LAST_SERIAL + 1:
        raise ExcelError("#NUM!")
    whole = math.floor(round(serial * 86400) / 86400)  # (to the second, as Excel's dates are)
    if whole > _LAST_SERIAL:
        raise ExcelError("#NUM!")
    return (1900, 1, 0) if whole == 0 else day(whole)


def _method(value: EngineValue) -> bool:
    if value is None or value == OMITTED:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, str) and value.upper() in ("TRUE", "FALSE"):
        return value.upper() == "TRUE"
    raise ExcelError("#VALUE!")


def _february(year: int) -> int:
    """The last day of February in Excel's calendar (29 in 1900, its own leap year)."""
    return 29 if year == 1900 or (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)) else 28


FUNCTIONS = {"DAYS360": days360}
