"""PRICE and YIELD (calc/xlfuncs/financial/bondprice.py) as Microsoft documents them: YIELD
over one coupon period or less is PRICE's formula solved for the yield (a closed form),
otherwise Newton's iteration on PRICE. Excel's values of every PRICE and YIELD cell of
ironcalc_PRICE_YIELD.xlsx, read from the corpus book at test time; Microsoft's examples."""

from __future__ import annotations

import datetime

import pytest

from rates_xl.calc.check import agrees
from rates_xl.calc.engines.formualizer.values import error
from rates_xl.calc.xlfuncs.financial import bondprice
from tests.calc.excel_cases import corpus_book, date_serial, serial

PRICE = bondprice.FUNCTIONS["PRICE"]({})
YIELD = bondprice.FUNCTIONS["YIELD"]({})


def test_every_price_and_yield_cell_of_the_corpus_book_as_excel():
    import openpyxl

    formulas = openpyxl.load_workbook(corpus_book("ironcalc_PRICE_YIELD.xlsx"))["PRICE_YIELD"]
    values = openpyxl.load_workbook(corpus_book("ironcalc_PRICE_YIELD.xlsx"), data_only=True)["PRICE_YIELD"]
    checked = 0
    for row in formulas.iter_rows(min_row=2):
        for cell in row:
            text = cell.value
            if not (isinstance(text, str) and text.startswith(("=PRICE(", "=YIELD("))):
                continue
            refs = text[text.index("(") + 1:-1].split(",")
            args = [serial(values[ref].value) for ref in refs]
            ours = (PRICE if text.startswith("=PRICE") else YIELD)(*args)
            excel = values[cell.coordinate].value
            if isinstance(excel, str):
                assert ours == error(excel), (cell.coordinate, ours, excel)
            else:
                assert agrees(ours, excel), (cell.coordinate, ours, excel)
            checked += 1
    assert checked == 30


def test_microsofts_examples():
    price = PRICE(date_serial(2008, 2, 15), date_serial(2017, 11, 15), 0.0575, 0.065, 100.0, 2.0, 0.0)
    assert round(price, 5) == 94.63436
    found = YIELD(date_serial(2008, 2, 15), date_serial(2016, 11, 15), 0.0575, 95.04287, 100.0, 2.0, 0.0)
    assert round(found, 4) == 0.065


@pytest.mark.parametrize("basis", range(5))
def test_one_period_or_less_is_the_closed_form(basis):
    """Within the last coupon period PRICE discounts at simple interest: YIELD is its formula
    solved for the yield, whatever the sign (a price above the redemption and coupon gives a
    yield below -frequency, which PRICE's formula still prices)."""
    settlement, maturity = date_serial(2024, 3, 10), date_serial(2024, 8, 31)
    for price in (99.0, 101.5, 250.0, 1e4):
        found = YIELD(settlement, maturity, 0.05, price, 100.0, 2.0, float(basis))
        # (PRICE itself refuses a negative yield: its formula, unchecked)
        priced = bondprice.price(datetime.date(2024, 3, 10), datetime.date(2024, 8, 31), 0.05, found, 100.0, 2, basis)
        assert priced == pytest.approx(price, rel=1e-13)
    assert YIELD(settlement, maturity, 0.05, 1e4, 100.0, 2.0, float(basis)) < -2


def test_newton_agrees_with_the_price_to_the_last_bits():
    settlement, maturity = date_serial(2021, 1, 31), date_serial(2051, 7, 31)
    for basis in range(5):
        for target in (0.001, 0.04, 0.25, -0.02):
            price = PRICE(settlement, maturity, 0.03, max(target, 0.0), 100.0, 4.0, float(basis))
            found = YIELD(settlement, maturity, 0.03, price, 100.0, 4.0, float(basis))
            assert found == pytest.approx(max(target, 0.0), rel=1e-12, abs=1e-15), (basis, target)
