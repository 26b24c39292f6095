"""The bridged `formulas` functions that lift a scalar function over arrays (`wrap_ufunc`),
called on scalar arguments without building an `np.vectorize` per call.

`formulas` 1.3.4 (functions/__init__.py) writes most of its scalar functions (UNICHAR, TEXT,
the statistical distributions, CEILING ...) as `wrap_ranges_func(wrap_func(wrap_ufunc(f)))`:
`wrap_ufunc`'s wrapper parses the arguments (`args_parser`), then under
`np.errstate(divide="ignore", invalid="ignore")` calls `np.vectorize(safe_eval, otypes=[object])`
on them, views the answer as `otype` and hands it to `return_func`. On scalar arguments the
vectorize object, built anew at each call, is two thirds of the wrappers' cost (10 of 15 us a
call) and does nothing but call `safe_eval` once and put its answer, as it is, in a 0-d object
array. `direct` reads the pieces out of the wrapper (its closure) and does the same without
it: the same parsing, the same `safe_eval` under the same error state, the same 0-d array,
`otype` and `return_func`; where vectorize passes some arguments whole (`excluded`: PROB's,
T.TEST's, RANK's ranges), the same with the others scalars. Anything else (an array or an unusual value among the arguments,
32 arguments or more, an exception anywhere) is handed to the whole wrapper, which computes it
as before: these functions are pure, so computing again changes nothing. Those built on `wrap_func`
of a function of their own (CONVERT, the bases, IRR ...) are called on scalars without its wrapper
and `wrap_ranges_func`'s (`_unwrapped`), CONVERT on Python's scalars by a shorter copy of its body
(`_plain_body`). tests/calc/test_unvectorized.py
compares the two on every such bridged function over a grid of every kind of scalar, and
bench/bridged_calls.py on every call of the corpus books.
"""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Callable, Iterable
from typing import Any, cast

#: The `formulas` release whose wrappers this reads (any other keeps them whole).
READ_FROM = "1.3.4"


def direct(implementation: Callable[..., object], *, bare: bool = False) -> Callable[..., object]:
    """`implementation` (a bridged `formulas` function), called on scalar arguments without
    `np.vectorize` where it is `wrap_ufunc`'s; itself otherwise. `bare` (the bridge's calls, which
    read a 0-d answer's element): where the wrapper would only put the function's answer, a plain
    scalar, in a 0-d array (its `return_func` is `wrap_ufunc`'s default, which hands the array
    back as it is), that answer itself."""
    found = _formulas_wrappers()
    if found is None:
        return implementation
    codes, scalars = found
    pieces = _ufunc_pieces(implementation, codes)
    if pieces is None:
        return _unwrapped(implementation, codes, scalars)
    args_parser, safe_eval, otype, return_func, excluded = pieces
    import numpy as np

    ignoring, restore = _ignoring_divide_invalid()
    empty = np.empty
    bare = bare and _code(return_func) is _default_return_code()
    plain_answers = _plain_answers()
    # On scalars alone (every argument lifted): safe_eval's body with its error check a loop
    evaluate = safe_eval if excluded else (_on_scalars(safe_eval) or safe_eval)

    def varying(values: tuple[object, ...]) -> tuple[object, ...]:
        """The arguments vectorize lifts: all but the `excluded` ones (passed whole: ranges)."""
        return tuple(v for i, v in enumerate(values) if i not in excluded) if excluded else values

    def call(*args: object) -> object:
        if not scalars.issuperset(map(type, varying(args))):  # an array (or a value vectorize may read as one)
            return implementation(*args)
        try:
            parsed = tuple(args_parser(*args))
            lifted = varying(parsed)
            # vectorize's own path: none lifted (it calls the function bare) or 32 and more arguments (no
            # vectorize); an excluded argument's position moved by the parser (never: each is read as it was)
            if (not 0 < len(lifted) or len(parsed) >= 32 or not scalars.issuperset(map(type, lifted))
                    or (excluded and len(parsed) != len(args))):
                return implementation(*args)
            token = ignoring()
            try:
                answer = evaluate(*parsed)
            finally:
                restore(token)
            if bare and type(answer) in plain_answers:  # what the bridge would read out of the 0-d array
                return answer
            # np.vectorize's answer: the function's answer, as it is, in a 0-d object array.
            res = empty((), dtype=object)
            res[()] = answer
            return return_func(res.view(otype), *parsed)
        except Exception:  # noqa: BLE001 - computed again by the whole wrapper, which says what it makes of it
            return implementation(*args)

    return call


