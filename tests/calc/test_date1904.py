"""A book that counts dates from 1904 (Excel's date1904 setting, Excel for Mac's former default:
serial 0 is 1 January 1904), computed on its own system (calc/xlfuncs/dates/system1904.py).
Before, YEAR of 15 January 2020 there was 2016, DATE(2020,1,15) 1,462 days late and TEXT of it
"2016-01-14", silently. The 1904 answers are the system's definition, checked against the same
formulas in a 1900 book (each date 1,462 more); TEXT's against Excel's own in apache/poi's
Excel-made DateFormatTests.xlsx and DateFormatNumberTests.xlsx (1904 books: sheet Tests, the
format in B, the value in C, Excel's TEXT in A)."""

from __future__ import annotations

import datetime

import pytest

SHIFT = 1462  # the 1900 system's serial of 1 January 1904

#: (formula, its answer in a 1904 book with 15 January 2020 in A1, whether the answer is a date)
CASES = [
    ("YEAR(A1)", 2020, False), ("MONTH(A1)", 1, False), ("DAY(A1)", 15, False), ("WEEKDAY(A1)", 4, False),
    ("ISOWEEKNUM(A1)", 3, False), ("WEEKNUM(A1)", 3, False), ("DATE(2020,1,15)", 42383, True),
    ("EOMONTH(A1,0)", 42399, True), ("EDATE(A1,1)", 42414, True), ("WORKDAY(A1,5)", 42390, True),
    ("COUPPCD(A1,A1+700,2)", 42352, True), ("NETWORKDAYS(A1,A1+30)", 23, False),
    ('TEXT(A1,"yyyy-mm-dd dddd")', "2020-01-15 Wednesday", False),
    ('YEAR("2020-01-15")', 2020, False), ('DAY("2020-01-15")', 15, False), ('WORKDAY("2020-01-15",5)', 42390, True),
    ('DAYS("2020-01-25",A1)', 10, False), ('DATEVALUE("2020-01-15")', 42383, True),
    ('VALUE("2020-01-15")', 42383, True), ('TEXT("2020-01-15","yyyy-mm-dd")', "2020-01-15", False),
    ("DATE(2020,1,15)=A1", True, False), ('A1="2020-01-15"+0', True, False), ("TODAY()-INT(NOW())", 0, False),
]


def _computed(tmp_path, epoch, formulas, values=None):
    import openpyxl
    from openpyxl.utils.datetime import CALENDAR_MAC_1904, CALENDAR_WINDOWS_1900

    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    book.epoch = CALENDAR_MAC_1904 if epoch == 1904 else CALENDAR_WINDOWS_1900
    sheet = book.active
    sheet.title = "S"
    sheet["A1"] = datetime.datetime(2020, 1, 15)
    for row, formula in enumerate(formulas, start=2):
        sheet.cell(row=row, column=1).value = "=" + formula
        for col, value in enumerate((values or {}).get(row - 2, ()), start=2):
            sheet.cell(row=row, column=col).value = value
    path = tmp_path / f"book{epoch}.xlsx"
    book.save(path)
    result = WorkbookCalculation(path, full=True).compute()
    return [result.values.get(("S", f"A{row}")) for row in range(2, len(formulas) + 2)]


def test_a_1904_book_computes_on_its_own_system(tmp_path):
    formulas = [formula for formula, _, _ in CASES]
    in_1904 = _computed(tmp_path, 1904, formulas)
    in_1900 = _computed(tmp_path, 1900, formulas)
    assert in_1904 == [answer for _, answer, _ in CASES]
    assert in_1900 == [answer + SHIFT if date else answer for _, answer, date in CASES]


def test_today_and_dates_before_1904(tmp_path):
    from rates_xl.functions.values import EPOCH_1904, to_serial

    today, early, criteria, number = _computed(
        tmp_path, 1904, ["TODAY()", "DATE(1903,12,31)", 'COUNTIF(A1,">1/1/2019")', 'COUNTIF(A1,">"&DATE(2019,1,1))'])
    assert today == to_serial(datetime.date.today(), EPOCH_1904)
    assert early == "#NUM!"  # before the system's first day
    assert criteria == "#NAME?"  # a date read out of a criterion's text: not computed, listed
    assert number == 1


#: (apache/poi book, row, format, value, Excel's TEXT)
EXCEL_TEXT = [
    ("DateFormatTests", 2, "d-m-y", datetime.datetime(1952, 10, 11, 14, 35, 27), "11-10-52"),
    ("DateFormatTests", 5, "dddd-mmmm-yyyy", datetime.datetime(1952, 10, 11, 14, 35, 27), "Saturday-October-1952"),
    ("DateFormatTests", 20, "dddd-mmmm-yyyy H:M:S am/pm", datetime.datetime(1952, 10, 11, 14, 35, 27),
     "Saturday-October-1952 2:35:27 PM"),
    ("DateFormatTests", 33, "d-m-y h:m:s", datetime.datetime(2003, 2, 1, 4, 5, 6, 9000), "1-2-03 4:5:6"),
    ("DateFormatNumberTests", 2, "yyyy-mm-dd hh:mm:ss.000", 1, "1904-01-02 00:00:00.000"),
    ("DateFormatNumberTests", 7, "yyyy-mm-dd hh:mm:ss", 1.0032134017094, "1904-01-02 00:04:38"),
]


@pytest.mark.parametrize(("book", "row", "code", "value", "expected"), EXCEL_TEXT,
                         ids=[f"{c[0]}!A{c[1]}" for c in EXCEL_TEXT])
