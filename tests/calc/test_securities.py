"""PRICE, YIELD, DURATION, MDURATION, PRICEMAT, YIELDMAT and COUPDAYSNC against Excel's own answers
(calc/xlfuncs/financial/bondprice.py, maturity.py, coupons.py, daycounts.py).

`EXCEL_2010`: Excel 2010's values, from the Excel-generated test data of fsprojects/
ExcelFinancialFunctions (tests/ExcelFinancialFunctions.Tests/testdata/NAME.test, Apache-2.0; 13
significant digits there): a few cases of each basis and frequency, the PRICE ones where the days
were counted otherwise before (30/360 at month ends, 29 February). Every case of those files is
reproduced (10,982 PRICE, 917 COUPDAYSNC, 5,492 DURATION and MDURATION, 1,942 PRICEMAT, 2,912
YIELDMAT). `PUBLISHED`: Microsoft's examples, from each function's page."""

from __future__ import annotations

import pytest

from tests.calc.financial_book import computed

EXCEL_2010 = {
    # PRICE: formerly off at 30/360 month ends (Excel counts the accrued days from a last day of
    # February as from the 30th) and on European 30/360 (the period less the days accrued)
    "PRICE(DATE(1980,2,15),DATE(2000,2,28),0.07,0.03,100,1,0)": 159.5966159615,
    "PRICE(DATE(1993,2,28),DATE(1995,11,30),0.07,0.03,100,2,0)": 110.4970473178,
    "PRICE(DATE(1980,2,15),DATE(2009,10,1),0.07,0.03,67,2,1)": 164.4857940848,
    "PRICE(DATE(1981,3,31),DATE(2000,2,28),0.1,0.1,130,2,2)": 104.7205088997,
    "PRICE(DATE(1981,3,31),DATE(2008,2,29),0.1,0.03,67,2,3)": 213.8309331601,
    "PRICE(DATE(1993,2,28),DATE(2000,2,28),0.07,0.03,100,4,4)": 125.1707125132,
    "PRICE(DATE(1980,2,15),DATE(2008,2,29),0.07,0.1,100,4,4)": 71.87743761426,
    # COUPDAYSNC: US 30/360 counts the whole period with both ends moved, less the days accrued
    "COUPDAYSNC(DATE(1980,2,15),DATE(2000,2,28),1,0)": 13,
    "COUPDAYSNC(DATE(1980,2,15),DATE(1995,11,30),4,4)": 14,
    "COUPDAYSNC(DATE(1993,12,31),DATE(1995,11,30),4,0)": 60,
    "COUPDAYSNC(DATE(1993,2,28),DATE(1994,1,31),4,1)": 61,
    "COUPDAYSNC(DATE(2003,2,14),DATE(2009,10,1),4,2)": 46,
    "COUPDAYSNC(DATE(2003,2,14),DATE(2010,6,5),2,3)": 111,
    "COUPDAYSNC(DATE(1981,3,31),DATE(1994,1,31),2,4)": 120,
    "DURATION(DATE(1980,2,15),DATE(2008,2,29),23,0.1,4,0)": 8.1991344797,
    "DURATION(DATE(1993,2,28),DATE(2004,3,31),23,0.1,4,0)": 4.582390620137,
    "DURATION(DATE(1980,2,15),DATE(1980,5,4),200,0.03,1,1)": 0.2158469945355,
    "DURATION(DATE(1980,3,15),DATE(1995,11,30),23,0.1,4,1)": 6.007144697324,
    "DURATION(DATE(1980,2,15),DATE(2000,2,28),100,0.03,2,2)": 8.993150814454,
    "DURATION(DATE(2003,2,14),DATE(2008,2,29),100,0.03,1,2)": 2.442825220964,
    "DURATION(DATE(1981,3,31),DATE(2009,10,1),200,0.03,4,3)": 12.22431532759,
    "DURATION(DATE(1980,2,15),DATE(1995,11,30),100,0.03,1,3)": 7.667284093588,
    "DURATION(DATE(2007,10,31),DATE(2010,6,30),200,0.1,2,4)": 1.347557900365,
    "DURATION(DATE(1981,3,31),DATE(2000,2,28),23,0.1,4,4)": 6.735815850446,
    "MDURATION(DATE(1993,12,31),DATE(2009,10,1),100,0.1,1,0)": 5.729062554979,
    "MDURATION(DATE(1993,12,31),DATE(2010,6,5),100,0.03,1,1)": 7.49996401545,
    "MDURATION(DATE(2004,3,31),DATE(2009,10,1),23,0.1,1,2)": 2.485054086463,
    "MDURATION(DATE(2004,3,31),DATE(2008,2,29),23,0.03,4,3)": 2.004812785127,
    "MDURATION(DATE(1993,2,28),DATE(1995,11,30),200,0.1,1,4)": 1.539741304447,
    "PRICEMAT(DATE(2007,10,31),DATE(2008,2,29),DATE(2000,3,28),0.1,0.03,0)": 101.5328574572,
    "PRICEMAT(DATE(2003,2,14),DATE(2003,5,14),DATE(1995,5,31),0.1,0.1,1)": 98.16577775079,
    "PRICEMAT(DATE(1993,12,31),DATE(2010,6,30),DATE(1990,3,4),0.07,0.1,2)": 64.20471861472,
    "PRICEMAT(DATE(1993,2,28),DATE(2008,2,29),DATE(1990,3,4),0.1,0.1,3)": 82.04407150478,
    "PRICEMAT(DATE(2003,2,14),DATE(2004,3,31),DATE(1999,4,2),0.1,0.1,4)": 96.08121151606,
    "YIELDMAT(DATE(2007,10,31),DATE(2009,10,1),DATE(1995,5,31),0.07,100,0)": 0.03744984395898,
    "YIELDMAT(DATE(2007,10,31),DATE(2009,10,1),DATE(1990,3,4),0.07,130,1)": -0.03402703971712,
    "YIELDMAT(DATE(2004,3,31),DATE(2010,6,5),DATE(2000,3,28),0.07,100,2)": 0.05448884276077,
    "YIELDMAT(DATE(2003,2,14),DATE(2009,10,1),DATE(1990,3,4),0.07,130,3)": 0.01122309570306,
    "YIELDMAT(DATE(2003,2,14),DATE(2010,6,5),DATE(1995,5,31),0.1,100,4)": 0.05647944775651,
}
#: Microsoft's examples, to the digits its pages show.
PUBLISHED = {
    "DURATION(DATE(2018,7,1),DATE(2048,1,1),0.08,0.09,2,1)": 10.9191453,
    "MDURATION(DATE(2008,1,1),DATE(2016,1,1),0.08,0.09,2,1)": 5.73567,
    "PRICEMAT(DATE(2008,2,15),DATE(2008,4,13),DATE(2007,11,11),0.061,0.061,0)": 99.98449888,
    "YIELDMAT(DATE(2008,3,15),DATE(2008,11,3),DATE(2007,11,8),0.0625,100.0123,0)": 0.060954,
}
#: Excel's argument checks (Microsoft's pages): answers that are errors.
CHECKS = {
    "DURATION(DATE(2018,7,1),DATE(2048,1,1),-0.08,0.09,2,1)": "#NUM!",  # a negative coupon
    "DURATION(DATE(2018,7,1),DATE(2048,1,1),0.08,-0.09,2,1)": "#NUM!",  # a negative yield
    "MDURATION(DATE(2048,7,1),DATE(2048,1,1),0.08,0.09,2,1)": "#NUM!",  # settlement after maturity
    "DURATION(DATE(2018,7,1),DATE(2048,1,1),0.08,0.09,3,1)": "#NUM!",  # frequency 3
    "DURATION(DATE(2018,7,1),DATE(2048,1,1),0.08,0.09,2,5)": "#NUM!",  # basis 5
    "DURATION(\"soon\",DATE(2048,1,1),0.08,0.09,2,1)": "#VALUE!",
    "PRICEMAT(DATE(2008,2,15),DATE(2008,4,13),DATE(2007,11,11),-0.061,0.061,0)": "#NUM!",
    "YIELDMAT(DATE(2008,3,15),DATE(2008,11,3),DATE(2007,11,8),0.0625,0,0)": "#NUM!",  # a price of 0
    "PRICEMAT(DATE(2008,4,13),DATE(2008,4,13),DATE(2007,11,11),0.061,0.061,0)": "#NUM!",
    "DURATION(1/0,DATE(2048,1,1),0.08,0.09,2,1)": "#DIV/0!",  # an error given is passed on
}


