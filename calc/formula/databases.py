"""The database functions (DSUM, DGET, DCOUNT ...: calc/xlfuncs/database.py) over whole columns.

formualizer hands a whole column to a function cut to its used rows; Excel reads every row to
1,048,576, and the rows past the used ones are empty. For a criteria range that matters: an
empty row of conditions picks every record (the remarks on each function's Microsoft page: a
blank line below the criteria's labels works on the entire column), so `DSUM(A1:B4,2,D:D)`
sums every record where the cut column (D1:D2) picked only those D2 names. For a database it
matters to DGET (the empty records may be picked: more than one match, #NUM!) and to DCOUNT
and DCOUNTA without a field (they count them).

The pass `database_lines` writes a whole-column criteria range to its sheet's used rows and
one empty row more (`D:D` -> `$D$1:$D$51` where 50 rows are used), which Excel's column has
too; a whole-column database to its used rows, with the rows Excel reads (1,048,576) as a last
argument, which the function reads to count the empty records past them (a range to the last
row, `A5:B1048576`, alike). A database of whole rows (its columns cut to the used ones, a
field number past them unread) is listed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rates_xl.calc.formula.site import NotComputed
from rates_xl.calc.formula.tree import Formula
from rates_xl.calc.xlfuncs.database import FUNCTIONS
from rates_xl.functions.sheet import (
    MAX_COL,
    MAX_ROW,
    Area,
    column_letters,
    read_area,
    sheet_of,
    split_reference,
)

if TYPE_CHECKING:
    from rates_xl.calc.formula.site import Site

#: The words that make a formula worth the pass's reading.
NEEDS = tuple(f"{name}(" for name in FUNCTIONS)


def database_lines(formula: Formula, site: Site) -> str:
    """A database function's whole-column database and criteria range read as Excel reads them
    (the module's docstring): the criteria to the used rows and one empty row, which picks every
    record as IronCalc's Excel-made DCOUNT_DCOUNTA_DGET_DPRODUCT.xlsx DCOUNT_DCOUNTA!B73 shows;
    the database to the used rows, the rows Excel reads past them as a last argument; a database
    of whole rows listed (NotComputed). Proved by tests/calc/test_database.py."""
    tokens = formula.tokens
    edits = formula.edits()
    for call in formula.calls(*FUNCTIONS):
        if len(call.arguments) != 3:
            continue
        for position in (0, 2):
            index = formula.single_index(call.arguments[position])
            if index is None or not tokens[index].is_range:
                continue  # an expression (OFFSET(...), INDIRECT(...)): the engine's to read
            text = tokens[index].text
            prefix, ref = split_reference(text)
            if "[" in prefix:
                continue  # another workbook's: listed by the pass other_workbooks
            area = read_area(ref)
            if area is None and not prefix:  # a defined name: the range it stands for
                named = site.book.name_range(site.sheet, text)
                if named is None:
                    continue
                prefix, ref = split_reference(named)
                area = read_area(ref)
            if area is None or area.bottom < MAX_ROW and area.right < MAX_COL:
                continue  # a bounded range: the engine reads it whole
            if area.right == MAX_COL and area.left == 1:
                if position == 0:
                    raise NotComputed(f"{call.name} given the whole rows {text} as its database: calc reads "
                                      "their used columns only")
                continue  # criteria in whole rows: the columns past the used ones are empty, met by all
            used = max(site.book.last_row(site.sheet, sheet_of(prefix)), area.top)
            edits.replace(index, index + 1, prefix + _rows(area, used if position == 0 else used + 1))
            if position == 0:
                edits.before(call.close, f",{MAX_ROW - area.top + 1}")
    return edits.text()


def _rows(area: Area, bottom: int) -> str:
    """The area's columns from its top row to `bottom`, as an absolute reference."""
    return f"${column_letters(area.left)}${area.top}:${column_letters(area.right)}${bottom}"
