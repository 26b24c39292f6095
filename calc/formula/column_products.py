"""SUMPRODUCT over whole columns, `SUMPRODUCT((A:A="x")*(B:B))`, as Excel computes it: over all
1,048,576 rows of each.

formualizer cuts each whole column to its own last used row, so columns of different lengths (a
header in one, a total below another) answered #VALUE! (`SUMPRODUCT((T:T>0)*(U:U>0))`, where
Excel counts the rows), and the rows past the last used one were left out, which counts when an
empty row adds something (`SUMPRODUCT(--(A:A<>"x"))` counts every empty row in Excel; here 0).

The rows past the last row holding a value on the sheets read are all empty, so each adds the
same: the call is written as itself over rows 1 to that last row plus itself over the two rows
after it, counted half as many times as there are rows past it:
`SUMPRODUCT((T$1:T$8>0)*(U$1:U$8>0))+524284*SUMPRODUCT((T$9:T$10>0)*(U$9:U$10>0))`. Exact where every value in the call is read row by row: each whole column under
operators and functions of single values only, nothing but single cells and constants beside
them; any other SUMPRODUCT over whole columns (a name, a range of other rows, a whole column
inside MAX or MATCH) is left to the engine.

FILTER of whole columns is written over the used rows too, its include argument guarded by
the same over an empty row (the function `filters`); SORT, SORTBY and UNIQUE of a whole column,
and ROW of one read as an array, are listed (`whole_line_arrays`, `whole_line_positions`).

An array formula's SUM, COUNT and COUNTA of an array computed from whole columns are written so
too (`{=SUM((B:B>0)*(C:C>0))}`: #VALUE! before; `{=COUNT(IF(C:C="",1))}` was not computed), and
its MAX and MIN read them to the first empty row (one empty row decides as all of them would).
"""

from __future__ import annotations

from rates_xl.calc.formula.hazards import ELEMENTWISE
from rates_xl.calc.formula.site import NotComputed, Site
from rates_xl.calc.formula.tree import Formula, Group
from rates_xl.functions.sheet import (
    MAX_COL,
    MAX_ROW,
    is_whole_lines,
    read_area,
    sheet_of,
    split_reference,
)

#: Functions of single values that read no range as a whole (a lookup reads its range whole).
_ROW_BY_ROW = ELEMENTWISE - frozenset("""LOOKUP XLOOKUP VLOOKUP HLOOKUP MATCH XMATCH INDEX CHOOSE IFS SWITCH
ADDRESS ARRAYTOTEXT ISFORMULA""".split())


NEEDS = ("SUMPRODUCT(", "SUM(", "COUNT", "MAX(", "MIN(")


def may_read_columns(formula: Formula, site: Site) -> bool:
    """The cheap test: a colon, and SUMPRODUCT or an array formula."""
    return ":" in formula.text and (site.array or "SUMPRODUCT(" in formula.upper)


def _lines(formula: Formula, call: Group) -> dict[int, tuple[str, str, str]] | None:
    """The whole columns read in `call` (token -> sheet prefix, first and last column as
    written), or None where the call reads anything else that is not a single cell or a constant,
    or reads a column other than row by row."""
    tokens = formula.tokens
    found: dict[int, tuple[str, str, str]] = {}
    for index in range(call.open + 1, call.close):
        token = tokens[index]
        if token.is_call:
            if token.name not in _ROW_BY_ROW:
                return None
            continue
        if not token.is_range:
            continue
        prefix, ref = split_reference(token.text)
        area = read_area(ref)
        if area is None or "[" in prefix:
            return None  # a name, a table, another book: its size is not known here
        if area.is_cell:
            continue
        if area.top != 1 or area.bottom != MAX_ROW or any(ch.isdigit() for ch in ref):
            return None  # a range of some rows: Excel's #VALUE! beside whole columns, the engine's
        first, _, last = ref.partition(":")
        found[index] = (prefix, first, last)
    return found or None


def _last_row(site: Site, lines: dict[int, tuple[str, str, str]]) -> int:
    """The last row that may hold a value on the sheets these whole columns are on."""
    sheets = {sheet_of(prefix) for prefix, _, _ in lines.values()}
    return max(max(site.book.last_row(site.sheet, sheet) for sheet in sheets), 1)


#: In an array formula, the sums of an array read row by row (each empty row adds the same) and
#: its extremes (an empty row's value, once, decides as well as all of them).
_SUMS = frozenset({"SUM", "COUNT", "COUNTA"})
_EXTREMES = frozenset({"MAX", "MIN"})


def _computed(formula: Formula, call: Group, lines: dict[int, tuple[str, str, str]]) -> bool:
    """Whether a whole column in `call` is computed on (not only given whole, `SUM(B:B)`)."""
    for index in lines:
        owner = formula.owner(index)
        if owner is not call or all(formula.trimmed(span) != (index, index + 1) for span in call.arguments):
            return True
    return False


