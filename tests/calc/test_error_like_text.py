"""Text that reads as an error value is text (issue 30, point 6): `VALUETOTEXT(#N/A)` is the
text "#N/A" in Excel (ISTEXT TRUE; the file stores a string, `t="str"`), not the error. The
engines, the check against Excel, the summary's error cells, the values-frozen copy, a replay's
copy and `rates-xl diff` keep the two apart (functions/values.py `ErrorLikeText`); openpyxl's
setter alone would store such text as an error cell (`t="e"`), silently."""

from __future__ import annotations

import zipfile

import openpyxl
import pytest

from rates_xl.calc.workbook import WorkbookCalculation
from rates_xl.functions.values import ErrorLikeText, is_error_text
from rates_xl.sandbox import PAID_KEY
from tests.calc.excel_cases import corpus_book
from tests.support.commands import fresh_env, rates_xl

#: formulas_test.xlsx TEXT rows 54 and 55: VALUETOTEXT (formats 0 and 1) of C..Q (numbers, a
#: blank, a date, TRUE, and the seven error values), cell by cell in R..AF and as a legacy
#: array over AH..AW (16 cells for 15 values: AW is #N/A, the error, in Excel).
ROWS = (54, 55)
INPUTS = range(3, 18)  # C..Q
FORMULAS = range(18, 50)  # R..AW


def _corpus_rows(tmp_path):
    """The two rows made again in a fresh book: inputs at Excel's values (errors as error
    cells), the formulas as the corpus holds them; and the corpus's own (value, type) of each
    formula cell, Excel's answer read at test time."""
    from openpyxl.worksheet.formula import ArrayFormula

    source = corpus_book("formulas_test.xlsx")
    formulas = openpyxl.load_workbook(source)["TEXT"]
    values = openpyxl.load_workbook(source, data_only=True)["TEXT"]
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "TEXT"
    excel = {}
    for r in ROWS:
        for c in INPUTS:
            cell, given = values.cell(row=r, column=c), sheet.cell(row=r, column=c)
            given.value = cell.value
            given.data_type = cell.data_type if cell.value is not None else given.data_type
        for c in FORMULAS:
            formula, cached = formulas.cell(row=r, column=c), values.cell(row=r, column=c)
            if isinstance(formula.value, ArrayFormula) or (isinstance(formula.value, str) and formula.value.startswith("=")):
                sheet.cell(row=r, column=c).value = formula.value
            excel[cached.coordinate] = (cached.value, cached.data_type)
    path = tmp_path / "valuetotext.xlsx"
    book.save(path)
    return path, excel


def test_valuetotext_of_an_error_is_text_in_the_copy_as_in_excel(tmp_path):
    """The 27 cells of formulas_test.xlsx whose text reads as an error value (TEXT!AA54:AF54,
    AP54:AV54, Z55:AF55, AP55:AV55) are string cells in the copy, as in Excel's file; AW54 and
    AW55, past the array's 15 values, stay the error #N/A; none is an error cell in the summary."""
    path, excel = _corpus_rows(tmp_path)
    reading = {cell for cell, (value, kind) in excel.items() if kind == "s" and is_error_text(str(value))}
    assert len(reading) == 27  # the corpus as the issue counts it
    calc = WorkbookCalculation(path, full=True)
    result = calc.compute()
    assert not result.skipped and not result.stale
    errors = {e.cell for e in result.errors}
    assert not errors & reading
    for cell in reading:
        assert isinstance(result.values[("TEXT", cell)], ErrorLikeText), cell
    out = calc.freeze(result, tmp_path / "copy.xlsx")
    copy = openpyxl.load_workbook(out, data_only=True)["TEXT"]
    differ = {cell: ((copy[cell].value, copy[cell].data_type), theirs) for cell, theirs in excel.items()
              if (copy[cell].value, copy[cell].data_type) != theirs and theirs[0] is not None}
    assert differ == {}
    assert excel["AW54"] == ("#N/A", "e") and copy["AW54"].data_type == "e"


