"""Excel functions computed by the `formulas` package's own implementations, called from
formualizer as Python functions: where `formulas` is measured right on Excel's answers and
formualizer is not (bench/excel_corpus.py), one function at a time, without loading the
book into the slow engine.

The two engines hand values over differently; this module converts between them:
formualizer gives a Python function scalars, 2-D lists for ranges and arrays, None for an
empty cell and {"type": "Error", "kind": ...} for an error; `formulas` wants numpy object
arrays, `schedula.EMPTY` and its `XlError` values.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

from rates_xl.calc.engines.formualizer.values import error, error_text, is_error
from rates_xl.calc.xlfuncs.coercion import Callback, Factory, Facts
from rates_xl.calc.xlfuncs.limits import LARGEST, bounded

#: One call into `formulas` at a time (`bridged` says why): every module calling into it holds this.
FORMULAS_LOCK = threading.RLock()



#: The `formulas.functions` submodule defining each function: importing only that one keeps
#: a book that calls TEXT from paying for `stat`'s scipy import (4 s on a loaded machine).
MODULES = {
    "CONVERT": "eng", "IMDIV": "eng", "TEXT": "text", "FIXED": "text", "NUMBERVALUE": "text",
    "SUBSTITUTE": "text", "VALUE": "text", "YEARFRAC": "date", "ISOWEEKNUM": "date",
    "DATE": "date", "QUARTILE": "comp", "PERCENTILE": "comp", "MODE": "comp",
    "XIRR": "financial", "IRR": "financial", "PPMT": "financial", "CUMPRINC": "financial", "CEILING": "math",
    "FLOOR": "math", "MROUND": "math", "SUMX2PY2": "math", "SUMX2MY2": "math",
    "SUMXMY2": "math", "ISODD": "info", "ISEVEN": "info",
    **dict.fromkeys(("COUPDAYS", "COUPDAYBS", "COUPDAYSNC", "COUPNCD", "COUPPCD", "COUPNUM",
                     "FVSCHEDULE", "DISC", "INTRATE", "RECEIVED", "PRICEDISC", "YIELDDISC"), "financial"),
}


def formulas_function(name: str) -> Callable[..., Any] | None:
    """The `formulas` package's plain implementation of `name` (None when it has none, or
    only one that needs its own parse-time preparation), looked up once per name: each
    callback built for `name` (one per workbook the engine loads, one per factory that
    bridges it) asks again."""
    name = name.upper()
    with FORMULAS_LOCK:
        if name not in _FOUND:
            _FOUND[name] = _look_up(name)
        return _FOUND[name]


#: formulas_function's answers by name (None: `formulas` has no plain implementation).
_FOUND: dict[str, Callable[..., object] | None] = {}


def _look_up(name: str) -> Callable[..., object] | None:
    import importlib

    from rates_xl.calc.xlfuncs import limits, scalars, scipy_deferred
    from rates_xl.calc.xlfuncs.dates import text_dates
    from rates_xl.calc.xlfuncs.engineering import bases, units
    from rates_xl.calc.xlfuncs.information import errors

    submodule = MODULES.get(name) or scalars.MODULES.get(name, "stat")
    scipy_deferred.stat()  # before any sibling: `comp` imports it
    text_dates.install()  # date text read as Excel reads it, by whichever function reads one
    stopped = limits.implementation(name)  # formulas' own, stopped at Excel's limit
    if stopped is not None:
        return stopped
    numbered = errors.implementation(name)  # ERROR.TYPE numbering #CALC!, #SPILL! ... too
    if numbered is not None:
        return numbered
    if name == "CONVERT":
        units.complete()  # the units `formulas`' table lacks (engineering/units.py)
    undispatched = bases.implementation(name)  # eng's own helpers, without a dispatcher per call
    if undispatched is not None:
        return undispatched
    module = importlib.import_module(f"formulas.functions.{submodule}")
    table = getattr(module, "FUNCTIONS", {})
    found = table.get(name, table.get(f"_XLFN.{name}"))
    if not callable(found):
        import formulas

        found = formulas.get_functions().get(name)
    return found if callable(found) else None


#: Arguments (by position) Excel reads as text where `formulas` would read a number:
#: TEXT(1.23,0) formats with the code "0".
TEXT_ARGUMENTS = {"TEXT": (1,), "DECIMAL": (0,)}  # DECIMAL(111,2): the digits "111", not "111.0"


def bridged(name: str) -> Callable[..., Any]:
    """A formualizer callback computing `name` with the `formulas` implementation (found
    at the first call: a book that calls none of them never imports `formulas`)."""
    from rates_xl.calc.xlfuncs import scalars, unvectorized

    found: list[Callable[..., Any]] = []
    as_text = TEXT_ARGUMENTS.get(name, ())
    single = scalars.SINGLE_VALUE_ARGUMENTS.get(name, ())
    refuses = name in scalars.REFUSING_RANGES
    refused = scalars.REFUSING_RANGES.get(name) or range(255)
    matrices = scalars.MATRIX_ARGUMENTS.get(name, ())
    data_set = name in VALUES_ONLY

    def one(*args: Any) -> Any:
        # formualizer calls Python functions from several threads, and `formulas` (with
        # schedula) imports modules lazily inside its functions: two threads importing one
        # module at once see it partly initialised (AttributeError, an error cell that
        # varies from run to run). One call into `formulas` at a time; the GIL serialises
        # this Python work anyway.
        with FORMULAS_LOCK:
            if not found:
                implementation = formulas_function(name)
                if implementation is None:
                    return error("#NAME?")
                found.append(unvectorized.direct(implementation, bare=True))
            if as_text:
                args = tuple(_as_text(a) if i in as_text else a for i, a in enumerate(args))
            if data_set:
                args = tuple(_text_as_text(a) if isinstance(a, list) else a for a in args)
            # Most arguments are plain scalars, which to_formulas gives back as they are.
            return from_formulas(found[0](*(args if _PLAIN.issuperset(map(type, args))
                                             else [to_formulas(a) for a in args])))

    if not (matrices or refuses or single):  # nothing to check first: one frame less a call
        one.__name__ = name
        return one

    def call(*args: Any) -> Any:
        if matrices:
            args = tuple([[a]] if i in matrices and not isinstance(a, list) else a for i, a in enumerate(args))
        if refuses and any(_cells(a) > 1 for i, a in enumerate(args) if i in refused):
            return error("#VALUE!")
        if single and any(i < len(args) and _cells(args[i]) > 1 for i in single):
            return _each(one, args, single)
        return one(*args)

    call.__name__ = name
    return call


#: Statistical functions whose every argument is a value of the data set (no k, x or sigma that
#: Excel reads from text), where `_text_as_text` applies.
VALUES_ONLY = frozenset("""KURT SKEW SKEW.P MODE MODE.SNGL MODE.MULT STDEVA STDEVPA VARA VARPA
    AVEDEV DEVSQ GEOMEAN HARMEAN""".split())
#: What a text in a statistical function's range or array is handed over as (`_text_as_text`).
_TEXT = "text"


def _text_as_text(values: list[object]) -> list[object]:
    """A range or array given to a statistical function of VALUES_ONLY, its texts made one text
    that reads as no number. Excel leaves text in a reference or an array
    out of the data set (KURT, MODE ...; counts it as 0 in AVERAGEA and its kin), whatever it
    says; `formulas` read some of it: a "10" among the cells made KURT #VALUE! and moved MODE's
    choice between equally frequent values (MODE.SNGL of 3, 0, "10", 3, 0 was 0; Excel's, the
    first of them, 3). IronCalc's Excel-made MEADIAN_KURT_SKEW_HARMEAN.xlsx F2, KURT over a
    range holding the texts "6/6/2018" and "13", is Excel's -1.2129835263391704 so (it was
    #VALUE!, listed stale). Empty text ("", a formula's) is left as it is."""
    if not any(type(cell) is str or isinstance(cell, list) for cell in values):
        return values
    return [_text_as_text(cell) if isinstance(cell, list) else (_TEXT if type(cell) is str and cell else cell)
            for cell in values]


