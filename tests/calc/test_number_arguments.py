"""Text where a function wants a number: a date, a time or a date and time given as text to INT,
YEAR, SQRT, NORM.DIST ..., typed or read from a cell, as Excel reads it
(calc/formula/number_arguments.py, calc/xlfuncs/text/number_text.py).

Before, formualizer's own functions answered #VALUE! (`INT(A27)` with the text "2024-01-10" in
A27: Excel 16 has 45301 in IronCalc's Excel-made MROUND_TRUNC_INT.xlsx, INT!B27), and those
computed by `formulas` read a time alone on 1 January of this year (`GAMMALN("12:00")` was
448,117): silently. Excel reads the text as the number VALUE reads, so each case is checked
against the same function given that number, in the same book: a check that failed on each of
the 135 function-argument pairs tried before the fix."""

from __future__ import annotations

import pytest

from rates_xl.calc.formula import number_arguments
from rates_xl.calc.xlfuncs.text import number_text
from tests.calc.excel_cases import corpus_book, excel_value

#: Text and the number Excel reads in it (year-month-day dates, times, both, percentages).
TEXTS = {
    "2024-01-10": "DATE(2024,1,10)", "2024-01-10 06:00": "DATE(2024,1,10)+TIME(6,0,0)",
    "12:00": "TIME(12,0,0)", "9:05:07 pm": "TIME(21,5,7)", "2023-03-15": "DATE(2023,3,15)", "50%": "0.5",
}
#: Function calls, `{}` where the text goes, and the text.
CASES = [
    ("INT({})", "2024-01-10 06:00"), ("ABS({})", "2024-01-10"), ("SQRT({})", "12:00"), ("LN({})", "2024-01-10"),
    ("ROUND({},0)", "2024-01-10 06:00"), ("ROUND(45301.25,{})", "50%"), ("TRUNC({})", "2024-01-10 06:00"),
    ("MOD({},1)", "2024-01-10 06:00"), ("POWER({},2)", "12:00"), ("YEAR({})", "2024-01-10"),
    ("MONTH({})", "2023-03-15"), ("DAY({})", "2024-01-10"), ("DAYS({},45000)", "2024-01-10"),
    ("NETWORKDAYS({},45301)", "2023-03-15"), ("WORKDAY({},3)", "2023-03-15"), ("DAYS360({},45301)", "2023-03-15"),
    ("EDATE(45301,{})", "12:00"), ("PMT({},12,1000)", "50%"), ("FV(0.05,10,{})", "12:00"), ("EXP({})", "12:00"),
    ("NORM.S.DIST({},TRUE)", "12:00"), ("GAMMALN({})", "12:00"), ("EXPON.DIST({},1,TRUE)", "12:00"),
    ("ERF({})", "12:00"), ("ROUNDUP({},0)", "12:00"), ("FIXED({},1)", "2024-01-10"), ("DELTA({},45301)", "2024-01-10"),
    ("HOUR({})", "9:05:07 pm"), ("SIGN({})", "12:00"), ("ATAN2(1,{})", "12:00"), ("QUOTIENT({},7)", "2024-01-10"),
]


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """Each case three ways in one book: given the text typed, given a cell whose constant is
    the text, given a cell whose formula answers it; beside it, the function given the number."""
    import openpyxl

    from rates_xl.calc.workbook import WorkbookCalculation

    path = tmp_path_factory.mktemp("number_arguments") / "cases.xlsx"
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "S"
    for row, (call, text) in enumerate(CASES, start=1):
        sheet[f"F{row}"] = text  # a constant
        sheet[f"G{row}"] = f'="{text}"'  # a formula's answer
        sheet[f"A{row}"] = "=" + call.format(f'"{text}"')
        sheet[f"B{row}"] = "=" + call.format(f"F{row}")
        sheet[f"C{row}"] = "=" + call.format(f"G{row}")
        sheet[f"D{row}"] = "=" + call.format(TEXTS[text])
    workbook.save(path)
    result = WorkbookCalculation(path, full=True).compute()
    return result


@pytest.mark.parametrize(("call", "text"), CASES, ids=[c.format(t) for c, t in CASES])
def test_text_is_read_as_the_number_excel_reads(book, call, text):
    row = CASES.index((call, text)) + 1
    number = book.values[("S", f"D{row}")]
    assert isinstance(number, float | int | str) and number not in ("#VALUE!", "#NAME?")
    for column in "ABC":  # typed, a constant, a formula's answer
        assert book.values[("S", f"{column}{row}")] == pytest.approx(number, rel=1e-15) \
            if isinstance(number, float) else book.values[("S", f"{column}{row}")] == number, column
    assert not [s.cell for s in book.skipped]


