"""INDEX where formualizer's own differs from Excel (formulas_test.xlsx LOOKUP rows 52-54):

- an array constant of several rows and columns with the column omitted gives the whole row
  (`INDEX({2,3;4,5},2)` is {4,5}; formualizer: 4);
- an array constant as the row or column (`INDEX({2,3;4,5},{1,2})`) is lifted: one answer
  per element, each the top-left value of its INDEX (2 and 4); the analysis cannot lift an
  array constant, so such a cell was not computed;
- an error as area_num is the answer (formualizer: #VALUE!);
- a union of ranges as the reference (`INDEX((C52:C54,D52:D54),1,1,E52:E54)`) picks area
  area_num, #REF! past the last one; formualizer: #VALUE!;
- a reference of several rows and columns with the column omitted is #REF! (a negative
  number #VALUE!); formualizer: the first column's value.

A Python callback receives values, not references, so only calls whose answer is a value
are rewritten to call ours: INDEX of an array constant (always a value), and INDEX of a
union or a 2-D range only where it is the whole formula (nothing reads it as a reference). Their other
arguments must be numbers, single cells or array constants (ranges too for the union, in an
array formula, where Excel lifts them); every other INDEX stays formualizer's own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from rates_xl.calc.xlfuncs.arrays import excel_function, fail, given, grid, integer, is_array
from rates_xl.calc.xlfuncs.calls import calls as calls_of
from rates_xl.calc.xlfuncs.omitted import OMITTED

NAME = "RATESXL.INDEX"  # INDEX of an array constant
LIFTED = "RATESXL.INDEXLIFTED"  # the same given an array constant as row, column or area
AREAS = "RATESXL.INDEXAREAS"  # INDEX of a union: (row, column, area, *areas)


def _pick(rows: list[list[Any]], row: Any, column: Any, area: Any, reference: bool) -> Any:
    r = integer(row) if given(row) else 0
    c = integer(column) if given(column) else None
    if given(area):
        integer(area)  # (an error there is the answer; checked by the caller)
    if r < 0 or (c is not None and c < 0):
        raise fail("#VALUE!")
    height, width = len(rows), len(rows[0])
    if c is None:
        if height > 1 and width > 1:
            if reference:  # a 2-D reference wants both (formulas_test LOOKUP!R53)
                raise fail("#REF!")
            c = 0  # an array: the whole row
        elif height == 1:
            r, c = 1, r  # a row: the number counts along it
        else:
            c = 1
    if r > height or c > width:
        raise fail("#REF!")
    picked = rows if r == 0 else [rows[r - 1]]
    return [line if c == 0 else [line[c - 1]] for line in picked]


@excel_function(scalars=(1, 2, 3))
def INDEX(array: Any, row: Any = OMITTED, column: Any = OMITTED, area: Any = OMITTED) -> Any:  # noqa: N802
    rows = grid(array)
    if given(row):
        integer(row)
    if given(column):
        integer(column)
    if given(area) and integer(area) != 1:
        raise fail("#REF!")  # an array constant is one area
    return _pick(rows, row, column, OMITTED, reference=False)


@excel_function(scalars=(0, 1, 2))
def INDEXAREAS(row: Any, column: Any, area: Any, *areas: Any) -> Any:  # noqa: N802
    if given(row):
        integer(row)
    if given(column):
        integer(column)
    which = integer(area) if given(area) else 1
    if which < 1:
        raise fail("#VALUE!")
    if which > len(areas):
        raise fail("#REF!")
    return _pick(grid(areas[which - 1]), row, column, OMITTED, reference=True)


def INDEXLIFTED(*args: Any) -> Any:  # noqa: N802 - the engine's name
    """INDEX given an array constant as the row, column or area: lifted, so each answer is
    the top-left value of its INDEX, even for a constant of one element (`INDEX({2,3;4,5},{1})`
    is 2, not {2,3}), which reaches a callback as a plain number."""
    result = INDEX(*args)
    if isinstance(result, list) and not any(is_array(a) for a in args[1:]):
        return result[0][0]
    return result


INDEXLIFTED.reads_omitted = True  # type: ignore[attr-defined] - see calc/xlfuncs/__init__.py

FUNCTIONS: dict[str, Callable[[dict[str, Any]], Callable[..., Any]]] = {
    NAME: lambda _facts: INDEX,
    LIFTED: lambda _facts: INDEXLIFTED,
    AREAS: lambda _facts: INDEXAREAS,
}


_INDEX = frozenset({"INDEX(", "_XLFN.INDEX("})
_WHOLE = re.compile(r"=\s*(?:_xlfn\.)?INDEX\(", re.I)


def rewrite(formula: str, array: bool = False) -> str:
    """`formula` with each INDEX described in the module docstring calling ours."""
    if "INDEX(" not in formula.upper():
        return formula
    if "{" not in formula and not _WHOLE.match(formula):
        return formula  # neither an array constant nor INDEX as the whole formula (the cheap test)
    from openpyxl.formula.tokenizer import Tokenizer

    try:
        tokens = Tokenizer(formula).items
    except Exception:  # noqa: BLE001 - unreadable here: the engine reports it
        return formula
    calls = calls_of(tokens, _INDEX)
    if not calls:
        return formula
    out = [t.value for t in tokens]
    for start, end, arguments in reversed(calls):  # (from the right: offsets stay valid)
        texts = ["".join(t.value for t in a) for a in arguments]
        first = arguments[0]
        if _is_constant(first):
            two_d = any(t.type == "SEP" and t.subtype == "ROW" for t in first) and len(first) > 3 \
                and any(t.type == "SEP" and t.subtype == "ARG" for t in first)
            rest = arguments[1:]
            if not all(_simple(a, ranges=False) for a in rest):
                continue
            if any(_is_constant(a) for a in rest):
                out[start] = f"{LIFTED}("
            elif (two_d and len(arguments) == 2) or len(arguments) == 4:
                out[start] = f"{NAME}("
        elif (areas := _union(first) or _flat_range(first, len(arguments))) is not None \
                and start == 0 and end == len(tokens) - 1:
            rest = arguments[1:]
            # Ranges as the row, column or area are lifted (one answer each) in an array formula
            # over a union only: that is what the corpus shows of Excel.
            lifts = array and _union(first) is not None
            if len(rest) > 3 or not all(_simple(a, ranges=lifts) for a in rest):
                continue
            given_ = [text if text.strip() else f'"{OMITTED}"' for text in texts[1:]]
            given_ += [f'"{OMITTED}"'] * (3 - len(given_))
            out[start] = f"{AREAS}(" + ",".join(given_ + areas)
            for i in range(start + 1, end):
                out[i] = ""
    return "=" + "".join(out)


def _is_constant(argument: list[Any]) -> bool:
    return (len(argument) >= 2 and argument[0].type == "ARRAY" and argument[0].subtype == "OPEN"
            and argument[-1].type == "ARRAY" and argument[-1].subtype == "CLOSE"
            and all(t.type in ("OPERAND", "SEP") or t.value == "-" for t in argument[1:-1]))


def _simple(argument: list[Any], ranges: bool) -> bool:
    """A number, a single cell (any range when `ranges`), an array constant or nothing."""
    if not argument:
        return True
    if _is_constant(argument):
        return True
    if len(argument) == 2 and argument[0].type == "OPERATOR-PREFIX" and argument[0].value == "-":
        argument = argument[1:]  # a negative number
    if len(argument) != 1 or argument[0].type != "OPERAND":
        return False
    token = argument[0]
    if token.subtype == "NUMBER":
        return True
    if token.subtype != "RANGE" or "!" in token.value or "[" in token.value:
        return False
    from rates_xl.functions.sheet import read_area

    area = read_area(token.value, whole_lines=False)
    if area is None:
        return False  # a name: its size is not known here
    return ranges or area.is_cell


def _union(argument: list[Any]) -> list[str] | None:
    """`(A1:B2,C3:D4)` -> its ranges; None for anything else."""
    if len(argument) < 5 or argument[0].type != "PAREN" or argument[-1].type != "PAREN":
        return None
    inner = argument[1:-1]
    ranges = inner[0::2]
    commas = inner[1::2]
    if not all(t.type == "OPERAND" and t.subtype == "RANGE" and "!" not in t.value for t in ranges):
        return None
    if not all(t.type == "OPERATOR-INFIX" and t.value == "," for t in commas):
        return None
    return [t.value for t in ranges]


def _flat_range(argument: list[Any], count: int) -> list[str] | None:
    """A plain range of several rows and columns given only a row (`INDEX(C52:E53,2)`: Excel
    answers #REF!, formualizer the first column's value) -> [the range]; None otherwise."""
    if count != 2 or len(argument) != 1 or argument[0].type != "OPERAND" or argument[0].subtype != "RANGE":
        return None
    text = argument[0].value
    if "!" in text or "[" in text:
        return None
    from rates_xl.functions.sheet import read_area

    area = read_area(text, whole_lines=False)
    if area is None or area.rows == 1 or area.columns == 1:
        return None
    return [text]
