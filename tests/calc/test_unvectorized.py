"""The bridged `formulas` functions built with `wrap_ufunc`, called on scalar arguments without
`np.vectorize` (calc/xlfuncs/unvectorized.py): the same answers as the whole wrapper, type,
shape and every element's type and digits, over every kind of scalar argument, for every such
function the bridge may call; anything else still computed by the whole wrapper."""

from __future__ import annotations

import functools
import inspect
import itertools
import random
from typing import Any

import pytest

from rates_xl.calc import routing
from rates_xl.calc.xlfuncs import bridge, scalars, unvectorized
from tests.support.outcomes import described, outcome, settle


def _formulas_read() -> None:
    if unvectorized._formulas_wrappers() is None:
        import formulas
        import numpy

        pytest.skip(f"formulas {formulas.__version__}, numpy {numpy.__version__}: unvectorized.py reads "
                    f"formulas {unvectorized.READ_FROM} (another keeps its wrappers whole)")


def _bridgeable() -> list[str]:
    return sorted(set(routing.BRIDGED) | set(bridge.MODULES) | set(scalars.MODULES))


def _unvectorized() -> dict[str, tuple[Any, Any]]:
    """Name -> (the whole `formulas` function, its direct call), for those it replaces."""
    found = {}
    for name in _bridgeable():
        whole = bridge.formulas_function(name)
        if whole is not None and unvectorized.direct(whole) is not whole:
            found[name] = (whole, unvectorized.direct(whole))
    return found


def _values() -> list[object]:
    """Every kind of scalar the bridge hands over (bridge.to_formulas): numbers, text, numeric
    and date text, logicals, the empty cell, errors."""
    import schedula as sh
    from formulas.functions import Error

    # No huge numbers: PERMUTATIONA(10, 1e300) computes 10**1e300 and PERMUT(1e15, 1) a product of
    # 1e15 factors, exactly (as the engine would).
    return [0, 1, 2, -1, 0.0, 1.0, 0.5, 2.3, -1.5, 3.7, 10.0, 400.0, 1e-300, -1e-5, 1234.5, float("inf"),
            float("nan"), "", "abc", "1", "2.5", "-3", " 4 ", "1/1/2024", "12:30", "TRUE", "A", "é", "MMXXIV",
            "101", True, False, sh.EMPTY, Error.errors["#N/A"], Error.errors["#VALUE!"],
            Error.errors["#DIV/0!"], Error.errors["#NUM!"], Error.errors["#REF!"]]


def _arities(whole: Any) -> range:
    function = inspect.unwrap(whole)
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return range(1, 4)
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return range(1, 7)
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = sum(p.default is p.empty for p in positional)
    return range(max(required, 1), len(positional) + 1)


def _calls(whole: Any, seed: str) -> list[tuple[object, ...]]:
    """Each position given every kind of value, the others a number; then random mixtures."""
    values, pick = _values(), random.Random(seed)
    calls = []
    for arity in _arities(whole):
        base = (1.0,) * arity
        calls += [base[:i] + (v,) + base[i + 1:] for i in range(arity) for v in values]
        calls += [tuple(pick.choice(values) for _ in range(arity)) for _ in range(40)]
    return calls


def test_the_scalar_functions_bridged_are_unvectorized():
    """Most of the bridged scalar functions are `wrap_ufunc`'s (the statistical distributions,
    text, dates, CEILING ...): each is replaced; those built on `wrap_func` of a function of their
    own (CONVERT, the bases, IRR) are called without its wrappers; one built otherwise (ISODD) is not."""
    _formulas_read()
    found = _unvectorized()
    assert len(found) >= 190, sorted(found)
    assert {"UNICHAR", "UNICODE", "CEILING", "BINOM.DIST", "ERROR.TYPE", "TEXT", "DATE", "CONVERT", "DEC2HEX",
            "IRR", "XIRR"} <= set(found)
    isodd = bridge.formulas_function("ISODD")
    assert isodd is not None and unvectorized.direct(isodd) is isodd


@functools.cache
def _whole_outcomes() -> dict[str, list[tuple[tuple[object, ...], tuple[object, ...], tuple[object, ...]]]]:
    """Each replaced function's calls (`_calls`), each with the whole wrapper's outcome and
    the outcome of what the bridge hands the engine of it (from_formulas): the whole wrapper,
    np.vectorize's, called once per call for the two tests that compare against it (it is most
    of their time)."""
    found = {}
    for name, (whole, _direct) in _unvectorized().items():
        rows = []
        for args in _calls(whole, name):
            settled = settle(whole, args)
            read = settle(bridge.from_formulas, (settled[1],)) if settled[0] else settled
            rows.append((args, described(settled), described(read)))
        found[name] = rows
    return found


