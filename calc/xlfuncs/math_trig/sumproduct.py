"""SUMPRODUCT given arrays of different sizes, as Excel answers it.

Excel wants every argument the same size (a single value is 1 x 1): otherwise the answer is
#VALUE!, unless a cell of the arguments holds an error, which comes first (the first one, in
argument order: formulas_test.xlsx MATH & TRIG!AE75 is #NUM!, poi EverythingTests!I1328
`SUMPRODUCT(2,C10:C11)` is #VALUE!). formualizer broadcasts instead and answers a number.
Where every argument's size is known from the formula's text (plain ranges, numbers) and
they differ, the engine's copy calls `NAME` instead (the pass `sumproduct_shapes`,
calc/formula/calls.py), which gives that error; every other SUMPRODUCT stays formualizer's
own (native, fast)."""

from __future__ import annotations

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, Facts

NAME = "RATESXL.MISSHAPEN"


def misshapen(_facts: Facts) -> Callback:
    from rates_xl.calc.engines.formualizer.values import error, is_error

    def MISSHAPEN(*args: EngineValue) -> EngineValue:  # noqa: N802 - the engine's name
        for argument in args:
            rows = argument if isinstance(argument, list) else [[argument]]
            for row in rows:
                for value in row if isinstance(row, list) else [row]:
                    if is_error(value):
                        return value
        return error("#VALUE!")
    return MISSHAPEN
