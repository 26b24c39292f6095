"""Small workbooks reproducing one formula cell of an Excel-made corpus book
(`../shared/corpus/excel/`): the formula, and every cell it reads at the value Excel cached,
in a fresh book made here; Excel's answer is the value cached in the corpus book, read at
test time (never typed into a test)."""

from __future__ import annotations

import re
import shutil
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.support.excel_corpus import CORPUS

_REF = re.compile(r"(?:(?P<sheet>'(?:[^']|'')+'|[A-Za-z_][\w.]*)!)?"
                  r"(?P<a>\$?[A-Z]{1,3}\$?\d+)(?::(?P<b>\$?[A-Z]{1,3}\$?\d+))?")
_books: dict[tuple[str, bool], Any] = {}


def corpus_book(name: str) -> Path:
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"{path} is absent (Excel-made corpus, read from ../shared at test time)")
    return path


def _load(name: str, data_only: bool) -> Any:
    import openpyxl

    key = (name, data_only)
    if key not in _books:
        _books[key] = openpyxl.load_workbook(corpus_book(name), data_only=data_only)
    return _books[key]


def corpus_workbook(name: str, *, data_only: bool = False) -> Any:
    """Corpus book `name` as openpyxl reads it (its formulas, or with `data_only` the values
    Excel cached), loaded once per test process and shared (formulas_test.xlsx takes ~0.5 s
    of CPU a load): read it, never change it."""
    return _load(name, data_only)


def excel_value(name: str, address: str) -> Any:
    sheet, cell = address.rsplit("!", 1)
    return _load(name, True)[sheet.strip("'")][cell].value


def serial(value: Any) -> Any:
    """A date openpyxl read from a corpus book as Excel's serial (1900 system); any other value
    as it is."""
    import datetime

    if isinstance(value, datetime.datetime):
        return float((value - datetime.datetime(1899, 12, 30)).days)
    return value


def date_serial(year: int, month: int, day: int) -> float:
    """Excel's serial of a date after February 1900."""
    import datetime

    return float((datetime.date(year, month, day) - datetime.date(1899, 12, 30)).days)


def reproduce(name: str, address: str, tmp: Path, *, as_array: bool = False) -> tuple[Path, str, str]:
    """A new workbook with the formula at `address` of corpus book `name` and the cached
    values of the cells it reads; returns (path, sheet, cell). The book records the same
    application as the original (CHAR and CODE depend on it). With `as_array`, an array
    formula stays one over the same range (a legacy Ctrl+Shift+Enter array)."""
    import openpyxl
    from openpyxl.utils.cell import range_boundaries

    sheet, cell = address.rsplit("!", 1)
    sheet = sheet.strip("'")
    formulas, values = _load(name, False), _load(name, True)
    formula = formulas[sheet][cell].value
    text = formula.text if hasattr(formula, "text") else formula
    book = openpyxl.Workbook()
    book.active.title = sheet
    stripped = re.sub(r'"(?:[^"]|"")*"', '""', text)
    for match in _REF.finditer(stripped):
        source = (match.group("sheet") or sheet).strip("'").replace("''", "'")
        if source not in values.sheetnames:
            continue
        ref = match.group("a") + (":" + match.group("b") if match.group("b") else "")
        c1, r1, c2, r2 = range_boundaries(ref.replace("$", ""))
        target = book[source] if source in book.sheetnames else book.create_sheet(source)
        for r in range(r1, r2 + 1):
            for c in range(c1, c2 + 1):
                if (r, c) == (formulas[sheet][cell].row, formulas[sheet][cell].column) and source == sheet:
                    continue
                value = values[source].cell(row=r, column=c).value
                if isinstance(value, str) and value.startswith("="):
                    value = value  # text that looks like a formula: kept as text below
                if value == "":  # empty text (openpyxl would write a plain "" as a blank cell)
                    from openpyxl.cell.rich_text import CellRichText

                    value = CellRichText([""])
                target.cell(row=r, column=c).value = value
                if isinstance(value, str) and value.startswith("#"):
                    target.cell(row=r, column=c).data_type = "e"
    book[sheet][cell] = text
    if as_array and hasattr(formula, "ref"):
        from openpyxl.worksheet.formula import ArrayFormula

        book[sheet][cell] = ArrayFormula(formula.ref, text)
    path = tmp / f"case_{cell}.xlsx"
    from rates_xl.calc import xlsx_writer

    # (calc's writer: each number as Excel wrote it; openpyxl's save writes 16 digits, and
    # -0.39999999999999947 read as another double: formulas_test.xlsx EXTRA!E64)
    xlsx_writer.save(book, path)
    _same_application(corpus_book(name), path)
    return path, sheet, cell