def test_the_same_answers_as_the_whole_wrapper():
    """Each function replaced, over each position given every kind of value and random
    mixtures (about 27,000 calls): what the direct call answers or raises is what the whole
    wrapper does."""
    _formulas_read()
    differ = [(name, args, ours, theirs) for name, (_whole, direct) in _unvectorized().items()
              for args, theirs, _read in _whole_outcomes()[name]
              if (ours := outcome(direct, args)) != theirs]
    assert sum(len(rows) for rows in _whole_outcomes().values()) > 20_000
    assert differ == [], differ[:3]


def test_arrays_and_other_values_go_to_the_whole_wrapper():
    """An array among the arguments (a range lifted: one answer per element), or a value of
    another type, is computed by the whole wrapper: the direct call answers as it does."""
    _formulas_read()
    import numpy as np

    grid = np.array([[1.0, 2.0], [3.0, "x"]], dtype=object)
    for name in ("POWER", "CONVERT"):
        whole = bridge.formulas_function(name)
        assert whole is not None
        direct = unvectorized.direct(whole)
        for args in [(grid, 2.0, "m"), (2.0, grid, "m"), (np.float64(2.0), "m", "ft"),
                     (np.array(2.0, dtype=object), "m", "ft")]:
            args = args[:2] if name == "POWER" else args
            assert outcome(direct, args) == outcome(whole, args)
    assert unvectorized.direct(bridge.formulas_function("POWER"))(grid, 2.0).shape == (2, 2)


def test_another_formulas_release_keeps_the_whole_wrapper(monkeypatch):
    _formulas_read()
    import formulas

    whole = bridge.formulas_function("UNICHAR")
    assert whole is not None and unvectorized.direct(whole) is not whole
    monkeypatch.setattr(formulas, "__version__", "9.9.9")
    unvectorized._formulas_wrappers.cache_clear()
    try:
        assert unvectorized.direct(whole) is whole
    finally:
        monkeypatch.undo()
        unvectorized._formulas_wrappers.cache_clear()


def test_the_bridge_answers_through_the_direct_call():
    """The callback the engine calls (bridge.bridged) answers with formualizer's values, as before:
    UNICHAR of a number, of an empty cell, of an error; ERROR.TYPE of an error."""
    _formulas_read()
    from rates_xl.calc.engines.formualizer.values import error

    assert bridge.bridged("UNICHAR")(65.0) == "A"
    assert bridge.bridged("UNICHAR")(None) == error("#VALUE!")
    assert bridge.bridged("UNICHAR")(error("#N/A")) == error("#N/A")
    assert bridge.bridged("ERROR.TYPE")(error("#DIV/0!")) == 2
    assert bridge.bridged("UNICHAR")([[65.0, 66.0]]) == [["A", "B"]]
    assert bridge.bridged("CONVERT")(1.0, "in", "cm") == 2.54
    assert bridge.bridged("CONVERT")(1.0, "in", "kg") == error("#N/A")
    assert bridge.bridged("CONVERT")(True, "in", "cm") == error("#VALUE!")
    assert bridge.bridged("CONVERT")("x", "in", "cm") == error("#VALUE!")  # formulas' float("x") raises: the whole wrapper


def test_convert_on_plain_scalars_answers_as_formulas():
    """CONVERT's shorter path on Python's own scalars (unvectorized._plain_body): every unit
    `formulas` knows to units of its system and of another (temperatures each to each, "pc" in
    two systems), numbers, text, logicals: what it answers is what the whole wrapper does; its
    error values and the empty cell still go to the whole wrapper."""
    _formulas_read()
    import schedula as sh
    from formulas.functions import Error, eng

    whole = bridge.formulas_function("CONVERT")
    assert whole is not None
    direct = unvectorized.direct(whole)
    units = list(eng._units())
    pick = random.Random("CONVERT")
    numbers: list[object] = [0, 1, -2, 2.5, -40.0, 1e-300, 1e300, float("inf"), "3", "x", True, False]
    calls = [(n, u, v) for u in units for v in [u, *pick.sample(units, 4), "m", "C", "pc", "x", 1.0]
             for n in pick.sample(numbers, 3)]
    temperatures = [u for u in units if "temperature" in eng._units()[u]]
    calls += [(n, u, v) for u in temperatures for v in temperatures for n in (0, 100.0, -273.15)]
    calls += [(n, "m", "ft") for n in (sh.EMPTY, Error.errors["#N/A"])] + [(1.0, Error.errors["#REF!"], "ft")]
    differ = [(args, ours, theirs) for args in calls
              if (ours := outcome(direct, args)) != (theirs := outcome(whole, args))]
    assert len(calls) > 15_000 and differ == [], differ[:3]