def column_products(formula: Formula, site: Site) -> str:
    """SUMPRODUCT over whole columns over all their 1,048,576 rows, as Excel computes it: the
    used rows, plus the empty ones past them each adding the same (the module's docstring;
    tests/calc/test_column_products.py); in an array formula SUM, COUNT, COUNTA, MAX and MIN
    over an array computed from whole columns too."""
    edits = formula.edits()
    done: list[tuple[int, int]] = []
    names = ("SUMPRODUCT", *_SUMS, *_EXTREMES) if site.array else ("SUMPRODUCT",)
    for call in formula.calls(*names):
        if call.close < 0 or any(a <= call.open <= b for a, b in done) \
                or formula.tokens[call.open].text.upper().removeprefix("_XLFN.") != f"{call.name}(":
            continue
        lines = _lines(formula, call)
        if lines is None or (call.name != "SUMPRODUCT" and not _computed(formula, call, lines)):
            continue
        last = _last_row(site, lines)
        if last + 2 > MAX_ROW:
            continue
        span = (call.open, call.close + 1)
        if call.name in _EXTREMES:
            edits.replace(*span, formula.span_text(span, {i: f"{p}{a}$1:{b}${last + 1}" for i, (p, a, b) in lines.items()}))
            done.append((call.open, call.close))
            continue
        used = formula.span_text(span, {i: f"{p}{a}$1:{b}${last}" for i, (p, a, b) in lines.items()})
        # Two empty rows, each adding the same, counted half as many times: the engine answers
        # #VALUE! for SUMPRODUCT of one empty cell (Excel: 0). (n/2 and 2x are exact in binary.)
        rows = f"${last + 1}:{{}}${last + 2}"
        empty = formula.span_text(span, {i: f"{p}{a}{rows.format(b)}" for i, (p, a, b) in lines.items()})
        past = MAX_ROW - last
        half = f"{past // 2}.5" if past % 2 else str(past // 2)
        edits.replace(call.open, call.close + 1, f"({used}+{half}*{empty})")
        done.append((call.open, call.close))
    return edits.text()


#: Calls that read an argument as an array in any cell (the lookups' vectors, SUMPRODUCT's
#: arguments, INDEX's array), where ROW of a whole column is every one of its rows.
_READ_AS_ARRAYS = frozenset("SUMPRODUCT LOOKUP MATCH XMATCH XLOOKUP INDEX FILTER SORT SORTBY UNIQUE MMULT".split())


def whole_line_positions(formula: Formula, site: Site) -> str:
    """ROW of whole columns (COLUMN of whole rows) read as an array, `LOOKUP(2,1/(A:A<>""),
    ROW(A:A))` (the last used row), `MATCH(3,ROW(A:A),0)`, is every row of the sheet in Excel;
    the engine, which cuts whole columns at their last used row, answered #N/A and #REF!, and
    `SUMPRODUCT(MAX((A:A>0)*ROW(A:A)))` 1 where Excel has the last row holding a number,
    silently: not computed, listed (tests/calc/test_column_products.py)."""
    tokens = formula.tokens
    for call in formula.calls("ROW", "COLUMN"):
        reference = formula.single(call.arguments[0]) if call.arguments else None
        if reference is None or not reference.is_range:
            continue
        area = read_area(split_reference(reference.text)[1])
        if area is None or not (area.rows == MAX_ROW if call.name == "ROW" else area.columns == MAX_COL):
            continue
        outer = call.parent
        while outer is not None and not (outer.kind == "call" and outer.name in _READ_AS_ARRAYS):
            outer = outer.parent
        if site.array or outer is not None:
            lines = "rows" if call.name == "ROW" else "columns"
            raise NotComputed(f"{tokens[call.open].text}{reference.text}) read as an array: all the sheet's {lines}, "
                              f"which the engine reads only to the last used one")
    return formula.text


def filters(formula: Formula, site: Site) -> str:
    """FILTER of whole columns, `FILTER(A:A,B:B="x")`, over all their rows as Excel reads them:
    the engine cut each whole column at its own last used row, and columns of different lengths
    answered #VALUE! where Excel filters. Written over the used rows (the rows past them are all
    empty, each kept or left out alike), its include argument multiplied by a guard that reads
    it over an empty row: where that keeps the empty rows, Excel's answer is as long as the sheet,
    and the cell answers #NAME?, calc's answer for a cell not computed
    (tests/calc/test_column_products.py)."""
    edits = formula.edits()
    done: list[tuple[int, int]] = []
    for call in formula.calls("FILTER"):
        if call.close < 0 or len(call.arguments) not in (2, 3) or any(a <= call.open <= b for a, b in done):
            continue
        lines = _lines(formula, call)
        if lines is None:
            continue
        last = _last_row(site, lines)
        if last + 1 > MAX_ROW:
            continue
        used = {i: f"{p}{a}$1:{b}${last}" for i, (p, a, b) in lines.items()}
        empty = {i: f"{p}{a}${last + 1}:{b}${last + 1}" for i, (p, a, b) in lines.items()}
        array, include = call.arguments[0], call.arguments[1]
        guard = f"IF(OR({formula.span_text(include, empty)}),#NAME?,1)"
        written = [formula.span_text(array, used), f"({formula.span_text(include, used)})*{guard}"]
        written += [formula.span_text(span, used) for span in call.arguments[2:]]
        edits.replace(array[0], call.close, ",".join(written))
        done.append((call.open, call.close))
    return edits.text()


#: Functions answering an array as long as the one given: of a whole column, every row of it.
_WHOLE_ANSWERS = frozenset({"SORT", "SORTBY", "UNIQUE"})


def whole_line_arrays(formula: Formula, _site: Site) -> str:
    """SORT, SORTBY and UNIQUE of a whole column (row) answer over all its 1,048,576 rows in
    Excel: `UNIQUE(A:A)` ends with the 0 of its empty cells, `SORT(A:A)` spills every row, its
    empty ones first; the engine, which reads a whole column only to its last used row, left the
    empty rows out, silently: not computed, listed (tests/calc/test_column_products.py). A
    column filtered first (`UNIQUE(FILTER(A:A,A:A<>""))`, the usual writing) is computed."""
    for call in formula.calls(*_WHOLE_ANSWERS):
        reference = formula.single(call.arguments[0]) if call.arguments else None
        if reference is None or not reference.is_range:
            continue
        area = read_area(split_reference(reference.text)[1])
        if area is not None and is_whole_lines(area):
            raise NotComputed(f"{call.name} of {reference.text}, all of whose cells Excel reads, the empty "
                              "ones past the last used one too")
    return formula.text
