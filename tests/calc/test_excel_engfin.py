"""Engineering and financial functions as Excel computes them (calc/xlfuncs/engineering/complex.py ...),
one class at a time on a small workbook made here from one cell of an Excel-made corpus book
(`tests/calc/excel_cases.py`): the value must be Excel's own, cached in the corpus book and
read at test time. Each case failed before its fix. Values are compared as the engine's own
check against Excel does (`calc/check.py`: relative 1e-9, no absolute slack), since several
of these classes are tiny numbers (PPMT's 3.2E-11, MINVERSE's -2.0E-17)."""

from __future__ import annotations

import pytest

from tests.calc.excel_cases import assert_array_as_excel, assert_cell_as_excel

#: (class, corpus book, cell): computed equal to Excel's value.
EQUAL = [
    # The IM* family writes its answer at 15 significant digits (calc/xlfuncs/engineering/complex.py).
    ("IMCOS at 15 significant digits", "formulas_test.xlsx", "ENGINEERING!R33"),
    ("IMCOT with a part below 1E-5 in E-notation and an imaginary part of -1", "formulas_test.xlsx",
     "ENGINEERING!R35"),
    ("IMCOT with a part of 1E-5 written out", "formulas_test.xlsx", "ENGINEERING!S35"),
    ("IMCSCH with both parts in E-notation", "formulas_test.xlsx", "ENGINEERING!S37"),
    ("IMDIV", "formulas_test.xlsx", "ENGINEERING!R38"),
    ("IMPRODUCT rounding a binary residue away", "formulas_test.xlsx", "ENGINEERING!S44"),
    ("IMPOWER", "formulas_test.xlsx", "ENGINEERING!U43"),
    # BESSEL* with Excel's approximations, not the exact functions (calc/xlfuncs/engineering/bessel.py).
    ("BESSELI of order 2 (downward recurrence)", "formulas_test.xlsx", "ENGINEERING!T3"),
    ("BESSELI of order 0 (polynomial)", "formulas_test.xlsx", "ENGINEERING!V3"),
    ("BESSELI of text", "formulas_test.xlsx", "ENGINEERING!X3"),
    ("BESSELJ of a large argument (asymptotic form, upward recurrence)", "formulas_test.xlsx",
     "ENGINEERING!S4"),
    ("BESSELJ of order 2", "formulas_test.xlsx", "ENGINEERING!T4"),
    ("BESSELK of order 2", "formulas_test.xlsx", "ENGINEERING!T5"),
    ("BESSELY of order 2", "formulas_test.xlsx", "ENGINEERING!T6"),
    # NPER and FV: any non-zero type, a rate of 0 (calc/xlfuncs/financial/annuity.py).
    ("NPER with a type of 5", "ironcalc_PMT.xlsx", "Sheet1!H32"),
    ("NPER at a rate of 0 with payments at the start", "ironcalc_PMT.xlsx", "Sheet1!H9"),
    ("NPER at a rate of 0, a future value", "ironcalc_PMT.xlsx", "Sheet1!H28"),
    ("FV with a type of -1", "ironcalc_PMT.xlsx", "Sheet1!L33"),
    ("FV with a type of 1.234", "ironcalc_PMT.xlsx", "Sheet1!L35"),
    ("PPMT of a tiny principal part, not PMT - IPMT's noise", "formulas_test.xlsx", "FINANCIAL!S40"),
    ("PPMT of a principal part below 1E-17", "formulas_test.xlsx", "FINANCIAL!U40"),
    # XNPV's rate argument (calc/xlfuncs/financial/cashflows.py).
    ("XNPV of an error rate passes it on", "formulas_test.xlsx", "FINANCIAL!AA56"),
    ("XNPV of a #NULL! rate", "formulas_test.xlsx", "FINANCIAL!AE56"),
    ("XNPV of a boolean rate is #VALUE!", "formulas_test.xlsx", "FINANCIAL!Z56"),
    ("XNPV of an empty rate is #NUM!", "formulas_test.xlsx", "FINANCIAL!X56"),
    ("XNPV next to its root, summed in the book's order", "formulas_test.xlsx", "FINANCIAL!R56"),
    # XIRR by Excel's interval halving, each answer a dyadic fraction of the guess (cashflows.py).
    ("XIRR with no guess (0.1, doubled to 0.8)", "formulas_test.xlsx", "FINANCIAL!AD54"),
    ("XIRR with a guess of 1 from a cell", "formulas_test.xlsx", "FINANCIAL!R54"),
    ("XIRR with a guess of 4: the answer of the guess 1", "formulas_test.xlsx", "FINANCIAL!V55"),
    ("XIRR with a date written as text for the guess", "formulas_test.xlsx", "FINANCIAL!X54"),
    ("XIRR with a guess of 0", "formulas_test.xlsx", "FINANCIAL!U55"),
    # ODDLPRICE and ODDLYIELD over quasi-coupon periods (calc/xlfuncs/financial/oddcoupon.py).
    ("ODDLPRICE over many quasi-coupon periods, actual/actual", "ironcalc_PRICE_YIELD.xlsx",
     "ODDLPRICE_ODDLYIELD!I2"),
    # DECIMAL of a number: its digits as Excel writes them (calc/xlfuncs/bridge.py TEXT_ARGUMENTS).
    ("DECIMAL of a number in a truncated radix", "formulas_test.xlsx", "MATH & TRIG!T26"),
    ("ODDLPRICE, actual/360, annual", "ironcalc_PRICE_YIELD.xlsx", "ODDLPRICE_ODDLYIELD!I9"),
    ("ODDLPRICE, actual/365", "ironcalc_PRICE_YIELD.xlsx", "ODDLPRICE_ODDLYIELD!I4"),
    ("ODDLYIELD, actual/365, annual", "ironcalc_PRICE_YIELD.xlsx", "ODDLPRICE_ODDLYIELD!J10"),
    ("PRICE on actual/360", "ironcalc_PRICE_YIELD.xlsx", "PRICE_YIELD!H29"),
    ("YIELD on actual/360", "ironcalc_PRICE_YIELD.xlsx", "PRICE_YIELD!I29"),
    # COMBIN given a range in an ordinary cell: Excel's implicit intersection (calc/formula/fit.py).
    ("COMBIN of a row range, its cell in the formula's column", "poi_FormulaEvalTestData_Copy.xlsx",
     "EverythingTests!F260"),
    ("COMBIN of a row range missing the formula's column is #VALUE!", "poi_FormulaEvalTestData_Copy.xlsx",
     "EverythingTests!G260"),
    ("COMBIN of a column range, its cell in the formula's row", "poi_FormulaEvalTestData_Copy.xlsx",
     "EverythingTests!L260"),
    ("ODDFPRICE with a fractional frequency", "ironcalc_PRICE_YIELD.xlsx", "ODDFPRICE_ODDFYIELD!J50"),
]


@pytest.mark.parametrize(("case", "book", "address"), EQUAL, ids=[f"{c[0]}:{c[2]}" for c in EQUAL])
def test_computed_as_excel_does(case, book, address, tmp_path):
    assert_cell_as_excel(case, book, address, tmp_path, strict=True)


#: (class, corpus book, cell): a legacy array formula, reproduced as one over the same range,
#: every cell of its range computed equal to Excel's value.
ARRAY_EQUAL = [
    ("MINVERSE to the last digit (LU with partial pivoting)", "formulas_test.xlsx", "CORE!P27"),
]


@pytest.mark.parametrize(("case", "book", "address"), ARRAY_EQUAL, ids=[f"{c[0]}:{c[2]}" for c in ARRAY_EQUAL])
def test_array_formula_computed_as_excel_does(case, book, address, tmp_path):
    assert_array_as_excel(case, book, address, tmp_path, strict=True)
