"""Excel's array-shaping functions as Excel computes them: VSTACK, HSTACK, CHOOSECOLS,
CHOOSEROWS, TAKE, DROP, TOCOL, TOROW, EXPAND, WRAPROWS, WRAPCOLS, MUNIT, TRIMRANGE; and
TYPE, which tells an array (64) from a value.

formualizer lacks EXPAND, WRAPROWS, WRAPCOLS, MUNIT and TRIMRANGE, and gets the others'
shapes and errors wrong on formulas_test.xlsx (VSTACK pads with blanks, not #N/A; an error
in a count is not passed on; fractional counts). A callback answering a 2-D list spills
in formualizer as a dynamic array does in Excel.

What these share, as Excel does it:
- an array argument may be a range, an array or a single value (a 1 x 1 array);
- a count or index argument is a number, truncated toward zero (text that reads as a
  number is that number, TRUE is 1); an error there is the answer;
- a count or index argument given an array is *lifted*: the function is computed for each
  element, and each result shows its top-left value (`TOCOL(A1:B2, C1:E1)` is a row of
  three);
- an omitted argument (`TAKE(a,,2)`, or not given) takes the default, an empty cell is 0
  (`EXPAND({1},A1)` with A1 empty is #VALUE!, the array cannot shrink);
- an empty result is #CALC! (ERROR.TYPE 14, as formulas it feeds read it), which the file
  stores as #VALUE! (the kind is kept in rich-value metadata a copy cannot carry:
  formulas_test.xlsx FILTER!W22, errorType 13): the cell's value is written so
  (calc/engines/formualizer/values.py `plain`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from rates_xl.calc.engines.formualizer.values import EngineError, error, is_error
from rates_xl.calc.xlfuncs.coercion import Callback, Factory
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted
from rates_xl.calc.xlfuncs.types import EngineScalar, EngineValue, Rows
from rates_xl.errors import Internal

#: A function of this module: arguments in, a value or rows out.
ArrayFunction = Callable[..., EngineValue]


class _Answer(Internal):
    """Raised inside an implementation: the cell answers this value (an error)."""

    def __init__(self, value: EngineValue) -> None:
        super().__init__("answer")
        self.value = value


def fail(text: str) -> _Answer:
    return _Answer(error(text))


def calc_error() -> EngineError:
    """An empty array's #CALC! (module docstring)."""
    return error("#CALC!")


def grid(value: EngineValue) -> Rows:
    """An array argument as rows (a single value is a 1 x 1 array)."""
    if isinstance(value, list):
        rows = [list(row) if isinstance(row, list) else [row] for row in value]
        if not rows or not rows[0]:
            raise _Answer(calc_error())
        return rows
    return [[value]]


def constant(func: Callback) -> Factory:
    """The factory (calc/xlfuncs/__init__.py) of a callback that reads no fact of the book."""
    return lambda _facts: func


def is_array(value: EngineValue) -> bool:
    return isinstance(value, list) and (len(value) > 1 or bool(value and len(value[0]) > 1))


def scalar(value: EngineValue) -> EngineValue:
    """A 1 x 1 array as its value."""
    while isinstance(value, list) and len(value) == 1 and isinstance(value[0], list) and len(value[0]) == 1:
        value = value[0][0]
    return value


def number(value: EngineValue) -> float:
    """A count or index argument as Excel reads it; an error is the answer."""
    value = scalar(value)
    if is_error(value):
        raise _Answer(value)
    if value is None:
        return 0.0
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return _date_text(value)
    raise fail("#VALUE!")


def _date_text(value: str) -> float:
    """Text Excel reads as a date ('01/01/1900' is 1): `formulas`' VALUE, measured right on
    dates (not on times: '12:00' would be today's noon there, so a time stays #VALUE!)."""
    from rates_xl.calc.xlfuncs.bridge import bridged

    if ":" not in value:
        found = bridged("VALUE")(value)
        if isinstance(found, int | float) and not isinstance(found, bool):
            return float(found)
    raise fail("#VALUE!")


def given(value: EngineValue) -> bool:
    """Whether an optional argument was given (an empty cell is given: it reads as 0)."""
    return not (isinstance(value, str) and value == OMITTED)


