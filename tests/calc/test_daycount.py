"""YEARFRAC and DATEDIF as Excel counts days (calc/xlfuncs/dates/daycount.py), checked against
LibreOffice on dates chosen to cross year ends, month ends and 29 February; and the cases
whose Excel answer is published."""

from __future__ import annotations

import datetime
import random

import pytest

from rates_xl.calc.xlfuncs import callbacks
from rates_xl.calc.xlfuncs.dates.daycount import yearfrac
from tests.support import libreoffice

#: Not "YD": LibreOffice moves the start into the end's year, Excel the end into the start's
#: (formulas_test.xlsx DATE & TIME!R4), as the bridged `formulas` implementation does.
UNITS = ["Y", "M", "D", "MD", "YM"]


def _serial(date: datetime.date) -> int:
    return (date - datetime.date(1899, 12, 30)).days


def _pairs() -> list[tuple[datetime.date, datetime.date]]:
    """Month ends, 28/29 February and the days around them, 2019-2026, paired near and far."""
    chosen = random.Random(22)
    days = [datetime.date(y, m, d) for y in range(2019, 2027) for m in range(1, 13) for d in (1, 15, 28, 29, 30, 31)
            if d <= (datetime.date(y + (m == 12), m % 12 + 1, 1) - datetime.timedelta(days=1)).day]
    pairs = [(a, b) for a in days for b in days if a < b and (b - a).days < 400]
    return chosen.sample(pairs, 140) + chosen.sample([(a, b) for a in days for b in days if a < b], 40)


def test_published_answers():
    """Excel's own: 31 December 2023 to 31 January 2024 is 31/365 on basis 1 (less than a year
    apart, no 29 February between: dwheeler.com/yearfrac, Apache POI), and
    DATEDIF(31 Jan 2015, 1 Mar 2015, "MD") is -2 (Microsoft: "MD" may give a negative number)."""
    found = callbacks()
    assert found["YEARFRAC"](45291.0, 45322.0, 1.0) == pytest.approx(31 / 365, abs=0)
    assert found["YEARFRAC"](45322.0, 45291.0, 1.0) == found["YEARFRAC"](45291.0, 45322.0, 1.0)
    assert found["DATEDIF"](42035.0, 42064.0, "MD") == -2
    assert found["YEARFRAC"](1.0, 2.0, 5.0) == {"type": "Error", "kind": "Num"}
    assert yearfrac(45000, 45000, 1) == 0.0


def test_yd_moves_the_end_into_the_start_year_as_excel_does(tmp_path):
    from tests.calc.excel_cases import assert_cell_as_excel

    assert_cell_as_excel("DATEDIF YD across Excel's 29 February 1900", "formulas_test.xlsx", "DATE & TIME!R4", tmp_path)


@libreoffice.needed
def test_day_counts_as_libreoffice_counts_them(tmp_path):
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    pairs = _pairs()
    for r, (a, b) in enumerate(pairs, start=1):
        sheet.cell(row=r, column=1).value = _serial(a)
        sheet.cell(row=r, column=2).value = _serial(b)
        for basis in range(5):
            sheet.cell(row=r, column=3 + basis).value = f"=YEARFRAC(A{r},B{r},{basis})"
            sheet.cell(row=r, column=8 + basis).value = f"=YEARFRAC(B{r},A{r},{basis})"
        for i, unit in enumerate(UNITS):
            sheet.cell(row=r, column=13 + i).value = f'=DATEDIF(A{r},B{r},"{unit}")'
    book.save(tmp_path / "days.xlsx")
    result, theirs = libreoffice.ours_and_theirs(tmp_path / "days.xlsx", tmp_path)
    differ = []
    for r, (a, b) in enumerate(pairs, start=1):
        for c in range(3, 13 + len(UNITS)):
            ours = result.values[("S", openpyxl.utils.get_column_letter(c) + str(r))]
            lo = float(theirs[r - 1][c - 1])
            if ours != pytest.approx(lo, rel=1e-12, abs=1e-12):
                differ.append((a, b, sheet.cell(row=r, column=c).value, ours, lo))
    assert differ == []


def test_edate_and_eomonth_are_formulas_own_on_plain_dates():
    """The fast path (daycount.py) gives the bridged `formulas` answer for every plain date and
    month count, and leaves the rest to it. (Not 31 December 9999, the last date: formulas
    answers #VALUE! for it, the fast path the date.)"""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from rates_xl.calc.xlfuncs.bridge import bridged

    ours, theirs = callbacks(), {name: bridged(name) for name in ("EDATE", "EOMONTH")}

    @settings(max_examples=400, deadline=None)
    @given(st.floats(1, 2900000), st.floats(-2000, 2000), st.sampled_from(["EDATE", "EOMONTH"]))
    def same(start, months, name):
        assert ours[name](start, months) == theirs[name](start, months)

    same()
    assert ours["EDATE"](45322.0, 1.0) == 45351  # 31 January 2024 + a month: 29 February
    assert ours["EOMONTH"](10.0, 1.0) == 60  # Excel's 29 February 1900 (formulas')
    assert ours["EOMONTH"](2956800.0, 54.0) == 2958465  # 31 December 9999
