"""The RATES_* functions as both engines register them: the table (the add-in's functions and
calc's own RATES_SOURCE_OF), the spellings a stored formula may use, the call context of the
calculation under way, and the rule that an error among the arguments is the answer.

Each engine's adapter (calc/engines/formualizer/model.py, calc/engines/formulas/functions.py)
turns its own values into a UDF's and back around `call`, which computes one call under the
calculation's context (functions/context.py: the book's valuation moment, the planning
round, the pack recording it), set by `computing` around each evaluation: a module value,
not a context variable, because formualizer calls the functions from threads of its own.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from rates_xl.functions.context import NOW, CallContext
from rates_xl.functions.values import FunctionValue

if TYPE_CHECKING:
    from rates_xl.calc.sources import InternalFunction
    from rates_xl.functions.core import FunctionSpec


@functools.cache  # one table: the engines register it once (`register_functions` checks identity)
def function_table() -> dict[str, FunctionSpec | InternalFunction]:
    """The add-in's function table (Excel name -> spec with `.core`), and RATES_SOURCE_OF,
    which calc writes for RATES_SOURCE (calc/sources.py)."""
    from rates_xl.calc.sources import FUNCTION
    from rates_xl.functions import FUNCTIONS

    return {**FUNCTIONS, FUNCTION.name: FUNCTION}


def engine_names(excel_name: str) -> list[str]:
    """Every spelling under which one function is registered in the engine (upper case):
    classic and dotted, Excel's stored prefixes, and the same for any former name."""
    from rates_xl.functions.table import FORMER_NAMES

    names = [excel_name.upper()] + [old for old, new in FORMER_NAMES.items() if new == excel_name.upper()]
    spellings = []
    for name in names:
        dotted = name.replace("RATES_", "RATES.", 1)
        spellings += [name, dotted, f"_XLUDF.{name}", f"_XLDUDF_{name}"]
    return spellings


# -- the calculation's call context -------------------------------------------------------------
_context: CallContext = NOW


@contextlib.contextmanager
def computing(context: CallContext) -> Iterator[CallContext]:
    """Within this block every RATES_* call the engines make is computed under `context`."""
    global _context
    saved, _context = _context, context
    try:
        yield context
    finally:
        _context = saved


def context() -> CallContext:
    """The call context of the calculation under way (NOW outside one)."""
    return _context


def call(spec: FunctionSpec | InternalFunction, args: Sequence[object]) -> FunctionValue:
    """One RATES_* call an engine makes, computed under the calculation's context: the
    function table's through the core, calc's own (RATES_SOURCE_OF) directly."""
    from rates_xl.functions.core import FunctionSpec, evaluate

    if isinstance(spec, FunctionSpec):
        return evaluate(spec, tuple(args), _context)
    return spec.core(*args)


# -- errors among the arguments ------------------------------------------------------------------
def first_error(args: Sequence[object], is_engine_error: Callable[[object], bool]) -> object:
    """An error among the arguments, which the call answers unchanged (as Excel's own do):
    the engine's own error value (each engine has its kind) or a `#RATES!` message."""
    for arg in args:
        cells = [c for row in arg for c in row] if isinstance(arg, list) else [arg]
        for cell in cells:
            if is_engine_error(cell):
                return cell
            if isinstance(cell, str) and cell.startswith("#RATES!"):
                # The root cause stays visible instead of a second-hand complaint about it.
                return cell
    return None
