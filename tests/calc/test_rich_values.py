"""A cell holding a rich value (`<c t="e" vm="1"><v>#VALUE!</v></c>`) is stored as #VALUE! for
readers that know none, openpyxl and the engines among them; the value is in xl/richData
(calc/rich_values.py): an error past the classic seven (an empty FILTER's #CALC!, errorType 13),
a picture placed in a cell, IMAGE's answer, a linked data type (a stock, a currency pair).

Before, the engine read #VALUE!: `ERROR.TYPE` of a kept #CALC! was 3 where Excel has 14,
`ISERROR` of a picture TRUE where Excel has FALSE, silently in a formula recomputed for NOW;
and the copy lost the picture without a word. Now a kept #CALC! or #SPILL! is itself to what
reads it; each formula reading any other such value, directly or through others, keeps Excel's
value and is listed; and the summary names what the copy lacks (calc/copy_losses.py)."""

from __future__ import annotations

import openpyxl
import pytest
import xlsxwriter
from PIL import Image

from rates_xl.calc.package import Package
from rates_xl.calc.rich_values import PICTURE_OR_DATA_TYPE
from rates_xl.cli import main
from tests.calc.corpus.build import edit_parts, saved_by_excel

NOW = "+ROUND(NOW(),0)*0"
_RICH = "http://schemas.microsoft.com/office/spreadsheetml/2017/richdata"


def _with_picture(path):
    """A book whose sheet S holds a picture in A1 (XlsxWriter's `embed_image` writes one as
    Excel does), open for the test's own cells."""
    picture = path.with_suffix(".png")
    Image.new("RGB", (4, 4), (0, 90, 200)).save(picture)
    book = xlsxwriter.Workbook(path)
    sheet = book.add_worksheet("S")
    sheet.embed_image("A1", str(picture))
    return book, sheet


def _picture_book(tmp_path):
    path = tmp_path / "dashboard.xlsx"
    book, sheet = _with_picture(path)
    sheet.write_formula("B1", f"=ISERROR(A1){NOW}", None, 0)  # (FALSE+0 in Excel)
    sheet.write_formula("C1", "=B1*10", None, 0)  # (through B1)
    sheet.write_number("A2", 4)
    sheet.write_formula("B2", f"=A2*2{NOW}", None, 8)
    book.close()
    return path


def _error_book(tmp_path, error_type: int, error_type_of_excel: int):
    """A1 an empty FILTER Excel saved as #VALUE! with its rich error (errorType, 0-based, as
    formulas_test.xlsx's FILTER!W22 holds its #CALC!); B1 reads it, recomputed for NOW."""
    path = tmp_path / "filter.xlsx"
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    sheet["Z1"], sheet["Z2"] = 1, 2
    sheet["A1"] = "=_xlfn._xlws.FILTER(Z1:Z2,Z1:Z2>5)"
    sheet["B1"] = f"=ERROR.TYPE(A1){NOW}"
    book.save(path)

    def excel_saved_it(parts):
        saved_by_excel(parts, 1, {"A1": "#VALUE!", "B1": error_type_of_excel}, tags={"A1": 'vm="1"'})
        parts["xl/metadata.xml"] = (
            '<metadata xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
            f'xmlns:xlrd="{_RICH}"><metadataTypes count="1"><metadataType name="XLRICHVALUE"/></metadataTypes>'
            '<futureMetadata name="XLRICHVALUE" count="1"><bk><extLst><ext uri="{3e2802c4-a4d2-4d8b-9148-e3be6c30e623}">'
            '<xlrd:rvb i="0"/></ext></extLst></bk></futureMetadata>'
            '<valueMetadata count="1"><bk><rc t="1" v="0"/></bk></valueMetadata></metadata>').encode()
        parts["xl/richData/rdrichvaluestructure.xml"] = (
            f'<rvStructures xmlns="{_RICH}" count="1"><s t="_error"><k n="errorType" t="i"/>'
            '<k n="subType" t="i"/></s></rvStructures>').encode()
        parts["xl/richData/rdrichvalue.xml"] = (
            f'<rvData xmlns="{_RICH}" count="1"><rv s="0"><v>{error_type}</v><v>0</v></rv></rvData>').encode()

    edit_parts(path, excel_saved_it)
    return path


