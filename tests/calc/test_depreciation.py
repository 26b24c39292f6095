"""DB, DDB and VDB (calc/xlfuncs/financial/depreciation.py) as Excel computes them: Excel 2010's
values, from the Excel-generated test data of fsprojects/ExcelFinancialFunctions
(tests/ExcelFinancialFunctions.Tests/testdata/db.test, ddb.test and vdb.test), Microsoft's
examples, and LibreOffice where neither says (DB in the year after the life)."""

from __future__ import annotations

import pytest

from tests.support import libreoffice

NUM = {"type": "Error", "kind": "Num"}

EXCEL_2010 = [
    # a period between 0 and 1 is the first (formualizer answered #NUM!)
    ("DB", (100, 10, 1, 0.3, 1), 7.5),
    ("DB", (100, 10, 12.7, 0.3, 1), 1.383333333333),
    ("DB", (200, 0, 40, 0.3, 9), 150.0),
    ("DDB", (100, 10, 1, 0.3, 1), 90.0),
    ("DDB", (100, 10, 1, 0.3, 4.5), 90.0),
    ("DDB", (100, 10, 40, 0.3, 3), 7.5),
    ("DDB", (100, 50, 12.7, 0.3, 1), 7.874015748032),
    ("DDB", (100, 0, 1, 0.3, 50.3), 100.0),
    ("DDB", (200, 10, 12.7, 0.3, 3), 47.24409448819),
    # DB truncates the period; a life of whole years or not, the month of the first year
    ("DB", (100, 10, 13, 1.7, 4), 5.4),
    ("DB", (100, 10, 12.7, 1.7, 9), 12.45),
    ("DB", (100, 10, 40, 2, 1), 5.573866666667),
    ("DB", (100, 50, 12.7, 2, 9), 5.089325),
    ("DB", (100, 50, 40, 10, 1), 1.479998847848),
    # VDB: a fractional end, a life of whole years or not, with and without the switch
    ("VDB", (100, 10, 1, 0, 0.8, 4.5, True), 72.0),
    ("VDB", (100, 50, 12.7, 1, 4.2, 4.5, False), 14.56692913386),
    ("VDB", (100, 0, 12.7, 1, 4.2, 3, False), 43.95491495692),
    ("VDB", (200, 10, 12.7, 1, 4.2, 1, False), 47.65865805236),
    ("VDB", (200, 10, 40, 13, 20, 4.5, True), 24.00344627685),
    ("VDB", (200, 50, 12.7, 2, 3, 4.5, False), 29.54330318109),
    ("VDB", (100, 10, 13, 0, 3, 1, True), 21.34729176149),
    ("VDB", (100, 10, 13, 0, 3, 1, False), 21.62990855299),
    ("VDB", (100, 0, 13, 1, 13, 3, False), 76.92307692308),
    ("VDB", (200, 10, 13, 0, 4.2, 1, True), 57.02892324929),
    ("VDB", (200, 10, 13, 0, 4.2, 1, False), 61.94871794872),
    ("VDB", (200, 0, 40, 1, 3, 1, False), 10.0),
    ("VDB", (100, 0, 40, 13, 20, 50.3, True), 0.0),
]


#: Excel 16's answers cached in IronCalc's Excel-made DB_DDB.xlsx (ironcalc/IronCalc,
#: xlsx/tests/calc_tests/FINANCIAL/DB_DDB.xlsx, MIT or Apache-2.0): DB truncates the month, DDB
#: reads a fractional period in the power and refuses one past the life, DB a negative cost.
EXCEL_16 = [
    ("DB", (100, 10, 4, 3, 9.2222), 16.5293754),
    ("DB", (100, 10, 4, 3, 10.77723), 15.630906),
    ("DB", (100, 8.78, 4, 3, 1.4), 23.8637568),
    ("DB", (45, 10, 4, 2, 12.7), 9.676395),
    ("DB", (12, 10, 4, 4.5, 2), 0.48879979875),
    ("DDB", (100, 10.233, 4.2312, 3.2, 1.5), 13.5327355307751),
    ("DDB", (100, 10, 4, 3, 1.3334), 14.814814787037497),
    ("DDB", (100, 10, 4, 3, 40.777), 0.0),
    ("DB", (-120, 10, 4, 1, 2), NUM),
    ("DB", (-3, 10, 4, 2, 2), NUM),
    ("DDB", (12, 10, 4, 4.5, 2), NUM),
]


def _call(name, *args):
    from rates_xl.calc.xlfuncs import callbacks

    return callbacks()[name](*(a if isinstance(a, bool) else float(a) for a in args))


@pytest.mark.parametrize(("name", "args", "excel"), EXCEL_2010, ids=[f"{n}{a}" for n, a, _ in EXCEL_2010])
def test_as_excel_2010_computes_them(name, args, excel):
    assert _call(name, *args) == pytest.approx(excel, rel=5e-10, abs=1e-9)


@pytest.mark.parametrize(("name", "args", "excel"), EXCEL_16, ids=[f"{n}{a}" for n, a, _ in EXCEL_16])
def test_as_excel_16_computes_them(name, args, excel):
    got = _call(name, *args)
    assert got == excel if isinstance(excel, dict) else got == pytest.approx(excel, rel=5e-12, abs=1e-12)