#: wrap_ufunc's safe_eval as formulas 1.3.4 writes it (`_on_scalars` is a copy; tests/calc/test_unvectorized.py
#: compares this text with the installed one's).
SAFE_EVAL = """
    def safe_eval(*vals):
        try:
            r = check_error(*vals) or convert_noshp(func(*input_parser(*vals)))
            if check_nan and not isinstance(r, (XlError, str)):
                r = convert_nan(r)
        except FoundError as ex:
            r = ex.err
        except (ValueError, TypeError):
            r = Error.errors['#VALUE!']
        return r
"""


def _on_scalars(safe_eval: Callable[..., object]) -> Callable[..., object] | None:
    """`safe_eval` (SAFE_EVAL) for values of the direct path's scalar types alone, or None where it
    closes over other names. Its default error check, formulas' `get_error(*vals)`, is the first
    error among the values flattened: on such scalars (a number, a logical; a text, an error value or
    the empty cell, each a str that flatten yields whole) the first error value among them, found
    here by a loop (0.7 us for three arguments) instead of flatten's generators and an abc
    isinstance per value (6 us); any other check is called as it is."""
    closure = _closure(safe_eval)
    if set(closure) != {"check_error", "func", "input_parser", "check_nan"}:
        return None
    from formulas.functions import Error, FoundError, convert_nan, convert_noshp, get_error
    from formulas.tokens.operand import XlError

    check_error, func, input_parser, check_nan = (closure[k] for k in ("check_error", "func", "input_parser",
                                                                       "check_nan"))
    first_error = check_error is get_error
    errors = Error.errors

    def evaluate(*vals: object) -> object:
        try:
            if first_error:
                found = None
                for v in vals:
                    if isinstance(v, XlError):
                        found = v
                        break
            else:
                found = check_error(*vals)
            r = found or convert_noshp(func(*input_parser(*vals)))
            if check_nan and not isinstance(r, XlError | str):
                r = convert_nan(r)
        except FoundError as ex:
            r = ex.err
        except (ValueError, TypeError):
            r = errors["#VALUE!"]
        return r

    return evaluate


#: The numpy release whose errstate this reads (`_ignoring_divide_invalid`; any other: np.errstate itself).
NUMPY_READ_FROM = "2.4.6"

#: (the error state entered from, the state ignoring divide and invalid made from it): made once.
_ignoring_from: tuple[object, object] = (None, None)


def _ignoring_divide_invalid() -> tuple[Callable[[], object], Callable[[object], object]]:
    """(enter, leave) doing what `with np.errstate(divide="ignore", invalid="ignore")` does around
    the function's call: 1.7 us a call through the context manager (a new errstate object, its
    `_make_extobj` and a context variable set and reset), 0.4 us here. numpy 2.4.6 keeps the state
    in a context variable holding an immutable object `_make_extobj` builds from the state in force
    and the options given: the one made from a given state is made once and set again at each call,
    made anew where the state in force is another. Under another numpy release, np.errstate.
    tests/calc/test_unvectorized.py reads errstate's source for it."""
    import numpy as np

    if np.__version__ != NUMPY_READ_FROM:
        def enter() -> object:
            state = np.errstate(divide="ignore", invalid="ignore")
            state.__enter__()
            return state

        def leave(state: object) -> None:
            cast(np.errstate, state).__exit__(None, None, None)

        return enter, leave
    from numpy._core._multiarray_umath import _make_extobj
    from numpy._core._ufunc_config import _extobj_contextvar  # type: ignore[attr-defined]  # (numpy's stubs omit it)

    def ignoring() -> object:
        global _ignoring_from
        in_force = _extobj_contextvar.get()
        made = _ignoring_from  # (one read: another thread may replace the pair)
        if made[0] is not in_force:
            made = _ignoring_from = (in_force, _make_extobj(all=None, divide="ignore", over=None, under=None,
                                                                    invalid="ignore"))  # (as errstate)
        return _extobj_contextvar.set(made[1])

    return ignoring, _extobj_contextvar.reset


