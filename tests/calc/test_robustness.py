"""Workbooks as Excel saves them, one per failure class: no traceback, the right values, and
a summary that says what was not computed and why. No service is needed: none of these calls
a RATES_* function (the ones that do are in test_calc.py)."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import openpyxl
import pytest
import xlsxwriter

from rates_xl.calc.workbook import WorkbookCalculation, calculate_many
from rates_xl.cli import main
from tests.calc.corpus import build

CORPUS = Path(__file__).parent / "corpus"


def compute(path, **kwargs):
    """Every formula recomputed (`--full`): these tests are about what the engine computes;
    by default a book LibreOffice calculated would keep its cached values."""
    kwargs.setdefault("full", True)
    calc = WorkbookCalculation(path, **kwargs)
    return calc, calc.compute()


def test_every_kind_of_defined_name(tmp_path):
    """Constants, formulas over names, sheet-scoped names, print areas and #REF! names used to
    end in a traceback (every name was assumed to have a sheet destination)."""
    calc, result = compute(CORPUS / "reference" / "names_and_references.xlsx")
    assert result.errors == [] and result.skipped == []
    assert result.value("Calc", "A1") == 550  # SUM(amounts)
    assert result.value("Calc", "A2") == pytest.approx(0.5)  # first_amount*rate (a constant name)
    assert result.value("Calc", "A3") == "fixed!"  # a text constant
    assert result.value("Other sheet", "C1") == pytest.approx(22.5)  # a sheet-scoped name
    assert result.value("Calc", "A19") == 400  # SUMPRODUCT(--(RIGHT(keys,1)>"4"),amounts): written out
    assert calc.cell_of_name("first_amount") == ("Inputs", "A1")
    assert "bad_name" not in calc.names and "rate" not in calc.names  # no destination: not a cell


def test_functions_that_return_references_are_frozen_as_values(tmp_path):
    """OFFSET, INDIRECT, INDEX(...):INDEX(...), CHOOSE over ranges: computed, and the frozen
    copy holds their values (freezing used to crash on a reference result)."""
    calc, result = compute(CORPUS / "reference" / "names_and_references.xlsx")
    assert result.value("Calc", "A4") == 120  # SUM(OFFSET(Inputs!A1,2,0,3,1)) = 30+40+50
    assert result.value("Calc", "A5") == "k4"  # a single-cell OFFSET
    assert result.value("Calc", "A6") == 100  # SUM(INDIRECT("Inputs!A1:A4"))
    assert result.value("Calc", "A9") == 140  # SUM(INDEX(..,2):INDEX(..,5))
    assert result.value("Calc", "A10") == 150  # SUM(CHOOSE(2, A1:A3, A4:A6))
    out = calc.freeze(result, tmp_path / "refs.xlsx")
    frozen = openpyxl.load_workbook(out)["Calc"]
    assert [frozen[f"A{r}"].value for r in (4, 5, 6)] == [120, "k4", 100]
    assert not any(c.data_type == "f" for row in frozen.iter_rows() for c in row)


@pytest.mark.parametrize("name, iterate", [("circular_iterative", True), ("circular_off", False)])
def test_circular_references_follow_the_files_own_settings(name, iterate, capsys):
    """A loop used to come back as #VALUE! in every cell of it."""
    calc, result = compute(CORPUS / "source" / f"{name}.xlsx")
    assert calc.iteration[0] is iterate
    assert result.loops == ["Loop!B1", "Loop!B2", "Loop!B3"] or set(result.loops) >= {"Loop!B1", "Loop!B2"}
    assert result.value("Loop", "B4") == 3000  # outside the loop: computed as usual
    if iterate:  # interest = 5 % of the average of 1000 and the closing balance
        assert result.value("Loop", "B1") == pytest.approx(50 / 0.975, rel=1e-6)
        assert result.value("Loop", "B3") == pytest.approx(2 * (1000 + 50 / 0.975), rel=1e-6)
        assert any("computed iteratively" in note for note in result.notes)
    else:  # Excel: a warning, and 0 in the loop
        assert [result.value("Loop", f"B{r}") for r in (1, 2, 3)] == [0, 0, 0]
        assert any("iterative calculation off" in note for note in result.notes)
    assert result.errors == []