def integer(value: EngineValue) -> int:
    found = number(value)
    if not math.isfinite(found) or abs(found) > 2**31:
        raise fail("#NUM!")
    return int(found)  # toward zero, as Excel truncates these


def boolean(value: EngineValue, default: bool) -> bool:
    if not given(value):
        return default
    value = scalar(value)
    if is_error(value):
        raise _Answer(value)
    if isinstance(value, str):
        upper = value.strip().upper()
        if upper in ("TRUE", "FALSE"):
            return upper == "TRUE"
    return number(value) != 0


def shown(rows: Rows) -> EngineValue:
    """An array result as the engine takes it: a single value alone, blanks as Excel spills
    them (0)."""
    if not rows or not rows[0]:
        return calc_error()
    out: Rows = [[0.0 if v is None else v for v in row] for row in rows]
    if len(out) == 1 and len(out[0]) == 1:
        return out[0][0]
    return out


def excel_function(scalars: tuple[int, ...] = ()) -> Callable[[ArrayFunction], ArrayFunction]:
    """A function of arrays as a callback: `_Answer` raised inside is the cell's answer; the
    arguments at positions `scalars` are lifted when given an array (module docstring)."""

    def wrap(func: ArrayFunction) -> ArrayFunction:
        def one(*args: EngineValue) -> EngineValue:
            try:
                return func(*args)
            except _Answer as answer:
                return answer.value

        def call(*args: EngineValue) -> EngineValue:
            lifted = [i for i in scalars if i < len(args) and is_array(args[i])]
            if not lifted:
                result = one(*args)
                return shown(result) if isinstance(result, list) else result
            shapes = [grid(args[i]) for i in lifted]
            height = max(len(g) for g in shapes)
            width = max(len(g[0]) for g in shapes)
            out: Rows = []
            for r in range(height):
                line: list[EngineScalar] = []
                for c in range(width):
                    picked = list(args)
                    for i, g in zip(lifted, shapes, strict=True):
                        picked[i] = _broadcast(g, r, c)
                    result = one(*picked)
                    line.append(result[0][0] if isinstance(result, list) else result)
                out.append(line)
            return shown(out)

        call.__name__ = func.__name__
        reads_omitted(call)
        return call

    return wrap


def _broadcast(rows: Rows, r: int, c: int) -> EngineScalar:
    ri = 0 if len(rows) == 1 else r
    ci = 0 if len(rows[0]) == 1 else c
    if ri >= len(rows) or ci >= len(rows[0]):
        return error("#N/A")
    return rows[ri][ci]


# -- stacking -------------------------------------------------------------------------------
@excel_function()
def VSTACK(*arrays: EngineValue) -> EngineValue:  # noqa: N802 - Excel's name
    grids = [grid(a) for a in arrays]
    width = max(len(g[0]) for g in grids)
    return [row + [error("#N/A")] * (width - len(row)) for g in grids for row in g]


@excel_function()
def HSTACK(*arrays: EngineValue) -> EngineValue:  # noqa: N802
    grids = [grid(a) for a in arrays]
    height = max(len(g) for g in grids)
    out: Rows = [[] for _ in range(height)]
    for g in grids:
        width = len(g[0])
        for r in range(height):
            out[r].extend(g[r] if r < len(g) else [error("#N/A")] * width)
    return out


# -- picking rows and columns ---------------------------------------------------------------
def _indexes(arguments: tuple[EngineValue, ...], size: int) -> list[int]:
    """CHOOSEROWS/CHOOSECOLS numbers (each a value or a row or column of them), 0-based."""
    if not arguments:
        raise fail("#VALUE!")
    picked = []
    for argument in arguments:
        rows = grid(argument)
        if len(rows) > 1 and len(rows[0]) > 1:
            raise fail("#VALUE!")  # a 2-D array of numbers
        for row in rows:
            for value in row:
                n = integer(value)
                if n == 0 or abs(n) > size:
                    raise fail("#VALUE!")
                picked.append(n - 1 if n > 0 else size + n)
    return picked


