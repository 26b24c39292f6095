"""Single cells of the Excel-made corpus books, one class each, on a small workbook made here
from the corpus cell (`tests/calc/excel_cases.py`): the calculator's own value must be Excel's
(cached in the corpus book, read at test time). Each case failed before its fix."""

from __future__ import annotations

import pytest

from rates_xl.calc.formula.site import NotComputed
from tests.calc.excel_cases import assert_cell_as_excel

POI = "poi_FormulaEvalTestData_Copy.xlsx"

#: (class, corpus book, cell): computed equal to Excel's value, not listed.
EQUAL = [
    ("FLOOR(0,0) is 0", POI, "EverythingTests!I544"),
    ("DATE with a day count past January 1900 (Excel's 29 February 1900)", POI, "EverythingTests!I320"),
    ("VALUE of a dollar amount with a thousands separator", POI, "EverythingTests!E1444"),
    ("IMCSC from sin and cosh of the parts (15th digit)", "formulas_test.xlsx", "ENGINEERING!T36"),
    ("IMLOG2 as ln(z) / ln(2) (15th digit)", "formulas_test.xlsx", "ENGINEERING!T42"),
    ("SUM of a range intersected with a union of ranges", "formulas_test.xlsx", "CORE!E7"),
    ("TYPE of an eta-reduced function is 128", "formulas_test.xlsx", "INFORMATION!S24"),
    ("ERROR.TYPE of a typed #GETTING_DATA is 8", "formulas_test.xlsx", "INFORMATION!T4"),
    ("CHOOSE with a cell holding TRUE as its index", "formulas_test.xlsx", "LOOKUP!Y5"),
    ("CHOOSE with an error in its index cell passes it on", "formulas_test.xlsx", "LOOKUP!Z5"),
    ("CHOOSE with a cell holding text as its index is #VALUE!", "formulas_test.xlsx", "LOOKUP!X5"),
    ("SEARCH in a number's text: 1E-05 reads 0.00001", POI, "EverythingTests!H1216"),
]


@pytest.mark.parametrize(("case", "book", "address"), EQUAL, ids=[f"{c[0]}:{c[2]}" for c in EQUAL])
def test_computed_as_excel_does(case, book, address, tmp_path):
    assert_cell_as_excel(case, book, address, tmp_path)


def test_edges_leave_other_calls_to_the_bridged_functions():
    """The edge cases only add answers: other calls are formulas' (bridged) ones."""
    from rates_xl.calc.xlfuncs import OURS

    floor, date, value = (OURS[n]({}) for n in ("FLOOR", "DATE", "VALUE"))
    assert floor(5.0, 0.0) == {"type": "Error", "kind": "Div"}
    assert floor(7.5, 2.0) == 6.0
    assert date(1900, 3, 1) == 61.0 and date(1900, 2, 29) == 60.0 and date(1900, 3, -5) == 55.0
    assert date(2024, 14, 1) == date(2025, 2, 1) == 45689.0
    assert date(10000, 1, 1) == {"type": "Error", "kind": "Num"}
    assert value("-$1,234.5") == -1234.5 and value("1,000") == 1000.0
    assert value("0.33") == 0.33



def test_choose_rewriting_touches_only_a_one_cell_or_logical_index():
    from rates_xl.calc.formula.passes import one

    def rewrite(formula):
        return one("choose_logical", formula)

    assert rewrite("=CHOOSE(J5,1,2,3)") == "=CHOOSE(IF(OR(ISLOGICAL(J5),ISTEXT(J5)),--J5,J5),1,2,3)"
    assert rewrite("=_xlfn.CHOOSE(TRUE,1,2)") == "=_xlfn.CHOOSE(1,1,2)"
    for kept in ("=CHOOSE(A1:A2,1,2)", "=CHOOSE(A1+1,1,2)", "=MYCHOOSE(A1,1)", "=CHOOSE( 2 ,A1)"):
        assert rewrite(kept) == kept


