"""A workbook saved as Strict Open XML (Excel's "Strict Open XML Spreadsheet") is computed, read
as the Transitional workbook it maps to (calc/strict.py), where it was refused in one line.

The book is written here part by part as Excel 2013 and later write one in Strict (the layout
of apache/poi's Excel-made sample.strict.xlsx and SimpleStrict.xlsx: Strict's purl.oclc.org
names in every SpreadsheetML part and relationship, `conformance="strict"` on the workbook, a
date stored as ISO 8601 text), with Excel's cached values, which the check compares.
"""

from __future__ import annotations

import io
import zipfile
from datetime import datetime
from pathlib import Path

import openpyxl

from rates_xl.calc.strict import is_strict, mapped_name, transitional
from rates_xl.cli import main

MAIN = "http://purl.oclc.org/ooxml/spreadsheetml/main"
REL = "http://purl.oclc.org/ooxml/officeDocument/relationships"
HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'

PARTS = {
    "[Content_Types].xml": HEAD + (
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
        '<Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
        '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
        '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
        '<Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>'
        '</Types>'),
    "_rels/.rels": HEAD + (
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f'<Relationship Id="rId2" Type="{REL}/extendedProperties" Target="docProps/app.xml"/>'
        f'<Relationship Id="rId1" Type="{REL}/officeDocument" Target="xl/workbook.xml"/>'
        '</Relationships>'),
    "docProps/app.xml": HEAD + (
        '<Properties xmlns="http://purl.oclc.org/ooxml/officeDocument/extendedProperties" '
        'xmlns:vt="http://purl.oclc.org/ooxml/officeDocument/docPropsVTypes">'
        '<Application>Microsoft Excel</Application><AppVersion>16.0300</AppVersion></Properties>'),
    "xl/workbook.xml": HEAD + (
        f'<workbook xmlns="{MAIN}" xmlns:r="{REL}" '
        'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" mc:Ignorable="x15" '
        'xmlns:x15="http://schemas.microsoft.com/office/spreadsheetml/2010/11/main" conformance="strict">'
        '<fileVersion appName="xl" lastEdited="7" lowestEdited="7" rupBuild="27425"/>'
        '<workbookPr dateCompatibility="0" defaultThemeVersion="166925"/>'
        '<bookViews><workbookView xWindow="0" yWindow="0" windowWidth="28800" windowHeight="12300"/></bookViews>'
        '<sheets><sheet name="Inputs" sheetId="1" r:id="rId1"/><sheet name="Report" sheetId="2" r:id="rId2"/></sheets>'
        '<definedNames><definedName name="rate">Inputs!$A$1</definedName></definedNames>'
        '<calcPr calcId="191029"/></workbook>'),
    "xl/_rels/workbook.xml.rels": HEAD + (
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f'<Relationship Id="rId1" Type="{REL}/worksheet" Target="worksheets/sheet1.xml"/>'
        f'<Relationship Id="rId2" Type="{REL}/worksheet" Target="worksheets/sheet2.xml"/>'
        f'<Relationship Id="rId3" Type="{REL}/styles" Target="styles.xml"/>'
        f'<Relationship Id="rId4" Type="{REL}/sharedStrings" Target="sharedStrings.xml"/>'
        '</Relationships>'),
    "xl/styles.xml": HEAD + (
        f'<styleSheet xmlns="{MAIN}"><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>'
        '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>'
        '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
        '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
        '<cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'
        '<xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs>'
        '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>'),
    "xl/sharedStrings.xml": HEAD + (
        f'<sst xmlns="{MAIN}" count="2" uniqueCount="2"><si><t>Rate</t></si>'
        f'<si><t>xmlns="{MAIN}"</t></si></sst>'),
    "xl/worksheets/sheet1.xml": HEAD + (
        f'<worksheet xmlns="{MAIN}" xmlns:r="{REL}">'
        f'<!-- <c r="Z9" t="str"><v>{REL}/worksheet</v></c> -->'
        '<dimension ref="A1:C3"/><sheetData>'
        '<row r="1"><c r="A1"><v>0.05</v></c><c r="B1"><f>rate*2</f><v>0.1</v></c>'
        '<c r="C1" t="s"><v>0</v></c></row>'
        '<row r="2"><c r="A2" s="1" t="d"><v>2024-03-15T00:00:00</v></c>'
        '<c r="B2" s="1" t="d"><f>A2+30</f><v>2024-04-14T00:00:00</v></c></row>'
        '<row r="3"><c r="A3" t="s"><v>1</v></c><c r="B3" t="str"><f>A3</f>'
        f'<v>xmlns="{MAIN}"</v></c></row>'
        '</sheetData></worksheet>'),
    "xl/worksheets/sheet2.xml": HEAD + (
        f'<worksheet xmlns="{MAIN}"><sheetData>'
        '<row r="1"><c r="A1"><f>Inputs!B1*100+YEAR(Inputs!B2)</f><v>2034</v></c></row>'
        '</sheetData></worksheet>'),
}


