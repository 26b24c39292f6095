"""COUPDAYS, COUPDAYBS, COUPDAYSNC, COUPNCD, COUPPCD and COUPNUM: a bond's coupon dates around
the settlement and the days between them. formualizer does not know them; the `formulas`
package's implementations (bridged: calc/xlfuncs/bridge.py) give Microsoft's published
examples and agree with LibreOffice, written to Excel's rules, on every basis and frequency
but two cases this module puts right (tests/calc/test_bonds.py):

- COUPDAYBS on a coupon date is 0 days, whatever the basis: `formulas` gave -1 for a 29
  February coupon on 30/360 (its day count moves the start to the 30th but not the end);
- COUPDAYSNC on the 30/360 bases (0 and 4) is the period less the days accrued, COUPDAYS -
  COUPDAYBS, as Excel counts it (`formulas` counted from the settlement: 181 for a 180-day
  half year from a 29 February settlement).

Every other call, and every argument check, is `formulas`'."""

from __future__ import annotations

from typing import Any

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, Factory, Facts

NAMES = ("COUPDAYS", "COUPDAYBS", "COUPDAYSNC", "COUPNCD", "COUPPCD", "COUPNUM")


def _plain(value: EngineValue) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _function(name: str) -> Factory:
    def factory(_facts: Facts) -> Callback:
        from rates_xl.calc.xlfuncs.bridge import bridged

        computed = {n: bridged(n) for n in ("COUPDAYS", "COUPDAYBS", "COUPPCD", name)}

        def accrued(*args: Any) -> EngineValue:
            days = computed["COUPDAYBS"](*args)
            if _plain(days) and _plain(args[0]) and computed["COUPPCD"](*args) == int(args[0]):
                return 0.0  # the settlement is a coupon date
            return days

        def call(*args: Any) -> EngineValue:
            if not all(_plain(a) or a is None for a in args):
                return computed[name](*args)  # an error, an array: formulas' as it stands
            basis = int(args[3]) if len(args) > 3 and args[3] is not None else 0
            if name == "COUPDAYSNC" and basis in (0, 4):
                period = computed["COUPDAYS"](*args)  # (its checks are COUPDAYSNC's)
                days = accrued(*args) if _plain(period) else period
                return float(period - days) if _plain(days) else days
            return accrued(*args) if name == "COUPDAYBS" else computed[name](*args)
        call.__name__ = name
        return call
    return factory


FUNCTIONS = {name: _function(name) for name in NAMES}
