"""TBILLPRICE, TBILLYIELD and TBILLEQ: a Treasury bill's price, yield and bond-equivalent yield, with
Excel's checks. formualizer's arithmetic is Excel's (every one of Excel 2010's 204 cases in
fsprojects/ExcelFinancialFunctions' test data) but not its checks, which IronCalc's Excel-made
TBILLs.xlsx shows (Excel 16):

- a maturity up to one calendar year after the settlement is allowed (366 days across a 29
  February: TBILLPRICE 49.1666666666667, formualizer #NUM!);
- a discount that prices the bill at or below 0 is #NUM! (TBILLPRICE(.., 7) and (.., 1.19):
  formualizer priced it at -518.33 and -5.12);
- a date or a discount written as numeric text reads as its number (formualizer #VALUE!), a
  logical value is #VALUE! (formualizer #NUM! or a price).

TBILLEQ past half a year (182 days) is the root of the bond-equivalent quadratic, over a year of
366 days when the bill runs 366 (Microsoft documents the short formula only).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from rates_xl.calc.engines.formualizer.values import error, is_error
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, is_number
from rates_xl.calc.xlfuncs.financial.oddcoupon import excel_date
from rates_xl.calc.xlfuncs.types import Answer, EngineValue


def _read(value: EngineValue) -> float:
    """A scalar argument as these functions read it: a number, or text that reads as one."""
    if isinstance(value, bool) or isinstance(value, list):
        raise ExcelError("#VALUE!")
    if is_number(value):
        return float(value)
    if value is None:
        return 0.0
    if isinstance(value, str):
        from rates_xl.calc.xlfuncs.bridge import bridged

        try:
            return float(value.strip())
        except ValueError:
            read = bridged("VALUE")(value)  # a date written as text
            if is_number(read):
                return float(read)
    raise ExcelError("#VALUE!")


def _days(settlement: float, maturity: float) -> float:
    """Days from settlement to maturity, both truncated; #NUM! unless the maturity is after the
    settlement and at most one calendar year later."""
    s, m = excel_date(settlement), excel_date(maturity)
    if m <= s:
        raise ExcelError("#NUM!")
    try:
        year_later = s.replace(year=s.year + 1)
    except ValueError:  # 29 February: a year later is 28 February
        year_later = s.replace(year=s.year + 1, day=28)
    if m > year_later:
        raise ExcelError("#NUM!")
    return float((m - s).days)


def _price(days: float, discount: float) -> float:
    if discount <= 0:
        raise ExcelError("#NUM!")
    price = 100 * (1 - discount * days / 360)
    if price <= 0:
        raise ExcelError("#NUM!")
    return price


def _equivalent(days: float, discount: float) -> float:
    if discount <= 0:
        raise ExcelError("#NUM!")
    if days <= 182:
        return 365 * discount / (360 - discount * days)
    price = 1 - discount * days / 360
    year = 366.0 if days == 366 else 365.0
    term = 2 * days / year - 1
    root = (days / year) ** 2 - term * (1 - 1 / price)
    if root < 0 or term == 0:
        raise ExcelError("#NUM!")
    return 2 * (math.sqrt(root) - days / year) / term


def _yield(days: float, pr: float) -> float:
    if pr <= 0:
        raise ExcelError("#NUM!")
    return (100 - pr) / pr * 360 / days


def _function(name: str, answer: Callable[[float, float], float]) -> Callable[[Facts], Callback]:
    def factory(_facts: Facts) -> Callback:
        def call(settlement: EngineValue, maturity: EngineValue, third: EngineValue) -> Answer:
            for arg in (settlement, maturity, third):
                if is_error(arg):
                    return arg
            try:
                days = _days(_read(settlement), _read(maturity))
                result = answer(days, _read(third))
            except ExcelError as exc:
                return error(exc.text)
            except (OverflowError, ZeroDivisionError, ValueError):
                return error("#NUM!")
            return result if math.isfinite(result) else error("#NUM!")
        call.__name__ = name
        return call
    return factory


FUNCTIONS = {"TBILLPRICE": _function("TBILLPRICE", _price), "TBILLYIELD": _function("TBILLYIELD", _yield),
             "TBILLEQ": _function("TBILLEQ", _equivalent)}
