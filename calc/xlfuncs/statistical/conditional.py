"""SUMIF(S), AVERAGEIF(S), COUNTIF(S), MAXIFS and MINIFS as Excel computes them: an error in
a summed cell of a matching row is the answer (formualizer skips it and answers a number,
ironcalc_SUMIFS.xlsx and formulas_test.xlsx); criteria as Excel reads them (an operator, a
number, a boolean, text with wildcards, none of it case-sensitive; "" for a blank cell or
empty text, "=" for a blank cell only, "<>" for any cell not blank, empty text included, "<>v"
for every cell "v" does not match)."""

from __future__ import annotations

import itertools
import math
import operator
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

from rates_xl.calc.engines.formualizer.values import TEXT_KIND, EngineError, error, is_error
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Factory, Facts
from rates_xl.calc.xlfuncs.lookup.lookups import _wildcard
from rates_xl.calc.xlfuncs.types import EngineScalar, EngineValue

if TYPE_CHECKING:  # numpy is imported by the first criterion (0.07 CPU s a book without one never pays)
    import numpy as np
    from numpy.typing import NDArray

_OPERATOR = re.compile(r"^(<=|>=|<>|<|>|=)?(.*)$", re.DOTALL)
#: The answer that lists a cell as not computed (the check names the cell: calc/results.py).
NOT_COMPUTED = "#NAME?"

#: What a criterion compares a cell with (`_parse`): an error's kind, a number, a boolean,
#: folded text, a wildcard's compiled pattern, or nothing (a blank).
Operand: TypeAlias = str | float | bool | re.Pattern[str] | None
#: A value a comparison reads of a cell, of the criterion's type.
Comparable: TypeAlias = str | float | bool
#: A predicate over one cell's value.
Predicate: TypeAlias = Callable[[EngineScalar], bool]
#: A range and its criterion.
Pair: TypeAlias = tuple[EngineValue, EngineValue]


def _number(text: str) -> float | None:
    try:
        return float(text.strip()) if text.strip() else None
    except ValueError:
        return None


def _read_number(text: str) -> float | str | None:
    """Text Excel reads as a number in a criterion though `float` does not: a date written
    year-month-day, a time, a percentage, a number in parentheses or with a fraction (as VALUE
    reads them: calc/xlfuncs/text/number_text.py); NOT_COMPUTED where that reading depends on
    the locale of the Excel that computed the book ("1/5/2024", "$5", "1,000"); None for text
    that holds no number. COUNTIF(A:A,"<2024-01-05") counts every number below 45296, dates or
    not, in Excel; it compared text with text here, and counted none of them, silently."""
    if not any(c.isdigit() for c in text):
        return None
    from rates_xl.calc.xlfuncs.text import number_text

    read = number_text.number(text.strip())
    return read if isinstance(read, float) or read == number_text.NOT_COMPUTED else None


#: Text as the criteria compare it, case aside. Not `casefold`, which makes "ß" "ss": Excel's
#: older functions tell them apart (formulas_test.xlsx EXTRA!L74: MATCH("ß",{..,"ss",..},0) is
#: #N/A), as formualizer's COUNTIF does; only XMATCH/XLOOKUP equate them (EXTRA!L75). The
#: method itself, not a function calling it: it runs once per cell of a criteria range.
_fold = str.lower


