"""TIME as Excel computes it: formualizer wraps a negative total into the day before
(TIME(-1,0,67) gave 0.959) where Excel says #NUM!.

Each argument is read as a number and truncated; one above 32767 is #NUM!, as is a total
below zero seconds; the answer is the fraction of a day the total leaves past whole days."""

from __future__ import annotations

import math

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, elementwise, number


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
