"""The coupon functions formualizer does not know (calc/xlfuncs/financial/coupons.py) and FVSCHEDULE: Microsoft's
published examples, and LibreOffice over every basis and frequency on dates chosen for month
ends and 29 February. DISC, INTRATE, RECEIVED, PRICEDISC and YIELDDISC are computed here on
every basis (calc/xlfuncs/financial/moneymarket.py, tests/calc/test_moneymarket.py), and so are
ACCRINT and ACCRINTM (accrued.py, tests/calc/test_accrued.py): Excel's values however the basis
is given, and LibreOffice's on the money-market bases actual/360 and actual/365, where both
count the days as they fall (DURATION, MDURATION, PRICEMAT and YIELDMAT: tests/calc/test_securities.py)."""

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
    "DISC(DATE(2018,1,25),DATE(2018,6,15),97.975,100,1)": 0.052420213,
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


def test_money_market_functions_on_every_basis_as_excel(tmp_path):
    """Basis 0, 1 or 4, omitted (0), or read from a cell, listed before: computed, Excel 2010's
    values, from the Excel-generated test data of fsprojects/ExcelFinancialFunctions
    (tests/ExcelFinancialFunctions.Tests/testdata/disc.test, intrate.test, pricedisc.test,
    yielddisc.test and received.test)."""
    from rates_xl.calc.workbook import WorkbookCalculation

    cases = {"DISC(DATE(1993,2,28),DATE(1995,11,30),100,67)": -0.1791044776119,
             "INTRATE(DATE(2004,3,31),DATE(2008,2,29),100,130,0)": 0.07665010645848,
             "PRICEDISC(DATE(1993,2,28),DATE(1994,1,31),0.25,67,B1)": 51.53493150685,
             "YIELDDISC(DATE(1993,12,31),DATE(2008,2,29),23,130,4)": 0.3284531493814,
             "RECEIVED(DATE(1993,2,28),DATE(1995,11,30),23,0.25,1)": 73.8021978022,
             "1+DISC(DATE(1993,2,28),DATE(2008,2,29),23,67,2)": 1.04314982851757}
    _book(tmp_path / "every_basis.xlsx", list(cases))
    import openpyxl

    book = openpyxl.load_workbook(tmp_path / "every_basis.xlsx")
    book["S"]["B1"] = 1
    book.save(tmp_path / "every_basis.xlsx")
    result = WorkbookCalculation(tmp_path / "every_basis.xlsx", full=True).compute()
    assert not result.skipped
    for r, (formula, excel) in enumerate(cases.items(), start=1):
        assert result.values[("S", f"A{r}")] == pytest.approx(excel, rel=5e-10), formula


def test_accrued_interest_on_actual_actual_as_excel(tmp_path):
    """ACCRINT and ACCRINTM on basis 1 over more than a year, listed before (formualizer,
    formulas and LibreOffice gave three answers): Excel 2010's values, from the Excel-generated
    test data of fsprojects/ExcelFinancialFunctions (tests/ExcelFinancialFunctions.Tests/testdata/
    accrintm.test and accrint.test), and Microsoft's example on 30/360."""
    from rates_xl.calc.workbook import WorkbookCalculation

    cases = {"ACCRINTM(DATE(1990,3,4),DATE(1995,2,28),0.07,12030.34,1)": 4201.778814058,
             "ACCRINT(DATE(1993,2,28),DATE(2010,7,5),DATE(2000,7,2),0.1,10000,1,1)": 7334.246575342,
             "ACCRINT(DATE(2008,3,1),DATE(2008,8,31),DATE(2008,5,1),0.1,1000,2,0)": 16.666666667}
    _book(tmp_path / "accrued.xlsx", list(cases))
    result = WorkbookCalculation(tmp_path / "accrued.xlsx", full=True).compute()
    assert not result.skipped
    for r, (formula, excel) in enumerate(cases.items(), start=1):
        assert result.values[("S", f"A{r}")] == pytest.approx(excel, rel=5e-10), formula
