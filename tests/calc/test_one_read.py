"""calc reads a book with openpyxl once: the fast engine's preparation rewrites that workbook
in place and saves it for the engine, and the values-frozen copy is then written from the same
workbook, its changes undone (calc/undo.py). The copy must be byte for byte the one a fresh
read gives (bench/frozen_identity.py checks the corpus against main's copies)."""

from __future__ import annotations

import io
import re
import zipfile
from datetime import date

import openpyxl
from openpyxl.comments import Comment
from openpyxl.styles import Border, Side
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.formula import ArrayFormula

from rates_xl.calc.book import Book
from rates_xl.calc.engines.formualizer import prepare
from rates_xl.calc.workbook import WorkbookCalculation

STAMPS = re.compile(rb"<dcterms:(created|modified)[^>]*>[^<]*</dcterms:\1>")


def _parts(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        found = {name: package.read(name) for name in package.namelist()}
    found["docProps/core.xml"] = STAMPS.sub(b"", found["docProps/core.xml"])
    return found


def _book(path):
    """A book whose preparation changes much: rewritten formulas (an implicit intersection),
    a defined name's text (the intersection operator), helper cells (SUM(LEN(range))), a
    helper sheet (many VLOOKUPs over one table), an array formula's stored range emptied, a
    function the engine does not know (its cached value written in), date formats dropped;
    and merged cells, borders and a comment the copy keeps."""
    wb = openpyxl.Workbook()
    data = wb.active
    data.title = "Data"
    for n in range(1, 101):
        data.append([n, n * 10, f"v{n}"])
    report = wb.create_sheet("Report")
    for n in range(1, 41):
        report[f"A{n}"] = f"=VLOOKUP({n},Data!$A:$C,2,FALSE)"
        report[f"B{n}"] = f"=VLOOKUP({n},Data!$A:$C,3,FALSE)"
    report["D1"], report["D2"], report["D3"] = "ab", "c", "def"
    report["E1"] = "=SUM(LEN(D1:D3))"  # helper cells
    report["E2"] = "=A1:A3*2"  # an implicit intersection (row 2)
    report["E3"] = "=NOSUCHFUNCTION(1)"
    report["E4"] = "=SUM(both)"
    report["F1"] = ArrayFormula("F1:F3", "=A1:A3+1")
    report["F2"], report["F3"] = 7, 8  # stored values of the array's range
    report["G1"] = date(2026, 1, 2)
    report["G1"].number_format = "yyyy-mm-dd"
    report["G2"] = "=G1+1"
    report["G2"].number_format = "yyyy-mm-dd"
    report.merge_cells("H1:I2")
    report["H1"] = "=E1"
    thin = Side(style="thin")
    report["I2"].border = Border(right=thin, bottom=thin)
    report["E1"].comment = Comment("the lengths", "someone")
    wb.defined_names["both"] = DefinedName("both", attr_text="Data!$A$1:$C$5 Data!$B$1:$B$9")
    wb.save(path)
    return path


def test_the_copy_from_the_one_read_equals_the_copy_from_a_fresh_read(tmp_path, monkeypatch):
    path = _book(tmp_path / "prepared.xlsx")
    seen = []

    def spy(*args, **kwargs):
        seen.append(prepared := real(*args, **kwargs))
        return prepared

    real = prepare.prepare
    monkeypatch.setattr(prepare, "prepare", spy)
    calc = WorkbookCalculation(path, full=True)
    result = calc.compute()
    assert result.engine == "fast"
    # The preparation did change the workbook it was lent (else this test proves nothing).
    [prepared] = seen
    engine_copy = openpyxl.load_workbook(io.BytesIO(prepared.data))
    assert len(engine_copy.sheetnames) == 3  # the lookups' helper sheet
    assert engine_copy["Report"].max_column > openpyxl.load_workbook(path)["Report"].max_column  # helper cells
    assert engine_copy.defined_names["both"].attr_text != "Data!$A$1:$C$5 Data!$B$1:$B$9"
    assert prepared.rewritten[("Report", "E2")] == "intersected"
    assert ("Report", "E3") in prepared.unsupported
    assert engine_copy["Report"]["G1"].number_format == "General"
    # The first copy is written from the one read, the second from a fresh read.
    once = calc.freeze(result, tmp_path / "once.xlsx")
    again = calc.freeze(result, tmp_path / "again.xlsx")
    assert _parts(once.read_bytes()) == _parts(again.read_bytes())
    copy = openpyxl.load_workbook(once)
    assert copy.sheetnames == ["Data", "Report"]
    assert copy["Report"]["E1"].value == 6 and copy["Report"]["E2"].value == 40
    assert copy["Report"]["G1"].number_format == "yyyy-mm-dd"
    assert copy.defined_names["both"].attr_text == "Data!$A$1:$C$5 Data!$B$1:$B$9"


def test_a_lent_workbook_comes_back_as_read_whatever_it_went_through(tmp_path):
    """Cells set, created and emptied, a sheet appended, names rewritten and added, formats
    changed in place and a save in between: given back, the workbook saves as a fresh read."""
    path = _book(tmp_path / "book.xlsx")
    book = Book(path)
    workbook = book.engine_copy()
    report = workbook["Report"]
    report["A1"] = "=1+1"
    report["D1"].value = None
    report["Z99"] = "a new cell"
    report["G1"]._style.numFmtId = 0
    report["D2"].number_format = "0.000%"  # a format the book did not have
    workbook.create_sheet("Helper")["A1"] = "=Data!A1"
    workbook.defined_names["both"].attr_text = "Data!$B$1:$B$5"
    workbook.defined_names["new"] = DefinedName("new", attr_text="Data!$A$1")
    workbook.calculation.iterate = True
    workbook.save(io.BytesIO())
    restored = io.BytesIO()
    given_back = book.writable_copy(keep_vba=False)
    assert given_back is workbook  # not read again
    given_back.save(restored)
    fresh = io.BytesIO()
    Book(path).writable_copy(keep_vba=False).save(fresh)
    assert _parts(restored.getvalue()) == _parts(fresh.getvalue())
