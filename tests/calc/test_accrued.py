"""ACCRINT and ACCRINTM computed here (calc/xlfuncs/financial/accrued.py) as Excel computes them.

EXCEL_ACCRINT and EXCEL_ACCRINTM are Excel 2010's values, from the Excel-generated test data of
fsprojects/ExcelFinancialFunctions (tests/ExcelFinancialFunctions.Tests/testdata/accrint.test
and accrintm.test): one ACCRINT per basis and frequency, and two ACCRINTM per basis, where
formualizer was off or listed (the days from issue to settlement instead of Excel's sum over
quasi-coupon periods; actual/actual), on month ends, 28 February and long odd periods. The
harness over the whole data (1,923 and 362 cases) is in the commit message."""

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
    cases = EXCEL_ACCRINT + EXCEL_ACCRINTM
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


def test_omitted_arguments_take_their_defaults():
    """Par omitted is 1,000, the basis 0 (Microsoft); an empty cell is 0 (#NUM! for a par)."""
    expected = ACCRINT(ISSUE, FIRST, SETTLEMENT, 0.1, 1000, 2, 0)
    assert ACCRINT(ISSUE, FIRST, SETTLEMENT, 0.1, OMITTED, 2) == pytest.approx(expected)
    assert ACCRINT(ISSUE, FIRST, SETTLEMENT, 0.1, 1000, 2, OMITTED, OMITTED) == pytest.approx(expected)
    assert ACCRINT(ISSUE, FIRST, SETTLEMENT, 0.1, None, 2) == error("#NUM!")
    assert ACCRINTM(ISSUE, SETTLEMENT, 0.1, OMITTED, 3) == pytest.approx(ACCRINTM(ISSUE, SETTLEMENT, 0.1, 1000, 3))


def test_a_settlement_after_first_interest_is_not_computed():
    """Outside the data and not documented: #NAME?, which the check lists, never a guess."""
    later = date_serial(2009, 5, 1)
    assert ACCRINT(ISSUE, FIRST, later, 0.1, 1000, 2, 0) == error("#NAME?")
    assert ACCRINT(ISSUE, FIRST, later, 0.1, 1000, 2, 0, False) == error("#NAME?")


def test_arrays_are_lifted():
    assert ACCRINTM(ISSUE, [[SETTLEMENT, FIRST]], 0.1, 1000, 0) == [
        [pytest.approx(1000 * 0.1 * 60 / 360), pytest.approx(1000 * 0.1 * 180 / 360)]]
