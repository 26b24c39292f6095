"""FLOOR as Excel answers it where the bridged `formulas` implementation (calc/xlfuncs/bridge.py)
does not: FLOOR(0, 0) is 0 (formulas: #DIV/0!; a non-zero number over 0 stays #DIV/0!); every
other call goes on to the bridged one unchanged."""

from __future__ import annotations

from typing import Any

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.bridge import wrapped
from rates_xl.calc.xlfuncs.coercion import Callback, is_number


def _floor(bridged: Callback) -> Callback:
    def call(*args: EngineValue) -> Any:
        if len(args) == 2 and all(is_number(a) for a in args) and args[0] == 0 and args[1] == 0:
            return 0.0
        return bridged(*args)
    return call


FUNCTIONS = {"FLOOR": wrapped("FLOOR", _floor)}
