"""Excel's limits on the answers of bridged `formulas` functions that compute without one:
hostile arguments must answer Excel's error at once, never hang the calculator (the budget
cancels only between cells) nor give a silently wrong number.

`formulas` 1.3.4 computes PERMUTATIONA(10,1E+300) as 10**1E+300 and PERMUT(1E+15,1) as two
exact factorials (both never return), REPT("x",1E+9) as a billion-character text, FACTDOUBLE
in numpy's int64 (FACTDOUBLE(300) wrapped to 0; its LCM, wrapped to a negative past 2^63, is
replaced by calc/xlfuncs/math_trig/divisors.py), PERCENTRANK.INC/EXC's truncation with
10**significance (never returned for a significance of 1E+15), REPT with a negative count as "" (Excel: #VALUE!), HYPGEOM.DIST
through scipy at any population (seconds to hours), MMULT as numpy's dot of object arrays (a
Python multiplication and addition per term, holding the interpreter throughout: two
2,000 x 2,000 matrices, 8 billion terms, ran for hours). `implementation` gives these functions
computed with Python's integers and stopped at Excel's limit, wrapped by the same `formulas` wrappers as the originals (their parsing,
errors and lifting over arrays unchanged); bridge.py's `_look_up` asks it first. Below each
limit the answers are the originals' exactly (tests/calc/test_limits.py compares them).

`bounded` is the net under every bridged answer: a number no float holds is #NUM!, a text
longer than a cell holds is #VALUE!; `capped` the same net for text under our own functions that
may answer a longer text than they are given (SUBSTITUTE, REPLACE, TEXT ...: `GROWING_TEXT`).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from rates_xl.calc.engines.formualizer.values import error
from rates_xl.functions.values import TEXT_LIMIT

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from rates_xl.calc.xlfuncs.coercion import Callback
    from rates_xl.calc.xlfuncs.types import Answer

#: The `formulas` release whose functions these follow (any other keeps its own).
READ_FROM = "1.3.4"

#: Excel's largest number (Microsoft, "Excel specifications and limits": 1.79769313486232E+308):
#: a larger answer is #NUM!.
LARGEST = sys.float_info.max
_LARGEST_INT = int(LARGEST)

#: Integers up to this one are answered as ints (as `formulas` answers them), larger ones as the
#: nearest float: the engine takes no int beyond 64 bits.
_EXACT = 2**53


def bounded(value: object) -> object:
    """`value` (a plain answer of a bridged function), or the error Excel shows for it: a
    number beyond Excel's largest or NaN is #NUM!, a text longer than a cell holds is #VALUE!."""
    if isinstance(value, float):
        return value if -LARGEST <= value <= LARGEST else error("#NUM!")  # NaN fails both
    if isinstance(value, int):  # a bool is within both
        return value if -_LARGEST_INT <= value <= _LARGEST_INT else error("#NUM!")
    if isinstance(value, str) and len(value) > TEXT_LIMIT:
        return error("#VALUE!")
    return value


#: Our functions (calc/xlfuncs/__init__.py OURS) whose text answer may be longer than any text
#: they are given: Microsoft's CONCAT page, "If the resulting string exceeds 32767 characters
#: (cell limit), CONCAT returns the #VALUE! error", holds for every function answering text.
GROWING_TEXT = frozenset({"SUBSTITUTE", "REPLACE", "REGEXREPLACE", "ARRAYTOTEXT", "VALUETOTEXT", "TEXT"})


def capped(call: Callback) -> Callback:
    """`call` (a callback of GROWING_TEXT) with each text of its answer longer than a cell holds
    as #VALUE! (an array's element by element)."""
    def capped_call(*args: object) -> Answer:
        return _within_limit(call(*args))

    capped_call.__name__ = getattr(call, "__name__", "capped")
    for attribute in ("reads_omitted",):  # what callbacks() reads off the callback
        if hasattr(call, attribute):
            setattr(capped_call, attribute, getattr(call, attribute))
    return capped_call


