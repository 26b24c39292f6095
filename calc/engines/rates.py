"""The RATES_* functions as both engines register them: the table (the add-in's functions and
calc's own RATES_SOURCE_OF), the spellings a stored formula may use, the valuation moment a
calculation pins, and the rule that an error among the arguments is the answer.

Each engine's adapter (calc/engines/formualizer/model.py, calc/engines/formulas/functions.py)
turns its own values into a UDF's and back around these.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from datetime import datetime
from typing import Any

#: Set by `pinned_valuation_time`: the valuation time injected where a formula omits it.
_valuation_time: Any = None


@functools.cache  # one table: the engines register it once (`register_functions` checks identity)
def function_table() -> dict[str, Any]:
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


# -- valuation time ----------------------------------------------------------------------------
class pinned_valuation_time:  # noqa: N801 - used as a context manager, reads like one
    """Within this block, RATES_* calls that leave `valuation_time` empty get `moment`."""

    def __init__(self, moment: datetime | str | None) -> None:
        self.moment = moment

    def __enter__(self) -> None:
        global _valuation_time
        self._saved, _valuation_time = _valuation_time, self.moment

    def __exit__(self, *exc: object) -> None:
        global _valuation_time
        _valuation_time = self._saved


def valuation_time() -> Any:
    """The moment pinned by the calculation under way (None: now)."""
    return _valuation_time


def valuation_position(spec: Any) -> int | None:
    """Where a function takes `valuation_time` (from the function table, else its signature)."""
    names = getattr(spec, "arg_names", None)
    if names is None:
        try:
            names = tuple(inspect.signature(spec.core).parameters)
        except (TypeError, ValueError):
            return None
    return names.index("valuation_time") if "valuation_time" in names else None


# -- errors among the arguments ------------------------------------------------------------------
def first_error(args: list[Any], is_engine_error: Callable[[Any], bool]) -> Any:
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