def _parse(value: EngineValue, numbers: bool = True) -> tuple[str, str, Operand]:
    """A criterion as (kind, operator, operand); kind is "error", "empty" (a blank cell or
    empty text), "blank" (a blank cell), "nothing" (no cell), "bool", "number", "text" (no
    wildcard), "wildcard" (operand: the compiled pattern) or "unsure" (a number whose reading
    depends on the locale: `_read_number`; `numbers` False: read as text, `_rows` says when).

    With nothing after the operator, "" and "=" differ and "<>" counts empty text: three
    readings that agree (Apache POI's Countif, from Excel: "criteria '=' behaves differently
    to criteria ''"; LibreOffice; formualizer's COUNTIF), where ours had "=" as "" and "<>"
    skipping empty text, so SUMIFS(B:B,A:A,"<>") left out the rows whose A is a formula's ""."""
    if is_error(value):
        return "error", "=", value.get("kind")
    if value is None:
        value = 0.0  # an empty criterion cell is read as 0... unless typed ""
    if isinstance(value, bool) or isinstance(value, int | float):
        return ("bool" if isinstance(value, bool) else "number"), "=", value
    matched = _OPERATOR.match(str(value))  # it reads any text (the operator is optional)
    op, rest = matched.groups() if matched is not None else (None, str(value))
    if rest == "":
        if op is None:
            return "empty", "=", None
        if op in ("=", "<>"):
            return "blank", op, None
        # "<", "<=", ">" and ">=" with nothing after match no cell, text, number or blank
        # (Excel 16's answers, cached in IronCalc's xlsx/tests/calc_tests/STATISTICAL__COUNTIF.xlsx:
        # Columns!J6 ">=" and J10 ">" over 23, "23", TRUE, "hey" ... are 0, Rows!I9:L16 over
        # blanks and a formula's "" too). LibreOffice and POI read ">" as any text after "".
        return "nothing", op, None
    if op in (None, "=") and rest.upper() in TEXT_KIND:
        # An error's name as text matches that error, not that text (Excel 16's answers, cached
        # in IronCalc's STATISTICAL__COUNTIF.xlsx: Columns!I20, "#N/A" over a #N/A, is 1; J20,
        # "#DIV/0!" over the text "#DIV/0!" and two =1/0, is 2; D27, "#N/A" over a #N/A and the
        # text "#N/A", is 1). "<>#N/A" stays text, as Columns!D28 (6 of 7) shows.
        return "error", "=", TEXT_KIND[rest.upper()]
    op = op or "="
    upper = rest.strip().upper()
    if upper in ("TRUE", "FALSE"):
        return "bool", op, upper == "TRUE"
    if (num := _number(rest)) is not None:
        return "number", op, num
    if numbers and (read := _read_number(rest)) is not None:
        return ("number", op, read) if isinstance(read, float) else ("unsure", op, None)
    if op in ("=", "<>") and any(c in rest for c in "*?~"):
        return "wildcard", op, _wildcard(rest)
    return "text", op, _fold(rest)


def criterion(value: EngineValue) -> Predicate:
    """A predicate over one cell's value for one criterion: the definition, cell by cell
    (`mask` computes the same over a whole range at once)."""
    kind, op, operand = _parse(value)
    if kind == "unsure":
        raise ExcelError(NOT_COMPUTED)
    if kind == "nothing":
        return lambda cell: False
    if kind == "error":
        return lambda cell: is_error(cell) and cell.get("kind") == operand
    if kind == "empty":
        return lambda cell: cell is None or cell == ""
    if kind == "blank":
        return (lambda cell: cell is None) if op == "=" else (lambda cell: cell is not None)
    if kind == "bool" and isinstance(operand, bool):
        return _compare(op, lambda cell: cell if isinstance(cell, bool) else None, operand)
    if kind == "number" and isinstance(operand, int | float):
        def numeric(cell: EngineScalar) -> float | None:
            if isinstance(cell, int | float) and not isinstance(cell, bool):
                return cell
            if isinstance(cell, str) and op == "=":  # (`_float`)
                return _text_number(cell)
            return None
        return _compare(op, numeric, float(operand))
    if kind == "wildcard" and isinstance(operand, re.Pattern):
        pattern = operand
        if op == "=":
            return lambda cell: isinstance(cell, str) and bool(pattern.fullmatch(cell))
        return lambda cell: not (isinstance(cell, str) and bool(pattern.fullmatch(cell)))
    if op == "=":
        return lambda cell: isinstance(cell, str) and _fold(cell) == operand
    if op == "<>":
        return lambda cell: not (isinstance(cell, str) and _fold(cell) == operand)
    if not isinstance(operand, str):
        raise TypeError(f"a {kind} criterion reads {operand!r}")  # _parse answers none such
    return _compare(op, lambda cell: _fold(cell) if isinstance(cell, str) else None, operand)


_OPERATORS = {"=": operator.eq, "<>": operator.ne, "<": operator.lt, ">": operator.gt,
              "<=": operator.le, ">=": operator.ge}


