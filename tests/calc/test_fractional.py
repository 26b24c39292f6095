"""DOLLARDE and DOLLARFR (calc/xlfuncs/financial/fractional.py): Microsoft's examples and
error rules, DOLLARDE's numerator unrounded (LibreOffice's answers, checked here), DOLLARFR as
formualizer computed it, to the bit."""

from __future__ import annotations

import random

import pytest

from rates_xl.calc.xlfuncs import callbacks

VALUE, NUM, DIV = ({"type": "Error", "kind": kind} for kind in ("Value", "Num", "Div"))


@pytest.fixture(scope="module")
def found():
    return callbacks()


@pytest.mark.parametrize(("args", "expected"), [
    ((1.02, 16.0), 1.125),  # Microsoft's examples: 1 and 2/16
    ((1.1, 32.0), 1.3125),  # 1 and 10/32
    ((15.58, 8.0), 15.725),  # LibreOffice: 15 + 5.8/8 (formualizer rounded 5.8 to 6: 15.75)
    ((-15.58, 8.0), -15.725),
    ((1.08, 16.9), 1.5),  # the fraction truncated
    ((1.5, 1.0), 1.5),
])
def test_dollarde(found, args, expected):
    assert found["DOLLARDE"](*args) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize(("name", "fraction", "expected"), [
    ("DOLLARDE", -1.0, NUM), ("DOLLARDE", 0.0, DIV), ("DOLLARDE", 0.5, DIV),  # Microsoft's pages
    ("DOLLARFR", -1.0, NUM), ("DOLLARFR", 0.0, DIV), ("DOLLARFR", 0.9, DIV),
    ("DOLLARDE", "x", VALUE),
])
def test_the_fraction_checked_as_microsoft_says(found, name, fraction, expected):
    assert found[name](1.5, fraction) == expected


def test_dollarfr_is_formualizers_to_the_bit(found):
    """DOLLARFR's arithmetic is formualizer's own: 300 random prices and fractions computed by
    formualizer itself (no function of ours registered) give the same bits."""
    import formualizer

    chance = random.Random(16)
    native = formualizer.Workbook()
    native.add_sheet("S")
    cases = []
    for row in range(1, 301):
        price, fraction = round(chance.uniform(-500, 500), chance.choice([2, 5, 9])), chance.choice([2, 4, 8, 10, 16, 32, 64, 100, 3.7])
        native.set_formula("S", row, 1, f"=DOLLARFR({price},{fraction})")
        cases.append((price, fraction))
    native.evaluate_all()
    for row, (price, fraction) in enumerate(cases, 1):
        assert found["DOLLARFR"](price, fraction) == native.get_value("S", row, 1), (price, fraction)