@excel_function()
def CHOOSEROWS(array: EngineValue, *numbers: EngineValue) -> EngineValue:  # noqa: N802
    rows = grid(array)
    return [list(rows[i]) for i in _indexes(numbers, len(rows))]


@excel_function()
def CHOOSECOLS(array: EngineValue, *numbers: EngineValue) -> EngineValue:  # noqa: N802
    rows = grid(array)
    picked = _indexes(numbers, len(rows[0]))
    return [[row[i] for i in picked] for row in rows]


def _span(count: EngineValue, size: int, take: bool) -> range:
    """The indexes TAKE (or DROP) keeps of `size` for a count (omitted: all of them); an
    empty result is #CALC! (Microsoft's TAKE page: "Excel returns a #CALC! error to indicate an
    empty array when either rows or columns is 0"; formulas_test.xlsx TAKE!U123, errorType 13),
    which the file stores as #VALUE!."""
    if not given(count):
        return range(size)
    n = integer(count)
    if take:
        kept = range(min(n, size)) if n >= 0 else range(max(size + n, 0), size)
    else:
        kept = range(min(n, size), size) if n >= 0 else range(max(size + n, 0))
    if not kept:
        raise _Answer(calc_error())
    return kept


@excel_function(scalars=(1, 2))
def TAKE(array: EngineValue, rows: EngineValue = OMITTED, columns: EngineValue = OMITTED) -> EngineValue:  # noqa: N802
    found = grid(array)
    if not given(rows) and not given(columns):
        raise fail("#VALUE!")
    keep_rows = _span(rows, len(found), True)
    keep_cols = _span(columns, len(found[0]), True)
    return [[found[r][c] for c in keep_cols] for r in keep_rows]


@excel_function(scalars=(1, 2))
def DROP(array: EngineValue, rows: EngineValue = OMITTED, columns: EngineValue = OMITTED) -> EngineValue:  # noqa: N802
    found = grid(array)
    if not given(rows) and not given(columns):
        raise fail("#VALUE!")
    keep_rows = _span(rows, len(found), False)
    keep_cols = _span(columns, len(found[0]), False)
    return [[found[r][c] for c in keep_cols] for r in keep_rows]


# -- reshaping ------------------------------------------------------------------------------
def _flat(array: EngineValue, ignore: EngineValue, by_column: EngineValue) -> list[EngineScalar]:
    rows = grid(array)
    mode = integer(ignore) if given(ignore) else 0
    if mode not in (0, 1, 2, 3):
        raise fail("#VALUE!")
    columnwise = boolean(by_column, False)
    if columnwise:
        values = [rows[r][c] for c in range(len(rows[0])) for r in range(len(rows))]
    else:
        values = [v for row in rows for v in row]
    if mode in (1, 3):
        values = [v for v in values if v is not None]
    if mode in (2, 3):
        values = [v for v in values if not is_error(v)]
    if not values:
        raise _Answer(calc_error())
    return values


@excel_function(scalars=(1, 2))
def TOCOL(array: EngineValue, ignore: EngineValue = OMITTED, scan_by_column: EngineValue = OMITTED) -> EngineValue:  # noqa: N802
    return [[v] for v in _flat(array, ignore, scan_by_column)]


@excel_function(scalars=(1, 2))
def TOROW(array: EngineValue, ignore: EngineValue = OMITTED, scan_by_column: EngineValue = OMITTED) -> EngineValue:  # noqa: N802
    return [_flat(array, ignore, scan_by_column)]


def _pad(pad_with: EngineValue) -> EngineScalar:
    if not given(pad_with):
        return error("#N/A")
    pad = scalar(pad_with)
    # An array here is lifted (excel_function's `scalars`) before it comes: one value is left.
    return error("#VALUE!") if isinstance(pad, list) else pad


@excel_function(scalars=(1, 2, 3))
def EXPAND(array: EngineValue, rows: EngineValue = OMITTED, columns: EngineValue = OMITTED, pad_with: EngineValue = OMITTED) -> EngineValue:  # noqa: N802
    found = grid(array)
    height = integer(rows) if given(rows) else len(found)
    width = integer(columns) if given(columns) else len(found[0])
    if height < len(found) or width < len(found[0]):
        raise fail("#VALUE!")
    if height > 1048576 or width > 16384:
        raise fail("#NUM!")
    pad = _pad(pad_with)
    out = [row + [pad] * (width - len(row)) for row in found]
    return out + [[pad] * width for _ in range(height - len(found))]


