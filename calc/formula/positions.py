"""ROWS and COLUMNS of a reference written out (`ROWS($B$1:B3)`) are the reference's size, a
number the formula's text alone gives: Excel does not read the cells to answer them, so a
formula counting the rows above and including its own cell (`=ROWS($B$1:B1)` in B1, the
usual way to number a list) is no circular reference there (LibreOffice 7.4 computes 1, 2,
3 ...; HyperFormula's src/interpreter/plugin/InformationPlugin.ts marks ROW, COLUMN, ROWS and
COLUMNS `doesNotNeedArgumentsToBeComputed`: their references make no dependency; no Excel-made
book holding one was found to check Excel itself). formualizer 0.13 took the
reference for a dependency: the whole column was one loop, every cell 0 and listed as a
circular reference Excel warns about (tests/calc/test_positions.py). ROW and COLUMN of one
cell are its row and column the same way; the fast engine reads those right, the `formulas`
engine did not (`=ROW(B1)` in B1 was #VALUE!), so `row_column` is that engine's alone (a
one-cell ROW is an array to TYPE, 64, where the number it becomes would be 1).
"""

from __future__ import annotations

from collections.abc import Callable

from rates_xl.calc.formula.site import Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.sheet import Area, read_area, split_reference


def sizes(formula: Formula, _site: Site) -> str:
    """ROWS and COLUMNS of one reference written out are its number of rows or columns, which
    Excel answers without reading the cells: `=ROWS($B$1:B1)` in B1 is 1, no circular
    reference; formualizer made the numbered column one loop, each cell 0
    (tests/calc/test_positions.py)."""
    return _folded(formula, {"ROWS": lambda area: area.rows, "COLUMNS": lambda area: area.columns}, cells_only=False)


def row_column(formula: Formula, _site: Site) -> str:
    """ROW and COLUMN of one cell written out are its row or column (the `formulas` engine's:
    `=ROW(B1)` in B1 was #VALUE! there; tests/calc/test_positions.py)."""
    return _folded(formula, {"ROW": lambda area: area.top, "COLUMN": lambda area: area.left}, cells_only=True)


def _folded(formula: Formula, answers: dict[str, Callable[[Area], int]], cells_only: bool) -> str:
    tokens = formula.tokens
    edits = formula.edits()
    for call in formula.calls(*answers):
        if call.close < 0 or len(call.arguments) != 1:
            continue
        at = formula.single_index(call.arguments[0])
        if at is None or not tokens[at].is_range:
            continue
        prefix, ref = split_reference(tokens[at].text)
        if "[" in prefix or ":" in prefix:
            continue  # another workbook's, or a 3-D reference (`Jan:Mar!A1`)
        area = read_area(ref)
        if area is None or (cells_only and not area.is_cell):
            continue  # a name (its size is the engine's), or ROW of several cells (an array)
        edits.replace(call.open, call.close + 1, str(answers[call.name](area)))
    return edits.text()
