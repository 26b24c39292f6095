"""N and T as Excel computes them: given a reference to several cells they read its first
cell (Excel does not apply them to each cell: formulas_test.xlsx `=N(C19:Q19)` over a
legacy array range is 4, C19's value, in every cell), and N of a boolean is 1 or 0
(formualizer answers TRUE)."""

from __future__ import annotations

from rates_xl.calc.engines.formualizer.values import is_error
from rates_xl.calc.xlfuncs.coercion import Callback, Facts
from rates_xl.calc.xlfuncs.types import EngineScalar, EngineValue


def _first(value: EngineValue) -> EngineScalar:
    if isinstance(value, list):
        return value[0][0] if value and value[0] else None
    return value


def n(_facts: Facts) -> Callback:
    def N(value: EngineValue) -> EngineValue:  # noqa: N802 - Excel's name
        value = _first(value)
        if is_error(value):
            return value
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, int | float):
            return value
        return 0  # text, blank
    return N


def t(_facts: Facts) -> Callback:
    def T(value: EngineValue) -> EngineValue:  # noqa: N802 - Excel's name
        value = _first(value)
        if is_error(value) or isinstance(value, str):
            return value
        return ""
    return T