def _compare(op: str, read: Callable[[EngineScalar], Comparable | None], operand: Comparable) -> Predicate:
    """A cell against `operand` by `op`: `read` gives the cell's value of the operand's type
    (None: another type, which only "<>" counts)."""
    compare, other_types = _OPERATORS[op], op == "<>"

    def test(cell: EngineScalar) -> bool:
        value = read(cell)
        if value is None:
            return other_types
        return bool(compare(value, operand))
    return test


def mask(cells: list[EngineScalar], value: EngineValue, numbers: bool = True) -> NDArray[np.bool_]:
    """`criterion(value)` applied to every cell of a (flattened) range at once, as a boolean
    array: the per-cell function call was most of a SUMIF's cost (1 ms over 500 rows; a
    book with 639 of them spent 0.65 s of CPU there). Numbers are compared with numpy; text
    with one comprehension (case folding has no numpy equivalent)."""
    import numpy as np

    kind, op, operand = _parse(value, numbers)
    if kind == "unsure":
        raise ExcelError(NOT_COMPUTED)
    n = len(cells)
    if kind == "nothing":
        return np.zeros(n, bool)
    if kind == "error":
        return np.fromiter((type(c) is dict and c.get("type") == "Error" and c.get("kind") == operand
                            for c in cells), bool, n)
    if kind == "empty":
        return np.fromiter((c is None or c == "" for c in cells), bool, n)
    if kind == "blank":
        blank = np.fromiter((c is None for c in cells), bool, n)
        return blank if op == "=" else ~blank
    compare = _OPERATORS[op]
    if kind in ("bool", "number") and isinstance(operand, bool | int | float):
        if kind == "bool":
            same = np.fromiter((type(c) is bool for c in cells), bool, n)
            values = np.fromiter((c is True for c in cells), bool, n)
        else:
            values = np.fromiter((_float(c, op) for c in cells), float, n)
            same = ~np.isnan(values)
        hits = same & compare(values, operand)
        return hits | ~same if op == "<>" else hits
    if kind == "wildcard" and isinstance(operand, re.Pattern):
        pattern = operand
        hits = np.fromiter((type(c) is str and pattern.fullmatch(c) is not None for c in cells), bool, n)
    elif op in ("=", "<>") and isinstance(operand, str):
        positions = _text_positions(cells)
        if positions is None:
            hits = np.fromiter((type(c) is str and _fold(c) == operand for c in cells), bool, n)
        else:
            hits = np.zeros(n, bool)
            if operand in positions:
                hits[positions[operand]] = True
    elif isinstance(operand, str):
        return np.fromiter((type(c) is str and compare(_fold(c), operand) for c in cells), np.bool_, n)
    else:
        raise TypeError(f"a {kind} criterion reads {operand!r}")  # _parse answers none such
    return ~hits if op == "<>" else hits


_TEXT_INDEX: dict[tuple[EngineScalar, ...], dict[str, NDArray[np.intp]]] = {}


def _text_positions(cells: list[EngineScalar]) -> dict[str, NDArray[np.intp]] | None:
    """Casefolded text -> its positions in `cells`, kept for the last ranges seen: a book
    asks SUMIF(C1:C500, C8, ...) with another criterion in each of hundreds of cells (the
    12,000-formula book: 639), and folding the whole range's case each time was most of a call.
    None for a range holding an error (not hashable)."""
    import numpy as np

    try:
        key = tuple(cells)
        found = _TEXT_INDEX.get(key)
    except TypeError:
        return None
    if found is None:
        groups: dict[str, list[int]] = {}
        for i, cell in enumerate(cells):
            if type(cell) is str:
                groups.setdefault(_fold(cell), []).append(i)
        found = {text: np.array(where, np.intp) for text, where in groups.items()}
        if len(_TEXT_INDEX) >= 32:
            _TEXT_INDEX.clear()
        _TEXT_INDEX[key] = found
    return found


def _float(cell: EngineScalar, op: str) -> float:
    """A cell as a number criterion compares it (NaN: not a number to it); text that reads
    as a number counts for "=" (Excel's SUMIF(A:A,"=5") matches the text "5") but not for "<>",
    which is not its complement: COUNTIF over 23, "23" and 12 other cells with "<>23" is 13 in
    Excel (IronCalc's Excel-made COUNTIF.xlsx, Columns!B7; tests/calc/test_whole_line_counts.py)."""
    if type(cell) is float or type(cell) is int:
        return cell
    if type(cell) is str and op == "=":
        number = _text_number(cell)
        return math.nan if number is None else number
    return math.nan


