"""The coupon functions formualizer does not know (calc/xlfuncs/financial/coupons.py) and FVSCHEDULE: Microsoft's
published examples, and LibreOffice over every basis and frequency on dates chosen for month
ends and 29 February. DISC, INTRATE, RECEIVED, PRICEDISC and YIELDDISC are `formulas`' on the
money-market bases actual/360 and actual/365 (2 and 3) given as a number, where it equals
LibreOffice on the same dates (calc/routing.py `BASIS_GATED`). The other bond and money-market
functions it does not know, and those five on other bases, stay listed as not computed (DURATION,
MDURATION, PRICEMAT and YIELDMAT are ours now: tests/calc/test_securities.py): its DISC, INTRATE and RECEIVED disagree with LibreOffice
on the 30/360 and actual/actual bases at month ends; neither answer is known to be Excel's."""

from __future__ import annotations

import itertools

import pytest

from tests.support import libreoffice

#: Microsoft's examples, from each function's page of Excel's documentation.
PUBLISHED = {
    "COUPDAYBS(DATE(2011,1,25),DATE(2011,11,15),2,1)": 71,
    "COUPDAYS(DATE(2011,1,25),DATE(2011,11,15),2,1)": 181,
    "COUPDAYSNC(DATE(2011,1,25),DATE(2011,11,15),2,1)": 110,
    "COUPNCD(DATE(2011,1,25),DATE(2011,11,15),2,1)": 40678,
    "COUPNUM(DATE(2007,1,25),DATE(2008,11,15),2,1)": 4,
    "COUPPCD(DATE(2011,1,25),DATE(2011,11,15),2,1)": 40497,
    "FVSCHEDULE(1,{0.09,0.11,0.1})": 1.33089,
    # (their examples on actual/360; DISC's is on actual/actual, listed below)
    "INTRATE(DATE(2008,2,15),DATE(2008,5,15),1000000,1014420,2)": 0.05768,
    "RECEIVED(DATE(2008,2,15),DATE(2008,5,15),1000000,0.0575,2)": 1014584.654,
    "PRICEDISC(DATE(2008,2,16),DATE(2008,3,1),0.0525,100,2)": 99.79583333,
    "YIELDDISC(DATE(2008,2,16),DATE(2008,3,1),99.795,100,2)": 0.052823,
}
COUPONS = ["COUPDAYS", "COUPDAYBS", "COUPDAYSNC", "COUPNCD", "COUPPCD", "COUPNUM"]
DATES = [("DATE(2024,1,15)", "DATE(2034,1,15)"), ("DATE(2024,3,1)", "DATE(2029,11,15)"),
         ("DATE(2023,12,31)", "DATE(2026,2,28)"), ("DATE(2024,2,29)", "DATE(2030,8,31)")]
#: Money-market periods: month ends, 29 February, a year and less.
SHORT = [("DATE(2024,1,31)", "DATE(2024,3,31)"), ("DATE(2023,2,28)", "DATE(2024,2,29)"),
         ("DATE(2024,5,31)", "DATE(2024,8,30)"), ("DATE(2008,2,16)", "DATE(2008,3,1)")]
MONEY_MARKET = ["DISC({s},{m},97.5,100,{b})", "YIELDDISC({s},{m},97.5,100,{b})", "INTRATE({s},{m},975,1000,{b})",
                "RECEIVED({s},{m},975,0.03,{b})", "PRICEDISC({s},{m},0.03,100,{b})"]


def _book(path, formulas):
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for r, formula in enumerate(formulas, start=1):
        sheet.cell(row=r, column=1).value = "=" + formula
    book.save(path)


def _unlike_libreoffice(tmp_path, cases):
    """The formulas whose answer differs from LibreOffice's (relative 1e-12), every one computed."""
    _book(tmp_path / "cases.xlsx", cases)
    result, theirs = libreoffice.ours_and_theirs(tmp_path / "cases.xlsx", tmp_path)
    assert not result.skipped
    return [(formula, result.values[("S", f"A{r}")], theirs[r - 1][0]) for r, formula in enumerate(cases, start=1)
            if result.values[("S", f"A{r}")] != pytest.approx(float(theirs[r - 1][0]), rel=1e-12)]


def test_microsofts_examples(tmp_path):
    from rates_xl.calc.workbook import WorkbookCalculation

    _book(tmp_path / "published.xlsx", list(PUBLISHED))
    result = WorkbookCalculation(tmp_path / "published.xlsx", full=True).compute()
    assert not result.skipped
    for r, (formula, expected) in enumerate(PUBLISHED.items(), start=1):
        digits = len(str(expected).split(".")[1]) if "." in str(expected) else 0
        assert round(result.values[("S", f"A{r}")], digits) == pytest.approx(expected, abs=10 ** -digits / 2), formula


