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
    """The inverse of a square matrix, or None when a pivot is 0 (singular: Excel's #NUM!)."""
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
