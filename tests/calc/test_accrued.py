"""ACCRINT and ACCRINTM computed here (calc/xlfuncs/financial/accrued.py) as Excel computes them.

EXCEL_ACCRINT and EXCEL_ACCRINTM are Excel 2010's values, from the Excel-generated test data of
fsprojects/ExcelFinancialFunctions (tests/ExcelFinancialFunctions.Tests/testdata/accrint.test
and accrintm.test): one ACCRINT per basis and frequency, and two ACCRINTM per basis, where
formualizer was off or listed (the days from issue to settlement instead of Excel's sum over
quasi-coupon periods; actual/actual), on month ends, 28 February and long odd periods; all with
calc_method TRUE and a settlement up to first_interest. EXCEL_16_CALC_METHOD is Excel 16's
values, cached in IronCalc's Excel-saved test books (xlsx/tests/calc_tests/FINANCIAL/
accrint_cases.xlsx and ACCRINT_extended.xlsx): calc_method FALSE (negative before the reference
date), settlements after first_interest either way, one on a coupon date. The harness over the
whole data (1,923 and 362 cases) and the books' 549 ACCRINT cells are in the commit messages."""

from __future__ import annotations

import pytest

from rates_xl.calc.engines.formualizer.values import error
from rates_xl.calc.xlfuncs.financial import accrued
from rates_xl.calc.xlfuncs.omitted import OMITTED
from tests.calc.excel_cases import date_serial
from tests.calc.financial_book import computed

EXCEL_ACCRINT = [
    # (actual/360, annual: the settlement two years before first_interest accrues 2 whole periods)
    ("ACCRINT(DATE(1990,3,4),DATE(1993,3,31),DATE(1992,3,4),0.07,10000,1,2)", 1400),
    ("ACCRINT(DATE(1993,2,28),DATE(2002,1,2),DATE(1995,2,28),0.07,10000,1,2)", 1347.5),
    ("ACCRINT(DATE(1993,2,28),DATE(2010,7,5),DATE(1995,2,28),0.07,10000,4,2)", 1246.388888889),
    ("ACCRINT(DATE(1993,2,28),DATE(2010,7,5),DATE(1995,3,1),0.07,12030.34,2,2)", 1504.126676111),
    ("ACCRINT(DATE(1990,3,4),DATE(2002,1,2),DATE(1995,2,28),0.1,10000,1,3)", 4983.561643836),
    ("ACCRINT(DATE(1993,2,28),DATE(2010,7,5),DATE(2010,6,5),0.1,10000,4,3)", 17265.75342466),
    ("ACCRINT(DATE(1993,2,28),DATE(2002,1,2),DATE(1995,3,1),0.07,10000,2,3)", 1398.082191781),
    ("ACCRINT(DATE(1993,2,28),DATE(2010,7,5),DATE(2000,7,2),0.1,10000,1,1)", 7334.246575342),
    ("ACCRINT(DATE(1993,2,28),DATE(2010,7,5),DATE(1996,3,30),0.1,10000,4,1)", 3036.813186813),
    ("ACCRINT(DATE(1993,2,28),DATE(2002,1,2),DATE(2000,7,2),0.07,10000,2,1)", 5145.485527264),
    ("ACCRINT(DATE(2018,8,15),DATE(2019,2,15),DATE(2019,2,15),0.02125,100,2,1)", 1.0625),  # settlement = first_interest
    ("ACCRINT(DATE(1993,2,28),DATE(2002,1,2),DATE(1996,3,30),0.07,12030.34,1,4)", 2601.226848889),
    ("ACCRINT(DATE(1990,3,4),DATE(2010,7,5),DATE(1995,2,28),0.07,10000,4,4)", 3488.333333333),
    ("ACCRINT(DATE(1995,5,31),DATE(2010,7,5),DATE(2010,6,5),0.07,12030.34,2,4)", 12643.55316389),
    ("ACCRINT(DATE(1990,3,4),DATE(1993,3,31),DATE(1992,3,4),0.07,12030.34,1,0)", 1686.586832778),
    ("ACCRINT(DATE(1995,5,31),DATE(2010,7,5),DATE(1996,3,30),0.07,10000,4,0)", 583.3333333333),
    ("ACCRINT(DATE(1995,5,31),DATE(2002,1,2),DATE(1996,3,30),0.1,12030.34,2,0)", 1002.528333333),
]

