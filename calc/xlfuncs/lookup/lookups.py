"""XLOOKUP and XMATCH as Excel computes them: every match mode (exact, next smaller, next
larger, wildcards, regular expressions) and search mode (first to last, last to first,
binary ascending and descending), an error as the lookup value passed through, errors in
the lookup array skipped; an array of lookup values or of modes lifted (one answer each). formualizer answers #N/A for the next-smaller / next-larger modes over binary
searches and for several mixed-type arrays (ironcalc_XLOOKUP.xlsx, formulas_test.xlsx).

Excel orders values by type first (numbers < text < booleans), text without regard to case;
a linear next-smaller / next-larger search compares across types in that order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from rates_xl.calc.engines.formualizer.values import EngineError, error, is_error
from rates_xl.calc.xlfuncs.coercion import Callback, Facts, _element, number_text
from rates_xl.calc.xlfuncs.types import Answer, EngineScalar, EngineValue, SortKey


def _rank(value: EngineValue) -> int:
    if isinstance(value, bool):
        return 2
    if isinstance(value, int | float):
        return 0
    return 1


def _key(value: EngineScalar) -> SortKey:
    if value is None:
        value = 0.0  # an empty cell is compared as 0 by the binary searches
    if isinstance(value, bool | int | float):
        return _rank(value), float(value)
    return 1, str(value).casefold()  # Excel: "ß" matches "ss"


def _vector(array: EngineValue) -> tuple[list[EngineScalar], bool] | None:
    """A 1-D lookup array's values and whether it is a row; None for a 2-D one."""
    if not isinstance(array, list):
        return [array], True
    if len(array) == 1:
        return list(array[0]), True
    if all(len(row) == 1 for row in array):
        return [row[0] for row in array], False
    return None


def _wildcard(pattern: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "~" and i + 1 < len(pattern) and pattern[i + 1] in "*?~":
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if ch == "*" else "." if ch == "?" else re.escape(ch))
        i += 1
    return re.compile("".join(out), re.IGNORECASE | re.DOTALL)


#: An empty lookup value in a next-smaller / next-larger search: above every value, in the
#: linear and the binary searches alike (formulas_test.xlsx LOOKUP rows 162-197).
_ABOVE_ALL = (3, 0.0)


def position(value: EngineScalar, values: list[EngineScalar], match_mode: int, search_mode: int) -> int | None:
    """The 0-based index Excel's XMATCH finds, or None (#N/A)."""
    if value is None:
        if match_mode == 0 and search_mode in (1, -1):  # an empty value finds an empty cell
            order = range(len(values)) if search_mode == 1 else range(len(values) - 1, -1, -1)
            return next((i for i in order if values[i] is None or values[i] == ""), None)
        if match_mode in (-1, 1):
            if search_mode in (2, -2):
                return _binary(_ABOVE_ALL, values, match_mode, search_mode)
            return _linear_nearest(_ABOVE_ALL, values, match_mode, search_mode)
        value = 0.0  # elsewhere it is read as 0
    target = _key(value)
    if search_mode in (2, -2):
        return _binary(target, values, match_mode, search_mode)
    order = range(len(values)) if search_mode == 1 else range(len(values) - 1, -1, -1)
    if match_mode == 2 and isinstance(value, str):
        pattern = _wildcard(value)
        # Without a wildcard the pattern matches only text as long as the value (re's
        # IGNORECASE folds one character to one): the length check skips most cells cheaply.
        size = None if any(c in value for c in "*?~") else len(value)
        for i in order:
            v = values[i]
            if isinstance(v, str) and (size is None or len(v) == size) and pattern.fullmatch(v):
                return i
        return None
    if match_mode in (-1, 1):
        return _linear_nearest(target, values, match_mode, search_mode)
    if target[0] == 0:  # a number: equal numbers only (what `_key` compares, without building keys)
        wanted = target[1]
        for i in order:
            v = values[i]
            if (type(v) is float or type(v) is int) and v == wanted:
                return i
        return None
    for i in order:
        v = values[i]
        if v is not None and not is_error(v) and _key(v) == target:
            return i
    return None


