"""VALUE and FIXED as Excel answers them where the bridged `formulas` implementations
(calc/xlfuncs/bridge.py) do not; every other call goes on to the bridged one unchanged.

- VALUE of a number written with a dollar sign or thousands separators ("$1,000" is 1000;
  formulas: #VALUE!, and "1,000" read as a date);
- FIXED rounds half away from zero on the number's 15 significant digits, as Excel's ROUND
  (FIXED(2.675,2) is "2.68"; formulas' Python formatting gave "2.67"); a number of 16 digits
  and more is written from those 15 digits, zeros after them, as Excel shows it.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal, localcontext

from rates_xl.calc.xlfuncs.bridge import wrapped
from rates_xl.calc.xlfuncs.coercion import Callback, is_number
from rates_xl.calc.xlfuncs.types import Answer, EngineValue

# A plain decimal number with an optional sign, a dollar sign and thousands separators in
# groups of three, as Excel reads it in the en-US locale.
_CURRENCY = re.compile(r"\s*(?P<sign>[+-]?)\s*\$?\s*(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d*)?\s*")

#: Decimal digits of Excel's largest number (309) and FIXED's most places (127).
_DIGITS = 309 + 127 + 1
#: From here (past 2^53 a float is no longer every whole number) FIXED's text is written here.
_WHOLE_DIGITS = Decimal(10) ** 15


def _value(bridged: Callback) -> Callback:
    def call(*args: EngineValue) -> Answer:
        if len(args) == 1 and isinstance(args[0], str) and ("$" in args[0] or "," in args[0]):
            found = _CURRENCY.fullmatch(args[0])
            if found:
                amount = float(found["digits"].replace(",", "") + (found["frac"] or ""))
                return -amount if found["sign"] == "-" else amount
        return bridged(*args)
    return call


def _fixed(bridged: Callback) -> Callback:
    def call(*args: EngineValue) -> Answer:
        places_given = args[1] if len(args) > 1 else 2.0
        if args and is_number(args[0]) and math.isfinite(args[0]) and is_number(places_given):
            places = math.trunc(places_given)
            if -15 <= places <= 127:
                # Digits enough for Excel's largest number and 127 places (the default context's 28
                # made FIXED(1E+300) #VALUE!: Microsoft's page sets no bound on the number).
                with localcontext(prec=_DIGITS):
                    rounded = Decimal(f"{args[0]:.15g}").quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
                if abs(rounded) >= _WHOLE_DIGITS and (len(args) < 3 or isinstance(args[2], bool) or is_number(args[2])):
                    # Written here from the 15 digits: formulas' truncates the float's binary expansion
                    # (FIXED(7.87397157078953E+20) gave "787,397,157,078,952,000,000.00") or, below 0,
                    # writes all of it ("-1,000,000,000,000,000,052,504..." for -1E+300).
                    grouping = "" if len(args) > 2 and args[2] else ","
                    return format(rounded, f"{grouping}.{max(places, 0)}f")
                return bridged(float(rounded), *args[1:])
        return bridged(*args)
    return call


FUNCTIONS = {"VALUE": wrapped("VALUE", _value), "FIXED": wrapped("FIXED", _fixed)}