def _same_application(original: Path, made: Path) -> None:
    with zipfile.ZipFile(original) as package:
        app = package.read("docProps/app.xml").decode("utf-8")
    application = re.search(r"<Application>([^<]*)</Application>", app)
    if application is None:
        return
    copy = made.with_suffix(".tmp")
    with zipfile.ZipFile(made) as src, zipfile.ZipFile(copy, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "docProps/app.xml":
                text = re.sub(r"<Application>[^<]*</Application>", application.group(0),
                              data.decode("utf-8"))
                data = text.encode("utf-8")
            dst.writestr(item, data)
    shutil.move(copy, made)


def computed(path: Path, sheet: str, cell: str, *, reasons: bool = False, engine: str = "auto") -> tuple[Any, Any]:
    """(our value, whether it was listed as not computed; with `reasons`, the reason or "")."""
    from rates_xl.calc.workbook import WorkbookCalculation

    calc = WorkbookCalculation(path, engine_name=engine)
    result = calc.compute()
    listed = [s.reason for s in result.skipped if (s.sheet, s.cell) == (sheet, cell)]
    return result.values.get((sheet, cell)), (listed[0] if listed else "") if reasons else bool(listed)


def cases_computed(path: Path, cells: dict[str, Any]) -> Any:
    """A book of one sheet, "S", holding `cells` (address -> a value, or a formula's text or an
    openpyxl ArrayFormula), computed in full; its result (calc/results.py `CalcResult`), every
    formula computed (none listed as not computed)."""
    return sheets_computed(path, {"S": cells})


def sheets_computed(path: Path, sheets: dict[str, dict[str, Any]], *, listing: bool = False) -> Any:
    """`cases_computed` of a book of several sheets (title -> its cells, the first one first);
    with `listing`, cells listed as not computed are allowed (the result's `skipped`)."""
    import openpyxl

    from rates_xl.calc.workbook import WorkbookCalculation

    book = openpyxl.Workbook()
    for number, (title, cells) in enumerate(sheets.items()):
        sheet = book.active if number == 0 else book.create_sheet()
        sheet.title = title
        for address, value in cells.items():
            if value is not None:
                sheet[address] = value
    book.save(path)
    result = WorkbookCalculation(path, full=True).compute()
    if not listing:
        assert [(s.cell, s.reason) for s in result.skipped] == []
    return result


def rows_computed(path: Path, cases: Sequence[Sequence[Any]], arguments: str = "AB") -> Any:
    """`cases_computed` of a book holding one case a row: each case's first item a formula over
    the letters of `arguments` ("LOG(A,B)"), its next items their values (None: an empty cell),
    in those columns; the formula, written over the row's own cells (LOG(A1,B1) in row 1), in the
    column after them."""
    cells: dict[str, Any] = {}
    answer = chr(ord(arguments[-1]) + 1)
    for row, case in enumerate(cases, start=1):
        formula = str(case[0])
        for at, letter in enumerate(arguments):
            cells[f"{letter}{row}"] = case[1 + at]
            before = "(" if at == 0 else ","
            formula = formula.replace(f"{before}{letter}", f"{before}{letter}{row}")
        cells[f"{answer}{row}"] = "=" + formula
    return cases_computed(path, cells)


def dynamic_arrays_computed(path: Path, cases: Sequence[Sequence[Any]]) -> Any:
    """A book of one sheet, "S", holding each case's formula (its second item) as a dynamic
    array at its cell (its first) over the shape of Excel's values (its third, by row), written by
    XlsxWriter as Excel writes one, computed in full; its result, every formula computed."""
    import xlsxwriter
    from openpyxl.utils.cell import range_boundaries

    from rates_xl.calc.workbook import WorkbookCalculation

    book = xlsxwriter.Workbook(path)
    sheet = book.add_worksheet("S")
    for cell, formula, excel, *_rest in cases:
        left, top, _right, _bottom = range_boundaries(cell)
        sheet.write_dynamic_array_formula(top - 1, left - 1, top - 2 + len(excel), left - 2 + len(excel[0]), formula)
    book.close()
    result = WorkbookCalculation(path, full=True).compute()
    assert [(s.cell, s.reason) for s in result.skipped] == []
    return result


def spilled(result: Any, cell: str, shape: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """The values of sheet "S" from `cell` over the shape of `shape` (rows)."""
    from openpyxl.utils.cell import (
        column_index_from_string,
        coordinate_from_string,
        get_column_letter,
    )

    letters, row = coordinate_from_string(cell)
    column = column_index_from_string(letters)
    return [[result.values.get(("S", f"{get_column_letter(column + j)}{row + i}")) for j in range(len(line))]
            for i, line in enumerate(shape)]


def array_range(name: str, address: str) -> list[str]:
    """Every cell of the legacy array formula anchored at `address` of corpus book `name`."""
    from openpyxl.utils.cell import get_column_letter, range_boundaries

    sheet, cell = address.rsplit("!", 1)
    formula = _load(name, False)[sheet.strip("'")][cell].value
    c1, r1, c2, r2 = range_boundaries(getattr(formula, "ref", None) or cell)
    return [f"{get_column_letter(c)}{r}" for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)]


def computed_cells(path: Path, sheet: str, cells: list[str]) -> tuple[dict[str, Any], bool]:
    """(our value of each of `cells`, whether any was listed as not computed)."""
    from rates_xl.calc.workbook import WorkbookCalculation

    result = WorkbookCalculation(path).compute()
    listed = any(s.sheet == sheet and s.cell in cells for s in result.skipped)
    return {cell: result.values.get((sheet, cell)) for cell in cells}, listed


def corpus_cells_against_excel(name: str, wanted: Callable[[str], bool]) -> tuple[list[tuple[str, str]], list[Any]]:
    """The corpus book `name` computed whole: its formula cells whose text `wanted` accepts and
    that are not listed, and those of them whose value differs from Excel's cached one (cell,
    ours, Excel's)."""
    import openpyxl

    from rates_xl.calc.fidelity import same
    from rates_xl.calc.workbook import WorkbookCalculation

    path = corpus_book(name)
    calc = WorkbookCalculation(path, full=True)
    result = calc.compute()
    cached = openpyxl.load_workbook(path, data_only=True)
    listed = {(s.sheet, s.cell) for s in [*result.skipped, *result.stale]}
    cells = [key for key, text in calc.formula_texts().items() if wanted(text) and key not in listed]
    differ = [(key, result.values.get(key), cached[key[0]][key[1]].value) for key in cells
              if not same(result.values.get(key), cached[key[0]][key[1]].value)]
    return cells, differ


def equal(ours: Any, theirs: Any, *, strict: bool = False) -> bool:
    """Excel's value (`calc/fidelity.py` `same`); `strict`: also as the engine's own check
    against Excel reads it (`calc/check.py`: 1e-9 relative, no absolute slack), for the
    classes whose answers are tiny numbers (PPMT's 3.2E-11, SKEW.P's -6.2e-16)."""
    from rates_xl.calc.check import agrees
    from rates_xl.calc.fidelity import same

    return same(ours, theirs) and (not strict or agrees(ours, theirs))


def assert_cell_as_excel(case: str, book: str, address: str, tmp: Path, *, strict: bool = False,
                         engine: str = "auto") -> None:
    """The corpus cell `address`, made again in a small book, is computed to Excel's value (by
    `engine`) and not listed."""
    path, sheet, cell = reproduce(book, address, tmp)
    ours, listed = computed(path, sheet, cell, reasons=True, engine=engine)
    theirs = excel_value(book, address)
    assert not listed and equal(ours, theirs, strict=strict), \
        f"{case}: {address} gave {ours!r}, Excel {theirs!r} {listed}"


def assert_array_as_excel(case: str, book: str, address: str, tmp: Path, *, strict: bool = False,
                          path: Path | None = None) -> None:
    """Every cell of the legacy array formula anchored at `address`, made again over the same
    range (or in `path`, a book made so already), is computed to Excel's value, none listed."""
    sheet = address.rsplit("!", 1)[0].strip("'")
    if path is None:
        path, sheet, _cell = reproduce(book, address, tmp, as_array=True)
    cells = array_range(book, address)
    ours, listed = computed_cells(path, sheet, cells)
    theirs = {cell: excel_value(book, f"{sheet}!{cell}") for cell in cells}
    differ = {cell: (ours[cell], theirs[cell]) for cell in cells
              if not equal(ours[cell], theirs[cell], strict=strict)}
    assert not listed and not differ, f"{case}: {address} (ours, Excel's): {differ}"
