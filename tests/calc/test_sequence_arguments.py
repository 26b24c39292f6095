"""SEQUENCE's arguments as Excel reads them: rows left empty are 1 (the pass `omitted_defaults`,
calc/formula/arguments.py), a number typed as text is that number (`text_as_numbers`,
calc/formula/number_arguments.py); formualizer answered #VALUE! for both.

Excel 16's values, cached in IronCalc's Excel-made MATH_AND_TRIGONOMETRY__SEQUENCE.xlsx
(ironcalc/IronCalc xlsx/tests/calc_tests, MIT or Apache-2.0), at the cells named: each spill's
cells, and the book's ordinary calls beside them."""

from __future__ import annotations

import pytest

#: the formula's cell in the test book, the formula, Excel's spill (rows of values), the book's cell
CASES = [
    ("A1", '=_xlfn.SEQUENCE("5")', [[1], [2], [3], [4], [5]], "Sheet1!G16:G20"),
    ("C1", "=_xlfn.SEQUENCE(,12,,2.5)", [[1 + 2.5 * i for i in range(12)]], "Sheet1!C23:N23"),
    ("C3", "=_xlfn.SEQUENCE(3,,10)", [[10], [11], [12]], "Sheet1!A23:A25"),
    ("E5", "=_xlfn.SEQUENCE(2.3,4,7)", [[7, 8, 9, 10], [11, 12, 13, 14]], "Sheet1!C11:F12"),
    ("A10", "=_xlfn.SEQUENCE(0.3)", [["#VALUE!"]], "Sheet1!E18"),
]


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    from tests.calc.excel_cases import dynamic_arrays_computed

    return dynamic_arrays_computed(tmp_path_factory.mktemp("sequence") / "sequence.xlsx", CASES)


@pytest.mark.parametrize(("cell", "formula", "excel", "where"), CASES, ids=[c[3] for c in CASES])
def test_as_excel_spills(computed, cell, formula, excel, where):
    from tests.calc.excel_cases import spilled

    got = spilled(computed, cell, excel)
    assert got == excel, (formula, where)
