"""ERROR.TYPE of the error values of dynamic arrays and data types, which `formulas` does not
know: its ERROR.TYPE numbers its own eight (#NULL! 1 ... #GETTING_DATA 8), and the bridge
handed it #VALUE! for any other (`ERROR.TYPE(FILTER(A1:A3,A1:A3>99))` was 3).

Excel numbers them on, in the order of its error enumeration: #SPILL! 9, #CONNECT! 10,
#BLOCKED! 11, #UNKNOWN! 12, #FIELD! 13, #CALC! 14, #BUSY! 15. The files Excel writes keep that
enumeration (0-based) in an error cell's rich-value metadata: formulas_test.xlsx's empty FILTER,
TAKE, DROP and UNIQUE results (#CALC!, FILTER!W22) carry errorType 13 beside #N/A's 6 and
#VALUE!'s 2 (ERROR.TYPE 7 and 3); Office.js's and Aspose's ErrorCellValueType enumerations
give the same order.
"""

from __future__ import annotations

from collections.abc import Callable

from rates_xl.functions.values import ERROR_ENUMERATION

#: ERROR.TYPE of each error value past `formulas`' eight (module docstring).
EXTENDED = {text: number for number, text in enumerate(ERROR_ENUMERATION, start=1) if number > 8}


def implementation(name: str) -> Callable[..., object] | None:
    """`formulas`' ERROR.TYPE numbering the errors of EXTENDED too (None for any other name)."""
    if name != "ERROR.TYPE":
        return None
    from formulas.functions import wrap_ufunc
    from formulas.functions.info import xerrortype
    from formulas.tokens.operand import XlError

    def error_type(value: object) -> object:
        if isinstance(value, XlError) and str(value) in EXTENDED:
            return EXTENDED[str(value)]
        return xerrortype(value)

    # info.py's own wrapping of xerrortype (its arguments as they come, errors not raised).
    return wrap_ufunc(error_type, input_parser=lambda *a: a, check_error=lambda x: None,
                      args_parser=lambda *a: a, check_nan=False)
