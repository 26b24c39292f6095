"""formualizer's values and Excel's (functions/values.py), both ways: a cell's value as the
calculator reports it, a Python function's answer as the engine stores it.

formualizer hands a Python function scalars, 2-D lists for ranges and arrays, None for an
empty cell, Python dates for a date-formatted number and {"type": "Error", "kind": ...} for
an error; it reads back the same (`EngineValue`). The kinds are its names for Excel's error
values.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict, cast

from rates_xl.functions.values import (
    EPOCH_1900,
    TEXT_LIMIT,
    CellValue,
    is_error_text,
    text_value,
    to_serial,
)

if TYPE_CHECKING:
    from typing_extensions import TypeIs

#: formualizer's error kinds -> Excel's error values (`Nimpl`: a function it lacks, #NAME?).
KIND_TEXT = {"Div": "#DIV/0!", "Na": "#N/A", "Name": "#NAME?", "Value": "#VALUE!", "Ref": "#REF!",
             "Num": "#NUM!", "Null": "#NULL!", "Spill": "#SPILL!", "Calc": "#CALC!",
             "Circ": "#CIRC!", "GettingData": "#GETTING_DATA", "Nimpl": "#NAME?"}
#: Excel's error values -> formualizer's kinds.
TEXT_KIND = {text: kind for kind, text in KIND_TEXT.items() if kind != "Nimpl"}
#: The kinds formualizer answers but refuses to be given ("Unknown error kind: gettingdata").
_ANSWERED_ONLY = frozenset({"GettingData"})


class EngineError(TypedDict):
    """formualizer's error value: {"type": "Error", "kind": "Div"} (a kind of `KIND_TEXT`)."""

    type: str
    kind: str


#: One value as formualizer hands it to a Python function and answers for a cell: a number,
#: text, a boolean, None (empty), a date, time or duration (a date-formatted number), an error.
EngineScalar: TypeAlias = float | int | bool | str | None | date | time | timedelta | EngineError
#: An argument as formualizer hands it to a Python function: a scalar, or a range's or an
#: array's rows.
EngineValue: TypeAlias = EngineScalar | list[list[EngineScalar]]


def is_error(value: object) -> TypeIs[EngineError]:
    """formualizer's error value, as it hands one to a Python function."""
    return isinstance(value, dict) and value.get("type") == "Error"


def error(text: str) -> EngineError:
    """Excel's error value `text` ("#N/A") as formualizer's (#VALUE! for text that is none,
    and for an error it has no kind for or refuses to be given: #FIELD!, #GETTING_DATA ...)."""
    kind = TEXT_KIND.get(text, "Value")
    return {"type": "Error", "kind": "Value" if kind in _ANSWERED_ONLY else kind}


def held_exactly(text: str) -> bool:
    """Whether the engine holds Excel's error value `text` as itself (`error`), not as #VALUE!."""
    return text == "#VALUE!" or TEXT_KIND.get(text, "Value") not in ("Value", *_ANSWERED_ONLY)


def error_text(value: EngineError) -> str:
    """formualizer's error value as Excel's text ("#N/A")."""
    return KIND_TEXT.get(str(value.get("kind")), "#VALUE!")


#: A cell's error as its value is written (`plain`): #CALC! as Excel's file stores it, #VALUE!
#: (the kind is kept in rich-value metadata a copy cannot carry: formulas_test.xlsx's empty
#: FILTER, TAKE, DROP and UNIQUE results, errorType 13); inside formulas it stays #CALC!
#: (ERROR.TYPE 14, calc/xlfuncs/information/errors.py).
STORED_TEXT = {**KIND_TEXT, "Calc": "#VALUE!"}


def plain(value: EngineScalar, epoch: datetime = EPOCH_1900) -> CellValue:
    """A value the engine computed as the calculator reports it: errors as Excel's text (as
    its file stores them, `STORED_TEXT`), its dates, times (TIME, TIMEVALUE) and durations as
    Excel stores them, serial numbers on the book's date system (`epoch`; the cell's own number
    format shows them)."""
    if is_error(value):
        return STORED_TEXT.get(str(value.get("kind")), "#VALUE!")
    if isinstance(value, str):
        if len(value) > TEXT_LIMIT:  # `&`, CONCATENATE: formualizer's own joins know no limit
            return "#VALUE!"
        return text_value(value)  # text, even "#N/A" (VALUETOTEXT's): the engine said so
    if isinstance(value, date | time | timedelta):
        return to_serial(value, epoch)
    if isinstance(value, float) and value - value != 0:  # (inf, -inf, nan: never a cell's value)
        return "#NUM!"
    return value


#: The engine's values `plain` hands back as they are (most cells: numbers, booleans, empty).
#: A float past a double's range is #NUM!, as in Excel: formualizer's own functions may answer
#: inf (SUMSQ of 1E+200 was inf, IronCalc's Excel-made SUMSQ.xlsx B25: #NUM!).
_AS_THEY_ARE = frozenset({float, int, bool, type(None)})


def plains(values: Iterable[EngineScalar], epoch: datetime = EPOCH_1900) -> list[CellValue]:
    """`plain` of each value (a block of cells read back: most are numbers, taken as they are,
    and many errors, read as `error_text` does, without a call each)."""
    kept, texts = _AS_THEY_ARE, STORED_TEXT
    return cast("list[CellValue]", [
        value if value.__class__ in kept and (value.__class__ is not float or value - value == 0) else
        texts.get(str(value.get("kind")), "#VALUE!") if isinstance(value, dict) and value.get("type") == "Error"
        else plain(value, epoch) for value in values])


def to_engine(value: Any) -> EngineValue:
    """A Python function's answer as the engine stores it (a 2-D list padded to its widest
    row with empty text, or a scalar)."""
    if isinstance(value, list):
        rows = [row if isinstance(row, list | tuple) else [row] for row in value]
        width = max((len(r) for r in rows), default=1)
        return [[scalar_to_engine(v) for v in row] + [""] * (width - len(row)) for row in rows] or [[""]]
    return scalar_to_engine(value)


def scalar_to_engine(value: Any) -> EngineScalar:
    """One value as the engine stores it: a date as its serial, None as empty text, a number
    no float holds as #NUM!, Excel's error text as the error value (text that only reads like
    one, functions/values.py `ErrorLikeText`, stays text)."""
    if isinstance(value, date):
        return to_serial(value)
    if value is None:
        return ""
    if isinstance(value, float) and not math.isfinite(value):
        return error("#NUM!")
    if is_error_text(value):
        return error(value)
    return value


def from_engine(value: EngineValue) -> EngineValue:
    """What the engine hands a Python function as one argument: a 1 x 1 array as its value."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], list) and len(value[0]) == 1:
        return value[0][0]
    return value
