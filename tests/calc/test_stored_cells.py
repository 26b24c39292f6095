"""A book's sheets are parsed once: openpyxl's read keeps each cell's stored value and array
mark (calc/stored_cells.py), and the package's readings (calc/package.py: the cached values,
the formula cells with none, the dynamic-array anchors) start from those. Their answers must
be exactly those of the package's own pass over the sheets, value types and order included,
on every real book and on one written to hold every kind of stored cell."""

from __future__ import annotations

import re
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest
import xlsxwriter

from rates_xl.calc import stored_cells
from rates_xl.calc.book import Book
from rates_xl.calc.package import Package, Values
from rates_xl.functions.values import text_value
from tests.support.excel_corpus import books as corpus_books

ROOT = Path(__file__).resolve().parents[2]
BOOKS = sorted((ROOT / "tests" / "calc" / "corpus").glob("*/*.xlsx")) + sorted((ROOT / "templates").glob("*.xlsx")) \
    + corpus_books()

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
#: Every kind of `<c>` calc reads: numbers as written (1, 1.0, 1E3), shared text (plain, rich
#: with a phonetic guide, Excel's escape of a literal `_x0001_`), inline text (plain, rich,
#: with a phonetic guide, none), booleans, errors, text that reads as an error, a formula with no cached value and one
#: with an empty cached text, shared formulas, a cell without a reference, one stored twice,
#: array formulas with and without a dynamic mark, a mark on an ordinary formula, a bad mark.
SHEET = f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="{_MAIN}"><sheetData>
<row r="1"><c r="A1"><v>1</v></c><c r="B1"><v>1.0</v></c><c r="C1"><v>1E3</v></c><c r="D1"><v>-0.5</v></c>
<c r="E1" t="s"><v>0</v></c><c r="F1" t="s"><v>1</v></c><c r="G1" t="s"><v>2</v></c>
<c r="H1" t="inlineStr"><is><t>inline _x0041_</t></is></c><c r="I1" t="inlineStr"><is><r><t>rich</t></r><r><t> inline</t></r></is></c>
<c r="J1" t="b"><v>1</v></c><c r="K1" t="b"><v>0</v></c><c r="L1" t="e"><v>#N/A</v></c>
<c r="M1" t="str"><f>"#N/A"</f><v>#N/A</v></c><c r="N1"><f>1/0</f></c><c r="O1" t="str"><f>""</f><v></v></c>
<c r="P1" t="e"><f>1/0</f><v>#DIV/0!</v></c><c r="R1"><v></v></c><c r="S1" t="inlineStr"/><c r="T1" t="b"><f>TRUE</f><v>true</v></c>
<c r="U1"><f t="shared" ref="U1:U2" si="0">A1+1</f><v>2</v></c><c r="V1" s="0"/><c r="W1" t="str"><f>CHAR(1)</f><v>_x0001_</v></c>
<c r="X1" t="inlineStr"><is><t>東京</t><rPh sb="0" eb="2"><t>トウキョウ</t></rPh></is></c></row>
<row r="2"><c r="U2"><f t="shared" si="0"/><v>1001</v></c><c><v>7</v></c><c r="A2"><v>5</v></c><c r="B2" t="inlineStr"><f>1</f><v>1</v></c></row>
<row r="3"><c r="A3" cm="1"><f t="array" ref="A3:A4">_xlfn.SEQUENCE(2)</f><v>1</v></c><c r="B3"><f t="array" ref="B3">SUM(A1:A2)</f><v>6</v></c>
<c r="C3" cm="1"><f>1+1</f><v>2</v></c><c r="D3" cm="x"><f t="array" ref="D3">1</f><v>1</v></c><c r="E3" cm="9"><f t="array" ref="E3">2</f><v>2</v></c></row>
<row r="4"><c r="A4"><v>2</v></c><c r="A1"><v>9.5</v></c></row>
</sheetData></worksheet>"""
STRINGS = f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<sst xmlns="{_MAIN}" count="3" uniqueCount="3"><si><t>plain</t></si>
<si><r><t>ri</t></r><r><t>ch</t></r><rPh sb="0" eb="1"><t>phonetic</t></rPh></si>
<si><t>_x005F_x0001_</t></si></sst>"""


