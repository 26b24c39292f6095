"""BESSELI, BESSELJ, BESSELK and BESSELY as Excel computes them: not the exact functions
(scipy's, which `formulas` uses) but the classic polynomial and rational approximations of
Abramowitz & Stegun 9.4 / 9.8 (the ones Numerical Recipes prints), with recurrence in the
order: Excel's answers differ from the exact ones from the 8th digit (BESSELI(1,0) is
1.2660658480342601 in Excel, 1.2660658777520082 exactly) and these reproduce them to the
last digit on ../shared/corpus/excel (formulas_test.xlsx ENGINEERING rows 3-6). No library
ships these approximations, hence written here.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable

from rates_xl.calc.engines.formualizer.values import EngineValue, error, is_error
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Factory, Facts, number
from rates_xl.errors import Internal

_ACC = 40.0  # Miller's downward recurrence: start this far above n (sqrt(ACC * n))
_BIG, _SMALL = 1.0e10, 1.0e-10  # rescaling in the downward recurrence

#: The largest order taken: Microsoft's pages say only that n < 0 is #NUM!; LibreOffice reads the
#: order as a 32-bit integer (BESSELJ(1,2147483648): Err:502, invalid argument). Past it #NUM!,
#: where the recurrences below would run for hours (an order of 1E+15 never returned).
LARGEST_ORDER = 2**31 - 1

#: ln of a magnitude below the smallest double (4.9E-324): an answer bounded by it is 0.
_UNDERFLOW = -746.0

#: Orders from which `_underflows` is asked (below, the recurrences are quick and answer as before).
_LONG = 10_000

#: The most steps a recurrence takes (about 0.2 CPU s): BESSELJ(1E+10,2E+9) needs two billion
#: (minutes), with an answer neither underflowing nor overflowing that no shortcut gives. Past it
#: #NUM! at once: Microsoft's pages set no bound on the order, and an error in the cell says what
#: an answer after minutes would not (the budget cancels only between cells).
STEPS = 1_000_000


def _within(steps: int) -> None:
    if steps > STEPS:
        raise ExcelError("#NUM!")


def _underflows(x: float, n: int, growth: float) -> bool:
    """Whether |J_n(x)| or |I_n(x)|, at most (|x|/2)^n / n! * e^growth (DLMF 10.14.4; for I the
    series (x/2)^n sum (x^2/4)^k / (k! (n+k)!) term by term, (n+k)! >= n! (n+1)^k: growth
    x^2/(4(n+1))), is below the smallest double: the recurrences' many steps then end at 0 too
    (LibreOffice: BESSELJ(1,100000) 0), without running them."""
    return n >= _LONG and n * math.log(abs(x) / 2.0) - math.lgamma(n + 1.0) + growth < _UNDERFLOW


def _poly(y: float, coefficients: tuple[float, ...]) -> float:
    """c0 + y * (c1 + y * (c2 + ...)), evaluated in Horner's order as the originals are."""
    total = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        total = c + y * total
    return total


_J0_R = (57568490574.0, -13362590354.0, 651619640.7, -11214424.18, 77392.33017, -184.9052456)
_J0_S = (57568490411.0, 1029532985.0, 9494680.718, 59272.64853, 267.8532712, 1.0)
_P0 = (1.0, -0.1098628627e-2, 0.2734510407e-4, -0.2073370639e-5, 0.2093887211e-6)
_Q0 = (-0.1562499995e-1, 0.1430488765e-3, -0.6911147651e-5, 0.7621095161e-6, -0.934945152e-7)
_J1_R = (72362614232.0, -7895059235.0, 242396853.1, -2972611.439, 15704.48260, -30.16036606)
_J1_S = (144725228442.0, 2300535178.0, 18583304.74, 99447.43394, 376.9991397, 1.0)
_P1 = (1.0, 0.183105e-2, -0.3516396496e-4, 0.2457520174e-5, -0.240337019e-6)
_Q1 = (0.04687499995, -0.2002690873e-3, 0.8449199096e-5, -0.88228987e-6, 0.105787412e-6)
_Y0_R = (-2957821389.0, 7062834065.0, -512359803.6, 10879881.29, -86327.92757, 228.4622733)
_Y0_S = (40076544269.0, 745249964.8, 7189466.438, 47447.26470, 226.1030244, 1.0)
_Y1_R = (-0.4900604943e13, 0.1275274390e13, -0.5153438139e11, 0.7349264551e9, -0.4237922726e7,
         0.8511937935e4)
_Y1_S = (0.2499580570e14, 0.4244419664e12, 0.3733650367e10, 0.2245904002e8, 0.1020426050e6,
         0.3549632885e3, 1.0)
