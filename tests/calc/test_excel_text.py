"""The text family of Excel's function library, one class at a time, on a small workbook made
here from one cell of an Excel-made corpus book (`tests/calc/excel_cases.py`): the value the
calculator computes, and the one its values-frozen copy holds, must be Excel's own (cached in
the corpus book). Each case failed before its fix."""

from __future__ import annotations

import pytest

from rates_xl.calc.fidelity import same
from tests.calc.excel_cases import (
    assert_array_as_excel,
    assert_cell_as_excel,
    excel_value,
    reproduce,
)


def _frozen(path, sheet: str, cells: list[str], tmp_path) -> dict[str, object]:
    """Each of `cells` as the values-frozen copy holds it, read back as a reader of the file
    (openpyxl, as Excel's own cached values are read) sees it."""
    import openpyxl

    from rates_xl.calc.workbook import WorkbookCalculation

    calc = WorkbookCalculation(path)
    result = calc.compute()
    out = tmp_path / "frozen.xlsx"
    calc.freeze(result, out)
    copy = openpyxl.load_workbook(out, data_only=True)
    return {cell: copy[sheet][cell].value for cell in cells}


#: (class, corpus book, cell): the frozen copy holds the text as Excel stores it.
FROZEN = [
    ("CHAR(13): a carriage return is stored escaped", "formulas_test.xlsx", "CORE!B44"),
    ("CHAR(1): a control character is stored escaped", "formulas_test.xlsx", "CORE!B32"),
]


@pytest.mark.parametrize(("case", "book", "address"), FROZEN, ids=[f"{c[0]}:{c[2]}" for c in FROZEN])
def test_frozen_as_excel_stores_it(case, book, address, tmp_path):
    path, sheet, cell = reproduce(book, address, tmp_path)
    ours = _frozen(path, sheet, [cell], tmp_path)[cell]
    theirs = excel_value(book, address)
    assert same(ours, theirs), f"{case}: {address} frozen as {ours!r}, Excel stores {theirs!r}"


def test_literal_escape_text_kept_literal():
    """Text that only looks like an escape (`_x0001_` typed as such) is written with its
    underscore escaped, as Excel writes it (the corpus's CORE!B27 is `_x005F_x0001_`), so
    Excel reads back the seven characters, not CHAR(1)."""
    from rates_xl.calc.frozen import escaped

    assert escaped("_x0001_") == "_x005F_x0001_"
    assert escaped("a\rb\x01") == "a_x000D_b_x0001_"
    assert escaped("a\tb\nc") == "a\tb\nc"


#: (class, corpus book, cell): computed equal to Excel's value.
EQUAL: list[tuple[str, str, str]] = [
    ("ARRAYTOTEXT strict keeps empty text as \"\"", "formulas_test.xlsx", "TEXT!X4"),
    ("ARRAYTOTEXT strict of one empty text", "formulas_test.xlsx", "TEXT!W4"),
    ("ARRAYTOTEXT strict of one blank cell is #VALUE!", "formulas_test.xlsx", "TEXT!V4"),
    ("ARRAYTOTEXT with a format of 2 is #VALUE!", "formulas_test.xlsx", "TEXT!R4"),
    ("VALUETOTEXT with a format of -1 is #VALUE!", "formulas_test.xlsx", "TEXT!S55"),
    ("VALUETOTEXT strict with a text format \"1.99\"", "formulas_test.xlsx", "TEXT!X55"),
    ("VALUETOTEXT writes an error as its text", "formulas_test.xlsx", "TEXT!Z54"),
    ("BAHTTEXT of zero", "formulas_test.xlsx", "TEXT!R6"),
    ("BAHTTEXT of hundreds, tens and units", "formulas_test.xlsx", "TEXT!S6"),
    ("BAHTTEXT with satang", "formulas_test.xlsx", "TEXT!U6"),
    ("BAHTTEXT of a negative amount", "formulas_test.xlsx", "TEXT!V6"),
    ("BAHTTEXT of TRUE", "formulas_test.xlsx", "TEXT!Y6"),
    ("TEXTSPLIT by an empty delimiter is #VALUE!", "formulas_test.xlsx", "TEXT!V47"),
    ("TEXTSPLIT by an empty cell is #VALUE!", "formulas_test.xlsx", "TEXT!W47"),
]

