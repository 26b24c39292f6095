"""ARRAYTOTEXT and VALUETOTEXT as Excel computes them (formualizer: a format of 2 or -1 taken,
empty text lost in the strict format, a format given as a range not applied to each element).

The format is 0 (concise: values as shown, ", " between them) or 1 (strict: text quoted, the
array written as an array constant `{a,b;c,d}`), read as a number and truncated (0.9 is 0,
"1.99" is 1, TRUE is 1, an empty cell 0); anything else is #VALUE!, an error passes on. A
format given as an array gives one answer per element (`ARRAYTOTEXT(C3:J3,C3:Q3)`). Errors
in the values are written as their text.
"""

from __future__ import annotations

from collections.abc import Iterator

from rates_xl.calc.engines.formualizer.values import error_text, is_error
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Facts, elementwise, number
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted
from rates_xl.calc.xlfuncs.types import Answer, EngineValue, Rows
from rates_xl.functions.values import TEXT_LIMIT


def _format(value: EngineValue) -> int:
    found = 0 if value == OMITTED or value is None else int(number(value))
    if found not in (0, 1):
        raise ExcelError("#VALUE!")
    return found


def _shown(value: EngineValue, strict: bool) -> str:
    """One value as written in the text (an empty cell: nothing)."""
    if is_error(value):
        return error_text(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        number_ = float(value)
        if number_.is_integer() and abs(number_) < 1e15:
            return str(int(number_))
        return f"{number_:.15g}".replace("e", "E")
    text = str(value)
    return '"' + text.replace('"', '""') + '"' if strict else text


def _grid(value: EngineValue) -> Rows:
    return value if isinstance(value, list) else [[value]]


def _array_to_text(rows: Rows, format_: EngineValue) -> str:
    strict = _format(format_) == 1
    if strict:
        if len(rows) == 1 and len(rows[0]) == 1 and rows[0][0] is None:
            raise ExcelError("#VALUE!")  # `{}` is no array: Excel's #VALUE! for one empty cell
        return "{" + _joined((("" if i == j == 0 else "," if j else ";") + _shown(v, True)
                              for i, row in enumerate(rows) for j, v in enumerate(row)), 2) + "}"
    return _joined((("" if i == j == 0 else ", ") + _shown(v, False)
                    for i, row in enumerate(rows) for j, v in enumerate(row)), 0)


def _joined(parts: Iterator[str], more: int) -> str:
    """`parts` (each with its separator) joined, #VALUE! as soon as the text (with `more`
    characters beside it) passes a cell's limit (Microsoft's CONCAT page: a text past 32,767
    characters is #VALUE!): ARRAYTOTEXT(SEQUENCE(1000,1000)) wrote a million numbers (9 s)
    before that answer."""
    kept, length = [], more
    for part in parts:
        length += len(part)
        if length > TEXT_LIMIT:
            raise ExcelError("#VALUE!")
        kept.append(part)
    return "".join(kept)


def arraytotext(_facts: Facts) -> Callback:
    def ARRAYTOTEXT(array: EngineValue, format_: EngineValue = OMITTED) -> Answer:  # noqa: N802 - Excel's name
        rows = _grid(array)
        return elementwise(lambda f: _array_to_text(rows, f))(format_)

    reads_omitted(ARRAYTOTEXT)
    return ARRAYTOTEXT


def valuetotext(_facts: Facts) -> Callback:
    def one(value: EngineValue, format_: EngineValue = OMITTED) -> str:
        strict = _format(format_) == 1
        return _shown(value, strict)

    def VALUETOTEXT(value: EngineValue, format_: EngineValue = OMITTED) -> Answer:  # noqa: N802 - Excel's name
        # An error as the value is written as its text, not passed on as the elementwise
        # helper would: wrap it so the helper sees a plain value.
        wrapped = [[_Boxed(v) for v in row] for row in value] if isinstance(value, list) else _Boxed(value)
        # (#N/A padding past a smaller array reaches `one` unboxed: it stays the error.)
        return elementwise(lambda v, f: one(v.value, f) if isinstance(v, _Boxed) else v)(wrapped, format_)

    reads_omitted(VALUETOTEXT)
    return VALUETOTEXT


class _Boxed:
    """A value the elementwise helper hands on untouched (errors included)."""

    def __init__(self, value: EngineValue) -> None:
        self.value = value
