"""The LAMBDA family (MAP, BYROW, BYCOL, SCAN, REDUCE, MAKEARRAY) computed for the fast engine,
which knows no LAMBDA: the pass `lambdas` (calc/formula/lambdas.py) writes such a call as
`RATESXL.LAMBDA("=MAP(RXL_REF_A, LAMBDA(a, a^2))", C18:E19)`, the engine computes every
argument but the function and hands their values here; `call_lambda` computes the call with
the `formulas` package's implementation of these functions (measured equal to Excel's on the
corpus; its MAP and SCAN corrected to keep each value's type, `_exact_map_and_scan`),
compiled once per text. The callback's answer is an array, which spills. The first
compilation imports all of `formulas`' functions (scipy included: 3-4 s on a quiet machine,
paid once per process, and already paid by a book calling a bridged statistical function).
What the LAMBDA's body calls is `formulas`' too: where that differs from Excel (COLUMNS of a
LAMBDA's row answers #VALUE!), a book Excel calculated has the cell listed as stale by the
check against its cached value; a book never calculated gets the error.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

from rates_xl.calc.xlfuncs.coercion import Callback, Facts
from rates_xl.calc.xlfuncs.types import EngineValue

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

#: Functions that take a LAMBDA (or an eta-reduced function such as `_xleta.SUM`).
TAKING_LAMBDA = frozenset({"MAP", "BYROW", "BYCOL", "SCAN", "REDUCE", "MAKEARRAY"})

#: The callback's name in the engine's copy of a formula.
CALLBACK = "RATESXL.LAMBDA"


def placeholder(index: int) -> str:
    """The name standing for the call's `index`-th reference: RXL_REF_A, RXL_REF_B ... (letters
    only, so it never reads as a cell)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return f"RXL_REF_{letters}"


def _placeholder_index(name: str) -> int | None:
    if not name.upper().startswith("RXL_REF_"):
        return None
    index = 0
    for ch in name[8:].upper():
        index = index * 26 + ord(ch) - 64
    return index - 1


class _Compiled(Protocol):
    """A formula `formulas` compiled (schedula's DispatchPipe): the names it reads, in the
    order it takes their values, and the call computing it."""

    @property
    def inputs(self) -> Iterable[str]: ...

    def __call__(self, *values: object) -> object: ...


@lru_cache(maxsize=512)
def _compiled(formula: str) -> _Compiled:
    import formulas

    from rates_xl.calc.xlfuncs import scipy_deferred
    from rates_xl.calc.xlfuncs.logical import pipes

    scipy_deferred.stat()
    _exact_map_and_scan()
    compiled = formulas.Parser().ast(formula)[1].compile()
    pipes.speed_up(compiled)  # its calls, and its LAMBDAs' calls, without schedula's dispatch (pipes.py)
    return compiled


@lru_cache(maxsize=1)
def _exact_map_and_scan() -> None:
    """formulas' MAP and SCAN build their answer with `np.asarray(out)`: an answer of text and
    numbers (a RATES_* table's header row over its figures) becomes all text ('46350.0').
    The same two functions keeping each value as it is (dtype object), put in formulas'
    function table the way it takes custom functions (`formulas.functions.FUNCTIONS`, which
    overrides its submodules')."""
    import numpy as np
    from formulas import functions
    from formulas.functions import Array, Error, flatten, replace_empty, wrap_func
    from formulas.functions.logic import _get_first

    # Both receive formulas' values (numpy arrays of its scalars) and the LAMBDA as its
    # compiled function; what formulas' wrapper catches (a function that is none: TypeError)
    # is #VALUE! in the cell, as in its own MAP and SCAN.
    def xscan(initial_value: object, array: ArrayLike, func: Callable[[object, object], object]) -> NDArray[np.object_]:
        grid = np.atleast_2d(array)
        out, acc = [], replace_empty(initial_value)
        for x in flatten(grid, None):
            acc = func(acc, x)
            out.append(_get_first(acc))
        return np.asarray(out, object).reshape(grid.shape).view(Array)

    def xmap(array: ArrayLike, func: ArrayLike | Callable[..., object],
             *arrays: ArrayLike | Callable[..., object]) -> NDArray[np.object_]:
        *given, function = (func, *arrays)  # MAP(a, b, ..., LAMBDA): the function comes last
        others = [v for v in given if not callable(v)]
        if not callable(function) or len(others) < len(given):
            raise TypeError("MAP takes arrays, then one function")
        grid = np.atleast_2d(array)
        every = [grid] + [np.atleast_2d(v) for v in others]
        if not all(grid.shape == v.shape for v in every):
            return np.asarray([[Error.errors["#VALUE!"]]], object).view(Array)
        out = [_get_first(function(*args)) for args in zip(*(flatten(v, None) for v in every), strict=True)]
        return np.asarray(out, object).reshape(grid.shape).view(Array)

    # formulas reads its table through `get_functions()`, an lru_cache: once anything has
    # compiled a formula (the `formulas` engine, the bridge) the cached dict is what counts,
    # so the two go into it as well as into FUNCTIONS.
    table = functions.get_functions()
    for name, function in (("MAP", xmap), ("SCAN", xscan)):
        wrapped = wrap_func(function)
        for key in (name, f"_XLFN.{name}"):
            functions.FUNCTIONS[key] = table[key] = wrapped


def call_lambda(formula: str, *values: EngineValue, stop: threading.Event | None = None) -> EngineValue:
    """The callback: `formula` computed with the `formulas` package, the values the engine
    handed over standing for its placeholders, in order; its LAMBDA calls end once `stop` is
    set (the book out of time: pipes.py `STOPPING`)."""
    from rates_xl.calc.engines.formualizer.values import error
    from rates_xl.calc.xlfuncs.bridge import FORMULAS_LOCK, from_formulas, to_formulas
    from rates_xl.calc.xlfuncs.logical.pipes import STOPPING

    # One call into `formulas` at a time, as the bridge's (bridge.py says why): the engine
    # calls this from several threads, and a compiled formula (schedula's DispatchPipe, "not
    # thread safe, because it overwrite[s] the solution") is shared by every call of its
    # text; the lock also compiles each text once.
    with FORMULAS_LOCK:
        try:
            compiled = _compiled(formula)
            positions = [_placeholder_index(name) for name in compiled.inputs]
            if any(p is None or p >= len(values) for p in positions):
                return error("#NAME?")  # it reads a name we did not hand over
            STOPPING.event = stop
            result = compiled(*[to_formulas(values[p]) for p in positions if p is not None])
        except Exception:  # noqa: BLE001 - formulas' own failure (or OutOfTime): an error value, never a traceback
            return error("#VALUE!")
        finally:
            STOPPING.event = None
        return from_formulas(result)


def callback(_facts: Facts) -> Callback:
    from rates_xl.calc import budget

    stop = budget.stop_event()  # (this book's: the callbacks are registered for each book it loads)
    if stop is None:
        return call_lambda

    def call_lambda_in_time(formula: str, *values: EngineValue) -> EngineValue:
        return call_lambda(formula, *values, stop=stop)
    return call_lambda_in_time
