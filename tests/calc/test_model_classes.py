"""Classes of formula seen in real models kept outside the project (issue 30, point 4), and in
Excel-made books of other projects (pycel's tests/fixtures), each reproduced in a small book made here. Where Excel's answer is established (Microsoft's
documentation of the function, or a cell of ../shared/corpus read at test time) it is asserted;
a construct whose answer the engine cannot reproduce is listed, never silently different."""

from __future__ import annotations

import openpyxl
import pytest
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.formula import ArrayFormula

from rates_xl.calc.workbook import WorkbookCalculation
from tests.calc.excel_cases import assert_cell_as_excel
from tests.calc.test_recalc import excel_saved


def _table(book):
    """A product-spec table: table!I5:M19, each cell 100 x row + column."""
    table = book.create_sheet("table")
    for r in range(5, 20):
        for c in range(9, 14):
            table.cell(row=r, column=c).value = r * 100 + c
    return table


#: Both engines: the fast one, and `formulas` (a book formualizer cannot read, or --engine formulas).
ENGINES = ["fast", "formulas"]


def _computed(book, tmp_path, cells, engine="auto"):
    book.save(tmp_path / "model.xlsx")
    result = WorkbookCalculation(tmp_path / "model.xlsx", engine_name=engine).compute()
    listed = {s.cell for s in result.skipped if s.sheet == "S"}
    listed |= {cell.rpartition("!")[2] for cells in result.unknown_functions.values() for cell in cells}  # #NAME?
    return {cell: result.values.get(("S", cell)) for cell in cells}, listed


