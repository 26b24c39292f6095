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
function_num that is not typed, no visible row) is not computed, nor is an AGGREGATE over rows
the sheet hides (its options say which it ignores; not written here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rates_xl.calc.formula.site import NotComputed, Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.sheet import cell_address, read_area, split_reference

if TYPE_CHECKING:
    from openpyxl import Workbook


def subtotals(formula: Formula, site: Site) -> str:
    """SUBTOTAL leaves out the rows a filter hides, and with 101-111 the rows hidden by hand
    (Microsoft's SUBTOTAL page): each reference it is given written as its visible runs. Proved
    by apache/poi's Excel-made ConditionalFormattingSamples.xlsx, 'Regional sales2'!B12:B13 and
    'Regional sales3'!B12:B13 (tests/calc/test_hidden_rows.py)."""
    hidden_rows = site.book.hidden_rows
    edits = formula.edits()
    for call in formula.groups:
        if call.kind != "call" or call.name not in ("SUBTOTAL", "AGGREGATE") or call.close < 0 or not call.arguments:
            continue
        function_num = formula.span_text(call.arguments[0]).strip()
        ignored_by_hand = function_num.isdigit() and int(function_num) >= 101
        for span in call.arguments[1:]:
            token = formula.single(span)
            prefix, ref = split_reference(token.text) if token is not None and token.is_range else ("", "")
            sheet = prefix.rstrip("!").strip("'").replace("''", "'") or site.sheet
            area = read_area(ref, whole_lines=False) if ref else None
            if area is None:
                if hidden_rows.get(sheet if ref else site.sheet) or not ref and any(hidden_rows.values()):
                    raise NotComputed(f"{call.name} given {formula.span_text(span).strip()} on a sheet that hides "
                                      "rows: which of them it counts is not written here")
                continue
            hidden, filtered = hidden_rows.get(sheet, (frozenset(), frozenset()))
            skipped = {r for r in (hidden if ignored_by_hand else filtered) if area.top <= r <= area.bottom}
            if not skipped:
                continue
            if call.name == "AGGREGATE" or not function_num.isdigit():
                raise NotComputed(f"{call.name} over {ref}, where the sheet hides rows: which of them it "
                                  "counts is not written here")
            runs = _visible_runs(area.top, area.bottom, skipped)
            if not runs:
                raise NotComputed(f"SUBTOTAL over {ref}, every row of which is hidden")
            pieces = [prefix + _area_text(top, area.left, bottom, area.right) for top, bottom in runs]
            first, last = span
            edits.replace(first, last, ",".join(pieces))
    return edits.text()


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