def _text_number(cell: str) -> float | None:
    """The number a text cell holds to a number criterion's "=": "5" and "2024-01-10" alike."""
    number = _number(cell)
    if number is None and isinstance(read := _read_number(cell), float):
        return read
    return number


def _flat(rng: EngineValue, rows: int, cols: int) -> list[EngineScalar]:
    grid = rng if isinstance(rng, list) else [[rng]]
    if len(grid) == rows and min(map(len, grid)) == max(map(len, grid)) == cols:
        return list(itertools.chain.from_iterable(grid))
    return [grid[i][j] if i < len(grid) and j < len(grid[i]) else None
            for i in range(rows) for j in range(cols)]


def _shape(rng: EngineValue) -> tuple[int, int]:
    if not isinstance(rng, list):
        return 1, 1
    return len(rng), max(map(len, rng), default=0)


def _rows(pairs: list[Pair], shapes: list[tuple[int, int]]) -> NDArray[np.intp] | EngineError:
    """Indexes (row-major, ascending) of the cells where every criterion holds; an error for
    mismatched ranges. `shapes`: each range's (the target's last, when there is one). Ranges
    are read to the largest shape: a whole column arrives cut to the sheet's used rows, each
    its own."""
    import numpy as np

    rows, cols = max(s[0] for s in shapes), max(s[1] for s in shapes)
    if len({s[1] for s in shapes}) > 1 and min(s[1] for s in shapes) > 1:
        return error("#VALUE!")
    ranges = [_flat(rng, rows, cols) for rng, _ in pairs]
    readings = [_as_read(cells, crit) for cells, (_, crit) in zip(ranges, pairs, strict=True)]
    if None in readings:
        return error(NOT_COMPUTED)  # a criterion read as the locale has it: not computed, listed
    matching: NDArray[np.bool_] | None = None
    for cells, (_, crit), numbers in zip(ranges, pairs, readings, strict=True):
        hits = mask(cells, crit, bool(numbers))
        matching = hits if matching is None else matching & hits
    return np.flatnonzero(matching if matching is not None else [])


def _as_read(cells: list[EngineScalar], crit: EngineValue) -> bool | None:
    """Whether a criterion's text is read for a number (True) or as text (False) over these
    cells; None where the answer depends on the locale of the Excel that computed the book.
    A date as the locale writes it ("29/02/1900") matching by "=" over cells holding no number
    matches the same cells either way (text equal to it, read alike; "<>" does not: read as a
    number it counts every text): formulas_test.xlsx STATISTICAL!X24, COUNTIF(I24:J24,I24) over
    that text and TRUE, is 1 in Excel."""
    kind, op, _ = _parse(crit)
    if kind != "unsure":
        return True
    if op == "=" and not any(type(cell) in (int, float) for cell in cells):
        return False
    return None


def _aggregate(kind: str, target: EngineValue, pairs: list[Pair]) -> EngineValue:
    crits = [c for _, c in pairs]
    arrays = [c for c in crits if isinstance(c, list)]
    if arrays:  # an array of criteria: one answer per criterion
        grid = arrays[0]
        return [[_aggregate_one(kind, target, [(r, (c if not isinstance(c, list) else c[i][j]))
                                               for r, c in pairs]) for j in range(len(row))]
                for i, row in enumerate(grid)]
    return _aggregate_one(kind, target, pairs)


def _aggregate_one(kind: str, target: EngineValue, pairs: list[Pair]) -> EngineScalar:
    """`kind` over the cells of `target` where each range meets its (single) criterion."""
    shapes = [_shape(r) for r, _ in pairs]
    aimed = _shape(target) if target is not None else None
    found = _rows(pairs, shapes + ([aimed] if aimed else []))
    if isinstance(found, dict):
        return found
    if kind == "count":
        return len(found)
    rows, cols = max(s[0] for s in shapes), max(s[1] for s in shapes)
    if aimed is None:
        raise TypeError("a sum or an average needs the range it adds up")
    values = _flat(target, max(rows, aimed[0]), max(cols, aimed[1]))
    picked = [values[i] for i in found.tolist() if i < len(values)]
    numbers = []
    for value in picked:
        if is_error(value):
            return value
        if isinstance(value, int | float) and not isinstance(value, bool):
            numbers.append(float(value))
    if kind == "sum":
        return sum(numbers)
    if kind == "average":
        return sum(numbers) / len(numbers) if numbers else error("#DIV/0!")
    if kind == "max":
        return max(numbers) if numbers else 0.0
    return min(numbers) if numbers else 0.0


