"""SUMIF(S), AVERAGEIF(S), COUNTIF(S), MAXIFS and MINIFS as Excel computes them: an error in
a summed cell of a matching row is the answer (formualizer skips it and answers a number,
ironcalc_SUMIFS.xlsx and formulas_test.xlsx); criteria as Excel reads them (an operator, a
number, a boolean, text with wildcards, none of it case-sensitive; "" and "=" for empty
cells, "<>" for any cell that is not)."""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any

from rates_xl.calc.xlfuncs.bridge import error
from rates_xl.calc.xlfuncs.lookup import _wildcard
from rates_xl.calc.xlfuncs.values import is_error

_OPERATOR = re.compile(r"^(<=|>=|<>|<|>|=)?(.*)$", re.DOTALL)


def _number(text: str) -> float | None:
    try:
        return float(text.strip()) if text.strip() else None
    except ValueError:
        return None


def criterion(value: Any) -> Callable[[Any], bool]:
    """A predicate over one cell's value for one criterion."""
    if is_error(value):
        kind = value.get("kind")
        return lambda cell: is_error(cell) and cell.get("kind") == kind
    if value is None:
        value = 0.0  # an empty criterion cell is read as 0... unless typed ""
    if isinstance(value, bool) or isinstance(value, int | float):
        op, operand = "=", value
    else:
        op, rest = _OPERATOR.match(str(value)).groups()
        op = op or "="
        upper = rest.strip().upper()
        if rest == "":
            if op == "=":
                return lambda cell: cell is None or cell == ""
            if op == "<>":
                return lambda cell: not (cell is None or cell == "")
            return lambda cell: False
        if upper in ("TRUE", "FALSE"):
            operand = upper == "TRUE"
        elif (num := _number(rest)) is not None:
            operand = num
        else:
            operand = rest
    if isinstance(operand, bool):
        return _compare(op, lambda cell: isinstance(cell, bool), operand)
    if isinstance(operand, int | float):
        def numeric(cell: Any) -> bool:
            return isinstance(cell, int | float) and not isinstance(cell, bool) or (
                isinstance(cell, str) and op == "=" and _number(cell) is not None)
        return _compare(op, numeric, float(operand), coerce=lambda c: float(c) if isinstance(c, str) else c)
    if op in ("=", "<>") and not any(c in operand for c in "*?~"):
        folded = operand.casefold()  # no wildcard: a plain comparison (much faster per cell)
        if op == "=":
            return lambda cell: isinstance(cell, str) and cell.casefold() == folded
        return lambda cell: not (isinstance(cell, str) and cell.casefold() == folded)
    if op in ("=", "<>"):
        pattern = _wildcard(operand)
        if op == "=":
            return lambda cell: isinstance(cell, str) and bool(pattern.fullmatch(cell))
        return lambda cell: not (isinstance(cell, str) and bool(pattern.fullmatch(cell)))
    folded = operand.casefold()
    return _compare(op, lambda cell: isinstance(cell, str), folded, coerce=lambda c: c.casefold())


_OPERATORS = {"=": operator.eq, "<>": operator.ne, "<": operator.lt, ">": operator.gt,
              "<=": operator.le, ">=": operator.ge}


def _compare(op: str, same_type: Callable[[Any], bool], operand: Any,
             coerce: Callable[[Any], Any] = lambda c: c) -> Callable[[Any], bool]:
    compare, other_types = _OPERATORS[op], op == "<>"

    def test(cell: Any) -> bool:
        if not same_type(cell):
            return other_types
        return compare(coerce(cell), operand)
    return test


def _flat(rng: Any, rows: int, cols: int) -> list[Any]:
    grid = rng if isinstance(rng, list) else [[rng]]
    return [grid[i][j] if i < len(grid) and j < len(grid[i]) else None
            for i in range(rows) for j in range(cols)]


def _shape(rng: Any) -> tuple[int, int]:
    if not isinstance(rng, list):
        return 1, 1
    return len(rng), max((len(r) for r in rng), default=0)