def test_choose_reads_a_text_index_as_a_number(tmp_path):
    """pycel's tests/fixtures/lookup.xlsx (github.com/dgorissen/pycel, made by Excel), Lookup!B44:G44:
    `CHOOSE(x,$B3,$C3,...)` with x the text "1" is B3, "2" C3, "0" #VALUE!, TRUE B3, FALSE
    #VALUE!, 0.9 #VALUE!; formualizer answered #VALUE! for the texts. Made here with those values,
    and a text that reads as no number ("abc": #VALUE!, as VALUE("abc") is)."""
    from rates_xl.calc.workbook import WorkbookCalculation
    from tests.calc.test_recalc import excel_saved

    cells = {"B3": -1, "C3": 0.5, "B43": "1", "C43": "2", "D43": "0", "E43": True, "F43": False, "G43": 0.9,
             "H43": "abc", **{f"{c}44": f"=CHOOSE({c}$43,$B3,$C3)" for c in "BCDEFGH"}}
    excel = {"B44": -1, "C44": 0.5, "D44": "#VALUE!", "E44": -1, "F44": "#VALUE!", "G44": "#VALUE!", "H44": "#VALUE!"}
    book = excel_saved(tmp_path / "choose.xlsx", cells, excel)
    result = WorkbookCalculation(book, full=True).compute()
    assert not result.stale, result.stale
    assert {c: result.value("S", c) for c in excel} == excel


def test_union_of_areas_becomes_arguments_only_where_read_alike():
    from rates_xl.calc.formula.passes import one

    def resolve(formula):
        return one("reference_operators", formula)

    assert resolve("=SUM(1,E3:G4 (B2:E5,G2:H5),2)") == "=SUM(1,E3:E4,G3:G4,2)"
    assert resolve("=SUM(E3:G4 (X2:Y5,G2:H5))") == "=SUM(G3:G4)"
    # Several areas read otherwise (an operand, INDEX's reference): the engine knows no union and
    # its own intersection answers #VALUE! or 0, so the cell is listed, not guessed.
    for listed in ("=SUM(1+E3:G4 (B2:E5,G2:H5))", "=INDEX(E3:G4 (B2:E5,G2:H5),1)"):
        with pytest.raises(NotComputed, match="intersection"):
            resolve(listed)


def test_type_and_error_type_rewritten_only_as_their_argument():
    from rates_xl.calc.formula.passes import one

    def rewrite(formula):
        return one("type_of", formula)

    assert rewrite("=TYPE(_xleta.SUM)+1") == "=128+1"
    assert rewrite("=ERROR.TYPE( #GETTING_DATA )") == "=8"
    for kept in ('=ERROR.TYPE(_xleta.SUM)', "=ISERR(#GETTING_DATA)", '="TYPE(_xleta.SUM)"', "=BYROW(A1:B2,_xleta.SUM)"):
        assert rewrite(kept) == kept


def test_constants_openpyxl_misreads_reach_the_engine_and_the_copy_as_stored(tmp_path):
    """Two constants of formulas_test.xlsx that openpyxl reads wrongly, then saved changed into
    the engine's copy and the values-frozen copy: CORE!B27, the text `_x0001_` (stored escaped,
    `_x005F_x0001_`; saved as CHAR(1): CODE gave 1), and CORE!C22, serial 60 (Excel's
    29 February 1900; saved as 59: C22+1 gave 59). The small book is written by XlsxWriter,
    which stores both as Excel does; the inputs are the corpus book's own, read from its XML."""
    import xlsxwriter

    from rates_xl.calc.package import Package
    from rates_xl.calc.workbook import WorkbookCalculation
    from tests.calc.excel_cases import corpus_book, excel_value

    stored, _missing = Package.open(corpus_book("formulas_test.xlsx")).cell_values()
    text, serial = stored[("CORE", "B27")], stored[("CORE", "C22")]
    assert (text, serial) == ("_x0001_", 60)  # what the corpus file holds
    path = tmp_path / "constants.xlsx"
    made = xlsxwriter.Workbook(path)
    sheet = made.add_worksheet("CORE")
    sheet.write_string("B27", text)
    sheet.write_formula("C27", "=CODE(B27)")
    sheet.write_number("C22", serial, made.add_format({"num_format": "d-mmm-yyyy"}))
    sheet.write_formula("D22", "=C22+1")
    made.close()

    calc = WorkbookCalculation(path, full=True)
    result = calc.compute()
    for cell in ("C27", "D22"):
        assert result.values[("CORE", cell)] == excel_value("formulas_test.xlsx", f"CORE!{cell}"), cell
    assert not result.skipped and not result.stale
    out = calc.freeze(result, tmp_path / "constants.values.xlsx")
    copy, _missing = Package.open(out).cell_values()
    assert copy[("CORE", "B27")] == text and copy[("CORE", "C22")] == serial