_I0_SMALL = (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2)
_I0_LARGE = (0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1,
             0.2635537e-1, -0.1647633e-1, 0.392377e-2)
_I1_SMALL = (0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3)
_I1_LARGE = (0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1, 0.2282967e-1,
             -0.2895312e-1, 0.1787654e-1, -0.420059e-2)
_K0_SMALL = (-0.57721566, 0.42278420, 0.23069756, 0.3488590e-1, 0.262698e-2, 0.10750e-3, 0.74e-5)
_K0_LARGE = (1.25331414, -0.7832358e-1, 0.2189568e-1, -0.1062446e-1, 0.587872e-2, -0.251540e-2,
             0.53208e-3)
_K1_SMALL = (1.0, 0.15443144, -0.67278579, -0.18156897, -0.1919402e-1, -0.110404e-2, -0.4686e-4)
_K1_LARGE = (1.25331414, 0.23498619, -0.3655620e-1, 0.1504268e-1, -0.780353e-2, 0.325614e-2,
             -0.68245e-3)


def _asymptotic(ax: float, shift: float, p: tuple[float, ...], q: tuple[float, ...], sine: bool) -> float:
    z = 8.0 / ax
    y = z * z
    xx = ax - shift
    if sine:  # Y0, Y1
        return math.sqrt(0.636619772 / ax) * (math.sin(xx) * _poly(y, p) + z * math.cos(xx) * _poly(y, q))
    return math.sqrt(0.636619772 / ax) * (math.cos(xx) * _poly(y, p) - z * math.sin(xx) * _poly(y, q))


def j0(x: float) -> float:
    ax = abs(x)
    if ax < 8.0:
        y = x * x
        return _poly(y, _J0_R) / _poly(y, _J0_S)
    return _asymptotic(ax, 0.785398164, _P0, _Q0, sine=False)


def j1(x: float) -> float:
    ax = abs(x)
    if ax < 8.0:
        y = x * x
        return x * _poly(y, _J1_R) / _poly(y, _J1_S)
    answer = _asymptotic(ax, 2.356194491, _P1, _Q1, sine=False)
    return -answer if x < 0 else answer


def y0(x: float) -> float:
    if x < 8.0:
        y = x * x
        return _poly(y, _Y0_R) / _poly(y, _Y0_S) + 0.636619772 * j0(x) * math.log(x)
    return _asymptotic(x, 0.785398164, _P0, _Q0, sine=True)


def y1(x: float) -> float:
    if x < 8.0:
        y = x * x
        return x * _poly(y, _Y1_R) / _poly(y, _Y1_S) + 0.636619772 * (j1(x) * math.log(x) - 1.0 / x)
    return _asymptotic(x, 2.356194491, _P1, _Q1, sine=True)


def i0(x: float) -> float:
    ax = abs(x)
    if ax < 3.75:
        return _poly((x / 3.75) ** 2, _I0_SMALL)
    return math.exp(ax) / math.sqrt(ax) * _poly(3.75 / ax, _I0_LARGE)


def i1(x: float) -> float:
    ax = abs(x)
    if ax < 3.75:
        answer = ax * _poly((x / 3.75) ** 2, _I1_SMALL)
    else:
        answer = _poly(3.75 / ax, _I1_LARGE) * (math.exp(ax) / math.sqrt(ax))
    return -answer if x < 0 else answer


def k0(x: float) -> float:
    if x <= 2.0:
        return -math.log(x / 2.0) * i0(x) + _poly(x * x / 4.0, _K0_SMALL)
    return math.exp(-x) / math.sqrt(x) * _poly(2.0 / x, _K0_LARGE)


def k1(x: float) -> float:
    if x <= 2.0:
        return math.log(x / 2.0) * i1(x) + (1.0 / x) * _poly(x * x / 4.0, _K1_SMALL)
    return math.exp(-x) / math.sqrt(x) * _poly(2.0 / x, _K1_LARGE)


