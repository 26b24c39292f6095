"""A sheet set to evaluate its formulas by Lotus 1-2-3's rules (Excel's "Transition formula
evaluation", a sheet's option under File > Options > Advanced, Lotus compatibility settings;
`sheetPr transitionEvaluation="1"` in the file, VBA's `Worksheet.TransitionExpEval`).

On such a sheet Excel converts text strings to 0, Boolean expressions to 0 or 1, and reads
database criteria by Lotus' rules (Microsoft KB 141764, KB 213953): `=A1+1` over a text A1 is
1, not #VALUE!. Excel turns the option on for a book it opened from a Lotus file, and a desk's
book converted long ago keeps it. The engine computes Excel's own rules, and Microsoft
documents Lotus' only in that one sentence, so every formula of such a sheet is listed: it
keeps the value Excel saved and what reads it is computed from that. Before, the engine's
answer was written in silently wherever the check could not compare (a recomputed cell, one
reading a RATES_* call or a volatile function)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rates_xl.calc.formula.site import NotComputed, Site
from rates_xl.calc.formula.tree import Formula

if TYPE_CHECKING:
    from openpyxl.workbook.workbook import Workbook

REASON = ("its sheet evaluates formulas by Lotus 1-2-3's rules (Excel's Transition formula evaluation), "
          "which the engine does not compute")


def lotus_sheets(book: Workbook) -> frozenset[str]:
    """The titles of the book's sheets set to Lotus 1-2-3's rules of evaluation."""
    return frozenset(ws.title for ws in book.worksheets
                     if getattr(getattr(ws, "sheet_properties", None), "transitionEvaluation", None))


def lotus_evaluation(formula: Formula, site: Site) -> str:
    """A formula on a sheet set to Lotus 1-2-3's rules, listed: Excel reads text as 0 and a
    logical value as 0 or 1 there (`=A1+1` over a text A1 is 1, KB 141764), where the engine
    answers #VALUE! (tests/calc/test_lotus_rules.py)."""
    raise NotComputed(REASON)


def on_lotus_sheet(_formula: Formula, site: Site) -> bool:
    return site.sheet in site.book.lotus_sheets