def _computed(tmp_path, cells: dict[str, object], wanted: list[str]):
    import openpyxl

    from rates_xl.calc.workbook import WorkbookCalculation

    path = tmp_path / "book.xlsx"
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "S"
    for cell, value in cells.items():
        sheet[cell] = value
    workbook.save(path)
    result = WorkbookCalculation(path, full=True).compute()
    listed = {s.cell: s.reason for s in result.skipped}
    return {cell: listed.get(cell, result.values.get(("S", cell))) for cell in wanted}


def test_text_read_otherwise_by_locale_or_engine_is_not_computed(tmp_path):
    """Text whose reading is not settled here ("1,000", "1/2/2024", "25:00", "$5"), typed, a
    constant or a formula's answer, gives #NAME?, which the check against Excel's cached values
    lists (Excel's value kept). Spaces around a date: Excel's #VALUE! (MROUND_TRUNC_INT.xlsx
    INT!B28), where the engine's arithmetic reads the date. Text with no number in it: #VALUE!."""
    found = _computed(tmp_path, {
        "B1": "1,000", "B2": "1/2/2024", "B3": '="25:00"', "B4": '=" 2024-01-10 "', "B5": " 2024-01-10 ",
        "A1": "=INT(B1)", "A2": "=YEAR(B2)", "A3": "=SQRT(B3)", "A4": "=INT(B4)", "A5": "=INT(B5)",
        "A6": '=ROUND("$5",0)', "A7": '=INT(" 2024-01-10 ")', "A8": '=INT("E8")', "A9": "=INT(B9)", "B9": "Item 7",
    }, ["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9"])
    assert found == {"A1": "#NAME?", "A2": "#NAME?", "A3": "#NAME?", "A4": "#VALUE!", "A5": "#VALUE!",
                     "A6": "#NAME?", "A7": "#VALUE!", "A8": "#VALUE!", "A9": "#VALUE!"}


def test_a_not_settled_reading_is_listed_against_excels_value(tmp_path):
    """Where the file holds Excel's value, the check lists the cell and keeps that value."""
    from rates_xl.calc.workbook import WorkbookCalculation
    from tests.calc.test_recalc import excel_saved

    # Excel's value, as an English Excel saves it
    path = excel_saved(tmp_path / "cached.xlsx", {"B1": "1,000", "A1": "=INT(B1)"}, {"A1": 1000})
    result = WorkbookCalculation(path, full=True).compute()
    assert result.value("S", "A1") == 1000
    assert "the engine gives #NAME?" in next(s.reason for s in result.stale if s.cell == "A1")


def test_logicals_and_numbers_are_passed_as_they_were(tmp_path):
    """A logical constant where a number is wanted stays what the engine made of it (Excel's
    ERF(TRUE cell) is #VALUE!: formulas_test.xlsx ENGINEERING!Y21, below); a copy of one
    formula down a column reads a number, a text and a formula's text each as itself (the
    rewriting is shared between copies only where the cells answer alike)."""
    found = _computed(tmp_path, {
        "B1": 45301.5, "B2": "2024-01-10 12:00", "B3": '="2024-01-10 12:00"', "B4": True, "B5": None,
        **{f"A{row}": f"=ROUND(B{row},0)" for row in range(1, 6)},
        "C1": "=SUM(INT(B1),1)",
    }, ["A1", "A2", "A3", "A4", "A5", "C1"])
    assert found == {"A1": 45302, "A2": 45302, "A3": 45302, "A4": 1, "A5": 0, "C1": 45302}


def test_statistics_read_a_typed_text_as_a_number(tmp_path):
    """SUM, PRODUCT and SUMSQ read a text typed among their arguments (PRODUCT skipped it, SUM
    and SUMSQ answered #VALUE! for a date or a time), as AVERAGE and MAX already did; a cell's
    text they skip, as Excel does."""
    found = _computed(tmp_path, {
        "A1": '=SUM("12:00",1)', "A2": '=PRODUCT("2024-01-10",2)', "A3": '=SUMSQ("12:00",1)',
        "A4": "=SUM(B4,1)", "B4": "2024-01-10",
    }, ["A1", "A2", "A3", "A4"])
    assert found == {"A1": 1.5, "A2": 90602, "A3": 1.25, "A4": 1}


