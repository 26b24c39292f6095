"""3-D references (`SUM(Jan:Dec!B5)`: the same cells on every sheet from Jan to Dec, in the
order of the tabs) given to the functions that take them, written out sheet by sheet.

Microsoft ("Create a 3-D reference to the same cell range on multiple worksheets") lists the
functions that take one: SUM, AVERAGE, AVERAGEA, COUNT, COUNTA, MAX, MAXA, MIN, MINA, PRODUCT,
STDEV.P, STDEV.S, STDEVA, STDEVPA, VAR.P, VAR.S, VARA and VARPA (and the older STDEV, STDEVP,
VAR, VARP). Each reads its arguments one after the other, so `SUM(Jan:Mar!B5)` is
`SUM(Jan!B5,Feb!B5,Mar!B5)`. formualizer answered #VALUE! for every such call (apache/poi's
Excel-made 55906-MultiSheetRefs.xlsx, FormulaSheetRange.xlsx, 48703.xlsx). A 3-D reference
anywhere else is left as it is (the engine's answer is checked against Excel's); one naming a
sheet the book does not have is not computed, and says so.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rates_xl.calc.formula.site import NotComputed
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.sheet import quote_sheet

if TYPE_CHECKING:
    from rates_xl.calc.formula.site import Site

#: The functions that take a 3-D reference (Microsoft's list, above).
TAKING = frozenset({"SUM", "AVERAGE", "AVERAGEA", "COUNT", "COUNTA", "MAX", "MAXA", "MIN", "MINA", "PRODUCT",
                    "STDEV.P", "STDEV.S", "STDEVA", "STDEVPA", "VAR.P", "VAR.S", "VARA", "VARPA",
                    "STDEV", "STDEVP", "VAR", "VARP"})
#: A sheet part with a colon before its "!" (`Jan:Dec!`, `'Jan 20:Dec 20'!`): the cheap test.
_MAY = re.compile(r"[\w.']:[^!(),;{}\"]*!")
#: `first:last!ref`, quoted as one (`'Jan 20:Dec 20'!B5`) or not.
_THREE_D = re.compile(r"^(?:'((?:[^']|'')+)'|([^'!\[\]]+))!(.+)$")


def may_read_sheets(text: str) -> bool:
    return _MAY.search(text) is not None


def sheets_written_out(formula: Formula, site: Site) -> str:
    """Each 3-D reference that is a whole argument of a function taking one, as the same
    reference on each sheet of its span, in tab order (Microsoft's list of such functions;
    apache/poi's Excel-made 55906-MultiSheetRefs.xlsx: `SUM(Sheet1:Sheet3!A1)` is 66 where
    the three A1 hold 11, 22, 33; tests/calc/test_three_d.py)."""
    edits = formula.edits()
    for call in formula.calls(*TAKING):
        for span in call.arguments:
            solid = formula.solid(span)
            if len(solid) != 1 or not solid[0].is_range:
                continue
            written = _written_out(solid[0].text, site)
            if written is not None:
                edits.replace(span[0], span[1], written)
    return edits.text()


def _written_out(reference: str, site: Site) -> str | None:
    match = _THREE_D.match(reference)
    if match is None:
        return None
    sheets = match.group(1).replace("''", "'") if match.group(1) is not None else match.group(2)
    first, colon, last = sheets.partition(":")
    if not colon:
        return None
    order = [title.upper() for title in site.book.sheets]
    try:
        i, j = order.index(first.strip().upper()), order.index(last.strip().upper())
    except ValueError:
        raise NotComputed(f"a 3-D reference to sheets the book does not have ({sheets})") from None
    i, j = min(i, j), max(i, j)
    return ",".join(f"{quote_sheet(title)}!{match.group(3)}" for title in site.book.sheets[i:j + 1])
