"""Edge cases of three bridged functions (`formulas`' implementations, calc/xlfuncs/bridge.py)
that Excel answers otherwise; every other call goes on to the bridged one unchanged.

- FLOOR(0, 0) is 0 (formulas: #DIV/0!; a non-zero number over 0 stays #DIV/0!);
- DATE(y, m, d) is the serial of the first of the month plus d - 1 in Excel's calendar, which
  has a 29 February 1900: a day count running past the month from before March 1900
  (DATE(1900,1,22222) is 22222) is one day early in formulas, which steps through Python's
  calendar;
- VALUE of a number written with a dollar sign or thousands separators ("$1,000" is 1000;
  formulas: #VALUE!, and "1,000" read as a date);
- FIXED rounds half away from zero on the number's 15 significant digits, as Excel's ROUND
  (FIXED(2.675,2) is "2.68"; formulas' Python formatting gave "2.67");
- PERCENTILE and QUARTILE (.INC, .EXC) read only the numbers of their array: text, logical
  values and empty cells there are skipped, as Excel's statistical functions skip them in a
  reference (formulas answered #VALUE! for a column holding "12" or a blank).
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from rates_xl.calc.xlfuncs.bridge import wrapped

_LAST_SERIAL = 2958465  # 31 December 9999
_ZERO = datetime.date(1899, 12, 31)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _floor(bridged: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        if len(args) == 2 and all(_number(a) for a in args) and args[0] == 0 and args[1] == 0:
            return 0.0
        return bridged(*args)
    return call


def _first_of_month(year: int, month: int) -> int | None:
    """Excel's serial of the first of `month` (1-12) in `year`, None before 1900 or after 9999."""
    if not 1900 <= year <= 9999:
        return None
    days = (datetime.date(year, month, 1) - _ZERO).days
    return days + (1 if (year, month) >= (1900, 3) else 0)  # Excel's 29 February 1900


def _date(bridged: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        if len(args) == 3 and all(_number(a) for a in args):
            year, month, day = (math.trunc(a) for a in args)
            if 0 <= year < 1900:
                year += 1900
            year += (month - 1) // 12
            first = _first_of_month(year, (month - 1) % 12 + 1)
            if first is not None and 0 <= first + day - 1 <= _LAST_SERIAL:
                return float(first + day - 1)
        return bridged(*args)  # out of range (#NUM!), arrays, text, errors: formulas'
    return call


# A plain decimal number with an optional sign, a dollar sign and thousands separators in
# groups of three, as Excel reads it in the en-US locale.
_CURRENCY = re.compile(r"\s*(?P<sign>[+-]?)\s*\$?\s*(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d*)?\s*")


def _value(bridged: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        if len(args) == 1 and isinstance(args[0], str) and ("$" in args[0] or "," in args[0]):
            found = _CURRENCY.fullmatch(args[0])
            if found:
                amount = float(found["digits"].replace(",", "") + (found["frac"] or ""))
                return -amount if found["sign"] == "-" else amount
        return bridged(*args)
    return call


def _fixed(bridged: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        if args and _number(args[0]) and math.isfinite(args[0]) and (len(args) < 2 or _number(args[1])):
            places = math.trunc(args[1]) if len(args) > 1 else 2
            if -15 <= places <= 127:
                rounded = Decimal(f"{args[0]:.15g}").quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
                return bridged(float(rounded), *args[1:])
        return bridged(*args)
    return call


def _numbers_only(bridged: Callable[..., Any]) -> Callable[..., Any]:
    def call(array: Any, *rest: Any) -> Any:
        if isinstance(array, list):
            kept = [[cell] for row in array for cell in (row if isinstance(row, list) else [row])
                    if _number(cell) or isinstance(cell, dict)]  # numbers, and errors (passed on)
            if kept:
                array = kept
        return bridged(array, *rest)
    return call


_STATISTICS = ("PERCENTILE", "PERCENTILE.INC", "PERCENTILE.EXC", "QUARTILE", "QUARTILE.INC", "QUARTILE.EXC")
_WRAPPERS = {"FLOOR": _floor, "DATE": _date, "VALUE": _value, "FIXED": _fixed,
             **dict.fromkeys(_STATISTICS, _numbers_only)}


FUNCTIONS = {name: wrapped(name, cases) for name, cases in _WRAPPERS.items()}
