"""Recalculating as Excel does: by default only what changed, every other cell keeping the
value Excel saved; the engine checked against Excel's cached values at the book's stored
inputs first, a cell it gets wrong kept at Excel's value and listed as stale (never silently
recomputed); every value frozen with Excel's type; RATES_* tables never cut."""

from __future__ import annotations

import re
import shutil
import zipfile
from datetime import datetime
from pathlib import Path

import openpyxl
import pytest
import xlsxwriter
from openpyxl.worksheet.formula import ArrayFormula

from rates_xl.calc.fidelity import same
from rates_xl.calc.package import Package
from rates_xl.calc.workbook import WorkbookCalculation
from rates_xl.cli import main
from rates_xl.client import RatesClient

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "excel"
needs_corpus = pytest.mark.skipif(not SHARED.is_dir(), reason=f"the Excel-made corpus is not here ({SHARED})")


@pytest.fixture
def fresh_client(sandbox, rates_client):
    from rates_xl.sandbox import PAID_KEY

    with RatesClient(sandbox.base_url, api_key=PAID_KEY, rate_limit=1000, burst=1000) as client:
        yield client


def excel_saved(path: Path, cells: dict[str, object], cached: dict[str, object],
                formats: dict[str, str] | None = None) -> Path:
    """A book as Excel saves it: each formula with the value Excel cached for it, and no
    `fullCalcOnLoad` (XlsxWriter sets it, which tells Excel its values are placeholders)."""
    raw = path.with_suffix(".raw.xlsx")
    wb = xlsxwriter.Workbook(raw)
    ws = wb.add_worksheet("S")
    for ref, value in cells.items():
        style = wb.add_format({"num_format": formats[ref]}) if formats and ref in formats else None
        if isinstance(value, str) and value.startswith("{="):  # a legacy array over `ref` ("E1:E2")
            ws.write_array_formula(ref, value, style, cached.get(ref, 0))  # (its other cells cache 0)
        elif isinstance(value, str) and value.startswith("="):
            ws.write_formula(ref, value, style, cached.get(ref, 0))
        else:
            ws.write(ref, value, style)
    wb.close()
    with zipfile.ZipFile(raw) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "xl/workbook.xml":
                data = re.sub(rb'\s*fullCalcOnLoad="1"', b"", data)
            elif item.filename.startswith("xl/worksheets/sheet"):
                # An error cached by a dynamic array formula (SWITCH, FILTER ...): XlsxWriter
                # writes it as text (t="str"), Excel as the error it is (t="e").
                data = re.sub(rb'(<c [^>]*?)t="str"(><f t="array"[^>]*>[^<]*</f><v>#(?:DIV/0!|N/A|NAME\?|NULL!'
                              rb'|NUM!|REF!|VALUE!|SPILL!|CALC!)</v>)', rb'\1t="e"\2', data)
            dst.writestr(item, data)
    raw.unlink()
    assert not Package.open(path).full_calc_on_load()
    return path


# -- only what changed -----------------------------------------------------------------------
def test_default_mode_keeps_excels_values_and_recomputes_only_what_changed(tmp_path):
    book = excel_saved(tmp_path / "book.xlsx", {
        "A1": 2, "B1": "=A1*2", "C1": "=NOW()", "D1": "=C1-C1+1", "F1": "=B1*10"},
        {"B1": 4, "C1": 45000.5, "D1": 1, "F1": 999})  # F1: not what the formula gives (40)
    calc = WorkbookCalculation(book)
    result = calc.compute()
    assert result.recomputed == 2  # NOW() and what reads it
    assert result.value("S", "F1") == 999 and result.value("S", "B1") == 4  # Excel's, untouched
    assert result.value("S", "C1") > 46000  # now, not the cached 45000.5
    assert result.value("S", "D1") == 1
    assert result.checked == 1 and result.stale == []  # D1 at the stored NOW(): agrees


