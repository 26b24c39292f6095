"""A range given where one value is wanted to a function of single values computed by `formulas`
(calc/formula/hazards.py `BRIDGED_SCALARS`): intersected with the formula's row in an ordinary
cell, as Excel does. Before, the bridged implementation applied itself to each cell and the
ordinary cell showed the first: `=ACOT(J5:J10)` in row 7 was ACOT(J5), silently; a whole
column answered its first cell's value or #SPILL!.

Excel 16's values, cached in IronCalc's Excel-made books (ironcalc/IronCalc
xlsx/tests/calc_tests, MIT or Apache-2.0): STATISTICAL__BINOM.xlsx's "Implicit intersection"
rows and MATH_AND_TRIGONOMETRY__TRIGONOMETRIC.xlsx ACOT_ACOTH!B36. The Analysis ToolPak's
functions answer #VALUE! for more than one cell instead (formulas_test.xlsx ENGINEERING!AG15,
COMPLEX(C15:P15,...), and AH22, ERF.PRECISE(C22:I22)): checked from the corpus."""

from __future__ import annotations

import math

import pytest

#: (row, formula, inputs of that row, Excel's value)
CASES = [
    (73, "=_xlfn.BINOM.DIST(G:G,B73,C73,D73)", {"B": 10, "C": 0.5, "D": True, "G": 3}, 0.17187500000000006),
    (74, "=_xlfn.BINOM.DIST(A74,G:G,C74,D74)", {"A": 1, "C": 0.5, "D": True, "G": 4}, 0.31250000000000006),
    (75, "=_xlfn.BINOM.DIST(A75,B75,G:G,D75)", {"A": 2, "B": 10, "D": True, "G": 0.5}, 0.0546875),
    (77, "=_xlfn.NEGBINOM.DIST(G:G,B77,C77,D77)", {"B": 10, "C": 0.5, "D": True, "G": 3}, 0.046142578125000014),
    (79, "=_xlfn.NEGBINOM.DIST(A79,B79,G:G,D79)", {"A": 2, "B": 10, "D": True, "G": 0.5}, 0.019287109375000007),
    (80, "=_xlfn.NEGBINOM.DIST(A80,B80,C80,G:G)", {"A": 2, "B": 10, "C": 0.5, "G": 6}, 0.019287109375000007),
    (36, "=_xlfn.ACOT(J:J)", {"J": 5}, 0.19739555984988078),
    (36, "=_xlfn.ACOTH(J:J)", {"J": 5}, 0.20273255405408222),
    # BINOM.DIST.RANGE, ours (calc/xlfuncs/statistical/binomial.py), intersected the same way
    # (BINOM.DIST.RANGE!E44:E46; it answered #SPILL!, lifting itself over the column)
    (44, "=_xlfn.BINOM.DIST.RANGE(B44,C44,G:G,D44)", {"B": 10, "C": 0.5, "D": 5, "G": 3}, 0.568359375),
    (45, "=_xlfn.BINOM.DIST.RANGE(G:G,C45,A45,D45)", {"A": 1, "C": 0.5, "D": 2, "G": 4}, 0.625),
    (46, "=_xlfn.BINOM.DIST.RANGE(B46,G:G,A46,D46)", {"A": 2, "B": 10, "D": 5, "G": 0.5}, 0.6123046875),
]


@pytest.mark.parametrize(("row", "formula", "inputs", "excel"), CASES, ids=[c[1] for c in CASES])
def test_a_whole_column_is_the_cell_in_the_formulas_row(tmp_path, row, formula, inputs, excel):
    import openpyxl

    from tests.calc.excel_cases import computed

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for column, value in inputs.items():
        sheet[f"{column}{row}"] = value
        sheet[f"{column}{row - 1}"] = 99  # another row's value, which must not be read
    sheet[f"E{row}"] = formula
    path = tmp_path / "book.xlsx"
    book.save(path)
    value, reason = computed(path, "S", f"E{row}", reasons=True)
    assert reason == ""
    assert value == pytest.approx(excel, rel=1e-12)


def test_a_finite_range_is_intersected_too(tmp_path):
    """`=ACOT(J5:J10)` in row 7 is ACOT(J7); the range read whole by SUM stays whole."""
    import openpyxl

    from tests.calc.excel_cases import computed

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row in range(1, 11):
        sheet[f"J{row}"] = row
    sheet["A7"] = "=_xlfn.ACOT(J5:J10)"
    sheet["B7"] = "=_xlfn.NORM.S.DIST(J5:J10/20,TRUE)"
    path = tmp_path / "book.xlsx"
    book.save(path)
    assert computed(path, "S", "A7")[0] == pytest.approx(math.atan(1 / 7))
    assert computed(path, "S", "B7")[0] == pytest.approx(0.5 * (1 + math.erf(0.35 / math.sqrt(2))))


@pytest.mark.parametrize("address", ["ENGINEERING!AG15", "ENGINEERING!AH22", "ENGINEERING!AH24"])
def test_the_analysis_toolpak_answers_value_for_several_cells(tmp_path, address):
    from tests.calc.excel_cases import assert_array_as_excel, excel_value

    assert excel_value("formulas_test.xlsx", address) == "#VALUE!"
    assert_array_as_excel("Analysis ToolPak over a range", "formulas_test.xlsx", address, tmp_path, strict=True)
