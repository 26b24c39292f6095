"""FLOOR, CEILING, their .MATH, .PRECISE and ISO kin, and MROUND on 15 significant digits
(calc/xlfuncs/math_trig/multiples.py): a number that is a multiple of the significance there is
answered as that multiple. Before, 7.1/0.1 divided in binary (70.99999999999999) made
FLOOR(7.1,0.1) 7 and FLOOR.MATH(1.15,0.05) 1.1, silently; CEILING.MATH(-7.15) was 8. A multiple
on 15 digits is answered as the number itself; any other answer as the product falls in binary,
as Excel's (formulas_test.xlsx's cached values).

Excel's answers: IronCalc's Excel-made FLOOR_CEILING.xlsx (ironcalc/IronCalc,
xlsx/tests/calc_tests/MATH_AND_TRIGONOMETRY/FLOOR_CEILING.xlsx, MIT or Apache-2.0), FLOOR!C99,
and FLOOR!D99; the rest are Microsoft's examples from each function's page."""

from __future__ import annotations

import pytest

from tests.calc.financial_book import computed as computed_book

EXCEL = {
    "FLOOR.MATH(7.1,0.1)": 7.1,  # IronCalc FLOOR!C99
    "FLOOR.MATH(7.1,0.21)": 6.93,  # FLOOR!D99
    # Microsoft's examples
    "FLOOR(3.7,2)": 2, "FLOOR(-2.5,-2)": -2, "FLOOR(1.58,0.1)": 1.5, "FLOOR(0.234,0.01)": 0.23,
    "CEILING(2.5,1)": 3, "CEILING(-2.5,-2)": -4, "CEILING(-2.5,2)": -2, "CEILING(1.5,0.1)": 1.5,
    "CEILING(0.234,0.01)": 0.24,
    "FLOOR.MATH(24.3,5)": 20, "FLOOR.MATH(6.7)": 6, "FLOOR.MATH(-8.1,2)": -10, "FLOOR.MATH(-5.5,2,-1)": -4,
    "CEILING.MATH(24.3,5)": 25, "CEILING.MATH(6.7)": 7, "CEILING.MATH(-8.1,2)": -8, "CEILING.MATH(-5.5,2,-1)": -6,
    "FLOOR.PRECISE(-3.2,-1)": -4, "FLOOR.PRECISE(3.2,1)": 3, "FLOOR.PRECISE(-3.2,1)": -4,
    "FLOOR.PRECISE(3.2,-1)": 3, "FLOOR.PRECISE(3.2)": 3,
    "CEILING.PRECISE(4.3)": 5, "CEILING.PRECISE(-4.3)": -4, "CEILING.PRECISE(4.3,2)": 6,
    "CEILING.PRECISE(4.3,-2)": 6, "CEILING.PRECISE(-4.3,2)": -4, "CEILING.PRECISE(-4.3,-2)": -4,
    "ISO.CEILING(4.3)": 5, "ISO.CEILING(-4.3)": -4, "ISO.CEILING(4.3,2)": 6, "ISO.CEILING(4.3,-2)": 6,
    "ISO.CEILING(-4.3,2)": -4, "ISO.CEILING(-4.3,-2)": -4,
    "MROUND(10,3)": 9, "MROUND(-10,-3)": -9, "MROUND(1.3,0.2)": 7 * 0.2, "MROUND(5,-2)": "#NUM!",
    # a multiple on 15 digits, every direction; MROUND's half read there; no binary noise
    "FLOOR(7.1,0.1)": 7.1, "FLOOR(0.3,0.1)": 0.3, "FLOOR.MATH(1.15,0.05)": 1.15, "FLOOR.PRECISE(7.1,0.1)": 7.1,
    "CEILING(7.1,0.1)": 7.1, "CEILING.MATH(-7.1,0.1)": -7.1, "MROUND(7.05,0.1)": 71 * 0.1, "CEILING(7.05,0.1)": 71 * 0.1,
    # any other answer is the product as it falls (formulas_test.xlsx COMPATIBILITY!AK6, MATH & TRIG!AK16)
    "CEILING(5,0.234)": 5.148000000000001, "CEILING.MATH(-5.5,-0.6)": -5.3999999999999995,
    "CEILING.MATH(-7.15)": -7, "FLOOR.MATH(-2.5)": -3,  # the significance omitted: the sign kept
    "CEILING.MATH(6.7,B1)": 0,  # an empty cell: 0
}


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    values, listed = computed_book(tmp_path_factory.mktemp("multiples"), list(EXCEL))
    assert listed == []
    return dict(zip(EXCEL, values, strict=True))


@pytest.mark.parametrize("formula", list(EXCEL))
def test_as_excel_answers(computed, formula):
    assert computed[formula] == EXCEL[formula]  # exactly: FLOOR(7.1,0.1) is 7.1, not 7.000 or 7.1000000000000005
