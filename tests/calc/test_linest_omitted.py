"""LINEST and LOGEST as Excel answers them: a const left empty is TRUE (the pass `omitted_defaults`,
calc/formula/arguments.py), the statistics' standard errors in the coefficients' order and the F
statistic over the x variables alone (calc/xlfuncs/statistical/trend.py `stats_in_excels_order`).
Before, LINEST(y,x,,TRUE) fitted a line through the origin (slope 0.2089 where Excel has
0.2193), its errors were swapped and its F halved, silently.

Excel's answers: IronCalc's Excel-made LINEST_LOGEST.xlsx (ironcalc/IronCalc,
xlsx/tests/calc_tests/STATISTICAL/LINEST_LOGEST.xlsx, MIT or Apache-2.0), Sheet1!D5:E9 and G5:H9."""

from __future__ import annotations

import pytest

from tests.calc.financial_book import computed

Y, X = "{0.2;0.41;0.62;0.8;1.1}", "{1.1;1.9;3.1;4.05;5}"
LINEST = [[0.21928887993553592, -0.03844530620467368], [0.013841437712295469, 0.04625298202423793],
          [0.9881888982191901, 0.04361261091452368], [250.99831918087844, 3],
          [0.47741382050765524, 0.00570617949234489]]
LOGEST = [[1.502261308701874, 0.15653044951525133], [0.05728193385123587, 0.19141510526621522],
          [0.9439010116368718, 0.18048809274099084], [50.47690016406407, 3],
          [1.6443330577367574, 0.09772785486384153]]


@pytest.mark.parametrize(("name", "excel"), [("LINEST", LINEST), ("LOGEST", LOGEST)])
def test_the_statistics_as_excel_answers_them(tmp_path, name, excel):
    cells = [f"INDEX({name}({Y},{X},,TRUE),{r},{c})" for r in range(1, 6) for c in (1, 2)]
    values, listed = computed(tmp_path, cells)
    assert listed == []
    assert values == pytest.approx([v for row in excel for v in row], rel=1e-9)


def test_an_empty_const_is_true_and_false_stays_false(tmp_path):
    values, _ = computed(tmp_path, [f"INDEX(LINEST({Y},{X},),1,1)", f"INDEX(LINEST({Y},{X},FALSE),1,1)"])
    assert values[0] == pytest.approx(0.21928887993553592, rel=1e-12)  # Sheet1!D2 (const omitted)
    assert values[1] == pytest.approx(0.20885684860968076, rel=1e-12)  # Sheet1!D4 (const FALSE)
