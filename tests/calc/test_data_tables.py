"""What-if data tables (`{=TABLE(row_input, col_input)}`) computed as Excel's what-if analysis
computes them: each input value put into the input cell(s), what depends on them recomputed, the
formula read (calc/data_tables.py). The DCF of ../shared/corpus/models failed whole over its
four tables ("'DataTableFormula' object has no attribute 'text'", exit 1, 1,118 formulas lost)."""

from __future__ import annotations

import openpyxl
import pytest
from openpyxl.worksheet.formula import DataTableFormula

from rates_xl.calc.fidelity import same
from rates_xl.calc.workbook import WorkbookCalculation
from rates_xl.cli import main
from tests.support import models


def _model(path, tables: dict[str, DataTableFormula], extra: dict[str, object] | None = None):
    """price = (rate + 1) * units * 10 + NOW()*0, the inputs rate (B1) and units (B2); the
    tables' values around it. Written by openpyxl (no cached answers): every cell is computed."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Model"
    ws["B1"], ws["B2"] = 0.05, 3  # rate, units
    ws["B3"] = "=(B1+1)*B2*10"  # the price
    for ref, value in {**(extra or {}), **tables}.items():
        ws[ref] = value
    wb.save(path)
    return path


def test_one_input_in_a_column_in_a_row_and_two_inputs(tmp_path):
    book = _model(tmp_path / "what_if.xlsx", {
        # rates down D5:D7, the price's formula above the results: TABLE(,B1)
        "E5": DataTableFormula(ref="E5:E7", dt2D="0", dtr="0", r1="B1"),
        # units across H3:J3, the formula left of the results: TABLE(B2,)
        "H4": DataTableFormula(ref="H4:J4", dt2D="0", dtr="1", r1="B2"),
        # rates down L5:L6 and units across M4:N4, the formula in the corner: TABLE(B2,B1)
        "M5": DataTableFormula(ref="M5:N6", dt2D="1", dtr="1", r1="B2", r2="B1"),
    }, {"D5": 0, "D6": 0.1, "D7": "=D6*2", "E4": "=B3",
        "H3": 1, "I3": 2, "J3": 10, "G4": "=B3*2",
        "L4": "=B3", "L5": 0, "L6": 1, "M4": 1, "N4": 2,
        "P1": "=SUM(E5:E7)+N6"})  # a cell reading a table's results
    result = WorkbookCalculation(book).compute()
    assert result.skipped == [] and result.unknown_functions == {}
    value = result.value
    assert [value("Model", c) for c in ("E5", "E6", "E7")] == pytest.approx([30, 33, 36])
    assert [value("Model", c) for c in ("H4", "I4", "J4")] == pytest.approx([21, 42, 210])
    assert [value("Model", c) for c in ("M5", "N5", "M6", "N6")] == pytest.approx([10, 20, 20, 40])
    assert value("Model", "P1") == pytest.approx(99 + 40)
    # The inputs are back where they were, and so is everything that reads them.
    assert value("Model", "B3") == pytest.approx(31.5) and value("Model", "E4") == pytest.approx(31.5)
    calc = WorkbookCalculation(book)
    copy = openpyxl.load_workbook(calc.freeze(calc.compute(), tmp_path / "copy.xlsx"))["Model"]
    assert [copy[c].value for c in ("M5", "N5", "M6", "N6")] == pytest.approx([10, 20, 20, 40])


def test_a_table_that_cannot_be_computed_is_listed_cell_by_cell_and_the_rest_computed(tmp_path, capsys):
    book = _model(tmp_path / "broken.xlsx", {
        "E5": DataTableFormula(ref="E5:E6", dt2D="0", dtr="0", r1="B1", del1="1"),  # input deleted
        "H5": DataTableFormula(ref="H5:H6", dt2D="0", dtr="0", r1="B1"),  # H4 holds no formula
    }, {"D5": 0, "D6": 0.1, "E4": "=B3", "G5": 1, "G6": 2, "H4": 7})
    result = WorkbookCalculation(book).compute()
    listed = {c.address: c.reason for c in result.skipped}
    assert sorted(listed) == ["Model!E5", "Model!E6", "Model!H5", "Model!H6"]
    assert "input cell was deleted" in listed["Model!E6"] and "H4 holds no formula" in listed["Model!H5"]
    assert result.value("Model", "B3") == pytest.approx(31.5)
    assert main(["calc", str(book), "--no-progress"]) == 3
    assert "4 cells not computed" in capsys.readouterr().out


def test_the_formulas_engine_lists_a_table_never_failing_the_book(tmp_path):
    book = _model(tmp_path / "exact.xlsx", {"E5": DataTableFormula(ref="E5:E6", dt2D="0", dtr="0", r1="B1")},
                  {"D5": 0, "D6": 0.1, "E4": "=B3"})
    result = WorkbookCalculation(book, engine_name="formulas").compute()
    assert sorted(c.address for c in result.skipped) == ["Model!E5", "Model!E6"]
    assert "what-if data table" in result.skipped[0].reason and result.unknown_functions == {}
    assert result.value("Model", "B3") == pytest.approx(31.5)


WAZOBIA = "packt_Wazobia_Valuation.xlsx"
SHEET = "Financial Model"


@models.needed
def test_the_dcfs_data_tables_equal_excels(tmp_path, capsys):
    """The DCF's four tables: the share price by terminal growth and revenue growth (two inputs,
    I268:M272; the column input J10 holds a formula, substituted as a value), and by turnover,
    cost of sales and terminal growth (one input each, D278:D279, G278:G279, J278:J279).
    Computed in full at the book's stored inputs, each cell equals Excel's value read from the
    model; the book is computed by the fast engine, no cell of a table listed."""
    path = models.path(WAZOBIA)
    calc = WorkbookCalculation(path, full=True)
    result = calc.compute()
    assert calc.engine_name == "fast"
    cells = [f"{c}{r}" for r in range(268, 273) for c in "IJKLM"]
    cells += [f"{c}{r}" for c in "DGJ" for r in (278, 279)]
    assert models.formula(WAZOBIA, SHEET, "J10").startswith("=")
    flagged = {c.address for c in result.skipped} | {c.address for c in result.stale}
    for cell in cells:
        assert f"'{SHEET}'!{cell}" not in flagged
        ours, excel = result.value(SHEET, cell), models.excel(WAZOBIA, SHEET, cell)
        assert same(ours, excel), (cell, ours, excel)
    assert len({round(result.value(SHEET, c), 6) for c in cells}) == len(cells)  # 31 share prices
    assert main(["calc", str(path), "--full", "--no-progress", "-o", str(tmp_path / "w.xlsx")]) in (0, 3)
    assert "fast engine" in capsys.readouterr().out


@pytest.mark.parametrize("full", [True, False])
def test_a_table_excel_computes_only_on_f9_is_computed_not_compared_with_its_stale_values(tmp_path, capsys, full):
    """"Automatic except for data tables" (`calcMode="autoNoTable"`): Excel leaves a table's
    values as they were until F9, so a book saved so may hold a table that predates its inputs,
    and what reads the table was computed from those values. Before, the check compared the
    table with them and kept them, listed "stale" as if the engine were wrong (exit 3). The table
    is computed as F9 computes it, and what reads it from that; the summary says none was compared."""
    import re

    from tests.calc.corpus.build import edit_parts

    book = _model(tmp_path / "on_f9.xlsx", {"E5": DataTableFormula(ref="E5:E6", dt2D="0", dtr="0", r1="B1")},
                  {"D5": 0, "D6": 0.1, "E4": "=B3", "P1": "=SUM(E5:E6)"})
    # As Excel saved it: B3 and E4 at today's inputs; the table (and P1 from it) from when units was 2.
    saved = {"B3": 31.5, "E4": 31.5, "E5": 20, "P1": 42}

    def excel_saved_it(parts: dict[str, bytes]) -> None:
        text = parts["xl/worksheets/sheet1.xml"].decode()
        for address, value in saved.items():
            text = re.sub(rf'(<c r="{address}"[^>]*>(?:<f[^>]*/>|<f[^>]*>.*?</f>))<v\s*/?>(?:</v>)?', rf"\g<1><v>{value}</v>", text)
        text = re.sub(r'<c r="E6"[^>]*/>|(<row r="6"[^>]*>)', lambda m: m.group(1) + '<c r="E6"><v>22</v></c>'
                      if m.group(1) else '<c r="E6"><v>22</v></c>', text, count=1)
        parts["xl/worksheets/sheet1.xml"] = text.encode()
        workbook = re.sub(r"<calcPr[^>]*/>", '<calcPr calcId="191029" calcMode="autoNoTable"/>',
                          parts["xl/workbook.xml"].decode())
        parts["xl/workbook.xml"] = workbook.encode()

    edit_parts(book, excel_saved_it)
    out = tmp_path / "out.xlsx"
    assert main(["calc", str(book), *(["--full"] if full else []), "-o", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "0 stale" in printed and "the 1 data table(s) were computed as F9 computes them" in printed
    copy = openpyxl.load_workbook(out)["Model"]
    assert [copy[c].value for c in ("E5", "E6", "P1")] == pytest.approx([30, 33, 63])
    assert copy["B3"].value == pytest.approx(31.5)