@pytest.mark.parametrize("engine", ENGINES)
def test_offset_of_one_cell_inside_if(tmp_path, engine):
    """`IF(flag, OFFSET(table!$I$5, MIN(10, n), $F$15), 0)`: OFFSET of one cell with no height
    or width is that one cell (Microsoft's OFFSET: "the same size as reference"), not an array;
    the cell was not computed ("IF given the array from OFFSET"; 1,201 cells of one model)."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    _table(book)
    sheet["F15"], sheet["A1"], sheet["A2"], sheet["B1"], sheet["B2"] = 2, True, False, 3, 40
    sheet["C1"] = "=IF(A1,OFFSET(table!$I$5,MIN(10,B1),$F$15),0)"
    sheet["C2"] = "=IF(A2,OFFSET(table!$I$5,MIN(10,B1),$F$15),0)"
    sheet["C3"] = "=IF($A$1,OFFSET(table!$I$5,MIN(10,B2),$F$15),0)*2"
    sheet["C4"] = "=SUM(IF(A1,OFFSET(table!$I$5,0,0,2,1),0))"  # two cells: still an array
    values, listed = _computed(book, tmp_path, ["C1", "C2", "C3", "C4"], engine)
    if engine == "formulas":  # it knows no OFFSET: each call kept at the file's value, listed
        assert {"C1", "C2", "C3", "C4"} <= listed
        return
    assert values["C1"] == 8 * 100 + 11  # table!K8: 3 rows down, 2 columns right of I5
    assert values["C2"] == 0 and values["C3"] == 2 * (15 * 100 + 11)  # MIN(10, 40): K15
    assert not {"C1", "C2", "C3"} & listed
    assert values["C4"] == 509 + 609 or "C4" in listed  # computed right, or listed


@pytest.mark.parametrize("engine", ENGINES)
def test_range_plus_nested_mmult_in_a_legacy_array(tmp_path, engine):
    """`{=$Z$120:$Z$184+MMULT(MMULT(MMULT(...)))}`: operators over a range and computed
    arrays only, computed whole (each element the sum of the range's cell and the matrix
    product's, Microsoft's MMULT); it was not computed ("an array of ranges"; 65 cells)."""
    import numpy as np

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    _table(book)
    sheet["C40"] = ArrayFormula("C40:C42", "=table!I5:I7+MMULT(MMULT(MMULT(table!I5:K7,table!J5:L7),"
                                           "table!K5:M7),table!K5:K7)")
    values, listed = _computed(book, tmp_path, ["C40", "C41", "C42"], engine)

    def grid(r1, r2, c1, c2):
        return np.array([[r * 100 + c for c in range(c1, c2 + 1)] for r in range(r1, r2 + 1)], dtype=float)

    expected = grid(5, 7, 9, 9) + grid(5, 7, 9, 11) @ grid(5, 7, 10, 12) @ grid(5, 7, 11, 13) @ grid(5, 7, 11, 11)
    assert not listed
    assert [values[c] for c in ("C40", "C41", "C42")] == pytest.approx(list(expected.ravel()), rel=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_index_to_index_of_a_name_as_a_range_under_operators(tmp_path, engine):
    """`INDEX(name,1,1):INDEX(name,1,n)` is a reference (Microsoft's INDEX: "returns a
    reference"); read by a function it was right, under an operator the engine answered #REF!
    (`SUMPRODUCT(INDEX(r,1,1):INDEX(r,1,n)*2)`, `{=INDEX(r,1,1):INDEX(r,1,n)*2}`)."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    table = _table(book)
    for c, value in zip(range(9, 14), (5, 10, 11, 20, 30), strict=True):
        table.cell(row=5, column=c).value = value
    book.defined_names["rate_row"] = DefinedName("rate_row", attr_text="table!$I$5:$M$5")
    sheet["N1"] = 3
    sheet["A1"] = "=SUMPRODUCT(INDEX(rate_row,1,1):INDEX(rate_row,1,N1)*2)"
    sheet["A2"] = "=SUM(INDEX(rate_row,1,1):INDEX(rate_row,1,N1))"
    sheet["A3"] = '=COUNTIF(INDEX(rate_row,1,1):INDEX(rate_row,1,N1),">9")'
    sheet["B1"] = ArrayFormula("B1:D1", "=INDEX(rate_row,1,1):INDEX(rate_row,1,N1)*2")
    sheet["B2"] = ArrayFormula("B2", "=SUM(INDEX(rate_row,1,1):INDEX(rate_row,1,N1)-1)")
    values, listed = _computed(book, tmp_path, ["A1", "A2", "A3", "B1", "C1", "D1", "B2"], engine)
    assert values == {"A1": 52, "A2": 26, "A3": 2, "B1": 10, "C1": 20, "D1": 22, "B2": 23}
    assert not listed


@pytest.mark.parametrize("engine", ENGINES)
def test_hour_minute_second_of_a_time_as_text(tmp_path, engine):
    """Microsoft's HOUR, MINUTE and SECOND: "Times may be entered as text strings within
    quotation marks (for example, "6:45 PM")": HOUR is 18, MINUTE 45; the engine answered
    #VALUE!. The corpus rows of these functions (numbers, text "3", TRUE, errors) stay Excel's."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    sheet["A1"], sheet["A2"], sheet["A3"] = '=HOUR("6:45 PM")', '=MINUTE("6:45 PM")', '=SECOND("4:48:18 PM")'
    sheet["A4"], sheet["A5"] = '=HOUR("abc")', '=HOUR("12:30")'
    values, listed = _computed(book, tmp_path, ["A1", "A2", "A3", "A4", "A5"], engine)
    assert values == {"A1": 18, "A2": 45, "A3": 18, "A4": "#VALUE!", "A5": 12} and not listed


@pytest.mark.parametrize("engine", ENGINES)
def test_hour_minute_second_of_a_time_rounded_to_the_second(tmp_path, engine):
    """The time of day rounded to the nearest second before it is split (calc/xlfuncs/dates/
    clock.py): 0.44305 is 10:37:59.52, so 10:38:00; 0.999999 is 23:59:59.91, midnight. Microsoft's
    SECOND page: "an integer in the range 0 (zero) to 59". `formulas` rounded the seconds alone:
    SECOND 60 and MINUTE 37 for the first, SECOND 60, MINUTE 59 and HOUR 23 for the second."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    cells = {"A1": "=HOUR(B1)", "A2": "=MINUTE(B1)", "A3": "=SECOND(B1)",
             "A4": "=HOUR(B2)", "A5": "=MINUTE(B2)", "A6": "=SECOND(B2)",
             "A7": "=SECOND(B3)", "A8": "=MINUTE(B3)", "A9": "=HOUR(B3)"}
    for cell, formula in cells.items():
        sheet[cell] = formula
    sheet["B1"], sheet["B2"], sheet["B3"] = 0.44305, 0.999999, 45000.75 + 12.4 / 86400  # (18:00:12.4)
    values, listed = _computed(book, tmp_path, list(cells), engine)
    assert values == {"A1": 10, "A2": 38, "A3": 0, "A4": 0, "A5": 0, "A6": 0, "A7": 12, "A8": 0, "A9": 18}
    assert not listed