def _every_kind(path: Path) -> Path:
    """XlsxWriter's package (content types, styles, the dynamic-array metadata), its first
    sheet and its string table replaced by the ones above."""
    made = path.with_suffix(".made.xlsx")
    book = xlsxwriter.Workbook(made)
    book.add_worksheet("It's values").write_string("A1", "x")
    book.add_worksheet("Other").write_dynamic_array_formula("B2", "=SEQUENCE(2,2)")
    book.close()
    with zipfile.ZipFile(made) as source, zipfile.ZipFile(path, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = SHEET.encode()
            elif item.filename == "xl/sharedStrings.xml":
                data = STRINGS.encode()
            elif item.filename == "xl/workbook.xml":  # values as Excel's (XlsxWriter's are placeholders)
                data = re.sub(rb"<calcPr[^>]*/>", b"", data)
            target.writestr(item, data)
    return path


def _rewritten(path: Path, target: Path, changes: dict[str, Callable[[bytes], bytes]]) -> Path:
    """`path` copied to `target` with the parts named in `changes` changed."""
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(target, "w") as copy:
        for item in source.infolist():
            data = source.read(item)
            change = changes.get(item.filename)
            copy.writestr(item, change(data) if change is not None else data)
    return target


def _exactly(read: Values | None) -> object:
    """Values with their types and order (1 == 1.0 == True for a dict's equality)."""
    assert read is not None
    values, missing = read
    return [(key, type(value).__name__, repr(value)) for key, value in values.items()], sorted(missing)


def _kept_and_alone(path: Path) -> tuple[Package, Package]:
    """The package as `Book` reads it when its values are Excel's (kept by openpyxl's read,
    whatever the book says of them here), and the package read alone."""
    kept_by_the_read = Package.open(path)
    with stored_cells.recording() as kept:
        openpyxl.load_workbook(kept_by_the_read.stream(), keep_links=True)
    assert kept is not None
    kept_by_the_read.keep(kept)
    return kept_by_the_read, Package.open(path)


def test_every_kind_of_stored_cell_reads_as_the_packages_own_pass(tmp_path):
    path = _every_kind(tmp_path / "kinds.xlsx")
    book, alone = Book(path), Package.open(path)
    assert not book.values_out_of_date and book.package._kept  # kept by openpyxl's read: no second parse
    assert book.dynamic_arrays == alone.dynamic_array_anchors() == {("It's values", "A3"), ("Other", "B2")}
    read = book.package.cell_values()
    assert _exactly(read) == _exactly(alone.cell_values())
    assert read is not None
    values, missing = read
    sheet = "It's values"
    expected = {"A1": 9.5, "B1": 1.0, "C1": 1000.0, "E1": "plain", "F1": "rich", "G1": "_x0001_",
                "H1": "inline A", "I1": "rich inline", "J1": True, "K1": False, "L1": "#N/A", "M1": text_value("#N/A"),
                "O1": "", "P1": "#DIV/0!", "T1": True, "U2": 1001, "W1": "\x01", "": 7, "A2": 5}
    for cell, value in expected.items():
        assert (values[(sheet, cell)], type(values[(sheet, cell)])) == (value, type(value)), cell
    assert missing == {(sheet, "N1")}
    assert not {(sheet, cell) for cell in ("R1", "S1", "V1", "B2")} & values.keys()
    assert list(values)[0] == (sheet, "A1")  # stored twice: the first place, the last value


@pytest.mark.parametrize("kind, text", [
    *(("n", text) for text in ("7", "007", "-0", "1.0", "1.5", " 1.5 ", "\t7\n", "1E+3", "1e3", "1E-3", "12345678901234567890",
                               "9007199254740993", "1.7976931348623157E+308", "nan", "inf", "  ", "\u0663")),
    *(("e", text) for text in ("#N/A", "#DIV/0!", "_x0023_N/A", "_x005F_x0001_")),
    ("s", "0"), ("b", "1"), ("str", "#N/A")])
def test_a_value_read_in_bulk_reads_as_one_cell_alone(kind, text):
    # (`_read_values` reads the common kinds without `_cell_value`'s calls: the same value, of the same type)
    from rates_xl.calc import package

    cell = ("A1", kind, text, None, "", None)
    bulk: dict[tuple[str, str], object] = {}
    alone: dict[tuple[str, str], object] = {}
    package._read_values("S", [cell], ["#N/A"], bulk, set())  # type: ignore[arg-type]
    package._read_value("S", cell, ["#N/A"], alone, set())  # type: ignore[arg-type]
    assert [(repr(v), type(v)) for v in bulk.values()] == [(repr(v), type(v)) for v in alone.values()]
    assert bulk.keys() == alone.keys()


@pytest.mark.filterwarnings("ignore::UserWarning")  # (openpyxl names the extensions it drops)
@pytest.mark.parametrize("path", BOOKS, ids=lambda path: path.name)
def test_real_books_read_the_same_kept_as_alone(path):
    kept, alone = _kept_and_alone(path)
    assert kept._kept or not any(ws._cells for ws in openpyxl.load_workbook(path).worksheets)
    assert kept.dynamic_array_anchors() == alone.dynamic_array_anchors()
    assert _exactly(kept.cell_values()) == _exactly(alone.cell_values())


def test_a_second_ask_parses_the_file_again_the_same(tmp_path):
    book = Book(_every_kind(tmp_path / "kinds.xlsx"))
    first = book.package.cell_values()
    assert not book.package._kept  # handed over once, then let go
    assert _exactly(book.package.cell_values()) == _exactly(first)


def test_placeholder_values_are_not_kept_and_read_as_before(tmp_path):
    """A book whose cached values the check never reads (fullCalcOnLoad: placeholders; a
    manual-mode book Excel did not recalculate when saving) holds no kept cells; asked for its
    values all the same, the package parses them, as it always did."""
    path = _every_kind(tmp_path / "kinds.xlsx")
    placeholders, manual = tmp_path / "placeholders.xlsx", tmp_path / "manual.xlsx"
    for target, calc in ((placeholders, b'<calcPr fullCalcOnLoad="1"/>'),
                         (manual, b'<calcPr calcMode="manual" calcOnSave="0"/>')):
        _rewritten(path, target, {"xl/workbook.xml": lambda data, calc=calc: data.replace(b"</workbook>",
                                                                                        calc + b"</workbook>")})
        book = Book(target)
        assert book.values_out_of_date and not book.package._kept
        assert book.dynamic_arrays == Package.open(target).dynamic_array_anchors()
        assert _exactly(book.package.cell_values()) == _exactly(Package.open(target).cell_values())


def test_a_cell_outside_any_row_is_no_cell(tmp_path):
    """openpyxl reads the `<c>` children of each `<row>` as the sheet's cells; one anywhere
    else is not a cell of the book, nor a stored value read along with it."""
    path = _every_kind(tmp_path / "kinds.xlsx")
    stray = _rewritten(path, tmp_path / "stray.xlsx", {
        "xl/worksheets/sheet1.xml": lambda data: data.replace(b"</sheetData>", b'</sheetData><c r="Z9"><v>3</v></c>')})
    book = Book(stray)
    assert "Z9" not in book.book["It's values"]
    read = book.package.cell_values()
    assert read is not None and ("It's values", "Z9") not in read[0]


def test_another_openpyxl_keeps_nothing_and_reads_as_before(tmp_path, monkeypatch):
    path = _every_kind(tmp_path / "kinds.xlsx")
    monkeypatch.setattr(stored_cells, "REPRODUCED", ())
    book, alone = Book(path), Package.open(path)
    assert not book.values_out_of_date and not book.package._kept
    assert book.dynamic_arrays == alone.dynamic_array_anchors()
    assert _exactly(book.package.cell_values()) == _exactly(alone.cell_values())


def test_reads_outside_or_in_another_thread_keep_nothing(tmp_path):
    path = _every_kind(tmp_path / "kinds.xlsx")
    with stored_cells.recording() as kept:
        thread = threading.Thread(target=openpyxl.load_workbook, args=(path,))
        thread.start()
        thread.join()
        assert kept == {}  # the other thread's read kept nothing here
        openpyxl.load_workbook(path)
    assert kept is not None and set(kept) == {"xl/worksheets/sheet1.xml", "xl/worksheets/sheet2.xml"}
    with stored_cells.recording() as again:
        pass
    openpyxl.load_workbook(path)
    assert again == {}


def _cells(workbook: openpyxl.Workbook) -> list[object]:
    """Every cell of every sheet, in the sheets' order, as openpyxl holds it: its place, its
    value (with its type; an array or data-table formula's every attribute), its type, style,
    hyperlink and comment; and what else the parse of the rows sets (the sheet's row
    dimensions, its current row)."""
    from openpyxl.worksheet.formula import ArrayFormula, DataTableFormula

    def value(value: object) -> object:
        if isinstance(value, ArrayFormula):
            return ("array", value.ref, value.text)
        if isinstance(value, DataTableFormula):
            return ("table", sorted(dict(value).items()), value.t)
        return (type(value).__name__, repr(value))

    def state(cell: object, ws: object) -> list[object]:  # (every slot of the cell's class: a Cell's, a MergedCell's)
        slots = [slot for kind in type(cell).__mro__ for slot in getattr(kind, "__slots__", ())]
        return [type(cell).__name__, *((slot, value(getattr(cell, slot, "unset"))) for slot in slots
                                       if slot not in ("parent", "_style", "_value")),
                value(cell._value), tuple(cell._style), cell.parent is ws]  # type: ignore[attr-defined]

    return [(ws.title, ws._current_row, sorted((k, repr(v)) for k, v in ws.row_dimensions.items()),
             [(key, state(cell, ws)) for key, cell in ws._cells.items()]) for ws in workbook.worksheets]


def _both(path: Path) -> tuple[openpyxl.Workbook, openpyxl.Workbook]:
    """openpyxl's read of `path` as it is, and as `recording()` reads it (`_Rows`)."""
    with stored_cells.recording() as kept:
        fast = openpyxl.load_workbook(path, keep_links=True)
    assert kept is not None
    return openpyxl.load_workbook(path, keep_links=True), fast


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("path", BOOKS, ids=lambda path: path.name)
def test_real_books_read_the_same_cells_as_openpyxl_alone(path):
    alone, fast = _both(path)
    assert _cells(fast) == _cells(alone)


def test_every_kind_of_cell_reads_as_openpyxl_alone(tmp_path):
    """Every kind of `<c>` (the sheet above, with a date, a time, a date out of range, a
    `<c>` without `r`, with an odd `r`, a non-cell child of a row, shared formulas over
    relative, absolute, whole-row, whole-column, named and other-sheet references) reads as
    openpyxl reads it."""
    import warnings

    extra = (b'<row r="5" ht="20" customHeight="1"><c r="A5" s="1"><v>45000.5</v></c><c r="B5" s="2"><v>0.25</v></c>'
             b'<c r="C5" s="1"><v>9999999999</v></c><c s="1"><v>3</v></c><c r="d5"><v>4</v></c><x/>'
             b'<c r="E5" t="d"><v>2024-01-02T03:04:05</v></c><c r="F5" t="x"><v>y</v></c></row>'
             b'<row r="6"><c r="C6"><f t="shared" si="1" ref="C6:D9">$A$1+A5+SUM(B:B)+SUM(5:6)+Other!B2+x_name+A1:B$2</f>'
             b'<v>0</v></c><c r="D6"><f t="shared" si="1"/></c></row>'
             b'<row r="9"><c r="C9"><f t="shared" si="1"/></c><c r="D9"><f t="shared" si="1">ignored</f></c>'
             b'<c r="E9"><f t="shared" si="2" ref="E9:E10">"text"</f></c><c r="E10"><f t="shared" si="2"/></c>'
             b'<c r="F9"><f t="shared" si="3" ref="F9:F10">1</f></c><c r="F10"><f t="shared" si="3"/></c>'
             b'<c r="G9"><f t="dataTable" ref="G9:G10" dt2D="0" dtr="1" r1="A1"/></c></row>'
             b'<row r="11"><c r="XFC11"><f t="shared" si="4" ref="XFC11:XFE11">XFC1+1</f></c>'
             b'<c r="XFE11"><f t="shared" si="4"/></c><c r="XFF11"><v>2</v></c></row>'
             b'<row r="12"><c r="A12"><f t="shared" si="5" ref="A12:A13">XFE1+$B1</f></c></row>'
             b'<row r="13"><c r="A13"><f t="shared" si="5"/></c></row>'
             b'<row r="1048577"><c r="A1048577"><v>3</v></c></row>')
    styles = (b'<numFmts count="1"><numFmt numFmtId="164" formatCode="hh:mm"/></numFmts>'
              b'<cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'
              b'<xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
              b'<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs>')
    path = _every_kind(tmp_path / "kinds.xlsx")
    odd = _rewritten(path, tmp_path / "odd.xlsx", {
        "xl/worksheets/sheet1.xml": lambda data: data.replace(b"</sheetData>", extra + b"</sheetData>"),
        "xl/styles.xml": lambda data: re.sub(rb"<cellXfs.*?</cellXfs>", styles, re.sub(
            rb"<numFmts.*?</numFmts>|<numFmts[^>]*/>", b"", data, flags=re.S), flags=re.S)})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        alone, fast = _both(odd)
    assert _cells(fast) == _cells(alone)
    ws = alone["It's values"]
    assert (ws["A5"].data_type, ws["B5"].data_type, ws["C5"].value, ws["E5"].data_type) == ("d", "d", "#VALUE!", "d")
    assert ws["D6"].value == "=$A$1+B5+SUM(C:C)+SUM(5:6)+Other!C2+x_name+B1:C$2"
    assert ws["D9"].value == "=$A$1+B8+SUM(C:C)+SUM(8:9)+Other!C5+x_name+B4:C$2"
    assert (ws["E10"].value, ws["F10"].value) == ('="text"', "=1")
    # past XFD and row 1,048,576: read as openpyxl reads them (columns to ZZZ, rows without end)
    assert (ws["XFE11"].value, ws["XFF11"].value, ws["A13"].value) == ("=XFE1+1", 2, "=XFE2+$B2")
    assert ws._cells[(1048577, 1)].value == 3
    # openpyxl's warning of the date out of range, once from each read, raised by openpyxl
    dates = [w for w in caught if "outside the limits for dates" in str(w.message)]
    assert len(dates) == 2 and all(w.filename.endswith("_reader.py") for w in dates)


def test_a_shared_formula_out_of_range_fails_as_openpyxls(tmp_path):
    from openpyxl.formula.translate import TranslatorError

    bad = _rewritten(_every_kind(tmp_path / "kinds.xlsx"), tmp_path / "bad.xlsx", {  # a copy one row above A1
        "xl/worksheets/sheet1.xml": lambda data: data.replace(b'<c r="U2"><f t="shared" si="0"/>',
                                                              b'<c r="U0"><f t="shared" si="0"/>')})
    with pytest.raises(TranslatorError):
        openpyxl.load_workbook(bad)
    with pytest.raises(TranslatorError), stored_cells.recording():
        openpyxl.load_workbook(bad)


#: A sheet as Excel writes it, which calc/sheet_xml.py reads (whole) with every kind of cell it
#: makes itself or hands to openpyxl's way: entities, a line's end written CR LF, white space
#: kept, formulas calculated always (`ca`), a number in a date format, a date, an unknown type, array, shared, data-table and
#: empty formulas, a copy of a shared formula never given, inline text without text, a column
#: past XFD, a row past 1,048,576, a row without a number, rows with a height and empty.
EXCEL_LIKE = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n<worksheet xmlns="{_MAIN}" '
              'xmlns:x14ac="http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac">'
              '<dimension ref="A1:B2"/><sheetData>'
              '<row r="1" spans="1:9" x14ac:dyDescent="0.2"><c r="A1"><v>1</v></c><c r="B1" s="1"><v>45000.5</v></c>'
              '<c r="C1" t="s"><v>0</v></c><c r="D1" t="str"><f>"a&amp;b"&amp;"&lt;&gt;&quot;&apos;"</f>'
              '<v>a&amp;b&lt;&gt;"\'</v></c><c r="E1" t="str"><f>CHAR(13)&amp;\r\nCHAR(10)</f>'
              '<v xml:space="preserve">\r\n\t </v></c><c r="F1" t="e"><v>#N/A</v></c><c r="G1" s="2" t="b"><v>1</v></c>'
              '<c r="H1"><v></v></c><c r="I1"><v/></c><c r="J1" s="2"/><c r="K1" t="d"><v>2024-01-02T03:04:05</v></c>'
              '<c r="L1" t="x"><v>y</v></c><c r="M1" cm="1"><f t="array" ref="M1:M2">_xlfn.SEQUENCE(2)</f><v>1</v></c>'
              '<c r="M2" s="1"><f t="array" ref="M2">1&lt;2</f><v>1</v></c>'
              '<c r="N1"><f t="shared" ref="N1:N3" si="0">A1+1</f><v>2</v></c><c r="O1"><f t="shared" si="7"/></c>'
              '<c r="P1"><f/></c><c r="Q1"><f></f><v>0</v></c><c r="R1" vm="1"><f t="dataTable" ref="R1:R2" dt2D="0" '
              'dtr="1" r1="A1"/></c><c r="S1" t="inlineStr"/><c r="T1" t="n" ph="1"><v>1E3</v></c>'
              '<c r="U1" t="str"><v>text</v></c><c r="V1"><f ca="1">NOW()</f><v>1</v></c><c r="XFE1"><v>3</v></c></row>\n'
              '<row r="2" ht="20" customHeight="1"><c r="N2"><f t="shared" si="0"/><v>3</v></c>'
              '<c r="O2" s="1" t="str"><f>1&gt;0</f><v>TRUE</v></c><c r="P2"><f t="shared" ca="1" si="0"/><v>4</v></c>'
              '</row><row r="3"/>'
              '<row r="1048577"><c r="A1048577"><v>3</v></c><c r="B1048577"><f t="array" ref="B1048577">1</f></c></row>'
              '<row><c r="B1048578"><v>4</v></c></row>'
              '</sheetData><mergeCells count="1"><mergeCell ref="B2:C2"/></mergeCells></worksheet>').encode()
