"""FIND as Excel computes it over arrays: formualizer reads the first element of an array given
to it (`FIND({"a","b"},{"ciao","bau"})` answered 3 in every cell; Excel: 3, 1, #N/A over its
range), so it is ours, applied to each element (`values.elementwise`).

Case-sensitive, no wildcards; start_num below 1 or past the text's length is #VALUE!, as is a
find_text not found; an empty find_text is found at start_num."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rates_xl.calc.xlfuncs.omitted import OMITTED
from rates_xl.calc.xlfuncs.values import ExcelError, elementwise, number, text


def _find(find_text: Any, within_text: Any, start_num: Any = OMITTED) -> int:
    needle, haystack = text(find_text), text(within_text)
    start = 1 if start_num == OMITTED else int(number(start_num))
    if start < 1 or (start > len(haystack) and not (needle == "" and start == len(haystack) + 1 == 1)):
        raise ExcelError("#VALUE!")
    found = haystack.find(needle, start - 1)
    if found < 0:
        raise ExcelError("#VALUE!")
    return found + 1


def find(_facts: dict[str, Any]) -> Callable[..., Any]:
    call = elementwise(_find)
    call.__name__ = "FIND"
    call.reads_omitted = True  # type: ignore[attr-defined] - see calc/xlfuncs/__init__.py
    return call
