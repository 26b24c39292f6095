"""The IM* complex-number functions with Excel's text for their answer: each part to 15
significant digits, trailing zeros dropped, written out plainly from 1E-5 up to 1E+15 and as
`d.dddE-06` beyond ("3.82126757337684E-22-j"). The arithmetic, parsing and argument checks
stay the `formulas` package's (bridged, calc/xlfuncs/bridge.py), measured right on the
corpus; only its text differs: it writes Python's shortest round-trip repr (17 digits,
"543.4933870384892-72.57059852204043j"), which Excel never shows. IMLOG2 and IMCSC compute
as Excel does (`ARITHMETIC`): numpy's log2 and 1 / sin differ from it in the 15th digit.
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Callable

from rates_xl.calc.xlfuncs.coercion import Callback, Factory, Facts, number_text
from rates_xl.calc.xlfuncs.types import Answer, EngineValue

#: The IM* functions answering a complex number as text (IMABS, IMREAL ... answer numbers).
TEXT_ANSWERS = """
    IMCONJUGATE IMCOS IMCOSH IMCOT IMCSC IMCSCH IMDIV IMEXP IMLN IMLOG10 IMLOG2 IMPOWER
    IMPRODUCT IMSEC IMSECH IMSIN IMSINH IMSQRT IMSUB IMSUM IMTAN
""".split()


def excel_text(text: str) -> str:
    """A complex number written by `formulas` ("1.1134020618556701+1.494845360824742j"),
    written as Excel does ("1.11340206185567+1.49484536082474j")."""
    suffix = "i" if "i" in text else "j"
    try:
        z = complex(text.replace(" ", "").lower().replace("i", "j"))
    except ValueError:
        return text
    real, imag = number_text(z.real), number_text(z.imag)  # 15 digits, as Excel writes each part
    if imag == "0":
        return real
    coefficient = {"1": "", "-1": "-"}.get(imag, imag)
    if real == "0":
        return coefficient + suffix
    sign = "" if coefficient.startswith("-") else "+"
    return f"{real}{sign}{coefficient}{suffix}"


def _log2(z: complex) -> complex:
    """ln(z) / ln(2), as Excel (formulas' numpy log2 differs in the 15th digit)."""
    return cmath.log(z) / math.log(2)


def _csc(z: complex) -> complex:
    """1 / sin(z) from its parts, as Excel (formulas' 1 / numpy sin differs in the 15th digit)."""
    a, b = z.real, z.imag
    d = math.sin(a) ** 2 * math.cosh(b) ** 2 + math.cos(a) ** 2 * math.sinh(b) ** 2
    return complex(math.sin(a) * math.cosh(b) / d, -math.cos(a) * math.sinh(b) / d)


#: Functions whose arithmetic is Excel's own here (measured on the corpus's 15th digit).
ARITHMETIC: dict[str, Callable[[complex], complex]] = {"IMLOG2": _log2, "IMCSC": _csc}


def _own_arithmetic(name: str, computed: Callback) -> Callback:
    """`name` computed with ARITHMETIC on one scalar argument that `formulas` reads as a
    complex number (IMSUM of it: its parsing and checks); anything else, or a pole or zero,
    is `formulas`' own answer."""
    read = _reader()

    def call(*args: EngineValue) -> Answer:
        found = read(args)
        if found is not None:
            z, suffix = found
            try:
                return _python_text(ARITHMETIC[name](z), suffix)
            except (ValueError, ZeroDivisionError, OverflowError):  # a pole or zero: formulas' own
                pass
        return computed(*args)
    return call


def _reader() -> Callable[[tuple[EngineValue, ...]], tuple[complex, str] | None]:
    """(the complex number, its suffix) of one scalar argument `formulas` reads as a complex
    number (IMSUM of it: its parsing and checks); None for anything else."""
    from rates_xl.calc.xlfuncs.bridge import bridged

    parsed = bridged("IMSUM")

    def read(args: tuple[EngineValue, ...]) -> tuple[complex, str] | None:
        if len(args) != 1 or not isinstance(args[0], str | int | float) or isinstance(args[0], bool):
            return None
        text = parsed(args[0])
        if not isinstance(text, str):
            return None
        try:
            z = complex(text.replace(" ", "").lower().replace("i", "j"))
        except ValueError:
            return None
        return z, "j" if "j" in text.lower() else "i"
    return read


def _python_text(z: complex, suffix: str) -> str:
    """A complex number as `formulas` writes it (read back by excel_text). A part of -0.0 is 0:
    1 / sin of a real number has one (`_csc`), and "1.86+-0.0i" read as no number (IMREAL(IMCSC(-12))
    was #NUM!, Excel 1.86367959778244: IronCalc's ENGINEERING__COMPLEXs.xlsx V12)."""
    real, imag = z.real + 0.0, z.imag + 0.0
    return f"{real!r}{'+' if imag >= 0 else ''}{imag!r}{suffix}"


def suffix_default(computed: Callback) -> Callback:
    """COMPLEX with its suffix an empty cell (or empty text): "i", as omitted (Microsoft's
    COMPLEX page); the bridged `formulas` COMPLEX answered #VALUE! (IronCalc's Excel-made
    ENGINEERING__COMPLEXs.xlsx, MIT or Apache-2.0: COMPLEX(1.23, 9.5121, empty) is
    "1.23+9.5121i", D7; an error among the numbers first, #DIV/0!, D24)."""
    def COMPLEX(*args: EngineValue) -> Answer:  # noqa: N802
        if len(args) == 3 and (args[2] is None or args[2] == ""):
            return computed(*args[:2])
        return computed(*args)

    return COMPLEX


def argument(computed: Callback) -> Callback:
    """IMARGUMENT as Excel computes it: the angle atan2(y, x) of any number but 0 (#DIV/0!). The
    bridged `formulas` one answered #DIV/0! wherever the real part was near 0 (numpy's isclose:
    "5i", "1E-16"), where Excel has pi/2 and 0 (IronCalc's ENGINEERING__COMPLEXs.xlsx H5, H16;
    H22, "0", #DIV/0!). Anything but one value `formulas` reads as a complex number (IMSUM of
    it) is its own answer."""
    from rates_xl.calc.engines.formualizer.values import error

    read = _reader()

    def IMARGUMENT(*args: EngineValue) -> Answer:  # noqa: N802
        found = read(args)
        if found is None:
            return computed(*args)
        z = found[0]
        return error("#DIV/0!") if z == 0 else math.atan2(z.imag, z.real)

    return IMARGUMENT


def _excel_written(name: str) -> Factory:
    def factory(_facts: Facts) -> Callback:
        from rates_xl.calc.xlfuncs.bridge import bridged

        computed = bridged(name)
        if name in ARITHMETIC:
            computed = _own_arithmetic(name, computed)

        def call(*args: EngineValue) -> Answer:
            return _rewritten(computed(*args))

        call.__name__ = name
        return call
    return factory


def _rewritten(value: Answer) -> Answer:
    if isinstance(value, str):
        return excel_text(value)
    if isinstance(value, list):  # lifted over a range: each element
        return [[_rewritten(v) for v in row] for row in value]
    return value


FUNCTIONS = {name: _excel_written(name) for name in TEXT_ANSWERS}