_STYLES = (b'<numFmts count="1"><numFmt numFmtId="164" formatCode="hh:mm"/></numFmts>'
           b'<cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'
           b'<xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>'
           b'<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs>')


def _with_sheet(tmp_path: Path, sheet: bytes, name: str = "sheet.xlsx") -> Path:
    """The every-kind book with its first sheet `sheet` and three cell styles (a date, a time)."""
    return _rewritten(_every_kind(tmp_path / "kinds.xlsx"), tmp_path / name, {
        "xl/worksheets/sheet1.xml": lambda data: sheet,
        "xl/styles.xml": lambda data: re.sub(rb"<cellXfs.*?</cellXfs>", _STYLES, re.sub(
            rb"<numFmts.*?</numFmts>|<numFmts[^>]*/>", b"", data, flags=re.S), flags=re.S)})


def test_a_sheet_as_excel_writes_it_reads_by_expression_as_openpyxl_alone(tmp_path):
    import warnings

    from rates_xl.calc import sheet_xml

    assert sheet_xml.split(EXCEL_LIKE) is not None  # read by calc/sheet_xml.py, not openpyxl's parser
    path = _with_sheet(tmp_path, EXCEL_LIKE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alone, fast = _both(path)
    assert _cells(fast) == _cells(alone)
    ws = fast["It's values"]
    assert (ws["D1"].value, ws["E1"].value) == ('="a&b"&"<>"\'"', "=CHAR(13)&\nCHAR(10)")
    assert (ws["B1"].data_type, ws["K1"].data_type, ws["N2"].value, ws["O1"].value) == ("d", "d", "=A2+1", "=")
    assert (ws["V1"].value, ws["P2"].value, ws["M2"].value.text) == ("=NOW()", "=C2+1", "=1<2")
    assert ws._cells[(1048577, 1)].value == 3 and ws._cells[(1048578, 2)].value == 4
    assert ws.row_dimensions[2].height == 20 and str(ws.merged_cells) == "B2:C2"
    # The stored values as kept by that read (but the date and the unknown type, which the
    # package's reading of values refuses) are the package's own pass's.
    readable = _with_sheet(tmp_path, re.sub(rb'<c r="[KL]1" t="[dx]"><v>[^<]*</v></c>', b"", EXCEL_LIKE), "values.xlsx")
    kept_by_the_read, alone_package = _kept_and_alone(readable)
    assert _exactly(kept_by_the_read.cell_values()) == _exactly(values := alone_package.cell_values())
    assert values is not None and values[0][("It's values", "E1")] == "\n\t "


@pytest.mark.parametrize("change", [
    lambda data: data.replace(b"<dimension", b"<!-- <sheetData> --><dimension"),  # a comment
    lambda data: data.replace(b"<v>1</v>", b"<v>&#49;</v>", 1),  # a character reference
    lambda data: data.replace(b"<v>y</v>", b"<v><![CDATA[y]]></v>"),
    lambda data: data.replace(b'<row r="3"/>', b'<row r="3" xmlns:q="urn:q" q:a="1"/>'),  # a namespace on a row
    lambda data: data.replace(b'encoding="UTF-8"', b'encoding="ISO-8859-1"'),
    lambda data: data.replace(b'<c r="A1">', b"<c r='A1'>"),
    lambda data: data.replace(b'<c r="B1" s="1">', b'<c s="1" r="B1">'),  # not Excel's order
    lambda data: data.replace(b'<c r="S1" t="inlineStr"/>', b'<c r="S1" t="inlineStr"><is><t>x</t></is></c>'),
    lambda data: data.replace(b'<c r="A1"><v>1</v></c>', b'<c r="A1">\n<v>1</v></c>'),
    lambda data: data.replace(b"<v>text</v>", b"<v>te\x01xt</v>"),  # not XML: the parser's error
    lambda data: data.replace(b"<v>text</v>", "<v>t\u00e9\uffffxt</v>".encode()),  # not a character XML allows
    lambda data: data.replace(b"<v>text</v>", b"<v>te]]>xt</v>"),  # refused in text
    lambda data: data.replace(f'xmlns="{_MAIN}"'.encode(), b'xmlns="urn:other"'),  # not SpreadsheetML's
    lambda data: data.replace(b"<dimension", b'<sheetPr xmlns="urn:other"/><dimension'),
    lambda data: data.replace(b'<dimension ref="A1:B2"/>', b'<extLst><row r="9"><c r="A9"><v>9</v></c></row></extLst>'),
], ids=["comment", "reference", "cdata", "row-namespace", "latin-1", "quote", "order", "inline", "space", "not-xml",
        "not-a-character", "cdata-end",
        "namespace", "declared-elsewhere", "row-before"])
def test_a_sheet_written_otherwise_is_left_to_openpyxls_parser(tmp_path, change):
    import warnings

    from rates_xl.calc import sheet_xml

    sheet = change(EXCEL_LIKE)
    assert sheet != EXCEL_LIKE and sheet_xml.split(sheet) is None
    path = _with_sheet(tmp_path, sheet)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            alone = openpyxl.load_workbook(path, keep_links=True)
        except Exception as exc:  # not XML: the same error either way
            with pytest.raises(type(exc)), stored_cells.recording():
                openpyxl.load_workbook(path, keep_links=True)
            return
        with stored_cells.recording():
            fast = openpyxl.load_workbook(path, keep_links=True)
    assert _cells(fast) == _cells(alone)


@pytest.mark.parametrize("row", [b'<row r="3" r="3"/>', b'<row r="3" q:a="1"/>'], ids=["twice", "unbound"])
def test_a_row_xml_refuses_fails_as_the_parsers(tmp_path, row):
    from xml.etree.ElementTree import ParseError

    from rates_xl.calc import sheet_xml

    sheet = EXCEL_LIKE.replace(b'<row r="3"/>', row)
    assert sheet_xml.split(sheet) is not None  # (the expression does not see it)
    path = _with_sheet(tmp_path, sheet)
    with pytest.raises(ParseError):
        openpyxl.load_workbook(path)
    with pytest.raises(ParseError), stored_cells.recording():
        openpyxl.load_workbook(path)


def test_excel_made_books_are_read_by_expression():
    """Every sheet of the Excel-made corpus books is read by calc/sheet_xml.py (the real-book
    comparisons above then compare its reading with openpyxl's)."""
    from rates_xl.calc import sheet_xml

    books = corpus_books()
    if not books:
        pytest.skip("../shared/corpus is not here")
    for book in books:
        with zipfile.ZipFile(book) as package:
            for name in package.namelist():
                if re.fullmatch(r"xl/worksheets/[^/]+\.xml", name):
                    assert sheet_xml.split(package.read(name)) is not None, (book.name, name)


def _backtracking(pattern: str) -> str:
    """`pattern` with its possessive quantifiers and atomic groups made ordinary ones."""
    return pattern.replace("(?>", "(?:").replace("?+", "?").replace("*+", "*").replace("}+", "}")


def test_the_cell_expression_matches_as_its_backtracking_form():
    """sheet_xml's `_ITEM` is possessive throughout (it keeps no backtracking state): it must read
    every text item for item, group for group, as its ordinary form does; random row and cell
    markup, in and out of Excel's order and with characters changed, shows any difference."""
    import random

    from rates_xl.calc import sheet_xml

    ordinary = re.compile(_backtracking(sheet_xml._ITEM.pattern))
    assert ordinary.pattern != sheet_xml._ITEM.pattern
    pieces = ['<row r="1">', '<row r="2" spans="1:3" x14ac:dyDescent="0.2">', "</row>", '<row r="3"/>', " ", "\n",
              "<f>A1+1</f>", '<f ca="1">RAND()</f>', '<f t="shared" si="0"/>', '<f t="shared" ref="A1:A3" si="0">B1</f>',
              '<f t="array" ref="A1:B2">X</f>', '<f t="array" ref="A1:A2"/>', '<f t="dataTable" ref="B2:C3" r1="A1"/>',
              '<f ca="1" t="shared" si="1"/>', "<f>a<b</f>", "<f/>", "<v>1.5</v>", "<v></v>", "<v/>",
              '<v xml:space="preserve"> a </v>', "<is><t>a</t></is>", "</c>", '"', "<", ">", "/", "="]
    attributes = [' s="4"', ' t="n"', ' t="e"', ' t="inlineStr"', ' cm="1"', ' vm="1"', ' ph="1"', ' x="1"',
                  ' s=""', ' r="1A"', ' r="XFD1048576"', ' r="AAAA1"', ' r="A01"']

    def cell() -> str:
        head = "<c" + (' r="B7"' if random.random() < 0.8 else "") + "".join(random.sample(attributes, random.randint(0, 3)))
        if random.random() < 0.15:
            return head + "/>"
        return head + ">" + "".join(random.choice(pieces) for _ in range(random.randint(0, 3))) + "</c>"

    def items(expression: re.Pattern[str], text: str) -> tuple[list[tuple[str | None, ...]], int]:
        found, position = [], 0
        while (match := expression.match(text, position)) is not None:
            position = match.end()
            found.append(match.groups())
        return found, position

    random.seed(45)
    for _ in range(20_000):
        text = "".join(cell() if random.random() < 0.6 else random.choice(pieces) for _ in range(random.randint(1, 6)))
        if random.random() < 0.3:
            at = random.randrange(len(text) + 1)
            text = text[:at] + random.choice('<>/"= atsfvrc1A') + text[at:]
        assert items(sheet_xml._ITEM, text) == items(ordinary, text), text


def test_a_phonetic_guide_is_no_part_of_an_inline_text(tmp_path):
    """`<is><t>東京</t><rPh><t>トウキョウ</t></rPh></is>` is 東京, as Excel and openpyxl read it: the
    cached values read the guide in too (東京トウキョウ), as the shared strings' reading never did."""
    values, _missing = Package.open(_every_kind(tmp_path / "kinds.xlsx")).cell_values()
    assert values[("It's values", "X1")] == "東京" and values[("It's values", "I1")] == "rich inline"