#: (class, corpus book, cell): a legacy array formula reproduced as one, every cell of its
#: range computed equal to Excel's value.
ARRAY_EQUAL: list[tuple[str, str, str]] = [
    ("LEFT of an array constant with a boolean", "formulas_test.xlsx", "TEXT!AG20"),
    ("LEFT of an array constant by a range of counts", "formulas_test.xlsx", "TEXT!AH20"),
    ("MID of an array constant by ranges", "formulas_test.xlsx", "TEXT!AH25"),
    ("REPLACE in array constants", "formulas_test.xlsx", "TEXT!AH34"),
    ("RIGHT of an array constant", "formulas_test.xlsx", "TEXT!AG37"),
    ("FIND of an array constant in another", "formulas_test.xlsx", "TEXT!AH16"),
    ("ARRAYTOTEXT with a format array constant", "formulas_test.xlsx", "TEXT!AG3"),
    ("ARRAYTOTEXT with a range of formats", "formulas_test.xlsx", "TEXT!AH3"),
    ("ARRAYTOTEXT strict over a row with empty text", "formulas_test.xlsx", "TEXT!AH4"),
    ("BAHTTEXT given a range", "formulas_test.xlsx", "TEXT!AH6"),
    ("TEXTSPLIT given a range of texts", "formulas_test.xlsx", "TEXT!AH47"),
    ("TEXTSPLIT with arrays of options", "formulas_test.xlsx", "EXTRA!M28"),
    ("TEXTSPLIT by several row and column delimiters, padded", "formulas_test.xlsx", "EXTRA!J28"),
    ("TIME of a negative total is #NUM!", "formulas_test.xlsx", "DATE & TIME!AL19"),
]

#: (class, corpus book, cell): computed equal to Excel's value (Apache POI's Excel-made book).
POI = "poi_FormulaEvalTestData_Copy.xlsx"
EQUAL += [
    ("RIGHT by a count given as numeric text", POI, "EverythingTests!H1168"),
    ("LEFT by a count given as numeric text", POI, "EverythingTests!H824"),
    ("REPLACE with a start given as numeric text", POI, "EverythingTests!F1136"),
    ("RIGHT by a count past the text's length", POI, "EverythingTests!F1168"),
    ("SUBSTITUTE of an empty old text", POI, "EverythingTests!P1312"),
]
ARRAY_EQUAL += [
    ("SUBSTITUTE over ranges of old texts, new texts and instances", "formulas_test.xlsx", "CORE!U14"),
    ("PIVOTBY with an eta-reduced IF (called with one argument: #VALUE!)", "formulas_test.xlsx", "EXTRA!H100"),
]


@pytest.mark.parametrize(("case", "book", "address"), EQUAL, ids=[f"{c[0]}:{c[2]}" for c in EQUAL])
def test_computed_as_excel_does(case, book, address, tmp_path):
    assert_cell_as_excel(case, book, address, tmp_path)


@pytest.mark.parametrize(("case", "book", "address"), ARRAY_EQUAL,
                         ids=[f"{c[0]}:{c[2]}" for c in ARRAY_EQUAL])
def test_array_formula_computed_as_excel_does(case, book, address, tmp_path):
    assert_array_as_excel(case, book, address, tmp_path)


def test_regexextract_of_every_match_over_ranges_beside_a_value(tmp_path):
    """REGEXEXTRACT's every match (mode 1) over a range, as a legacy array formula with a value
    beside it (formulas_test EXTRA!J3:J4, K3 holds a formula): each cell is the first match of
    its element. Lifted cell by cell, each cell spilled its matches into K3: #SPILL!."""
    import openpyxl

    book, address = "formulas_test.xlsx", "EXTRA!J3"
    path, sheet, _cell = reproduce(book, address, tmp_path, as_array=True)
    made = openpyxl.load_workbook(path)
    made[sheet]["K3"] = "beside"
    made.save(path)
    assert_array_as_excel("REGEXEXTRACT beside a value", book, address, tmp_path, path=path)


def test_array_constant_in_an_ordinary_cell_is_listed_not_spilled(tmp_path):
    """`LEFT({"ab","cd"},1)` as an ordinary formula (no array range): Excel's implicit
    intersection, which the engine cannot write out for an array constant: listed as not
    computed, never a spill blocked by the value beside it (#SPILL!) without a word."""
    import openpyxl

    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    sheet = book.active
    sheet["A1"] = '=LEFT({"ab","cd"},1)'
    sheet["B1"] = 5
    sheet["A2"] = '=FIND("b",{"ab","cb"})'
    path = tmp_path / "ordinary.xlsx"
    book.save(path)
    result = WorkbookCalculation(path, full=True).compute()
    listed = {s.cell: s.reason for s in result.skipped}
    assert "LEFT given an array constant" in listed.get("A1", ""), (result.values, listed)
    assert "FIND given an array constant" in listed.get("A2", ""), (result.values, listed)
