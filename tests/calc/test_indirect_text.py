"""INDIRECT of a text that names no reference is #REF!, as Excel answers it (the pass
`indirect_text`, calc/formula/ranges.py; RATESXL.REFTEXT, calc/xlfuncs/lookup/reference_text.py):
formualizer answered #NAME? for a word, #VALUE! for an empty cell or a number, and for a sheet
the book does not have the cell of that address on another sheet, silently (ROW 3 for
"NonExist!W3").

Excel 16's values, cached in IronCalc's Excel-made LOOKUP_AND_REFERENCE__ROW_COLUM.xlsx
(ironcalc/IronCalc xlsx/tests/calc_tests, MIT or Apache-2.0), at the cells named; the book's
ordinary texts beside them, and a defined name and another sheet, which must still resolve."""

from __future__ import annotations

import pytest

#: (formula over A, A's text (None: an empty cell), Excel's value, the book's cell or why)
CASES = [
    ("ROW(INDIRECT(A))", "hola", "#REF!", "INDIRECT!B5"),
    ("COLUMN(INDIRECT(A))", "hola", "#REF!", "INDIRECT!C5"),
    ("INDIRECT(A)", "hola", "#REF!", "INDIRECT!D5"),
    ("ROW(INDIRECT(A))", None, "#REF!", "INDIRECT!B6"),
    ("INDIRECT(A)", None, "#REF!", "INDIRECT!D6"),
    ("ROW(INDIRECT(A))", "NonExist!W3", "#REF!", "ROW_COLUMN!K7"),
    ("COLUMN(INDIRECT(A))", "NonExist!W3", "#REF!", "ROW_COLUMN!L7"),
    ("ROW(INDIRECT(A))", "h", "#REF!", "ROW_COLUMN!K8"),
    ("ROW(INDIRECT(A))", 5, "#REF!", "ROW_COLUMN!K9"),
    ("ROW(INDIRECT(A))", "A4", 4, "ROW_COLUMN!K3"),
    ("ROW(INDIRECT(A))", "$RS34", 34, "ROW_COLUMN!K10"),
    ("ROW(INDIRECT(A))", "AA23", 23, "INDIRECT!B4"),
    ("ROW(INDIRECT(A))", "A01", 1, "INDIRECT!B8"),
    ("INDIRECT(A)", "Other!B2", 42, "another sheet of the book"),
    ("INDIRECT(A)", "'Other'!B2", 42, "another sheet of the book, quoted"),
    ("INDIRECT(A)", "answer", 42, "a defined name of the book"),
    ("SUM(INDIRECT(A))", "Other!B1:B2", 43, "an area of another sheet"),
]


@pytest.fixture(scope="module")
def computed(tmp_path_factory):
    import openpyxl
    from openpyxl.workbook.defined_name import DefinedName

    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    other = book.create_sheet("Other")
    other["B1"], other["B2"] = 1, 42
    book.defined_names["answer"] = DefinedName("answer", attr_text="Other!$B$2")
    for row, (formula, a, _excel, _cell) in enumerate(CASES, start=1):
        if a is not None:
            sheet[f"A{row}"] = a
        sheet[f"C{row}"] = "=" + formula.replace("(A)", f"(A{row})")
    path = tmp_path_factory.mktemp("indirect") / "indirect.xlsx"
    book.save(path)
    result = WorkbookCalculation(path, full=True).compute()
    assert [(s.cell, s.reason) for s in result.skipped] == []
    return result


@pytest.mark.parametrize("row", range(1, len(CASES) + 1), ids=[f"{c[0]}:{c[3]}" for c in CASES])
def test_as_excel_answers(computed, row):
    assert computed.values[("S", f"C{row}")] == CASES[row - 1][2], CASES[row - 1]


