"""ODDLPRICE and ODDLYIELD (calc/xlfuncs/financial/oddcoupon.py) as Excel 2010 computes them, and
ODDLYIELD held to ODDLPRICE: both read the same sums over the odd period's quasi-coupon periods,
so the yield found at a price prices back to it. ironcalc_PRICE_YIELD.xlsx's ODDL* cells are
checked by tests/calc/test_excel_engfin.py and test_excel_classes.py."""

from __future__ import annotations

import itertools
import random

import pytest

from rates_xl.calc.engines.formualizer.values import error
from rates_xl.calc.xlfuncs.financial import oddcoupon
from rates_xl.calc.xlfuncs.financial.moneymarket import NOT_COMPUTED
from tests.calc.excel_cases import date_serial

ODDLPRICE = oddcoupon.FUNCTIONS["ODDLPRICE"]({})
ODDLYIELD = oddcoupon.FUNCTIONS["ODDLYIELD"]({})

#: Excel 2010's values, from the Excel-generated test data of fsprojects/ExcelFinancialFunctions
#: (tests/ExcelFinancialFunctions.Tests/testdata/oddlprice.test), each wrong on 9d83c48 but the
#: last. (settlement, maturity, last interest), rate, yield, redemption, frequency, basis, Excel.
EXCEL_2010 = [
    # Settlement on a quasi-coupon date, US 30/360 periods from the last day of February (28 Aug,
    # 28 Feb: 178 and 182 days, both ends moved); 9d83c48 did not move with the frequency.
    (((1999, 2, 28), (2000, 2, 28), (1998, 2, 28)), 0.07, 0.03, 100.0, 2, 0, 103.7180731889),
    # Quarterly dates stepped from 30 November, each from the one before: 28 Feb, 28 May, 28 Aug ...
    (((2008, 6, 30), (2010, 6, 5), (1992, 11, 30)), 0.07, 0.1, 130.0, 4, 2, 102.6144825631),
    (((1993, 11, 30), (2010, 6, 30), (1992, 11, 30)), 0.07, 0.03, 130.0, 4, 1, 161.9924234146),
    (((2002, 3, 31), (2010, 6, 5), (1992, 11, 30)), 0.07, 0.03, 67.0, 4, 3, 86.90549285644),
    (((1999, 2, 28), (2009, 10, 1), (1992, 11, 30)), 0.1, 0.1, 130.0, 4, 4, 82.42108458114),
    # Stepped from 31 March: 30 Sep, 30 Mar ... (actual/actual, half-yearly).
    (((2008, 6, 30), (2010, 6, 5), (2001, 3, 31)), 0.07, 0.1, 100.0, 2, 1, 86.92478934184),
    # US 30/360's February rules: a start on the last day of February counts from the 30th.
    (((2001, 5, 14), (2004, 3, 31), (2000, 5, 14)), 0.07, 0.1, 67.0, 2, 0, 66.09036014665),
    (((2002, 3, 31), (2004, 3, 31), (1997, 2, 28)), 0.07, 0.03, 100.0, 1, 0, 105.5379460021),
    # Maturity on 29 February, US 30/360 period lengths with both ends moved (31 May is the 30th).
    (((2002, 3, 31), (2008, 2, 29), (2001, 3, 31)), 0.1, 0.03, 100.0, 4, 0, 133.6761271144),
    # Annual, actual/360: right on 9d83c48 too.
    (((1999, 2, 28), (2000, 2, 28), (1998, 2, 28)), 0.07, 0.03, 100.0, 1, 2, 103.6796116505),
]


def _args(dates, rate, given, redemption, frequency, basis):
    return [*(date_serial(*d) for d in dates), rate, given, redemption, float(frequency), float(basis)]


@pytest.mark.parametrize(("dates", "rate", "yld", "redemption", "frequency", "basis", "excel"), EXCEL_2010)
def test_excel_2010(dates, rate, yld, redemption, frequency, basis, excel):
    assert ODDLPRICE(*_args(dates, rate, yld, redemption, frequency, basis)) == pytest.approx(excel, rel=1e-12)


