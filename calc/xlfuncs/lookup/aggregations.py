"""The aggregations GROUPBY and PIVOTBY apply to each group's values (calc/xlfuncs/lookup/groupby.py),
by the name of the eta-reduced function (`_xleta.SUM` -> "SUM"), or a LAMBDA's text.

Each takes the group's values as a list (numbers, text, booleans, None for an empty cell,
formualizer's error values) with Excel's rules for a range: text and booleans ignored by the
numeric ones, the first error passed on (COUNT and COUNTA count instead).
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Callable

from rates_xl.calc.engines.formualizer.values import EngineError, error, is_error
from rates_xl.calc.xlfuncs.types import EngineScalar, EngineValue

#: An aggregation: a group's values -> its answer.
Aggregation = Callable[[list[EngineScalar]], EngineScalar]


def _numbers(items: list[EngineScalar]) -> list[float]:
    return [float(v) for v in items if isinstance(v, int | float) and not isinstance(v, bool)]


def _first_error(items: list[EngineScalar]) -> EngineError | None:
    return next((v for v in items if is_error(v)), None)


def text(value: EngineValue) -> str:
    """A value as ARRAYTOTEXT / CONCAT write it."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.15g}"
    return "" if value is None else str(value)


def _sum(items: list[EngineScalar]) -> float:
    return math.fsum(_numbers(items))


def _average(items: list[EngineScalar]) -> float | EngineError:
    numbers = _numbers(items)
    return math.fsum(numbers) / len(numbers) if numbers else error("#DIV/0!")


def _spread(function: Callable[[list[float]], float], least: int) -> Aggregation:
    def call(items: list[EngineScalar]) -> float | EngineError:
        numbers = _numbers(items)
        if len(numbers) < least:
            return error("#DIV/0!")
        return function(numbers)
    return call


def _extreme(function: Callable[[list[float]], float]) -> Aggregation:
    def call(items: list[EngineScalar]) -> float:
        numbers = _numbers(items)
        return function(numbers) if numbers else 0.0
    return call


def _median(items: list[EngineScalar]) -> float | EngineError:
    numbers = _numbers(items)
    return statistics.median(numbers) if numbers else error("#NUM!")


def _product(items: list[EngineScalar]) -> float:
    numbers = _numbers(items)
    return math.prod(numbers) if numbers else 0.0


#: Aggregations by name: each takes the group's values (errors already passed on by the caller,
#: except where the aggregation counts them).
AGGREGATIONS: dict[str, Aggregation] = {
    "SUM": _sum,
    "AVERAGE": _average,
    "COUNT": lambda items: float(len(_numbers(items))),
    "COUNTA": lambda items: float(sum(1 for v in items if v is not None and v != "")),
    "MAX": _extreme(max),
    "MIN": _extreme(min),
    "PRODUCT": _product,
    "MEDIAN": _median,
    "STDEV.S": _spread(statistics.stdev, 2),
    "STDEV.P": _spread(statistics.pstdev, 1),
    "VAR.S": _spread(statistics.variance, 2),
    "VAR.P": _spread(statistics.pvariance, 1),
    "ARRAYTOTEXT": lambda items: ", ".join(text(v) for v in items),
    "CONCAT": lambda items: "".join(text(v) for v in items),
    # IF takes two or more arguments: eta-reduced it is called with one (the group's values),
    # and Excel answers #VALUE! in every cell (formulas_test EXTRA!H100, `_xleta.IF`).
    "IF": lambda items: error("#VALUE!"),
}
_COUNTS_ERRORS = {"COUNT", "COUNTA"}
_TOO_FEW_ARGUMENTS = {"IF"}


def aggregate(name: str, items: list[EngineScalar], whole: list[EngineScalar] | None = None) -> EngineScalar:
    """`name` over one group's values; PERCENTOF: their sum over the sum of `whole`."""
    if not items:
        return ""  # no row in this group (a PIVOTBY intersection): Excel leaves it blank
    if name == "PERCENTOF":
        found = _first_error(items) or _first_error(whole or [])
        if found is not None:
            return found
        total = _sum(whole or [])
        return _sum(items) / total if total else error("#DIV/0!")
    if is_lambda(name):
        return _apply_lambda(name, items)
    if name in _TOO_FEW_ARGUMENTS:
        return AGGREGATIONS[name](items)  # before any error among the values: the call fails
    if name not in _COUNTS_ERRORS and (found := _first_error(items)) is not None:
        return found
    if name == "COUNT":
        return float(len(_numbers(items)))
    return AGGREGATIONS[name](items)


def is_lambda(name: str) -> bool:
    return bool(re.match(r"=\s*(?:_xlfn\.)?LAMBDA\(", name, re.IGNORECASE))


def _apply_lambda(text: str, items: list[EngineScalar]) -> EngineScalar:
    """A LAMBDA of one parameter applied to a group's values (a column), as Excel does; BYCOL
    over that one column is how `formulas` applies it. An array as its answer is #CALC!."""
    from rates_xl.calc.xlfuncs.logical.lambdas import call_lambda

    result = call_lambda(f"=_xlfn.BYCOL(RXL_REF_A,{text[1:]})", [[v] for v in items])
    if isinstance(result, list):
        if len(result) == 1 and len(result[0]) == 1:
            return result[0][0]
        return error("#CALC!")
    return result