def test_a_string_cell_reading_n_a_is_text_to_the_formulas_that_read_it(tmp_path):
    """A typed "#N/A" (a string cell) and `="#REF!"` are text to ISTEXT and ISERROR, in the
    engine's copy of a kept cell too (a cell not recomputed is held at its cached text)."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    sheet["A1"] = "#N/A"
    sheet["A1"].data_type = "s"
    sheet["B1"], sheet["C1"], sheet["D1"] = "=ISTEXT(A1)", "=ISERROR(A1)", "=A1"
    sheet["A2"], sheet["B2"], sheet["C2"] = '="#REF!"', "=ISTEXT(A2)", "=ISERR(A2)"
    book.save(tmp_path / "typed.xlsx")
    calc = WorkbookCalculation(tmp_path / "typed.xlsx")
    result = calc.compute()
    values = {cell: result.values.get(("S", cell)) for cell in ("B1", "C1", "D1", "A2", "B2", "C2")}
    assert values == {"B1": True, "C1": False, "D1": "#N/A", "A2": "#REF!", "B2": True, "C2": False}
    assert isinstance(values["D1"], ErrorLikeText) and not result.errors
    copy = openpyxl.load_workbook(calc.freeze(result, tmp_path / "copy.xlsx"), data_only=True)["S"]
    assert [copy[c].data_type for c in ("A1", "D1", "A2")] == ["s", "s", "s"]


def test_a_replay_and_a_diff_keep_the_text_apart_from_the_error(tmp_path, sandbox):
    """A RATES_ book with a text "#N/A" beside an error #N/A: the replay's copy stores the same
    string and error cells as the first copy, the pack's check of each copy's cells holds, and
    diff finds nothing moved; a copy where the text became the error is a moved cell."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Rates"
    sheet["A1"] = '=RATES_SWAP("SOFR","0D","10Y","1Y")'
    sheet["B1"] = '=IF(A1>0,_xlfn.VALUETOTEXT(NA()),"none")'  # the text "#N/A"
    sheet["C1"] = "=IF(A1>0,NA(),0)"  # the error
    sheet["D1"] = "=ISTEXT(B1)"
    book.save(tmp_path / "book.xlsx")
    env = fresh_env(tmp_path / "home", RATES_BASE_URL=sandbox.base_url, RATES_API_KEY=PAID_KEY)
    first = rates_xl("calc", "book.xlsx", "--no-progress", cwd=tmp_path, env=env)
    assert first.returncode == 3 and "Rates!C1: #N/A" in first.stdout and "Rates!B1" not in first.stdout
    again = rates_xl("calc", "book.xlsx", "--replay", "book.values.xlsx", "-o", "replayed.xlsx", "--no-progress",
                     cwd=tmp_path, env=env)
    assert again.returncode == 3, again.stdout + again.stderr
    for name in ("book.values.xlsx", "replayed.xlsx"):
        cells = _cell_xml(tmp_path / name)
        assert 't="e"' not in cells["B1"] and ">#N/A<" in cells["B1"], (name, cells["B1"])
        assert 't="e"' in cells["C1"], (name, cells["C1"])
        assert cells["D1"].count("<v>1</v>") == 1
    quiet = rates_xl("diff", "book.values.xlsx", "replayed.xlsx", cwd=tmp_path, env=env)
    assert quiet.returncode == 0 and "0 cells moved" in quiet.stdout, quiet.stdout
    from rates_xl.calc.diff import copy_values

    values = copy_values(tmp_path / "replayed.xlsx")
    assert isinstance(values[("Rates", "B1")], ErrorLikeText)
    assert is_error_text(values[("Rates", "C1")])


def _cell_xml(path) -> dict[str, str]:
    import re

    with zipfile.ZipFile(path) as package:
        xml = package.read("xl/worksheets/sheet1.xml").decode("utf-8")
    return {m.group(1): m.group(0) for m in re.finditer(r'<c r="([A-Z]+1)"[^>]*?(?:/>|>.*?</c>)', xml)}


@pytest.mark.parametrize("text", ["#N/A", "#DIV/0!", "#GETTING_DATA"])
def test_the_check_and_the_measure_tell_text_from_the_error(text):
    from rates_xl.calc.check import agrees, shown
    from rates_xl.calc.fidelity import same

    assert agrees(ErrorLikeText(text), ErrorLikeText(text)) and agrees(text, text)
    assert not agrees(ErrorLikeText(text), text) and not agrees(text, ErrorLikeText(text))
    assert not same(ErrorLikeText(text), text) and same(ErrorLikeText(text), ErrorLikeText(text))
    assert shown(ErrorLikeText(text)) == repr(text) and shown(text) == text
