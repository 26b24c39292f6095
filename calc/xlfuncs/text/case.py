"""UPPER and LOWER applying themselves to each element of an array, as Excel's do.

formualizer's UPPER and LOWER answer the first element alone for an array (`LOWER(A1#)` over a
six-word spill was "hi" and nothing spilled), so such a formula was listed as not computed
(IronCalc's Excel-made TEXT__UPPER_LOWER.xlsx, MIT or Apache-2.0, not committed: A2:F3, 50
cells). These read each value as Excel writes it where text is wanted (a number to 15
significant digits, TRUE and FALSE, an error passed on: calc/xlfuncs/coercion.py `text`),
and change its case as Python's `str.upper` and `str.lower` do, the Unicode default case
mapping formualizer's own follows (tests/calc/test_case_lifted.py)."""

from __future__ import annotations

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, Facts, elementwise, text


def upper(_facts: Facts) -> Callback:
    @elementwise
    def UPPER(value: EngineValue) -> str:  # noqa: N802
        return text(value).upper()
    return UPPER


def lower(_facts: Facts) -> Callback:
    @elementwise
    def LOWER(value: EngineValue) -> str:  # noqa: N802
        return text(value).lower()
    return LOWER


FUNCTIONS = {"UPPER": upper, "LOWER": lower}
