"""PMT and PV as Excel computes them: a rate of -100 % or below is #NUM! (formualizer answers
a number, ironcalc_PMT.xlsx), any non-zero `type` means payments at the start of the period,
and arguments typed as text ("0.01") or booleans are read as numbers (poi's coercion cases)."""

from __future__ import annotations

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, elementwise, number


def _checked(rate: float) -> float:
    if rate <= -1:
        raise ExcelError("#NUM!")
    return rate


def _finite(value: float) -> float:
    if value != value or value in (float("inf"), float("-inf")):
        raise ExcelError("#NUM!")
    return value


def payment(r: float, n: float, p: float, f: float, due: float) -> float:
    """The annuity's payment per period, PMT's formula without its checks (IPMT's too)."""
    if r == 0:
        return -(p + f) / n
    growth = (1 + r) ** n
    return -(r * (f + p * growth)) / ((1 + r * due) * (growth - 1))


def pmt(_facts: Facts) -> Callback:
    @elementwise
    def PMT(rate: EngineValue, nper: EngineValue, pv: EngineValue, fv: EngineValue = None, kind: EngineValue = None) -> float:  # noqa: N802
        r, n, p = _checked(number(rate)), number(nper), number(pv)
        f, due = number(fv), 1.0 if number(kind) else 0.0
        if r == 0 and n == 0:
            raise ExcelError("#NUM!")
        try:
            return _finite(payment(r, n, p, f, due))
        except (ZeroDivisionError, OverflowError):
            raise ExcelError("#NUM!") from None
    return PMT


def pv(_facts: Facts) -> Callback:
    @elementwise
    def PV(rate: EngineValue, nper: EngineValue, payment: EngineValue, fv: EngineValue = None, kind: EngineValue = None) -> float:  # noqa: N802
        r, n, m = _checked(number(rate)), number(nper), number(payment)
        f, due = number(fv), 1.0 if number(kind) else 0.0
        if r == 0:
            return -(f + m * n)
        try:
            growth = (1 + r) ** n
            return _finite(-(f + m * (1 + r * due) * (growth - 1) / r) / growth)
        except (ZeroDivisionError, OverflowError):
            raise ExcelError("#NUM!") from None
    return PV
