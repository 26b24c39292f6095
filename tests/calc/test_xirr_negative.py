"""XIRR's root below 0 (calc/xlfuncs/financial/cashflows.py `_below_zero`): where doubling the
guess finds no root above 0 and `formulas`' Newton stops where there is none (it answered
-0.9999999), the interval from 0 toward -100 % is halved, to within 1E-8 as Excel's answers are.

Excel's answers: IronCalc's Excel-made XIRR.xlsx (ironcalc/IronCalc,
xlsx/tests/calc_tests/FINANCIAL/XIRR.xlsx, MIT or Apache-2.0), Sheet1 R5, R15, R17 and R13 (where
`formulas`' Newton finds a root below 0 itself, kept: equal to Excel's in that book)."""

from __future__ import annotations

import pytest

from tests.calc.financial_book import computed

DATES = "{45292,45323,45353,45386,45782,46179}"  # 2024-01-01 ... 2026-06-06
CASES = {
    f"XIRR({{-20,5,5,7,-10,5}},{DATES})": -0.48679569587111476,
    f"XIRR({{-900,10,12,13,40,100}},{DATES})": -0.5608382768929006,
    f"XIRR({{-400,1,1,1,1,1}},{DATES})": -0.9121843662112951,
    "XIRR({-400,100,10,5,6,5},{44958,44986,45017,45078,45108,45139})": -0.9977533546974883,
    # a guess below 0, where `formulas`' Newton answered #NUM!, and a root at 0 from a guess of 0.5
    # (Excel 2010's answers: fsprojects/ExcelFinancialFunctions' testdata/xirr.test)
    "XIRR({105091006,-103250941.8647},{36626,36646},-0.1)": -0.2755730099976,
    "XIRR({206101714.8494,-156650972.5427},{36950,36981},-0.1)": -0.9604521892965,
    "XIRR({-100,-10,10,100},{25659,26341,29334,30405},0.5)": 3.725290298462e-09,
}


def test_roots_below_zero(tmp_path):
    values, listed = computed(tmp_path, list(CASES))
    assert listed == []
    for (formula, excel), got in zip(CASES.items(), values, strict=True):
        assert got == pytest.approx(excel, abs=2e-8), formula


#: Flows worth less than 0 at every rate above -100 % (most, -350, near -60 %): no rate makes
#: them worth 0, and Excel answers #NUM! ("If XIRR can't find a result that works after 100
#: tries"). `formulas`' Newton stopped at -0.9999999, which was answered.
NO_RATE = "XIRR({-9584.75,4724.46,-387.33,3102.81},{40000,40100,40738,40237})"


def test_flows_with_no_rate_are_num(tmp_path):
    from rates_xl.calc.xlfuncs.financial.cashflows import _in_order

    flows, dates = [-9584.75, 4724.46, -387.33, 3102.81], [40000, 40100, 40738, 40237]
    rates = [-1 + 10 ** -k for k in range(1, 9)] + [i / 100 for i in range(-99, 1001)]
    assert max(_in_order(rate, flows, dates) for rate in rates) < -300  # none is a root
    values, listed = computed(tmp_path, [NO_RATE])
    assert (values, listed) == (["#NUM!"], [])
