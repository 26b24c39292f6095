"""COUPDAYS, COUPDAYBS, COUPDAYSNC, COUPNCD, COUPPCD and COUPNUM: a bond's coupon dates around
the settlement and the days between them. formualizer does not know them; the `formulas`
package's implementations (bridged: calc/xlfuncs/bridge.py) give Microsoft's published
examples and agree with LibreOffice, written to Excel's rules, on every basis and frequency
but two cases this module puts right (tests/calc/test_bonds.py):

- COUPDAYBS on a coupon date is 0 days, whatever the basis: `formulas` gave -1 for a 29
  February coupon on 30/360 (its day count moves the start to the 30th but not the end);
- COUPDAYSNC on the 30/360 bases (0 and 4) as Excel counts it (calc/xlfuncs/financial/
  daycounts.py `days_to_next`: on US 30/360 the whole period with both ends moved, less the
  days accrued, so not always COUPDAYS - COUPDAYBS; `formulas` counted from the settlement: 181
  for a 180-day half year from a 29 February settlement). All 917 COUPDAYSNC cases of Excel
  2010's answers in fsprojects/ExcelFinancialFunctions' test data (LibreOffice's COUPDAYS -
  COUPDAYBS missed 32).

Every other call, and every argument check, is `formulas`'."""

from __future__ import annotations

from typing import TypeGuard, cast

from rates_xl.calc.xlfuncs.coercion import Callback, Factory, Facts
from rates_xl.calc.xlfuncs.financial.bondprice import coupon_period
from rates_xl.calc.xlfuncs.financial.daycounts import days_to_next
from rates_xl.calc.xlfuncs.financial.oddcoupon import excel_date
from rates_xl.calc.xlfuncs.types import Answer, EngineValue

NAMES = ("COUPDAYS", "COUPDAYBS", "COUPDAYSNC", "COUPNCD", "COUPPCD", "COUPNUM")


def _plain(value: Answer) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _function(name: str) -> Factory:
    def factory(_facts: Facts) -> Callback:
        from rates_xl.calc.xlfuncs.bridge import bridged

        computed = {n: bridged(n) for n in ("COUPDAYS", "COUPDAYBS", "COUPPCD", name)}

        def accrued(*args: EngineValue) -> EngineValue:
            days = computed["COUPDAYBS"](*args)
            settlement = args[0]
            if _plain(days) and _plain(settlement) and computed["COUPPCD"](*args) == int(settlement):
                return 0.0  # the settlement is a coupon date
            return days

        def call(*args: EngineValue) -> EngineValue:
            if not all(_plain(a) or a is None for a in args):
                return computed[name](*args)  # an error, an array: formulas' as it stands
            basis_given = args[3] if len(args) > 3 else None
            basis = int(basis_given) if _plain(basis_given) else 0  # (plain, or None)
            if name == "COUPDAYSNC" and basis in (0, 4):
                period = computed["COUPDAYS"](*args)  # (its checks are COUPDAYSNC's)
                if not _plain(period):
                    return period
                settlement, maturity = excel_date(cast(float, args[0])), excel_date(cast(float, args[1]))
                previous, following, _ = coupon_period(settlement, maturity, int(cast(float, args[2])))
                return days_to_next(settlement, previous, following, basis)
            return accrued(*args) if name == "COUPDAYBS" else computed[name](*args)
        call.__name__ = name
        return call
    return factory


FUNCTIONS = {name: _function(name) for name in NAMES}