@pytest.mark.parametrize(("book_name", "sheet", "cell"), [
    ("formulas_test.xlsx", "STATISTICAL", "U73"),  # NORM.DIST(F73,-1,2,"TRUE"): "TRUE" is a logical there
    ("formulas_test.xlsx", "STATISTICAL", "T74"),  # NORM.S.DIST(E74,"1"): #VALUE!
    ("formulas_test.xlsx", "ENGINEERING", "Y21"),  # ERF(J21,G21), J21 the logical TRUE: #VALUE!
    ("formulas_test.xlsx", "STATISTICAL", "X47"),  # GAMMALN("29/02/1900" in I47): `formulas`' day-first reading
    ("poi_FormulaEvalTestData_Copy.xlsx", "EverythingTests", "P500"),  # FACT("E8" in G12): #VALUE!
])
def test_corpus_cells_keep_excels_answer(tmp_path, book_name, sheet, cell):
    from tests.calc.excel_cases import computed, reproduce

    path, sheet_name, address = reproduce(book_name, f"{sheet}!{cell}", tmp_path)
    value, reason = computed(path, sheet_name, address, reasons=True)
    assert reason == ""
    assert value == pytest.approx(excel_value(book_name, f"{sheet}!{cell}")) \
        if isinstance(value, float) else value == excel_value(book_name, f"{sheet}!{cell}")
    assert corpus_book(book_name).exists()


@pytest.mark.parametrize(("text", "kind", "value"), [
    ("2024-01-10", number_text.PLAIN, 45301.0), (" 10 ", number_text.PLAIN, 10.0), ("5 %", number_text.PLAIN, 0.05),
    ("12:30 AM", number_text.TIME, 0.5 / 24), ("12:00 PM", number_text.TIME, 0.5), ("23:59:59.5", number_text.TIME, 86399.5 / 86400),
    ("2024-02-30", number_text.PLAIN, "#VALUE!"), ("E8", number_text.NO_NUMBER, "#VALUE!"), ("", number_text.NO_NUMBER, "#VALUE!"), ("--8", number_text.NO_NUMBER, "#VALUE!"),
    ("1,000", number_text.UNSURE, "#NAME?"), ("(5)", number_text.UNSURE, -5.0), ("25:00", number_text.UNSURE, "#NAME?"),
    ("1 1/2", number_text.UNSURE, 1.5), ("1 3/2", number_text.UNSURE, "#NAME?"),
    ("0:30 AM", number_text.UNSURE, "#NAME?"), ("1900-02-29", number_text.UNSURE, "#NAME?"),
    ("1899-12-31", number_text.UNSURE, "#NAME?"), ("Jan 10, 2024", number_text.UNSURE, "#NAME?"),
    (" 2024-01-10 ", number_text.UNSURE, "#VALUE!"),
    # times the engine does not read, as VALUE reads them (value_text.py, pycel's Excel-made text.xlsx)
    ("0:75", number_text.UNSURE, 75 / 1440), ("12:30.5", number_text.UNSURE, 750.5 / 86400),
    ("24:99", number_text.UNSURE, "#VALUE!"),
])
def test_the_reading(text, kind, value):
    assert number_text.reading(text) == kind
    assert number_text.number(text) == (pytest.approx(value) if isinstance(value, float) else value)


def test_the_table_names_known_functions():
    """Every function of the table is one Excel has, and a logical argument is never read as a number."""
    from rates_xl.calc.formula.passes import PASSES

    assert "text_as_numbers" in {p.name for p in PASSES}
    for name, position in number_arguments.LOGICAL_AT.items():
        assert name in number_arguments.POSITIONS
        assert not number_arguments.wants_number(name, position)