def test_a_formula_reading_a_picture_in_a_cell_is_listed_and_the_copy_says_what_it_lacks(tmp_path, capsys):
    book, out = _picture_book(tmp_path), tmp_path / "out.xlsx"
    assert Package.open(book).rich_value_cells() == {("S", "A1"): PICTURE_OR_DATA_TYPE}
    code = main(["calc", str(book), "-o", str(out), "--no-progress"])
    printed = capsys.readouterr().out
    why = "it reads S!A1, which holds a picture or a data type (a rich value), which the engine cannot hold"
    assert f"S!B1: not computed ({why})" in printed and f"S!C1: not computed ({why})" in printed
    assert "S!B2: not computed" not in printed
    assert "1 rich cell value (a picture or a data type in a cell)" in printed
    values = openpyxl.load_workbook(out)["S"]
    assert [values["B1"].value, values["C1"].value, values["B2"].value] == [0, 0, 8]
    assert code == 3


def test_a_kept_calc_error_is_itself_to_what_reads_it(tmp_path, capsys):
    book, out = _error_book(tmp_path, 13, 14), tmp_path / "out.xlsx"
    assert Package.open(book).rich_value_cells() == {("S", "A1"): "#CALC!"}
    code = main(["calc", str(book), "-o", str(out), "--no-progress"])  # (A1 kept: only NOW's readers recomputed)
    printed = capsys.readouterr().out
    assert openpyxl.load_workbook(out)["S"]["B1"].value == 14 and "not computed" not in printed
    assert "1 newer error value (#CALC!, #SPILL! ...: #VALUE! in the copy)" in printed
    assert code == 3 and "0 stale" in printed  # (3: A1's error, as the summary lists it)


@pytest.mark.parametrize(("error_type", "text"), [(14, "#BUSY!"), (12, "#FIELD!"), (18, "an error of type 19")])
def test_a_formula_reading_an_error_the_engine_has_no_kind_for_is_listed(tmp_path, capsys, error_type, text):
    book, out = _error_book(tmp_path, error_type, error_type + 1), tmp_path / "out.xlsx"
    main(["calc", str(book), "-o", str(out), "--no-progress"])
    printed = capsys.readouterr().out
    assert f"S!B1: not computed (it reads S!A1, which holds {text}, an error the engine cannot hold)" in printed
    assert openpyxl.load_workbook(out)["S"]["B1"].value == error_type + 1


def test_a_book_without_value_metadata_has_no_rich_value_cell(tmp_path):
    book = openpyxl.Workbook()
    book.active["A1"] = "=1/0"
    book.save(tmp_path / "plain.xlsx")
    assert Package.open(tmp_path / "plain.xlsx").rich_value_cells() == {}


@pytest.mark.parametrize(("metadata", "read"), [
    (b"<metadata><valueMetadata", {}),  # (malformed: nothing read)
    (b'<?xml version="1.0"?><m>valueMetadata</m>', {("S", "A1"): PICTURE_OR_DATA_TYPE}),  # (no record: cannot tell)
])
def test_rich_data_calc_cannot_read_costs_nothing_else(tmp_path, capsys, metadata, read):
    """Malformed or foreign metadata: the book computed, one clear summary; a cell marked with
    a rich value whose record is missing is one calc cannot tell, and its readers are listed."""
    book = _error_book(tmp_path, 13, 14)

    def broken(parts):
        parts["xl/metadata.xml"] = metadata

    edit_parts(book, broken)
    assert Package.open(book).rich_value_cells() == read
    assert main(["calc", str(book), "-o", str(tmp_path / "out.xlsx"), "--no-progress"]) == 3
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and ("S!B1: not computed" in captured.out) == bool(read)


def test_vm_written_in_a_cell_s_text_is_no_rich_value(tmp_path):
    """Only a `vm` attribute in a cell's start tag marks one; the same characters in a text
    (an inline string, 50,000 times) do not, and each is looked back from a short way only."""
    book = _error_book(tmp_path, 13, 14)

    def text_like_vm(parts):
        sheet = parts["xl/worksheets/sheet1.xml"].decode()
        inline = '<c r="C1" t="inlineStr"><is><t>' + ' vm="1"' * 50_000 + "</t></is></c>"
        parts["xl/worksheets/sheet1.xml"] = sheet.replace("</row>", inline + "</row>", 1).encode()

    edit_parts(book, text_like_vm)
    assert Package.open(book).rich_value_cells() == {("S", "A1"): "#CALC!"}


