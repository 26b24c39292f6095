"""FORMULATEXT answered from the book's own formulas, as Excel's formula bar shows them.

formualizer answers FORMULATEXT with its own writing of the formula it parsed: `=1 + 1` for
`=1+1`, `=_XLFN.FORMULATEXT(A13)` for `=FORMULATEXT(A13)`, and #N/A for a cell whose formula reads
the FORMULATEXT cell itself (IronCalc's INFORMATION__FORMULATEXT.xlsx, Excel's values: B6, B8,
B10, B12, B13, A13). Excel answers the text as the formula bar shows it: as typed, its spaces
kept, without the prefixes the file stores before newer functions and LAMBDA's parameters
(`_xlfn.`, `_xlws.`, `_xlpm.`); #N/A for a cell holding no formula. A formula does not change
while the book calculates, so a reference to one cell is answered by the text itself.

Left to the engine: an argument but a plain reference to one cell of this book (OFFSET(...),
another workbook, a range), a cell of an array formula or a spill (the bar shows braces, or
the anchor's formula), and a formula whose shown text the file does not hold as such (`@`
stored as `_xlfn.SINGLE(`, `A1#` as `_xlfn.ANCHORARRAY(`, a table's `[@Col]` stored in full).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rates_xl.calc.formula.calls import computed_reference
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.tokens import FUNC, OPERAND, RANGE, FormulaError, tokenize

if TYPE_CHECKING:
    from rates_xl.calc.formula.site import FormulaCells, Site

#: Excel's longest formula text FORMULATEXT answers (longer: #N/A, Microsoft's FORMULATEXT page).
LONGEST = 8192
#: The prefixes the file stores and the formula bar does not show.
_STORED = re.compile(r"_xlfn\.|_xlws\.|_xlpm\.", re.IGNORECASE)
#: What the formula bar shows otherwise than the file stores it: left to the engine.
_SHOWN_OTHERWISE = re.compile(r"_xlfn\.(?:SINGLE|ANCHORARRAY)\(|\[", re.IGNORECASE)
_LITERAL = 255  # (a text typed in a formula holds at most 255 characters: longer ones are joined)


def formula_text(formula: Formula, site: Site) -> str:
    """Each `FORMULATEXT(one cell)` of this book written as the text Excel answers: the
    formula as the formula bar shows it (typed spaces kept, no `_xlfn.` or `_xlpm.`), #N/A for
    a cell holding none; formualizer wrote its own parse (`=1 + 1`). Proved by IronCalc's
    INFORMATION__FORMULATEXT.xlsx, B6 to B13 (tests/calc/test_formula_text.py)."""
    cells = site.book.formula_cells
    if cells is None:
        return formula.text
    computed_reference("FORMULATEXT", formula)
    tokens = formula.tokens
    edits = formula.edits()
    for i, token in enumerate(tokens[:-2]):
        if token.is_call and token.text.upper().rstrip("(").split(".")[-1] == "FORMULATEXT":
            operand, close = tokens[i + 1], tokens[i + 2]
            if operand.is_range and close.kind == FUNC and close.closes:
                answer = _answer(operand.text, site.sheet, cells)
                if answer is not None:
                    edits.replace(i, i + 3, answer)
    return edits.text()


def _answer(reference: str, sheet: str, cells: FormulaCells) -> str | None:
    """The formula text of the one cell `reference` as formula text: a text, #N/A; None to leave it."""
    place = cells.area(reference, sheet)  # (None: another workbook, no sheet of this book ...)
    if place is None or not place[1].is_cell:
        return None
    sheet, area = place
    held = cells.answer(sheet, area.top, area.left)
    if held is None:
        return None  # a spilled cell
    if not held:
        return "#N/A"
    text = cells.formula(sheet, area.top, area.left)
    shown = None if text is None else shown_text(text)
    if shown is None:
        return None
    if len(shown) > LONGEST:
        return "#N/A"
    parts = [shown[at:at + _LITERAL] for at in range(0, len(shown), _LITERAL)]
    joined = "&".join('"' + part.replace('"', '""') + '"' for part in parts)
    return joined if len(parts) == 1 else f"({joined})"


def shown_text(text: str) -> str | None:
    """A formula as the file stores it (`=...`), as Excel's formula bar shows it; None where
    the bar shows it otherwise than this can tell (the module's docstring)."""
    if _SHOWN_OTHERWISE.search(text):
        return None
    if "_" not in text:
        return text
    try:
        tokens = tokenize(text)
    except FormulaError:
        return None
    out, at = [], 0
    for token in tokens:  # (a prefix in a function's or a parameter's name; never in a text)
        if token.kind == FUNC or (token.kind == OPERAND and token.sub == RANGE):
            stripped = _STORED.sub("", token.text)
            if stripped != token.text:
                out.append(text[at:token.start])
                out.append(stripped)
                at = token.end
    out.append(text[at:])
    return "".join(out)
