"""A table many VLOOKUP/HLOOKUP calls read is handed to Python once (calc/engines/formualizer/
lookups.py): the answers are those of the calls as written, a change in the table reaches
them, and the helper sheet stays in the engine's copy."""

from __future__ import annotations

import io

import openpyxl
import pytest
from openpyxl.workbook.properties import CalcProperties

from rates_xl.calc.engines.formualizer import lookups
from rates_xl.calc.workbook import WorkbookCalculation


def _book(path, extra=None):
    wb = openpyxl.Workbook()
    data = wb.active
    data.title = "My data"
    for n in range(1, 101):
        # Mixed keys: numbers, text in another case, a text number, an error, an empty row.
        key = n if n % 7 else f"K{n}"
        data.append([key, n * 10, f"v{n}" if n % 5 else None])
    data["A50"] = "50"  # text, not the number 50
    data["A60"] = "=1/0"
    data["A61"] = None
    for c in range(1, 41):  # a wide table for HLOOKUP
        data.cell(row=102, column=c, value=c)
        data.cell(row=103, column=c, value=c * c)
    report = wb.create_sheet("Report")
    for n in range(1, 101):
        report[f"A{n}"] = f"=VLOOKUP({n},'My data'!$A:$C,2,FALSE)"
        report[f"B{n}"] = f"=IFERROR(VLOOKUP(\"k{n}\",'My data'!$A$1:$C$100,3,0),\"none\")"
        report[f"C{n}"] = f"=VLOOKUP({n}+0.5,'My data'!$A$1:$C$100,2)"  # approximate, 4th omitted
        report[f"D{n}"] = f"=HLOOKUP({n % 45},'My data'!$A$102:$AN$103,2,FALSE)"
        report[f"E{n}"] = f"=VLOOKUP(A{n}/10,'My data'!$A:$C,{1 + n % 4},FALSE)"  # 4: #REF!
    report["F1"] = "=VLOOKUP(1/0,'My data'!$A:$C,2,FALSE)"
    report["F2"] = "=VLOOKUP(\"50\",'My data'!$A:$C,2,FALSE)"
    report["F3"] = "=VLOOKUP(50,'My data'!$A:$C,2,FALSE)"
    report["F4"] = "=VLOOKUP(3,'My data'!$A$1:$B$3,2,FALSE)"  # a small table: left as written
    if extra:
        report["G1"] = extra
    path.parent.mkdir(parents=True, exist_ok=True)
    wb.save(path)
    return path


def _values(path, monkeypatch, shared):
    if not shared:
        monkeypatch.setattr(lookups, "SMALLEST", 10**12)
    calculation = WorkbookCalculation(path, full=True)
    result = calculation.compute()
    monkeypatch.undo()
    return calculation, {(s, c): result.value(s, c) for s, c in calculation.source.cells if s == "Report"}


def test_shared_tables_answer_as_the_calls_written(tmp_path, monkeypatch):
    path = _book(tmp_path / "lookups.xlsx")
    calculation, shared = _values(path, monkeypatch, shared=True)
    written = calculation.engine.prepared.written
    helpers = sorted(text for (sheet, _r, _c), text in written.items() if sheet == lookups.HELPER_SHEET)
    assert helpers == ["=RATESXL.TABLE('My data'!$A$102:$AN$103,1)", "=RATESXL.TABLE('My data'!$A$1:$C$100,2)",
                       "=RATESXL.TABLE('My data'!$A:$C,3)"]
    assert written[("Report", 1, 1)] == "=RATESXL.VLOOKUPIN(1,_rates_xl_lookups!$A$3,2,FALSE)"
    assert written[("Report", 4, 6)] == "=VLOOKUP(3,'My data'!$A$1:$B$3,2,FALSE)"
    _plain, plain = _values(path, monkeypatch, shared=False)
    assert not any(sheet == lookups.HELPER_SHEET for sheet, _r, _c in _plain.engine.prepared.written)
    assert shared == plain  # every answer, errors included, as the calls as written give it
    assert shared[("Report", "A3")] == 30 and shared[("Report", "A7")] == "#N/A"  # K7 is text
    assert shared[("Report", "B14")] == "v14" and shared[("Report", "B35")] == 0  # an empty cell is 0
    assert shared[("Report", "D12")] == 144 and shared[("Report", "E3")] == "#REF!"
    assert [shared[("Report", f"F{r}")] for r in (1, 2, 3)] == ["#DIV/0!", 500, "#N/A"]


