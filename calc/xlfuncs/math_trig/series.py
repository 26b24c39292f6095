"""MULTINOMIAL and SERIESSUM as Excel answers them, a range or an array among their arguments;
COMBINA with a number of 0.

formualizer computes both but its analysis here cannot vouch for a range given to them, so every
such cell was listed (IronCalc's Excel-made MATH_AND_TRIGONOMETRY__MULTINOMIAL.xlsx and
__SERIESSUM.xlsx, MIT or Apache-2.0, not committed: 10 of 13 and 8 of 12 cells), and
`MULTINOMIAL(TRUE,1,2)` was a number where Excel answers #VALUE!. Excel 16's answers there:

- MULTINOMIAL reads its arguments as GCD and LCM do (divisors.py `numbers_given`, the same
  Analysis ToolPak): a logical value typed, in a cell, a range or an array is #VALUE! (H22, F20,
  B27, H20); an empty cell in a range counts 0 (`MULTINOMIAL(A16:A18)`, A17 empty, is 6); each
  number is truncated (1.7, 1.2, 3.4, 2.3 give 420); one below 0 is #NUM! (A10, B12). The answer
  is the exact (a1+a2+...)! / (a1! a2! ...), within 1E-13 of Excel's (60 where Excel shows
  59.99999999999993); past a float's range #NUM!.
- SERIESSUM(x, n, m, coefficients) is the sum of a_i * x^(n + (i-1)m), the coefficients read
  as MULTINOMIAL's arguments are, less the truncation and the sign check (17 for
  `SERIESSUM(2,0,1,{1,2,3})`, 2.71666 over a range, E7); x, n and m are single numbers, a
  logical value #VALUE! (F7, G7); 0 to the power 0 is #NUM! (C1, H7) as POWER(0,0) is, 0 to a
  negative power #DIV/0! as POWER(0,-1) is.
- COMBINA(number, chosen) is COMBIN(number + chosen - 1, chosen), each truncated; below 0, or a
  number of 0 with any chosen but 0, #NUM! (formualizer: 0; IronCalc's Excel-made
  MATH_AND_TRIGONOMETRY__COMBIN_COMBINA.xlsx D10, D19, D24, D31: COMBINA(0, 5), an empty cell,
  FALSE); logical values are 1 and 0, numeric text its number ("12": D26).
"""

from __future__ import annotations

import math

from rates_xl.calc.engines.formualizer.values import error
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, elementwise, number
from rates_xl.calc.xlfuncs.math_trig.divisors import numbers_given
from rates_xl.calc.xlfuncs.omitted import reads_omitted
from rates_xl.calc.xlfuncs.types import Answer, EngineValue


def multinomial(_facts: Facts) -> Callback:
    def MULTINOMIAL(*args: EngineValue) -> Answer:  # noqa: N802
        numbers = numbers_given(args)
        if not isinstance(numbers, tuple):
            return numbers
        counts = [int(number) for number in numbers]
        answer = math.factorial(sum(counts))
        for count in counts:
            answer //= math.factorial(count)  # (exact: each step divides a multinomial coefficient)
        try:
            return float(answer)
        except OverflowError:
            return error("#NUM!")

    MULTINOMIAL.__name__ = "MULTINOMIAL"
    return reads_omitted(MULTINOMIAL)


def seriessum(_facts: Facts) -> Callback:
    def SERIESSUM(x: EngineValue, n: EngineValue, m: EngineValue, coefficients: EngineValue) -> Answer:  # noqa: N802
        scalars = []
        for value in (x, n, m):
            if isinstance(value, list):
                return error("#VALUE!")  # (one number each: the analysis intersects a range given)
            read = numbers_given((value,), signed=True) if value is not None else (0.0,)
            if not isinstance(read, tuple):
                return read
            scalars.append(read[0])
        terms = numbers_given((coefficients if isinstance(coefficients, list) else [[coefficients]],), signed=True)
        if not isinstance(terms, tuple):
            return terms
        base, first, step = scalars
        total = 0.0
        for i, coefficient in enumerate(terms):
            power = first + i * step
            if base == 0 and power <= 0:
                return error("#NUM!" if power == 0 else "#DIV/0!")
            try:
                total += coefficient * base ** power
            except (OverflowError, ZeroDivisionError):
                return error("#NUM!")
            if isinstance(total, complex) or not math.isfinite(total):
                return error("#NUM!")
        return total

    SERIESSUM.__name__ = "SERIESSUM"
    return reads_omitted(SERIESSUM)


def combina(_facts: Facts) -> Callback:
    @elementwise
    def COMBINA(value: EngineValue, chosen: EngineValue) -> float:  # noqa: N802
        n, k = math.trunc(number(value)), math.trunc(number(chosen))
        if n < 0 or k < 0 or (n == 0 and k > 0):
            raise ExcelError("#NUM!")
        try:
            return float(math.comb(n + k - 1, k)) if k else 1.0
        except OverflowError:
            raise ExcelError("#NUM!") from None
    return COMBINA