#: The function the pass `text_limit` (calc/formula/text_limit.py) wraps each join in.
TEXT_LIMIT_NAME = "RATESXL.TEXTLIMIT"


def text_limit(_facts: object) -> Callback:
    """RATESXL.TEXTLIMIT(value): `value` (a join's answer: text, or an array of texts) with each
    text longer than a cell holds as #VALUE! (Microsoft's CONCAT page), all else as it came."""
    def textlimit(value: Answer) -> Answer:
        return _within_limit(value)

    return textlimit


def _within_limit(answer: Answer) -> Answer:
    """`answer` with each text longer than a cell holds as #VALUE! (an array's element by
    element), all else as it came."""
    if isinstance(answer, str):
        return answer if len(answer) <= TEXT_LIMIT else error("#VALUE!")
    if isinstance(answer, list):
        return [[error("#VALUE!") if isinstance(v, str) and len(v) > TEXT_LIMIT else v
                 for v in (row if isinstance(row, list) else [row])] for row in answer]
    return answer


def growing_length(subject: str, old: str, new: str) -> int:
    """The length of `subject` with every `old` replaced by `new`, without building it
    (SUBSTITUTE(REPT("x",32767),"x",REPT("y",32767)) would be a billion characters)."""
    return len(subject) + subject.count(old) * (len(new) - len(old)) if old else len(subject)


def implementation(name: str) -> Callable[..., object] | None:
    """`formulas`' `name` stopped at Excel's limit, or None (another function, or another
    `formulas` release)."""
    builder = _BUILDERS.get(name)
    if builder is None:
        return None
    import formulas

    if formulas.__version__ != READ_FROM:
        return None
    return builder()


def _num() -> object:
    from formulas.functions import Error

    return Error.errors["#NUM!"]


def _number(answer: int) -> object:
    """An exact integer answer as `formulas` gives it (an int), #NUM! beyond Excel's largest."""
    if answer > _LARGEST_INT:
        return _num()
    return answer if answer <= _EXACT else float(answer)


def _product(factors: range) -> int | None:
    """The factors' product in Python's integers, or None once it passes Excel's largest number
    (factors of 1 or more, largest first: it passes within a few hundred factors, however many)."""
    product = 1
    for factor in factors:
        product *= factor
        if product > _LARGEST_INT:
            return None
    return product


def _permut() -> Callable[..., object]:
    from formulas.functions import wrap_ufunc

    def permut(number: float, number_chosen: float) -> object:
        # stat.py xpermut's checks; the product n(n-1)...(n-k+1) stopped once past Excel's
        # largest (Microsoft's PERMUT page: n!/(n-k)!) instead of two exact factorials: from
        # n downwards it passes it within 171 factors. float(product) is the correctly rounded
        # quotient xpermut's true division gives.
        n, k = int(number), int(number_chosen)
        if k < 0 or n < 0 or n < k:
            return _num()
        product = _product(range(n, n - k, -1))
        return _num() if product is None else float(product)

    return wrap_ufunc(permut)


def _permutationa() -> Callable[..., object]:
    from formulas.functions import wrap_ufunc

    def permutationa(number: float, number_chosen: float) -> object:
        # stat.py xpermutationa: n**k exactly, but #NUM! (Microsoft's PERMUTATIONA page: a
        # result too large) before computing a power of more bits than a float holds.
        if number_chosen < 0 or number < 0:
            return _num()
        n, k = int(number), int(number_chosen)
        if n > 1 and k * math.log2(n) > 1025:
            return _num()
        return _number(n**k)

    return wrap_ufunc(permutationa)


def _factdouble() -> Callable[..., object]:
    import schedula as sh
    from formulas.functions import Error, flatten, raise_errors, wrap_func

    def factdouble(number: object) -> object:
        # math.py xfactdouble, with the product n(n-2)(n-4)... in Python's integers, #NUM!
        # past Excel's largest (FACTDOUBLE(300): 8.15441406938059E+307, as LibreOffice, not
        # int64's 0).
        raise_errors(number)
        x = next(flatten(number, None))
        if x is sh.EMPTY:
            x = 0
        if isinstance(x, bool):
            return Error.errors["#VALUE!"]
        x = float(x)
        if x != x or x < -1:
            return _num()
        product = _product(range(max(int(x), 1), 0, -2))
        return _num() if product is None else _number(product)

    return wrap_func(factdouble)