@functools.cache
def _default_return_code() -> object:
    """The code of `wrap_ufunc`'s default `return_func` (`lambda res, *args: res`)."""
    import inspect

    from formulas.functions import wrap_ufunc

    return _code(inspect.signature(wrap_ufunc).parameters["return_func"].default)


@functools.cache
def _plain_answers() -> frozenset[type]:
    """The answers a bare call hands back as they are: scalars a 0-d object array holds as
    themselves (never a sequence, which numpy would read as elements)."""
    import numpy as np
    import schedula as sh
    from formulas.tokens.operand import XlError

    return frozenset({float, int, bool, str, type(None), XlError, type(sh.EMPTY), np.float64, np.int64, np.bool_})


def _unwrapped(implementation: Callable[..., object], codes: tuple[types.CodeType, ...],
               scalars: frozenset[type]) -> Callable[..., object]:
    """`implementation` built otherwise than on `wrap_ufunc` (CONVERT, the bases, IRR ...: `wrap_func`
    of a function of its own, under `wrap_ranges_func`), called on scalar arguments without those two
    wrappers, which on scalars only pass them on (`parse_ranges` unpacks `Ranges`, none here) and
    turn an exception into an error value: 2 of CONVERT's 6 us a call, 3,578 calls in formulas_test.
    An exception is left to the whole wrapper, which computes it again and says what it makes of it
    (these functions are pure). Itself where it is built otherwise still."""
    ranges_code, func_code, _ufunc_code = codes
    layer = _closure(implementation).get("func") if _code(implementation) is ranges_code else implementation
    if _code(layer) is not func_code:
        return implementation
    inner = _closure(layer).get("func")
    if not callable(inner):
        return implementation
    plain = _plain_body(cast(Callable[..., object], inner))
    if plain is not None:
        body, taken = plain, _PLAIN
    else:
        body, taken = inner, scalars

    def call(*args: object) -> object:
        if not taken.issuperset(map(type, args)):
            return implementation(*args)
        try:
            return body(*args)
        except Exception:  # noqa: BLE001 - computed again by the whole wrapper, which says what it makes of it
            return implementation(*args)

    return call


#: Python's own scalar types, exactly (no `formulas` error value, which is a str, nor its empty cell).
_PLAIN = frozenset({float, int, bool, str})


def _plain_body(inner: Callable[..., object]) -> Callable[..., object] | None:
    """A shorter path through `inner`'s body on `_PLAIN` arguments, or None. CONVERT (`xconvert`,
    3,578 calls in formulas_test) has one (`_convert`). Its module is asked only where it is
    imported already (`inner` is none of its functions otherwise), not imported for every book
    calling a bridged function (7 ms)."""
    eng = sys.modules.get("formulas.functions.eng")
    if eng is None or inner is not getattr(eng, "xconvert", None):
        return None
    return _convert()


@functools.cache
def _convert() -> Callable[..., object]:
    """CONVERT on plain scalars: `xconvert`'s `np.asarray(x, object).item()` gives each such argument
    back as it is and its three `raise_errors` find no error (more than half of its time); the
    rest is its body as formulas 1.3.4 writes it (`_formulas_wrappers` keeps to that release)."""
    from formulas.functions import Error, eng

    units = eng._units  # (an lru_cache of units.json: the same dict as xconvert reads)

    def convert(num: float | str, from_unit: object, to_unit: object) -> object:  # (a bool is a float's int)
        found = units()
        fu = found.get(from_unit, {})
        tu = found.get(to_unit, {})
        system = set(fu).intersection(tu)
        if not system:
            return Error.errors["#N/A"]
        system = list(system)[0]
        if isinstance(num, bool):
            return Error.errors["#VALUE!"]
        number = float(num)  # (replace_empty: no empty cell among plain scalars)
        if system == "temperature":
            number *= fu[system]
            if from_unit in ("C", "cel"):
                number += 273.15
            elif from_unit in ("F", "fah"):
                number = (number + 459.67) * 5.0 / 9.0
            elif from_unit in ("Rank",):
                number *= 5.0 / 9.0
            elif from_unit in ("Reau",):
                number = number * 5.0 / 4.0 + 273.15
            if to_unit in ("C", "cel"):
                number -= 273.15
            elif to_unit in ("F", "fah"):
                number = number * 9.0 / 5.0 - 459.67
            elif to_unit in ("Rank",):
                number /= 5.0 / 9.0
            elif to_unit in ("Reau",):
                number = (number - 273.15) / 5.0 * 4.0
            return number / tu[system]
        return number * (fu[system] / tu[system])

    return convert


