"""RATESXL.UNION: the cells of a union of ranges, `(B1:B3,D1:D3)`, area after area and row by
row within each, as one column, an empty cell kept empty (not Excel's 0 of a spilled blank), so
that a function given it reads the cells as it reads a range: RANK's reference (the pass
`unions`, calc/formula/unions.py; formualizer knows no union and answered #VALUE!). An error in
a cell is kept as it is, for the function to answer."""

from __future__ import annotations

from rates_xl.calc.xlfuncs.coercion import Callback, Facts
from rates_xl.calc.xlfuncs.types import Answer, EngineScalar, EngineValue

NAME = "RATESXL.UNION"


def union(_facts: Facts) -> Callback:
    def UNION(*areas: EngineValue) -> Answer:  # noqa: N802
        cells: list[list[EngineScalar]] = []
        for area in areas:
            for row in area if isinstance(area, list) else [[area]]:
                cells.extend([value] for value in (row if isinstance(row, list) else [row]))
        return cells
    return UNION
