"""INDEX as Excel answers it (calc/xlfuncs/lookup/indexing.py), on small workbooks made here from
formulas_test.xlsx LOOKUP rows 52-54: the formulas and the values they read copied as they
are in the corpus book, and Excel's answer read from it at test time. Each case failed
before its fix."""

from __future__ import annotations

import pytest

from rates_xl.calc.fidelity import same
from tests.calc.excel_cases import excel_value
from tests.calc.test_excel_references import _cells, _computed, _copy

BOOK = "formulas_test.xlsx"

#: (class, the areas copied, the formula cells compared with Excel's).
CASES = [
    ("a 2-D array constant with the column omitted spills its whole row",
     ["AM52:AN52", "Z53:AA53"], ["AM52:AN52", "Z53:AA53"]),
    ("an array constant as the row is lifted: each element's first column",
     ["AO52:AP53", "AN54:AO54"], ["AO52:AP53", "AN54:AO54"]),
    ("an error as area_num is the answer",
     ["N54", "AB54"], ["AB54"]),
    ("a union with area_num a range: one answer each, #REF! past the last area",
     ["C52:E54", "AQ52:AU54"], ["AQ52:AU54"]),
    ("a 2-D reference with the column omitted is #REF!, a negative row #VALUE!",
     ["C52:E53", "R53:R54"], ["R53:R54"]),
    ("the whole INDEX block of rows 52-54 as Excel: none listed, none different",
     ["C52:AU54"], ["R52:AF54", "AH52:AL54"]),
]


@pytest.mark.parametrize(("case", "areas", "compared"), CASES, ids=[c[0] for c in CASES])
def test_index_as_excel(case, areas, compared, tmp_path):
    path = _copy(BOOK, "LOOKUP", areas, tmp_path)
    cells = [cell for area in compared for cell in _cells(area)]
    ours, listed = _computed(path, "LOOKUP", cells)
    theirs = {cell: excel_value(BOOK, f"LOOKUP!{cell}") for cell in cells}
    differ = {cell: (ours[cell], theirs[cell]) for cell in cells if not same(ours[cell], theirs[cell])}
    assert not listed and not differ, f"{case}: (ours, Excel's) {differ}; listed {listed}"


@pytest.mark.parametrize("formula", [
    "=A1:INDEX(C1:E3,2)",
    "=INDEX(C52:E53,E1:E3)",  # a range as the row of a 2-D reference: not seen in the corpus
    "=INDEX({2,3;4,5},E52:E54)",  # lifted by the analysis, formualizer's INDEX right per cell
    "=INDEX({2,3,4},4)",
    "=INDEX(E52:E54,2)",
])
def test_other_index_calls_stay_the_engines(formula):
    """Callbacks get values, not references: only the calls the module names are rewritten."""
    from rates_xl.calc.formula.passes import Site, one

    assert one("index", formula, Site("Sheet1", 1, 1, True)) == formula