def _rows(target: Any, pairs: list[tuple[Any, Any]]) -> list[int] | dict:
    """Indexes (row-major) of the cells where every criterion holds; an error for mismatched
    ranges. Ranges are read to the largest shape: a whole column arrives cut to the sheet's
    used rows, each its own."""
    shapes = [_shape(r) for r, _ in pairs] + ([_shape(target)] if target is not None else [])
    rows, cols = max(s[0] for s in shapes), max(s[1] for s in shapes)
    if len({s[1] for s in shapes}) > 1 and min(s[1] for s in shapes) > 1:
        return error("#VALUE!")
    matching = None
    for rng, crit in pairs:
        test = criterion(crit)
        cells = _flat(rng, rows, cols)
        hits = {i for i, cell in enumerate(cells) if test(cell)}
        matching = hits if matching is None else matching & hits
    return sorted(matching or ())


def _aggregate(kind: str, target: Any, pairs: list[tuple[Any, Any]]) -> Any:
    crits = [c for _, c in pairs]
    arrays = [c for c in crits if isinstance(c, list)]
    if arrays:  # an array of criteria: one answer per criterion
        grid = arrays[0]
        return [[_aggregate(kind, target, [(r, (c if not isinstance(c, list) else c[i][j]))
                                           for r, c in pairs]) for j in range(len(row))]
                for i, row in enumerate(grid)]
    found = _rows(target, pairs)
    if isinstance(found, dict):
        return found
    if kind == "count":
        return len(found)
    rows, cols = max(_shape(r)[0] for r, _ in pairs), max(_shape(r)[1] for r, _ in pairs)
    values = _flat(target, max(rows, _shape(target)[0]), max(cols, _shape(target)[1]))
    picked = [values[i] for i in found if i < len(values)]
    numbers = []
    for value in picked:
        if is_error(value):
            return value
        if isinstance(value, int | float) and not isinstance(value, bool):
            numbers.append(float(value))
    if kind == "sum":
        return sum(numbers)
    if kind == "average":
        return sum(numbers) / len(numbers) if numbers else error("#DIV/0!")
    if kind == "max":
        return max(numbers) if numbers else 0.0
    return min(numbers) if numbers else 0.0


def _pairs(args: tuple[Any, ...]) -> list[tuple[Any, Any]] | None:
    if not args or len(args) % 2:
        return None
    return [(args[i], args[i + 1]) for i in range(0, len(args), 2)]


def _ifs(kind: str) -> Callable[[dict[str, Any]], Callable[..., Any]]:
    def factory(_facts: dict[str, Any]) -> Callable[..., Any]:
        def call(target: Any, *args: Any) -> Any:
            pairs = _pairs(args)
            return error("#VALUE!") if pairs is None else _aggregate(kind, target, pairs)
        call.__name__ = f"{kind.upper()}IFS"
        return call
    return factory


def _if(kind: str) -> Callable[[dict[str, Any]], Callable[..., Any]]:
    def factory(_facts: dict[str, Any]) -> Callable[..., Any]:
        def call(rng: Any, crit: Any, target: Any = None) -> Any:
            if target is None:
                target = rng
            else:  # Excel reads the sum range at the criteria range's shape
                rows, cols = _shape(rng)
                grid = target if isinstance(target, list) else [[target]]
                target = [[grid[i][j] if i < len(grid) and j < len(grid[i]) else None
                           for j in range(cols)] for i in range(rows)]
            return _aggregate(kind, target, [(rng, crit)])
        call.__name__ = f"{kind.upper()}IF"
        return call
    return factory


def countifs(_facts: dict[str, Any]) -> Callable[..., Any]:
    def COUNTIFS(*args: Any) -> Any:  # noqa: N802 - Excel's name
        pairs = _pairs(args)
        return error("#VALUE!") if pairs is None else _aggregate("count", None, pairs)
    return COUNTIFS


FUNCTIONS = {
    "SUMIFS": _ifs("sum"), "AVERAGEIFS": _ifs("average"), "MAXIFS": _ifs("max"),
    "MINIFS": _ifs("min"), "SUMIF": _if("sum"), "AVERAGEIF": _if("average"),
    "COUNTIFS": countifs,
}