def _strict_book(path: Path) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as package:
        for name, text in PARTS.items():
            package.writestr(name, text.encode())
    return path


def test_a_strict_book_is_computed_checked_against_excels_values_and_copied_as_transitional(tmp_path, capsys):
    """Before: "strict.xlsx is saved as Strict Open XML, which calc does not read", exit 1 and
    no copy (and openpyxl alone found no sheet). Every formula is computed here and equals
    Excel's cached value; the date stored as ISO text is a date; a text that reads like a
    Strict namespace stays that text; the copy names no Strict vocabulary."""
    book, out = _strict_book(tmp_path / "strict.xlsx"), tmp_path / "out.xlsx"
    assert main(["calc", str(book), "--full", "-o", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "4 checked against Excel's values at the book's stored inputs; 0 stale" in printed
    assert "note: saved as Strict Open XML: read as the Transitional workbook it maps to" in printed
    frozen = openpyxl.load_workbook(out)
    inputs, report = frozen["Inputs"], frozen["Report"]
    assert inputs["B1"].value == 0.1 and inputs["A2"].value == datetime(2024, 3, 15)
    assert inputs["B2"].is_date and inputs["B2"].value == datetime(2024, 4, 14)
    assert inputs["B3"].value == f'xmlns="{MAIN}"' == inputs["A3"].value
    assert report["A1"].value == 2034
    with zipfile.ZipFile(out) as copy:
        # (the two cells' own text, A3's and B3's, and nothing else)
        assert sum(copy.read(name).count(b"purl.oclc.org") for name in copy.namelist()) == 2
        assert b"conformance" not in copy.read("xl/workbook.xml")
    # The `formulas` engine reads the file itself: it found no cell, and every formula was blank.
    assert main(["calc", str(book), "--full", "--engine", "formulas", "-o", str(tmp_path / "f.xlsx"), "--no-progress"]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [
        f"rates-xl calc: {book}: the formula engine reads the file itself and cannot read Strict Open XML: "
        "it is computed by the fast engine only"]


def test_only_the_strict_names_in_start_tags_are_mapped():
    """The byte-level mapping reads markup as XML does: an attribute value holding ">" does
    not end its tag, a comment or CDATA section is not markup (nor a text after a comment
    that a search for tags would take for one's tail), an unknown purl.oclc.org value and
    every text are kept, a malformed part is left as it is, and the two relationship kinds
    renamed in Transitional are."""
    comment = f'<!-- <x xmlns="{MAIN}"> --><!-- <b x=" -->" y="{MAIN}">'  # (the second's tail is text)
    cdata = f'<t><![CDATA[<y xmlns="{MAIN}">]]></t>'
    sheet = (f'<worksheet xmlns="{MAIN}" note="a>b" other="http://purl.oclc.org/ooxml/unknown">{comment}'
             f'<sheetData/>{cdata}<v>{MAIN}</v></worksheet>').encode()
    data = _package({"_rels/.rels": f'<Relationships><Relationship Type="{REL}/officeDocument"/></Relationships>',
                     "xl/worksheets/sheet1.xml": sheet.decode(), "xl/media/image1.png": MAIN})
    assert is_strict(data)
    with zipfile.ZipFile(io.BytesIO(transitional(data))) as mapped:
        assert mapped.read("xl/worksheets/sheet1.xml").decode() == (
            '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" note="a>b" '
            f'other="http://purl.oclc.org/ooxml/unknown">{comment}<sheetData/>{cdata}<v>{MAIN}</v></worksheet>')
        assert mapped.read("xl/media/image1.png").decode() == MAIN  # (no XML part: its bytes kept)
        assert not is_strict(transitional(data))
    broken = _package({"_rels/.rels": f'<Relationships><Relationship Type="{REL}/officeDocument"/></Relationships>',
                       "xl/workbook.xml": f'<workbook xmlns="{MAIN}"><sheets>'})  # (never closed)
    with zipfile.ZipFile(io.BytesIO(transitional(broken))) as mapped:  # (left for openpyxl to refuse)
        assert mapped.read("xl/workbook.xml").decode() == f'<workbook xmlns="{MAIN}"><sheets>'
    assert mapped_name(f"{REL}/extendedProperties") == \
        "http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties"
    assert mapped_name(f"{REL}/worksheet") == \
        "http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet"
    assert mapped_name("http://purl.oclc.org/ooxml/drawingml/chart") == \
        "http://schemas.openxmlformats.org/drawingml/2006/chart"
    assert mapped_name("http://purl.oclc.org/ooxml/unknown") is None


def _package(parts: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as package:
        for name, text in parts.items():
            package.writestr(name, text.encode())
    return out.getvalue()
