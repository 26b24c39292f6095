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
    """The cases as dynamic array formulas (XlsxWriter writes them as Excel does), computed."""
    import xlsxwriter
    from openpyxl.utils.cell import range_boundaries

    from rates_xl.calc.workbook import WorkbookCalculation

    path = tmp_path_factory.mktemp("sequence") / "sequence.xlsx"
    book = xlsxwriter.Workbook(path)
    sheet = book.add_worksheet("S")
    for cell, formula, excel, _where in CASES:
        left, top, _right, _bottom = range_boundaries(cell)
        sheet.write_dynamic_array_formula(top - 1, left - 1, top - 2 + len(excel), left - 2 + len(excel[0]),
                                          formula.replace("_xlfn.", ""))
    book.close()
    result = WorkbookCalculation(path, full=True).compute()
    assert [(s.cell, s.reason) for s in result.skipped] == []
    return result


@pytest.mark.parametrize(("cell", "formula", "excel", "where"), CASES, ids=[c[3] for c in CASES])
def test_as_excel_spills(computed, cell, formula, excel, where):
    from openpyxl.utils.cell import (
        column_index_from_string,
        coordinate_from_string,
        get_column_letter,
    )

    letters, row = coordinate_from_string(cell)
    column = column_index_from_string(letters)
    got = [[computed.values.get(("S", f"{get_column_letter(column + j)}{row + i}")) for j in range(len(line))]
           for i, line in enumerate(excel)]
    assert got == excel, (formula, where)
