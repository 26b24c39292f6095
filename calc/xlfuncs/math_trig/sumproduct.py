"""SUMPRODUCT given arrays of different sizes, or logical values, as Excel answers it.

Excel wants every argument the same size (a single value is 1 x 1): otherwise the answer is
#VALUE!, unless a cell of the arguments holds an error, which comes first (the first one, in
argument order: formulas_test.xlsx MATH & TRIG!AE75 is #NUM!, poi EverythingTests!I1328
`SUMPRODUCT(2,C10:C11)` is #VALUE!). formualizer broadcasts instead and answers a number.
Where every argument's size is known from the formula's text (plain ranges, numbers) and
they differ, the engine's copy calls `NAME` instead (the pass `sumproduct_shapes`,
calc/formula/calls.py), which gives that error; every other SUMPRODUCT stays formualizer's
own (native, fast).

Excel counts a logical value in SUMPRODUCT's arrays as 0, as text and empty cells
(Microsoft's page: entries that are not numeric count as zeros; `SUMPRODUCT(A1:A5>10)` is 0,
the reason for `--`); formualizer counts TRUE as 1. A call whose arguments may hold one goes to
`LOGICALS` (the pass `sumproduct_logicals`, calc/formula/calls.py): the products of each
position's numbers, left to right, summed in order from 0, as a running sum does. Where the
first argument is a single value, an empty cell or text among single values is #VALUE!, not 0
(poi_FormulaEvalTestData_Copy.xlsx EverythingTests!J1328, `SUMPRODUCT(G1330:G1330,I1330:I1330)`
over the text "4" and 2; Apache POI's Sumproduct reads single values so)."""

from __future__ import annotations

import itertools
from datetime import date, time, timedelta

from rates_xl.calc.engines.formualizer.values import EngineScalar, EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, Facts

NAME = "RATESXL.MISSHAPEN"
LOGICALS = "RATESXL.SUMPRODUCT"


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


def logicals(_facts: Facts) -> Callback:
    from rates_xl.calc.engines.formualizer.values import error, is_error
    from rates_xl.functions.values import to_serial

    def entries(argument: EngineValue) -> list[list[EngineScalar]]:
        rows = argument if isinstance(argument, list) else [[argument]]
        return [row if isinstance(row, list) else [row] for row in rows]

    def number(value: EngineScalar) -> float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, date | time | timedelta):
            return float(to_serial(value))
        return 0.0  # a logical value, text, an empty cell

    def SUMPRODUCT(*args: EngineValue) -> EngineValue:  # noqa: N802 - the engine's name
        arrays = [entries(argument) for argument in args]
        for rows in arrays:  # an error first, the first in argument order
            for row in rows:
                for value in row:
                    if is_error(value):
                        return value
        shape = (len(arrays[0]), len(arrays[0][0]) if arrays[0] else 0)
        if shape == (1, 1) and any(rows[0][0] is None or isinstance(rows[0][0], str) for rows in arrays
                                   if len(rows) == 1 and len(rows[0]) == 1):
            return error("#VALUE!")  # single values: an empty cell or text is no number
        if any((len(rows), len(rows[0]) if rows else 0) != shape for rows in arrays) \
                or any(len(row) != shape[1] for rows in arrays for row in rows):
            return error("#VALUE!")
        total = 0.0  # (from 0, not the first product: Excel has no -0, `0 * -4` sums to 0)
        for values in zip(*(itertools.chain.from_iterable(rows) for rows in arrays), strict=True):
            product = number(values[0])
            for value in values[1:]:
                product *= number(value)
            total += product
        return total
    return SUMPRODUCT