EXCEL_16_CALC_METHOD = [
    ("ACCRINT(DATE(2017,1,1),DATE(2017,12,1),DATE(2017,4,1),0.33,3000,4,1,FALSE)", -253.8763736263736),
    ("ACCRINT(DATE(2020,12,1),DATE(2021,12,1),DATE(2021,3,1),0.075,100,2,0,FALSE)", -1.875),
    ("ACCRINT(DATE(2020,12,1),DATE(2021,12,1),DATE(2021,3,1),0.075,100,2,1,FALSE)", -1.8852459016393444),
    ("ACCRINT(DATE(2021,6,1),DATE(2021,12,1),DATE(2022,3,1),0.025,5000,2,2,FALSE)", 94.79166666666666),
    ("ACCRINT(DATE(2021,6,1),DATE(2021,12,1),DATE(2022,9,1),0.075,100,2,1,TRUE)", 9.385245901639344),
    ("ACCRINT(DATE(2021,6,1),DATE(2021,12,1),DATE(2022,9,1),0.075,100,2,1,FALSE)", 9.364754098360656),
    ("ACCRINT(DATE(2021,9,1),DATE(2021,12,1),DATE(2022,2,1),0.025,5000,4,2,TRUE)", 52.77777777777778),
    ("ACCRINT(DATE(2021,9,1),DATE(2021,12,1),DATE(2022,2,1),0.025,5000,4,3,FALSE)", 52.397260273972606),
    ("ACCRINT(DATE(2020,12,1),DATE(2021,12,1),DATE(2022,6,1),0.075,100,1,0,FALSE)", 11.25),
    ("ACCRINT(DATE(2020,1,1),DATE(2020,7,1),DATE(2021,1,1),0.025,5000,2,1,TRUE)", 125.68681318681318),  # a coupon date
    ("ACCRINT(DATE(2020,1,1),DATE(2020,7,1),DATE(2021,1,1),0.025,5000,2,2,FALSE)", 127.08333333333333),
]

EXCEL_ACCRINTM = [
    ("ACCRINTM(DATE(1993,2,28),DATE(1995,2,28),0.07,12030.34,2)", 1707.639927778),
    ("ACCRINTM(DATE(1993,2,28),DATE(1995,3,1),0.07,12030.34,3)", 1686.554788493),
    ("ACCRINTM(DATE(1993,2,28),DATE(1996,3,30),0.07,12030.34,3)", 2597.894243288),
    ("ACCRINTM(DATE(1990,3,4),DATE(1995,2,28),0.07,12030.34,1)", 4201.778814058),
    ("ACCRINTM(DATE(1993,2,28),DATE(1996,3,30),0.1,12030.34,1)", 3708.737259411),
    ("ACCRINTM(DATE(1990,3,4),DATE(1992,3,4),0.07,10000,1)", 1400.638686131),
    ("ACCRINTM(DATE(1993,2,28),DATE(2000,7,2),0.1,10000,4)", 7344.444444444),
    ("ACCRINTM(DATE(1990,3,4),DATE(1995,2,28),0.1,12030.34,4)", 5995.119433333),
    ("ACCRINTM(DATE(1993,2,28),DATE(1995,3,1),0.1,10000,0)", 2002.777777778),
    ("ACCRINTM(DATE(1993,2,28),DATE(2010,6,5),0.1,10000,0)", 17263.88888889),
]

#: Microsoft's examples (the ACCRINT and ACCRINTM pages of Excel's documentation).
PUBLISHED = [
    ("ACCRINT(DATE(2008,3,1),DATE(2008,8,31),DATE(2008,5,1),0.1,1000,2,0)", 16.666667),
    ("ACCRINT(DATE(2008,3,5),DATE(2008,8,31),DATE(2008,5,1),0.1,1000,2,0,FALSE)", 15.555556),
    ("ACCRINT(DATE(2008,4,5),DATE(2008,8,31),DATE(2008,5,1),0.1,1000,2,0,TRUE)", 7.2222222),
    ("ACCRINTM(DATE(2008,4,1),DATE(2008,6,15),0.1,1000,3)", 20.54794521),
]


def test_excel_2010s_values(tmp_path):
    cases = EXCEL_ACCRINT + EXCEL_16_CALC_METHOD + EXCEL_ACCRINTM
    values, listed = computed(tmp_path, [formula for formula, _ in cases])
    assert listed == []
    for (formula, excel), ours in zip(cases, values, strict=True):
        assert ours == pytest.approx(excel, rel=5e-10, abs=1e-6), formula


def test_microsofts_examples(tmp_path):
    values, _ = computed(tmp_path, [formula for formula, _ in PUBLISHED])
    for (formula, excel), ours in zip(PUBLISHED, values, strict=True):
        assert ours == pytest.approx(excel, abs=5e-7), formula