#: wrap_ufunc's args_parser, safe_eval, otype (an ndarray subclass), return_func and the positions
#: vectorize passes whole (`excluded`: PROB's, T.TEST's ranges; empty for most).
_Pieces = tuple[Callable[..., Iterable[object]], Callable[..., object], type, Callable[..., object], frozenset[int]]


def _ufunc_pieces(implementation: Callable[..., object], codes: tuple[types.CodeType, ...]) -> _Pieces | None:
    """(args_parser, safe_eval, otype, return_func, excluded) of `wrap_ufunc`'s wrapper under
    `implementation` (through `wrap_ranges_func`'s and `wrap_func`'s, whose only work on
    scalars is to pass them on), or None where `implementation` is built otherwise."""
    ranges_code, func_code, ufunc_code = codes
    layer = _closure(implementation).get("func") if _code(implementation) is ranges_code else implementation
    if _code(layer) is not func_code:
        return None
    layer = _closure(layer).get("func")
    if _code(layer) is not ufunc_code:
        return None
    closure = _closure(layer)
    options = dict(closure.get("kw") or {})
    excluded = options.pop("excluded", set())
    # vectorize's other options change what it does; `excluded` only which arguments it lifts
    if options != {"otypes": [object]} or not isinstance(excluded, set | frozenset) or not all(
            type(i) is int for i in excluded):
        return None
    return cast(_Pieces, (closure["args_parser"], closure["safe_eval"], closure["otype"], closure["return_func"],
                          frozenset(excluded)))


def _code(function: object) -> object:
    return getattr(function, "__code__", None)


def _closure(function: object) -> dict[str, Any]:
    """A function's free variables by name (what a wrapper closes over: `formulas`' objects)."""
    code = getattr(function, "__code__", None)
    cells = getattr(function, "__closure__", None) or ()
    if code is None:
        return {}
    return dict(zip(code.co_freevars, (cell.cell_contents for cell in cells), strict=True))


@functools.cache
def _formulas_wrappers() -> tuple[tuple[types.CodeType, ...], frozenset[type]] | None:
    """The code of the wrappers `wrap_ranges_func`, `wrap_func` and `wrap_ufunc` return, and
    the argument types taken on the direct path, exactly: Python's scalars, `formulas`' error
    values and empty cell (numpy's float64 is a float, but not one of these types). None under
    another release, or where numpy's vectorize is found not to keep the function's answer as
    it is."""
    import formulas
    import schedula as sh
    from formulas import functions
    from formulas.tokens.operand import XlError

    if formulas.__version__ != READ_FROM or not _vectorize_keeps_answers():
        return None

    def inner(outer: Callable[..., object]) -> types.CodeType:
        (code,) = (c for c in outer.__code__.co_consts if isinstance(c, types.CodeType) and c.co_name == "wrapper")
        return code

    codes = inner(functions.wrap_ranges_func), inner(functions.wrap_func), inner(functions.wrap_ufunc)
    return codes, frozenset({float, int, bool, str, XlError, type(sh.EMPTY)})


def _vectorize_keeps_answers() -> bool:
    """numpy's vectorize on one scalar puts the function's answer itself in a 0-d array (numpy
    2.4 does: `ufunc(*args, out=...)`; an older one made an array of a list answer)."""
    import numpy as np

    probes: list[object] = [[1.0, 2.0], np.float64(2.5), "x"]
    whole = np.array([[1.0, 2.0]], dtype=object)
    for probe in probes:
        got = np.vectorize(lambda _x, p=probe: p, otypes=[object])(1.0)
        if not (isinstance(got, np.ndarray) and got.shape == () and got[()] is probe):
            return False
        # With a range excluded: the range passed whole, the answer as it is.
        got = np.vectorize(lambda r, _x, p=probe: p if r is whole else None, otypes=[object], excluded={0})(whole, 1.0)
        if not (isinstance(got, np.ndarray) and got.shape == () and got[()] is probe):
            return False
    return True
