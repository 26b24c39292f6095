"""TEXT's date, time and General sections, and a number shown as zero (calc/xlfuncs/text/datetimes.py,
textformat.py, numbers.py `general`).

`EXCEL`: Excel's answers cached in IronCalc's Excel-made TEXT workbook (ironcalc/IronCalc,
xlsx/tests/calc_tests/TEXT/TEXT.xlsx, MIT or Apache-2.0; saved by Microsoft Excel for Mac 16):
its DATES sheet (formats m/d/y ... ddddd/mmmmm/yyyyy over dates whose day or month is 10, 20 or
30) and its NUMBERS sheet's General column and the numbers that round to zero. Every one of its
374 TEXT cells is reproduced. Before, the bridged `formulas` TEXT dropped a one-letter day's or
month's zeros at both ends (the 30th was "3"), wrote a minus before a number shown as 0 and
answered General with #VALUE!. `PUBLISHED`: Microsoft's "Number format codes" and TEXT pages."""

from __future__ import annotations

import openpyxl

EXCEL = {
    ("41304", "m/d/y"): "1/30/13",
    ("41550", "m/d/y"): "10/3/13",
    ("42165", "m/d/y"): "6/10/15",
    ("42288", "m/d/y"): "10/11/15",
    ("44124", "m/d/y"): "10/20/20",
    ("41304", "dd/mm--yy"): "30/01--13",
    ("42165", "dd/mm--yy"): "10/06--15",
    ("41550", "ddd--/--mmm--/++yyy"): "Thu--/--Oct--/++2013",
    ("42288", "ddd--/--mmm--/++yyy"): "Sun--/--Oct--/++2015",
    ("41304", "dddd/mmmm/yyyyy"): "Wednesday/January/2013",
    ("44124", "dddd/mmmm/yyyyy"): "Tuesday/October/2020",
    ("42165", "ddddd/mmmmm/yyyyy"): "Wednesday/J/2015",
    ("2958466", "m/d/y"): "#VALUE!",  # past 31 December 9999
    ("-1/3", "General"): "-0.333333333",
    ("12345.6789", "General"): "12345.6789",
    ("123456789012", "General"): "1.23457E+11",
    ("1.2E-16", "General"): "1.2E-16",
    ("25000000000", "General"): "25000000000",
    ("250000000000", "General"): "2.5E+11",
    ("-2.5E-09", "General"): "-2.5E-09",
    ("-1E-08", "General"): "-0.00000001",
    ("-1000000000", "General"): "-1000000000",
    ("-1/3", "0"): "0",
    ("-1/3", "00-00-00-00"): "00-00-00-00",
    ("-2.7E-18", "0.00%"): "0.00%",
    ("-2.5E-10", "[Red]#.#"): ".",
    ("-1E-08", '#,#.00 "Millions!"'): ".00 Millions!",
    ("-1/3", "0.00"): "-0.33",  # not zero: the sign stays
}
PUBLISHED = {
    ("TIME(13,29,0)", "h:mm AM/PM"): "1:29 PM",
    ("TIME(9,5,0)", "h:mm A/P"): "9:05 A",
    ("1+TIME(1,1,0)", "[h]:mm"): "25:01",  # elapsed hours
    ("TIME(12,0,8)+0.64/86400", "h:mm:ss.00"): "12:00:08.64",
    ("TIME(12,0,8)+0.64/86400", "h:mm:ss"): "12:00:09",  # rounded to the second shown
    ("DATE(2013,1,30)", "d mmm yyyy"): "30 Jan 2013",
    ("DATE(2013,10,10)", "mmmm d, yyyy"): "October 10, 2013",
    ("0", "h:m"): "0:0",
}


def _computed(tmp_path, cases, date1904=False):
    from openpyxl.utils.datetime import CALENDAR_MAC_1904

    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    if date1904:
        book.epoch = CALENDAR_MAC_1904
    sheet = book.active
    sheet.title = "S"
    for r, (value, code) in enumerate(cases, start=1):
        sheet.cell(row=r, column=1).value = f'=TEXT({value},"{code.replace(chr(34), chr(34) * 2)}")'
    book.save(tmp_path / "text.xlsx")
    result = WorkbookCalculation(tmp_path / "text.xlsx", full=True).compute()
    assert not result.skipped
    return {case: result.values[("S", f"A{r}")] for r, case in enumerate(cases, start=1)}


def test_excels_answers(tmp_path):
    assert _computed(tmp_path, list(EXCEL)) == EXCEL


def test_microsofts_examples(tmp_path):
    assert _computed(tmp_path, list(PUBLISHED)) == PUBLISHED


#: Excel's answers in apache/poi's Excel-made ElapsedFormatTests.xlsx (a 1904 book; sheet Tests:
#: the format in B, the value in C, Excel's TEXT in A; 3.14159 days and 2:03:04): a fraction
#: after elapsed seconds, a unit's plain code beside its elapsed one, m after s as minutes, @ in
#: quoted text, a negative duration (the 1904 system shows negative times). Before, #VALUE!,
#: "[yes, 3]", the number as it is.
ELAPSED = {
    ("3.14159", "[s].000"): "271433.376", ("0.08546296296296296", "[ss].000"): "7384.000", ("0", "[ss].000"): "00.000",
    ("3.14159", 's:m" @ hour "[hh]'): "53:23 @ hour 75",
    ("3.14159", '"It was "[h]" [yes, "h"] hours and "mm:ss'): "It was 75 [yes, 75] hours and 23:53",
    ("3.14159", '[s]" [yes, "ss"] seconds"'): "271433 [yes, 271433] seconds", ("0", '[s]" [yes, "ss"] seconds"'): "0 [yes, 00] seconds",
    ("-0.08546296296296296", "[h]:m:s.000"): "-2:3:4.000", ("-0.08546296296296296", "[hh]:mm:ss.0"): "-02:03:04.0",
    ("-0.08546296296296296", 's" secs and "[m]" mins"'): "-4 secs and 123 mins",
    ("-3.14159", '"It was "[h]" [yes, "h"] hours and "mm:ss'): "-It was 75 [yes, 75] hours and 23:53",
}


def test_excels_elapsed_times(tmp_path):
    assert _computed(tmp_path, list(ELAPSED), date1904=True) == ELAPSED


#: Excel's answers in pycel's Excel-made text.xlsx (a 1900 book; sheet TextDates, A the value, B
#: the format, C Excel's TEXT): a negative duration only under one elapsed code, elapsed time
#: past 31 December 9999 (a date code there is #VALUE!).
ELAPSED_1900 = {
    ("-1", "[h]"): "-24", ("-1", "[m]"): "-1440", ("-1", "[s]"): "-86400", ("-1", "[h]:m"): "#VALUE!",
    ("-1", "[s].000"): "#VALUE!", ("-1", "h"): "#VALUE!", ("71003160", "[hh]"): "1704075840",
    ("71003160/24+1", "[h]"): "71003184", ("71003160/24+1", "yy"): "#VALUE!",
}


def test_excels_elapsed_times_in_a_1900_book(tmp_path):
    assert _computed(tmp_path, list(ELAPSED_1900)) == ELAPSED_1900