def test_a_date_or_time_finer_than_a_millisecond_reaches_the_engine_and_the_copy_as_stored(tmp_path):
    """openpyxl reads a number in a date or time format to the nearest millisecond, and saved
    that into the engine's copy and the values-frozen copy: 45123.999999999 (a moment before
    midnight) became the next day, `INT` of it 45124; a time of 2.5E-7 days 22 ms; a pasted
    timestamp moved by 4.9E-09 of a day. Excel keeps the serial the file holds (Excel's
    arithmetic on it is IEEE's, which Python's float is), and so must both copies."""
    import openpyxl
    import xlsxwriter

    from rates_xl.calc.package import Package
    from rates_xl.calc.workbook import WorkbookCalculation

    path = tmp_path / "moments.xlsx"
    made = xlsxwriter.Workbook(path)
    sheet = made.add_worksheet("S")
    stamp = made.add_format({"num_format": "yyyy-mm-dd hh:mm:ss"})
    for row, serial in enumerate([45000.1234567891234, 45123.999999999, 2.5e-7, 45000.5], 1):
        sheet.write_number(f"A{row}", serial, stamp)
        sheet.write_formula(f"B{row}", f"=A{row}*86400")
        sheet.write_formula(f"C{row}", f"=INT(A{row})")
    made.close()
    stored, _missing = Package.open(path).cell_values()
    assert openpyxl.load_workbook(path)["S"]["A2"].value.day == 17  # openpyxl's read: the next day

    calc = WorkbookCalculation(path, full=True)
    result = calc.compute()
    for row in range(1, 5):
        serial = stored[("S", f"A{row}")]
        assert result.values[("S", f"B{row}")] == serial * 86400, row
        assert result.values[("S", f"C{row}")] == int(serial), row
    out = calc.freeze(result, tmp_path / "moments.values.xlsx")
    copy, _missing = Package.open(out).cell_values()
    assert all(copy[("S", f"A{row}")] == stored[("S", f"A{row}")] for row in range(1, 5))
    assert openpyxl.load_workbook(out)["S"]["A1"].number_format == "yyyy-mm-dd hh:mm:ss"  # still shown as a date


def test_a_date_value_reaches_us_as_its_serial(tmp_path):
    """formualizer hands a number in a date-formatted cell over as a Python date, in which
    serial 60 (Excel's 29 February 1900) is 28 February, as 59 is: `=A1` over 60 came out 59,
    silently. The engine's copy holds no date format, so every value comes over as the
    number Excel keeps; the copy keeps each cell's own format."""
    import xlsxwriter

    from rates_xl.calc.package import Package
    from rates_xl.calc.workbook import WorkbookCalculation

    path = tmp_path / "leap.xlsx"
    made = xlsxwriter.Workbook(path)
    sheet = made.add_worksheet("S")
    dated = made.add_format({"num_format": "d-mmm-yyyy"})
    for row, serial in enumerate((59, 60, 60.5, 61, 45000.25), start=1):
        sheet.write_number(row - 1, 0, serial, dated)
        sheet.write_formula(row - 1, 1, f"=A{row}")  # General: the value's own type
        sheet.write_formula(row - 1, 2, f"=A{row}", dated)
    made.close()
    calc = WorkbookCalculation(path, full=True)
    result = calc.compute()
    for row, serial in enumerate((59, 60, 60.5, 61, 45000.25), start=1):
        assert result.values[("S", f"B{row}")] == serial and result.values[("S", f"C{row}")] == serial, row
    out = calc.freeze(result, tmp_path / "leap.values.xlsx")
    copy, _missing = Package.open(out).cell_values()
    assert [copy[("S", f"C{row}")] for row in range(1, 6)] == [59, 60, 60.5, 61, 45000.25]
    import openpyxl

    assert openpyxl.load_workbook(out)["S"]["C2"].number_format == "d-mmm-yyyy"