def test_vdb_microsofts_examples():
    """support.microsoft.com, "VDB function": cost 2,400, salvage 300, a life of 10 years."""
    assert _call("VDB", 2400, 300, 3650, 0, 1) == pytest.approx(1.315068493, abs=1e-9)  # first day
    assert _call("VDB", 2400, 300, 120, 0, 1) == pytest.approx(40.0)  # first month
    assert _call("VDB", 2400, 300, 10, 0, 1) == pytest.approx(480.0)  # first year
    assert round(_call("VDB", 2400, 300, 120, 6, 18), 2) == 396.31  # months 6 to 18
    assert round(_call("VDB", 2400, 300, 120, 6, 18, 1.5), 2) == 311.81  # factor 1.5
    assert _call("VDB", 2400, 300, 10, 0, 0.875, 1.5) == pytest.approx(315.0)  # first year's 7/8


def test_vdb_from_a_fractional_start_with_the_switch_counts_its_periods_from_there():
    """Excel: VDB(100,10,13,0,1,1,FALSE) is 0.1479 more than VDB(100,10,13,0,0.5,1,FALSE) +
    VDB(100,10,13,0.5,1,1,FALSE), and equal to the two without the switch (the F# port's
    docs/compatibility.fsx, where its own VDB differs: its test data holds no fractional start)."""
    def split(switch):
        return _call("VDB", 100, 10, 13, 0, 1, 1, not switch) - _call("VDB", 100, 10, 13, 0, 0.5, 1, not switch) \
            - _call("VDB", 100, 10, 13, 0.5, 1, 1, not switch)
    assert round(split(True), 4) == 0.1479
    assert split(False) == pytest.approx(0.0, abs=1e-12)


#: xlcalculator's tests/resources/VDB.xlsx (github.com/bradbase/xlcalculator, made by Excel):
#: VDB(1, 0, 14, start, end, 1.25, FALSE) over half periods, D23:D37 and F23:F28.
HALF_PERIODS = [((0, 0.5), 0.044642857142857144), ((0.5, 1.5), 0.08529974489795919),
                ((1.5, 2.5), 0.07768369624635568), ((2.5, 3.5), 0.07074765193864536),
                ((3.5, 4.5), 0.06872629045468406), ((11.5, 12.5), 0.06872629045468406),
                ((12.5, 13.5), 0.06872629045468406), ((13.5, 14), 0.03436314522734203),
                ((13, 14), 0.06866789938377948), ((11, 12), 0.06866789938377948)]


@pytest.mark.parametrize(("period", "excel"), HALF_PERIODS, ids=[str(p) for p, _ in HALF_PERIODS])
def test_vdb_over_half_periods_switches_to_the_straight_line_where_excel_does(period, excel):
    """From a start half-way through a period, Excel counts the periods from that fraction and
    asks at each whether the straight line is larger: from 3.5 on, the straight line of what
    DDB leaves at 3.5 (0.0687263), where each whole period's counted from 0 switches from the
    4th (0.0686679: the engine's answer from 3.5 on, listed stale against the book, 13 cells);
    from a whole start, the whole periods' schedule (13 to 14, 11 to 12)."""
    assert _call("VDB", 1, 0, 14, *period, 1.25, False) == pytest.approx(excel, rel=1e-12)


def test_the_cases_excel_answers_with_an_error():
    """Microsoft's: a negative cost or salvage, a life, factor or period <= 0, a month outside 1 to
    12, a start after the end or an end after the life; DB's period past the year after the
    life; with the switch, VDB from the life to the life (Excel 2010 answers it only without)."""
    for name, args in [("DB", (100, 10, 5, 0, 12)), ("DB", (100, 10, 5, 1, 0)), ("DB", (100, 10, 5, 1, 13)),
                       ("DB", (100, 10, 5, 7, 6)), ("DB", (100, 10, 0, 1, 12)),
                       ("DDB", (-100, 10, 5, 1, 2)), ("DDB", (100, -10, 5, 1, 2)), ("DDB", (100, 10, 5, 0, 2)),
                       ("DDB", (100, 10, 5, 6, 2)), ("DDB", (100, 10, 5, 1, 0)),
                       ("VDB", (100, 10, 5, 2, 1, 2, False)), ("VDB", (100, 10, 5, 0, 6, 2, False)),
                       ("VDB", (100, 10, 5, -1, 1, 2, False)), ("VDB", (100, 10, 5, 0, 0, 2, False)),
                       ("VDB", (100, 10, 5, 0, 1, 0, False)), ("VDB", (-100, 10, 5, 0, 1, 2, False)),
                       ("VDB", (100, 10, 13, 13, 13, 1, False))]:
        assert _call(name, *args) == NUM, (name, args)
    assert _call("VDB", 100, 10, 13, 13, 13, 1, True) == 0.0


@libreoffice.needed
def test_db_in_the_year_after_the_life_as_microsoft_and_libreoffice_compute_it(tmp_path):
    """Microsoft's formula for the period after the life, ((cost - depreciation so far) * rate *
    (12 - month)) / 12, as LibreOffice computes it (formualizer answered what was left above the
    salvage). Excel 2010's data holds no such case."""
    import openpyxl

    cases = ["DB(1000,100,5,6,7)", "DB(1000,100,5,6,1)", "DB(1000,100,12.7,13,7)", "DB(1000,100,1,2,1)",
             "DB(100,0,1,2,7)", "DB(1000,100,5,6)"]
    book = openpyxl.Workbook()
    for r, formula in enumerate(cases, start=1):
        book.active.cell(row=r, column=1).value = "=" + formula
    book.save(tmp_path / "db.xlsx")
    result, theirs = libreoffice.ours_and_theirs(tmp_path / "db.xlsx", tmp_path)
    sheet = book.active.title
    for r, formula in enumerate(cases, start=1):
        assert result.values[(sheet, f"A{r}")] == pytest.approx(float(theirs[r - 1][0]), rel=1e-12, abs=1e-12), formula
