"""TREND and GROWTH on one x variable (calc/xlfuncs/statistical/trend.py), checked against LibreOffice; the
shape of the answer is new_x's; several x variables stay formulas' (formulas_test.xlsx's)."""

from __future__ import annotations

import itertools

import pytest

from tests.support import libreoffice

YS = ["{2,4.1,6,8.2}", "{2;4.1;6;8.2}", "{1.5,3.1,7.9,15.2,33}"]
XS = {"{2,4.1,6,8.2}": ["{1,2,3,4}", "{0.5,1,2,4}"], "{2;4.1;6;8.2}": ["{1;2;3;4}", "{10;20;35;50}"],
      "{1.5,3.1,7.9,15.2,33}": ["{1,2,3,4,5}", "{-1,0,1,2,3}"]}


def test_the_answer_has_new_xs_shape():
    from rates_xl.calc.xlfuncs import callbacks
    from rates_xl.calc.xlfuncs.omitted import OMITTED

    trend = callbacks()["TREND"]
    ys, xs = [[2.0, 4.1, 6.0, 8.2]], [[1.0, 2.0, 3.0, 4.0]]
    assert trend(ys, xs, 5.0) == pytest.approx(10.2)  # formulas: #VALUE!
    row = trend(ys, OMITTED, [[5.0, 6.0]])
    assert len(row) == 1 and row[0] == pytest.approx([10.2, 12.25])  # formulas: a column
    column = trend([[y] for y in ys[0]], [[x] for x in xs[0]], [[5.0], [6.0]])
    assert [c[0] for c in column] == pytest.approx([10.2, 12.25])  # formulas: #REF!
    assert callbacks()["GROWTH"]([[1.0, -2.0]], [[1.0, 2.0]], 3.0) == {"type": "Error", "kind": "Num"}


@libreoffice.needed
def test_one_variable_as_libreoffice_computes_it(tmp_path):
    import openpyxl

    cases = []
    for (ys, xs), new, const, name in itertools.product(
            [(y, x) for y in YS for x in [*XS[y], None]], ("0", "2.5", "7", "-3"), ("", ",FALSE"), ("TREND", "GROWTH")):
        known = f"{ys},{xs}" if xs else f"{ys},"
        cases.append(f"{name}({known},{new}{const})")
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for r, formula in enumerate(cases, start=1):
        sheet.cell(row=r, column=1).value = "=" + formula
    book.save(tmp_path / "trend.xlsx")
    result, theirs = libreoffice.ours_and_theirs(tmp_path / "trend.xlsx", tmp_path)
    assert not result.skipped
    differ = [(f, result.values[("S", f"A{r}")], theirs[r - 1][0]) for r, f in enumerate(cases, start=1)
              if result.values[("S", f"A{r}")] != pytest.approx(float(theirs[r - 1][0]), rel=1e-9, abs=1e-12)]
    assert differ == []


def test_known_x_omitted_is_1_to_n_in_known_ys_shape(tmp_path):
    """`TREND(A2:A6)`: known_x's omitted are {1,2,3,...} "the same size as known_y's" (Microsoft's
    TREND page), so a column of y's answers a column, as Excel's dynamic arrays spill it
    (IronCalc's Excel-made STATISTICAL__TREND_GROWTH.xlsx, MIT or Apache-2.0: F2:F6 and K2:K6,
    Excel's values below). It was a row, and the spill ran into the next formula (#SPILL!)."""
    import xlsxwriter

    from rates_xl.calc.workbook import WorkbookCalculation
    from tests.calc.excel_cases import equal

    path = tmp_path / "trend.xlsx"
    book = xlsxwriter.Workbook(path)
    sheet = book.add_worksheet("S")
    for row, y in enumerate([0.2, 0.31, 0.4, 0.51, 0.7]):
        sheet.write_number(row, 0, y)
    sheet.write_dynamic_array_formula(0, 5, 4, 5, "=TREND(A1:A5)")
    sheet.write_dynamic_array_formula(0, 6, 4, 6, "=GROWTH(A1:A5)")
    book.close()
    values = WorkbookCalculation(path, full=True).compute().values
    trend = [0.18400000000000014, 0.3040000000000001, 0.42400000000000004, 0.544, 0.664]
    growth = [0.21308607271409954, 0.28773289959884885, 0.3885294822747143, 0.5246364208163754,
              0.7084233928286627]
    for row in range(5):
        assert equal(values[("S", f"F{row + 1}")], trend[row]), row
        assert equal(values[("S", f"G{row + 1}")], growth[row]), row
