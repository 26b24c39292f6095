"""A book with pivot tables openpyxl cannot read is computed, never lost whole (calc/pivot_read.py).

Items grouped by hand in a pivot table (`<fieldGroup><discretePr>` in its cache) failed
openpyxl 3.1.5's read of the whole book: SheetJS' test_files pivot_table_named_range.xlsx,
saved by Excel for Mac, was "cannot read the workbook (TypeError: Nested.from_tree() missing 1
required positional argument: 'node')", its 80 formulas lost. The books here are that cache's
shape written by hand (an openpyxl-made book with one pivot table added to its package).
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import openpyxl

from rates_xl.calc import openpyxl_read, pivot_read
from rates_xl.cli import main
from tests.support.commands import fresh_env, rates_xl

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_GROUPED = ('<cacheField name="Name2" numFmtId="0" databaseField="0"><fieldGroup base="0">'
            '<discretePr count="2"><x v="0"/><x v="0"/></discretePr><groupItems count="1"><s v="Group1"/>'
            '</groupItems></fieldGroup></cacheField>')
_CACHE = (f'<pivotCacheDefinition xmlns="{_MAIN}" xmlns:r="{_REL}" refreshOnLoad="1" recordCount="2">'
          '<cacheSource type="worksheet"><worksheetSource ref="A1:B3" sheet="Data"/></cacheSource>'
          '<cacheFields count="3"><cacheField name="Name" numFmtId="0"><sharedItems count="2"><s v="a"/><s v="b"/>'
          '</sharedItems></cacheField><cacheField name="Amount" numFmtId="0"><sharedItems containsSemiMixedTypes="0" '
          'containsString="0" containsNumber="1" containsInteger="1" minValue="1" maxValue="2"/></cacheField>'
          f'{_GROUPED}</cacheFields></pivotCacheDefinition>')
_TABLE = (f'<pivotTableDefinition xmlns="{_MAIN}" name="PivotTable1" cacheId="7" dataCaption="Values" '
          'updatedVersion="4" minRefreshableVersion="3" createdVersion="4" outline="1" outlineData="1">'
          '<location ref="E1:F3" firstHeaderRow="1" firstDataRow="1" firstDataCol="1"/>'
          '<pivotFields count="3"><pivotField axis="axisRow" showAll="0"><items count="3"><item x="0"/><item x="1"/>'
          '<item t="default"/></items></pivotField><pivotField dataField="1" showAll="0"/>'
          '<pivotField showAll="0" defaultSubtotal="0"/></pivotFields><rowFields count="1"><field x="0"/></rowFields>'
          '<dataFields count="1"><dataField name="Sum of Amount" fld="1" baseField="0" baseItem="0"/></dataFields>'
          '</pivotTableDefinition>')


def _rels(*relations: tuple[str, str, str]) -> str:
    listed = "".join(f'<Relationship Id="{rid}" Type="{_REL}/{kind}" Target="{target}"/>'
                     for rid, kind, target in relations)
    return f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="{_RELS}">{listed}</Relationships>'


def _book_with_pivot(tmp_path: Path, table: str = _TABLE, sheets: int = 1) -> Path:
    """Data!A1:B3 (two names and amounts), C2:C3 formulas over them, and one pivot table at
    E1 whose cache holds a field grouped by hand; `sheets` - 1 more sheets, each summing them."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    for row in (("Name", "Amount", "Twice"), ("a", 1, "=B2*2"), ("b", 2, "=B3*2+C2")):
        ws.append(row)
    for number in range(1, sheets):
        wb.create_sheet(f"More{number}")["A1"] = f"=SUM(Data!C2:C3)+{number}"
    plain = io.BytesIO()
    wb.save(plain)
    path = tmp_path / "pivot.xlsx"
    with zipfile.ZipFile(plain) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for name in source.namelist():
            data = source.read(name).decode()
            if name == "xl/workbook.xml":
                data = data.replace("</workbook>", f'<pivotCaches><pivotCache xmlns:r="{_REL}" cacheId="7" '
                                    'r:id="rIdPivot"/></pivotCaches></workbook>')
            elif name == "xl/_rels/workbook.xml.rels":
                data = data.replace("</Relationships>", f'<Relationship Id="rIdPivot" Type="{_REL}/pivotCacheDefinition" '
                                    'Target="pivotCache/pivotCacheDefinition1.xml"/></Relationships>')
            elif name == "[Content_Types].xml":
                data = data.replace("</Types>", (
                    '<Override PartName="/xl/pivotTables/pivotTable1.xml" ContentType="application/'
                    'vnd.openxmlformats-officedocument.spreadsheetml.pivotTable+xml"/><Override PartName='
                    '"/xl/pivotCache/pivotCacheDefinition1.xml" ContentType="application/'
                    'vnd.openxmlformats-officedocument.spreadsheetml.pivotCacheDefinition+xml"/></Types>'))
            out.writestr(name, data)
        assert "xl/worksheets/_rels/sheet1.xml.rels" not in source.namelist()
        out.writestr("xl/worksheets/_rels/sheet1.xml.rels",
                     _rels(("rId1", "pivotTable", "../pivotTables/pivotTable1.xml")))
        out.writestr("xl/pivotTables/pivotTable1.xml", table)
        out.writestr("xl/pivotTables/_rels/pivotTable1.xml.rels",
                     _rels(("rId1", "pivotCacheDefinition", "../pivotCache/pivotCacheDefinition1.xml")))
        out.writestr("xl/pivotCache/pivotCacheDefinition1.xml", _CACHE)
    return path