def _vector(array: EngineValue) -> list[EngineScalar]:

    rows = grid(array)
    if len(rows) > 1 and len(rows[0]) > 1:
        raise fail("#VALUE!")
    return [v for row in rows for v in row]


def _wrapped(vector: EngineValue, count: EngineValue, pad_with: EngineValue) -> list[list[EngineScalar]]:
    values = _vector(vector)
    n = integer(count)
    if n < 1:
        raise fail("#NUM!")
    pad = _pad(pad_with)
    chunks = [values[i:i + n] for i in range(0, len(values), n)]
    return [chunk + [pad] * (n - len(chunk)) for chunk in chunks]


@excel_function(scalars=(1, 2))
def WRAPROWS(vector: EngineValue, wrap_count: EngineValue, pad_with: EngineValue = OMITTED) -> EngineValue:  # noqa: N802
    return _wrapped(vector, wrap_count, pad_with)


@excel_function(scalars=(1, 2))
def WRAPCOLS(vector: EngineValue, wrap_count: EngineValue, pad_with: EngineValue = OMITTED) -> EngineValue:  # noqa: N802
    chunks = _wrapped(vector, wrap_count, pad_with)
    return [list(column) for column in zip(*chunks, strict=True)]


@excel_function(scalars=(0,))
def MUNIT(dimension: EngineValue) -> EngineValue:  # noqa: N802
    n = integer(dimension)
    if n < 1:
        raise fail("#VALUE!")
    if n > 16384:
        raise fail("#NUM!")
    return [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]


@excel_function()
def TRIMRANGE(range_: EngineValue, trim_rows: EngineValue = OMITTED, trim_cols: EngineValue = OMITTED) -> EngineValue:  # noqa: N802
    """The range without its blank edge rows and columns (3: both ends, 1: leading, 2:
    trailing, 0: none; another number, even 2.3, is #VALUE!). Nothing left is #REF!; a
    mode given as an array is #VALUE! in each place (formulas_test.xlsx)."""
    shapes = [grid(m) for m in (trim_rows, trim_cols) if is_array(m)]
    if shapes:
        height, width = max(len(g) for g in shapes), max(len(g[0]) for g in shapes)
        return [[error("#VALUE!")] * width for _ in range(height)]
    found = grid(range_)
    modes = []
    for mode in (trim_rows, trim_cols):
        n = number(mode) if given(mode) else 3.0
        if n not in (0, 1, 2, 3):
            raise fail("#VALUE!")
        modes.append(int(n))
    rows = _kept([any(v is not None for v in row) for row in found], modes[0])
    cols = _kept([any(row[c] is not None for row in found) for c in range(len(found[0]))], modes[1])
    if not rows or not cols:
        raise fail("#REF!")
    return [[found[r][c] for c in cols] for r in rows]


def _kept(filled: list[bool], mode: int) -> range:
    start, end = 0, len(filled)
    if mode in (1, 3):
        while start < end and not filled[start]:
            start += 1
    if mode in (2, 3):
        while end > start and not filled[end - 1]:
            end -= 1
    return range(start, end)


@excel_function()
def TYPE(value: EngineValue) -> EngineValue:  # noqa: N802
    """64 for an array or a range of several cells (formualizer: the first cell's type)."""
    if is_array(value):
        return 64.0
    value = scalar(value)
    if is_error(value):
        return 16.0
    if isinstance(value, bool):
        return 4.0
    if isinstance(value, str):
        return 2.0
    return 1.0  # a number, or an empty cell


#: Excel name -> callback (the factories `calc/xlfuncs/__init__.py` expects).
FUNCTIONS: dict[str, Factory] = {
    func.__name__: constant(func)
    for func in (VSTACK, HSTACK, CHOOSEROWS, CHOOSECOLS, TAKE, DROP, TOCOL, TOROW, EXPAND,
                 WRAPROWS, WRAPCOLS, MUNIT, TRIMRANGE, TYPE)
}