@libreoffice.needed
def test_coupons_as_libreoffice_computes_them(tmp_path):
    """Every one but COUPDAYSNC on 30/360, where LibreOffice answers COUPDAYS - COUPDAYBS and Excel
    does not (Excel 2010's answers: tests/calc/test_securities.py): those differ at month ends."""
    cases = [f"{name}({s},{m},{freq},{basis})" for name, (s, m), freq, basis
             in itertools.product(COUPONS, DATES, (1, 2, 4), range(5))]
    cases += ["FVSCHEDULE(1000,{0.05,0.04,0.06})", "FVSCHEDULE(1,{0.09;0.11;0.1})", "FVSCHEDULE(100,{-0.5,0.2})"]
    unlike = _unlike_libreoffice(tmp_path, cases)
    assert unlike and all(f.startswith("COUPDAYSNC(") and f.endswith((",0)", ",4)")) for f, _ours, _theirs in unlike), unlike


@libreoffice.needed
def test_money_market_functions_on_actual_days_as_libreoffice_computes_them(tmp_path):
    cases = [f.format(s=s, m=m, b=b) for f, (s, m), b in itertools.product(MONEY_MARKET, DATES + SHORT, (2, 3))]
    assert _unlike_libreoffice(tmp_path, cases) == []


def test_money_market_functions_on_other_bases_stay_listed(tmp_path):
    """Basis 0, 1 or 4, omitted (0), or read from a cell: not computed, listed, as before."""
    from rates_xl.calc.workbook import WorkbookCalculation

    formulas = ["DISC(DATE(2024,1,31),DATE(2024,3,31),97.5,100,0)", "INTRATE(DATE(2024,1,31),DATE(2024,3,31),975,1000)",
                "PRICEDISC(DATE(2024,1,31),DATE(2024,3,31),0.03,100,B1)", "YIELDDISC(DATE(2024,1,31),DATE(2024,3,31),97.5,100,4)",
                "RECEIVED(DATE(2024,1,31),DATE(2024,3,31),975,0.03,1)", "1+DISC(DATE(2024,1,31),DATE(2024,3,31),97.5,100,2)"]
    _book(tmp_path / "gated.xlsx", formulas)
    result = WorkbookCalculation(tmp_path / "gated.xlsx", full=True).compute()
    assert sorted(s.cell for s in result.skipped) == ["A1", "A2", "A3", "A4", "A5"]
    # actual/360 given: computed, (100 - 97.5) / 100 * 360 / 60 days = 0.15
    assert result.values[("S", "A6")] == pytest.approx(1.15, rel=1e-12)


def test_accrued_interest_on_actual_actual_is_listed(tmp_path):
    """ACCRINT and ACCRINTM on basis 1 over more than a year: formualizer, formulas and LibreOffice
    give three answers; the call is listed, not computed. Other bases stay formualizer's."""
    from rates_xl.calc.workbook import WorkbookCalculation

    formulas = ["ACCRINTM(DATE(2020,9,1),DATE(2025,1,8),0.05,1000,1)",
                "ACCRINT(DATE(2020,9,1),DATE(2021,5,27),DATE(2025,1,8),0.05,1000,1,1)",
                "ACCRINT(DATE(2008,3,1),DATE(2008,8,31),DATE(2008,5,1),0.1,1000,2,0)"]  # Microsoft's example
    _book(tmp_path / "accrued.xlsx", formulas)
    result = WorkbookCalculation(tmp_path / "accrued.xlsx", full=True).compute()
    assert sorted(s.cell for s in result.skipped) == ["A1", "A2"]
    assert all("actual/actual" in s.reason for s in result.skipped)
    assert result.values[("S", "A3")] == pytest.approx(16.666667, abs=5e-7)


def test_the_other_bond_functions_stay_listed(tmp_path):
    """(DURATION is computed now: tests/calc/test_securities.py.)"""
    from rates_xl.calc.workbook import WorkbookCalculation

    formulas = ["DISC(DATE(2018,1,25),DATE(2018,6,15),97.975,100,1)"]
    _book(tmp_path / "listed.xlsx", formulas)
    result = WorkbookCalculation(tmp_path / "listed.xlsx", full=True).compute()
    assert sorted(s.cell for s in result.skipped) == ["A1"]
    assert all("does not know" in s.reason for s in result.skipped)
