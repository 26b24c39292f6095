"""AMORLINC and AMORDEGRC (calc/xlfuncs/financial/french.py) as Excel computes them: Excel 2010's
values, from the Excel-generated test data of fsprojects/ExcelFinancialFunctions
(tests/ExcelFinancialFunctions.Tests/testdata/amorlinc.test and amordegrc.test), and
Microsoft's examples."""

from __future__ import annotations

from datetime import date

import pytest

NUM = {"type": "Error", "kind": "Num"}
LISTED = {"type": "Error", "kind": "Name"}  # moneymarket.NOT_COMPUTED: the check lists the cell


def _serial(day: date) -> float:
    return float((day - date(1899, 12, 30)).days)


# cost, purchased, first period's end, salvage, period, rate, basis -> Excel 2010's value
EXCEL_2010 = [
    # the first period prorated on each basis, a 29 February at its end
    ("AMORLINC", (100, date(1998, 2, 28), date(2000, 2, 29), 10, 0, 0.07, 4), 14.01944444444),
    ("AMORLINC", (100, date(1998, 2, 28), date(2000, 2, 29), 10, 0, 0.07, 3), 14.0),
    ("AMORLINC", (100, date(1998, 2, 28), date(2000, 2, 29), 10, 0, 0.07, 1), 14.0),
    ("AMORLINC", (100, date(1998, 2, 28), date(2000, 2, 29), 10, 0, 0.07, 0), 14.0),
    ("AMORLINC", (100, date(1997, 2, 28), date(2000, 2, 29), 10, 0, 0.1, 4), 30.02777777778),
    ("AMORLINC", (200, date(2000, 5, 14), date(2009, 6, 30), 0, 0, 0.07, 0), 127.7888888889),
    # later periods: rate x cost until the rest runs out; a fractional period
    ("AMORLINC", (200, date(1998, 2, 28), date(2002, 5, 14), 0, 11.3, 0.07, 3), 1.084931506849),
    ("AMORLINC", (100, date(1992, 11, 30), date(2002, 5, 14), 0, 0.3, 0.1, 0), 10.0),
    ("AMORLINC", (100, date(1997, 2, 28), date(1999, 2, 28), 10, 1.7, 0.07, 1), 7.0),
    ("AMORLINC", (200, date(1998, 2, 28), date(2000, 2, 29), 0, 13, 0.07, 3), 4.0),
    ("AMORLINC", (100, date(2001, 3, 31), date(2003, 3, 31), 50, 10, 0.07, 1), 0.0),
    ("AMORDEGRC", (100, date(1998, 2, 28), date(2000, 2, 29), 10, 0, 0.1, 4), 50.0),
    ("AMORDEGRC", (100, date(1998, 2, 28), date(2000, 2, 29), 10, 0, 0.15, 1), 75.0),
    ("AMORDEGRC", (200, date(1992, 11, 30), date(1999, 2, 28), 0, 0, 0.15, 0), 200.0),
    ("AMORDEGRC", (200, date(2000, 5, 14), date(2009, 6, 30), 10, 1, 0.15, 3), 4.0),
    ("AMORDEGRC", (200, date(2001, 3, 31), date(2003, 3, 31), 10, 1.7, 0.1, 0), 25.0),
    ("AMORDEGRC", (100, date(1992, 11, 30), date(2003, 3, 31), 50, 1, 0.3, 0), 23.0),
    ("AMORDEGRC", (100, date(2001, 3, 31), date(2003, 3, 31), 0, 11.3, 0.07, 4), 2.0),
    ("AMORDEGRC", (100, date(1997, 2, 28), date(1999, 2, 28), 10, 10, 0.07, 3), 2.0),
    ("AMORDEGRC", (100, date(1977, 5, 4), date(2000, 2, 29), 50, 1, 0.1, 1), 13.0),
    ("AMORDEGRC", (100, date(1998, 2, 28), date(1999, 2, 28), 0, 1.7, 0.1, 3), 19.0),
    ("AMORDEGRC", (100, date(2001, 3, 31), date(2003, 3, 31), 10, 2, 0.1, 0), 9.0),
    ("AMORDEGRC", (200, date(1992, 11, 30), date(1994, 11, 30), 50, 1, 0.3, 4), 23.0),
]


def _call(name, *args):
    from rates_xl.calc.xlfuncs import callbacks

    return callbacks()[name](*(_serial(a) if isinstance(a, date) else float(a) for a in args))


@pytest.mark.parametrize(("name", "args", "excel"), EXCEL_2010, ids=[f"{n}{a}" for n, a, _ in EXCEL_2010])
def test_as_excel_2010_computes_them(name, args, excel):
    assert _call(name, *args) == pytest.approx(excel, rel=5e-10, abs=1e-9)


def test_microsofts_examples():
    """support.microsoft.com, "AMORLINC function" and "AMORDEGRC function": cost 2,400 bought on
    19 August 2008, the first period ending on 31 December 2008, salvage 300, rate 15 %."""
    assert _call("AMORLINC", 2400, date(2008, 8, 19), date(2008, 12, 31), 300, 1, 0.15, 1) == 360.0
    assert _call("AMORDEGRC", 2400, date(2008, 8, 19), date(2008, 12, 31), 300, 1, 0.15, 1) == 776.0


def test_amordegrc_rounds_after_13_digits():
    from rates_xl.calc.xlfuncs.financial.french import _excel_round

    assert _excel_round(22.49999999999999) == 23.0  # Excel's 22.5 (the F# port's docs/compatibility.fsx)
    assert _excel_round(22.4999) == 22.0
    assert _excel_round(-2.5) == -3.0


def test_the_cases_excel_answers_with_an_error_and_the_ones_listed():
    bought, ends = date(2008, 8, 19), date(2008, 12, 31)
    for name in ("AMORLINC", "AMORDEGRC"):
        for args in ((-1, bought, ends, 0, 1, 0.15, 1), (2400, bought, ends, -1, 1, 0.15, 1),
                     (2400, bought, ends, 2400, 1, 0.15, 1), (2400, bought, ends, 300, -1, 0.15, 1),
                     (2400, bought, ends, 300, 1, -0.15, 1), (2400, ends, bought, 300, 1, 0.15, 1),
                     (2400, bought, ends, 300, 1, 0.15, 2), (2400, bought, ends, 300, 1, 0.15, 5)):
            assert _call(name, *args) == NUM, (name, args)
        assert _call(name, 2400, bought, ends, 300, 1, 0, 1) == LISTED
    for rate in (0.5, 0.4, 0.22):  # lives of 2, 2.5 and 4.5 years
        assert _call("AMORDEGRC", 2400, bought, ends, 300, 1, rate, 1) == NUM, rate
    for rate in (0.2, 0.25):  # lives of 5 and 4 years, where Microsoft's ranges meet
        assert _call("AMORDEGRC", 2400, bought, ends, 300, 1, rate, 1) == LISTED, rate
