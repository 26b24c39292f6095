"""PRICEMAT and YIELDMAT: a security that pays its interest at maturity, as Excel computes them
(Microsoft's documented formulas; neither formualizer nor LibreOffice-checked code had them, so
they were listed, not computed).

    PRICEMAT = (100 + DIM/B x rate x 100) / (1 + DSM/B x yld) - A/B x rate x 100
    YIELDMAT = ((1 + DIM/B x rate) - (pr/100 + A/B x rate)) / (pr/100 + A/B x rate) x B/DSM

A: days from issue to settlement, DIM: from issue to maturity, DSM = DIM - A (so on 30/360 the
days from settlement to maturity are those two counts' difference, not a count of their own),
all counted on the basis (calc/xlfuncs/financial/daycounts.py); B: the year's days between issue
and settlement. Every case of Excel 2010's answers in fsprojects/ExcelFinancialFunctions'
Excel-generated test data (1,942 PRICEMAT, 2,912 YIELDMAT) is reproduced.

Checks: Microsoft's (#NUM! for a negative rate, a negative yield, a price not above 0, a basis
outside 0-4, settlement on or after maturity) and, where its page is silent, an issue on or
after the settlement, as that library does.
"""

from __future__ import annotations

import math

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Factory, Facts
from rates_xl.calc.xlfuncs.financial.bondprice import answered, single
from rates_xl.calc.xlfuncs.financial.daycounts import days_between, year_days
from rates_xl.calc.xlfuncs.financial.oddcoupon import excel_date


def _function(inverse: bool) -> Factory:
    def factory(_facts: Facts) -> Callback:
        def call(settlement: EngineValue, maturity: EngineValue, issue: EngineValue, rate: EngineValue,
                 given: EngineValue, basis: EngineValue = None) -> EngineValue:
            def compute() -> float:
                values = [single(a) for a in (settlement, maturity, issue, rate, given, basis)]
                s, m, i = (excel_date(v) for v in values[:3])
                r, g, b = values[3], values[4], math.trunc(values[5])
                if not i < s < m or r < 0 or (g <= 0 if inverse else g < 0) or not 0 <= b <= 4:
                    raise ExcelError("#NUM!")
                year, dim, a = year_days(i, s, b), days_between(i, m, b), days_between(i, s, b)
                dsm = dim - a
                if inverse:  # YIELDMAT(..., pr, ...)
                    paid = g / 100 + a / year * r
                    return (dim / year * r + 1 - paid) / paid * (year / dsm)
                # PRICEMAT(..., yld, ...)
                return (100 + dim / year * r * 100) / (1 + dsm / year * g) - a / year * r * 100
            return answered(compute)
        call.__name__ = "YIELDMAT" if inverse else "PRICEMAT"
        return call
    return factory


FUNCTIONS = {"PRICEMAT": _function(inverse=False), "YIELDMAT": _function(inverse=True)}