def _linear_nearest(target: SortKey, values: list[EngineScalar], match_mode: int, search_mode: int) -> int | None:
    """Exact, else the next smaller (-1) or larger (1) value in Excel's order across types
    (numbers < text < booleans: XMATCH("b", {1,4.1}, -1) finds 4.1); an empty lookup value
    is above every value (formulas_test.xlsx, XMATCH rows 171-197)."""
    order = range(len(values)) if search_mode == 1 else range(len(values) - 1, -1, -1)
    best = None
    for i in order:
        v = values[i]
        if v is None or is_error(v):
            continue
        key = _key(v)
        if key == target:
            return i
        if match_mode == -1 and key < target and (best is None or key > _key(values[best])):
            best = i
        elif match_mode == 1 and key > target and (best is None or key < _key(values[best])):
            best = i
    return best


def _binary(target: SortKey, values: list[EngineScalar], match_mode: int, search_mode: int) -> int | None:
    """Excel's bisection over the values as they stand (ascending for 2, descending for -2,
    sorted or not): the middle of the bounds is probed and the bounds close on the side the
    order says; an equal value is kept and the search goes on towards the start (ascending:
    the first of equal values) or the end (descending: the last), as ironcalc_XLOOKUP.xlsx's
    MultipleElements sheet shows. Without one, the next smaller / larger value is the
    neighbour where the bounds met. Its answers on unsorted and mixed-type arrays are
    formulas_test.xlsx's (XLOOKUP(2.1,{-1.1,2.1,3.1,4.1},...,-1,-2) finds 2.1: the first
    probe hits it). A blank or an error sends the search towards the start."""
    descending = search_mode == -2
    keys: list[SortKey | None] = [None if (v is None or is_error(v)) else _key(v) for v in values]
    if target == _ABOVE_ALL:  # an empty lookup value: a blank cell is equal to it (ironcalc_XLOOKUP Errors!N1)
        keys = [_ABOVE_ALL if v is None else k for v, k in zip(values, keys, strict=True)]
    lo, hi, found = 0, len(values) - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        key = keys[mid]
        if key == target:
            found = mid
            if descending:
                lo = mid + 1
            else:
                hi = mid - 1
        elif key is not None and (key > target if descending else key < target):
            lo = mid + 1
        else:
            hi = mid - 1
    if found is not None:
        return found
    # The values before `lo` come before the target in the search's order, those after `hi` after it.
    smaller, larger = (lo, hi) if descending else (hi, lo)
    pick = smaller if match_mode == -1 else larger if match_mode == 1 else None
    if pick is not None and 0 <= pick < len(values) and keys[pick] is not None:
        return pick
    return None


def _int(value: EngineValue, default: int) -> int | EngineError:
    if value is None:
        return default
    if is_error(value):
        return value
    if not isinstance(value, bool | int | float | str):
        return error("#VALUE!")  # an array, a date: float() refuses them
    try:
        return math.floor(float(value))  # Excel's INT: a mode of -1.1 is -2 (formulas_test LOOKUP!AH162)
    except (ValueError, OverflowError):
        return error("#VALUE!")


def _lifted(call: Callable[..., EngineValue], args: list[EngineValue], lifted: tuple[int, ...]) -> Answer:
    """`call(*args)`, or, when an argument at a `lifted` position is an array, `call` on each
    element as Excel lifts a function of single values (arrays read to the largest, a row
    repeated down, a column across, #N/A beyond a smaller one)."""
    arrays = [a for i in lifted if isinstance(a := args[i], list)]
    if not arrays:
        return call(*args)
    rows = max(len(a) for a in arrays)
    cols = max(len(r) for a in arrays for r in a)
    out: list[list[EngineValue]] = []
    for r in range(rows):
        line: list[EngineValue] = []
        for c in range(cols):
            picked = [(_element(a, r, c) if i in lifted else a) for i, a in enumerate(args)]
            line.append(call(*picked))
        out.append(line)
    return out