def test_a_book_with_nothing_new_computes_nothing(tmp_path, capsys):
    book = excel_saved(tmp_path / "still.xlsx", {"A1": 2, "B1": "=A1*2", "C1": "=B1+1"}, {"B1": 4, "C1": 5})
    calc = WorkbookCalculation(book)
    assert calc.engine_name == "none"
    result = calc.compute()
    assert result.recomputed == 0 and result.values == {("S", "B1"): 4, ("S", "C1"): 5}
    assert main(["calc", str(book), "--no-progress"]) == 0
    assert "Recomputed nothing" in capsys.readouterr().out


def test_full_mode_recomputes_every_cell(tmp_path):
    book = excel_saved(tmp_path / "full.xlsx", {"A1": 2, "B1": "=A1*2", "C1": "=B1+1"}, {"B1": 4, "C1": 5})
    result = WorkbookCalculation(book, full=True).compute()
    assert result.mode == "full" and result.recomputed == 2 and result.checked == 2 and result.stale == []


def test_books_written_without_excels_values_are_recomputed_unchecked(tmp_path, capsys):
    wb = openpyxl.Workbook()
    wb.active["A1"], wb.active["B1"] = 3, "=A1*3"
    wb.save(tmp_path / "openpyxl.xlsx")
    assert Package.open(tmp_path / "openpyxl.xlsx").full_calc_on_load()
    result = WorkbookCalculation(tmp_path / "openpyxl.xlsx").compute()
    assert result.value("Sheet", "B1") == 9 and result.checked == 0 and result.unchecked == 1
    assert main(["calc", str(tmp_path / "openpyxl.xlsx"), "--no-progress"]) == 0
    assert "unchecked (the file holds no values computed by Excel" in capsys.readouterr().out


def _calc_pr(book: Path, calc_pr: bytes) -> Path:
    """`book` with its `<calcPr .../>` replaced by `calc_pr`."""
    with zipfile.ZipFile(book) as src:
        parts = {item.filename: src.read(item.filename) for item in src.infolist()}
    parts["xl/workbook.xml"] = re.sub(rb"<calcPr[^>]*/>", calc_pr, parts["xl/workbook.xml"])
    assert calc_pr in parts["xl/workbook.xml"]
    with zipfile.ZipFile(book, "w", zipfile.ZIP_DEFLATED) as dst:
        for name, data in parts.items():
            dst.writestr(name, data)
    return book