def test_what_reads_a_spilled_cell_of_an_array_reading_a_picture_is_listed(tmp_path, capsys):
    """The engine's graph names an array anchor's readers apart from those of the cells it
    spills into: `=B2*10` over `B1:B2 = SEQUENCE(2)*0+ISERROR(A1)` read the engine's B2 (1,
    the picture read as #VALUE!) where Excel has 0, silently, with B1 listed."""
    path = tmp_path / "spill.xlsx"
    book, sheet = _with_picture(path)
    sheet.write_dynamic_array_formula("B1:B2", "=SEQUENCE(2)*0+ISERROR(A1)", None, 0)
    sheet.write_number("B2", 0)
    sheet.write_formula("D1", "=B2*10", None, 0)
    book.close()
    out = tmp_path / "out.xlsx"
    main(["calc", str(path), "--full", "-o", str(out), "--no-progress"])
    printed = capsys.readouterr().out
    assert "S!B1: not computed (it reads S!A1" in printed and "S!D1: not computed (it reads S!A1" in printed
    values = openpyxl.load_workbook(out)["S"]
    assert [values["B1"].value, values["B2"].value, values["D1"].value] == [0, 0, 0]


def test_what_reads_a_picture_through_a_defined_name_is_listed(tmp_path, capsys):
    """formualizer's dependency report names no formula reading a cell through a defined name
    (`=ISERROR(Logo)`, `=COUNTA(Logos)`): those read the engine's #VALUE! where Excel has the
    picture, silently, and are listed now, with what reads them."""
    path = tmp_path / "named.xlsx"
    book, sheet = _with_picture(path)
    book.define_name("Logo", "=S!$A$1")
    book.define_name("Logos", "=S!$A$1:$A$3")
    sheet.write_formula("B1", "=ISERROR(logo)*1", None, 0)
    sheet.write_formula("B2", "=COUNTA(Logos)+ISERR(Logos)", None, 1)
    sheet.write_formula("B3", "=B1+1", None, 1)
    sheet.write_formula("B4", '="Logo"&1', None, "Logo1")  # (the name in a text: no reader)
    book.close()
    out = tmp_path / "out.xlsx"
    main(["calc", str(path), "--full", "-o", str(out), "--no-progress"])
    printed = capsys.readouterr().out
    for cell in ("B1", "B2", "B3"):
        assert f"S!{cell}: not computed (it reads S!A1" in printed, cell
    assert "S!B4: not computed" not in printed
    values = openpyxl.load_workbook(out)["S"]
    assert [values[c].value for c in ("B1", "B2", "B3", "B4")] == [0, 1, 1, "Logo1"]


def test_readers_the_engine_cannot_trace_send_the_book_to_the_other_engine(tmp_path, capsys, monkeypatch):
    """Should formualizer's dependency report fail, the book is computed by the `formulas`
    engine with a note saying why, never lost to a traceback."""
    from rates_xl.calc.engines.formualizer import model

    def fails(self, cells):
        raise RuntimeError("dependency state unavailable")

    monkeypatch.setattr(model.FastModel, "readers", fails)
    main(["calc", str(_picture_book(tmp_path)), "-o", str(tmp_path / "out.xlsx"), "--no-progress"])
    captured = capsys.readouterr()
    assert "computed with the formulas engine: the fast engine could not find what reads a value it cannot hold " \
           "(RuntimeError: dependency state unavailable)" in captured.out
    assert "Traceback" not in captured.err


