"""Excel's coercions for the functions of calc/xlfuncs, on formualizer's values (scalars,
2-D lists for arrays, None for empty, {"type": "Error", ...} for errors)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias, TypedDict, TypeGuard

from rates_xl.calc.engines.formualizer.values import error, is_error
from rates_xl.calc.xlfuncs.types import Answer, EngineValue
from rates_xl.errors import Internal


class Facts(TypedDict, total=False):
    """What a function needs to know of the book it computes (`calc.xlfuncs.book_facts`)."""

    #: The application that saved it (CHAR and CODE: Mac Roman in Excel for Mac).
    application: str
    #: Its sheets' titles and its defined names and tables, upper case (INDIRECT's text:
    #: lookup/reference_text.py).
    sheets: frozenset[str]
    names: frozenset[str]
    #: Whether it counts dates from 1904 (`date1904`: dates/system1904.py).
    date1904: bool


#: A function of this package as formualizer calls it: formualizer's values in (its
#: `EngineValue`s), an answer it stores out (a scalar, rows, an error: `values.to_engine`).
Callback: TypeAlias = Callable[..., Answer]
#: What makes a Callback for one book, from its facts.
Factory: TypeAlias = Callable[[Facts], Callback]


class ExcelError(Internal):
    """Raised inside an implementation: the cell answers this error ("#VALUE!")."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def is_number(value: object) -> TypeGuard[float]:
    """A number, not a boolean (which Python counts as one)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def number(value: object) -> float:
    """A scalar argument as Excel reads it where a number is wanted."""
    if is_error(value):
        raise _Passthrough(value)
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            raise ExcelError("#VALUE!") from None
    raise ExcelError("#VALUE!")


def toolpak_number(value: object) -> float:
    """`number`, but a logical value is #VALUE!: the Analysis ToolPak's functions refuse TRUE and
    FALSE, typed or in a cell, where the others read 1 and 0 (IronCalc's Excel-made books:
    NOMINAL(10, TRUE) and EFFECT are #VALUE!, NOMINAL_EFFECT!C20, D20; DOLLARDE(TRUE, 2), DOLLARS!D11)."""
    if isinstance(value, bool):
        raise ExcelError("#VALUE!")
    return number(value)


def number_or_date(value: object) -> float:
    """`number`, text that is no number read as Excel reads a date typed as text (the bridged
    `formulas` VALUE, right on dates: "29/02/1900" is 60, day first as formulas_test.xlsx's
    Excel read it; a time is not read here)."""
    try:
        return number(value)
    except ExcelError:
        if not isinstance(value, str):
            raise
        from rates_xl.calc.xlfuncs.bridge import bridged

        read = bridged("VALUE")(value) if ":" not in value else None
        if not isinstance(read, int | float) or isinstance(read, bool):
            raise
        return float(read)


def text(value: object) -> str:
    """A scalar argument as Excel reads it where text is wanted."""
    if is_error(value):
        raise _Passthrough(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return number_text(float(value))
    return str(value)


def number_text(value: float) -> str:
    """A number as Excel writes it where text is wanted (`&`, LEFT, SEARCH ...): 15 significant
    digits (1/3 is "0.333333333333333", 0.1+0.2 "0.3"; Python's repr gives 17), in decimals
    from 1E-5 up to 1E15 (poi_FormulaEvalTestData EverythingTests!H1216: SEARCH(1,1E-05) is 7,
    in "0.00001"), E-notation beyond ("1.28233995888454E-06", as Excel writes the parts of a
    complex number: formulas_test.xlsx ENGINEERING!S37)."""
    if value == 0:
        return "0"
    if value != value or value in (float("inf"), float("-inf")):
        return "#NUM!"
    mantissa, _, exponent = f"{value:.14e}".partition("e")
    power = int(exponent)
    if -5 <= power < 15:
        fixed = f"{float(mantissa + 'e' + exponent):.{max(0, 14 - power)}f}"
        return fixed.rstrip("0").rstrip(".") if "." in fixed else fixed
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}E{'-' if power < 0 else '+'}{abs(power):02d}"


class _Passthrough(Internal):
    def __init__(self, value: EngineValue) -> None:
        super().__init__("error argument")
        self.value = value


def elementwise(func: Callable[..., Answer]) -> Callback:
    """A function of scalars applied to each element of array arguments (Excel's lifting:
    arrays of different sizes are read to the largest, #N/A beyond the smaller one)."""

    def call(*args: EngineValue) -> Answer:
        arrays = [a for a in args if isinstance(a, list)]
        if not arrays:
            return _one(func, args)
        rows = max(len(a) for a in arrays)
        cols = max(len(r) for a in arrays for r in a)
        out: list[list[Answer]] = []
        for i in range(rows):
            line: list[Answer] = []
            for j in range(cols):
                line.append(_one(func, [_element(a, i, j) for a in args]))
            out.append(line)
        return out

    call.__name__ = func.__name__
    return call


def _element(arg: EngineValue, i: int, j: int) -> EngineValue:
    if not isinstance(arg, list):
        return arg
    height, width = len(arg), len(arg[0]) if arg else 0
    ri = 0 if height == 1 else i
    ci = 0 if width == 1 else j
    if ri >= height or ci >= width:
        return error("#N/A")
    return arg[ri][ci]


def _one(func: Callable[..., Answer], args: Sequence[EngineValue]) -> Answer:
    try:
        return func(*args)
    except _Passthrough as passed:
        return passed.value
    except ExcelError as exc:
        return error(exc.text)
