"""An array formula giving array constants to a function that answers per element (IF,
IFERROR, DATE ...) is written out cell by cell, each cell given its element of each constant
(calc/formula/hazards.py `Operand.elements`, fit.py `lift`), as a range's cells are: Excel's
broadcasting (a one-wide or one-high constant repeated, #N/A past a shorter one). These were
listed as not computed ("IF given an array constant").

Excel 16's values, cached in IronCalc's Excel-made LOGICAL__IF_ARRAY.xlsx, LOGICAL__IFERROR.xlsx
and DATE_AND_TIME__DATE.xlsx (ironcalc/IronCalc xlsx/tests/calc_tests, MIT or Apache-2.0), at
the ranges named: each a dynamic array (XlsxWriter writes it as Excel does)."""

from __future__ import annotations

import pytest

#: (the formula's cell here, the formula, Excel's values by row, the book's range)
CASES = [
    ("A1", "=IF({TRUE,FALSE,TRUE}, {1,2,3}, {\"A\"})", [[1, "A", 3]], "LOGICAL__IF_ARRAY Sheet1!A26:C26"),
    ("A3", "=IF({TRUE;FALSE;TRUE}, {1,2}, {7,8})", [[1, 2], [7, 8], [1, 2]], "LOGICAL__IF_ARRAY Sheet1!A28:B30"),
    ("A7", "=IF({TRUE,FALSE}, {1,2,3,4}, {10,11,12,13})", [[1, 11, "#N/A", "#N/A"]], "LOGICAL__IF_ARRAY Sheet1!E8:H8"),
    ("A9", "=IF({TRUE,FALSE}, {1,2,3}, {1,2,3,4})", [[1, 2, "#N/A", "#N/A"]], "LOGICAL__IF_ARRAY Sheet1!E12:H12"),
    ("A11", "=IF({TRUE,TRUE,FALSE}, 1,2)", [[1, 1, 2]], "LOGICAL__IF_ARRAY Sheet1!E15:G15"),
    ("A13", "=IF({TRUE,FALSE,TRUE}, {1,2,3})", [[1, False, 3]], "LOGICAL__IF_ARRAY Sheet1!D20:F20"),
    ("A15", "=IF({TRUE,#N/A,FALSE},1,0)", [[1, "#N/A", 0]], "LOGICAL__IF_ARRAY Sheet1!D22:F22"),
    ("A17", "=IFERROR({10;20;30}/{2;0;5}, \"x\")", [[5], ["x"], [6]], "LOGICAL__IFERROR Sheet1!C32:C34"),
    ("C17", "=IFERROR({1;0;2}/{0;0;0}, {7,8})", [[7, 8], [7, 8], [7, 8]], "LOGICAL__IFERROR Sheet1!C53:D55"),
    ("A21", "=DATE({2023,2024;2025,2026}, 1, 2)", [[44928, 45293], [45659, 46024]], "DATE_AND_TIME__DATE Arrays!A10:B11"),
    ("A24", "=IF({-1,2}<0, {-4,5}^2, 0)", [[16, 0]], "a negative element is a value: (-4)^2"),
]


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    from tests.calc.excel_cases import dynamic_arrays_computed

    return dynamic_arrays_computed(tmp_path_factory.mktemp("constants") / "constants.xlsx", CASES)


@pytest.mark.parametrize(("cell", "formula", "excel", "where"), CASES, ids=[c[3] for c in CASES])
def test_as_excel_broadcasts(computed, cell, formula, excel, where):
    from tests.calc.excel_cases import spilled

    got = spilled(computed, cell, excel)
    assert got == excel, (formula, where)