def wrapped(name: str, cases: Callable[[Callable[..., Any]], Callable[..., Any]]) -> Factory:
    """A factory (calc/xlfuncs OURS) of the bridged `name` with cases of its own: `cases` takes
    the bridged callback and gives the one that answers them, calling it for the rest. An
    omitted argument reaches both as formualizer's 0, as it reaches the bridged one alone."""
    from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted

    def factory(_facts: Facts) -> Callback:
        inner = cases(bridged(name))

        def call(*args: Any) -> Any:
            return inner(*(0.0 if a == OMITTED else a for a in args))

        call.__name__ = name
        reads_omitted(call)
        return call
    return factory


def _cells(value: Any) -> int:
    if not isinstance(value, list):
        return 1
    return sum(len(row) if isinstance(row, list) else 1 for row in value)


def _each(one: Callable[..., Any], args: tuple[Any, ...], single: tuple[int, ...]) -> list[list[Any]]:
    """`one` applied to each element of the arrays given at the `single` positions (read to
    the largest, #N/A beyond a smaller one), the other arguments as they are."""
    arrays = [args[i] for i in single if i < len(args) and isinstance(args[i], list)]
    rows = max(len(a) for a in arrays)
    cols = max(len(r) if isinstance(r, list) else 1 for a in arrays for r in a)
    out = []
    for r in range(rows):
        line = []
        for c in range(cols):
            picked = list(args)
            for i in single:
                if i < len(args) and isinstance(args[i], list):
                    picked[i] = _element(args[i], r, c)
            line.append(error("#N/A") if any(_is_na_fill(picked[i]) for i in single if i < len(args))
                        else one(*picked))
        out.append(line)
    return out