def test_ranges_passed_whole_answer_as_the_whole_wrapper():
    """The functions whose vectorize passes some arguments whole (`excluded`: PROB, T.TEST, RANK,
    PERCENTILE, the FORECAST.ETS family ...), with ranges of every kind there and each other
    position given every kind of scalar, then random mixtures: what the direct call answers or
    raises is what the whole wrapper does; an array at a lifted position goes to the whole wrapper."""
    _formulas_read()
    import numpy as np
    import schedula as sh
    from formulas.functions import Error

    codes, _scalars = unvectorized._formulas_wrappers() or ((), frozenset())
    names = _bridgeable() + ["PERCENTILE", "PERCENTILE.INC", "PERCENTILE.EXC", "QUARTILE", "QUARTILE.INC",
                             "QUARTILE.EXC"]
    found = {}
    for name in names:
        whole = bridge.formulas_function(name)
        pieces = unvectorized._ufunc_pieces(whole, codes) if whole is not None else None
        if pieces is not None and pieces[4]:
            found[name] = (whole, unvectorized.direct(whole), pieces[4])
    assert {"PROB", "T.TEST", "RANK.EQ", "PERCENTILE", "FORECAST.ETS", "TRIMMEAN", "Z.TEST"} <= set(found)

    def grid(*rows: list[object]) -> Any:
        return np.array(rows, dtype=object)

    ranges = [grid([1.0, 2.0, 3.0, 4.0, 5.0]), grid([3.0, 1.0, 4.0, 1.0, 5.0]), grid([0.1, 0.2, 0.3, 0.2, 0.2]),
              grid([1.0, "x", True, sh.EMPTY, 2.5]), grid([1.0, Error.errors["#N/A"], 3.0, 4.0, 5.0]),
              grid([45000.0, 45001.0, 45002.0, 45003.0, 45004.0]), grid([2.0, 4.0], [6.0, 8.0]), grid([7.0]),
              grid(["a", "b", "c", "d", "e"])]
    scalars = [v for v in _values() if not (isinstance(v, float) and v in (1e-300, float("nan")))]
    pick = random.Random("excluded")
    differ, compared = [], 0
    for name, (whole, direct, excluded) in found.items():
        for arity in _arities(whole):
            if max(excluded) >= arity:
                continue
            calls = []
            for fixed in itertools.product(ranges[:6], repeat=len(excluded)):
                base = [1.0] * arity
                for i, r in zip(sorted(excluded), fixed, strict=True):
                    base[i] = r
                lifted = [i for i in range(arity) if i not in excluded]
                calls.append(tuple(base))
                calls += [tuple(v if j == i else a for j, a in enumerate(base)) for i in lifted
                          for v in pick.sample(scalars, 6)]
            for _ in range(40):
                calls.append(tuple(pick.choice(ranges) if i in excluded else pick.choice(scalars)
                                   for i in range(arity)))
            calls.append(tuple(ranges[0] for _ in range(arity)))  # a range at a lifted position: the whole wrapper
            for args in calls:
                compared += 1
                if (ours := outcome(direct, args)) != (theirs := outcome(whole, args)):
                    differ.append((name, args, ours, theirs))
    assert compared > 3_000 and differ == [], differ[:3]


def _engine_reads(function: Any) -> Any:
    """`function`'s answer as the bridge hands it to the engine."""
    return lambda *args: bridge.from_formulas(function(*args))