def test_excels_text_of_a_1904_date(tmp_path, book, row, code, value, expected):
    assert _computed(tmp_path, 1904, ["TEXT(C2,B2)"], {0: (code, value)}) == [expected]


def test_the_formulas_engine_refuses_a_1904_book_in_one_line(tmp_path):
    import openpyxl
    from openpyxl.utils.datetime import CALENDAR_MAC_1904

    from rates_xl.calc.book import CalcError
    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    book.epoch = CALENDAR_MAC_1904
    book.active["A1"] = "=YEAR(0)"
    book.save(tmp_path / "mac.xlsx")
    with pytest.raises(CalcError, match="counts them from 1904"):
        WorkbookCalculation(tmp_path / "mac.xlsx", full=True, engine_name="formulas").compute()


@pytest.fixture
def fresh_client(sandbox, rates_client):
    from rates_xl.client import RatesClient
    from rates_xl.sandbox import PAID_KEY

    with RatesClient(sandbox.base_url, api_key=PAID_KEY, rate_limit=1000, burst=1000) as client:
        yield client


def _mac_book(path, formulas, arrays=()):
    """A 1904 book (XlsxWriter) with 15 June 2027 in Data!C1, a date cell, and these formulas."""
    import xlsxwriter

    book = xlsxwriter.Workbook(path, {"date_1904": True})
    sheet = book.add_worksheet("Data")
    sheet.write_datetime("C1", datetime.datetime(2027, 6, 15), book.add_format({"num_format": "yyyy-mm-dd"}))
    for cell, formula in formulas.items():
        sheet.write_formula(cell, formula)
    for area, formula in arrays:
        sheet.write_dynamic_array_formula(area, formula)
    book.close()
    return path


def test_rates_functions_read_and_write_the_books_dates(tmp_path, fresh_client):
    """A discount factor asked of a date in a 1904 book is the date's, whether the cell holds
    the date or a formula's serial, and a curve's dates are written as the book's serials (a
    1900 serial read there is 4 years and a day later: the service was asked for another date)."""
    from rates_xl.calc.workbook import WorkbookCalculation
    from rates_xl.functions.values import EPOCH_1904, to_serial

    pinned = "2026-11-20T16:00:00Z"
    path = _mac_book(tmp_path / "mac_rates.xlsx", {
        "D1": f'=RATES_DISCOUNT("SOFR",C1,"{pinned}")', "D2": f'=RATES_DISCOUNT("SOFR",C1+0,"{pinned}")',
        "D3": f'=RATES_DISCOUNT("SOFR",A3,"{pinned}")'},
        [("A1:B5", f'=RATES_DISCOUNTCURVE("SOFR","2D","3Y","1Y",,"{pinned}")')])
    result = WorkbookCalculation(path).compute(fresh_client)
    assert result.errors == []
    asked = fresh_client.discount_factor("SOFR", datetime.date(2027, 6, 15), valuation_time=pinned)
    assert result.value("Data", "D1") == result.value("Data", "D2") == pytest.approx(asked.discount_factor)
    curve_date = result.value("Data", "A3")
    day = (EPOCH_1904 + datetime.timedelta(days=int(curve_date))).date()
    assert 2026 <= day.year <= 2029  # a 1900 serial read on 1904 would land in 2031-2033
    assert curve_date == to_serial(day, EPOCH_1904)
    direct = fresh_client.discount_factor("SOFR", day, valuation_time=pinned)
    assert result.value("Data", "D3") == pytest.approx(direct.discount_factor)


def test_rates_source_follows_the_request_a_1904_cell_made(tmp_path, fresh_client):
    """RATES_SOURCE of a cell that gives its date as a serial (C1+0): the request explained is
    the one the cell made on the book's system, not one 4 years and a day earlier."""
    from rates_xl.calc.workbook import WorkbookCalculation

    pinned = "2026-11-20T16:00:00Z"
    path = _mac_book(tmp_path / "mac_source.xlsx", {"D1": f'=RATES_DISCOUNT("SOFR",C1+0,"{pinned}")'},
                     [("F1:G4", "=RATES_SOURCE(D1)")])
    result = WorkbookCalculation(path).compute(fresh_client)
    assert result.value("Data", "F1") == "Request", result.value("Data", "F1")
    assert result.value("Data", "G1") == f"discount_factor?date=2027-06-15&index=SOFR&valuation_time={pinned}"


def test_a_diff_reads_a_1904_cells_request_on_its_system(tmp_path):
    """Which request a RATES_* cell of a 1904 book made (calc/attribution.py, read by `rates-xl
    diff` and the pack's provenance): a date given as a serial is that book's, as the cell read it."""
    import xlsxwriter

    from rates_xl.calc.attribution import cells_reading
    from rates_xl.calc.book import Book
    from rates_xl.functions.date_system import SHIFT

    pinned = "2026-11-20T16:00:00Z"
    path = tmp_path / "mac_diff.xlsx"
    book = xlsxwriter.Workbook(path, {"date_1904": True})
    sheet = book.add_worksheet("Data")
    sheet.write_number("C1", 46_997 - SHIFT)  # 1 September 2028, counted from 1904
    sheet.write_formula("D1", f'=RATES_DISCOUNT("SOFR",C1+0,"{pinned}")')
    book.close()
    asked = f"discount_factor?date=2028-09-01&index=SOFR&valuation_time={pinned}"
    found = cells_reading(Book(path), {("Data", "C1"): 46_997 - SHIFT}, pinned, {asked})
    assert found == {("Data", "D1"): (asked,)}, found