def _find(lookup_value: EngineScalar, values: list[EngineScalar], match_mode: EngineValue,
          search_mode: EngineValue) -> int | None | EngineError:
    """The 0-based index XMATCH finds for one lookup value, None (#N/A), or an error. The
    modes are read first (an error there is the answer: the #N/A a lifted legacy array
    formula's range shows beyond a shorter array of modes, formulas_test.xlsx LOOKUP!AP170),
    then the lookup value's own error, whatever the modes are (LOOKUP!AQ167), then modes out
    of range (#VALUE!)."""
    mode, search = _int(match_mode, 0), _int(search_mode, 1)
    if is_error(mode):
        return mode
    if is_error(search):
        return search
    if is_error(lookup_value):
        return lookup_value
    if mode not in (-1, 0, 1, 2, 3) or search not in (1, -1, 2, -2) or (mode in (2, 3) and search in (2, -2)):
        return error("#VALUE!")  # wildcards and patterns cannot be bisected
    if mode == 3:
        return _regex(lookup_value, values, search)
    return position(lookup_value, values, mode, search)


def _regex(pattern: EngineScalar, values: list[EngineScalar], search_mode: int) -> int | None | EngineError:
    """Match mode 3 (Excel 365): the first text value any part of which the pattern matches,
    case-sensitive, as REGEXTEST reads it (calc/xlfuncs/text/regex.py); a number is read as its
    text (IronCalc's Excel-made XMATCH.xlsx B14: #N/A, not found); #VALUE! for a logical value
    or a pattern that does not compile."""
    if isinstance(pattern, int | float) and not isinstance(pattern, bool):
        pattern = number_text(pattern)  # (a number is its text: XMATCH(42,{"apple";"bannana"},3) is #N/A)
    if not isinstance(pattern, str):
        return error("#VALUE!")
    try:
        compiled = re.compile(pattern)
    except re.error:
        return error("#VALUE!")
    order = range(len(values)) if search_mode == 1 else range(len(values) - 1, -1, -1)
    return next((i for i in order if isinstance(v := values[i], str) and compiled.search(v)), None)


def xmatch(_facts: Facts) -> Callback:
    def XMATCH(lookup_value: EngineValue, lookup_array: EngineValue, match_mode: EngineValue = None,  # noqa: N802
               search_mode: EngineValue = None) -> Answer:
        vector = _vector(lookup_array)
        if vector is None:
            return error("#VALUE!")
        values = vector[0]

        def one(value: EngineScalar, mode: EngineScalar, search: EngineScalar) -> EngineValue:
            found = _find(value, values, mode, search)
            if isinstance(found, dict):
                return found
            return error("#N/A") if found is None else found + 1

        return _lifted(one, [lookup_value, match_mode, search_mode], (0, 1, 2))
    return XMATCH


def xlookup(_facts: Facts) -> Callback:
    def XLOOKUP(lookup_value: EngineValue, lookup_array: EngineValue, return_array: EngineValue, if_not_found: EngineValue = None,  # noqa: N802
                match_mode: EngineValue = None, search_mode: EngineValue = None) -> Answer:
        vector = _vector(lookup_array)
        if vector is None:
            return error("#VALUE!")
        values, is_row = vector
        rows = return_array if isinstance(return_array, list) else [[return_array]]
        if (len(rows[0]) if is_row else len(rows)) != len(values):
            return error("#VALUE!")
        lifting = any(isinstance(a, list) for a in (lookup_value, match_mode, search_mode))

        def one(value: EngineScalar, mode: EngineScalar, search: EngineScalar) -> EngineValue:
            index = _find(value, values, mode, search)
            if isinstance(index, dict):
                return index
            if index is None:
                if if_not_found is None:
                    return error("#N/A")
                if lifting and isinstance(if_not_found, list):
                    return error("#VALUE!")  # an array in one element of an array: not handled
                return if_not_found
            picked = [[row[index]] for row in rows] if is_row else [rows[index]]
            if len(picked) == 1 and len(picked[0]) == 1:
                return 0.0 if picked[0][0] is None else picked[0][0]
            if lifting:
                return error("#VALUE!")  # a row of results for one of several lookup values
            return [[0.0 if v is None else v for v in row] for row in picked]

        return _lifted(one, [lookup_value, match_mode, search_mode], (0, 1, 2))
    return XLOOKUP



