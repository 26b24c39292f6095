"""DISC, INTRATE, RECEIVED, PRICEDISC and YIELDDISC computed here (calc/xlfuncs/financial/moneymarket.py)
on every basis.

EXCEL is Excel 2010's values, from the Excel-generated test data of
fsprojects/ExcelFinancialFunctions (tests/ExcelFinancialFunctions.Tests/testdata/disc.test,
intrate.test, received.test, pricedisc.test and yielddisc.test): two cases per function and
basis, on month ends, 28 and 29 February, and spans of under and over a year (actual/actual's
year length). Before, bases 0, 1 and 4 were listed (not computed). The harness over the whole
data (13,195 cases) is in the commit message."""

from __future__ import annotations

import pytest

from rates_xl.calc.engines.formualizer.values import error
from rates_xl.calc.xlfuncs.financial import moneymarket
from tests.calc.excel_cases import date_serial
from tests.calc.financial_book import computed

EXCEL = [
    ("DISC(DATE(1993,2,28),DATE(2008,2,29),23,67,2)", 0.04314982851757),
    ("DISC(DATE(1993,2,28),DATE(2004,3,31),200,100,3)", -0.09014571499136),
    ("DISC(DATE(1981,3,31),DATE(2008,2,29),23,130,1)", 0.03057968122814),
    ("DISC(DATE(1993,12,31),DATE(2008,2,29),23,130,4)", 0.05811094181363),
    ("DISC(DATE(1993,2,28),DATE(1995,11,30),100,67,0)", -0.1791044776119),
    ("DISC(DATE(2007,10,31),DATE(2008,2,29),200,130,0)", -1.628959276018),
    ("INTRATE(DATE(1993,2,28),DATE(2008,2,29),23,67,2)", 0.1256973265512),
    ("INTRATE(DATE(1993,2,28),DATE(2008,2,29),100,67,3)", -0.02198393867494),
    ("INTRATE(DATE(1981,3,31),DATE(2008,2,29),23,130,1)", 0.1728416765069),
    ("INTRATE(DATE(1993,2,28),DATE(1995,11,30),200,130,4)", -0.1270161290323),
    ("INTRATE(DATE(2004,3,31),DATE(2008,2,29),100,130,0)", 0.07665010645848),
    ("RECEIVED(DATE(1993,2,28),DATE(2008,2,29),100,0.01,2)", 117.9515743259),
    ("RECEIVED(DATE(2007,10,31),DATE(2008,2,29),200,0.01,3)", 200.665218945),
    ("RECEIVED(DATE(1993,2,28),DATE(1995,11,30),23,0.25,1)", 73.8021978022),
    ("RECEIVED(DATE(1993,2,28),DATE(1994,1,31),100,0.25,1)", 130.0089047195),
    ("RECEIVED(DATE(1981,3,31),DATE(2008,2,29),100,0.01,4)", 136.8249021322),
    ("RECEIVED(DATE(2004,3,31),DATE(2008,2,29),23,0.25,0)", 1068.387096774),
    ("PRICEDISC(DATE(1993,2,28),DATE(2008,2,29),0.25,130,2)", -364.6319444444),
    ("PRICEDISC(DATE(1993,2,28),DATE(2008,2,29),0.01,130,3)", 110.4857534247),
    ("PRICEDISC(DATE(1993,2,28),DATE(1994,1,31),0.25,67,1)", 51.53493150685),
    ("PRICEDISC(DATE(2007,10,31),DATE(2008,2,29),0.75,100,4)", 75.20833333333),
    ("PRICEDISC(DATE(2007,10,31),DATE(2008,2,29),2,130,0)", 44.05555555556),
    ("YIELDDISC(DATE(1993,2,28),DATE(2008,2,29),200,100,2)", -0.0328527103486),
    ("YIELDDISC(DATE(1993,2,28),DATE(2004,3,31),200,100,3)", -0.04507285749568),
    ("YIELDDISC(DATE(1981,3,31),DATE(2008,2,29),23,130,1)", 0.1728416765069),
    ("YIELDDISC(DATE(1993,12,31),DATE(2008,2,29),23,130,4)", 0.3284531493814),
    ("YIELDDISC(DATE(1993,2,28),DATE(1995,11,30),100,67,0)", -0.12),
]

