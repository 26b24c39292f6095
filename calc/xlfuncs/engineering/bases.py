"""The twelve conversions between number bases (BIN2DEC, DEC2HEX, HEX2OCT ...) as the bridged
`formulas` implementations compute them, without the dispatcher they build at every call.

`formulas` 1.3.4 (functions/eng.py `hex2dec2bin2oct`) defines each one as a schedula
DispatchPipe over one graph: the data nodes HEX, OCT and BIN filtered by `_parseX` (one value,
at most 10 characters), the functions X2DEC (`_x2dec`) and DEC2X (`_dec2x`, which reads its own
argument with `_parseDEC` and pads to `places`) between each of them and DEC, so X2Y runs
X -> DEC -> Y. Each call registers a new dispatcher from its blueprint and solves it: 83 us a
call, against 4 us for the same three helpers composed in the graph's order here, wrapped by the
same `wrap_func` (its errors and exceptions as `formulas`' own). formulas_test.xlsx calls them
180 times. tests/calc/test_bases.py compares the two on every conversion over a grid of every
kind of value and `places` (text, numbers, logicals, empty, errors, arrays), type and
exception included, and reproduces the corpus cells; any other `formulas` release keeps its
dispatcher (`implementation` answers None).

Where `formulas` is not Excel, `places` is read as Excel reads it (`_places`): for a negative
answer, written in ten digits (two's complement), a valid `places` is ignored ("If number is
negative, places is ignored", Microsoft's DEC2BIN page), where `formulas` answered #NUM! for any
`places` shorter than ten; an empty cell is 0 (#NUM!) and a logical value #VALUE!, where `formulas`
answered #VALUE! and read TRUE as 1. Excel's values in IronCalc's ENGINEERING__NUMBER_SYSTEMS.xlsx
decide each (tests/calc/test_bases.py `EXCEL_PLACES`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

#: The `formulas` release whose eng.py this composition follows.
READ_FROM = "1.3.4"

#: The radix of each data node of the graph (DEC is the hub every conversion goes through).
BASES = {"HEX": 16, "OCT": 8, "BIN": 2}

#: HEX2DEC, HEX2OCT ... DEC2BIN: every ordered pair of HEX, OCT, BIN and DEC, as eng.py lists them.
NAMES = frozenset("2".join(pair) for pair in itertools.permutations(("HEX", "OCT", "BIN", "DEC"), 2))


def implementation(name: str) -> Callable[..., object] | None:
    """`formulas`' `name` (one of NAMES) without its dispatcher, as `formulas.functions.eng.FUNCTIONS`
    holds it; None for another name, or under another `formulas` release."""
    if name not in NAMES:
        return None
    import formulas

    if formulas.__version__ != READ_FROM:
        return None
    from formulas.functions import wrap_func
    from formulas.functions.eng import _dec2x, _parseDEC, _parseX, _x2dec

    source, target = name.split("2")

    def convert(x: object, places: object = None) -> object:
        if (early := _excels_first(source, target, x, places)) is not None:
            return early
        # The graph's order: the source node's filter, X2DEC, DEC2X, the target node's filter
        # (DEC has none; a DEC source reaches DEC2X as given, read by DEC2X's own `_parseDEC`).
        decimal = _x2dec(_parseX(x), base=BASES[source]) if source != "DEC" else x
        if target == "DEC":
            return decimal
        if places is not None:
            number = _parseDEC(decimal) if source == "DEC" else decimal
            answer, places = _places(places, number, BASES[target])
            if answer is not None:
                return answer
        return _parseX(_dec2x(decimal, places, base=BASES[target]))

    convert.__name__ = name
    found: Callable[..., object] = wrap_func(convert)
    return found


def _excels_first(source: str, target: str, x: object, places: object) -> object | None:
    """The errors Excel answers before reading the number as `formulas` does, or None (xlcalculator's
    Excel-made BASES.xlsx): `places` past 1 to 10 is #NUM! whatever the number (DEC2BIN("E",0),
    DEC2BIN("E",11); `formulas`: #VALUE! of "E"); the empty text as a decimal is #VALUE! (a
    formula's ""; `formulas` read 0); a minus sign in a binary, octal or hexadecimal text is
    #NUM! (HEX2DEC("-A"); `formulas`: -1099511627786)."""
    import math

    from formulas.functions import Error

    if target != "DEC" and isinstance(places, int | float) and not isinstance(places, bool) and \
            (not math.isfinite(places) or not 1 <= math.trunc(places) <= 10) and not _is_error(x):
        return Error.errors["#NUM!"]
    if source == "DEC" and isinstance(x, str) and x == "":
        return Error.errors["#VALUE!"]
    if source != "DEC" and isinstance(x, str) and "-" in x:
        return Error.errors["#NUM!"]
    return None


def _is_error(value: object) -> bool:
    from formulas.functions import XlError

    return isinstance(value, XlError)


def _places(places: object, number: object, base: int) -> tuple[object, object]:
    """(an error value to answer, or None; `places` as DEC2X is to read it) for the conversion
    of `number` (an int, or an error: `formulas`' own reading then) to `base`: Excel's where
    `formulas` is not (the module's docstring), else `places` as given, for `formulas`' reading
    (an error given as `places` too). A negative number is written in ten digits whatever `places`
    (None), once `places` is one Excel accepts: a number, or text reading as one, from 1 to 10
    once truncated (#NUM! past them)."""
    import math

    import schedula as sh
    from formulas.functions import Error
    from formulas.functions.eng import _xmask

    if not isinstance(number, int) or isinstance(number, bool) or not -_xmask[base] <= number < _xmask[base]:
        return None, places  # (the number's error comes first: #NUM! past the target's digits)
    if isinstance(places, bool):
        return Error.errors["#VALUE!"], None  # (nonnumeric: Microsoft's pages)
    if places is sh.EMPTY:
        places = 0  # an empty cell: no digits (#NUM!)
    if number >= 0:
        return None, places  # (`_dec2x` reads it: 0 is #NUM!)
    if isinstance(places, str):
        try:
            places = float(places)
        except ValueError:
            return Error.errors["#VALUE!"], None
    if not isinstance(places, int | float):
        return None, places  # an error, an array: `formulas`' reading
    if not math.isfinite(places) or not 1 <= math.trunc(places) <= 10:
        return Error.errors["#NUM!"], None
    return None, None
