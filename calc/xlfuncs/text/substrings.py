"""LEFT, RIGHT, MID, REPLACE and SUBSTITUTE as Excel computes them. The `formulas` implementations (used
for their lifting over arrays) answer #VALUE! for a count or a start given as numeric text
(`LEFT("non-numeric","2.99999")` is "no" in Excel); these read every argument with Excel's
coercions (`values.number`, `values.text`) and apply themselves to each element of an array.

A count below 0, or a start below 1, is #VALUE!; counts and starts are truncated; LEFT's and
RIGHT's count defaults to 1 when left out (`LEFT(A1)`); an empty argument (`LEFT(A1,)`) or an
empty cell is 0, as Excel reads it. SUBSTITUTE with an empty old text answers the text as it
is (the `formulas` one: #VALUE!); an instance below 1 is #VALUE!."""

from __future__ import annotations

import math

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import (
    Callback,
    ExcelError,
    Factory,
    Facts,
    elementwise,
    number,
    text,
)
from rates_xl.calc.xlfuncs.limits import TEXT_LIMIT, growing_length
from rates_xl.calc.xlfuncs.omitted import OMITTED


def _count(value: EngineValue) -> int:
    found = 1 if value == OMITTED else math.trunc(number(value))
    if found < 0:
        raise ExcelError("#VALUE!")
    return found


def _start(value: EngineValue) -> int:
    found = math.trunc(number(value))
    if found < 1:
        raise ExcelError("#VALUE!")
    return found


def _left(value: EngineValue, count: EngineValue = OMITTED) -> str:
    subject, n = text(value), _count(count)
    return subject[:n]


def _right(value: EngineValue, count: EngineValue = OMITTED) -> str:
    subject, n = text(value), _count(count)
    return subject[max(len(subject) - n, 0):] if n else ""


def _mid(value: EngineValue, start: EngineValue, count: EngineValue) -> str:
    subject, begin, n = text(value), _start(start), math.trunc(number(count))
    if n < 0:
        raise ExcelError("#VALUE!")
    return subject[begin - 1:begin - 1 + n]


def _replace(value: EngineValue, start: EngineValue, count: EngineValue, new: EngineValue) -> str:
    subject, begin, n = text(value), _start(start), math.trunc(number(count))
    if n < 0:
        raise ExcelError("#VALUE!")
    return subject[:begin - 1] + text(new) + subject[begin - 1 + n:]


def _substitute(value: EngineValue, old: EngineValue, new: EngineValue, instance: EngineValue = OMITTED) -> str:
    subject, old_text, new_text = text(value), text(old), text(new)
    if isinstance(instance, bool):
        raise ExcelError("#VALUE!")  # formulas_test CORE!AB14: an instance of TRUE is #VALUE!
    n = None if instance == OMITTED else math.trunc(number(instance))
    if n is not None and n < 1:
        raise ExcelError("#VALUE!")
    if old_text == "":
        return subject  # nothing to find: the text as it is
    if n is None:
        if growing_length(subject, old_text, new_text) > TEXT_LIMIT:
            raise ExcelError("#VALUE!")  # longer than a cell holds: not built (limits.py)
        return subject.replace(old_text, new_text)
    at = -1
    for _ in range(n):
        at = subject.find(old_text, at + 1 if at < 0 else at + len(old_text))
        if at < 0:
            return subject
    return subject[:at] + new_text + subject[at + len(old_text):]


def _ours(name: str, func: Callback) -> Factory:
    def factory(_facts: Facts) -> Callback:
        call = elementwise(func)
        call.__name__ = name
        return call
    return factory


FUNCTIONS: dict[str, Factory] = {
    "LEFT": _ours("LEFT", _left),
    "RIGHT": _ours("RIGHT", _right),
    "MID": _ours("MID", _mid),
    "REPLACE": _ours("REPLACE", _replace),
    "SUBSTITUTE": _ours("SUBSTITUTE", _substitute),
}