ACCRINT = accrued.FUNCTIONS["ACCRINT"]({})
ACCRINTM = accrued.FUNCTIONS["ACCRINTM"]({})
ISSUE, FIRST, SETTLEMENT = date_serial(2008, 3, 1), date_serial(2008, 8, 31), date_serial(2008, 5, 1)


def test_argument_checks_as_microsoft_documents_them():
    assert ACCRINT(SETTLEMENT, FIRST, ISSUE, 0.1, 1000, 2, 0) == error("#NUM!")  # issue after settlement
    assert ACCRINT(ISSUE, FIRST, ISSUE, 0.1, 1000, 2, 0) == error("#NUM!")  # on the same day
    assert ACCRINT(ISSUE, FIRST, SETTLEMENT, 0, 1000, 2, 0) == error("#NUM!")
    assert ACCRINT(ISSUE, FIRST, SETTLEMENT, 0.1, -1, 2, 0) == error("#NUM!")
    assert ACCRINT(ISSUE, FIRST, SETTLEMENT, 0.1, 1000, 3, 0) == error("#NUM!")
    assert ACCRINT(ISSUE, FIRST, SETTLEMENT, 0.1, 1000, 2, 5) == error("#NUM!")
    assert ACCRINT(ISSUE, FIRST, -1, 0.1, 1000, 2, 0) == error("#VALUE!")
    assert ACCRINT(ISSUE, FIRST, SETTLEMENT, "x", 1000, 2, 0) == error("#VALUE!")
    assert ACCRINT(ISSUE, FIRST, SETTLEMENT, error("#N/A"), 1000, error("#DIV/0!"), 0) == error("#N/A")
    # truncated: the frequency 2.9 is 2, the basis 0.5 is 0, dates at noon their day
    assert ACCRINT(ISSUE + 0.5, FIRST, SETTLEMENT, 0.1, 1000, 2.9, 0.5) == pytest.approx(16.666666667)
    assert ACCRINTM(SETTLEMENT, ISSUE, 0.1, 1000, 3) == error("#NUM!")
    assert ACCRINTM(ISSUE, SETTLEMENT, -0.1, 1000, 3) == error("#NUM!")
    assert ACCRINTM(ISSUE, SETTLEMENT, 0.1, 1000, -1) == error("#NUM!")


def test_a_first_interest_date_at_or_before_the_issue_is_not_computed():
    """In neither data set: #NAME?, which the check lists, never a guess."""
    assert ACCRINT(ISSUE, ISSUE, SETTLEMENT, 0.1, 1000, 2, 0) == error("#NAME?")
    assert ACCRINT(FIRST, ISSUE, FIRST + 30, 0.1, 1000, 2, 0) == error("#NAME?")


def test_omitted_arguments_take_their_defaults():
    """Par omitted is 1,000, the basis 0 (Microsoft); an empty cell is 0 (#NUM! for a par)."""
    expected = ACCRINT(ISSUE, FIRST, SETTLEMENT, 0.1, 1000, 2, 0)
    assert ACCRINT(ISSUE, FIRST, SETTLEMENT, 0.1, OMITTED, 2) == pytest.approx(expected)
    assert ACCRINT(ISSUE, FIRST, SETTLEMENT, 0.1, 1000, 2, OMITTED, OMITTED) == pytest.approx(expected)
    assert ACCRINT(ISSUE, FIRST, SETTLEMENT, 0.1, None, 2) == error("#NUM!")
    assert ACCRINTM(ISSUE, SETTLEMENT, 0.1, OMITTED, 3) == pytest.approx(ACCRINTM(ISSUE, SETTLEMENT, 0.1, 1000, 3))


def test_calc_method_is_read_as_a_logical():
    """Omitted is TRUE; a number is TRUE unless 0; an empty cell is 0, FALSE."""
    issue = date_serial(2020, 12, 1)
    first, settlement = date_serial(2021, 12, 1), date_serial(2021, 3, 1)
    assert ACCRINT(issue, first, settlement, 0.075, 100, 2, 0, OMITTED) == pytest.approx(1.875)
    assert ACCRINT(issue, first, settlement, 0.075, 100, 2, 0, 2) == pytest.approx(1.875)
    assert ACCRINT(issue, first, settlement, 0.075, 100, 2, 0, None) == pytest.approx(-1.875)
    assert ACCRINT(issue, first, settlement, 0.075, 100, 2, 0, "x") == error("#VALUE!")


def test_arrays_are_lifted():
    assert ACCRINTM(ISSUE, [[SETTLEMENT, FIRST]], 0.1, 1000, 0) == [
        [pytest.approx(1000 * 0.1 * 60 / 360), pytest.approx(1000 * 0.1 * 180 / 360)]]