@pytest.mark.parametrize("cell", ["R11", "S11", "X11", "Y11", "AA11", "R13", "X13", "R18", "X18", "Y18"])
def test_hour_minute_second_keep_the_corpus_answers(tmp_path, cell):
    assert_cell_as_excel("HOUR/MINUTE/SECOND", "formulas_test.xlsx", f"DATE & TIME!{cell}", tmp_path)


@pytest.mark.parametrize("engine", ENGINES)
def test_text_with_its_format_in_a_cell(tmp_path, engine):
    """`TEXT(value, format_in_a_cell)`: a number in the cell is its text as the format (a
    cell holding 0 is the code "0": 1235 as TEXT(1234.5,"0"), rounding half away from zero as
    Microsoft's TEXT page shows), an empty cell the empty format (""); the engine gave "1234".
    `formulas` computes TEXT with calc/xlfuncs' implementation too (its own gave "1234" for
    each, rounding half to even)."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    sheet["B1"], sheet["B3"] = 0, "#,##0.00"
    sheet["A1"], sheet["A2"], sheet["A3"] = "=TEXT(1234.5,B1)", "=TEXT(1234.5,B2)", "=TEXT(1234.567,B3)"
    sheet["A4"] = '=TEXT(1234.5,"0")'
    values, listed = _computed(book, tmp_path, ["A1", "A2", "A3", "A4"], engine)
    assert values == {"A1": "1235", "A2": "", "A3": "1,234.57", "A4": "1235"} and not listed


@pytest.mark.parametrize("engine", ENGINES)
def test_indirect_of_a_range_in_an_ordinary_cell(tmp_path, engine):
    """`INDIRECT("H47:I48")` in an ordinary cell (one Excel saved with no dynamic-array marker)
    is the range H47:I48 read where one value is wanted: Excel's implicit intersection, the
    cell of a column range in the formula's row or of a row range in its column, #VALUE!
    where there is none (Microsoft, "Implicit intersection operator: @": "If the value is a
    range, then pick the cell on the same row or column as the formula"). The fast engine
    spilled it and answered H47's 10; two such cells failed the whole book; `formulas`
    answered #VALUE! for every range in an ordinary cell, `=H47:H48` in row 48 too. INDIRECT
    of a text in a cell and OFFSET of several cells, whole formulas, are intersected the same
    way by the fast engine (`formulas` knows neither: its unknown functions, named)."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    sheet["H47"], sheet["I47"], sheet["H48"], sheet["I48"] = 10, 20, 30, 40
    sheet["B1"], sheet["B2"], sheet["B3"] = "H47:H48", "H47:I48", "H47"
    literal = {"K47": '=INDIRECT("H47:I48")', "K48": '=INDIRECT("H47:I48")',  # 2-D: no intersection
               "J48": '=INDIRECT("H47:H48")', "J47": '=INDIRECT("$H$47:$H$48",TRUE)',  # its row's cell
               "I50": "=INDIRECT(\"'S'!H47:I47\")", "K49": '=INDIRECT("H47:H48")',  # its column's; none
               "K50": '=SUM(INDIRECT("H47:I48"))', "L48": "=H47:H48", "K51": '=INDIRECT("H48")'}
    computed = {"M48": "=INDIRECT(B1)", "M47": "=INDIRECT(B2)", "N47": "=INDIRECT(B2)", "M49": "=INDIRECT(B3)",
                "O47": "=OFFSET(H47,0,0,2,2)", "O48": "=OFFSET(H47,0,0,2,2)", "P48": "=OFFSET(H47,0,0,2,1)",
                "P49": "=OFFSET(H47,1,1)", "P50": "=SUM(OFFSET(H47,0,0,2,2))"}
    for cell, formula in {**literal, **computed}.items():
        sheet[cell] = formula
    values, listed = _computed(book, tmp_path, [*literal, *computed], engine)
    assert {cell: values[cell] for cell in literal} == {
        "K47": "#VALUE!", "K48": "#VALUE!", "J48": 30, "J47": 10, "I50": 20, "K49": "#VALUE!", "K50": 100, "L48": 30,
        "K51": 30}
    if engine == "formulas":
        assert listed == set(computed)
        return
    assert {cell: values[cell] for cell in computed} == {
        "M48": 30, "M47": "#VALUE!", "N47": "#VALUE!", "M49": 10, "O47": "#VALUE!", "O48": "#VALUE!", "P48": 30,
        "P49": 40, "P50": 100}
    assert not listed


@pytest.mark.parametrize("engine", ENGINES)
def test_whole_columns_and_rows_in_an_ordinary_cell_are_intersected(tmp_path, engine):
    """Whole columns and rows where one value is wanted, in an ordinary cell, are intersected
    like any range: `=FLOOR($AM:$AM,B$2)` in B36 is FLOOR($AM36,B$2) and `=$47:$47` in AG49 is
    AG47 (Excel 16's 3 and 2, cached in IronCalc's xlsx/tests/calc_tests/
    MATH_AND_TRIGONOMETRY__FLOOR_CEILING.xlsx, FLOOR!B36 and CEILING!AG49; 224 such cells of that
    book were listed, not computed). Of another sheet, they were silently wrong: `S2!AM:AM` was
    taken for one cell, and `=FLOOR(S2!AM:AM,1)` in row 36 answered the column's first value
    (10), `=S2!AM:AM` 10.5; Excel's are S2!AM36's. Where the range is read whole, it is (SUM);
    a function that refuses a multi-cell reference answers #VALUE! as for any range (EDATE).
    The `formulas` engine took the range's first cell in all of these, finite ranges too
    (`=FLOOR($AM$1:$AM$40,1)` in row 36 was 1): both now write the intersection out."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    other = book.create_sheet("S2")
    for row in range(1, 41):
        sheet.cell(row=row, column=39, value=row + 0.37)  # AM
        other.cell(row=row, column=39, value=row * 10 + 0.5)
    sheet["AM36"], sheet["B2"], sheet["AG47"] = 3, 1, 2
    cells = {"B36": "=FLOOR($AM:$AM,B$2)", "AG49": "=$47:$47", "C38": "=$AM:$AM*2", "D36": "=SUM($AM:$AM)",
             "E36": "=EDATE($AM:$AM,1)", "H36": "=FLOOR(S2!AM:AM,1)", "K36": "=S2!AM:AM", "L37": "=S2!$AM:$AM+1",
             "M36": "=SUM(S2!AM:AM)", "G36": "=UPPER(AM:AM)", "AG1": "=S2!$38:$38"}
    for cell, formula in cells.items():
        sheet[cell] = formula
    values, listed = _computed(book, tmp_path, list(cells), engine)
    expected = {"B36": 3, "AG49": 2, "C38": 76.74, "D36": sum(range(1, 41)) + 40 * 0.37 - 36.37 + 3, "E36": "#VALUE!",
                "H36": 360, "K36": 360.5, "L37": 371.5, "M36": sum(range(1, 41)) * 10 + 20, "G36": "3",
                "AG1": 0}
    assert {cell: values[cell] for cell in cells} == pytest.approx(expected) and not listed


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("cell", ["R54", "R53", "T52", "U52", "R52", "AI52"])
def test_index_out_of_range_keeps_the_corpus_answers(tmp_path, engine, cell):
    """formulas_test.xlsx LOOKUP row 52-54, Excel's values read at test time: a negative row
    is #VALUE! (R54, `INDEX(C52:E53,-1)`), a row or column past the range #REF! (R53, T52, U52),
    in range its value (R52, AI52)."""
    assert_cell_as_excel("INDEX", "formulas_test.xlsx", f"LOOKUP!{cell}", tmp_path, engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("cell", ["C63", "C64", "C65"])
def test_a_number_needing_17_digits_reaches_the_engine_whole(tmp_path, engine, cell):
    """formulas_test.xlsx EXTRA!C64, `TRUNC(E64,1)` where E64 is -0.39999999999999947: -0.3 in
    Excel (read at test time). The engine's copy held -0.3999999999999995 (openpyxl's 16
    digits, calc/xlsx_writer.py `number_text`), and TRUNC answered -0.4: listed stale."""
    assert_cell_as_excel("TRUNC", "formulas_test.xlsx", f"EXTRA!{cell}", tmp_path, engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_index_out_of_range(tmp_path, engine):
    """INDEX given a row or column outside its range: #REF! (Microsoft's INDEX: "If row_num or
    column_num does not point to a cell within array, INDEX returns a #REF! error value"; the
    corpus's T52, U52); a negative one #VALUE!, as LOOKUP!R54 answers before the range's shape
    is looked at. The fast engine answered #REF! for `INDEX(H1:I2,-1,1)` and `INDEX(H1:H2,-1)`
    (a model's cell, stale at its stored inputs); `formulas` 0 for `INDEX(H1:I2,0,3)`."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    sheet["H1"], sheet["H2"], sheet["I1"], sheet["I2"], sheet["B1"] = 1, 3, 2, 4, -1
    formulas = {"G1": "=INDEX(H1:I2,-1,1)", "G2": "=INDEX(H1:I2,1,-1)", "G3": "=INDEX(H1:I2,B1,1)",
                "G4": "=INDEX(H1:H2,-1)", "G5": "=INDEX(H1:H2,B1)", "G6": "=INDEX(H1:I2,0,-1)",
                "G7": "=INDEX(H1:I2,3,1)", "G8": "=INDEX(H1:I2,1,3)", "G9": "=INDEX(H1:I2,0,3)",
                "G10": "=INDEX(H1:I2,3,0)", "G11": "=INDEX(H1:H2,5)",
                "G12": "=INDEX(H1:I2,2,2)", "G13": "=SUM(INDEX(H1:I2,0,2))", "G14": "=SUM(INDEX(H1:I2,1,1):INDEX(H1:I2,2,B2))"}
    sheet["B2"] = 2
    for cell, formula in formulas.items():
        sheet[cell] = formula
    values, listed = _computed(book, tmp_path, list(formulas), engine)
    assert values == {**{f"G{n}": "#VALUE!" for n in range(1, 7)}, **{f"G{n}": "#REF!" for n in range(7, 12)},
                      "G12": 4, "G13": 6, "G14": 10}
    assert not listed


@pytest.mark.parametrize("address", [
    "LOGICAL!R25", "LOGICAL!AA25", "LOGICAL!AB25",  # SWITCH: a match; its expression an error
    "LOOKUP!S56", "LOOKUP!Z56", "LOOKUP!X57", "LOOKUP!Y58",  # LOOKUP's edges: mixed types, errors
    "STATISTICAL!R58", "STATISTICAL!T58", "STATISTICAL!U58",  # LINEST's edges
    "STATISTICAL!S113", "STATISTICAL!W113",  # TREND's edges
])
def test_switch_lookup_linest_trend_edges_in_the_formulas_engine(tmp_path, address):
    """The corpus's SWITCH over an error value, LOOKUP's and LINEST/TREND's edges (formulas_test.xlsx,
    Excel's values read at test time) in the `formulas` engine too (the fast engine's are held
    by tests/calc/test_excel_corpus.py with every other cell of the grid)."""
    assert_cell_as_excel(address, "formulas_test.xlsx", address, tmp_path, engine="formulas")


@pytest.mark.parametrize("engine", ENGINES)
def test_switch_answers_an_error_case_met_before_its_match_and_lists_one_met_after(tmp_path, engine):
    """SWITCH with an error among its cases, as Excel answers it: pycel's tests/fixtures/logical.xlsx
    (github.com/dgorissen/pycel, made by Excel), Switch!D3 `SWITCH(B3,A3,A3)` and G3
    `SWITCH(B3,A3,B3)`, B3 =ROW() and A3 #DIV/0!, are #DIV/0!; rows 4 to 9 the same for #NUM!,
    #VALUE!, #REF!, #NULL! and #N/A; C10 `SWITCH(A10,A10,B10)` (A10 -1, B10 10) is 10, D10
    `SWITCH(B10,A10,A10)` #N/A, E10 `SWITCH(A10,0,-1,A10,-2)` -2. The same cells are made here
    with those values (formualizer skipped the error and answered a later match: "c" for J1).
    A match before an error case: no cell of Excel's gives the answer, so it is #NAME? in the
    engine and listed stale, Excel's value kept, whatever that is; a SWITCH whose cases hold no
    error is computed (an error as its expression is Excel's error: formulas_test.xlsx
    LOGICAL!Z25:AF25, held above and by the corpus measure)."""
    cells = {"A3": "=1/0", "B3": 3, "A10": -1, "B10": 10, "B1": 2, "C1": "=NA()", "C2": 1,
             "D3": "=SWITCH(B3,A3,A3)", "G3": "=SWITCH(B3,A3,B3)", "C10": "=SWITCH(A10,A10,B10)",
             "D10": "=SWITCH(B10,A10,A10)", "E10": "=SWITCH(A10,0,-1,A10,-2)",
             "F10": '=SWITCH(A10,0,"match","no-match")', "J1": '=SWITCH(B1,1,"a",C1,"b",2,"c")',
             "J2": '=SWITCH(B1,1,"a",C2,"b",2,"c")', "J3": '=SWITCH(B1,1,"a",2,"b")',
             "J4": '=SWITCH(B1,2,"a",C1,"b")'}  # the match first, then an error case: unknown
    excel = {"A3": "#DIV/0!", "C1": "#N/A", "D3": "#DIV/0!", "G3": "#DIV/0!", "C10": 10, "D10": "#N/A",
             "E10": -2, "F10": "no-match", "J1": "#N/A", "J2": "c", "J3": "b", "J4": "a"}
    book = excel_saved(tmp_path / "switch.xlsx", cells, excel)
    result = WorkbookCalculation(book, full=True, engine_name=engine).compute()
    stale = {s.cell: s.reason for s in result.stale}
    assert set(stale) == {"J4"}, stale
    assert "#NAME?" in stale["J4"] and result.value("S", "J4") == "a"
    assert {c: result.value("S", c) for c in excel if c != "J4"} == {c: v for c, v in excel.items() if c != "J4"}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_computed_array_in_an_ordinary_cell_shows_its_top_left_and_spills_nowhere(tmp_path, engine):
    """`=TRANSPOSE(C1:D2)` or `=MMULT(...)` saved as an ordinary formula (a book from before
    dynamic arrays, or one written by a script): Excel reads it with implicit intersection
    (Microsoft, "Implicit intersection operator: @": such a formula opens as `=@TRANSPOSE(...)`),
    which of an array is its top-left value, and nothing spills. The fast engine spilled it:
    a cell beside it holding a value made it #SPILL!, and a SUM over its neighbours, or a
    formula reading one, added the hidden rest (25 where Excel and LibreOffice show 0). A
    reference (OFFSET) is intersected instead: #VALUE! off its rows and columns."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    sheet["C1"], sheet["D1"], sheet["C2"], sheet["D2"] = 1, 2, 3, 4
    sheet["A5"], sheet["B5"] = "=TRANSPOSE(C1:D2)", 7  # B5 holds a value: Excel shows no #SPILL!
    sheet["A8"] = "=SUM(A5:B6)"  # 1 + 7: nothing of the transpose spilled into B5:B6 or A6
    sheet["A10"] = "=MMULT(C1:D2,C1:D2)*2"  # 2 x {7,10;15,22}: 14 shown
    sheet["A12"] = "=A11+B10"  # empty in Excel: 0, not 30 + 20
    sheet["A14"] = "=OFFSET(C1,0,0,2,2)"  # a reference, intersected from row 14: #VALUE!
    values, listed = _computed(book, tmp_path, ["A5", "A8", "A10", "A12", "A14"], engine)
    if engine == "formulas":  # it knows no OFFSET: kept at the file's value, listed
        assert "A14" in listed
    else:
        assert values["A14"] == "#VALUE!"
    assert (values["A5"], values["A8"], values["A10"], values["A12"]) == (1, 8, 14, 0)


def test_rows_and_columns_of_an_error_are_the_error(tmp_path):
    """ROWS and COLUMNS of an expression that is an error answer that error, as Excel does (a count
    of matches `ROWS(FILTER(...))` is FILTER's error when nothing matches); formualizer alone
    answered 1. A reference's shape, and an array's, are unchanged (the pass `shape_of_an_error`)."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    sheet["A1"], sheet["A2"], sheet["A3"] = 1, 2, 3
    formulas = {"B1": "=ROWS(NA())", "B2": "=COLUMNS(1/0)", "B3": "=ROWS(FILTER(A1:A3,A1:A3>5))",
                "B4": "=ROWS(FILTER(A1:A3,A1:A3>1))", "B5": "=ROWS(A1:A3)", "B6": "=COLUMNS(SEQUENCE(2,4))*10+ROWS(SEQUENCE(5))",
                "B7": "=ROWS({1;2})", "B8": "=COLUMNS(A1:C1)+ROWS(IF(A1>0,NA()))",
                "B9": "=ROWS(OFFSET(A1,0,0,3,1))", "B10": "=ROWS((A1:A3,A2))", "B11": "=ROWS(INDEX(A1:A3,1):INDEX(A1:A3,2))"}
    for cell, formula in formulas.items():
        sheet[cell] = formula
    values, listed = _computed(book, tmp_path, list(formulas), "fast")
    assert not listed
    assert values["B1"] == "#N/A" and values["B2"] == "#DIV/0!" and values["B8"] == "#N/A"
    assert isinstance(values["B3"], str) and values["B3"].startswith("#")  # FILTER's own error
    assert [values[c] for c in ("B4", "B5", "B6", "B7", "B9", "B11")] == [2, 3, 45, 2, 3, 2]
    assert values["B10"] == "#REF!"  # a union: Excel's ROWS of one is #REF!; its own reading, unchanged


@pytest.mark.parametrize("engine", ENGINES)
def test_lookup_given_a_taller_range_as_its_vector_searches_the_first_column(tmp_path, engine):
    """LOOKUP's vector form given a range of two columns: pycel's tests/fixtures/lookup.xlsx
    (github.com/dgorissen/pycel, made by Excel), Lookup!C28:G30 `LOOKUP(C$3,$B$5:$C$9,$D$5:$D$9)`:
    Excel searches B5:B9 and answers from the result vector (0.5 -> 'a', 2 -> 'i', 3 -> #VALUE!
    read from D8, an empty lookup value -> the first row, an empty result 0). The same cells are
    made here with Excel's values; the engine answered #N/A for each. A wider range: no cell of
    Excel's shows its answer, so it is not computed (#NAME?) and listed against Excel's value."""
    cells = {"B5": 0, "B6": 1, "B7": 2, "B8": 3, "B9": 4, "C5": "a", "C6": "e", "C7": "i", "C8": "o", "C9": "u",
             "D6": "plugh", "D7": True, "D8": "=1+#VALUE!", "D9": "=NA()", "C3": 0.5, "D3": 2, "E3": 3,
             "C28": "=LOOKUP(C$3,$B$5:$C$9,$C$5:$C$9)", "D28": "=LOOKUP(D$3,$B$5:$C$9,$C$5:$C$9)",
             "C29": "=LOOKUP(C$3,$B$5:$C$9,$D$5:$D$9)", "D29": "=LOOKUP(D$3,$B$5:$C$9,$D$5:$D$9)",
             "E29": "=LOOKUP(E$3,$B$5:$C$9,$D$5:$D$9)", "G28": "=LOOKUP(G$3,$B$5:$C$9,$C$5:$C$9)",
             "J1": "=LOOKUP(2,$B$5:$F$6,$B$7:$F$7)"}  # wider than tall: unknown
    excel = {"D8": "#VALUE!", "D9": "#N/A", "C28": "a", "D28": "i", "C29": 0, "D29": True, "E29": "#VALUE!",
             "G28": "a", "J1": 3}
    book = excel_saved(tmp_path / "lookup.xlsx", cells, excel)
    result = WorkbookCalculation(book, full=True, engine_name=engine).compute()
    stale = {s.cell: s.reason for s in result.stale}
    assert set(stale) == {"J1"}, stale
    assert "#NAME?" in stale["J1"] and result.value("S", "J1") == 3  # Excel's value kept, listed
    assert {c: result.value("S", c) for c in excel if c != "J1"} == {c: v for c, v in excel.items() if c != "J1"}


@pytest.mark.parametrize("engine", ENGINES)
def test_index_of_an_array_constant_given_a_negative_row_or_column(tmp_path, engine):
    """INDEX of an array constant given a negative row or column is #VALUE!, one past it #REF!:
    pycel's tests/fixtures/lookup.xlsx (github.com/dgorissen/pycel, made by Excel), Index!C26:J33
    `INDEX({1,2,3,4,5;6,"X",...},$B26,C$25)` with -1 as the row or the column and G41:J41
    `INDEX({1,2;3,4},,G$40)`. The fast engine answered #REF! for the negative ones (formualizer's
    INDEX, to which such a call is left)."""
    cells = {"B1": -1, "B2": 1, "B3": 3, "C1": "=INDEX({1,2;3,4},B1,1)", "C2": "=INDEX({1,2;3,4},B2,B1)",
             "C3": "=INDEX({1,2;3,4},,B1)", "C4": "=INDEX({1,2;3,4},-1,2)", "C5": "=INDEX({1,2;3,4},B3,1)",
             "C6": "=INDEX({1,2;3,4},,B3)", "C7": "=INDEX({1,2;3,4},2,B2)", "C8": "=INDEX({1,2;3,4},B1)"}
    excel = {"C1": "#VALUE!", "C2": "#VALUE!", "C3": "#VALUE!", "C4": "#VALUE!", "C5": "#REF!", "C6": "#REF!",
             "C7": 3, "C8": "#VALUE!"}
    book = excel_saved(tmp_path / "index.xlsx", cells, excel)
    result = WorkbookCalculation(book, full=True, engine_name=engine).compute()
    assert not result.stale, result.stale
    assert {c: result.value("S", c) for c in excel} == excel


def test_yearfrac_reads_its_basis_before_its_dates(tmp_path):
    """YEARFRAC's basis decides the answer before the dates are read: pycel's
    tests/fixtures/yearfrac.xlsx (github.com/dgorissen/pycel, made by Excel), YEARFRAC!K3:U10:
    a text basis that is no number is #VALUE! (the fast engine: #NUM!), a logical or a text basis
    #VALUE! and a basis of -1 or 5 #NUM! even where a date is #DIV/0! (the engine: #DIV/0!); a
    good basis with a date in error is the date's error. The same cells are made here with
    Excel's values (formulas_test.xlsx DATE & TIME!W27 holds a text basis read as a date: #NUM!)."""
    cells = {"A1": "=1/0", "B1": "plugh", "B2": True, "B3": -1, "B4": 5, "B5": 0, "B6": "=1+#VALUE!",
             "C1": "=YEARFRAC(1,200,B1)", "C2": "=YEARFRAC(A1,200,B1)", "C3": "=YEARFRAC(A1,200,B2)",
             "C4": "=YEARFRAC(A1,200,B3)", "C5": "=YEARFRAC(1,A1,B4)", "C6": "=YEARFRAC(A1,200,B5)",
             "C7": "=YEARFRAC(1,200,B5)", "C8": "=YEARFRAC(A1,200,B6)", "C9": '=YEARFRAC(1,200,"2")'}
    excel = {"A1": "#DIV/0!", "B6": "#VALUE!", "C1": "#VALUE!", "C2": "#VALUE!", "C3": "#VALUE!", "C4": "#NUM!",
             "C5": "#NUM!", "C6": "#DIV/0!", "C7": 0.5472222222222223, "C8": "#VALUE!", "C9": 199 / 360}
    book = excel_saved(tmp_path / "yearfrac.xlsx", cells, excel)
    result = WorkbookCalculation(book, full=True).compute()
    assert not result.stale, result.stale
    assert {c: result.value("S", c) for c in excel} == pytest.approx(excel)
