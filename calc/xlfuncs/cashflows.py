"""XNPV as Excel computes it. The rate argument is read as Excel reads it before the
`formulas` implementation (bridged, measured right on the cash flows themselves) computes:
an error given as the rate is passed on (XNPV(#N/A, ...) is #N/A; formualizer hands
`formulas` a value it answers #VALUE! for), a boolean is #VALUE! (XNPV(TRUE, ...): `formulas`
reads it as 1) and an empty cell is a rate of 0, which is #NUM! (formulas_test.xlsx FINANCIAL
row 56).

Where `formulas` answers a number for plain numeric cash flows, the sum is taken again in the
book's order: `formulas` sorts the flows by date first, and at a rate next to the root (an
XIRR's answer) the terms cancel, so the order of the additions shows in the 7th digit
(formulas_test.xlsx FINANCIAL!R56: 4.594164160e-09, sorted 4.594164826e-09). Excel and
LibreOffice both add in the order given."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from rates_xl.calc.xlfuncs.bridge import bridged, error
from rates_xl.calc.xlfuncs.values import is_error


def _numbers(argument: Any) -> list[float] | None:
    """The plain numbers of a range or scalar argument, in the book's order (row by row), or
    None when anything else is in it (left to `formulas`' own reading)."""
    rows = argument if isinstance(argument, list) else [[argument]]
    flat = [value for row in rows for value in (row if isinstance(row, list) else [row])]
    if not flat or any(isinstance(value, bool) or not isinstance(value, (int, float)) for value in flat):
        return None
    return [float(value) for value in flat]


def _in_order(rate: float, values: list[float], dates: list[float]) -> float:
    """Sum of value / (1 + rate)^(days / 365) in the order given, the days counted from the
    earliest whole-day date as `formulas` counts them (its answer is otherwise kept)."""
    days = [math.floor(date) for date in dates]
    first = min(days)
    total = 0.0
    for value, day in zip(values, days, strict=True):
        total += value / (1 + rate) ** ((day - first) / 365)
    return total


def xnpv(_facts: dict[str, Any]) -> Callable[..., Any]:
    computed = bridged("XNPV")

    def XNPV(rate: Any, *rest: Any) -> Any:  # noqa: N802
        if is_error(rate):
            return rate
        if isinstance(rate, bool):
            return error("#VALUE!")
        if rate is None:
            return error("#NUM!")
        answer = computed(rate, *rest)
        if (isinstance(answer, float) and math.isfinite(answer) and len(rest) == 2
                and isinstance(rate, (int, float))):
            values, dates = _numbers(rest[0]), _numbers(rest[1])
            if values is not None and dates is not None and len(values) == len(dates):
                try:
                    again = _in_order(float(rate), values, dates)
                except (OverflowError, ZeroDivisionError, ValueError):
                    return answer
                if math.isfinite(again):
                    return again
        return answer
    return XNPV