def test_a_book_saved_in_manual_calculation_mode_is_recomputed_and_says_why(tmp_path, capsys):
    """Excel in manual mode, "Recalculate workbook before saving" off, saves what it last
    computed: A1 was edited to 2 after B1 and C1 were computed from 1, so their saved values
    (3, 4) are out of date. Default mode used to keep them as Excel's answers (no RATES_*,
    nothing volatile: nothing recomputed)."""
    book = excel_saved(tmp_path / "manual.xlsx", {"A1": 2, "B1": "=A1*3", "C1": "=B1+1"}, {"B1": 3, "C1": 4})
    _calc_pr(book, b'<calcPr calcId="191029" calcMode="manual" calcOnSave="0"/>')
    result = WorkbookCalculation(book).compute()
    assert result.value("S", "B1") == 6 and result.value("S", "C1") == 7
    assert result.manual_calculation and result.recomputed == 2 and result.checked == 0 and result.stale == []
    assert any("manual calculation mode" in note and "calcOnSave off" in note for note in result.notes)
    assert main(["calc", str(book), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "unchecked (saved in manual calculation mode without recalculating before saving" in out
    assert "note: saved in manual calculation mode" in out
    copy = openpyxl.load_workbook(tmp_path / "manual.values.xlsx")
    assert copy["S"]["B1"].value == 6 and copy["S"]["C1"].value == 7


def _with_data_table(book: Path) -> Path:
    """`book` with S!B3:B5 made a one-variable what-if data table over input A1 (as Excel
    stores one: `<f t="dataTable" ref=.. r1=..>` in its first cell, values in all)."""
    with zipfile.ZipFile(book) as src:
        parts = {item.filename: src.read(item.filename) for item in src.infolist()}
    sheet = parts["xl/worksheets/sheet1.xml"].decode()
    sheet, count = re.subn(r'<c r="B3"([^>]*)><v>10</v></c>',
                           r'<c r="B3"\1><f t="dataTable" ref="B3:B5" dt2D="0" dtr="0" r1="A1"/><v>10</v></c>', sheet)
    assert count == 1
    parts["xl/worksheets/sheet1.xml"] = sheet.encode()
    with zipfile.ZipFile(book, "w", zipfile.ZIP_DEFLATED) as dst:
        for name, data in parts.items():
            dst.writestr(name, data)
    return book


@pytest.mark.parametrize("full", [False, True])
def test_a_what_if_data_table_is_computed_in_either_mode(tmp_path, full):
    """{=TABLE(,A1)} over B3:B5 (the issue's three-statement model could not be computed at
    all; then its table was kept and listed). Its formula column reads NOW(): the table's inputs
    change, so in default mode too it is recomputed (no reference leads to it), by substitution
    (calc/data_tables.py); C3 reads it. Excel cached 10, 20, 40 (B5 out of date): at the stored
    inputs the engine gives 30 there, so B5 is stale and keeps Excel's value, listed."""
    book = _with_data_table(excel_saved(tmp_path / "table.xlsx", {
        "A1": 1, "B1": "=A1*10+NOW()*0", "B2": "=B1", "A3": 1, "A4": 2, "A5": 3, "B3": 10, "B4": 20, "B5": 40,
        "C3": "=SUM(B3:B5)"}, {"B1": 10, "B2": 10, "C3": 70}))
    calc = WorkbookCalculation(book, full=full)
    result = calc.compute()
    assert result.skipped == []
    assert [result.value("S", c) for c in ("B3", "B4")] == [10, 20] and result.value("S", "C3") == 70
    assert [(c.address, c.cached) for c in result.stale if c.cell.startswith("B")] == [
        ("S!B3", 10), ("S!B4", 20), ("S!B5", 40)]  # the table's anchor is stale: its whole range keeps Excel's
    calc.freeze(result, tmp_path / "copy.xlsx")
    copy = openpyxl.load_workbook(tmp_path / "copy.xlsx")["S"]
    assert [copy[c].value for c in ("B3", "B4", "B5", "C3")] == [10, 20, 40, 70]
    assert "stale" in copy["B3"].comment.text


# -- the check -------------------------------------------------------------------------------
def test_a_cell_the_engine_gets_wrong_at_the_stored_inputs_stays_stale_and_listed(tmp_path, capsys):
    """D1 reads NOW(); its cached value is not what its formula gives at the stored NOW():
    it must not be recomputed with the new NOW(), nor E1 that reads it."""
    book = excel_saved(tmp_path / "wrong.xlsx", {
        "C1": "=NOW()", "D1": "=C1+1", "E1": "=D1*2", "F1": "=C1*0+7"},
        {"C1": 45000, "D1": 12345, "E1": 24690, "F1": 7})
    result = WorkbookCalculation(book).compute()
    stale = {cell.address: cell for cell in result.stale}
    assert set(stale) == {"S!D1", "S!E1"}
    assert result.value("S", "D1") == 12345 and result.value("S", "E1") == 24690  # Excel's, kept
    assert "the engine gives 45001 at the book's stored inputs where Excel has 12345" in stale["S!D1"].reason
    assert stale["S!D1"].formula == "=C1+1" and "reads S!D1" in stale["S!E1"].reason
    assert result.value("S", "F1") == 7 and result.checked == 3
    out = tmp_path / "wrong.values.xlsx"
    assert main(["calc", str(book), "-o", str(out), "--no-progress"]) == 3
    printed = capsys.readouterr().out
    assert "2 cells stale" in printed and "S!D1 =C1+1: stale: the engine gives 45001" in printed
    assert "Recomputed 4 formula cells (only what changed); 3 checked" in printed
    frozen = openpyxl.load_workbook(out)["S"]
    assert frozen["D1"].value == 12345 and "stale: the engine gives 45001" in frozen["D1"].comment.text
    assert frozen["F1"].comment is None


@pytest.mark.parametrize("limit", [None, 1])
def test_the_wrong_cells_no_other_wrong_cell_feeds_with_and_without_the_graph(tmp_path, monkeypatch, limit):
    """recalc.roots: a wrong cell read by another wrong one only read a wrong value. Without the
    graph (full mode builds none) it walks up from the wrong cells (dependencies.Precedents),
    asking a scan that stops at the first reader (dependencies.read_by_any) only when a cell
    whose references are not all known (G1, I1: a range built by INDEX) reaches one; with the
    graph (default mode) it walks down. Both answer what the whole graph answers, and so does
    `Scope.changing_among`; and so does the graph built instead when the walk up reaches more
    anchors than `recalc.upward_limit` (`limit` 1)."""
    from rates_xl.calc import recalc
    from rates_xl.calc.book import Book
    from rates_xl.calc.dependencies import Graph

    book = Book(excel_saved(tmp_path / "roots.xlsx", {
        "A1": 2, "B1": "=A1*2", "C1": "=B1+1", "D1": "=5", "E1": "=SUM(C1:C2)", "F1": "=D1",
        "G1": "=SUM(D1:INDEX(D1:D2,1))", "H1": "=G1+1", "I1": "=SUM(D1:INDEX(D1:D2,1))",
        "J1": "=TODAY()", "K1": "=J1+B1"}, {}))
    if limit is not None:
        monkeypatch.setattr(recalc, "upward_limit", lambda _book: limit)
    graph = Graph(book)  # the answer from the whole graph, as roots gave it before
    assert graph.unknown == {("S", "G1"), ("S", "I1")}
    everything = set(book.cells)

    def roots(wrong: set[str]) -> set[str]:
        keys = {("S", cell) for cell in wrong}
        after = {d for key in keys for d in graph.dependents.get(key, ())}
        expected = keys - graph.downstream(after) if after else keys
        full = recalc.scope(book, True)
        assert recalc.roots(full, set(keys)) == expected
        assert full.graph is None or limit is not None  # (built when some cell reads a wrong one)
        assert full.changing_among(everything) == full.changing() == graph.downstream(full.inputs)
        default = recalc.scope(book, False)
        assert default.graph is not None and recalc.roots(default, set(keys)) == expected
        return {cell for _sheet, cell in expected}

    assert roots({"B1", "C1"}) == {"B1"}  # C1 reads B1
    assert roots({"B1", "E1"}) == {"B1"}  # E1 reads B1 through C1 (not wrong itself)
    assert roots({"C1", "D1"}) == {"C1", "D1"}  # read (by E1, F1); neither feeds the other
    assert roots({"E1", "F1"}) == {"E1", "F1"}  # nothing reads either
    assert roots({"C1", "G1"}) == {"C1"}  # something reads a wrong cell: G1 (unknown) follows anything
    assert roots({"G1", "D1"}) == {"D1"}  # the same, found by the scan: F1 reads D1, outside what they read
    assert roots({"I1", "E1"}) == {"I1", "E1"}  # nothing reads either: I1 unknown follows nothing
    assert roots({"G1", "H1"}) == set()  # H1 reads G1, which then follows anything (the graph's answer)
    assert roots({"K1", "B1"}) == {"B1"}


@pytest.mark.parametrize("full", [False, True])
def test_each_round_of_the_check_compares_again_only_the_anchors_whose_cells_moved(tmp_path, monkeypatch, full):
    """recalc.compare(before=...): holding the wrong roots B1, F1 and G1 moves what reads them
    (C1, the legacy array E1:E2, H1; every cell reads NOW() through A1, so default mode checks
    them too); every other anchor's verdict is the round before's, word for word. Each round's
    outcome equals a comparison of every cell."""
    from rates_xl.calc import recalc

    book = excel_saved(tmp_path / "rounds.xlsx", {
        "A1": "=J1*0+2", "B1": "=A1*2", "C1": "=B1+1", "E1:E2": "{=B1*{1;2}}", "F1": "=A1*3", "G1": "=A1+100",
        "H1": "=G1+1", "J1": "=NOW()"}, {"A1": 2, "B1": 5, "C1": 6, "E1:E2": 5, "F1": 7, "G1": 999, "H1": 1000})
    compare, rounds = recalc.compare, []

    def both(book, scope, values, unsupported, before=None):  # type: ignore[no-untyped-def]
        outcome = compare(book, scope, values, unsupported, before=before)
        whole = compare(book, scope, values, unsupported)
        assert list(outcome.wrong.items()) == list(whole.wrong.items())
        assert (outcome.checked, outcome.unchecked) == (whole.checked, whole.unchecked)
        rounds.append((before is not None, sorted(cell for _sheet, cell in outcome.wrong)))
        return outcome

    monkeypatch.setattr(recalc, "compare", both)
    calc = WorkbookCalculation(book, full=full)
    # The roots B1, F1, G1 are held; E1 stays wrong (E2: Excel cached 0), so the check holds
    # the same roots again until its last round (MAX_CHECK_ROUNDS), comparing nothing anew.
    assert rounds == [(False, ["B1", "C1", "E1", "F1", "G1", "H1"])] + [(True, ["E1"])] * 3
    # (C1 and H1 agree once their roots hold Excel's values, but read a wrong cell whose own
    # value may move with NOW(): stale too)
    assert sorted(cell for _sheet, cell in calc.stale) == ["B1", "C1", "E1", "F1", "G1", "H1"]
    assert "(in E2)" in calc.stale[("S", "E1")]  # its first cell agrees once B1 holds Excel's 5


def test_a_cell_reading_a_name_defined_by_a_formula_is_recomputed_or_listed_never_silently_kept(tmp_path):
    """X = OFFSET(S!$B$1,0,0,1,1): what X reads is known only once computed (calc/dependencies.py
    reads such a name as reading everything). It was read as a range of a sheet "OFFSET(S", so
    `=SUM(X)` read nothing and kept Excel's 5 in default mode while B1 under it moved."""
    book = _named_book(tmp_path / "named.xlsx", {"A1": ("=RAND()", 0.5), "B1": ("=A1*10", 5), "C1": ("=SUM(X)", 5)},
                       ("X", "=OFFSET(S!$B$1,0,0,1,1)"))
    calc = WorkbookCalculation(book)
    assert ("S", "C1") in calc.scope.recompute
    result = calc.compute()
    stale = {cell.address for cell in result.stale}
    assert result.value("S", "C1") == result.value("S", "B1") or "S!C1" in stale


def test_a_cell_reading_a_relative_name_follows_the_cell_it_stands_for(tmp_path):
    """RowT = S!$A1, read from the cell using it (calc/formula/defined_names.py): in C5 it is A5.
    calc/dependencies.py read it as $A1, so `=RowT*2` in C5 did not follow A5's RAND()."""
    book = _named_book(tmp_path / "relative.xlsx", {"A5": ("=RAND()", 0.5), "C5": ("=RowT*2", 1)}, ("RowT", "=S!$A1"))
    calc = WorkbookCalculation(book)
    assert ("S", "C5") in calc.scope.recompute
    result = calc.compute()
    assert result.value("S", "C5") == result.value("S", "A5") * 2


def _named_book(book: Path, formulas: dict[str, tuple[str, float]], name: tuple[str, str]) -> Path:
    """A book of sheet S holding `formulas` (cell -> (formula, cached value)) and one defined
    name, as Excel saves it in default mode (XlsxWriter's, without its fullCalcOnLoad)."""
    raw = book.with_suffix(".raw.xlsx")
    wb = xlsxwriter.Workbook(raw)
    ws = wb.add_worksheet("S")
    for cell, (formula, cached) in formulas.items():
        ws.write_formula(cell, formula, None, cached)
    wb.define_name(*name)
    wb.close()
    with zipfile.ZipFile(raw) as src, zipfile.ZipFile(book, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            dst.writestr(item, re.sub(rb'\s*fullCalcOnLoad="1"', b"", data) if item.filename == "xl/workbook.xml" else data)
    return book


def test_full_mode_keeps_a_wrong_engine_answer_at_excels_value_and_lists_it(tmp_path):
    book = excel_saved(tmp_path / "full_wrong.xlsx", {"A1": 2, "B1": "=A1*2", "C1": "=B1+1"}, {"B1": 5, "C1": 6})
    result = WorkbookCalculation(book, full=True).compute()
    assert [cell.address for cell in result.stale] == ["S!B1"]  # C1 = B1+1 agrees with Excel's B1
    assert result.value("S", "B1") == 5 and result.value("S", "C1") == 6


def test_the_rates_cells_are_checked_at_their_cached_answers(tmp_path, fresh_client):
    """The RATES_* cell is held at its cached answer for the check; B1 agrees and is
    recomputed with the new answer, C1 does not and keeps Excel's value (stale), D1 reads it."""
    book = excel_saved(tmp_path / "rates.xlsx", {
        "A1": '=RATES_DISCOUNT("SOFR","5Y")', "B1": "=A1*100", "C1": "=A1*2", "D1": "=C1+1", "E1": "=2+2"},
        {"A1": 0.9, "B1": 90, "C1": 5, "D1": 6, "E1": 4})
    result = WorkbookCalculation(book).compute(fresh_client)
    new = result.value("S", "A1")
    assert 0.5 < new < 1 and new != 0.9
    assert result.value("S", "B1") == pytest.approx(new * 100)
    assert {c.address for c in result.stale} == {"S!C1", "S!D1"}
    assert result.value("S", "C1") == 5 and result.value("S", "D1") == 6
    assert "may predate this calculation's inputs" in result.stale[0].reason
    assert result.recomputed == 4 and result.checked == 3


# -- value types -----------------------------------------------------------------------------
def test_times_and_dates_are_frozen_as_serials_with_the_cells_format(tmp_path):
    book = excel_saved(tmp_path / "types.xlsx", {
        "A1": "=TIME(12,0,0)+NOW()*0", "A2": '=TIMEVALUE("06:00")+NOW()*0', "A3": "=DATE(2025,7,1)",
        "A4": "=A3+NOW()*0", "A5": "=1=1", "A6": "=1/0", "A7": '="text"'},
        {"A1": 0.5, "A2": 0.25, "A3": 45839, "A4": 45839, "A5": True, "A6": "#DIV/0!", "A7": "text"},
        formats={"A1": "hh:mm:ss", "A2": "hh:mm", "A3": "yyyy-mm-dd", "A4": "yyyy-mm-dd"})
    calc = WorkbookCalculation(book)
    result = calc.compute()
    assert result.recomputed == 3 and result.stale == []  # each reads NOW(): new answers
    assert result.value("S", "A1") == 0.5 and result.value("S", "A2") == 0.25  # were '12:00:00'
    assert result.value("S", "A3") == 45839 and result.value("S", "A4") == 45839  # kept / computed
    out = calc.freeze(result, tmp_path / "types.values.xlsx")
    with zipfile.ZipFile(out) as package:
        sheet = package.read("xl/worksheets/sheet1.xml").decode()
    cells = dict(re.findall(r'<c r="(A\d)"([^>]*>.*?)</c>', sheet))
    for ref in ("A1", "A2", "A3", "A4"):
        assert 't="s"' not in cells[ref] and 't="str"' not in cells[ref] and 't="inlineStr"' not in cells[ref]
    assert "<v>0.5</v>" in cells["A1"] and "<v>45839" in cells["A3"]
    frozen = openpyxl.load_workbook(out)["S"]
    assert frozen["A3"].value == datetime(2025, 7, 1) and frozen["A3"].number_format == "yyyy-mm-dd"
    assert frozen["A1"].number_format == "hh:mm:ss"
    assert frozen["A5"].value is True and frozen["A6"].value == "#DIV/0!" and frozen["A7"].value == "text"


# -- arrays ----------------------------------------------------------------------------------
def test_a_rates_table_in_a_one_cell_array_is_never_cut(tmp_path, fresh_client):
    """openpyxl's ArrayFormula("A1", ...): every row and both columns of the curve reach the
    copy (the Rate column used to be dropped without a word)."""
    wb = openpyxl.Workbook()
    wb.active.title = "S"
    wb.active["A1"] = ArrayFormula("A1", '=RATES_SWAPCURVE("SOFR")')
    wb.save(tmp_path / "curve.xlsx")
    calc = WorkbookCalculation(tmp_path / "curve.xlsx")
    result = calc.compute(fresh_client)
    out = calc.freeze(result, tmp_path / "curve.values.xlsx")
    frozen = openpyxl.load_workbook(out)["S"]
    assert [frozen["A1"].value, frozen["B1"].value] == ["Tenor", "Rate"]
    rows = [r for r in range(2, frozen.max_row + 1) if frozen[f"A{r}"].value is not None]
    assert len(rows) > 10 and all(isinstance(frozen[f"B{r}"].value, float) for r in rows)


# -- Excel's own books -----------------------------------------------------------------------
@needs_corpus
@pytest.mark.parametrize("name", ["ironcalc_PMT.xlsx", "ironcalc_SUMIFS.xlsx", "poi_MatrixFormulaEvalTestData.xlsx"])
def test_excel_made_books_default_mode_keeps_every_value_of_excel(name, tmp_path):
    """No RATES_* and no volatile call: nothing recomputed, every formula cell is Excel's."""
    shutil.copy(SHARED / name, tmp_path / name)
    calc = WorkbookCalculation(tmp_path / name)
    result = calc.compute()
    cached = openpyxl.load_workbook(tmp_path / name, data_only=True)
    assert result.recomputed == 0
    for (sheet, cell), value in result.values.items():
        assert same(value, cached[sheet][cell].value), (sheet, cell)


@needs_corpus
@pytest.mark.parametrize("name", ["ironcalc_PMT.xlsx", "ironcalc_XLOOKUP.xlsx", "poi_MatrixFormulaEvalTestData.xlsx"])
def test_excel_made_books_full_mode_never_silently_wrong(name):
    """Every formula cell with a value of Excel's is equal to it, or listed (stale / not computed)."""
    calc = WorkbookCalculation(SHARED / name, full=True)
    result = calc.compute()
    cached = openpyxl.load_workbook(SHARED / name, data_only=True)
    listed = {(c.sheet, c.cell) for c in result.stale} | {(c.sheet, c.cell) for c in result.skipped}
    wrong = [(key, value, cached[key[0]][key[1]].value) for key, value in result.values.items()
             if key not in listed and cached[key[0]][key[1]].value is not None
             and not same(value, cached[key[0]][key[1]].value)]
    assert wrong == [], wrong[:10]
    assert result.checked > 0


# -- near-equal numbers ------------------------------------------------------------------------
def test_a_final_subtraction_of_near_equal_numbers_is_zero_as_in_excel(tmp_path):
    """Microsoft's own example (KB 78113, "Floating-point arithmetic may give inaccurate
    results in Excel"): =0.5-0.4-0.1 shows 0, =1*(0.5-0.4-0.1) shows -2.78E-17 (the
    adjustment applies to a last + or - only); a genuinely tiny difference stays."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"], ws["A2"], ws["A3"] = "=0.5-0.4-0.1", "=1*(0.5-0.4-0.1)", "=B1-B2"
    ws["B1"], ws["B2"] = 3e-12, 1e-12
    ws["A4"] = "=B3-B4"
    ws["B3"], ws["B4"] = 1234.5678, 1234.5678 - 1e-13 * 1234.5678  # not within 15 digits: kept
    wb.save(tmp_path / "residue.xlsx")
    result = WorkbookCalculation(tmp_path / "residue.xlsx").compute()
    assert result.value("S", "A1") == 0
    assert result.value("S", "A2") == pytest.approx(-2.7755575615628914e-17, rel=1e-6)
    assert result.value("S", "A3") == pytest.approx(2e-12)
    assert result.value("S", "A4") != 0


def test_a_legacy_array_smaller_than_its_rates_table_says_so(tmp_path, fresh_client, capsys):
    """Ctrl+Shift+Enter over A1:A1 in a book with dynamic-array markers: Excel shows the top
    left value only, and so does the copy, but the summary and a note say the table is larger."""
    wb = xlsxwriter.Workbook(tmp_path / "cse.xlsx")
    ws = wb.add_worksheet("S")
    ws.write_array_formula("A1:A1", '{=RATES_SWAPCURVE("SOFR")}')
    ws.write_dynamic_array_formula("D1", "=SEQUENCE(2)")  # the book carries the marker
    wb.close()
    calc = WorkbookCalculation(tmp_path / "cse.xlsx")
    assert ("S", "A1") in calc.legacy_arrays
    result = calc.compute(fresh_client)
    assert result.value("S", "A1") == "Tenor" and result.values.get(("S", "A2")) is None
    assert [(s, c) for s, c, _ in result.cut] == [("S", "A1")] and "x 2" in result.cut[0][2]
    out = tmp_path / "cse.values.xlsx"
    calc.freeze(result, out)
    assert "shows only its first 1 x 1" in openpyxl.load_workbook(out)["S"]["A1"].comment.text


def test_a_kept_control_character_does_not_stop_the_engine(tmp_path):
    """CHAR(1)'s answer, kept at Excel's value while NOW() is recomputed: openpyxl's writer
    refused it in the engine's copy and the whole book failed."""
    book = excel_saved(tmp_path / "ctrl.xlsx", {"A1": "=CHAR(1)", "B1": "=NOW()", "C1": "=LEN(A1)"},
                       {"A1": "_x0001_", "B1": 45000, "C1": 1})  # how Excel stores CHAR(1)
    calc = WorkbookCalculation(book)
    result = calc.compute()
    assert result.value("S", "A1") == "\x01" and result.value("S", "C1") == 1 and result.recomputed == 1
    with zipfile.ZipFile(calc.freeze(result, tmp_path / "ctrl.values.xlsx")) as package:
        stored = package.read("xl/worksheets/sheet1.xml").decode()
    assert "_x0001_" in stored  # as Excel stores CHAR(1); it was dropped


def test_the_input_file_is_read_once(tmp_path, monkeypatch):
    """A calculation reads the workbook's bytes once (calc/package.py `Package`): openpyxl, the
    package readers (dynamic arrays, cached values, calcPr, shared strings, the saving
    application), the engine's copy and the values-frozen copy all read those bytes. It opened
    the file six to eight times before (issue 29)."""
    import builtins
    import io
    import shutil
    from pathlib import Path

    from rates_xl.calc.workbook import WorkbookCalculation

    book = tmp_path / "arrays.xlsx"
    shutil.copyfile(Path(__file__).parent / "corpus" / "source" / "arrays.xlsx", book)
    opened = []
    real_open, real_io_open = builtins.open, io.open

    def counting(opener):
        def open_(file, *args, **kwargs):
            if str(file) == str(book):
                opened.append(file)
            return opener(file, *args, **kwargs)
        return open_

    monkeypatch.setattr(builtins, "open", counting(real_open))
    monkeypatch.setattr(io, "open", counting(real_io_open))
    calc = WorkbookCalculation(book, full=True)
    result = calc.compute()
    calc.freeze(result, tmp_path / "arrays.values.xlsx")
    assert len(opened) == 1