@pytest.mark.parametrize(("dates", "rate", "yld", "redemption", "frequency", "basis", "excel"), EXCEL_2010)
def test_the_yield_at_excels_price_is_the_yield_priced(dates, rate, yld, redemption, frequency, basis, excel):
    found = ODDLYIELD(*_args(dates, rate, excel, redemption, frequency, basis))
    assert found == pytest.approx(yld, rel=1e-10)  # Excel's price has 13 digits


LAST_DAYS = [(2019, 2, 28), (2019, 5, 14), (2019, 8, 31), (2019, 11, 30), (2020, 2, 29), (2019, 3, 30)]


def test_the_yield_inverts_the_price():
    """On every basis and frequency, odd periods short and long (to ten years), dates on month
    ends, on 29 February and on the 30th, settlement on and between quasi-coupon dates."""
    rnd = random.Random(47)
    checked = 0
    for last, frequency, basis in itertools.product(LAST_DAYS, (1, 2, 4), range(5)):
        start = date_serial(*last)
        for _ in range(6):
            maturity = start + rnd.choice([20, 91, 182, 365, 1461, 3653]) + rnd.randint(0, 40)
            settlement = start + rnd.choice([1, rnd.randint(1, int(maturity - start) - 1)])
            rate, yld = rnd.choice([0.0, 0.03, 0.07]), rnd.choice([0.0, 0.01, 0.05, 0.12])
            args = [settlement, maturity, start, rate, yld, 100.0, float(frequency), float(basis)]
            price = ODDLPRICE(*args)
            if price == error(NOT_COMPUTED):  # a maturity on a clipped 29th or 30th
                assert ODDLYIELD(*args) == price
                continue
            args[4] = price
            assert ODDLYIELD(*args) == pytest.approx(yld, abs=1e-12), args
            checked += 1
    assert checked == len(LAST_DAYS) * 3 * 5 * 6


GOOD = [date_serial(2025, 2, 28), date_serial(2026, 6, 15), date_serial(2024, 12, 15), 0.05, 0.04, 100.0, 2.0, 1.0]


@pytest.mark.parametrize(("position", "value"), [
    (0, date_serial(2024, 12, 15)),  # settlement on the last interest date
    (1, date_serial(2025, 2, 28)),  # maturity on the settlement
    (3, -0.01),  # a negative rate
    (6, 3.0),  # a frequency but 1, 2 or 4
    (6, 0.9),
    (7, 5.0),  # a basis outside 0-4
    (0, 0.0),  # no date
])
def test_num_where_excel_says_num(position, value):
    args = list(GOOD)
    args[position] = value
    assert ODDLPRICE(*args) == error("#NUM!")
    assert ODDLYIELD(*args) == error("#NUM!")


def test_frequency_and_basis_truncated():
    """Microsoft: settlement, maturity, last_interest, frequency and basis are truncated."""
    assert ODDLPRICE(*GOOD[:6], 2.7, 1.9) == ODDLPRICE(*GOOD)
    assert ODDLPRICE(*(d + 0.6 for d in GOOD[:3]), *GOOD[3:]) == ODDLPRICE(*GOOD)


def test_listed_where_excel_is_not_known():
    """A maturity on the 29th or 30th that is not a month end, its coupon dates stepped back past
    February (30 May, 28 Feb, then 28 Nov or 30 Nov?): no case of the data tells, so the cell
    is listed (NOT_COMPUTED) rather than computed. Half-yearly, the dates never pass
    February and it is computed."""
    args = [date_serial(2029, 12, 1), date_serial(2030, 5, 30), date_serial(2029, 10, 15), 0.05, 0.04, 100.0, 4.0, 0.0]
    assert ODDLPRICE(*args) == error(NOT_COMPUTED) == error("#NAME?")
    assert ODDLYIELD(*args[:4], 99.0, *args[5:]) == error(NOT_COMPUTED)
    args[6] = 2.0
    assert isinstance(ODDLPRICE(*args), float)
