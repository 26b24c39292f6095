"""FLOOR as Excel answers it where the bridged `formulas` implementation (calc/xlfuncs/bridge.py)
does not: FLOOR(0, 0) is 0 (formulas: #DIV/0!; a non-zero number over 0 stays #DIV/0!), either
read from FALSE or an empty cell too (FLOOR(FALSE,0) and FLOOR(empty,empty) are 0 in IronCalc's
Excel-made FLOOR_CEILING.xlsx, FLOOR!F15 and M16); every other call goes on to the bridged one
unchanged."""

from __future__ import annotations

from rates_xl.calc.xlfuncs.bridge import wrapped
from rates_xl.calc.xlfuncs.coercion import Callback, is_number
from rates_xl.calc.xlfuncs.types import Answer, EngineValue


def _zero(value: EngineValue) -> bool:
    return value is None or value is False or (is_number(value) and value == 0)


def _floor(bridged: Callback) -> Callback:
    def call(*args: EngineValue) -> Answer:
        if len(args) == 2 and all(_zero(a) for a in args):
            return 0.0
        return bridged(*args)
    return call


FUNCTIONS = {"FLOOR": wrapped("FLOOR", _floor)}