def test_a_change_in_the_table_reaches_the_lookups(tmp_path):
    calculation = WorkbookCalculation(_book(tmp_path / "lookups.xlsx"), full=True)
    engine = calculation.engine
    engine.hold({("My data", "B5"): 999, ("My data", "B103"): -1})
    values = engine.evaluate()
    assert values[("Report", "A5")] == 999 and values[("Report", "D2")] == -1
    engine.release({("My data", "B5"), ("My data", "B103")})
    values = engine.evaluate()
    assert values[("Report", "A5")] == 50 and values[("Report", "D2")] == 4


@pytest.mark.parametrize("extra", ["=SHEETS()", "=SHEET(Report!A1)"])
def test_a_book_asking_about_its_sheets_is_left_alone(tmp_path, extra):
    calculation = WorkbookCalculation(_book(tmp_path / "sheets.xlsx", extra), full=True)
    written = calculation.engine.prepared.written
    assert not any(sheet == lookups.HELPER_SHEET for sheet, _r, _c in written)
    assert written[("Report", 1, 1)] == "=VLOOKUP(1,'My data'!$A:$C,2,FALSE)"


def test_the_copy_has_no_helper_sheet(tmp_path):
    path = _book(tmp_path / "lookups.xlsx")
    calculation = WorkbookCalculation(path, full=True)
    out = tmp_path / "copy.xlsx"
    calculation.freeze(calculation.compute(), out)
    assert openpyxl.load_workbook(out).sheetnames == ["My data", "Report"]
    assert openpyxl.load_workbook(out, data_only=True)["Report"]["A9"].value == 90


def test_the_helpers_are_set_once_loaded(tmp_path):
    """The engine's copy holds the helper sheet empty (loading the helpers from the file cost
    formualizer a walk of their readers for every INDIRECT cell in their tables); the engine
    sets their formulas once it has loaded it, and the answers are the calls' (above)."""
    calculation = WorkbookCalculation(_book(tmp_path / "lookups.xlsx"), full=True)
    prepared = calculation.engine.prepared
    copy = openpyxl.load_workbook(io.BytesIO(prepared.data))
    assert copy.sheetnames[-1] == lookups.HELPER_SHEET
    assert not any(cell.value for row in copy[lookups.HELPER_SHEET].iter_rows() for cell in row)
    helpers = {key: text for key, text in prepared.written.items() if key[0] == lookups.HELPER_SHEET}
    assert len(helpers) == 3 and lookups.pending(prepared) == helpers
    model = calculation.engine.model
    assert model.workbook.get_formula(lookups.HELPER_SHEET, 3, 1) == helpers[(lookups.HELPER_SHEET, 3, 1)]


def _looped_book(path, cells, iterate):
    """Data!A1:B100 holding n, n*10; `cells` ({"Sheet!A1": formula}) written over it."""
    wb = openpyxl.Workbook()
    data = wb.active
    data.title = "Data"
    for n in range(1, 101):
        data.append([n, n * 10])
    for where, formula in cells.items():
        sheet, cell = where.split("!")
        ws = wb[sheet] if sheet in wb.sheetnames else wb.create_sheet(sheet)
        ws[cell] = formula
    wb.calculation = CalcProperties(iterate=iterate, iterateCount=5, fullCalcOnLoad=True)
    wb.save(path)
    return path


def _computed(path, monkeypatch):
    """{shared: (the book's values, its loops, whether a table was shared)}, with the tables
    shared as the preparation decides and with sharing off."""
    answers = {}
    for shared in (True, False):
        if not shared:
            monkeypatch.setattr(lookups, "SMALLEST", 10**12)
        calculation = WorkbookCalculation(path, full=True)
        helpers = any(sheet == lookups.HELPER_SHEET for sheet, _r, _c in calculation.engine.prepared.written)
        result = calculation.compute()
        answers[shared] = ({(s, c): result.value(s, c) for s, c in calculation.source.cells}, result.loops, helpers)
        monkeypatch.undo()
    return answers