# -- LOOKUP: Excel's approximate (binary) search over mixed types -------------------------------
def approximate(value: EngineScalar, values: list[EngineScalar]) -> int | None:
    """The index Excel's LOOKUP finds for `value`: the last value of the same type not larger
    than it, by Excel's bisection (its answer on unsorted data too). Values of another type
    (and blanks, errors) are stepped over: from a middle one of another type the search looks
    right, then left, within the bounds for one of the lookup value's type; an equal value
    ends the search, at the last of the equal values after it. Worked out on formulas_test.xlsx's
    LOOKUP rows (every mixed-type case) and IronCalc's MATCH.xlsx (a run of equal values)."""
    if value is None:
        value = 0.0
    target = _key(value)
    lo, hi, best = 0, len(values) - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        index = next((i for i in range(mid, hi + 1) if _same_type(values[i], target)), None)
        if index is None:
            index = next((i for i in range(mid - 1, lo - 1, -1) if _same_type(values[i], target)), None)
        if index is None:
            break
        key = _key(values[index])
        if key == target:
            # the last of a run of equal values (IronCalc's Excel-made MATCH.xlsx C7:
            # MATCH("delta", {Alpha,Beta,Delta,Delta,Gamma,Omega}) is 4; the search found the 3rd)
            while index + 1 < len(values) and _same_type(values[index + 1], target) and \
                    _key(values[index + 1]) == target:
                index += 1
            return index
        if key < target:
            best, lo = index, index + 1
        else:
            hi = min(mid, index) - 1
    return best


def _same_type(value: EngineScalar, target: SortKey) -> bool:
    return value is not None and not is_error(value) and _rank(value) == target[0]


def lookup(_facts: Facts) -> Callback:
    def LOOKUP(lookup_value: EngineValue, lookup_vector: EngineValue, result_vector: EngineValue = None) -> EngineValue:  # noqa: N802
        if isinstance(lookup_value, list):
            return [[one(v, lookup_vector, result_vector) for v in row] for row in lookup_value]
        return one(lookup_value, lookup_vector, result_vector)

    def one(lookup_value: EngineScalar, lookup_vector: EngineValue, result_vector: EngineValue) -> EngineScalar:
        if is_error(lookup_value):
            return lookup_value
        rows = lookup_vector if isinstance(lookup_vector, list) else [[lookup_vector]]
        if result_vector is None and len(rows) > 1 and len(rows[0]) > 1:
            # The array form: the first row (wider than tall) or column, the last one answers.
            if len(rows[0]) > len(rows):
                searched, answers = list(rows[0]), list(rows[-1])
            else:
                searched, answers = [r[0] for r in rows], [r[-1] for r in rows]
        else:
            vector = _vector(rows)
            if vector is None and len(rows) > len(rows[0]):
                # A taller range given as the vector, with a result vector: its first column is
                # searched (pycel's Excel-made lookup.xlsx, Lookup!C28:G30: `LOOKUP(C$3,
                # $B$5:$C$9,$D$5:$D$9)` finds C3 in B5:B9). A wider or square one: no cell of
                # Excel's shows which line it searches, so the answer is not known here (#NAME?,
                # listed by the check against Excel's values, as ets.py's unknown fits).
                vector = [r[0] for r in rows], False
            if vector is None:
                return error("#NAME?")
            searched = vector[0]
            answers = searched
            if result_vector is not None:
                result = _vector(result_vector if isinstance(result_vector, list) else [[result_vector]])
                if result is None:
                    return error("#N/A")
                answers = result[0]
        index = approximate(lookup_value, searched)
        if index is None or index >= len(answers):
            return error("#N/A")
        found = answers[index]
        return 0.0 if found is None else found
    return LOOKUP


def _exact(value: EngineScalar, values: list[EngineScalar]) -> int | None:
    """Exact match, text without case and with wildcards (MATCH 0, VLOOKUP FALSE); an empty
    lookup value is 0 (it does not find an empty text)."""
    if value is None:
        value = 0.0
    return position(value, values, 2 if isinstance(value, str) else 0, 1)


def descending(value: EngineScalar, values: list[EngineScalar]) -> int | None:
    """MATCH's -1: values of the lookup value's type are read from the first while they are
    not smaller than it; the last of them is the answer (formulas_test.xlsx, every case of
    rows 83-91: unsorted and mixed-type arrays included)."""
    target = _key(0.0 if value is None else value)
    best = None
    for i, v in enumerate(values):
        if not _same_type(v, target):
            continue
        key = _key(v)
        if key < target:
            break
        best = i
    return best


