"""A dynamic array whose spill would cover merged cells is #SPILL! in its anchor, as Excel shows
it ("Spill into merged cells", calc/merged_spills.py), computed through the `calc` command on
both engines: the summary names the merged range, the merged cells keep their content (what
reads them reads that, not a spilled value), every other cell is computed and the values-frozen
copy is written. The book lost whole before ("'MergedCell' object attribute 'value' is
read-only"). Books are written with XlsxWriter: openpyxl cannot mark a formula as a dynamic
array (the tests in test_spill_errors.py do the same)."""

from __future__ import annotations

import openpyxl
import pytest
import xlsxwriter

from rates_xl.calc.error_cells import SPILL_BLOCKED
from rates_xl.calc.merged_spills import message
from rates_xl.cli import main
from rates_xl.functions.sheet import parse_area

ENGINES = ("fast", "formulas")
PINNED = "2026-11-20T16:00:00Z"
CURVE = '=RATES_SWAPCURVE("SOFR")'


def book(path, spills=(), merges=(), cells=()):
    wb = xlsxwriter.Workbook(str(path))
    ws = wb.add_worksheet("H")
    for ref, value in merges:
        ws.merge_range(ref, value)
    for ref, formula in spills:
        ws.write_dynamic_array_formula(ref, formula)
    for ref, value in cells:
        (ws.write_formula if str(value).startswith("=") else ws.write)(ref, value)
    wb.close()
    return path


