"""SORT, SORTBY, UNIQUE and FILTER as Excel computes them (formulas_test.xlsx): formualizer
spills some results the wrong way round (a row sorted as a column), passes no error from
FILTER's include argument on, compares text with case, and does not lift UNIQUE's options.

Excel's order, ascending: numbers, then text (without regard to case), then FALSE, TRUE,
then errors by their ERROR.TYPE code (#NULL!, #DIV/0!, #VALUE!, #REF!, #NAME?, #NUM!, #N/A);
a blank sorts last either way. Sorting is stable. The shared
argument reading and lifting are `calc/xlfuncs/lookup/arrays.py`'s.
"""

from __future__ import annotations

import functools

from rates_xl.calc.engines.formualizer.values import error_text, is_error
from rates_xl.calc.xlfuncs.coercion import Factory
from rates_xl.calc.xlfuncs.lookup.arrays import (
    OMITTED,
    _Answer,
    boolean,
    calc_error,
    constant,
    excel_function,
    fail,
    given,
    grid,
    integer,
    scalar,
)
from rates_xl.calc.xlfuncs.types import EngineScalar, EngineValue, Rows, SortKey
from rates_xl.functions.values import ERROR_TYPE


def _rank(value: EngineScalar) -> SortKey:
    if value is None:
        return 4, 0
    if is_error(value):
        return 3, ERROR_TYPE.get(error_text(value), 8)
    if isinstance(value, bool):
        return 2, value
    if isinstance(value, int | float):
        return 0, float(value)
    return 1, str(value).casefold()


def _compare(a: EngineScalar, b: EngineScalar, order: int) -> int:
    """-1, 0 or 1: a before b in `order` (1 ascending, -1 descending); blanks last."""
    ka, kb = _rank(a), _rank(b)
    if ka == kb:
        return 0
    if ka[0] == 4 or kb[0] == 4:
        return 1 if ka[0] == 4 else -1
    return (-1 if ka < kb else 1) * order


def _orders(value: EngineValue) -> list[int]:
    found = []
    for row in grid(value):
        for item in row:
            n = integer(item)
            if n not in (1, -1):
                raise fail("#VALUE!")
            found.append(n)
    return found


def _sorted(lines: Rows, keys: list[tuple[list[EngineScalar], int]]) -> Rows:
    """`lines` in the order of `keys` (one value per line each, with its order); stable."""
    def cmp(i: int, j: int) -> int:
        for values, order in keys:
            found = _compare(values[i], values[j], order)
            if found:
                return found
        return 0

    index = sorted(range(len(lines)), key=functools.cmp_to_key(cmp))
    return [lines[i] for i in index]


def _transposed(rows: Rows) -> Rows:
    return [list(column) for column in zip(*rows, strict=True)]


@excel_function()
def SORT(array: EngineValue, sort_index: EngineValue = OMITTED, sort_order: EngineValue = OMITTED,  # noqa: N802 - Excel's name
         by_col: EngineValue = OMITTED) -> EngineValue:
    rows = grid(array)
    columns = boolean(by_col, False)
    lines = _transposed(rows) if columns else rows
    indexes = [1]
    if given(sort_index):
        found = grid(sort_index)
        if len(found) > 1 and len(found[0]) > 1:
            raise fail("#VALUE!")
        indexes = [integer(v) for line in found for v in line]
    orders = _orders(sort_order) if given(sort_order) else [1]
    if len(orders) > len(indexes):
        raise fail("#VALUE!")
    orders += [orders[-1] if len(orders) == 1 else 1] * (len(indexes) - len(orders))
    width = len(lines[0])
    if any(i < 1 or i > width for i in indexes):
        raise fail("#VALUE!")
    keys = [([line[i - 1] for line in lines], order) for i, order in zip(indexes, orders, strict=True)]
    out = _sorted(lines, keys)
    return _transposed(out) if columns else out


@excel_function()
def SORTBY(array: EngineValue, *pairs: EngineValue) -> EngineValue:  # noqa: N802
    """Each `by` array is one column as tall as the array (rows are sorted) or one row as wide
    (columns are sorted), all of them the same way; anything else is #VALUE!."""
    rows = grid(array)
    if not pairs:
        raise fail("#VALUE!")
    keys: list[tuple[list[EngineScalar], int]] = []
    by_columns = None
    for k in range(0, len(pairs), 2):
        by = grid(pairs[k])
        order = _orders(pairs[k + 1]) if k + 1 < len(pairs) and given(pairs[k + 1]) else [1]
        if len(order) != 1:
            raise fail("#VALUE!")
        if len(by[0]) == 1 and len(by) == len(rows) and by_columns is not True:
            by_columns, values = False, [line[0] for line in by]
        elif len(by) == 1 and len(by[0]) == len(rows[0]) and by_columns is not False:
            by_columns, values = True, list(by[0])
        else:
            raise fail("#VALUE!")
        keys.append((values, order[0]))
    if by_columns:
        return _transposed(_sorted(_transposed(rows), keys))
    return _sorted(rows, keys)


def _same_key(line: list[EngineScalar]) -> tuple[SortKey, ...]:
    return tuple(_rank(v) for v in line)


@excel_function(scalars=(1, 2))
def UNIQUE(array: EngineValue, by_col: EngineValue = OMITTED, exactly_once: EngineValue = OMITTED) -> EngineValue:  # noqa: N802
    rows = grid(array)
    columns = boolean(by_col, False)
    once = boolean(exactly_once, False)
    lines = _transposed(rows) if columns else rows
    counts: dict[tuple[SortKey, ...], int] = {}
    first: dict[tuple[SortKey, ...], list[EngineScalar]] = {}
    for line in lines:
        key = _same_key(line)
        counts[key] = counts.get(key, 0) + 1
        first.setdefault(key, line)
    out = [line for key, line in first.items() if not once or counts[key] == 1]
    if not out:
        raise _Answer(calc_error())
    return _transposed(out) if columns else out


def _kept(value: EngineValue) -> bool:
    if is_error(value):
        raise _Answer(value)
    if value is None:
        return False
    if isinstance(value, bool | int | float):
        return bool(value)
    raise fail("#VALUE!")


@excel_function()
def FILTER(array: EngineValue, include: EngineValue, if_empty: EngineValue = OMITTED) -> EngineValue:  # noqa: N802
    """Rows kept by a column `include` as tall as the array, or columns by a row as wide."""
    rows = grid(array)
    mask = grid(include)
    if len(mask[0]) == 1 and len(mask) == len(rows):
        keep = [_kept(line[0]) for line in mask]
        out = [line for line, kept in zip(rows, keep, strict=True) if kept]
    elif len(mask) == 1 and len(mask[0]) == len(rows[0]):
        keep = [_kept(v) for v in mask[0]]
        out = [[v for v, kept in zip(line, keep, strict=True) if kept] for line in rows]
        out = out if out and out[0] else []
    else:
        raise fail("#VALUE!")
    if not out:
        if given(if_empty):
            found = scalar(if_empty)  # an array, or one value
            return grid(found) if isinstance(found, list) else [[found]]
        raise _Answer(calc_error())
    return out


#: Excel name -> callback (the factories `calc/xlfuncs/__init__.py` expects).
FUNCTIONS: dict[str, Factory] = {
    func.__name__: constant(func) for func in (SORT, SORTBY, UNIQUE, FILTER)
}
