"""Legacy (Ctrl+Shift+Enter) and dynamic array formulas, told apart from the file's own marker.

XlsxWriter writes both kinds as Excel does: `write_dynamic_array_formula` with `cm="1"` and the
XLDAPR metadata, `write_array_formula` without. A legacy array fills exactly its stored range
(cut when the result is larger, #N/A or Excel's broadcasting when smaller); a dynamic one
spills to its result. The legacy cells are checked against LibreOffice where it is installed.
"""

from __future__ import annotations

import shutil
import zipfile

import openpyxl
import pytest
import xlsxwriter

from rates_xl.calc.engines.formualizer.cells import fit_legacy
from rates_xl.calc.fidelity import same
from rates_xl.calc.package import Package
from rates_xl.calc.workbook import WorkbookCalculation

#: Legacy arrays: stored range -> formula, and what Excel shows in the range (row by row).
LEGACY = {
    "D1:D3": ("{=A1:A5*2}", [[2], [4], [6]]),  # cut: never spills past D3
    "H1:H5": ("{=A1:A3*2}", [[2], [4], [6], ["#N/A"], ["#N/A"]]),  # shorter: #N/A below
    "J1:L2": ("{=B1:C1+1}", [[11, 21, "#N/A"], [11, 21, "#N/A"]]),  # one row: repeated down
    "J4:K5": ("{=SUM(A1:A5)}", [[15, 15], [15, 15]]),  # one value: fills the range
    "N1:N2": ("{=A1:A5}", [[1], [2]]),  # N3 holds a value: no #SPILL!, the range is cut
    "R1:S3": ("{=A1:A2*B1:C1}", [[10, 20], [20, 40], ["#N/A", "#N/A"]]),
    "T1": ("{=A2:A5*B1:C1}", [[20]]),  # one cell: the result's first value, nothing spilled
    "U1": ("{=SUM(A1:A5*2)}", [[30]]),
}
#: Formulas reading the cells below a cut legacy array: Excel sees nothing of the cut part.
READERS = {"F1": ("=COUNT(D1:D6)", 3), "F2": ("=SUM(N1:N2)", 3)}


def build(path):
    wb = xlsxwriter.Workbook(path)
    ws = wb.add_worksheet("Arrays sheet")
    for i in range(5):
        ws.write(i, 0, i + 1)
    ws.write("B1", 10)
    ws.write("C1", 20)
    ws.write("N3", "in the way")
    for ref, (formula, _) in LEGACY.items():
        ws.write_array_formula(ref, formula)
    for cell, (formula, _) in READERS.items():
        ws.write_formula(cell, formula)
    ws.write_dynamic_array_formula("P1:P3", "=SORT(A1:A5,1,-1)")  # spills to P5 whatever its stored range
    ws.write_formula("F3", "=SUM(P1:P5)")
    other = wb.add_worksheet("Other")
    other.write_dynamic_array_formula("B2", "=SEQUENCE(2,2)")
    other.write_array_formula("E2:E4", "{=TRANSPOSE('Arrays sheet'!B1:C1)}")
    wb.close()
    return path


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    return build(tmp_path_factory.mktemp("arrays") / "kinds.xlsx")


def _cells(ref):
    from openpyxl.utils.cell import get_column_letter, range_boundaries

    c1, r1, c2, r2 = range_boundaries(ref)
    return [[f"{get_column_letter(c)}{r}" for c in range(c1, c2 + 1)] for r in range(r1, r2 + 1)]


def test_the_marker_is_read_from_the_package(book):
    assert Package.open(book).dynamic_array_anchors() == {("Arrays sheet", "P1"), ("Other", "B2")}
    with zipfile.ZipFile(book) as package:  # XlsxWriter wrote them as Excel does
        assert 'cm="1"' in package.read("xl/worksheets/sheet1.xml").decode()
    calc = WorkbookCalculation(book)
    assert ("Arrays sheet", "D1") in calc.legacy_arrays and ("Arrays sheet", "P1") not in calc.legacy_arrays