def besselj(x: float, n: int) -> float:
    ax = abs(x)
    if n == 0:
        return j0(ax)
    if n == 1:
        answer = j1(ax)
    elif ax == 0.0 or _underflows(ax, n, 0.0):
        return 0.0
    elif ax > n:  # upward recurrence is stable here
        _within(n)
        tox = 2.0 / ax
        below, answer = j0(ax), j1(ax)
        for j in range(1, n):
            below, answer = answer, j * tox * answer - below
    else:  # Miller's downward recurrence, normalised by J0 + 2 J2 + 2 J4 ... = 1
        tox = 2.0 / ax
        m = 2 * ((n + int(math.sqrt(_ACC * n))) // 2)
        _within(m)
        even, total, answer, above, bj = False, 0.0, 0.0, 0.0, 1.0
        for j in range(m, 0, -1):
            above, bj = bj, j * tox * bj - above
            if abs(bj) > _BIG:
                bj, above, answer, total = bj * _SMALL, above * _SMALL, answer * _SMALL, total * _SMALL
            if even:
                total += bj
            even = not even
            if j == n:
                answer = above
        answer /= 2.0 * total - bj
    return -answer if x < 0 and n % 2 else answer


def bessely(x: float, n: int) -> float:
    if n == 0:
        return y0(x)
    below, answer = y0(x), y1(x)
    tox = 2.0 / x
    for j in range(1, n):
        below, answer = answer, j * tox * answer - below
        if not math.isfinite(answer):  # stays so to the end: #NUM! now, not after n steps
            break
        if j == STEPS:  # still finite (|x| past the order): more steps than a call may take
            _within(n)
    return answer


def besseli(x: float, n: int) -> float:
    if n == 0:
        return i0(x)
    if n == 1:
        return i1(x)
    if x == 0.0 or _underflows(x, n, x * x / 4.0):
        return 0.0
    # The normalisation below, past |x| 709, overflows (#NUM!, as after all the steps), and
    # with the series' finer bound many more orders underflow (0, as after all the steps).
    if math.isinf(i0(x)) or _underflows(x, n, x * x / (4.0 * (n + 1))):
        return 0.0 if math.isfinite(i0(x)) else math.inf
    _within(2 * (n + int(math.sqrt(_ACC * n))))
    tox = 2.0 / abs(x)
    answer, above, bi = 0.0, 0.0, 1.0
    for j in range(2 * (n + int(math.sqrt(_ACC * n))), 0, -1):
        above, bi = bi, above + j * tox * bi
        if abs(bi) > _BIG:
            answer, bi, above = answer * _SMALL, bi * _SMALL, above * _SMALL
        if j == n:
            answer = above
    answer *= i0(x) / bi
    return -answer if x < 0 and n % 2 else answer


def besselk(x: float, n: int) -> float:
    if n == 0:
        return k0(x)
    below, answer = k0(x), k1(x)
    if below == 0.0 and answer == 0.0:  # both underflowed (x past 700): the recurrence's every step is 0
        return 0.0
    tox = 2.0 / x
    for j in range(1, n):
        below, answer = answer, below + j * tox * answer
        if not math.isfinite(answer):  # stays so to the end: #NUM! now, not after n steps
            break
        if j == STEPS:
            _within(n)
    return answer


def _argument(value: EngineValue) -> float:
    """One argument as Excel reads it here; an error argument is raised as itself."""
    if isinstance(value, list):  # an Analysis ToolPak function: a range is #VALUE!, not lifted
        cells = [cell for row in value for cell in (row if isinstance(row, list) else [row])]
        if len(cells) != 1:
            raise ExcelError("#VALUE!")
        value = cells[0]
    if is_error(value):
        raise _Given(value)
    if isinstance(value, bool):
        raise ExcelError("#VALUE!")  # Excel refuses a boolean here, even TRUE
    return number(value)


class _Given(Internal):
    def __init__(self, value: EngineValue) -> None:
        super().__init__("error argument")
        self.value = value


def _excel(compute: Callable[[float, int], float], positive: bool) -> Factory:
    def factory(_facts: Facts) -> Callback:
        def call(x: EngineValue, n: EngineValue = None) -> EngineValue:
            try:
                value, order = _argument(x), int(_argument(n))  # Excel truncates the order
                if order < 0 or order > LARGEST_ORDER or (positive and value <= 0):
                    raise ExcelError("#NUM!")
                answer = compute(value, order)
            except _Given as given:
                return given.value
            except ExcelError as exc:
                return error(exc.text)
            except (OverflowError, ValueError, ZeroDivisionError):
                return error("#NUM!")
            if not math.isfinite(answer):
                return error("#NUM!")
            # Below Excel's smallest positive number (Microsoft, "Excel specifications and limits":
            # 2.2251E-308) a magnitude is 0: BESSELK(720,1)'s 9.5E-315 (a subnormal double).
            return answer if abs(answer) >= sys.float_info.min else 0.0
        call.__name__ = compute.__name__.upper()
        return call
    return factory


FUNCTIONS = {
    "BESSELI": _excel(besseli, positive=False),
    "BESSELJ": _excel(besselj, positive=False),
    "BESSELK": _excel(besselk, positive=True),
    "BESSELY": _excel(bessely, positive=True),
}
