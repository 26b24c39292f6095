"""MINVERSE to Excel's last digit: an LU factorisation with partial pivoting (Doolittle, the
row of the largest pivot swapped up) then forward and back substitution for each column of
the identity. numpy's LAPACK inverse (which `formulas` uses) rounds differently: on
formulas_test.xlsx MINVERSE({1,2,3;2,5,6;7,8,9}) Excel has -2.04514767694108E-17 where numpy
gives 0, and these steps give Excel's value. The argument checks and errors stay `formulas`'
(bridged); only a numeric answer is recomputed here. A few lines, so no library for it."""

from __future__ import annotations

from rates_xl.calc.engines.formualizer.values import error, is_error
from rates_xl.calc.xlfuncs.bridge import bridged
from rates_xl.calc.xlfuncs.coercion import Callback, Facts
from rates_xl.calc.xlfuncs.types import Answer, EngineValue


def inverse(matrix: list[list[float]]) -> list[list[float]] | None:
    """The inverse of a square matrix, or None when a pivot is 0 (singular: Excel's #NUM!).

    Each step as the element-by-element loops wrote it (tests/calc/test_matrix_inverse.py keeps
    those loops and compares every digit), a row or a block at a time in numpy: each element's
    product and difference are the same two IEEE operations in the same order, and the sums of
    the substitutions add their terms in the same order, from 0. In Python loops a 1,000 x 1,000
    matrix took minutes (a billion steps, the book's budget cancels only between cells)."""
    import numpy as np

    n = len(matrix)
    lu = np.array(matrix, dtype=float).reshape(n, n)
    order = np.arange(n)
    for k in range(n):
        pivot = k + int(np.argmax(np.abs(lu[k:, k])))  # (the first largest, as max() picks)
        if lu[pivot, k] == 0:
            return None
        if pivot != k:
            lu[[k, pivot]] = lu[[pivot, k]]
            order[[k, pivot]] = order[[pivot, k]]
        lu[k + 1:, k] /= lu[k, k]
        lu[k + 1:, k + 1:] -= np.outer(lu[k + 1:, k], lu[k, k + 1:])
    identity = (order[:, None] == np.arange(n)[None, :]).astype(float)  # row i: 1.0 in column order[i]
    # Forward: y[i] = e[i] - (0 + l[i,0] y[0] + l[i,1] y[1] + ...), every column at once; each row's
    # sum gets its terms in order of j as each y[j] is known.
    y = np.empty((n, n))
    sums = np.zeros((n, n))
    for j in range(n):
        y[j] = identity[j] - sums[j]
        sums[j + 1:] += np.outer(lu[j + 1:, j], y[j])
    # Back: x[i] = (y[i] - (0 + u[i,i+1] x[i+1] + ... + u[i,n-1] x[n-1])) / u[i,i], the terms in
    # that order (rising j, so row by row: x[j] for j > i known first).
    answer = np.empty((n, n))
    for i in reversed(range(n)):
        total = np.zeros(n)
        for j in range(i + 1, n):
            total += lu[i, j] * answer[j]
        answer[i] = (y[i] - total) / lu[i, i]
    return answer.tolist()


def _numbers(value: EngineValue) -> list[list[float]] | None:
    rows = value if isinstance(value, list) else [[value]]
    numbers = [[x for x in row if isinstance(x, int | float) and not isinstance(x, bool)] for row in rows]
    if any(len(found) < len(row) for found, row in zip(numbers, rows, strict=True)):
        return None
    if len({len(row) for row in rows}) != 1 or len(rows) != len(rows[0]):
        return None
    return numbers


def minverse(_facts: Facts) -> Callback:
    computed = bridged("MINVERSE")

    def MINVERSE(array: EngineValue) -> Answer:  # noqa: N802
        answer = computed(array)
        matrix = _numbers(array)
        if is_error(answer) or matrix is None:
            return answer
        exact = inverse(matrix)
        if exact is None:
            return error("#NUM!")
        return exact[0][0] if len(exact) == 1 and not isinstance(answer, list) else exact
    return MINVERSE


FUNCTIONS = {"MINVERSE": minverse}