def _rept() -> Callable[..., object]:
    from formulas.functions import Error, replace_empty, wrap_ufunc
    from formulas.functions.text import _kw0, _str

    def rept(text: object, number_times: object) -> object:
        # text.py xrept, with Microsoft's REPT page's limit checked before the text is made:
        # "If the result of the REPT function is longer than 32,767 characters, REPT returns
        # the #VALUE! error value."
        # A negative count is #VALUE! in Excel (text.py's Python repetition answered "").
        shown: str = _str(text)
        times = int(float(replace_empty(number_times)))
        if times < 0 or len(shown) * times > TEXT_LIMIT:
            return Error.errors["#VALUE!"]
        return shown * times

    return wrap_ufunc(rept, **_kw0)


#: MMULT's terms are summed in floats where that is what `formulas`' dot of objects computes:
#: every element a float, or an int whose products and sums stay whole below 2^53 (exact both
#: ways). Past it (ints whose exact sums Python keeps), and for any other element, its own.
_EXACT_TERMS = 2**53


def _mmult() -> Callable[..., object]:
    import numpy as np
    from formulas.functions import Array, Error, raise_errors, wrap_func
    from formulas.functions.math import xmmult

    def floats(x: object, y: object) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
        """Both matrices as float arrays, where summing in floats gives numpy's dot of the
        objects bit for bit (None: not so; its own dot then)."""
        a, b = np.asarray(x, dtype=object), np.asarray(y, dtype=object)
        if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0] or a.shape[1] == 0 or b.shape[1] == 0:
            return None
        largest = [0, 0]
        for side, matrix in enumerate((a, b)):
            for value in matrix.flat:
                kind = type(value)
                if kind is int:
                    largest[side] = max(largest[side], abs(value))
                elif kind is not float:
                    return None  # text, a boolean, an empty cell: its own checks and answer
        if largest[0] and largest[1] and largest[0] * largest[1] * a.shape[1] > _EXACT_TERMS:
            return None
        return a.astype(float), b.astype(float)

    def mmult(x: object, y: object) -> object:
        raise_errors(x, y)
        if any(isinstance(value, bool) for matrix in (x, y) for value in np.asarray(matrix, dtype=object).flat):
            # A logical value is #VALUE! in Excel, as text and an empty cell are (Microsoft's MMULT
            # page; IronCalc's Excel-made MATH_AND_TRIGONOMETRY__MMULT.xlsx E70:E74, MIT or
            # Apache-2.0); numpy's dot of objects counted TRUE as 1.
            return Error.errors["#VALUE!"]
        found = floats(x, y)
        if found is None:
            return xmmult(x, y)
        a, b = found
        # numpy's dot of objects: the first term, then each next one added, in order, one
        # rounding per operation, as here a column of terms at a time (each float operation
        # of numpy's is the IEEE one Python's float does).
        answer = a[:, :1] * b[:1, :]
        term = np.empty_like(answer)
        for k in range(1, a.shape[1]):
            np.multiply(a[:, k:k + 1], b[k:k + 1, :], out=term)
            np.add(answer, term, out=answer)
        return answer.view(Array)

    return wrap_func(mmult)


#: The largest significance whose 10**significance a float holds: past it PERCENTRANK's truncation
#: has no answer (LibreOffice: PERCENTRANK({1,2,3,5},4,400) #NUM!; Microsoft's page gives none).
_LARGEST_SIGNIFICANCE = 308


