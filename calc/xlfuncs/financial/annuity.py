"""NPER and FV as Excel computes them (ironcalc_PMT.xlsx): any non-zero `type` means payments
at the start of the period (5, -1 and 1.234 all do; `formulas` answers #VALUE!), and at a
rate of 0 the type plays no part (NPER(0,-133.33,100,300,1) is 3; `formulas` gives 1.5).
PMT and PV, the same annuity read the other ways, are in payments.py. CUMIPMT and CUMPRINC sum
IPMT's and PPMT's over whole periods; RATE solves FV's balance for the rate by Newton's iteration."""

from __future__ import annotations

import math

from rates_xl.calc.engines.formualizer.values import EngineValue, error, is_error
from rates_xl.calc.xlfuncs.coercion import (
    Callback,
    ExcelError,
    Facts,
    elementwise,
    is_number,
    number,
)
from rates_xl.calc.xlfuncs.financial.moneymarket import NOT_COMPUTED
from rates_xl.calc.xlfuncs.financial.payments import payment
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted
from rates_xl.calc.xlfuncs.types import Answer


def _finite(value: EngineValue) -> float:
    if not isinstance(value, float) or not math.isfinite(value):
        raise ExcelError("#NUM!")
    return value


def nper(_facts: Facts) -> Callback:
    @elementwise
    def NPER(rate: EngineValue, payment: EngineValue, pv: EngineValue, fv: EngineValue = None, kind: EngineValue = None) -> float:  # noqa: N802
        r, m, p = number(rate), number(payment), number(pv)
        f, due = number(fv), 1.0 if number(kind) else 0.0
        if r == 0:
            if m == 0:
                raise ExcelError("#NUM!")
            return -(p + f) / m
        try:
            paid = m * (1 + r * due)
            ratio = (paid - f * r) / (paid + p * r)
            if ratio <= 0 or r <= -1:
                raise ExcelError("#NUM!")
            return _finite(math.log(ratio) / math.log(1 + r))
        except (ZeroDivisionError, OverflowError, ValueError):
            raise ExcelError("#NUM!") from None
    return NPER


def fv(_facts: Facts) -> Callback:
    @elementwise
    def FV(rate: EngineValue, nper: EngineValue, payment: EngineValue, pv: EngineValue = None, kind: EngineValue = None) -> float:  # noqa: N802
        r, n, m = number(rate), number(nper), number(payment)
        p, due = number(pv), 1.0 if number(kind) else 0.0
        try:  # (1 + r) ** n is complex for a rate below -100 % and a fractional nper
            value = _fv(r, n, m, p, due)
            return _finite(value) if r else value
        except ZeroDivisionError:
            # 0 to a negative power, at a rate of -100 %: Excel's FV(-1,-2,1) is #DIV/0!
            # (IronCalc's Excel-made FINANCIAL__FV.xlsx A1; formualizer and this: #NUM!)
            raise ExcelError("#DIV/0!") from None
        except (OverflowError, TypeError):
            raise ExcelError("#NUM!") from None
    return FV


def ppmt(_facts: Facts) -> Callback:
    """PPMT with payments at the end of the period, from the closed form
    -rate * (pv + fv) / ((1 + rate)^nper - 1) * (1 + rate)^(per - 1), as Excel evidently
    computes it: PMT minus IPMT (numpy_financial, which `formulas` uses) cancels to noise when
    the principal part is tiny (PPMT(2,3,33,10000,1): Excel -3.2382809621292E-11, the exact
    value; the difference -3.27E-11). The checks, arrays and payments at the start stay
    `formulas`' (bridged)."""
    from rates_xl.calc.xlfuncs.bridge import bridged

    computed = bridged("PPMT")

    def PPMT(*args: EngineValue) -> EngineValue:  # noqa: N802
        given = list(args)
        while given and given[-1] is None:
            given.pop()
        answer = computed(*given)
        if not isinstance(answer, float) or any(isinstance(a, list) for a in args):
            return answer
        try:
            r, per, n, pv, fv, due = (number(a) for a in (*args, None, None)[:6])
        except Exception:  # noqa: BLE001 - an argument read otherwise by `formulas`: keep its answer
            return answer
        if due or r == 0:
            return answer
        try:
            return _finite(-r * (pv + fv) / ((1 + r) ** n - 1) * (1 + r) ** (per - 1))
        except (ZeroDivisionError, OverflowError, ExcelError):
            return answer
    return PPMT


def _fv(r: float, n: float, payment: float, pv: float, due: float) -> float:
    """The balance after n payments, FV's formula without its checks (IPMT's too)."""
    if r == 0:
        return -(pv + payment * n)
    growth = (1 + r) ** n
    return -(pv * growth + payment * (1 + r * due) * (growth - 1) / r)


