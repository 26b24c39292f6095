"""Hostile arguments to the bridged functions stopped at Excel's limits (calc/xlfuncs/limits.py):
Excel's answer at once, where `formulas` computed forever (PERMUTATIONA(10,1E+300),
PERMUT(1E+15,1), REPT("x",1E+9)) or answered a silently wrong number (FACTDOUBLE(300) 0,
an LCM past 2^63 negative, now calc/xlfuncs/math_trig/divisors.py's), and the Bessel
functions' recurrences (calc/xlfuncs/engineering/bessel.py) of an order of 1E+15; below the
limits the same answers as `formulas`' own."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys

import openpyxl
import pytest

from rates_xl.calc.xlfuncs import limits

#: Formula -> Excel's answer (each limit cited in limits.py); the ordinary calls beside them.
CASES = {
    "=PERMUTATIONA(10,1E+300)": "#NUM!",
    "=PERMUTATIONA(10,308)": 1e308,
    "=PERMUTATIONA(3,2)": 9,  # Microsoft's PERMUTATIONA example
    "=PERMUT(1E+15,1)": 1e15,
    "=PERMUT(1E+6,3)": 999997000002000000.0,
    "=PERMUT(1E+300,2)": "#NUM!",
    "=PERMUT(100,3)": 970200,  # Microsoft's PERMUT example
    '=REPT("x",1E+9)': "#VALUE!",
    '=LEN(REPT("ab",16383))': 32766,
    '=REPT("ab",16384)': "#VALUE!",
    '=REPT("*-",3)': "*-*-*-",  # Microsoft's REPT example
    # 2^150 * 150! (LibreOffice: 8.15441406938059E+307); int64 wrapped it to 0
    "=FACTDOUBLE(300)": 8.154414069380594e307,
    "=FACTDOUBLE(1E+7)": "#NUM!",
    "=FACTDOUBLE(7)": 105,  # Microsoft's FACTDOUBLE example
    "=LCM(1E+15,999999999999999,999999999999997)": "#NUM!",
    "=LCM(24,36)": 72,  # Microsoft's LCM example
    # An order past 32 bits (LibreOffice: Err:502); the recurrences ran 2E+15 steps
    "=BESSELJ(1,1E+15)": "#NUM!",
    "=BESSELI(1,1E+15)": "#NUM!",
    "=BESSELK(1,1E+15)": "#NUM!",
    "=BESSELY(1,1E+15)": "#NUM!",
    "=BESSELJ(1,100000)": 0,  # below the smallest double (LibreOffice: 0)
    "=BESSELI(1,100000)": 0,
    "=BESSELY(1,2E+9)": "#NUM!",  # past Excel's largest within a few hundred steps
    "=BESSELK(1,2E+9)": "#NUM!",
    "=PERCENTRANK.INC({1,2,3,5},4,1E+15)": "#NUM!",  # LibreOffice's PERCENTRANK: #NUM!
    "=PERCENTRANK.EXC({1,2,3,5},4,1E+15)": "#NUM!",
    "=PERCENTRANK.INC({1,2,3,5},9,1E+15)": "#N/A",  # outside the array: its own error first
    "=PERCENTRANK.INC({1,2,3,5},4)": 0.833,
    "=BESSELJ(1.9,2)": pytest.approx(0.329925829, abs=5e-10),  # Microsoft's BESSELJ example
    # More steps than a call may take (bessel.py STEPS): BESSELI ran 4E+9, BESSELJ 2E+9 steps
    "=BESSELI(1E+6,2147483647)": "#NUM!",  # the normalisation overflows, as after every step
    "=BESSELI(500,2147483647)": 0,  # the series' bound underflows
    "=BESSELJ(1E+10,2E+9)": "#NUM!",
    "=BESSELJ(1E+9,1E+9)": "#NUM!",
    "=BESSELY(1E+10,2E+9)": "#NUM!",
    "=BESSELK(720,1)": 0,  # 9.5E-315, below Excel's smallest positive number
    # A text longer than a cell holds (Microsoft's CONCAT page): #VALUE!, not built
    '=REPT("x",-1)': "#VALUE!",  # Excel (and LibreOffice): #VALUE!; formulas' was ""
    '=REPT("x",0)': None,  # empty text (Microsoft's REPT page), read back as an empty cell
    '=LEN(SUBSTITUTE(REPT("x",20000),"x","yy"))': "#VALUE!",
    '=SUBSTITUTE(REPT("x",32767),"x",REPT("y",32767))': "#VALUE!",
    '=LEN(SUBSTITUTE(REPT("x",16383),"x","yy"))': 32766,
    '=REGEXREPLACE(REPT("x",32767),"x",REPT("y",32767))': "#VALUE!",
    '=LEN(REPLACE(REPT("x",20000),1,1,REPT("y",20000)))': "#VALUE!",
    '=LEN(TEXT(REPT("x",20000),"@@"))': "#VALUE!",
    '=TEXT(REPT("x",32767),REPT("@",32767))': "#VALUE!",  # a billion characters, not built
    '=LEN(TEXT(REPT("x",16383),"@@"))': 32766,
    "=LEN(ARRAYTOTEXT(SEQUENCE(10000)))": "#VALUE!",
    # Stopped once past the limit: a million numbers took 9 s before that answer
    "=ARRAYTOTEXT(SEQUENCE(1000,1000))": "#VALUE!",
    "=ARRAYTOTEXT(SEQUENCE(1000,1000),1)": "#VALUE!",
    "=LEN(ARRAYTOTEXT(SEQUENCE(1,5646)))": 32767,  # "1, 2, ..., 5646": the limit exactly
    "=LEN(ARRAYTOTEXT(SEQUENCE(1,5647)))": "#VALUE!",
    "=LEN(ARRAYTOTEXT(SEQUENCE(1,6774),1))": 32764,  # "{1,2,...,6774}"
    "=LEN(ARRAYTOTEXT(SEQUENCE(1,6775),1))": "#VALUE!",  # 32,770
    '=ARRAYTOTEXT({1,2;3,"a"},1)': '{1,2;3,"a"}',
    '=LEN(VALUETOTEXT(REPT("x",32767),1))': "#VALUE!",  # the quotes pass the limit
    '=REPT("x",20000)&REPT("y",20000)': "#VALUE!",  # formualizer's own `&`: the cell's value
    '=CONCATENATE(REPT("x",20000),REPT("y",20000))': "#VALUE!",
    "=LEN(FIXED(-1E+300))": 405,  # LibreOffice: 405 (the default context's 28 digits: #VALUE!)
    "=LEFT(FIXED(-1E+300),12)": "-1,000,000,0",  # 15 digits, zeros after (formulas: "...052,504")
    "=FIXED(7.87397157078953E+20)": "787,397,157,078,953,000,000.00",  # formulas: "...952,000,000.00"
    "=FIXED(1.5E+20,-3,TRUE)": "150000000000000000000",
    "=ROWS({#N/A})": 1,  # Microsoft's ROWS page: the rows of an array (was #N/A)
    "=COLUMNS({#N/A,1})": 2,
    "=ROWS(NA())": "#N/A",  # an error argument is the answer (calc/formula/calls.py)
    # scipy's hypergeometric pmf took 0.43 s here, 4.3 s at 1E+10 and never returned at 1E+15
    "=HYPGEOM.DIST(250000001,500000000,500000000,1000000000,FALSE)": "#NUM!",
    "=HYPGEOM.DIST(5E+14+1,1E+15,1E+15,2E+15,TRUE)": "#NUM!",
    "=HYPGEOM.DIST(1,4,8,20,TRUE)": pytest.approx(0.4654, abs=5e-5),  # Microsoft's examples
    "=HYPGEOM.DIST(1,4,8,20,FALSE)": pytest.approx(0.3633, abs=5e-5),
    # A join past a cell's 32,767 characters inside a formula (Microsoft's CONCAT page): #VALUE!,
    # wherever it goes (formualizer's `&` and CONCATENATE knew no limit: LEN was 40000)
    '=LEN(REPT("x",20000)&REPT("y",20000))': "#VALUE!",
    '=LEFT(REPT("x",20000)&REPT("y",20000),3)': "#VALUE!",
    '=LEN(MID(CONCATENATE(REPT("x",20000),REPT("y",20000)),1,5))': "#VALUE!",
    '=ISERROR(REPT("x",20000)&REPT("y",20000))': True,
    '=LEN(REPT("x",16000)&REPT("y",16000)&"z")': 32001,
    '=LEN(REPT("x",32767)&"")': 32767,
    # An empty array is #CALC! (ERROR.TYPE 14: calc/xlfuncs/information/errors.py), which a cell's
    # value is written as, #VALUE!, as Excel's file stores it (formulas_test.xlsx FILTER!W22)
    "=ERROR.TYPE(FILTER({1;2;3},{1;2;3}>99))": 14,
    "=ERROR.TYPE(TAKE({1,2,3},0))": 14,
    "=ERROR.TYPE(DROP({1,2,3},,5))": 14,
    "=FILTER({1;2;3},{1;2;3}>99)": "#VALUE!",
    "=ERROR.TYPE(1/0)": 2,
    # CRITBINOM is BINOM.INV's (formualizer's: 10 and #NUM!); Microsoft's example
    "=CRITBINOM(10,0,0.5)": 0,
    "=CRITBINOM(1E+10,0.5,0.5)": 5000000000,
    "=CRITBINOM(6,0.5,0.75)": 4,
    # HYPGEOMDIST within Microsoft's domain (formualizer's: 5.5E-12 here, exactly 3.2E-14)
    "=HYPGEOMDIST(1,4,8,1E+15)": "#NUM!",
    "=HYPGEOMDIST(5,4,8,20)": "#NUM!",  # past the lesser of number_sample and population_s
    "=HYPGEOMDIST(1,4,0,20)": "#NUM!",  # population_s <= 0 (HYPGEOM.DIST's reading: 0.2)
    "=HYPGEOMDIST(1,4,8,20)": pytest.approx(0.363261094, abs=5e-10),  # Microsoft's example
    # MMULT summed in floats (formulas' dot of objects: 64 million Python operations here)
    "=SUM(MMULT(SEQUENCE(400,400),SEQUENCE(400,400)))": 4.099464512156283e+17,
}


def test_a_book_of_hostile_arguments_answers_excels_values_at_once(tmp_path):
    """The whole command on a small book, in a subprocess: a regression hangs it, and the
    timeout makes that a failure instead of a test that never ends."""
    book, out = tmp_path / "hostile.xlsx", tmp_path / "out.xlsx"
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    for row, formula in enumerate(CASES, start=1):
        sheet.cell(row=row, column=1, value=formula)
    workbook.save(book)
    done = subprocess.run([sys.executable, "-m", "rates_xl.cli", "calc", str(book), "--full", "--force",
                           "--no-progress", "-o", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 3, done.stderr  # 3: the book has error cells (the #NUM! and #VALUE! ones)
    answers = openpyxl.load_workbook(out).active
    got = {formula: answers.cell(row=row, column=1).value for row, formula in enumerate(CASES, start=1)}
    for formula, expected in CASES.items():
        if isinstance(expected, float):
            assert got[formula] == pytest.approx(expected, rel=1e-15), formula
        else:
            assert got[formula] == expected, formula


def _original(name):
    import formulas
    from formulas.functions import math, stat, text

    if formulas.__version__ != limits.READ_FROM:
        pytest.skip(f"formulas {formulas.__version__}: limits.py follows {limits.READ_FROM}")
    from formulas.functions import comp

    modules = {"FACTDOUBLE": math, "MMULT": math, "REPT": text, "HYPGEOMDIST": comp, "PERCENTRANK": comp}
    return modules.get(name, stat).FUNCTIONS[name]


def _shown(answer):
    import numpy as np

    if isinstance(answer, np.generic):  # numpy's int64 as the bridge hands it on: a Python int
        answer = answer.item()
    return repr(answer.tolist()) if isinstance(answer, np.ndarray) else repr(answer)


def _past_int64(name, args):
    """Whether the exact answer on these numbers (any element of an array) passes 2^53, where
    the originals computed in int64 (wrapped, or #VALUE!): those are the hostile cases above,
    not a comparison."""
    import itertools

    import numpy as np

    each = [a.ravel().tolist() if isinstance(a, np.ndarray) else [a] for a in args]
    return any(_exact_past(name, combination) for combination in itertools.product(*each))


def _exact_past(name, args):
    try:
        n, k = int(float(args[0])), int(float(args[-1]))
    except (TypeError, ValueError):
        return False
    if any(type(a) not in (int, float, str) for a in args):
        return False
    if name == "PERMUT":
        exact = math.perm(n, k) if 0 <= k <= n else 0
    elif name == "PERMUTATIONA":
        exact = n**k if n >= 0 and k >= 0 else 0
    elif name == "FACTDOUBLE":
        exact = math.prod(range(max(n, 1), 0, -2))
    else:
        return False
    return exact > 2**53


@pytest.mark.parametrize("name", sorted(limits._BUILDERS))
def test_below_the_limits_the_answers_are_formulas_own(name):
    """Every kind of argument within the limits (numbers, text, logicals, empty, errors,
    arrays): the same answer, type included, as the function it replaces."""
    import numpy as np
    import schedula as sh
    from formulas.functions import Error

    original, ours = _original(name), limits.implementation(name)
    assert ours is not None
    values = [0, 1, 2, 3, 5.7, 10, 20, 52, 100, 170, -1, -2.5, "4", "x", "", True, False, sh.EMPTY,
              Error.errors["#N/A"], np.array([[1, 2, 3]], object), np.array([[4.0], ["x"]], object)]
    if name == "HYPGEOM.DIST":  # (sample_s, number_sample, population_s, number_pop, cumulative)
        numbers = [0, 1, 2, 3.5, 4, 8, 20, -1, "4", "x", True, sh.EMPTY, Error.errors["#N/A"],
                   np.array([[1, 2]], object)]
        for args in itertools.product(numbers, [4, 8, 1e8, "x"], [8, 3, 1e8, -1], [20, 10, 1e8, 1e8 + 1],
                                      [True, False, 0, "x"]):
            if args[3] > limits.LARGEST_POPULATION:  # the hostile case: #NUM! (CASES) after the
                if isinstance(args[0], np.ndarray):  # arguments' own errors (#VALUE! for text ...)
                    continue
                small = original(*args[:3], 20, args[4])
                own = {_shown(Error.errors["#VALUE!"]), _shown(Error.errors["#N/A"])}
                expected = _shown(small) if _shown(small) in own else _shown(Error.errors["#NUM!"])
                assert _shown(ours(*args)) == expected, args
            else:
                assert _shown(ours(*args)) == _shown(original(*args)), (name, args)
        return
    if name == "HYPGEOMDIST":  # (sample_s, number_sample, population_s, number_pop)
        numbers = [0, 1, 2, 3.5, 4, 8, 20, -1, "4", "x", True, sh.EMPTY, Error.errors["#N/A"]]
        for args in itertools.product(numbers, [4, 8, 0, "x"], [8, 3, 0, -1], [20, 10, 1e8]):
            try:
                k, n, big_k, big_n = (0 if a is sh.EMPTY else int(float(a)) for a in args)
            except (TypeError, ValueError):
                assert _shown(ours(*args)) == _shown(original(*args)), args  # their own errors
                continue
            inside = 0 < n <= big_n and 0 < big_k <= big_n and max(0, n - big_n + big_k) <= k <= min(n, big_k)
            expected = original(*args) if inside else Error.errors["#NUM!"]  # Microsoft's domain
            assert _shown(ours(*args)) == _shown(expected), args
        return
    if name.startswith("PERCENTRANK"):  # (array, x, significance)
        for x in values:
            for significance in [*values, 308, 20.5]:
                args = (np.array([[1, 2, 3, 5]], object), x, significance)
                assert _shown(ours(*args)) == _shown(original(*args)), (name, args)
        return
    for first in values:
        for second in values if name != "FACTDOUBLE" else [None]:
            args = (first,) if second is None else (first, second)
            if _past_int64(name, args) or (name == "REPT" and _negative(args[1])):
                continue  # the hostile cases above (CASES)
            if name == "MMULT" and _logical_without_error(args):
                # Excel's #VALUE! (formulas' dot counted TRUE as 1): test_mmult_sums_in_floats...
                assert _shown(ours(*args)) == _shown(Error.errors["#VALUE!"]), (name, args)
                continue
            assert _shown(ours(*args)) == _shown(original(*args)), (name, args)


def _logical_without_error(args):
    """Whether a logical value is among MMULT's matrices and no error (an error comes first)."""
    import numpy as np
    from formulas.functions import XlError

    values = [v for a in args for v in (np.asarray(a, dtype=object).ravel().tolist())]
    return any(isinstance(v, bool) for v in values) and not any(isinstance(v, XlError) for v in values)


def test_mmult_sums_in_floats_exactly_as_formulas_dot_of_objects():
    """Bit for bit `formulas`' MMULT (numpy's dot of object arrays) on every kind of matrix:
    floats of any size and sign, ints (below and past the 2^53 its float sums stay exact
    under), the two mixed, and what the float sum is not taken for (text, logicals, a wrong
    shape, an error), so a 2,000 x 2,000 product is seconds, not hours (and CASES' 400 x 400
    one in a whole book)."""
    import random

    import numpy as np
    from formulas.functions import Error

    original, ours = _original("MMULT"), limits.implementation("MMULT")
    rng = random.Random(20261130)

    def drawn(rows, cols, kind):
        def one():
            if kind == "float":
                return rng.uniform(-1, 1) * 10 ** rng.randint(-20, 20)
            if kind == "int":
                return rng.randint(-(2**20), 2**20)
            if kind == "big":
                return rng.randint(-(2**40), 2**40)  # products and sums past 2^53: its own
            return rng.choice([rng.randint(-50, 50), rng.uniform(-1e6, 1e6)])
        return np.array([[one() for _ in range(cols)] for _ in range(rows)], object)

    for kind in ("float", "int", "big", "mixed"):
        for _ in range(40):
            n, k, m = rng.randint(1, 12), rng.randint(1, 40), rng.randint(1, 12)
            a, b = drawn(n, k, kind), drawn(k, m, kind)
            assert _shown(ours(a, b)) == _shown(original(a, b)), (kind, a.tolist(), b.tolist())
    square = drawn(3, 3, "float")
    for other in (np.array([[1.0, "x", 2.0]] * 3, object).T,
                  np.array([[1.0, 2.0]], object), Error.errors["#N/A"], 2.0,
                  np.array([[1.0, Error.errors["#DIV/0!"], 2.0]] * 3, object).T):
        assert _shown(ours(square, other)) == _shown(original(square, other)), other
    # A logical value is Excel's #VALUE! (formulas' dot counted TRUE as 1): IronCalc's Excel-made
    # MATH_AND_TRIGONOMETRY__MMULT.xlsx E70, MMULT({1,TRUE;3,FALSE},{5,6;TRUE,8}) (MIT or Apache-2.0).
    logicals = np.array([[True, 1.0, 2.0]] * 3, object).T
    assert _shown(ours(square, logicals)) == _shown(Error.errors["#VALUE!"])
    assert _shown(ours(np.array([[1, True], [3, False]], object), np.array([[5, 6], [True, 8]], object))) == \
        _shown(Error.errors["#VALUE!"])


def test_mmult_of_arrays_left_out_is_value(tmp_path):
    """`MMULT(,)`: Excel's #VALUE! (IronCalc's MATH_AND_TRIGONOMETRY__MMULT.xlsx E64); the engine
    handed it 0 and 0, and answered 0 (the pass `omitted_defaults`)."""
    from tests.calc.excel_cases import cases_computed

    result = cases_computed(tmp_path / "mmult.xlsx", {"A1": "=MMULT(,)", "A2": "=MMULT(,B1)", "B1": 2,
                                                    "A3": "=MMULT(B1,B1)"})
    assert [result.values[("S", f"A{row}")] for row in (1, 2, 3)] == ["#VALUE!", "#VALUE!", 4]


def _negative(value):
    try:
        return int(float(value)) < 0
    except (TypeError, ValueError):
        return False


def test_rept_with_a_negative_count_is_value():
    from formulas.functions import Error

    rept = limits.implementation("REPT")
    assert _shown(rept("ab", -1)) == _shown(Error.errors["#VALUE!"])
    assert _shown(rept("ab", "-3")) == _shown(Error.errors["#VALUE!"])
    assert _shown(rept("ab", 0)) == _shown("")


def test_a_text_past_a_cells_limit_from_our_functions_is_value():
    """limits.capped over a text answer and over an array's elements; SUBSTITUTE's length
    counted before the text is built."""
    from rates_xl.calc.engines.formualizer.values import error

    long_text = "x" * (limits.TEXT_LIMIT + 1)
    assert limits.capped(lambda: long_text)() == error("#VALUE!")
    assert limits.capped(lambda: "ok")() == "ok"
    assert limits.capped(lambda: [["a", long_text], [1.5, None]])() == [["a", error("#VALUE!")], [1.5, None]]
    assert limits.growing_length("abcabc", "b", "xyz") == len("abcabc".replace("b", "xyz"))
    assert limits.growing_length("abc", "", "xyz") == 3


def test_the_net_under_every_bridged_answer():
    from rates_xl.calc.engines.formualizer.values import error

    assert limits.bounded(float("inf")) == error("#NUM!")
    assert limits.bounded(float("nan")) == error("#NUM!")
    assert limits.bounded(-(10**400)) == error("#NUM!")
    assert limits.bounded("x" * 32768) == error("#VALUE!")
    assert limits.bounded("x" * 32767) == "x" * 32767
    assert limits.bounded(1.5e308) == 1.5e308 and limits.bounded(True) is True


def test_a_cell_holding_a_join_past_the_limit_hands_on_its_error(tmp_path):
    """The join's cell is #VALUE! for the cells reading it too (formualizer kept the whole text
    in the cell: LEN(A1) was 40000)."""
    book, out = tmp_path / "joins.xlsx", tmp_path / "out.xlsx"
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet["A1"] = '=REPT("x",20000)&REPT("y",20000)'
    sheet["A2"] = "=LEN(A1)"
    sheet["A3"] = "=ISERROR(A1)"
    sheet["A4"] = '=REPT("x",20000)'
    sheet["A5"] = "=LEN(A4&A4)"
    sheet["A6"] = '=LEN(A4&"")'
    sheet["A7"] = "z" * 20000  # a constant: its length is known before the calculation
    sheet["A8"] = "=LEN(A7&A7)"
    sheet["A9"] = '=LEN(A7&"k"&TRUE)'
    workbook.save(book)
    done = subprocess.run([sys.executable, "-m", "rates_xl.cli", "calc", str(book), "--full", "--force",
                           "--no-progress", "-o", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 3, done.stderr
    got = [cell.value for cell in openpyxl.load_workbook(out).active["A"]]
    assert got == ["#VALUE!", "#VALUE!", True, "x" * 20000, "#VALUE!", 20000, "z" * 20000, "#VALUE!", 20005]


def test_a_join_that_cannot_pass_the_limit_is_left_to_the_engine():
    from rates_xl.calc.formula import passes

    def wrapped(formula):
        return passes.one("text_limit", formula)

    # literals and number-answering calls only: no call per evaluation (poi_StructuredRefs' 3,798)
    assert wrapped('=INDIRECT("A"&RATESXL.NUMTEXT(ROW(A1)))') == '=INDIRECT("A"&RATESXL.NUMTEXT(ROW(A1)))'
    assert wrapped('="a"&1&TRUE') == '="a"&1&TRUE'
    assert wrapped('=A1&" x"=B1') == '=RATESXL.TEXTLIMIT(A1&" x")=B1'
    assert wrapped('=IF(A1>0,A1&B1,"")') == '=IF(A1>0,RATESXL.TEXTLIMIT(A1&B1),"")'
    assert wrapped("=CONCATENATE(A1,B1)") == "=RATESXL.TEXTLIMIT(CONCATENATE(A1,B1))"
    assert wrapped('=LEN("' + "x" * 32767 + '"&"y")').startswith("=LEN(RATESXL.TEXTLIMIT(")