def test_the_values_read_with_the_marker_are_the_values_read_alone(book, tmp_path):
    """Finding the dynamic anchors reads every sheet, and the stored values come with that pass
    (calc/package.py): the same values as a pass of their own, handed over once; a value that
    cannot be read (a shared-string index past the table) leaves the anchors standing and the
    values unreadable, as alone."""
    together = Package.open(book)
    anchors = together.dynamic_array_anchors()
    values = together.cell_values()
    assert anchors and values == Package.open(book).cell_values()
    assert values is not None and values[0][("Arrays sheet", "N3")] == "in the way"  # a shared string
    assert together.cell_values() == values  # a second ask reads the file again: the same

    broken = tmp_path / "broken.xlsx"
    with zipfile.ZipFile(book) as source, zipfile.ZipFile(broken, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":  # N3's text: index 0 -> 99
                data = data.replace(b'<c r="N3" t="s"><v>0</v>', b'<c r="N3" t="s"><v>99</v>')
                assert b"<v>99</v>" in data
            target.writestr(item, data)
    alone = Package.open(broken)
    assert alone.dynamic_array_anchors() == anchors
    assert alone.cell_values() is None and Package.open(broken).cell_values() is None


def test_a_book_without_the_marker_or_not_a_package_says_so(tmp_path):
    plain = openpyxl.Workbook()
    plain.active["A1"] = "=1+1"
    plain.save(tmp_path / "plain.xlsx")
    (tmp_path / "junk.xlsx").write_bytes(b"not a zip")
    assert Package.open(tmp_path / "plain.xlsx").dynamic_array_anchors() is None  # no marker in the book
    assert Package.open(tmp_path / "junk.xlsx").dynamic_array_anchors() is None


def test_excels_fill_rule():
    assert fit_legacy([[1, 2, 3]], 2, 4) == [[1, 2, 3, "#N/A"], [1, 2, 3, "#N/A"]]
    assert fit_legacy([[1], [2]], 3, 2) == [[1, 1], [2, 2], ["#N/A", "#N/A"]]
    assert fit_legacy([[7]], 2, 2) == [[7, 7], [7, 7]]
    assert fit_legacy([[1, 2], [3, 4]], 1, 1) == [[1]]


def test_legacy_arrays_fill_exactly_their_range_and_dynamic_ones_spill(book):
    calc = WorkbookCalculation(book)
    assert calc.engine_name == "fast"
    result = calc.compute()
    for ref, (_, shown) in LEGACY.items():
        got = [[result.value("Arrays sheet", c) for c in line] for line in _cells(ref)]
        assert got == shown, ref
    for cell in ("D4", "D5", "N4", "H6", "M1", "J3", "T2", "U2"):  # nothing past a legacy range
        assert ("Arrays sheet", cell) not in result.values or result.values[("Arrays sheet", cell)] is None
    for cell, (_, expected) in READERS.items():
        assert result.value("Arrays sheet", cell) == expected, cell
    assert [result.value("Arrays sheet", f"P{r}") for r in range(1, 6)] == [5, 4, 3, 2, 1]
    assert result.value("Arrays sheet", "F3") == 15
    assert [result.value("Other", c) for c in ("B2", "C2", "B3", "C3")] == [1, 2, 3, 4]
    assert [result.value("Other", c) for c in ("E2", "E3", "E4")] == [10, 20, "#N/A"]
    assert ("Other", "E5") not in result.values


def test_the_frozen_copy_keeps_legacy_values_inside_their_range(book, tmp_path):
    calc = WorkbookCalculation(book)
    result = calc.compute()
    out = calc.freeze(result, tmp_path / "kinds.values.xlsx")
    ws = openpyxl.load_workbook(out)["Arrays sheet"]
    assert [ws[c].value for c in ("D1", "D2", "D3", "D4")] == [2, 4, 6, None]
    assert [ws[c].value for c in ("H4", "L1", "N3")] == ["#N/A", "#N/A", "in the way"]
    assert [ws[f"P{r}"].value for r in range(1, 4)] == [5, 4, 3]


@pytest.mark.skipif(shutil.which("soffice") is None and shutil.which("libreoffice") is None,
                    reason="LibreOffice (soffice, Debian's libreoffice-calc) is not installed")
def test_legacy_arrays_match_libreoffice(book, tmp_path):
    from tests.calc.corpus.build import recalculate

    reference = openpyxl.load_workbook(recalculate(book, tmp_path / "lo"), data_only=True)["Arrays sheet"]
    result = WorkbookCalculation(book).compute()
    compared = 0
    for ref in LEGACY:
        for line in _cells(ref):
            for cell in line:
                theirs = reference[cell].value
                assert same(result.value("Arrays sheet", cell), theirs), (cell, theirs)
                compared += 1
    for cell in READERS:
        assert same(result.value("Arrays sheet", cell), reference[cell].value), cell
    assert compared == 3 + 5 + 6 + 4 + 2 + 6 + 1 + 1


def test_the_formulas_engine_keeps_a_legacy_arrays_na_too(book):
    """The fallback engine: a legacy range is neither grown nor trimmed (its #N/A stays)."""
    result = WorkbookCalculation(book, engine_name="formulas").compute()
    for ref in ("D1:D3", "H1:H5", "J1:L2", "J4:K5", "R1:S3"):  # N1:N2: see the README (#VALUE!)
        got = [[result.value("Arrays sheet", c) for c in line] for line in _cells(ref)]
        assert got == LEGACY[ref][1], ref


PINNED = "2026-11-20T16:00:00Z"
CURVE = f'RATES_DISCOUNTCURVE("SOFR","2D","3Y","1Y",,"{PINNED}")'


def test_a_legacy_rates_array_is_cut_where_the_book_carries_the_marker(tmp_path, rates_client):
    wb = xlsxwriter.Workbook(tmp_path / "rates.xlsx")
    ws = wb.add_worksheet("Curve")
    ws.write_array_formula("A1:B3", "{=" + CURVE + "}")  # Ctrl+Shift+Enter over 3 rows
    ws.write_dynamic_array_formula("D1:E2", "=" + CURVE)  # the same, spilling
    wb.close()
    calc = WorkbookCalculation(tmp_path / "rates.xlsx")
    assert calc.legacy_arrays == {("Curve", "A1")}
    result = calc.compute(rates_client)
    rows = [r for r in range(1, 40) if result.values.get(("Curve", f"D{r}")) is not None]
    assert len(rows) > 3  # the curve is longer than the legacy range
    for r in (1, 2, 3):
        assert [result.value("Curve", f"{c}{r}") for c in "AB"] == [result.value("Curve", f"{c}{r}") for c in "DE"]
    assert all(result.values.get(("Curve", f"A{r}")) is None for r in range(4, 40))


def test_without_any_marker_rates_arrays_spill_and_others_are_legacy(tmp_path, rates_client):
    """openpyxl (and LibreOffice) drop the marker: a RATES_* table keeps spilling there, as
    one re-saved from a template must; any other array is read as Excel reads that file."""
    from openpyxl.worksheet.formula import ArrayFormula

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Curve"
    ws["A1"] = ArrayFormula("A1:B2", "=" + CURVE)
    for r in range(1, 6):
        ws.cell(r, 7, r)
    ws["H1"] = ArrayFormula("H1:H2", "=G1:G5*2")
    wb.save(tmp_path / "resaved.xlsx")
    calc = WorkbookCalculation(tmp_path / "resaved.xlsx")
    assert calc.dynamic_arrays is None and calc.legacy_arrays == {("Curve", "H1")}
    result = calc.compute(rates_client)
    assert result.value("Curve", "A4") is not None  # grown past the stored A1:B2
    assert [result.value("Curve", c) for c in ("H1", "H2")] == [2, 4]
    assert result.values.get(("Curve", "H3")) is None


def test_a_formula_reading_a_legacy_array_past_its_result_reads_what_excel_shows(tmp_path):
    """`{=H2}` over J4:K5 shows H2 in all four cells, `{=A1:A2}` over M1:N3 repeats across and
    shows #N/A below; a formula reading K5 read the engine's blank (0), silently: formulas_test
    CORE!Q4 (`=h`, a name for K5 of `{=H2}` over J4:K5) is 5 in Excel."""
    path = tmp_path / "filled.xlsx"
    wb = xlsxwriter.Workbook(path)
    ws = wb.add_worksheet("S")
    ws.write("H2", 5)
    ws.write("A1", 1)
    ws.write("A2", 2)
    ws.write_array_formula("J4:K5", "{=H2}")
    ws.write_array_formula("M1:N3", "{=A1:A2}")
    ws.write_formula("B1", "=K5*10")
    ws.write_formula("B2", "=N2*10")
    ws.write_formula("B3", "=ISNA(M3)")
    wb.close()
    values = WorkbookCalculation(path).compute().values
    assert values[("S", "K5")] == 5 and values[("S", "B1")] == 50
    assert values[("S", "N2")] == 2 and values[("S", "B2")] == 20
    assert values[("S", "B3")] is True


def test_an_array_constant_in_an_ordinary_cell_shows_its_first_value(tmp_path):
    """formulas_test.xlsx CORE!K6: `={1,2;1,2}` saved as an ordinary formula (not an array
    formula) is 1 in Excel (implicit intersection); the engine spilled it into #SPILL!."""
    from tests.calc.excel_cases import corpus_book, excel_value

    corpus_book("formulas_test.xlsx")  # skips with the reason where the corpus is absent
    path = tmp_path / "constant.xlsx"
    wb = openpyxl.Workbook()  # (XlsxWriter reads `{...}` in a formula as an array formula's)
    ws = wb.active
    ws.title = "CORE"
    ws["K6"], ws["L6"], ws["A1"] = "={1,2;1,2}", "in the way", "=K6+1"
    wb.save(path)
    values = WorkbookCalculation(path).compute().values
    assert values[("CORE", "K6")] == excel_value("formulas_test.xlsx", "CORE!K6") == 1
    assert values[("CORE", "A1")] == 2