def test_what_builds_its_reference_as_it_computes_is_listed_in_a_book_holding_a_picture(tmp_path, capsys):
    """The dependency graph holds no reference INDIRECT or OFFSET makes as it computes:
    `=ISERROR(OFFSET(A2,-1,0))` and `=ISERROR(INDIRECT("S!A"&1))` over a picture in A1 were
    TRUE (1 here) where Excel has FALSE, silently, and `=B2+1` 2; a name defined by such a
    formula too. Each such formula, and what reads it, keeps Excel's value and is listed;
    an INDIRECT of a literal reference is that reference, found as any other."""
    path = tmp_path / "built.xlsx"
    book, sheet = _with_picture(path)
    book.define_name("Moving", "=OFFSET(S!$A$2,-1,0)")
    sheet.write_formula("B1", "=ISERROR(OFFSET(A2,-1,0))*1", None, 0)
    sheet.write_formula("B2", '=ISERROR(INDIRECT("S!A"&1))*1', None, 0)
    sheet.write_formula("B3", "=B2+1", None, 1)
    sheet.write_formula("B4", "=ISERROR(Moving)*1", None, 0)
    sheet.write_formula("B5", '=ISERROR(INDIRECT("A1"))*1', None, 0)
    sheet.write_number("A5", 3)
    sheet.write_formula("B6", "=A5*2", None, 6)  # (reads no reference built: computed)
    book.close()
    out = tmp_path / "out.xlsx"
    main(["calc", str(path), "--full", "-o", str(out), "--no-progress"])
    printed = capsys.readouterr().out
    built = "its reference is built as it computes (INDIRECT or OFFSET) and may be S!A1, which holds a picture"
    for cell in ("B1", "B2", "B4"):
        assert f"S!{cell}: not computed ({built}" in printed, cell
    assert "S!B3: not computed (it reads S!B2, whose reference is built as it computes and may be S!A1" in printed
    assert "S!B5: not computed (it reads S!A1, which holds a picture" in printed
    assert "S!B6: not computed" not in printed
    values = openpyxl.load_workbook(out)["S"]
    assert [values[f"B{i}"].value for i in range(1, 7)] == [0, 0, 1, 0, 0, 6]


def test_what_builds_its_reference_is_computed_in_a_book_holding_no_such_value(tmp_path, capsys):
    """Without a value the engine cannot hold, a formula building its reference is computed
    as any other (nothing it could read is in doubt)."""
    path = tmp_path / "plain.xlsx"
    book = xlsxwriter.Workbook(path)
    sheet = book.add_worksheet("S")
    sheet.write_number("A1", 5)
    sheet.write_formula("B1", "=OFFSET(A2,-1,0)*2", None, 10)
    sheet.write_formula("B2", '=INDIRECT("S!A"&1)+1', None, 6)
    book.close()
    out = tmp_path / "out.xlsx"
    main(["calc", str(path), "--full", "-o", str(out), "--no-progress"])
    assert "not computed" not in capsys.readouterr().out
    values = openpyxl.load_workbook(out)["S"]
    assert [values["B1"].value, values["B2"].value] == [10, 6]


def test_the_formulas_engine_lists_what_reads_a_picture_or_a_newer_error(tmp_path, capsys):
    """The `formulas` engine (the fallback, or `--engine formulas`) reads the file itself, where
    a picture is #VALUE! and a pasted #BUSY! an error it has no kind for: `=ISERROR(A1)*1` over
    the picture was 1 where Excel has 0, silently, and so was what reads it or finds the picture
    through OFFSET. Each is listed, Excel's value kept; what reads neither is computed."""
    path = tmp_path / "fallback.xlsx"
    book, sheet = _with_picture(path)
    sheet.write_formula("B1", "=ISERROR(A1)*1", None, 0)
    sheet.write_formula("B2", "=B1+1", None, 1)
    sheet.write_formula("B3", "=ISERROR(OFFSET(A2,-1,0))*1", None, 0)
    sheet.write_formula("B4", "=ERROR.TYPE(A6)", None, 16)  # (#BUSY! pasted in A6: `busy` below)
    sheet.write_number("A5", 3)
    sheet.write_formula("B5", "=A5*2", None, 6)
    book.close()

    def busy(parts):
        parts["xl/worksheets/sheet1.xml"] = parts["xl/worksheets/sheet1.xml"].replace(
            b"</sheetData>", b'<row r="6"><c r="A6" t="e"><v>#BUSY!</v></c></row></sheetData>')

    edit_parts(path, busy)
    out = tmp_path / "out.xlsx"
    main(["calc", str(path), "--full", "--engine", "formulas", "-o", str(out), "--no-progress"])
    printed = capsys.readouterr().out
    why = "it may read S!A1 (and 1 other such cell), directly, through other formulas or through a reference built"
    for cell in ("B1", "B2", "B4"):
        assert f"S!{cell}: not computed ({why}" in printed, cell
    assert "S!B3: not computed (calls OFFSET, which the formulas engine does not know)" in printed
    assert "S!B5: not computed" not in printed
    values = openpyxl.load_workbook(out)["S"]
    assert [values[f"B{i}"].value for i in range(1, 6)] == [0, 1, 0, 16, 6]
