"""MINVERSE's own inverse (calc/xlfuncs/math_trig/matrix.py) in numpy, digit for digit the
element-by-element loops it replaced (kept here as the reference): Excel's last digits
(formulas_test.xlsx MINVERSE({1,2,3;2,5,6;7,8,9}) is -2.04514767694108E-17 where LAPACK gives 0)
stay, and a large matrix is seconds, not minutes."""

from __future__ import annotations

import random

import pytest

from rates_xl.calc.xlfuncs.math_trig.matrix import inverse


def _loops(matrix):
    """The inverse as the loops computed it: Doolittle LU with partial pivoting, then forward
    and back substitution for each column of the identity."""
    n = len(matrix)
    lu = [list(map(float, row)) for row in matrix]
    order = list(range(n))
    for k in range(n):
        pivot = max(range(k, n), key=lambda r: abs(lu[r][k]))
        if lu[pivot][k] == 0:
            return None
        lu[k], lu[pivot] = lu[pivot], lu[k]
        order[k], order[pivot] = order[pivot], order[k]
        for i in range(k + 1, n):
            lu[i][k] /= lu[k][k]
            for j in range(k + 1, n):
                lu[i][j] -= lu[i][k] * lu[k][j]
    answer = [[0.0] * n for _ in range(n)]
    for column in range(n):
        y = [0.0] * n
        for i in range(n):
            y[i] = (1.0 if order[i] == column else 0.0) - sum(lu[i][j] * y[j] for j in range(i))
        for i in reversed(range(n)):
            answer[i][column] = (y[i] - sum(lu[i][j] * answer[j][column] for j in range(i + 1, n))) / lu[i][i]
    return answer


def _bits(matrix):
    return None if matrix is None else [[float(v).hex() for v in row] for row in matrix]


def test_the_digits_of_formulas_tests_matrix():
    found = inverse([[1, 2, 3], [2, 5, 6], [7, 8, 9]])
    assert found is not None and f"{found[1][2]:.14E}" == "-2.04514767694108E-17"  # Excel's, to its 15 digits
    assert _bits(found) == _bits(_loops([[1, 2, 3], [2, 5, 6], [7, 8, 9]]))


@pytest.mark.parametrize("kind", ["uniform", "integers", "wide", "ties", "singular", "negative zeros"])
def test_every_digit_as_the_loops_computed_it(kind):
    rng = random.Random(f"minverse-{kind}")
    for _ in range(30):
        n = rng.randint(1, 14)
        if kind == "uniform":
            m = [[rng.uniform(-1, 1) for _ in range(n)] for _ in range(n)]
        elif kind == "integers":
            m = [[rng.randint(-9, 9) for _ in range(n)] for _ in range(n)]
        elif kind == "wide":
            m = [[rng.uniform(-1, 1) * 10 ** rng.randint(-150, 150) for _ in range(n)] for _ in range(n)]
        elif kind == "ties":  # equal magnitudes in a column: the first largest is the pivot
            m = [[rng.choice([-2, -1, 1, 2]) for _ in range(n)] for _ in range(n)]
        elif kind == "singular":
            m = [[rng.randint(-3, 3) for _ in range(n)] for _ in range(n)]
            if n > 1:
                m[-1] = [a + b for a, b in zip(m[0], m[1 % n], strict=True)]
        else:
            m = [[rng.choice([0.0, -0.0, 1.0, -1.0, 0.5]) for _ in range(n)] for _ in range(n)]
        assert _bits(inverse(m)) == _bits(_loops(m)), m
