"""VALUE and FIXED as Excel answers them where the bridged `formulas` implementations
(calc/xlfuncs/bridge.py) do not (every other call goes on to the bridged one unchanged), and
DOLLAR, formualizer's until it rounded amounts on their binary value:

- VALUE of a number written with a dollar sign or thousands separators ("$1,000" is 1000;
  formulas: #VALUE!, and "1,000" read as a date), of a time alone, a date that is none and a
  percentage (calc/xlfuncs/text/value_text.py);
- FIXED rounds half away from zero on the number's 15 significant digits, as Excel's ROUND
  (FIXED(2.675,2) is "2.68"; formulas' Python formatting gave "2.67"); a number shown with
  more than 15 significant digits (of 16 digits and more, or with more places than 15 digits
  fill: FIXED(0.1+0.2,20)) is written from those 15 digits, zeros after them, as Excel shows
  it (formulas wrote the float's binary expansion: "0.29999999999999998890");
- DOLLAR is FIXED's digits (rounded half away from zero on 15 significant digits, zeros past
  them) in Microsoft's currency format `$#,##0.00_);($#,##0.00)`, the padding left out as
  Excel's DOLLAR leaves it ("$1,234.57"). formualizer 0.13 rounded the binary value, so
  DOLLAR(0.285,2) was "$0.28" and DOLLAR(1.005,2) "$1.00" (Excel: "$0.29", "$1.01", as
  ROUND and FIXED), wrote digits past the 15th from the float, and lost the sign past 2^63
  (DOLLAR(-1E+19) was "$10,000,..."). Its reading of the arguments is kept: text read as a
  plain number or #VALUE!, TRUE 1, decimals truncated, #VALUE! past 127 either way, the
  sign the rounded amount's (DOLLAR(-0.001) "$0.00", DOLLAR(-0.005) "($0.01)").
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal, localcontext

from rates_xl.calc.engines.formualizer.values import error
from rates_xl.calc.xlfuncs.bridge import wrapped
from rates_xl.calc.xlfuncs.coercion import (
    Callback,
    ExcelError,
    Facts,
    elementwise,
    is_number,
    number,
)
from rates_xl.calc.xlfuncs.text import value_text
from rates_xl.calc.xlfuncs.types import Answer, EngineValue

# A plain decimal number with an optional sign, a dollar sign and thousands separators in
# groups of three, as Excel reads it in the en-US locale.
_CURRENCY = re.compile(r"\s*(?P<sign>[+-]?)\s*\$?\s*(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d*)?\s*")

#: Decimal digits enough for Excel's largest number (309) and a format's most places (a format
#: code is at most 255 characters; FIXED and DOLLAR take 127): the default context's 28 made
#: FIXED(1E+300) and TEXT(1E+30,"0") #VALUE!.
DIGITS = 309 + 255 + 1
#: Significant digits Excel shows of a number; past them its text has zeros.
SHOWN = 15


def rounded(number: float, places: int) -> Decimal:
    """`number` as Excel rounds it to `places` (left of the point below 0), exactly: its 15
    significant digits, half away from zero, as ROUND does (FIXED(2.675,2) is "2.68")."""
    with localcontext(prec=DIGITS):
        return Decimal(f"{number:.15g}").quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def past_shown(exact: Decimal) -> bool:
    """Whether a rounded number's text shows more than Excel's 15 significant digits (a float
    written out would show its binary expansion there)."""
    return len(exact.as_tuple().digits) > SHOWN


def _value(bridged: Callback) -> Callback:
    def call(*args: EngineValue) -> Answer:
        if len(args) == 1 and isinstance(args[0], str) and (read := value_text.read(args[0])) is not None:
            return error(read) if isinstance(read, str) else read
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
            if -15 <= places <= 127:  # (Microsoft's page sets no bound on the number)
                exact = rounded(args[0], places)
                if past_shown(exact) and (len(args) < 3 or isinstance(args[2], bool) or is_number(args[2])):
                    # Written here from the 15 digits: formulas' truncates the float's binary expansion
                    # (FIXED(7.87397157078953E+20) gave "787,397,157,078,952,000,000.00") or, below 0,
                    # writes all of it ("-1,000,000,000,000,000,052,504..." for -1E+300).
                    grouping = "" if len(args) > 2 and args[2] else ","
                    return format(exact, f"{grouping}.{max(places, 0)}f")
                return bridged(float(exact), *args[1:])
        return bridged(*args)
    return call


#: DOLLAR's most places either way (formualizer's bounds: #VALUE! past them).
_DOLLAR_PLACES = 127


def dollar(_facts: Facts) -> Callback:
    def one(value: EngineValue, decimals: EngineValue = 2.0) -> Answer:
        amount, places = number(value), number(decimals)
        if not (math.isfinite(amount) and math.isfinite(places)) or abs(places) >= _DOLLAR_PLACES + 1:
            raise ExcelError("#VALUE!")
        places = math.trunc(places)
        exact = rounded(amount, places)
        written = "$" + format(abs(exact), f",.{max(places, 0)}f")
        return f"({written})" if exact < 0 else written

    def DOLLAR(*args: EngineValue) -> Answer:  # noqa: N802 - Excel's name
        return elementwise(one)(*[0.0 if arg is None else arg for arg in args])
    return DOLLAR


FUNCTIONS = {"VALUE": wrapped("VALUE", _value), "FIXED": wrapped("FIXED", _fixed), "DOLLAR": dollar}


#: The characters the General format has for a number, its sign left out (a cell of the standard width).
GENERAL_WIDTH = 11


def general(number: float) -> str:
    """`number` in the General format, as TEXT(number, "General") writes it: its 15 significant
    digits, in at most 11 characters (the sign apart), fixed where that shows as many significant
    digits as the scientific form would, else scientific with up to 5 decimals and a two-digit
    exponent at least ("0.333333333", "12345.6789", "25000000000", "0.00000001"; "1.23457E+11",
    "2.5E-09", "1.2E-16": Excel's answers in IronCalc's Excel-made TEXT workbook)."""
    if number == 0 or not math.isfinite(number):
        return "0" if number == 0 else "#NUM!"
    sign = "-" if number < 0 else ""
    exact = Decimal(repr(abs(number)))
    with localcontext(prec=15):
        exact = +exact  # Excel's 15 significant digits
    exponent = exact.adjusted()
    scientific = _scientific(exact)
    if exponent < GENERAL_WIDTH:
        places = max(0, GENERAL_WIDTH - 1 - max(exponent, 0) - 1)  # room after the point
        fixed = _plain(exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))
        if len(fixed) <= GENERAL_WIDTH and _significant(fixed) >= min(_significant(scientific), _digits(exact)):
            return sign + fixed
    return sign + scientific


def _plain(value: Decimal) -> str:
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _scientific(value: Decimal) -> str:
    """d.ddddE+xx in at most 11 characters, trailing zeros left out."""
    exponent = value.adjusted()
    tail = f"E{'+' if exponent >= 0 else '-'}{abs(exponent):02d}"
    places = max(0, GENERAL_WIDTH - len(tail) - 2)
    mantissa = (value.scaleb(-exponent)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    if mantissa >= 10:  # 9.999995 rounded up: one more power of ten
        return _scientific(Decimal(1).scaleb(exponent + 1))
    return _plain(mantissa) + tail


def _significant(text: str) -> int:
    """Significant digits written in a fixed or scientific text."""
    digits = text.split("E")[0].replace(".", "").lstrip("0")
    return len(digits.rstrip("0")) if "." in text.split("E")[0] else len(digits)


def _digits(value: Decimal) -> int:
    return len(value.normalize().as_tuple().digits)