def ipmt(_facts: Facts) -> Callback:
    """IPMT as Excel computes it: the rate times the balance after per - 1 payments (FV), the
    first period's interest -pv * rate (none when payments fall at its start), any sign.
    `formulas` answered #NUM! for every positive interest (a loan entered as a negative pv,
    a negative rate): IPMT(5%, 1, 10, -1000) is 50 in Excel. Checked against LibreOffice,
    which computes it so (tests/calc/test_annuities.py)."""

    @elementwise
    def IPMT(rate: EngineValue, per: EngineValue, nper: EngineValue, pv: EngineValue, fv: EngineValue = None, kind: EngineValue = None) -> float:  # noqa: N802
        r, k, n, p = number(rate), number(per), number(nper), number(pv)
        f, due = number(fv), 1.0 if number(kind) else 0.0
        if k < 1 or k >= n + 1 or n <= 0:
            raise ExcelError("#NUM!")
        try:
            return _finite(interest(r, k, n, p, f, due, payment(r, n, p, f, due))) + 0.0  # (no -0.0)
        except (ZeroDivisionError, OverflowError, TypeError):
            raise ExcelError("#NUM!") from None
    return IPMT


def interest(r: float, k: float, n: float, p: float, f: float, due: float, paid: float) -> float:
    """The interest part of payment k (IPMT's formula without its checks; `paid` is PMT's)."""
    if k == 1:
        balance = 0.0 if due else -p
    elif due:
        balance = _fv(r, k - 2, paid, p, 1.0) - paid
    else:
        balance = _fv(r, k - 1, paid, p, 0.0)
    return float(balance * r)


def principal(r: float, k: float, n: float, p: float, due: float) -> float:
    """The principal part of payment k of a loan with no balloon (fv 0), PPMT's closed form:
    -rate * pv / ((1 + rate)^nper - 1) * (1 + rate)^(k - 1), the whole payment in the first
    period when payments fall at its start, and a period's principal 1 + rate smaller
    otherwise when they do (payment less interest cancels to noise: `ppmt` says why)."""
    if due and k == 1:
        return payment(r, n, p, 0.0, 1.0)
    part = -r * p / ((1 + r) ** n - 1) * (1 + r) ** (k - 1)
    return part / (1 + r) if due else part


def _cumulative(bridged: Callback, part: str) -> Callback:
    """CUMIPMT or CUMPRINC (`part` "interest" or "principal"): IPMT's or PPMT's summed over the
    whole periods from start_period to end_period, in order, computed here on plain numbers.
    A fractional start counts from the next whole period and a fractional end to the one
    before it: Excel 2010's answers (fsprojects/ExcelFinancialFunctions' testdata, cumipmt.test
    and cumprinc.test: CUMIPMT(0.6,2,100,1.3,2,0) is -36.92307692308, period 2's interest
    alone; CUMIPMT(0.6,10,100,2.5,3,1) is period 3's) where `formulas`, LibreOffice and
    formualizer truncate both; where no whole period lies between them (1.3 to 1.5), #NAME?,
    listed (moneymarket.NOT_COMPUTED). nper is not truncated (CUMPRINC(0.6,2.7,100,1,2,1) is
    -75.62572605002 in Excel). The checks are Microsoft's (#NUM! for a rate, nper or pv <= 0, a
    period below 1, start after end, a type but 0 or 1) and a period past nper (#NUM!, as
    `formulas`); an error argument is passed on (the first), anything else but numbers (text, a
    logical, an array, an empty cell) goes on to the bridged `formulas` one. Computing CUMIPMT here
    spared the loan tracker's run `formulas`' import (0.05 CPU s)."""

    def call(*args: EngineValue) -> Answer:
        first_error = next((a for a in args if is_error(a)), None)
        if first_error is not None:
            return first_error
        if len(args) != 6 or not all(is_number(a) for a in args):
            return bridged(*args)
        r, n, p, start, end, due = (float(a) for a in args)  # type: ignore[arg-type]  # numbers (is_number)
        if r <= 0 or n <= 0 or p <= 0 or start < 1 or end < 1 or start > end or due not in (0, 1) \
                or n < start or end > n:
            return error("#NUM!")
        periods = range(math.ceil(start), math.floor(end) + 1)
        if not periods:  # no whole period from start to end (1.3 to 1.5): neither the data nor
            return error(NOT_COMPUTED)  # Microsoft's page says whether Excel answers 0 or #NUM!
        try:
            if part == "principal":
                return _finite(sum(principal(r, k, n, p, due) for k in periods) + 0.0)
            paid = payment(r, n, p, 0.0, due)
            return _finite(sum(interest(r, k, n, p, 0.0, due, paid) for k in periods) + 0.0)
        except (ZeroDivisionError, OverflowError, TypeError, ExcelError):
            return error("#NUM!")
    return call


def cumipmt(_facts: Facts) -> Callback:
    from rates_xl.calc.xlfuncs.bridge import bridged

    return _cumulative(bridged("CUMIPMT"), "interest")


def cumprinc(_facts: Facts) -> Callback:
    from rates_xl.calc.xlfuncs.bridge import bridged

    return _cumulative(bridged("CUMPRINC"), "principal")