#: INDIRECT given a1 FALSE reads R1C1 text (Microsoft's INDIRECT page: "If a1 is FALSE, ref_text
#: is interpreted as an R1C1-style reference"), relative to the cell the formula is in: each in
#: C10 (row 10, column 3) of a sheet of its own, over S!B1:D3 = 1..9 row by row and the name
#: `answer` (S!B2, 4). formualizer: #REF! for each.
R1C1 = [('INDIRECT("S!R2C3",FALSE)', 5), ('INDIRECT("S!r2c3",0)', 5), ('INDIRECT("S!R[-9]C[-1]",FALSE)', 1),
        ('SUM(INDIRECT("S!R1C2:R2C3",FALSE))', 12), ('SUM(INDIRECT("S!C[-1]",FALSE))', 12),
        ('SUM(INDIRECT("S!R3",FALSE))', 24), ('INDIRECT("S!R"&ROW()-8&"C"&COLUMN(),FALSE)', 5),
        ('INDIRECT("S!B2",FALSE)', "#REF!"), ('INDIRECT("S!R0C1",FALSE)', "#REF!"),
        ('INDIRECT("answer",FALSE)', 4), ('INDIRECT("S!B2",TRUE)', 4)]


def test_r1c1_text_given_a1_false(tmp_path):
    import openpyxl
    from openpyxl.workbook.defined_name import DefinedName

    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row in range(1, 4):
        for column, letter in enumerate("BCD", start=1):
            sheet[f"{letter}{row}"] = (row - 1) * 3 + column
    book.defined_names["answer"] = DefinedName("answer", attr_text="S!$B$2")
    for i, (formula, _excel) in enumerate(R1C1):
        book.create_sheet(f"T{i}")["C10"] = "=" + formula
    book.save(tmp_path / "r1c1.xlsx")
    result = WorkbookCalculation(tmp_path / "r1c1.xlsx", full=True).compute()
    assert [result.values[(f"T{i}", "C10")] for i in range(len(R1C1))] == [excel for _, excel in R1C1]


def test_a_book_whose_sheets_are_not_known_has_its_text_passed_on():
    """Given no facts of the book (the `formulas` engine's callbacks), only a text that can name
    nothing is #REF!'s text; a sheet or a word is formualizer's to resolve."""
    from rates_xl.calc.xlfuncs.lookup.reference_text import NO_REFERENCE, reftext

    unknown = reftext({})
    assert (unknown("NonExist!W3"), unknown("hola"), unknown(""), unknown(5.0)) == (
        "NonExist!W3", "hola", NO_REFERENCE, NO_REFERENCE)
    known = reftext({"sheets": frozenset({"S"}), "names": frozenset({"ANSWER"})})
    assert (known("NonExist!W3"), known("s!A1"), known("answer"), known("R1C1", False)) == (
        NO_REFERENCE, "s!A1", "answer", "A1")
    # R1C1 relative to the formula's cell (row 5, column 5 here); unknown without it
    assert (known("RC[-1]", False, 5.0, 5.0), known("RC[-1]", False), known("B2", False)) == (
        "D5", NO_REFERENCE, NO_REFERENCE)


def test_a_name_not_defined_as_a_reference_is_no_reference(tmp_path):
    """INDIRECT reads "a name defined as a reference" (Microsoft's INDIRECT page): a name of a
    constant or a formula (a dynamic range) names none, #REF! (was 0.05 for the constant, and
    #NAME?, which COUNTIF took for an empty range: 0, silently); a range's name still reads."""
    import openpyxl
    from openpyxl.workbook.defined_name import DefinedName

    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    for row in range(1, 6):
        sheet[f"T{row}"] = row * 10
    for name, text in {"Plain": "S!$T$1:$T$5", "Konst": "0.05", "Dyn": "OFFSET(S!$T$1,0,0,COUNTA(S!$T:$T),1)"}.items():
        book.defined_names[name] = DefinedName(name, attr_text=text)
    sheet["B1"], sheet["B2"], sheet["B3"] = "Plain", "Konst", "Dyn"
    cases = {"D1": ("=SUM(INDIRECT(B1))", 150), "D2": ("=INDIRECT(B2)", "#REF!"), "D3": ("=SUM(INDIRECT(B3))", "#REF!"),
             "D4": ('=COUNTIF(INDIRECT("Dyn"),">20")', "#REF!"), "D5": ("=SUM(Dyn)", 150)}
    for cell, (formula, _) in cases.items():
        sheet[cell] = formula
    book.save(tmp_path / "names.xlsx")
    result = WorkbookCalculation(tmp_path / "names.xlsx", full=True).compute()
    assert {cell: result.values[("S", cell)] for cell in cases} == {cell: excel for cell, (_, excel) in cases.items()}
