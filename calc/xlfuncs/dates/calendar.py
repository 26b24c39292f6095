"""DATE as Excel answers it where the bridged `formulas` implementation (calc/xlfuncs/bridge.py)
does not: DATE(y, m, d) is the serial of the first of the month plus d - 1 in Excel's calendar,
which has a 29 February 1900, so a day count running past the month from before March 1900
(DATE(1900,1,22222) is 22222) is one day early in formulas, which steps through Python's
calendar. A month running the year past 9999 is #NUM!, whatever the day (DATE(9999,13,-1): the
bridged one answered 2958464, 30 December 9999; IronCalc's Excel-made DATE_AND_TIME__DATE.xlsx
D5, MIT or Apache-2.0). An array is lifted here, each element read so (`DATE(1996,1,SEQUENCE(10))`:
calc/formula/hazards.py LIFTS_ITSELF computes such a formula whole). Other years out of range
(#NUM!), text and errors go on to the bridged one."""

from __future__ import annotations

import datetime
import math

from rates_xl.calc.engines.formualizer.values import error
from rates_xl.calc.xlfuncs.bridge import wrapped
from rates_xl.calc.xlfuncs.coercion import Callback, elementwise, is_number
from rates_xl.calc.xlfuncs.types import Answer, EngineValue

_LAST_SERIAL = 2958465  # 31 December 9999
_ZERO = datetime.date(1899, 12, 31)  # Excel's day 0 before its 29 February 1900


def _first_of_month(year: int, month: int) -> int | None:
    """Excel's serial of the first of `month` (1-12) in `year`, None before 1900 or after 9999."""
    if not 1900 <= year <= 9999:
        return None
    days = (datetime.date(year, month, 1) - _ZERO).days
    return days + (1 if (year, month) >= (1900, 3) else 0)  # Excel's 29 February 1900


def _date(bridged: Callback) -> Callback:
    def one(*args: EngineValue) -> Answer:
        numbers = [a for a in args if is_number(a)]
        if len(args) == 3 and len(numbers) == 3 and all(map(math.isfinite, numbers)):
            year, month, day = (math.trunc(a) for a in numbers)
            if 0 <= year < 1900:
                year += 1900
            if 0 <= year <= 9999 and year + (month - 1) // 12 > 9999:
                return error("#NUM!")  # (the month runs the year past 9999: Excel's #NUM!, day or not)
            year += (month - 1) // 12
            first = _first_of_month(year, (month - 1) % 12 + 1)
            if first is not None and 0 <= first + day - 1 <= _LAST_SERIAL:
                return float(first + day - 1)
        return bridged(*args)  # out of range (#NUM!), text, errors: formulas'

    lifted = elementwise(one)

    def call(*args: EngineValue) -> Answer:
        return lifted(*args) if any(isinstance(a, list) for a in args) else one(*args)
    return call


FUNCTIONS = {"DATE": wrapped("DATE", _date)}