def test_the_bridge_reads_the_same_answers_from_bare_calls():
    """The bridge's calls (`bare`): where the answer is a plain scalar and the wrapper would only
    put it in a 0-d array, the answer itself; what the bridge hands the engine (from_formulas) is
    what it makes of the whole wrapper's answer, for every replaced function over the same calls."""
    _formulas_read()
    bare_ones = 0
    differ = []
    for name, (whole, _direct) in _unvectorized().items():
        bare = unvectorized.direct(whole, bare=True)
        for args, _whole, theirs in _whole_outcomes()[name]:
            bare_ones += outcome(bare, args)[0] == "answered"
            if (ours := outcome(_engine_reads(bare), args)) != theirs:
                differ.append((name, args, ours, theirs))
    assert bare_ones > 10_000 and differ == [], differ[:3]
    # A function whose wrapper hands the array to a return_func of its own keeps the array
    import numpy as np
    from formulas.functions import wrap_func, wrap_ufunc

    def plus_one(x: float) -> float:
        return x + 1

    own = wrap_func(wrap_ufunc(plus_one, return_func=lambda res, *args: res))
    default = wrap_func(wrap_ufunc(plus_one))
    assert isinstance(unvectorized.direct(own, bare=True)(2.0), np.ndarray)
    assert unvectorized.direct(default, bare=True)(2.0) == 3.0
    assert isinstance(unvectorized.direct(default)(2.0), np.ndarray)


def test_the_error_state_around_the_call_is_errstates():
    """The function runs with divide and invalid ignored, the rest as in force, as inside
    `np.errstate(divide="ignore", invalid="ignore")`, from any state in force; left as it was.
    What is read of numpy (NUMPY_READ_FROM): errstate sets a context variable to `_make_extobj`'s."""
    import numpy as np

    ignoring, restore = unvectorized._ignoring_divide_invalid()
    if np.__version__ == unvectorized.NUMPY_READ_FROM:
        from numpy._core import _ufunc_config

        source = inspect.getsource(_ufunc_config.errstate.__enter__)
        assert "_make_extobj(" in source and "_extobj_contextvar.set(extobj)" in source
        assert "_extobj_contextvar.reset(self._token)" in inspect.getsource(_ufunc_config.errstate.__exit__)
    for in_force in ({}, {"all": "raise"}, {"divide": "warn", "over": "raise"}, {"all": "ignore"},
                     {"invalid": "print", "under": "warn"}, {}):
        with np.errstate(**in_force):
            before = np.geterr()
            with np.errstate(divide="ignore", invalid="ignore"):
                wanted = np.geterr()
            for _ in range(2):  # the state made once from this one, then set again
                token = ignoring()
                try:
                    assert np.geterr() == wanted
                    assert np.float64(1.0) / np.float64(0.0) == np.inf
                finally:
                    restore(token)
                assert np.geterr() == before


def test_another_numpy_release_enters_errstate_itself(monkeypatch):
    import numpy as np

    monkeypatch.setattr(np, "__version__", "9.9.9")
    ignoring, restore = unvectorized._ignoring_divide_invalid()
    before = np.geterr()
    token = ignoring()
    try:
        assert np.geterr() == {**before, "divide": "ignore", "invalid": "ignore"}
    finally:
        restore(token)
    assert np.geterr() == before


def test_the_copy_of_safe_eval_is_formulas_own():
    """unvectorized._on_scalars copies wrap_ufunc's safe_eval (SAFE_EVAL): the installed release
    writes it so (another release keeps the wrappers whole, `_formulas_wrappers`). Its error check
    by a loop answers as formulas' get_error on every mixture of the scalars the direct path takes."""
    _formulas_read()
    import schedula as sh
    from formulas import functions
    from formulas.functions import Error, get_error

    assert unvectorized.SAFE_EVAL.lstrip("\n") in inspect.getsource(functions.wrap_ufunc)
    values = [1.0, 0, True, "x", "", sh.EMPTY, Error.errors["#N/A"], Error.errors["#DIV/0!"], Error.errors["#REF!"]]
    # CODE's check is its own: called as it is; UNICHAR's is get_error
    seen = 0
    for name in ("UNICHAR", "NORM.DIST", "CODE"):
        whole = bridge.formulas_function(name)
        assert whole is not None
        pieces = unvectorized._ufunc_pieces(whole, unvectorized._formulas_wrappers()[0])  # type: ignore[index]
        assert pieces is not None
        safe_eval = pieces[1]
        evaluate = unvectorized._on_scalars(safe_eval)
        assert evaluate is not None
        for arity in (1, 2, 3):
            for args in itertools.product(values, repeat=arity):
                seen += 1
                assert outcome(evaluate, args) == outcome(safe_eval, args), (name, args)
    for args in itertools.product(values, repeat=3):
        errors = [v for v in args if type(v) is type(Error.errors["#N/A"])]
        assert get_error(*args) is (errors[0] if errors else None)
    assert seen > 2_000
