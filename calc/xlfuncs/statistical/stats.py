"""Statistical functions as Excel computes them where neither formualizer nor the bridged
`formulas` implementation does (formulas_test.xlsx, STATISTICAL):

- SKEW.P: Excel's own arithmetic, the mean of the cubed standardised deviations (the same
  value in another order differs in the last bits, and for symmetric data that is all there
  is: -6.2e-16, where `formulas` gives -4.9e-16);
- MODE.MULT: several ranges (`formulas` answers #VALUE!), the modes in the order they first
  appear, as a column; an omitted argument is #VALUE! (`MODE.MULT(H69:J69,)`);
- STDEVA, STDEVPA, VARA, VARPA: a single cell's text is 0 and its emptiness skipped, as in a
  range (`formulas` reads a scalar as typed: '1/01/1900' as 1, an empty cell as #VALUE!);

Literal arguments (`"29/02/1900"` typed into the call) are rewritten before the engine sees
them (the pass typed_literals, calc/formula/arguments.py): a scalar here comes from a cell.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from rates_xl.calc.engines.formualizer.values import error, is_error
from rates_xl.calc.xlfuncs.bridge import bridged
from rates_xl.calc.xlfuncs.coercion import Callback, Factory, Facts
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted
from rates_xl.calc.xlfuncs.types import EngineScalar, EngineValue
from rates_xl.errors import Internal


def _cells(args: tuple[EngineValue, ...]) -> Iterator[EngineScalar]:
    for arg in args:
        if isinstance(arg, list):
            for row in arg:
                yield from (row if isinstance(row, list) else [row])
        else:
            yield arg


class _Error(Internal):
    def __init__(self, value: EngineValue) -> None:
        super().__init__("error value")
        self.value = value


def _numbers(args: tuple[EngineValue, ...]) -> list[float]:
    """The numbers among the arguments' cells (text, booleans and empty cells skipped, as in
    a range); the first error raised."""
    found = []
    for cell in _cells(args):
        if is_error(cell):
            raise _Error(cell)
        if isinstance(cell, int | float) and not isinstance(cell, bool):
            found.append(float(cell))
    return found


def skew_p(_facts: Facts) -> Callback:
    def SKEW_P(*args: EngineValue) -> EngineValue:  # noqa: N802 - Excel's name
        try:
            values = _numbers(args)
        except _Error as passed:
            return passed.value
        n = len(values)
        if n < 3:
            return error("#DIV/0!")
        try:
            mean = sum(values) / n
            sigma = math.sqrt(sum((v - mean) ** 2 for v in values) / n)
            if sigma == 0:
                return error("#DIV/0!")
            skew = sum(((v - mean) / sigma) ** 3 for v in values) / n
        except OverflowError:  # past float's range, as Excel's #NUM!
            return error("#NUM!")
        return skew if math.isfinite(skew) and math.isfinite(sigma) else error("#NUM!")
    return SKEW_P


def mode_mult(_facts: Facts) -> Callback:
    def MODE_MULT(*args: EngineValue) -> EngineValue:  # noqa: N802 - Excel's name
        if any(arg == OMITTED for arg in args):
            return error("#VALUE!")
        try:
            values = _numbers(args)
        except _Error as passed:
            return passed.value
        counts: dict[float, int] = {}
        for value in values:
            counts[value] = counts.get(value, 0) + 1  # dicts keep the order of first appearance
        most = max(counts.values(), default=0)
        if most < 2:
            return error("#N/A")
        return [[value] for value, count in counts.items() if count == most]
    reads_omitted(MODE_MULT)
    return MODE_MULT


def _as_cell(name: str) -> Factory:
    """The bridged `formulas` implementation of `name`, a single cell's text, boolean or
    emptiness handed over as a one-cell range (0, TRUE as 1, skipped), as Excel reads it."""
    def factory(_facts: Facts) -> Callback:
        call = bridged(name)

        def wrapped(*args: EngineValue) -> EngineValue:
            return call(*[[[a]] if a is None or isinstance(a, str | bool) else a for a in args])
        wrapped.__name__ = name
        return wrapped
    return factory


FUNCTIONS: dict[str, Factory] = {
    "SKEW.P": skew_p,
    "MODE.MULT": mode_mult,
    **{name: _as_cell(name) for name in ("STDEVA", "STDEVPA", "VARA", "VARPA")},
}

WHY = {
    "SKEW.P": "Excel's arithmetic (last bits of a near-zero skew): +17",
    "MODE.MULT": "several ranges (formulas: #VALUE!): +9",
    **{name: f"a single cell's text read as 0, its emptiness skipped: +{gained}" for name, gained in
       (("STDEVA", 1), ("STDEVPA", 2), ("VARA", 1), ("VARPA", 2))},
}
