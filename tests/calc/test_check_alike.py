"""calc/check.py's ALIKE: the pairs of classes recalc.compare takes as agreeing when their
values are equal, without asking `agrees`, agree by `agrees` too."""

from __future__ import annotations

import pytest

from rates_xl.calc.check import ALIKE, agrees

EQUAL = [(0, 0.0), (1, 1.0), (-3, -3.0), (2**53, float(2**53)), (10**20, 1e20), (0, -0.0)]


@pytest.mark.parametrize(("number", "real"), EQUAL)
def test_an_int_and_an_equal_float_agree(number: int, real: float) -> None:
    assert (type(number), type(real)) in ALIKE and (type(real), type(number)) in ALIKE
    assert number == real and agrees(number, real) and agrees(real, number)


def test_a_boolean_is_not_alike_a_number() -> None:
    assert (bool, float) not in ALIKE and (bool, int) not in ALIKE
    assert not agrees(True, 1.0) and not agrees(1, True)
