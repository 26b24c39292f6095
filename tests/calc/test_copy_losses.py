"""The values-frozen copy is written by openpyxl, which does not carry over shapes, sparklines,
embedded objects and the like: the summary names what the copy lacks, counted in both files
(calc/copy_losses.py), and pictures survive (Pillow installed)."""

from __future__ import annotations

import warnings
import zipfile
from pathlib import Path

import openpyxl
import pytest
import xlsxwriter
from PIL import Image

from rates_xl.calc import copy_losses
from rates_xl.cli import main
from tests.calc.corpus.build import edit_parts

MODELS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "models"
LOAN_TRACKER = MODELS / "dataresearchlabs_MyLoanTracker_v010009_FREE.xlsx"


def _book_with_drawings(tmp_path: Path) -> Path:
    picture = tmp_path / "logo.png"
    Image.new("RGB", (8, 8), (200, 30, 30)).save(picture)
    path = tmp_path / "dashboard.xlsx"
    wb = xlsxwriter.Workbook(path)
    ws = wb.add_worksheet("Dashboard")
    for row, value in enumerate((1.0, 2.5, 2.0, 3.5)):
        ws.write_number(row, 0, value)
    ws.write_formula("B1", "=SUM(A1:A4)", None, 9)
    ws.insert_image("D2", str(picture))
    ws.insert_textbox("D8", "Refresh before the meeting")
    ws.add_sparkline("C1", {"range": "Dashboard!A1:A4"})
    wb.close()
    return path


def test_the_summary_names_what_the_copy_lacks_and_the_picture_survives(tmp_path, capsys):
    book = _book_with_drawings(tmp_path)
    out = tmp_path / "dashboard.values.xlsx"
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        assert main(["calc", str(book), "-o", str(out), "--no-progress"]) == 0
    # openpyxl's own warnings ("Sparkline Group extension is not supported ...") stay off stderr
    assert [str(w.message) for w in warned if "openpyxl" in w.filename] == []
    printed = capsys.readouterr().out
    note = next(line for line in printed.splitlines() if "values-frozen copy lacks" in line)
    assert "1 shape" in note and "1 sparkline group" in note, note
    assert "picture" not in note, note
    with zipfile.ZipFile(out) as copy, zipfile.ZipFile(book) as original:
        assert copy_losses.kinds(copy)["picture"] == 1
        assert copy_losses.lost(original, copy) == copy_losses.kinds(original) - copy_losses.kinds(copy)
        # (a part is read only for the kinds asked: no sheet read, no sparkline counted)
        assert copy_losses.kinds(copy, only={"picture"})["picture"] == 1
        assert copy_losses.kinds(original, only={"picture"})["sparkline group"] == 0
        assert any(name.startswith("xl/media/") for name in copy.namelist())
    assert openpyxl.load_workbook(out)["Dashboard"]["B1"].value == 9


def test_a_copy_that_lacks_nothing_says_nothing(tmp_path, capsys):
    path = tmp_path / "plain.xlsx"
    wb = openpyxl.Workbook()
    wb.active["A1"], wb.active["A2"] = 2, "=A1*3"
    wb.save(path)
    assert main(["calc", str(path), "-o", str(tmp_path / "plain.values.xlsx"), "--no-progress"]) == 0
    assert "values-frozen copy lacks" not in capsys.readouterr().out


def test_counts_are_differences_of_each_kind(tmp_path):
    """A kind the copy holds as many of is not named; one it holds fewer of is, by how many."""
    original = copy_losses.kinds(zipfile.ZipFile(_book_with_drawings(tmp_path)))
    assert original["picture"] == 1 and original["shape"] == 1 and original["sparkline group"] == 1
    assert copy_losses.phrase(original - original) is None
    fewer = original.copy()
    fewer["shape"] -= 1
    assert copy_losses.phrase(original - fewer).count("shape") == 1


@pytest.mark.skipif(not LOAN_TRACKER.exists(), reason="../shared/corpus/models is not beside the repository")
def test_the_loan_trackers_copy_names_its_shapes_and_embedded_object(tmp_path, capsys):
    out = tmp_path / "loan.values.xlsx"
    main(["calc", str(LOAN_TRACKER), "-o", str(out), "--no-progress"])
    printed = capsys.readouterr().out
    note = next(line for line in printed.splitlines() if "values-frozen copy lacks" in line)
    with zipfile.ZipFile(LOAN_TRACKER) as original, zipfile.ZipFile(out) as copy:
        before, after = copy_losses.kinds(original), copy_losses.kinds(copy)
        # (`lost` reads the copy only for the kinds the original holds: the same difference)
        assert copy_losses.lost(original, copy) == before - after
        assert copy_losses.kinds(copy, only={"picture"})["picture"] == 12
    assert before["picture"] == 17 and after["picture"] == 12  # PNGs kept; EMF and SVG are not
    assert "5 pictures" in note and "1 embedded object" in note and "2 shapes" in note, note


def test_an_excel_4_macro_sheet_is_named_among_what_the_copy_lacks(tmp_path, capsys):
    """openpyxl reads an Excel 4 macro sheet (xl/macrosheets/, as old desk books keep their
    XLM macros) as a worksheet and writes it as one: its cells' values are in the copy, its
    kind is not, and the summary says so."""
    path = tmp_path / "macros.xlsx"
    book = openpyxl.Workbook()
    book.active.title = "S"
    book.active["A1"] = "=Macro1!A1*2"
    book.save(path)
    ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
    rels = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'

    def macro_sheet(parts):
        parts["xl/macrosheets/sheet1.xml"] = (
            f'<xm:macrosheet {ns} {rels} xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main">'
            '<sheetData><row r="1"><c r="A1"><v>21</v></c></row></sheetData></xm:macrosheet>').encode()
        parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace(b"</Types>", (
            b'<Override PartName="/xl/macrosheets/sheet1.xml" ContentType="application/vnd.ms-excel.macrosheet+xml"/>'
            b"</Types>"))
        parts["xl/_rels/workbook.xml.rels"] = parts["xl/_rels/workbook.xml.rels"].replace(b"</Relationships>", (
            b'<Relationship Id="rIdM1" Type="http://schemas.microsoft.com/office/2006/relationships/xlMacrosheet" '
            b'Target="macrosheets/sheet1.xml"/></Relationships>'))
        parts["xl/workbook.xml"] = parts["xl/workbook.xml"].replace(
            b"</sheets>", f'<sheet {rels} name="Macro1" sheetId="9" r:id="rIdM1"/></sheets>'.encode())

    edit_parts(path, macro_sheet)
    out = tmp_path / "out.xlsx"
    main(["calc", str(path), "--full", "-o", str(out), "--no-progress"])
    assert "1 Excel 4 macro sheet (its cells kept in a worksheet)" in capsys.readouterr().out
    assert openpyxl.load_workbook(out, data_only=True)["S"]["A1"].value == 42
