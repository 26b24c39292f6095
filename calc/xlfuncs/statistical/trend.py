"""TREND and GROWTH on one x variable (the common use: a line, or an exponential curve, through
a row or column of points) as Excel computes them: the least-squares fit, its value at each
new x, in the shape of new_x (a single value for one cell). The bridged `formulas` ones
answered #VALUE! for a single new x (TREND({2,4.1,6,8.2},{1,2,3,4},5): Excel 10.2), #REF! for
points in columns, and a column for a row of new x's. Several x variables (x's in more than one
row and column: Excel's multiple regression, formulas_test.xlsx STATISTICAL!R113:AW114) stay
`formulas`', measured right there; so do x's that do not vary. Checked against LibreOffice
(tests/calc/test_trend.py)."""

from __future__ import annotations

import math
from typing import Any

from rates_xl.calc.engines.formualizer.values import error, is_error
from rates_xl.calc.xlfuncs.coercion import Callback, Factory, Facts
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted
from rates_xl.calc.xlfuncs.types import Answer, EngineScalar, EngineValue, Rows
from rates_xl.errors import Internal


def _grid(value: EngineValue) -> Rows:
    return value if isinstance(value, list) else [[value]]


def _flat(value: EngineValue) -> list[EngineScalar]:
    return [cell for row in _grid(value) for cell in row]


def _one_variable(known_y: EngineValue, known_x: EngineValue) -> bool:
    """Whether known_x holds one x per y (not one row or column of x's per variable)."""
    return len(_flat(known_x)) == len(_flat(known_y))


class _Answer(Internal):
    def __init__(self, value: EngineValue) -> None:
        super().__init__("answer")
        self.value = value


def _numbers(value: EngineValue) -> list[float]:
    out = []
    for cell in _flat(value):
        if is_error(cell):
            raise _Answer(cell)
        if isinstance(cell, bool) or not isinstance(cell, int | float):
            raise _Answer(error("#VALUE!"))
        out.append(float(cell))
    return out


def _fit(xs: list[float], ys: list[float], constant: bool) -> tuple[float, float] | None:
    """(slope, intercept) of the least-squares line; None where the x's do not vary."""
    n = len(xs)
    if constant:
        mx, my = sum(xs) / n, sum(ys) / n
        sxx = sum((x - mx) ** 2 for x in xs)
        if sxx == 0:
            return None
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
        return slope, my - slope * mx
    sxx = sum(x * x for x in xs)
    if sxx == 0:
        return None
    return sum(x * y for x, y in zip(xs, ys, strict=True)) / sxx, 0.0


def _function(name: str) -> Factory:
    exponential = name == "GROWTH"

    def factory(_facts: Facts) -> Callback:
        from rates_xl.calc.xlfuncs.bridge import bridged

        computed = bridged(name)

        def call(known_y: EngineValue, known_x: EngineValue = OMITTED, new_x: EngineValue = OMITTED, const: EngineValue = OMITTED) -> EngineValue:
            given = [a for a in (known_y, known_x, new_x, const)]
            while given and given[-1] == OMITTED:
                given.pop()
            fallback = [None if a == OMITTED else a for a in given]
            try:
                ys = _numbers(known_y)
                if known_x == OMITTED or known_x is None:
                    # {1,2,3,...} "the same size as known_y's" (Microsoft's TREND page): a column
                    # of y's answers a column (IronCalc's STATISTICAL__TREND_GROWTH.xlsx F2:F6)
                    width = len(_grid(known_y)[0])
                    known_x = [[float(r * width + c + 1) for c in range(width)] for r in range(len(ys) // width)]
                elif not _one_variable(known_y, known_x):
                    return computed(*fallback)  # several x variables: formulas'
                xs = _numbers(known_x)
                if new_x == OMITTED or new_x is None:
                    new_x = known_x
                wanted = _grid(new_x)
                constant = True if const == OMITTED or const is None else bool(const)
                if exponential:
                    if any(y <= 0 for y in ys):
                        return error("#NUM!")
                    ys = [math.log(y) for y in ys]
                line = _fit(xs, ys, constant)
                if line is None:
                    return computed(*fallback)
                slope, intercept = line
                out = []
                for row in wanted:
                    values: list[EngineScalar] = []
                    for x in row:
                        if is_error(x):
                            values.append(x)
                            continue
                        if isinstance(x, bool) or not isinstance(x, int | float):
                            values.append(error("#VALUE!"))
                            continue
                        y = intercept + slope * float(x)
                        values.append(math.exp(y) if exponential else y)
                    out.append(values)
            except _Answer as answer:
                return answer.value
            except OverflowError:
                return error("#NUM!")
            return out[0][0] if len(out) == 1 and len(out[0]) == 1 else out
        call.__name__ = name
        reads_omitted(call)
        return call
    return factory


FUNCTIONS = {"TREND": _function("TREND"), "GROWTH": _function("GROWTH")}


def stats_in_excels_order(call: Callback) -> Callback:
    """LINEST's and LOGEST's answer (the bridged `formulas` ones) with its standard errors in
    Excel's order: the second row of the statistics lines up under the first, the last x's
    coefficient first and the constant's last. `formulas` reverses the coefficients but not
    their errors: LINEST(y,x,TRUE,TRUE) of one x gave the constant's error under the slope
    (0.0462529820242379 where Excel has 0.0138414377122955: IronCalc's Excel-made
    LINEST_LOGEST.xlsx, Sheet1!D6; tests/calc/test_linest_omitted.py). Without the constant,
    its column is #N/A and stays last. And its F statistic over the x variables alone."""
    def wrapped(*args: EngineValue) -> Answer:
        answer: Any = call(*args)  # (a grid of scalars when it is the statistics)
        if not isinstance(answer, list) or len(answer) != 5 or not all(isinstance(r, list) for r in answer):
            return answer
        errors = answer[1]
        given = [i for i, value in enumerate(errors) if not is_error(value)]
        if given != list(range(len(given))):
            return answer  # not the shape `formulas` writes: left as it is
        answer = [list(row) for row in answer]
        answer[1] = errors[:len(given)][::-1] + errors[len(given):]
        # F = (ssreg / v1) / (ssresid / df), v1 the number of x variables (Microsoft's LINEST
        # page); `formulas` counted the constant's column among them (125.499 where Excel has
        # 250.998, Sheet1!D8)
        (ssreg, ssresid), df = answer[4][:2], answer[3][1]
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in (ssreg, ssresid, df)) \
                and ssresid and df and len(errors) > 1:
            answer[3][0] = (ssreg / (len(errors) - 1)) / (ssresid / df)
        return answer

    wrapped.__name__ = getattr(call, "__name__", "LINEST")
    return wrapped