def test_a_loop_through_lookups_over_a_shared_table_is_found_in_the_probe_copy(tmp_path, monkeypatch):
    """An iterative book's loops are read from a copy loaded without iteration (the helpers
    set there too): a loop through lookups over a shared table is listed as the book has it.
    (A loop through the table itself never meets a helper: such a table is not shared, below.)"""
    path = _looped_book(tmp_path / "loop.xlsx", {
        "Data!D1": "=VLOOKUP(3,$A$1:$B$100,2,FALSE)+IF(VLOOKUP(50,$A$1:$B$100,2,FALSE)=500,D2,0)",
        "Data!D2": "=D1/2"}, iterate=True)
    answers = _computed(path, monkeypatch)
    assert answers[True][2] and not answers[False][2]
    assert answers[True][1] == answers[False][1] == ["Data!D1", "Data!D2"]


@pytest.mark.parametrize("iterate", [True, False])
def test_a_table_in_a_loop_is_not_shared(tmp_path, monkeypatch, iterate):
    """A cell of the table reading a lookup over it is a circular reference (Excel's VLOOKUP
    depends on its whole table); through a shared table the helper would be in that loop too,
    and every other lookup reading it with it: listed as loops (iteration off) or, iterating,
    silently #VALUE! (R!B1 below: 150 as written). Such a table is left as written."""
    cells = {"Data!B50": "=VLOOKUP(3,$A$1:$B$100,2,FALSE)+VLOOKUP(50,$A$1:$B$100,2,FALSE)",
             "R!B1": "=VLOOKUP(50,Data!$A$1:$B$100,2,FALSE)"}
    cells.update({f"R!A{n}": f"=VLOOKUP({n},Data!$A$1:$B$100,2,FALSE)" for n in range(1, 40)})
    answers = _computed(_looped_book(tmp_path / "loop.xlsx", cells, iterate), monkeypatch)
    assert not answers[True][2]
    assert answers[True] == answers[False]
    assert answers[False][0][("R", "A30")] == 300


def test_copies_down_a_column_take_their_shapes_tables_and_rewriting(tmp_path, monkeypatch):
    """A lookup formula's copies down a column are not read token by token once two of them
    show that the first's tables and rewriting move with the cell (lookups.py `_Copies`): the
    engine's copy is the one every formula read from its tokens gives, with copies over a
    fixed table (their row's number written as ROW's answer, memo.py) beside copies whose
    table moves with them, and a lookup value that is a row's number only by chance."""
    cells = {f"R!A{n}": f"=IF(ISNA(VLOOKUP(ROW($A{n})-1,Data!$A:$B,2,FALSE)),\"\",VLOOKUP(ROW($A{n})-1,Data!$A:$B,2))"
             for n in range(2, 60)}
    cells.update({f"R!B{n}": f"=VLOOKUP(50,Data!$A{n}:$B{n + 70},2,FALSE)" for n in range(2, 60)})  # its own table
    cells.update({f"R!C{n}": f"=VLOOKUP(7,Data!$A$1:$B$100,2,FALSE)*C{n - 1}" for n in range(2, 60)})
    path = _looped_book(tmp_path / "copies.xlsx", cells, iterate=False)
    read = []
    tokens = lookups._Calls.read.__func__

    def counted(cls, title, text):
        read.append(text)
        return tokens(cls, title, text)

    monkeypatch.setattr(lookups._Calls, "read", classmethod(counted))
    copied = WorkbookCalculation(path, full=True)
    taken = len(read)
    monkeypatch.setattr(lookups, "Scanner", lambda _read: lambda *_args: None)  # every formula by its tokens
    alone = WorkbookCalculation(path, full=True)
    assert 3 * 58 == len(read) - taken and taken < 2 * 58  # (A and C by their shape, B each by its tokens)
    mine, theirs = copied.engine.prepared, alone.engine.prepared
    assert mine.written == theirs.written and mine.rates_cells == theirs.rates_cells
    assert mine.written[("R", 9, 1)].count("RATESXL.VLOOKUPIN(9-1,") == 2
    assert mine.written[("R", 9, 2)] == "=VLOOKUP(50,Data!$A9:$B79,2,FALSE)"
    values = copied.compute()
    assert values.value("R", "A9") == 80 and values.value("R", "B9") == 500