def test_a_pivot_with_items_grouped_by_hand_is_read_and_kept_in_the_copy(tmp_path, capsys):
    book = _book_with_pivot(tmp_path)
    out = tmp_path / "pivot.values.xlsx"
    assert main(["calc", str(book), "-o", str(out), "--full", "--no-progress"]) == 0, capsys.readouterr()
    printed = capsys.readouterr().out
    assert "values-frozen copy lacks" not in printed, printed
    copy = openpyxl.load_workbook(out)  # (values frozen: the formulas' answers)
    assert [copy["Data"]["C2"].value, copy["Data"]["C3"].value] == [2, 6]
    with zipfile.ZipFile(out) as written:
        assert "xl/pivotTables/pivotTable1.xml" in written.namelist()
        cache = written.read("xl/pivotCache/pivotCacheDefinition1.xml").decode()
    # The group as Excel wrote it: its two items' group numbers, then the group's name.
    group = re.search(r"<fieldGroup[^>]*>.*?</fieldGroup>", cache)
    assert group is not None, cache
    assert re.sub(r"\s", "", group.group(0)) == ('<fieldGroupbase="0"><discretePrcount="2"><xv="0"/><xv="0"/>'
                                                 '</discretePr><groupItemscount="1"><sv="Group1"/></groupItems>'
                                                 '</fieldGroup>')


def test_the_caches_are_read_once_per_book_not_once_per_sheet(tmp_path, monkeypatch):
    """openpyxl read every pivot cache (and its records: 20,000 take 1.8 CPU s) again for each
    sheet of the book; the copies it made were equal and written as one."""
    from openpyxl.pivot.cache import CacheDefinition

    book = _book_with_pivot(tmp_path, sheets=4)
    reads = []
    original = CacheDefinition.from_tree.__func__

    def counted(cls, node):
        reads.append(node)
        return original(cls, node)

    monkeypatch.setattr(CacheDefinition, "from_tree", classmethod(counted))
    read = openpyxl_read.load_workbook(book)
    assert len(reads) == 1
    assert [len(ws._pivots) for ws in read.worksheets] == [1, 0, 0, 0]
    assert read["More3"]["A1"].value == "=SUM(Data!C2:C3)+3"


def test_the_diff_explains_two_copies_of_such_a_book(tmp_path, capsys):
    """`rates-xl diff -o` writes its explanation into the later copy read again (calc/diff.py):
    "cannot read the workbook (TypeError)" before. (In a process of its own: no calc before it
    has read a pivot table.)"""
    book = _book_with_pivot(tmp_path)
    first, later, explained = (tmp_path / name for name in ("a.values.xlsx", "b.values.xlsx", "explain.xlsx"))
    for copy in (first, later):
        assert main(["calc", str(book), "-o", str(copy), "--no-progress"]) == 0, capsys.readouterr()
    done = rates_xl("diff", first.name, later.name, "-o", explained.name, cwd=tmp_path,
                    env=fresh_env(tmp_path / "home"))
    assert done.returncode == 0, done.stdout + done.stderr
    with zipfile.ZipFile(explained) as written:
        assert "discretePr" in written.read("xl/pivotCache/pivotCacheDefinition1.xml").decode()


def test_a_pivot_table_openpyxl_cannot_read_is_left_out_of_the_copy_and_named(tmp_path, capsys):
    """Any other pivot part openpyxl fails on (here a location that is no range): the book is
    computed without the table, and the summary says the copy lacks it."""
    book = _book_with_pivot(tmp_path, _TABLE.replace('firstHeaderRow="1"', 'firstHeaderRow="first"'))
    try:
        openpyxl.load_workbook(book)
    except Exception as exc:  # noqa: BLE001 - the failure this reproduces, whatever openpyxl raises
        failed = exc
    else:
        raise AssertionError("openpyxl read the broken pivot table: the test reproduces nothing")
    out = tmp_path / "pivot.values.xlsx"
    assert main(["calc", str(book), "-o", str(out), "--full", "--no-progress"]) == 0, (failed, capsys.readouterr())
    note = next(line for line in capsys.readouterr().out.splitlines() if "values-frozen copy lacks" in line)
    assert "1 pivot table" in note, note
    copy = openpyxl.load_workbook(out)
    assert [copy["Data"]["C2"].value, copy["Data"]["C3"].value] == [2, 6]


def test_a_book_openpyxl_cannot_read_for_another_reason_still_says_why(tmp_path):
    """Read again without its pivot tables only to see whether they were the cause: when that
    fails too, the first failure is what is raised."""
    book = _book_with_pivot(tmp_path)
    broken = tmp_path / "broken.xlsx"
    with zipfile.ZipFile(book) as source, zipfile.ZipFile(broken, "w") as out:
        for name in source.namelist():
            data = source.read(name)
            out.writestr(name, data.replace(b"<sheetData>", b"<sheetData><row r=\"x\">") if "sheet1.xml" in name
                         and not name.endswith(".rels") else data)
    first = None
    try:
        openpyxl.load_workbook(broken)
    except Exception as exc:  # noqa: BLE001 - whatever openpyxl raises
        first = exc
    assert first is not None
    try:
        openpyxl_read.load_workbook(broken)
    except Exception as exc:  # noqa: BLE001
        assert type(exc) is type(first) and str(exc) == str(first)
    else:
        raise AssertionError("read a book openpyxl cannot")


def test_without_pivots_leaves_a_book_without_them_alone(tmp_path):
    book = _book_with_pivot(tmp_path)
    stripped = pivot_read.without_pivots(book.read_bytes())
    assert stripped is not None
    with zipfile.ZipFile(io.BytesIO(stripped)) as read:
        assert b"pivotCaches" not in read.read("xl/workbook.xml")
        assert b"pivotTable" not in read.read("xl/worksheets/_rels/sheet1.xml.rels")
    assert pivot_read.without_pivots(stripped) is None
    assert pivot_read.without_pivots(b"not a zip") is None