#: RATE's Newton iteration: the step below which it has converged (Microsoft: "within
#: 0.0000001"), and the most steps taken. Microsoft documents 20; LibreOffice takes 150
#: (sc/source/core/tool/interpr2.cxx, RateIteration), as it must: a 30-year monthly loan from
#: the default guess of 10 % (RATE(360,-600,100000)) needs 37 steps, and the bridged `formulas`
#: one (numpy_financial's Newton, up to 1,000 steps) answers it too (tests/calc/test_rate.py).
RATE_TOLERANCE, RATE_STEPS = 1e-7, 150
#: RATE's arguments (nper, pmt, pv, fv, type, guess) where one is omitted: Microsoft's defaults.
_RATE_DEFAULTS = (0.0, 0.0, 0.0, 0.0, 0.0, 0.1)


def solve_rate(n: float, m: float, p: float, f: float, due: float, guess: float) -> float:
    """The rate at which FV's balance is 0: fv + pv (1+r)^n + pmt (1 + r due) ((1+r)^n - 1) / r,
    by Newton's iteration from `guess` (its limit n and n (n-1) / 2 at r = 0, as LibreOffice).
    #NUM! where it does not settle, a rate of -100 % or below (Excel, per LibreOffice's note
    there), or a fractional nper taken below -100 % (a power of a negative number)."""
    r = guess
    whole = n == math.floor(n)
    for _ in range(RATE_STEPS):
        if r <= -1 and not whole:
            raise ExcelError("#NUM!")
        if r == 0:
            below, power, series, slope = 1.0, 1.0, n, n * (n - 1) / 2
        else:
            if -1e-4 < r < 1e-4:  # (1+r)^n and ((1+r)^n - 1) / r without cancelling near r = 0 (further
                # out, as numpy_financial computes them: the same last digit on the corpus)
                grown = n * math.log1p(r)
                power, series = math.exp(grown), math.expm1(grown) / r
            else:
                power = (1 + r) ** n
                series = (power - 1) / r
            below = power / (1 + r)
            # the series' derivative, (n (1+r)^(n-1) - series) / r; near 0 its Taylor terms (the
            # difference cancels to noise there, and a wild slope is a tiny step: a false root)
            slope = (n * below - series) / r if abs(r) >= 1e-4 else n * (n - 1) / 2 + n * (n - 1) * (n - 2) / 6 * r
        paid = m * (1 + r * due)
        value = f + p * power + paid * series
        derivative = p * n * below + paid * slope + m * due * series
        step = value / derivative
        if not math.isfinite(step):
            break
        r -= step
        if abs(step) < RATE_TOLERANCE:
            if r <= -1:
                break
            return r + 0.0  # (no -0.0)
    raise ExcelError("#NUM!")


def _rate(bridged: Callback) -> Callback:
    """RATE computed here on plain numbers (an empty cell 0, a logical 1 or 0, an omitted
    argument Microsoft's default: fv and type 0, guess 10 %), any non-zero type as payments at
    the start (as PMT, NPER: ironcalc_PMT.xlsx); an error passed on (the first), one array
    argument of them answered element by element. The bridged `formulas` one (numpy_financial's
    rate, Newton on numpy scalars, up to 1,000 steps where it does not settle) cost 0.06 CPU s
    of formulas_test.xlsx's run. A call with text or several arrays goes on to it: its coercions
    and lifting are the ones the corpus measured."""

    def one(given: list[EngineValue]) -> Answer:
        first_error = next((a for a in given if is_error(a)), None)
        if first_error is not None:
            return first_error
        n, m, p, f, due, guess = (float(a or 0.0) for a in (*given, *_RATE_DEFAULTS[len(given):]))  # type: ignore[arg-type]  # numbers, logicals, None
        try:
            return solve_rate(n, m, p, f, 1.0 if due else 0.0, guess)
        except ExcelError as exc:
            return error(exc.text)
        except (ZeroDivisionError, OverflowError, TypeError):
            return error("#NUM!")

    def RATE(*args: EngineValue) -> Answer:  # noqa: N802
        given = [_RATE_DEFAULTS[i] if a == OMITTED and i < len(_RATE_DEFAULTS) else a
                 for i, a in enumerate(args)]
        arrays = [i for i, a in enumerate(given) if isinstance(a, list)]
        values = [v for a in given for v in (
            (v for row in a for v in (row if isinstance(row, list) else [row])) if isinstance(a, list) else [a])]
        if not 3 <= len(given) <= 6 or len(arrays) > 1 or any(isinstance(v, str | list) for v in values):
            return bridged(*given)
        if not arrays:
            return one(given)
        k = arrays[0]
        return [[one([*given[:k], v, *given[k + 1:]]) for v in row] for row in given[k]]  # type: ignore[union-attr]  # the array (arrays)
    return reads_omitted(RATE)


def rate(_facts: Facts) -> Callback:
    from rates_xl.calc.xlfuncs.bridge import bridged

    return _rate(bridged("RATE"))
