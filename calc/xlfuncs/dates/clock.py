"""TIME, HOUR, MINUTE and SECOND as Excel computes them.

TIME: formualizer wraps a negative total into the day before (TIME(-1,0,67) gave 0.959) where
Excel says #NUM!. Each argument is read as a number and truncated; one above 32767 is #NUM!, as
is a total below zero seconds; the answer is the fraction of a day the total leaves past whole
days.

HOUR, MINUTE and SECOND of a number: the time of day rounded to the nearest second first, then
split, so a second rounded up carries into the minute, the hour and the next day (Microsoft's
SECOND page: "an integer in the range 0 (zero) to 59"; LibreOffice rounds the same way,
interpr2.cxx ScGetSec). The bridged `formulas` ones rounded the seconds alone:
SECOND(0.44305), 10:37:59.52, was 60 and MINUTE 37, where the time is 10:38:00. Anything but a
number (a time as text, an array, an error) goes on to them."""

from __future__ import annotations

import math
from collections.abc import Callable

from rates_xl.calc.engines.formualizer.values import EngineValue, error
from rates_xl.calc.xlfuncs import coercion
from rates_xl.calc.xlfuncs.bridge import wrapped
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, elementwise, number
from rates_xl.calc.xlfuncs.types import Answer


def _time(hour: EngineValue, minute: EngineValue, second: EngineValue) -> float:
    parts = [math.trunc(number(v)) for v in (hour, minute, second)]
    if any(p > 32767 for p in parts):
        raise ExcelError("#NUM!")
    total = parts[0] * 3600 + parts[1] * 60 + parts[2]
    if total < 0:
        raise ExcelError("#NUM!")
    return (total % 86400) / 86400


def time_(_facts: Facts) -> Callback:
    call = elementwise(_time)
    call.__name__ = "TIME"
    return call


#: Seconds in the rounded time of day -> the part each function answers.
_PARTS = {"HOUR": lambda s: s // 3600, "MINUTE": lambda s: s % 3600 // 60, "SECOND": lambda s: s % 60}


def _part_of(name: str) -> Callable[[Callback], Callback]:
    part = _PARTS[name]

    def cases(bridged: Callback) -> Callback:
        def call(serial: EngineValue) -> Answer:
            if not coercion.is_number(serial):
                return bridged(serial)
            value = float(serial)
            if value < 0:
                return error("#NUM!")
            seconds = math.floor((value - math.floor(value)) * 86400 + 0.5) % 86400
            return float(part(seconds))
        return call
    return cases


FUNCTIONS = {name: wrapped(name, _part_of(name)) for name in _PARTS}