_NA_FILL = object()


def _element(array: list[Any], r: int, c: int) -> Any:
    rows = [row if isinstance(row, list) else [row] for row in array]
    ri = 0 if len(rows) == 1 else r
    ci = 0 if len(rows[0]) == 1 else c
    if ri >= len(rows) or ci >= len(rows[ri]):
        return _NA_FILL
    return rows[ri][ci]


def _is_na_fill(value: Any) -> bool:
    return value is _NA_FILL


@functools.cache
def _formulas_values() -> tuple[object, dict[str, object], type, Callable[[object], object]]:
    """`formulas`' empty cell, its error values by text, its error type and the engine adapter's
    scalar conversion, imported at the first conversion (each call of a bridged function
    converts every argument: the imports inside the conversions were a third of a CONVERT)."""
    import schedula as sh
    from formulas.tokens.operand import Error, XlError

    from rates_xl.calc.engines.formulas.functions import scalar_from_engine

    return sh.EMPTY, Error.errors, XlError, scalar_from_engine


def to_formulas(value: Any) -> Any:
    if type(value) in _PLAIN:  # most arguments: as they are, without the tests below
        return value
    if isinstance(value, list):
        import numpy as np

        rows = [row if isinstance(row, list) else [row] for row in value]
        array = np.empty((len(rows), max(len(r) for r in rows)), dtype=object)
        for i, row in enumerate(rows):
            for j, cell in enumerate(row):
                array[i, j] = cell if type(cell) in _PLAIN else _scalar_to_formulas(cell)
        return array
    return _scalar_to_formulas(value)


def _scalar_to_formulas(value: Any) -> Any:
    if value is None:
        return _formulas_values()[0]
    if is_error(value):
        errors, xl_error = _formulas_values()[1:3]
        text = error_text(value)
        # #CALC!, #SPILL! ... (not among formulas' own) kept as themselves: passed on, not #VALUE!
        return errors.get(text) or xl_error(text)
    return value


def from_formulas(value: Any) -> Any:
    if type(value) is float and -LARGEST <= value <= LARGEST:
        return value  # most answers: a number `bounded` leaves as it is (its import per call is half a CONVERT's)
    if type(value) in _PLAIN:
        return _scalar_from_formulas(value)
    import numpy as np

    if isinstance(value, np.ndarray):
        if value.size == 1:
            return _scalar_from_formulas(value.ravel()[0])
        return [[_scalar_from_formulas(v) for v in row] for row in np.atleast_2d(value)]
    return _scalar_from_formulas(value)


#: Python's own scalar types (exactly: numpy's float64 is a float), which no conversion changes.
_PLAIN = frozenset({float, int, str, bool})


def _scalar_from_formulas(value: Any) -> Any:
    """One of formulas' values as a plain Python one: its error as Excel's error, NaN or a
    number beyond Excel's largest as #NUM! (as Excel shows a result no number holds), a text
    longer than a cell holds as #VALUE! (limits.py), the rest as the engine adapter does."""
    if type(value) in _PLAIN:
        return bounded(value)
    _empty, _errors, xl_error, scalar_from_engine = _formulas_values()
    if isinstance(value, xl_error):
        return error(str(value))
    if value is None:
        return None
    value = scalar_from_engine(value)
    if type(value) in _PLAIN:
        return bounded(value)
    import numpy as np

    if isinstance(value, np.ndarray) and value.size == 1:
        # A negative number in an array constant (`{-1.1,2.1}`): `formulas` holds it as an array
        # of its own, inside the array, where LOOKUP took it for no number (LOOKUP!S56).
        return _scalar_from_formulas(value.reshape(-1)[0])
    return value


def _as_text(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    return str(int(value)) if float(value).is_integer() else repr(float(value))