#: Microsoft's examples (each function's page of Excel's documentation).
PUBLISHED = [
    ("DISC(DATE(2018,1,25),DATE(2018,6,15),97.975,100,1)", 0.052420213),
    ("INTRATE(DATE(2008,2,15),DATE(2008,5,15),1000000,1014420,2)", 0.05768),
    ("RECEIVED(DATE(2008,2,15),DATE(2008,5,15),1000000,0.0575,2)", 1014584.654),
    ("PRICEDISC(DATE(2008,2,16),DATE(2008,3,1),0.0525,100,2)", 99.79583333),
    ("YIELDDISC(DATE(2008,2,16),DATE(2008,3,1),99.795,100,2)", 0.052823),
]


def test_excel_2010s_values_on_every_basis(tmp_path):
    values, listed = computed(tmp_path, [formula for formula, _ in EXCEL])
    assert listed == []
    for (formula, excel), ours in zip(EXCEL, values, strict=True):
        assert ours == pytest.approx(excel, rel=5e-10, abs=1e-6), formula


def test_microsofts_examples(tmp_path):
    values, _ = computed(tmp_path, [formula for formula, _ in PUBLISHED])
    for (formula, excel), ours in zip(PUBLISHED, values, strict=True):
        digits = len(str(excel).split(".")[1])
        assert ours == pytest.approx(excel, abs=10 ** -digits / 2), formula


SETTLEMENT, MATURITY = date_serial(2008, 2, 15), date_serial(2008, 5, 15)


@pytest.mark.parametrize("name", sorted(moneymarket.FUNCTIONS))
def test_argument_checks_as_microsoft_documents_them(name):
    call = moneymarket.FUNCTIONS[name]({})
    assert call(MATURITY, SETTLEMENT, 0.05, 100, 2) == error("#NUM!")  # settlement after maturity
    assert call(SETTLEMENT, SETTLEMENT, 0.05, 100, 2) == error("#NUM!")
    assert call(SETTLEMENT, MATURITY, 0, 100, 2) == error("#NUM!")
    assert call(SETTLEMENT, MATURITY, 0.05, -100, 2) == error("#NUM!")
    assert call(SETTLEMENT, MATURITY, 0.05, 100, 5) == error("#NUM!")
    assert call(SETTLEMENT, MATURITY, 0.05, 100, -1) == error("#NUM!")
    assert call(-1, MATURITY, 0.05, 100, 2) == error("#VALUE!")
    assert call(SETTLEMENT, MATURITY, "x", 100, 2) == error("#VALUE!")
    assert call(SETTLEMENT, error("#REF!"), error("#N/A"), 100, 2) == error("#REF!")  # the first
    # the basis omitted is 0; truncated, as the dates
    assert call(SETTLEMENT, MATURITY, 0.05, 100) == call(SETTLEMENT + 0.7, MATURITY, 0.05, 100, 0.9)


def test_a_discount_of_the_whole_year_fraction_or_more_is_not_computed():
    """RECEIVED's 1 - discount x YEARFRAC at 0 or below: outside the data and Microsoft's page,
    #NAME? (which the check lists), never a guess."""
    received = moneymarket.FUNCTIONS["RECEIVED"]({})
    assert received(SETTLEMENT, date_serial(2008, 8, 15), 100, 2, 4) == error("#NAME?")  # 2 x 180 / 360 = 1
    assert received(date_serial(2008, 1, 1), date_serial(2008, 7, 1), 100, 2, 2) == error("#NAME?")
    assert received(date_serial(2008, 1, 1), date_serial(2008, 7, 1), 100, 1.9, 2) == pytest.approx(
        100 / (1 - 1.9 * 182 / 360))
