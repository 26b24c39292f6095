"""An omitted argument (`XLOOKUP(a,b,c,,1,2)`) reaches a Python function in formualizer as
0, the same as a typed 0; Excel treats it as "not given" (XLOOKUP's if_not_found is then
#N/A, not 0). The engine's copy of a formula calling one of our functions gets a marker in
each omitted place (the pass `ours_omitted`, calc/formula/arguments.py), which the callback
reads as None."""

from __future__ import annotations

from typing import Any

OMITTED = "rates-xl:omitted"


def given(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """The callback's arguments with the marker read as "not given" (None)."""
    return tuple(None if a == OMITTED else a for a in args)