def _computed(tmp_path, formulas):
    values, listed = computed(tmp_path, formulas)
    assert listed == []
    return values


def test_excel_2010s_answers(tmp_path):
    got = _computed(tmp_path, list(EXCEL_2010))
    for (formula, expected), value in zip(EXCEL_2010.items(), got, strict=True):
        assert value == pytest.approx(expected, rel=5e-12, abs=1e-12), formula


def test_microsofts_examples(tmp_path):
    got = _computed(tmp_path, list(PUBLISHED))
    for (formula, expected), value in zip(PUBLISHED.items(), got, strict=True):
        digits = len(str(expected).split(".")[1])
        assert round(value, digits) == pytest.approx(expected, abs=10 ** -digits / 2), formula


def test_excels_argument_checks(tmp_path):
    assert dict(zip(CHECKS, _computed(tmp_path, list(CHECKS)), strict=True)) == CHECKS


def test_yield_inverts_price_at_a_month_end(tmp_path):
    """YIELD shares PRICE's days: the yield of Excel's price at 3 % is 3 %."""
    [value] = _computed(tmp_path, ["YIELD(DATE(1980,2,15),DATE(2000,2,28),0.07,159.5966159615,100,1,0)"])
    assert value == pytest.approx(0.03, abs=1e-12)