def _percentrank(exclusive: bool) -> Callable[[], Callable[..., object]]:
    def build() -> Callable[..., object]:
        import functools

        from formulas.functions import XlError, wrap_ufunc
        from formulas.functions.stat import _percentrank_kw, xpercentrank

        def percentrank(exc: bool, vals: object, x: object, significance: object = 3) -> object:
            # stat.py xpercentrank truncates with 10**significance: PERCENTRANK.INC(A1:A3,2,1E+15)
            # never returned. Its own checks (#N/A, #NUM!) first, as they come before.
            if isinstance(significance, int | float) and significance > _LARGEST_SIGNIFICANCE:
                first = xpercentrank(exc, vals, x, 1)
                return first if isinstance(first, XlError) else _num()
            return xpercentrank(exc, vals, x, significance)

        return wrap_ufunc(functools.partial(percentrank, exclusive), **_percentrank_kw)
    return build


#: The largest population (number_pop) HYPGEOM.DIST computes. scipy's hypergeometric cdf and pmf
#: (Boost's) take time in proportion to the population at some arguments, near the mode:
#: HYPGEOM.DIST(250000001,5E+8,5E+8,1E+9,FALSE) 0.43 CPU s, the same with 5E+9 and 1E+10 4.3 s,
#: with 1E+15 never returned; at 1E+8 at most 0.05 s (tests/calc/test_limits.py sweeps it).
#: Microsoft's page gives no limit; past this one the answer is #NUM! at once, not hours.
LARGEST_POPULATION = 10**8


def _hypergeometric() -> Callable[..., object]:
    from formulas.functions import wrap_ufunc
    from formulas.functions.stat import _convert_args, _parse_cumulative, xhypergeom_dist

    def hypgeom(sample_s: float, number_sample: float, population_s: float, number_pop: float,
                cumulative: object) -> object:
        # stat.py xhypergeom_dist, #NUM! past the largest population (its own checks answer
        # #NUM! too: a sample or a population out of order).
        if int(number_pop) > LARGEST_POPULATION:
            return _num()
        return xhypergeom_dist(sample_s, number_sample, population_s, number_pop, cumulative)

    return wrap_ufunc(hypgeom, input_parser=lambda *a: (*map(_convert_args, a[:-1]), *map(_parse_cumulative, a[-1:])))


def _hypergeometric_density() -> Callable[..., object]:
    from formulas.functions import wrap_ufunc
    from formulas.functions.stat import _convert_args, xhypergeom_dist

    def hypgeomdist(sample_s: float, number_sample: float, population_s: float, number_pop: float,
                    _cumulative: object) -> object:
        # HYPGEOMDIST as HYPGEOM.DIST(...,FALSE) (comp.py's own), after the domain of
        # Microsoft's HYPGEOMDIST page: the arguments truncated; #NUM! for sample_s < 0, past
        # the lesser of number_sample and population_s, or below number_sample - number_pop +
        # population_s; number_sample or population_s <= 0 or past number_pop; number_pop <= 0
        # (stat.py reads a population_s of 0 as 1: HYPGEOM.DIST(1,4,0,20,FALSE) 0.2). Past the
        # largest population, #NUM! as HYPGEOM.DIST (formualizer's own answered 5.5E-12 for
        # HYPGEOMDIST(1,4,8,1E+15), exactly 3.2E-14).
        k, n, big_k, big_n = int(sample_s), int(number_sample), int(population_s), int(number_pop)
        if big_n <= 0 or not 0 < n <= big_n or not 0 < big_k <= big_n or not max(0, n - big_n + big_k) <= k <= min(n, big_k):
            return _num()
        if big_n > LARGEST_POPULATION:
            return _num()
        return xhypergeom_dist(k, n, big_k, big_n, False)

    return wrap_ufunc(hypgeomdist, input_parser=lambda *a: (*map(_convert_args, a), 0))


_BUILDERS: dict[str, Callable[[], Callable[..., object]]] = {
    "HYPGEOM.DIST": _hypergeometric,
    "HYPGEOMDIST": _hypergeometric_density,
    "PERCENTRANK.EXC": _percentrank(True),
    "PERCENTRANK.INC": _percentrank(False),
    "PERCENTRANK": _percentrank(False),
    "PERMUT": _permut,
    "PERMUTATIONA": _permutationa,
    "FACTDOUBLE": _factdouble,
    "REPT": _rept,
    "MMULT": _mmult,
}