def calc(path, engine, capsys, status=3):
    out = path.with_name(f"{path.stem}-{engine}.values.xlsx")
    assert main(["calc", str(path), "--engine", engine, "--no-progress", "--valuation-time", PINNED,
                 "-o", str(out)]) == status
    printed = capsys.readouterr().out
    return printed, openpyxl.load_workbook(out)["H"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_curve_over_empty_merged_cells_is_spill_and_what_reads_them_reads_them_empty(engine, rates_client,
                                                                                       tmp_path, capsys):
    path = book(tmp_path / "path.xlsx", [("A1", CURVE)], [("A6:B7", None)],
                [("E1", "=COUNTA(A6:B7)"), ("E2", "=SUM(A1:B7)"), ("E3", "=1+1"), ("E4", "=ISERROR(A1)"),
                 ("E5", '=RATES_SWAP("SOFR","2D","5Y","1Y")')])
    printed, sheet = calc(path, engine, capsys)
    assert sheet["A1"].value == "#SPILL!" and sheet["A1"].data_type == "e"
    assert f"H!A1: #SPILL! ({message(parse_area('A6:B7'))})" in printed
    assert "merged cells (A6:B7)" in printed
    assert [sheet.cell(r, c).value for r in range(2, 10) for c in (1, 2)] == [None] * 16  # nothing spilled
    assert {str(r) for r in sheet.merged_cells.ranges} == {"A6:B7"}
    assert sheet["E1"].value == 0  # the merged cells are empty, as Excel reads them
    assert sheet["E2"].value == "#SPILL!"  # a sum over the anchor is its error
    assert sheet["E3"].value == 2 and sheet["E4"].value is True
    swap = rates_client.swap_rate("SOFR", "2D", "5Y", "1Y", valuation_time=PINNED).swap_rate
    assert sheet["E5"].value == pytest.approx(swap)  # the rest of the book computed


@pytest.mark.parametrize("engine", ENGINES)
def test_merged_cells_holding_a_value_keep_it_and_a_count_over_them_sees_only_it(engine, rates_client,
                                                                                 tmp_path, capsys):
    """The merged range's first cell holds its value (the others nothing): the spill is blocked
    by it, and COUNTA / SUM over the range read that one value."""
    path = book(tmp_path / "valued.xlsx", [("A1", CURVE)], [("A6:B7", 7)],
                [("E1", "=COUNTA(A6:B7)"), ("E2", "=SUM(A6:B7)")])
    printed, sheet = calc(path, engine, capsys)
    assert sheet["A1"].value == "#SPILL!"
    assert "H!A1: #SPILL!" in printed
    assert sheet["A6"].value == 7 and sheet["B7"].value is None
    assert (sheet["E1"].value, sheet["E2"].value) == (1, 7)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_merged_range_beside_the_spill_leaves_it_whole(engine, rates_client, tmp_path, capsys):
    path = book(tmp_path / "beside.xlsx", [("A1", CURVE)], [("C2:D3", "label")], [("F1", "=COUNTA(C2:D3)")])
    printed, sheet = calc(path, engine, capsys, status=0)
    curve = rates_client.swap_curve("SOFR", valuation_time=PINNED)
    assert (sheet["A1"].value, sheet["B1"].value) == ("Tenor", "Rate")
    assert sheet.cell(1 + len(curve.swap_rates), 2).value == pytest.approx(curve.swap_rates[-1].swap_rate, abs=1e-12)
    assert sheet["C2"].value == "label" and sheet["F1"].value == 1
    assert "#SPILL!" not in printed


@pytest.mark.parametrize("engine", ENGINES)
def test_a_spill_from_a_merged_anchor_is_spill(engine, rates_client, tmp_path, capsys):
    """The anchor itself merged (A1:B1): the table would cover B1, a merged cell. A dynamic
    array whose result is one value spills nowhere: its merged anchor shows it (D1:E2)."""
    path = book(tmp_path / "anchor.xlsx", [("A1", CURVE), ("D1", "=SUM(H1:H3)")], [("A1:B1", None), ("D1:E2", None)],
                [("H1", 1), ("H2", 2), ("H3", 3), ("G1", "=1+1")])
    printed, sheet = calc(path, engine, capsys)
    assert sheet["A1"].value == "#SPILL!"
    assert "merged cells (A1:B1)" in printed
    assert [sheet.cell(r, 1).value for r in range(2, 6)] == [None] * 4
    assert sheet["D1"].value == 6 and "H!D1" not in printed
    assert sheet["G1"].value == 2


@pytest.mark.parametrize(("formula", "merged"), [("=SEQUENCE(6)", "A3:C4"), ("=FILTER(H1:H6,H1:H6>0)", "A3:C4"),
                                                 ("=TRANSPOSE(H1:H6)", "C1:C2")])
def test_any_dynamic_array_over_merged_cells_is_spill(formula, merged, tmp_path, capsys):
    """SEQUENCE, FILTER (down A1:A6) and TRANSPOSE (across A1:F1) in a dynamic-array book, on the
    fast engine (the formulas engine knows no SEQUENCE or FILTER, and lays a spill that is not a
    RATES_* table into the range the file stored only)."""
    cells = [(f"H{r}", r) for r in range(1, 7)] + [("J1", f"=COUNTA({merged})"), ("J2", "=SUM(H1:H6)")]
    path = book(tmp_path / "dynamic.xlsx", [("A1", formula)], [(merged, None)], cells)
    printed, sheet = calc(path, "fast", capsys)
    assert sheet["A1"].value == "#SPILL!"
    assert f"H!A1: #SPILL! ({message(parse_area(merged))})" in printed
    assert [sheet.cell(r, c).value for r in range(1, 7) for c in range(1, 7) if (r, c) != (1, 1)] == [None] * 35
    assert sheet["J1"].value == 0 and sheet["J2"].value == 21


@pytest.mark.parametrize("engine", ENGINES)
def test_a_cell_in_the_way_keeps_its_own_reason(engine, rates_client, tmp_path, capsys):
    """A value in the way, no merged cell: the reason stays "not empty; clear it", and a cell
    reading the anchor shows its #SPILL! without a reason of its own."""
    path = book(tmp_path / "value.xlsx", [("A1", CURVE)], [("D1:E1", "far")], [("B5", "note"), ("G1", "=A1")])
    printed, _sheet = calc(path, engine, capsys)
    assert f"H!A1: #SPILL! ({SPILL_BLOCKED})" in printed
    assert "H!G1: #SPILL!\n" in printed or printed.rstrip().endswith("H!G1: #SPILL!")


# -- arrays Excel would not enter over merged cells ------------------------------------------------
def openpyxl_book(path, cells, merges):
    """A book another program wrote (openpyxl): Excel enters no array formula over merged
    cells ("Array formulas are not valid in merged cells"), so only such a file holds one."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "H"
    for ref in merges:
        ws.merge_cells(ref)
    for ref, value in cells.items():
        ws[ref] = value
    wb.save(path)
    return path


@pytest.mark.parametrize("engine", ENGINES)
def test_a_legacy_array_over_merged_cells_is_computed_and_listed(engine, tmp_path, capsys):
    from openpyxl.worksheet.formula import ArrayFormula

    path = openpyxl_book(tmp_path / "legacy.xlsx", {
        "H1": 1, "H2": 2, "H3": 3, "A1": ArrayFormula("A1:A3", "=H1:H3*2"),
        "E1": "=SUM(A1:A3)", "E2": "=1+1"}, ["A2:B3"])
    printed, sheet = calc(path, engine, capsys, status=0)
    assert "fast engine could not read it" not in printed  # the fast engine's copy holds no merged range
    assert "Computed legacy.xlsx: 3 formulas in" in printed and f"({engine} engine)" in printed
    assert "table cut: H!A1: this array formula's range A1:A3 covers merged cells (A2:B3)" in printed
    assert (sheet["A1"].value, sheet["A2"].value, sheet["A3"].value) == (2, 4, None)  # A3: merged, hidden
    assert {str(r) for r in sheet.merged_cells.ranges} == {"A2:B3"}
    assert sheet["E1"].value == 12 and sheet["E2"].value == 2  # as the engines read it: said in the line above
    assert "merged cells (A2:B3)" in sheet["A1"].comment.text  # the copy says so too


def test_a_data_table_over_merged_cells_is_computed_and_listed(tmp_path, capsys):
    from openpyxl.worksheet.formula import DataTableFormula

    path = openpyxl_book(tmp_path / "table.xlsx", {
        "B1": 0.05, "B2": 3, "B3": "=(B1+1)*B2*10",  # price = (rate + 1) * units * 10
        "D5": 0, "D6": 0.1, "D7": 0.2, "E4": "=B3",  # rates down D5:D7, the price above the results
        "E5": DataTableFormula(ref="E5:E7", dt2D="0", dtr="0", r1="B1"),
        "G1": "=B3*2"}, ["E6:F7"])
    printed, sheet = calc(path, "fast", capsys, status=0)
    assert "table cut: H!E5: this what-if data table's range E5:E7 covers merged cells (E6:F7)" in printed
    assert (sheet["E5"].value, sheet["E6"].value) == pytest.approx((30, 33))
    assert sheet["E7"].value is None and sheet["G1"].value == pytest.approx(63)


def test_a_book_excel_saved_with_the_spill_blocked_agrees_with_excel(tmp_path, capsys):
    """As Excel saves it: the anchor's cached #SPILL!, no fullCalcOnLoad. The check computes
    the book at its stored inputs and agrees with Excel (nothing stale), on the fast engine."""
    import re
    import zipfile

    raw = tmp_path / "raw.xlsx"
    wb = xlsxwriter.Workbook(str(raw))
    ws = wb.add_worksheet("H")
    ws.merge_range("A3:C4", None)
    ws.write_dynamic_array_formula("A1", "=SEQUENCE(6)")
    ws.write_column("H1", [1, 2, 3, 4, 5, 6])
    ws.write_formula("J1", "=COUNTA(A3:C4)", None, 0)  # Excel's answers, cached
    ws.write_formula("J2", "=SUM(H1:H6)", None, 21)
    wb.close()
    path = tmp_path / "saved.xlsx"
    with zipfile.ZipFile(raw) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "xl/workbook.xml":
                data = re.sub(rb'\s*fullCalcOnLoad="1"', b"", data)
            if item.filename == "xl/worksheets/sheet1.xml":
                data, count = re.subn(rb'<c r="A1" cm="1"><f t="array" ref="A1">(_xlfn.SEQUENCE\(6\))</f><v>0</v></c>',
                                      rb'<c r="A1" cm="1" t="e"><f t="array" ref="A1">\1</f><v>#SPILL!</v></c>', data)
                assert count == 1
            dst.writestr(item, data)
    out = tmp_path / "saved.values.xlsx"
    assert main(["calc", str(path), "--full", "--no-progress", "-o", str(out)]) == 3
    printed = capsys.readouterr().out
    assert "3 checked against Excel's values" in printed and "0 stale" in printed
    assert f"H!A1: #SPILL! ({message(parse_area('A3:C4'))})" in printed
    sheet = openpyxl.load_workbook(out)["H"]
    assert sheet["A1"].value == "#SPILL!" and (sheet["J1"].value, sheet["J2"].value) == (0, 21)


def test_an_array_kept_at_its_cached_values_over_merged_cells_is_noted_where_a_note_can_go(tmp_path, capsys):
    """A cell not computed gets a note in the copy; a merged range's hidden cell takes none
    (openpyxl refuses it: the copy was lost whole), the summary lists it."""
    from openpyxl.worksheet.formula import ArrayFormula

    path = openpyxl_book(tmp_path / "kept.xlsx", {
        "H1": 1, "H2": 2, "H3": 3, "A1": ArrayFormula("A1:A3", "=NOSUCH(H1:H3)"), "E1": "=1+1"}, ["A2:B3"])
    printed, sheet = calc(path, "fast", capsys)
    assert "H!A3: not computed (calls NOSUCH" in printed
    assert "not computed" in sheet["A1"].comment.text and "not computed" in sheet["A2"].comment.text
    assert sheet["E1"].value == 2


@pytest.mark.parametrize("engine", ENGINES)
def test_a_curve_grown_since_excel_saved_it_into_merged_cells_shows_none_of_its_last_result(engine, rates_client,
                                                                                            tmp_path, capsys):
    """The file holds the curve's last result in A1:B3 (as Excel stores a spill: values in the
    range) and merged cells below: the longer curve is #SPILL!, and the range is empty, as in
    Excel, not the old values."""
    path = tmp_path / "grown.xlsx"
    wb = xlsxwriter.Workbook(str(path))
    ws = wb.add_worksheet("H")
    ws.write_dynamic_array_formula("A1:B3", CURVE, None, "Tenor")
    ws.write_row("B1", ["Rate"])
    ws.write_row("A2", ["1W", 0.04])
    ws.write_row("A3", ["1M", 0.041])
    ws.merge_range("A8:B9", None)
    ws.write_formula("E1", "=COUNTA(A1:B7)")
    wb.close()
    printed, sheet = calc(path, engine, capsys)
    assert "H!A1: #SPILL!" in printed and "merged cells (A8:B9)" in printed
    assert [sheet.cell(r, c).value for r in range(1, 4) for c in (1, 2)] == ["#SPILL!"] + [None] * 5
    assert sheet["E1"].value == 1  # the anchor's error alone
