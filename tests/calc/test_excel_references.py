"""Excel's reference functions (ISFORMULA, INDEX, ADDRESS, ROWS, COLUMNS ...) on small
workbooks made here from cells of an Excel-made corpus book: the formulas and values of the
cells they read copied as they are in the corpus book (a formula stays a formula: ISFORMULA
reads which cells hold one), and Excel's answer read from the corpus book at test time.
Each case failed before its fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rates_xl.calc.fidelity import same
from tests.calc.excel_cases import corpus_workbook, excel_value


def _copy(name: str, sheet: str, areas: list[str], tmp: Path) -> Path:
    """A new book with one sheet, `sheet`, holding what the corpus book holds in `areas`:
    formulas as formulas (array formulas over their stored range), other cells' values."""
    import openpyxl
    from openpyxl.worksheet.formula import ArrayFormula

    source = corpus_workbook(name)[sheet]
    values = corpus_workbook(name, data_only=True)[sheet]
    book = openpyxl.Workbook()
    target = book.active
    target.title = sheet
    for area in areas:
        for line in source[area] if ":" in area else [[source[area]]]:
            for cell in line:
                value = cell.value
                if isinstance(value, ArrayFormula):
                    target[cell.coordinate] = ArrayFormula(value.ref, value.text)
                elif cell.data_type == "f":
                    target[cell.coordinate] = value
                elif values[cell.coordinate].value is not None and target[cell.coordinate].value is None:
                    target[cell.coordinate] = values[cell.coordinate].value
    path = tmp / f"{sheet}.xlsx"
    book.save(path)
    return path


def _computed(path: Path, sheet: str, cells: list[str]) -> tuple[dict[str, Any], list[Any]]:
    from rates_xl.calc.workbook import WorkbookCalculation

    result = WorkbookCalculation(path, full=True).compute()
    listed = [s for s in result.skipped if s.sheet == sheet and s.cell in cells]
    return {cell: result.values.get((sheet, cell)) for cell in cells}, listed


def _cells(area: str) -> list[str]:
    from openpyxl.utils.cell import get_column_letter, range_boundaries

    c1, r1, c2, r2 = range_boundaries(area)
    return [f"{get_column_letter(c)}{r}" for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)]


#: (class, corpus book, sheet, the areas copied, the formula cells compared with Excel's).
CASES = [
    ("ISFORMULA of a cell holding a constant formula (=10, =#VALUE!) is TRUE",
     "formulas_test.xlsx", "INFORMATION", ["C10:K10", "U10:Z10"], "U10:Z10"),
    ("ISFORMULA over a range: anchors and every cell of a legacy array range are formulas",
     "formulas_test.xlsx", "EXTRA", ["BF70:BG74", "BB78", "BC75:BD93", "BG76"], "BG76:BH94"),
    ("ISFORMULA over a row in a legacy array range wider than it (#N/A past its end)",
     "formulas_test.xlsx", "INFORMATION", ["C10:K10", "AH10"], "AH10:AW10"),
    ("ADDRESS with an empty sheet_text, R1C1 style and a quoted sheet name",
     "formulas_test.xlsx", "LOOKUP", ["C3:Q3", "S3:AF3"], "S3:AF3"),
    ("ADDRESS given a range in array formulas: each element, #N/A past its end",
     "formulas_test.xlsx", "LOOKUP", ["C3:Q3", "AG3:AH3"], "AG3:AW3"),
    ("ADDRESS of another workbook's sheet: [Book1]Sheet1 unquoted",
     "poi_FormulaEvalTestData_Copy.xlsx", "EverythingTests", ["D128:F128"], "D128:F128"),
    ("ROWS of a union (#REF!), an empty intersection (#NULL!) and an intersection",
     "formulas_test.xlsx", "LOOKUP", ["C115:W115"], "R115:W115"),
    ("COLUMNS of a union (#REF!), an empty intersection (#NULL!) and an intersection",
     "formulas_test.xlsx", "LOOKUP", ["C15:W15"], "R15:W15"),
    ("ANCHORARRAY of an array formula the engine computes cell by cell reads its range",
     "formulas_test.xlsx", "CORE", ["AB4:AB5", "AC4", "AD4"], "AD4:AD5"),
]


@pytest.mark.parametrize(("case", "book", "sheet", "areas", "compared"), CASES, ids=[c[0] for c in CASES])
def test_reference_function_as_excel(case, book, sheet, areas, compared, tmp_path):
    path = _copy(book, sheet, areas, tmp_path)
    cells = _cells(compared)
    ours, listed = _computed(path, sheet, cells)
    theirs = {cell: excel_value(book, f"{sheet}!{cell}") for cell in cells}
    differ = {cell: (ours[cell], theirs[cell]) for cell in cells if not same(ours[cell], theirs[cell])}
    assert not listed and not differ, f"{case}: (ours, Excel's) {differ}; listed {listed}"


def test_range_of_three_corners_reads_its_box_only(tmp_path):
    """`ROW(Z112:AA113:AF112:AF113 AB113:AD114)` (formulas_test.xlsx LOOKUP!AT112) reads the
    smallest range holding its parts: a cell found wrong elsewhere in the book does not make it
    stale (it was, as a formula whose references could not be followed), one inside does."""
    import openpyxl

    from rates_xl.calc.book import Book
    from rates_xl.calc.dependencies import Graph

    formula = corpus_workbook("formulas_test.xlsx")["LOOKUP"]["AT112"].value
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "LOOKUP"
    sheet["AT112"] = getattr(formula, "text", formula)
    sheet["B2"] = "=1+1"  # elsewhere
    sheet["AC112"] = "=2+2"  # inside the box Z112:AF114
    path = tmp_path / "three_corners.xlsx"
    book.save(path)
    graph = Graph(Book(path))
    assert ("LOOKUP", "AT112") not in graph.downstream({("LOOKUP", "B2")})
    assert ("LOOKUP", "AT112") in graph.downstream({("LOOKUP", "AC112")})


def test_a_name_defined_as_an_intersection_reads_its_cell(tmp_path):
    """formulas_test.xlsx's `h` is `CORE!$K$4:$K$6 CORE!$J$5:$L$5` (K5); the engine answered
    #VALUE! for `=h` and #NAME? for `i` = SUM(..., h), `l` = h+i, defined on it."""
    import openpyxl
    from openpyxl.workbook.defined_name import DefinedName

    from rates_xl.calc.workbook import WorkbookCalculation

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "My sheet"
    for row in range(4, 7):
        for col in "JKL":
            ws[f"{col}{row}"] = 1
    ws["K5"], ws["M4"] = 5, 6
    wb.defined_names["h"] = DefinedName("h", attr_text="'My sheet'!$K$4:$K$6 'My sheet'!$J$5:$L$5")
    wb.defined_names["i"] = DefinedName("i", attr_text="SUM('My sheet'!$M$4,h)")
    wb.defined_names["l"] = DefinedName("l", attr_text="h+i")
    ws["A1"], ws["A2"], ws["A3"] = "=h", "=i", "=l"
    path = tmp_path / "names.xlsx"
    wb.save(path)
    values = WorkbookCalculation(path).compute().values
    assert [values[("My sheet", a)] for a in ("A1", "A2", "A3")] == [5, 11, 16]
