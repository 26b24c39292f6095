"""XNPV's rate argument read as Excel reads it, before the `formulas` implementation (bridged,
measured right on the cash flows themselves) computes: an error given as the rate is passed
on (XNPV(#N/A, ...) is #N/A; formualizer hands `formulas` a value it answers #VALUE! for), a
boolean is #VALUE! (XNPV(TRUE, ...): `formulas` reads it as 1) and an empty cell is a rate of
0, which is #NUM! (formulas_test.xlsx FINANCIAL row 56)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rates_xl.calc.xlfuncs.bridge import bridged, error
from rates_xl.calc.xlfuncs.values import is_error


def xnpv(_facts: dict[str, Any]) -> Callable[..., Any]:
    computed = bridged("XNPV")

    def XNPV(rate: Any, *rest: Any) -> Any:  # noqa: N802
        if is_error(rate):
            return rate
        if isinstance(rate, bool):
            return error("#VALUE!")
        if rate is None:
            return error("#NUM!")
        return computed(rate, *rest)
    return XNPV