def test_circular_reference_listed_by_the_command(tmp_path, capsys):
    book = tmp_path / "loop.xlsx"
    shutil.copy(CORPUS / "source" / "circular_off.xlsx", book)
    assert main(["calc", str(book), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "circular reference: Loop!B1, Loop!B2" in printed and "iterative calculation off" in printed


def test_external_links_use_the_values_the_file_cached(tmp_path, capsys):
    book = tmp_path / "linked.xlsx"
    build.external_link(book)
    calc, result = compute(book)
    assert result.value("Book", "A1") == pytest.approx(4.25)  # [1]Rates!B2 * 100
    assert result.value("Book", "A3") == pytest.approx(0.0825)  # a range in the other book
    assert result.value("Book", "A4") == pytest.approx(0.085)  # a name pointing there
    assert any("link(s) to other workbooks" in note for note in result.notes)
    out = calc.freeze(result, tmp_path / "linked.values.xlsx")
    with zipfile.ZipFile(out) as frozen:
        assert "xl/externalLinks/externalLink1.xml" in frozen.namelist()
    assert main(["calc", str(book), "-o", str(tmp_path / "again.xlsx"), "--no-progress"]) == 0
    assert "their values are the ones this file cached" in capsys.readouterr().out


def test_external_values_come_from_the_link_part_not_the_cells_cache(tmp_path):
    book = tmp_path / "linked.xlsx"
    build.external_link(book)
    # Change the linked book's cached value: the formulas must follow it.
    with zipfile.ZipFile(book) as src:
        parts = {n: src.read(n) for n in src.namelist()}
    part = "xl/externalLinks/externalLink1.xml"
    parts[part] = parts[part].replace(b"<v>0.0425</v>", b"<v>0.05</v>")
    with zipfile.ZipFile(book, "w") as out:
        for name, content in parts.items():
            out.writestr(name, content)
    _, result = compute(book)
    assert result.value("Book", "A1") == pytest.approx(5.0)
    assert result.value("Book", "A2") == pytest.approx(6.0)


def test_formulas_the_fast_engine_gets_wrong_are_rewritten_or_listed(tmp_path, capsys):
    """Scalar functions over ranges (ISNUMBER(A1:A8), YEAR(B1:B8) ...): the fast engine takes
    the first element and says nothing. Array formulas are written out per cell, aggregates
    over them read helper cells; a whole column under SUMPRODUCT is read over all its rows
    (what cannot be written out keeps the file's cached value and is listed with the reason:
    tests/calc/test_calc.py)."""
    path = CORPUS / "reference" / "arrays.xlsx"
    calc, result = compute(path)
    cached = openpyxl.load_workbook(path, data_only=True)["Arr"]
    assert result.engine == "fast"
    for col in "DEFGH":
        for r in range(1, 9):
            assert result.value("Arr", f"{col}{r}") == pytest.approx(cached[f"{col}{r}"].value), f"{col}{r}"
    for cell in ("I1", "I2", "I3", "I5"):  # SUM(LEN(..)), SUM(IF(ISNUMBER(..))), SUMPRODUCT(..)
        assert result.value("Arr", cell) == pytest.approx(cached[cell].value), cell
    assert result.value("Arr", "I5") == pytest.approx(sum(i * 1.5 for i in range(4, 8)))  # years 2024+
    assert result.value("Arr", "L3") == pytest.approx(30)  # implicit intersection: row 3
    assert result.value("Arr", "L9") == "#VALUE!"  # no intersection
    # A whole column (SUMPRODUCT(LEN(A:A))): over all its rows (calc/formula/column_products.py)
    assert result.value("Arr", "I6") == cached["I6"].value == 11
    assert not result.skipped
    out = tmp_path / "arr.xlsx"
    assert main(["calc", str(path), "-o", str(out), "--no-progress", "--full"]) == 3  # L9's error
    printed = capsys.readouterr().out
    assert "not computed" not in printed and "Arr!L9: #VALUE!" in printed
    frozen = openpyxl.load_workbook(out)["Arr"]
    assert frozen["I6"].value == cached["I6"].value
    assert frozen["I6"].comment is None and frozen["I1"].comment is None
    assert frozen.max_column == openpyxl.load_workbook(path)["Arr"].max_column  # no helper cells


def test_helper_cells_are_not_used_where_a_whole_row_would_read_them(tmp_path):
    book = tmp_path / "rows.xlsx"
    wb = xlsxwriter.Workbook(book)
    ws = wb.add_worksheet("S")
    ws.write_column("A1", ["ab", "c", "def"])
    ws.write_formula("C1", "=SUM(LEN(A1:A3))", None, 6)
    ws.write_formula("C2", "=COUNTA(1:1)", None, 2)
    wb.close()
    _, result = compute(book)
    assert [c.address for c in result.skipped] == ["S!C1"] and result.value("S", "C1") == 6
    assert result.value("S", "C2") == 2


@pytest.mark.parametrize("formula, rows", [
    ("=COUNTA(1:1)", True), ("=SUM(S!$2:$5)", True), ("=SUM('Q 1'!3:4)", True), ("{=ROWS(7:9)}", True),
    ("=SUM(A1:B2)", False), ("=SUM($A$1:$B$2)", False), ("=SUM(Sheet1:Sheet3!A1)", False),
    ('=TEXT(A1,"12:30")', False),  # a digit, ":" and a digit in a text: the tokens decide
    ("=SUM(A:A)", False),
])
def test_a_formula_reading_whole_rows_is_found(formula, rows):
    from openpyxl.worksheet.formula import ArrayFormula

    from rates_xl.calc.engines.formualizer.reach import has_whole_rows

    wb = openpyxl.Workbook()
    wb.active.title = "S"
    wb.create_sheet("Q 1")
    wb.active["A1"] = ArrayFormula("A1", formula[1:-1]) if formula.startswith("{") else formula
    assert has_whole_rows(wb) is rows


def test_a_what_if_data_table_keeps_its_cached_value(tmp_path):
    book = tmp_path / "table.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "T"
    ws["A1"], ws["B1"] = 2, "=A1*10"
    wb.save(book)
    # openpyxl cannot write a data table: add one as Excel stores it (t="dataTable").
    with zipfile.ZipFile(book) as src:
        parts = {n: src.read(n) for n in src.namelist()}
    sheet = "xl/worksheets/sheet1.xml"
    parts[sheet] = parts[sheet].replace(
        b"</sheetData>", b'<row r="3"><c r="B3"><f t="dataTable" ref="B3:B3" dt2D="0" dtr="0" r1="A1"/>'
                         b"<v>42</v></c></row></sheetData>")
    with zipfile.ZipFile(book, "w") as out:
        for name, content in parts.items():
            out.writestr(name, content)
    calc, result = compute(book)
    assert result.value("T", "B1") == 20
    assert [(c.address, c.cached) for c in result.skipped] == [("T!B3", 42)]
    assert "what-if data table" in result.skipped[0].reason
    frozen = openpyxl.load_workbook(calc.freeze(result, tmp_path / "table.values.xlsx"))["T"]
    assert frozen["B3"].value == 42


def test_features_survive_and_newer_functions_compute(tmp_path):
    book = tmp_path / "features.xlsx"
    build.features(book)
    calc, result = compute(book)
    assert result.errors == [] and result.skipped == []
    assert result.value("Main", "D3") == 150 + 1500  # hidden and very hidden sheets
    assert [result.value("Main", f"G{r}") for r in range(2, 8)] == [9, 7.5, 6, 4.5, 3, 1.5]  # SORT spills
    assert [result.value("Main", f"H{r}") for r in range(2, 5)] == [1, 2, 3]
    assert result.value("Main", "I2") == 4.5 and result.value("Main", "I3") == "r0-r1-r2"
    assert result.value("Main", "I4") == "big" and result.value("Main", "I5") == "Merged title"
    out = calc.freeze(result, tmp_path / "features.values.xlsx")
    frozen = openpyxl.load_workbook(out)
    main_sheet = frozen["Main"]
    assert "D1:E1" in {str(r) for r in main_sheet.merged_cells.ranges}
    assert frozen["Hidden"].sheet_state == "hidden" and frozen["VeryHidden"].sheet_state == "veryHidden"
    assert main_sheet["D2"].comment is not None and main_sheet["D2"].value == 31.5
    assert len(main_sheet._charts) == 1 and len(main_sheet.data_validations.dataValidation) == 1


def _vba_project(tmp_path) -> Path:
    """A real vbaProject.bin: the one in xlwings' quickstart workbook (BSD-licensed)."""
    import xlwings

    source = Path(xlwings.__file__).parent / "quickstart.xlsm"
    if not source.exists():
        pytest.skip("xlwings' quickstart.xlsm is not installed")
    with zipfile.ZipFile(source) as book:
        target = tmp_path / "vbaProject.bin"
        target.write_bytes(book.read("xl/vbaProject.bin"))
    return target


def test_xlsm_keeps_its_vba_project_byte_for_byte(tmp_path, capsys):
    vba = _vba_project(tmp_path)
    book = tmp_path / "macro.xlsm"
    build.features(book, vba_project=vba)
    assert main(["calc", str(book), "--no-progress"]) == 0
    out = tmp_path / "macro.values.xlsm"
    assert out.exists()
    with zipfile.ZipFile(out) as frozen:
        assert frozen.read("xl/vbaProject.bin") == vba.read_bytes()
    assert openpyxl.load_workbook(out)["Main"]["D2"].value == 31.5


def test_no_traceback_on_odd_values_and_broken_files(tmp_path, capsys):
    book = tmp_path / "odd.xlsx"
    wb = xlsxwriter.Workbook(book)
    ws = wb.add_worksheet("S")
    ws.write_formula("A1", '="=not a formula"')  # text that looks like a formula
    ws.write_formula("A2", '="bell"&CHAR(7)')  # a character a file cannot hold
    ws.write_formula("A3", "=NOSUCHFUNCTION(1)")
    ws.write_formula("A4", "=1/0")
    ws.write_formula("A5", "=SUM(")  # a formula Excel would refuse; files can still hold it
    wb.close()
    calc, result = compute(book)
    out = calc.freeze(result, tmp_path / "odd.values.xlsx")
    frozen = openpyxl.load_workbook(out)["S"]
    assert frozen["A1"].value == "=not a formula" and frozen["A1"].data_type == "s"
    # Kept, escaped as Excel stores a character XML cannot hold (openpyxl reads the escape back).
    assert frozen["A2"].value in ("bell\x07", "bell_x0007_")
    assert "S!A4" in {e.address for e in result.errors}
    skipped = {c.address: c.reason for c in result.skipped}
    assert "NOSUCHFUNCTION, which the engine does not know" in skipped["S!A3"]
    assert "S!A5" in skipped or "S!A5" in {e.address for e in result.errors}, (skipped, result.errors)
    assert main(["calc", str(book), "-o", str(tmp_path / "c.xlsx"), "--no-progress"]) == 3
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err


def test_several_workbooks_and_a_folder_in_one_run(tmp_path, capsys):
    folder = tmp_path / "books"
    folder.mkdir()
    for name in ("names_and_references", "circular_iterative"):
        shutil.copy(CORPUS / "reference" / f"{name}.xlsx", folder / f"{name}.xlsx")
    (folder / "broken.xlsx").write_bytes(b"not a workbook")
    (folder / "~$names_and_references.xlsx").write_bytes(b"an Excel lock file")
    out = tmp_path / "out"
    assert main(["calc", str(folder), "-o", str(out), "--no-progress"]) == 1  # one book failed
    printed = capsys.readouterr()
    assert "Computed 2 of 3 workbooks" in printed.out
    assert "broken.xlsx: not a valid workbook" in printed.err
    assert sorted(p.name for p in out.iterdir()) == ["circular_iterative.values.xlsx",
                                                      "names_and_references.values.xlsx"]
    batch = calculate_many([folder / "names_and_references.xlsx", folder / "circular_iterative.xlsx"], full=True)
    assert not batch.failures and len(batch.results) == 2


def test_a_pivot_table_and_its_cache_survive(tmp_path):
    """A pivot table made by LibreOffice (corpus/pivot_uno.py): formulas over its output
    compute, and the frozen copy keeps the pivot table and its cache."""
    path = CORPUS / "reference" / "pivot.xlsx"
    calc, result = compute(path)
    assert result.errors == [] and result.skipped == []
    cached = openpyxl.load_workbook(path, data_only=True)["Pivot"]
    assert result.value("Pivot", "A1") == 52
    assert result.value("Pivot", "A2") == cached["A2"].value > 0  # over the pivot's output
    assert result.value("Pivot", "A3") == 52 - cached["A2"].value
    out = calc.freeze(result, tmp_path / "pivot.values.xlsx")
    with zipfile.ZipFile(out) as frozen:
        names = frozen.namelist()
    assert any(n.startswith("xl/pivotCache/pivotCacheDefinition") for n in names)
    assert any(n.startswith("xl/pivotTables/pivotTable") for n in names)


def test_the_engine_can_be_chosen_and_the_summary_names_it(tmp_path, capsys):
    book = tmp_path / "names.xlsx"
    shutil.copy(CORPUS / "reference" / "names_and_references.xlsx", book)
    assert main(["calc", str(book), "--engine", "fast", "-o", str(tmp_path / "a.xlsx"), "--no-progress"]) == 0
    assert "(fast engine)" in capsys.readouterr().out
    calc, exact = compute(book, engine_name="formulas")
    assert exact.engine == "formulas" and exact.value("Calc", "A1") == 550
    frozen = openpyxl.load_workbook(calc.freeze(exact, tmp_path / "exact.xlsx"))["Calc"]  # used to crash
    assert frozen["A1"].value == 550 and not any(c.data_type == "f" for row in frozen.iter_rows() for c in row)
    with pytest.raises(Exception, match="unknown engine"):
        WorkbookCalculation(book, engine_name="excel")


def test_the_12000_formula_workbook_computes_from_the_command(tmp_path, capsys):
    """The issue's first failure: a large book with names of several kinds and links to
    another book ended in a traceback before computing anything."""
    out = tmp_path / "big.values.xlsx"
    assert main(["calc", str(CORPUS / "source" / "generated_12000.xlsx"), "-o", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr()
    assert "12,000 formulas" in printed.out and "(fast engine)" in printed.out
    assert "link(s) to other workbooks" in printed.out and "No error cells." in printed.out
    assert "Traceback" not in printed.out + printed.err
    frozen = openpyxl.load_workbook(out)["S1"]
    assert frozen["A1"].data_type == "n" and frozen["A1"].value > 0  # SUM(amounts)


@pytest.mark.parametrize("title", ["sheet1", "SHEET1"])
def test_a_first_sheet_named_sheet1_in_another_case_is_computed(tmp_path, title):
    """formualizer 0.13 keeps a sheet of its own named "Sheet1" beside a book's first sheet named
    so in another case (apache/poi's Excel-made 59132.xlsx: "sheet1"), and every formula of that
    sheet answered blank: here, in a book whose values no check can compare (openpyxl stores
    none), silently. Such a book is computed by the `formulas` engine, the summary says why."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = title
    sheet["B1"], sheet["B2"], sheet["A1"], sheet["A2"] = "Peter", 21, '=IF(ISBLANK(B1),"",B1)', "=B2*2"
    book.create_sheet("Other")["A1"] = f"={title}!B2+1"
    book.save(tmp_path / "lower.xlsx")
    result = WorkbookCalculation(tmp_path / "lower.xlsx").compute()
    assert [result.value(title, "A1"), result.value(title, "A2"), result.value("Other", "A1")] == ["Peter", 42, 22]
    assert result.engine == "formulas" and any("first sheet is named" in note for note in result.notes)


@pytest.mark.parametrize("sheets, said", [
    ('<sheets><sheet name="Data" sheetId="1" state="hidden" r:id="rId1"/></sheets>', "no visible sheet"),
    ("<sheets/>", "no sheet"),
])
def test_a_book_with_no_visible_sheet_is_refused_in_one_line(tmp_path, capsys, sheets, said):
    """Excel neither saves nor opens a book whose every sheet is hidden, or that has none
    (excelize's test_BadWorkbook.xlsx): calc computed it, then failed writing the copy with
    openpyxl's "IndexError: At least one sheet must be visible"."""
    made = tmp_path / "made.xlsx"
    book = xlsxwriter.Workbook(str(made))
    book.add_worksheet("Data").write_formula("A1", "=1+1")
    book.close()
    path = tmp_path / "hidden.xlsx"
    with zipfile.ZipFile(made) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for name in source.namelist():
            data = source.read(name)
            if name == "xl/workbook.xml":
                start, end = data.index(b"<sheets>"), data.index(b"</sheets>") + len(b"</sheets>")
                data = data[:start] + sheets.encode() + data[end:]
            out.writestr(name, data)
    assert main(["calc", str(path), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [f"rates-xl calc: {path}: the workbook has {said}, which Excel does not allow; "
                                "is it corrupt?"], err
    assert not (tmp_path / "hidden.values.xlsx").exists()