def _truthy(value: EngineValue, default: bool) -> bool | EngineError:
    if value is None:
        return default
    if is_error(value):
        return value
    if isinstance(value, str):
        upper = value.strip().upper()
        if upper in ("TRUE", "FALSE"):
            return upper == "TRUE"
        try:
            return float(upper) != 0
        except ValueError:
            return error("#VALUE!")
    return bool(value)


def match(_facts: Facts) -> Callback:
    def MATCH(lookup_value: EngineValue, lookup_array: EngineValue, match_type: EngineValue = None) -> EngineValue:  # noqa: N802
        if isinstance(lookup_value, list):
            return [[one(v, lookup_array, match_type) for v in row] for row in lookup_value]
        return one(lookup_value, lookup_array, match_type)

    def one(lookup_value: EngineScalar, lookup_array: EngineValue, match_type: EngineValue) -> EngineScalar:
        if is_error(lookup_value):
            return lookup_value
        kind = _int(match_type, 1)
        if is_error(kind):
            return kind
        vector = _vector(lookup_array)
        if vector is None:
            return error("#N/A")
        values = vector[0]
        if kind == 0:
            found = _exact(lookup_value, values)
        else:
            found = descending(lookup_value, values) if kind < 0 else approximate(lookup_value, values)
        return error("#N/A") if found is None else found + 1
    return MATCH


class Scanned:
    """A VLOOKUP's table as its search reads it, for one call: its rows (HLOOKUP: its columns),
    searched through their first values. calc/xlfuncs/lookup/tables.py `Indexed` is the same
    for a table many calls search (built once, an index for the exact match)."""

    def __init__(self, table: EngineValue, by_rows: bool) -> None:
        rows = table if isinstance(table, list) else [[table]]
        self.lines: list[list[EngineScalar]] = rows if by_rows else [list(column) for column in zip(*rows, strict=True)]

    def exact(self, value: EngineScalar) -> int | None:
        return _exact(value, [line[0] for line in self.lines])

    def approximate(self, value: EngineScalar) -> int | None:
        return approximate(value, [line[0] for line in self.lines])


def table_lookup(searched: Callable[[EngineValue], Scanned]) -> Callback:
    """VLOOKUP (HLOOKUP) over the table `searched` makes of the argument it is given: the table
    itself (`Scanned`), or what stands for a shared one (calc/engines/formualizer/lookups.py)."""
    def TABLE_LOOKUP(lookup_value: EngineValue, table: EngineValue, index: EngineValue, range_lookup: EngineValue = None) -> EngineValue:  # noqa: N802
        if isinstance(lookup_value, list):
            if isinstance(index, list):
                return error("#VALUE!")  # arrays in both: not handled here (stale if Excel differs)
            return [[one(v, table, index, range_lookup) for v in row] for row in lookup_value]
        if isinstance(index, list):  # an array of column (row) numbers: one value each
            return [[one(lookup_value, table, i, range_lookup) for i in row] for row in index]
        return one(lookup_value, table, index, range_lookup)

    def one(lookup_value: EngineScalar, table: EngineValue, index: EngineScalar, range_lookup: EngineValue) -> EngineScalar:
        if is_error(lookup_value):
            return lookup_value
        if is_error(table):  # (a text given for the table is #VALUE! here: calc/formula/arguments.py lookup_constants)
            return table
        n = _int(index, 0)
        if is_error(n):
            return n
        approximate_match = _truthy(range_lookup, True)
        if is_error(approximate_match):
            return approximate_match
        keyed = searched(table)
        lines = keyed.lines
        if n < 1:
            return error("#VALUE!")
        if n > len(lines[0]):
            return error("#REF!")
        found = keyed.approximate(lookup_value) if approximate_match else keyed.exact(lookup_value)
        if found is None:
            return error("#N/A")
        value = lines[found][n - 1]
        return 0.0 if value is None else value
    return TABLE_LOOKUP


def vlookup(_facts: Facts) -> Callback:
    call = table_lookup(lambda table: Scanned(table, by_rows=True))
    call.__name__ = "VLOOKUP"
    return call


def hlookup(_facts: Facts) -> Callback:
    call = table_lookup(lambda table: Scanned(table, by_rows=False))
    call.__name__ = "HLOOKUP"
    return call
