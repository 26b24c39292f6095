"""An omitted argument (`XLOOKUP(a,b,c,,1,2)`) reaches a Python function in formualizer as
0, the same as a typed 0; Excel treats it as "not given" (XLOOKUP's if_not_found is then
#N/A, not 0). The engine's copy of a formula calling one of our functions gets a marker in
each omitted place (the pass `ours_omitted`, calc/formula/arguments.py), which the callback
reads as None."""

from __future__ import annotations

from typing import TypeVar

from rates_xl.calc.xlfuncs.coercion import Callback
from rates_xl.calc.xlfuncs.types import EngineValue

OMITTED = "rates-xl:omitted"

F = TypeVar("F", bound=Callback)


def reads_omitted(call: F) -> F:
    """Mark `call` as reading the marker itself (calc/xlfuncs/__init__.py then hands it the
    marker, not None): where an omitted argument means something of its own."""
    call.reads_omitted = True  # type: ignore[attr-defined]  # a mark on the function object
    return call


def given(args: tuple[EngineValue, ...]) -> tuple[EngineValue, ...]:
    """The callback's arguments with the marker read as "not given" (None)."""
    return tuple(None if a == OMITTED else a for a in args)
