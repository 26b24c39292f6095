"""SUBTOTAL and AGGREGATE over rows the sheet hides. "SUBTOTAL ignores any rows that are not
included in the result of a filter, no matter which function_num value you use", and 101 to 111
ignore rows hidden by hand too (Microsoft's SUBTOTAL page); the engine knows no hidden row and
summed them all: apache/poi's Excel-made ConditionalFormattingSamples.xlsx, 'Regional
sales2'!B12 `=SUBTOTAL(109,Table69[Sales])` over a filtered table, 9,071,953 where Excel has
1,469,066, silently where no cached value showed it.

The file marks both kinds of row hidden alike; a hidden row inside the range of an autofilter
with criteria on (the sheet's or a table's) is taken as filtered out, any other as hidden by hand
(`of_book`: 'Regional sales3', a row hidden in a table with no filter on, SUBTOTAL(9) 9,071,953,
SUBTOTAL(109) 8,171,954). Each reference SUBTOTAL is given that crosses rows it ignores is written as its
visible runs (`SUBTOTAL(109,B4:B11)` with rows 6 and 8 to 10 hidden is `SUBTOTAL(109,B4:B5,B7,B11)`),
which SUBTOTAL reads as one. A reference that cannot be so written (a whole column, a name, a
function_num that is not typed, no visible row) is not computed. AGGREGATE does as its options
say (`_aggregate`): 1, 3, 5 and 7 leave out every hidden row (written as visible runs, as
SUBTOTAL's), the others count rows hidden by hand; options not written in it, or rows a filter
hides under options that count hidden rows, are not computed. The engine computes AGGREGATE's
functions 1 to 11 only: 12 to 19 are written as the functions they are (`aggregate_functions`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rates_xl.calc.formula.site import NotComputed, Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.sheet import cell_address, read_area, split_reference
from rates_xl.functions.tokens import FUNC

if TYPE_CHECKING:
    from openpyxl import Workbook


def subtotals(formula: Formula, site: Site) -> str:
    """SUBTOTAL leaves out the rows a filter hides, and with 101-111 the rows hidden by hand
    (Microsoft's SUBTOTAL page): each reference it is given written as its visible runs. Proved
    by apache/poi's Excel-made ConditionalFormattingSamples.xlsx, 'Regional sales2'!B12:B13 and
    'Regional sales3'!B12:B13 (tests/calc/test_hidden_rows.py). AGGREGATE as its options say
    (`_aggregate`)."""
    hidden_rows = site.book.hidden_rows
    edits = formula.edits()
    for call in formula.groups:
        if call.kind != "call" or call.name not in ("SUBTOTAL", "AGGREGATE") or call.close < 0 or not call.arguments:
            continue
        function_num = formula.span_text(call.arguments[0]).strip()
        others: tuple[tuple[int, int], ...] = ()  # (AGGREGATE's arguments that may be its k)
        if call.name == "SUBTOTAL":
            references = call.arguments[1:]
            skips = "filtered" if not function_num.isdigit() or int(function_num) < 101 else "hidden"
        else:
            references, others, skips = _aggregate(formula, call.arguments, function_num)
        for span in references:
            token = formula.single(span)
            prefix, ref = split_reference(token.text) if token is not None and token.is_range else ("", "")
            sheet = prefix.rstrip("!").strip("'").replace("''", "'") or site.sheet
            area = read_area(ref, whole_lines=False) if ref else None
            if area is None:
                if span in others:
                    continue  # (AGGREGATE's k, or what may be it)
                if hidden_rows.get(sheet if ref else site.sheet) or not ref and any(hidden_rows.values()):
                    raise NotComputed(f"{call.name} given {formula.span_text(span).strip()} on a sheet that hides "
                                      "rows: which of them it counts is not written here")
                continue
            hidden, filtered = hidden_rows.get(sheet, (frozenset(), frozenset()))
            if not any(area.top <= r <= area.bottom for r in hidden):
                continue
            if skips not in ("filtered", "hidden", "hidden in one range", "by hand counted"):
                raise NotComputed(f"{call.name} over {ref}, where the sheet hides rows: {skips}")
            if skips == "by hand counted":
                if any(area.top <= r <= area.bottom for r in filtered):
                    raise NotComputed(f"AGGREGATE over {ref}, where a filter hides rows, with options that count "
                                      "hidden rows: whether it counts rows a filter hides is not written here")
                continue  # (rows hidden by hand are counted, as the engine counts them)
            skipped = {r for r in (filtered if skips == "filtered" else hidden) if area.top <= r <= area.bottom}
            if not skipped:
                continue
            if not function_num.isdigit():
                raise NotComputed(f"{call.name} over {ref}, where the sheet hides rows: which of them it "
                                  "counts is not written here")
            runs = _visible_runs(area.top, area.bottom, skipped)
            if not runs:
                raise NotComputed(f"{call.name} over {ref}, every row of which is hidden")
            if skips == "hidden in one range" and len(runs) > 1:
                raise NotComputed(f"AGGREGATE over {ref}, where the sheet hides rows: its function takes one range, "
                                  "which its visible rows cannot be written as")
            if len(runs) > _MOST_REFERENCES - len(call.arguments):
                raise NotComputed(f"{call.name} over {ref}: its visible rows are more runs than it takes references")
            pieces = [prefix + _area_text(top, area.left, bottom, area.right) for top, bottom in runs]
            first, last = span
            edits.replace(first, last, ",".join(pieces))
    return edits.text()


#: References a SUBTOTAL or AGGREGATE takes at most (Microsoft's pages: ref1 to ref254, 253).
_MOST_REFERENCES = 253
#: AGGREGATE's function numbers whose form is an array and k (LARGE ... QUARTILE.EXC): one range.
_ARRAY_FORM = range(14, 20)


def _aggregate(formula: Formula, arguments: list[tuple[int, int]], function_num: str) -> \
        tuple[list[tuple[int, int]], tuple[tuple[int, int], ...], str]:
    """AGGREGATE's references, the arguments among them that may be its k, and which hidden rows
    it leaves out ("hidden", "hidden in one range", "by hand counted", or why not known). Its options (Microsoft's AGGREGATE page): 1, 3, 5 and 7 ignore hidden rows, 0
    (or none), 2, 4 and 6 count them; the number is truncated, as Excel reads it. Proved by the
    Excel-made functions-excel-2010.xlsx of LibreOffice's tests (ClosedXML's TryToLoad copy),
    Sheet2!C18:U25: each option over a column with row 6 hidden by hand."""
    written = formula.span_text(arguments[1]).strip() if len(arguments) > 1 else ""
    option = None
    try:
        number = float(written) if written else 0.0
        option = int(number) if 0 <= number < 8 else None
    except ValueError:
        pass
    kind = function_num.isdigit() and int(function_num) in _ARRAY_FORM
    references = arguments[2:3] if kind else arguments[2:]
    others = () if kind or function_num.isdigit() else tuple(arguments[3:])  # (k, for all that is read here)
    if option is None:
        return references, others, f"its options ({written}) are not a number written in it, and say whether " \
            "it counts them"
    if option % 2 == 0:
        return references, others, "by hand counted"
    if not function_num.isdigit():
        return references, others, "which of them it counts is not written here"
    return references, others, "hidden in one range" if kind else "hidden"


#: AGGREGATE's functions 12 to 19, the Excel functions they compute (Microsoft's AGGREGATE page).
#: formualizer answers #VALUE! for them, where Excel answers a number (functions-excel-2010.xlsx
#: Sheet2!N18:U25), and computes 1 AVERAGE to 11 VAR.P itself.
AS_FUNCTIONS = {12: "MEDIAN", 13: "_xlfn.MODE.SNGL", 14: "LARGE", 15: "SMALL", 16: "_xlfn.PERCENTILE.INC",
                17: "_xlfn.QUARTILE.INC", 18: "_xlfn.PERCENTILE.EXC", 19: "_xlfn.QUARTILE.EXC"}
#: Functions that answer anew each time they are computed: written three times by the error
#: option's rewriting, they would be three draws.
_RANDOM = ("RAND(", "RANDBETWEEN(", "RANDARRAY(")


def aggregate_functions(formula: Formula, site: Site) -> str:
    """AGGREGATE of function 12 (MEDIAN) to 19 (QUARTILE.EXC) written as that function of what
    its options leave in: each argument `X` as `IF(ISERROR(X),"",IF(ISBLANK(X),"",X))` where they
    ignore errors (2, 3, 6, 7; an empty cell stays out, as the function leaves it out of a
    reference), each range as its rows without a SUBTOTAL or AGGREGATE where they ignore those
    (0 to 3). Proved by functions-excel-2010.xlsx Sheet2!N18:U25 (tests/calc/test_hidden_rows.py);
    rows hidden are left out first (`subtotals`). What cannot be so written is not computed."""
    edits = formula.edits()
    for call in formula.groups:
        if call.kind != "call" or call.name != "AGGREGATE" or call.close < 0 or not call.arguments:
            continue
        written = formula.span_text(call.arguments[0]).strip()
        function_num = _whole(written)
        if function_num is not None and function_num not in AS_FUNCTIONS:
            continue  # (1 to 11 the engine's; any other #VALUE! in both)
        if function_num is None:
            raise NotComputed(f"AGGREGATE of function {written}, a number not written in it: 12 (MEDIAN) to 19 "
                              "(QUARTILE.EXC) are computed only where it is written")
        options = formula.span_text(call.arguments[1]).strip() if len(call.arguments) > 1 else ""
        option = _whole(options) if options else 0
        array_form = function_num >= 14
        data = call.arguments[2:3] if array_form else call.arguments[2:]
        if option is None or not 0 <= option <= 7 or not data or (array_form and len(call.arguments) != 4):
            raise NotComputed(f"AGGREGATE of function {function_num} given options {options or '(none)'} and "
                              f"{len(call.arguments) - 2} more arguments: not written here")
        if any(g.kind == "call" and g.name == "AGGREGATE" and call.open < g.open < call.close for g in formula.groups):
            raise NotComputed("an AGGREGATE inside another: not written here")
        pieces: list[str] = []
        for span in data:
            runs = _without_subtotals(formula, span, site) if option <= 3 else [formula.span_text(span).strip()]
            if array_form and len(runs) > 1:
                raise NotComputed(f"AGGREGATE of function {function_num} over {formula.span_text(span).strip()}, "
                                  "whose SUBTOTAL and AGGREGATE cells it leaves out: one range, which its other "
                                  "rows cannot be written as")
            for run in runs:
                if option in (2, 3, 6, 7):
                    if any(word in run.upper() for word in _RANDOM):
                        raise NotComputed(f"AGGREGATE ignoring the errors of {run}, which draws at random")
                    run = f'IF(ISERROR({run}),"",IF(ISBLANK({run}),"",{run}))'
                pieces.append(run)
        if array_form:
            pieces.append(formula.span_text(call.arguments[3]).strip())
        edits.replace(call.open, call.close + 1, f"{AS_FUNCTIONS[function_num]}({','.join(pieces)})")
    return edits.text()


def _whole(written: str) -> int | None:
    """A number written in a formula, truncated as Excel reads a function number or options."""
    try:
        number = float(written)
    except ValueError:
        return None
    return int(number) if abs(number) < 1e9 else None


def _without_subtotals(formula: Formula, span: tuple[int, int], site: Site) -> list[str]:
    """One argument of an AGGREGATE whose options leave out the SUBTOTAL and AGGREGATE cells it
    reads: a one-column range as its runs of rows without one; anything else as written where it
    reads none (else not computed)."""
    cells = site.book.formula_cells
    token = formula.single(span)
    written = formula.span_text(span).strip()
    if token is None and any(formula.tokens[k].kind == FUNC for k in range(*span)):
        # (a function may answer a reference, OFFSET(A1,0,0,10), whose cells are not read here)
        raise NotComputed(f"AGGREGATE over {written}, leaving out the SUBTOTAL and AGGREGATE cells it reads: "
                          "which those are is not read here")
    references = [formula.tokens[k] for k in range(*span) if formula.tokens[k].is_range]
    for reference in references:
        # (the sheet by its title and the area, or None: another workbook, several sheets, a name ...)
        found = None if cells is None else cells.area(reference.text, site.sheet)
        if cells is None or found is None or (rows := cells.subtotal_rows(*found)) is None:
            raise NotComputed(f"AGGREGATE over {reference.text}, leaving out the SUBTOTAL and AGGREGATE cells it "
                              "reads: which those are is not read here")
        if not rows:
            continue
        if reference is not token:
            raise NotComputed(f"AGGREGATE over {written}, whose SUBTOTAL and AGGREGATE cells it leaves out: not "
                              "written here")
        area = found[1]
        runs = _visible_runs(area.top, area.bottom, rows)
        if not runs:
            raise NotComputed(f"AGGREGATE over {written}, every cell of which holds a SUBTOTAL or AGGREGATE")
        prefix = split_reference(reference.text)[0]
        return [prefix + _area_text(top, area.left, bottom, area.right) for top, bottom in runs]
    return [written]


def may_hide(formula: Formula, site: Site) -> bool:
    """Whether any sheet of the book hides a row (read only then)."""
    return bool(site.book.hidden_rows)


def _visible_runs(top: int, bottom: int, skipped: set[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    start = None
    for row in range(top, bottom + 1):
        if row in skipped:
            if start is not None:
                runs.append((start, row - 1))
                start = None
        elif start is None:
            start = row
    if start is not None:
        runs.append((start, bottom))
    return runs


def _area_text(top: int, left: int, bottom: int, right: int) -> str:
    first, last = cell_address(top, left), cell_address(bottom, right)
    return first if first == last else f"{first}:{last}"


def of_book(book: Workbook) -> dict[str, tuple[frozenset[int], frozenset[int]]]:
    """Sheet -> (its hidden rows, those inside the range of an autofilter with criteria on: the
    sheet's or a table's), for the sheets of an openpyxl `book` that hide any
    (`BookFacts.hidden_rows`)."""
    found = {}
    for ws in book.worksheets:
        hidden = frozenset(r for r, d in ws.row_dimensions.items() if d.hidden)
        if not hidden:
            continue
        # (a filter is on where its autoFilter holds a column's criteria: a row hidden in a
        # table without one was hidden by hand, ConditionalFormattingSamples.xlsx 'Regional sales3')
        filters = [ws.auto_filter] + [t.autoFilter for t in ws.tables.values() if t.autoFilter is not None]
        areas = [a for f in filters if f.ref and f.filterColumn and (a := read_area(f.ref, whole_lines=False)) is not None]
        filtered = frozenset(r for r in hidden if any(a.top < r <= a.bottom for a in areas))
        found[ws.title] = (hidden, filtered)
    return found
