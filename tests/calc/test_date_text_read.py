"""Date text as Excel reads it in every function `formulas` computes it with, and DATEVALUE
(calc/xlfuncs/dates/text_dates.py). Found by bench/libreoffice_opinion.py's family `date_texts`;
settled by Microsoft's DATEVALUE page (dates from 1 January 1900 to 31 December 9999, #VALUE!
outside) and pycel's Excel-made text.xlsx ("0:75"-style minutes carried: value_text.py).
Before, each was a number, silently: VALUE("1/1/1899") 693598, DATEVALUE("1/1/1899") -364,
VALUE("29-Feb-2023") 44986 (1 March), VALUE("1.5.2024") 45296 (5 January), EDATE("0:75",1) a date
this year, and "1/2/2024" 2 January (month first) where "13/1/2024" was 13 January (day first,
as formulas_test.xlsx's Excel read "29/02/1900", kept)."""

from __future__ import annotations

import openpyxl
import pytest

from rates_xl.calc.workbook import WorkbookCalculation

ENGINES = ["fast", "formulas"]

#: Formula -> Excel's answer, whatever the locale.
SETTLED = {
    'VALUE("1/1/1899")': "#VALUE!", 'EDATE("1/1/1899",1)': "#VALUE!", 'VALUE("1899-12-31")': "#VALUE!",
    'DATEVALUE("1/1/1899")': "#VALUE!", 'DATEVALUE("1899-12-31")': "#VALUE!",
    'VALUE("29-Feb-2023")': "#VALUE!", 'EDATE("31 Apr 2024",0)': "#VALUE!", 'DATEVALUE("29-Feb-2023")': "#VALUE!",
    'VALUE("29-Feb-1900")': 60, 'DATEVALUE("1900-02-29")': 60, 'DATEVALUE("29-Feb-2024")': 45351,
    'EDATE("0:75",1)': 31, 'EDATE("12:30 PM",0)': 0, 'DATEVALUE("1-Mar-2024")': 45352,
    'DATEVALUE("March 1, 2024")': 45352, 'DATEVALUE("2024-01-13 14:00")': 45304, 'VALUE("3/3/2024")': 45354,
    'VALUE("29/02/1900")': 60, 'EDATE("13/1/2024",1)': 45335,  # one order alone reads a date: the corpus' Excel's
    "DATEVALUE(45000)": "#VALUE!", "DATEVALUE(TRUE)": "#VALUE!",
}
#: Formula whose answer is the locale's: not computed, listed, Excel's cached value kept.
LOCALE = ['VALUE("1.5.2024")', 'VALUE("1/2/2024")', 'EDATE("12/1/2024",1)', 'DATEVALUE("1/2/2024")',
          'VALUE("1/2/2024 10:00")', 'VALUE("3-1")', 'VALUE("12,34")', 'EDATE("12,34",0)']


@pytest.mark.parametrize("engine", ENGINES)
def test_date_text_is_read_as_excel_reads_it(tmp_path, engine):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row, formula in enumerate(SETTLED, start=1):
        sheet[f"A{row}"] = "=" + formula
    book.save(tmp_path / "dates.xlsx")
    values = WorkbookCalculation(tmp_path / "dates.xlsx", full=True, engine_name=engine).compute().values
    assert {formula: values[("S", f"A{row}")] for row, formula in enumerate(SETTLED, start=1)} == SETTLED


@pytest.mark.parametrize("engine", ENGINES)
def test_date_text_read_by_the_locale_is_listed_with_excels_value(tmp_path, engine):
    from tests.calc.test_recalc import excel_saved

    formulas = {f"A{row}": "=" + formula for row, formula in enumerate(LOCALE, start=1)}
    cached = {cell: 45000 + row for row, cell in enumerate(formulas)}  # what the Excel that saved it read
    path = excel_saved(tmp_path / "dates.xlsx", formulas, cached)
    result = WorkbookCalculation(path, full=True, engine_name=engine).compute()
    reasons = {s.cell: s.reason for s in result.stale}
    assert all("the engine gives #NAME?" in reasons[cell] for cell in formulas), reasons
    assert {cell: result.values[("S", cell)] for cell in formulas} == cached