def _pairs(args: tuple[EngineValue, ...]) -> list[Pair] | None:
    if not args or len(args) % 2:
        return None
    return [(args[i], args[i + 1]) for i in range(0, len(args), 2)]


def _ifs(kind: str) -> Factory:
    def factory(_facts: Facts) -> Callback:
        def call(target: EngineValue, *args: EngineValue) -> EngineValue:
            pairs = _pairs(args)
            return error("#VALUE!") if pairs is None else _aggregate(kind, target, pairs)
        call.__name__ = f"{kind.upper()}IFS"
        return call
    return factory


def _if(kind: str) -> Factory:
    def factory(_facts: Facts) -> Callback:
        def call(rng: EngineValue, crit: EngineValue, target: EngineValue = None) -> EngineValue:
            if target is None:
                target = rng
            elif _shape(target) != _shape(rng):  # Excel reads the sum range at the criteria range's shape
                rows, cols = _shape(rng)
                grid = target if isinstance(target, list) else [[target]]
                target = [[grid[i][j] if i < len(grid) and j < len(grid[i]) else None
                           for j in range(cols)] for i in range(rows)]
            return _aggregate(kind, target, [(rng, crit)])
        call.__name__ = f"{kind.upper()}IF"
        return call
    return factory


def countifs(_facts: Facts) -> Callback:
    def COUNTIFS(*args: EngineValue) -> EngineValue:  # noqa: N802 - Excel's name
        pairs = _pairs(args)
        return error("#VALUE!") if pairs is None else _aggregate("count", None, pairs)
    return COUNTIFS


#: COUNTIF and COUNTIFS whose ranges are all whole columns or rows of one size, written so by the
#: pass `whole_line_counts` (calc/formula/calls.py) with that size as a last argument.
WHOLE_LINES = {"COUNTIF": "RATESXL.COUNTIF", "COUNTIFS": "RATESXL.COUNTIFS"}


def _whole_lines(_facts: Facts) -> Callback:
    """COUNTIF(S) over whole columns or rows: the engine hands over their used part only, and a
    blank cell past it counts where every criterion counts a blank, as in Excel
    (COUNTIF(A:A,"<>x") counts the empty cells of the column: 16,383 for a whole row holding one
    "x" in IronCalc's Excel-made COUNTIF workbook; formualizer's cut gave the used cells' count)."""
    def call(*args: EngineValue) -> EngineValue:
        *given, cells = args
        pairs = _pairs(tuple(given))
        if pairs is None or not isinstance(cells, int | float):
            return error("#VALUE!")
        counted = _aggregate("count", None, pairs)
        shapes = [_shape(r) for r, _ in pairs]
        unread = int(cells) - max(s[0] for s in shapes) * max(s[1] for s in shapes)
        if unread <= 0:
            return counted
        crits = [c for _, c in pairs]
        if isinstance(counted, list):  # an array of criteria: one count each
            return [[_plus_blanks(n, [c[i][j] if isinstance(c, list) else c for c in crits], unread)
                     for j, n in enumerate(row)] for i, row in enumerate(counted)]
        return _plus_blanks(counted, crits, unread)
    call.__name__ = "RATESXL.COUNTIFS"
    return call


def _plus_blanks(counted: EngineScalar, crits: list[EngineValue], unread: int) -> EngineScalar:
    if not isinstance(counted, int | float) or isinstance(counted, bool):
        return counted  # an error
    return counted + unread if all(criterion(c)(None) for c in crits) else counted


FUNCTIONS = {
    "SUMIFS": _ifs("sum"), "AVERAGEIFS": _ifs("average"), "MAXIFS": _ifs("max"),
    "MINIFS": _ifs("min"), "SUMIF": _if("sum"), "AVERAGEIF": _if("average"),
    "COUNTIFS": countifs,
    "COUNTIF": _if("count"),
    **{name: _whole_lines for name in WHOLE_LINES.values()},
}
