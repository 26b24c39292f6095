"""PMT, PV and ISPMT as Excel computes them: PMT at a rate of -100 % or below is #NUM! (formualizer
answers a number, ironcalc_PMT.xlsx); PV is its formula below -100 % too, wherever the power is
a real number (Excel 2010: PV(-1.5,-2,50,-300,1) is 62.5); any non-zero `type` means payments at
the start of the period, and arguments typed as text ("0.01") or booleans are read as numbers
(poi's coercion cases). ISPMT is (per - nper) * pv * rate / nper, #DIV/0! for nper 0 (an empty
cell) where formualizer answered #NUM! (IronCalc's Excel-made FINANCIAL__ISPMT.xlsx E4:E6)."""

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
        r, n, m = number(rate), number(nper), number(payment)
        f, due = number(fv), 1.0 if number(kind) else 0.0
        if r == 0:
            return -(f + m * n)
        # Below -100 % the formula holds for a whole nper: Excel 2010's 460 cases at rates of -150 %
        # and -200 % (fsprojects/ExcelFinancialFunctions' testdata, pv.test). At -100 % (no case
        # there; PMT's #NUM! in ironcalc_PMT.xlsx) and for a fractional nper below it (a power of a
        # negative number) it is #NUM!.
        if r == -1 or (r < -1 and n != int(n)):
            raise ExcelError("#NUM!")
        try:
            growth = (1 + r) ** n
            return _finite(-(f + m * (1 + r * due) * (growth - 1) / r) / growth)
        except (ZeroDivisionError, OverflowError):
            raise ExcelError("#NUM!") from None
    return PV


def ispmt(_facts: Facts) -> Callback:
    @elementwise
    def ISPMT(rate: EngineValue, per: EngineValue, nper: EngineValue, pv: EngineValue) -> float:  # noqa: N802
        r, k, n, p = number(rate), number(per), number(nper), number(pv)
        if n == 0:
            raise ExcelError("#DIV/0!")
        return _finite((k - n) * p * r / n)  # (in this order: Excel's bits in every cell of the book)
    return ISPMT