def test_arithmetic_over_a_constant_text_not_settled_is_not_computed(tmp_path):
    """`=B1*2` with the text "1,000" in B1 was #VALUE! (an English Excel's 2,000), and "1/2/2024"
    read month first, silently: such a constant read by arithmetic gives #NAME?, listed by the
    check; a date written year-month-day, a number, and the text itself where no arithmetic
    reads it stay as they were. In a book without such text no operand is asked about."""
    found = _computed(tmp_path, {
        "B1": "1,000", "B2": "1/2/2024", "B3": "2024-01-10", "B4": 5, "B5": " 2024-01-10 ",
        "A1": "=B1*2", "A2": "=B2+1", "A3": "=B3+1", "A4": "=B4*2", "A5": "=-B1", "A6": "=B1",
        "A7": '=B1&"x"', "A8": "=B5+0", "A9": "=B1%",
    }, [f"A{row}" for row in range(1, 10)])
    assert found == {"A1": "#NAME?", "A2": "#NAME?", "A3": 45302, "A4": 10, "A5": "#NAME?", "A6": "1,000",
                     "A7": "1,000x", "A8": "#VALUE!", "A9": "#NAME?"}


def test_a_negative_in_parentheses_and_a_fraction_are_read_as_excel_reads_them(tmp_path):
    """"(123)" is -123 and "1 1/2" 1.5 to Excel, typed in a cell (an accounting negative; a
    fraction typed as Microsoft has one typed, "0 1/2") and read from text by VALUE and by
    arithmetic (LibreOffice agrees: -123 and 1.5). VALUE answered #VALUE! and 37257 (2 January
    2001) for them, arithmetic over the typed text #VALUE!, over a cell's text #NAME?: silently
    wrong, for the first two. A fraction of 1 or more is not settled here: #NAME?, listed."""
    found = _computed(tmp_path, {
        "B1": "(5)", "B2": "2 1/2",
        "A1": '=VALUE("(123)")', "A2": '=VALUE("1 1/2")', "A3": '=VALUE("0 3/8")', "A4": '=VALUE("-2 1/4")',
        "A5": '="(123)"+0', "A6": '="1 1/2"*2', "A7": '=-"(5)"', "A8": "=B1*2", "A9": "=B2+1",
        "A10": '=VALUE("( 12.5 )")', "A11": '=VALUE("1 3/2")', "A12": '=LEN("(12)")', "A13": '="(12)"&"x"',
        "A14": '="1,234.5"*2', "A15": '="1/2/2024"+0', "A16": '=" 2024-01-10 "+0', "A17": '="2024-01-10"+1',
    }, [f"A{row}" for row in range(1, 18)])
    assert found == {"A1": -123, "A2": 1.5, "A3": 0.375, "A4": -2.25, "A5": -123, "A6": 3, "A7": 5, "A8": -10,
                     "A9": 3.5, "A10": -12.5, "A11": "#NAME?", "A12": 4, "A13": "(12)x",
                     # typed text whose reading is the locale's, as a cell's constant text: listed
                     "A14": "#NAME?", "A15": "#NAME?", "A16": "#VALUE!", "A17": 45302}


def test_a_time_whose_minutes_excel_carries_is_read_by_arithmetic_as_value_reads_it(tmp_path):
    """"0:75" is 1:15 and "12:30.5" 12 minutes 30.5 seconds to Excel's VALUE (pycel's Excel-made
    text.xlsx: value_text.py), and arithmetic reads text as VALUE does; the engine's arithmetic
    answered #VALUE! for both, typed or in a cell. "25:00" is not settled here: listed."""
    found = _computed(tmp_path, {
        "B1": "0:75", "B2": "25:00",
        "A1": '="0:75"+0', "A2": '=1+"12:30.5"', "A3": "=B1*1", "A4": '="25:00"+0', "A5": "=B2+0",
        "A6": '=VALUE("0:75")', "A7": '="24:99"+0',
    }, [f"A{row}" for row in range(1, 8)])
    assert found == {"A1": pytest.approx(75 / 1440), "A2": pytest.approx(1 + 750.5 / 86400),
                     "A3": pytest.approx(75 / 1440), "A4": "#NAME?", "A5": "#NAME?",
                     "A6": pytest.approx(75 / 1440), "A7": "#VALUE!"}


def test_a_book_without_such_text_asks_nothing(tmp_path):
    from rates_xl.calc.formula.passes import one
    from rates_xl.calc.formula.site import BookFacts, Site

    asked = []
    facts = BookFacts(text_reading=lambda sheet, ref: asked.append(ref) or number_text.UNSURE)
    assert one("unsure_arithmetic", "=B1*2", Site("S", 1, 1, book=facts)) == "=B1*2"
    assert asked == []
    facts.unsure_texts = True
    assert one("unsure_arithmetic", "=B1*2", Site("S", 1, 1, book=facts)) == "=RATESXL.NUMBER(B1)*2"
