"""A table a RATES_* call spills, in both engines, as Excel shows it: a history grid's failed
column is an error value in each cell (a SUM over it is an error, never a total that skipped
text: issue 28's rule in headless calculation too), a table wider than the range the file
stored is laid out whole (the `formulas` engine once poured a 2-column curve down one column),
and a table blocked by a cell in its way is #SPILL!, listed with what to do."""

from __future__ import annotations

import openpyxl
import pytest
import xlsxwriter

from rates_xl.calc.error_cells import SPILL_BLOCKED
from rates_xl.calc.workbook import WorkbookCalculation

ENGINES = ("fast", "formulas")
PINNED = "2026-11-20T16:00:00Z"


def book(path, spills, cells=()):
    wb = xlsxwriter.Workbook(str(path))
    ws = wb.add_worksheet("H")
    for ref, formula in spills:
        ws.write_dynamic_array_formula(ref, formula)  # stored as one cell, as xlsxwriter writes it
    for ref, value in cells:
        (ws.write_formula if str(value).startswith("=") else ws.write)(ref, value)
    wb.close()
    return path


def computed(path, engine, client, tmp_path):
    calc = WorkbookCalculation(path, engine_name=engine)
    result = calc.compute(client, valuation_time=PINNED)
    out = calc.freeze(result, tmp_path / f"{path.stem}-{engine}.values.xlsx")
    return result, openpyxl.load_workbook(out)["H"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_history_grids_failed_column_is_an_error_in_each_cell_and_a_sum_over_it_is_too(engine, rates_client, tmp_path):
    path = book(tmp_path / "grid.xlsx", [("A1", '=RATES_SWAPHISTORY("SOFR","2Y,11Y","2025-06-30","2025-07-08")')],
                [("F1", "=SUM(C2:C8)"), ("F2", "=SUM(B2:B8)")])
    result, sheet = computed(path, engine, rates_client, tmp_path)
    assert [sheet.cell(1, c).value for c in (1, 2, 3)] == ["Date", "2Y", "11Y"]
    rows = [r for r in range(2, 9) if sheet.cell(r, 1).value is not None]
    assert len(rows) == 6  # 2025-06-30 .. 2025-07-08: US business days (4 July a holiday)
    for r in rows:
        assert isinstance(sheet.cell(r, 2).value, float)
        assert sheet.cell(r, 3).data_type == "e" and sheet.cell(r, 3).value == "#N/A", r
    assert sheet["F1"].value == "#N/A"  # the total does not skip the failed column
    assert sheet["F2"].value == pytest.approx(sum(sheet.cell(r, 2).value for r in rows))
    listed = {e.cell: e for e in result.errors}
    assert {f"C{r}" for r in rows} | {"F1"} <= set(listed)
    assert "No history for SOFR 11Y" in listed["C2"].message  # the message one step away, in the summary


@pytest.mark.parametrize("engine", ENGINES)
def test_a_table_wider_than_its_stored_range_is_laid_out_whole(engine, rates_client, tmp_path):
    path = book(tmp_path / "curve.xlsx", [("A1", '=RATES_SWAPCURVE("SOFR")')], [("E1", "=1+1")])
    result, sheet = computed(path, engine, rates_client, tmp_path)
    assert (sheet["A1"].value, sheet["B1"].value) == ("Tenor", "Rate")
    curve = rates_client.swap_curve("SOFR", valuation_time=PINNED)
    height = 1 + len(curve.swap_rates)
    for r in range(2, height + 1):
        point = curve.swap_rates[r - 2]
        assert sheet.cell(r, 1).value == point.tenor
        assert sheet.cell(r, 2).value == pytest.approx(point.swap_rate, abs=1e-12)
    assert sheet.cell(height + 1, 1).value is None and sheet.cell(height + 1, 2).value is None
    assert sheet["E1"].value == 2 and not result.errors


@pytest.mark.parametrize("engine", ENGINES)
def test_a_table_with_a_cell_in_its_way_is_spill_listed_with_what_to_do(engine, rates_client, tmp_path):
    path = book(tmp_path / "blocked.xlsx", [("A1", '=RATES_SWAPCURVE("SOFR")')], [("B5", "note")])
    result, sheet = computed(path, engine, rates_client, tmp_path)
    assert sheet["A1"].value == "#SPILL!" and sheet["A1"].data_type == "e"
    assert [sheet.cell(r, 1).value for r in range(2, 8)] == [None] * 6  # nothing poured down the column
    assert sheet["B5"].value == "note"
    assert [(e.cell, e.message) for e in result.errors] == [("A1", SPILL_BLOCKED)]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_table_in_an_ordinary_cell_shows_its_top_left_and_spills_nowhere(engine, rates_client, tmp_path):
    """`=RATES_SWAPCURVE("SOFR")` written as an ordinary formula (xlsxwriter's write_formula,
    openpyxl, a book from before dynamic arrays): Excel opens it as `=@RATES_SWAPCURVE(...)`
    and shows the table's top-left value, nothing below. The fast engine spilled it where no
    cell of the copy showed it, and a COUNTA over the column counted 54 cells, silently."""
    path = book(tmp_path / "plain.xlsx", [], [("A1", '=RATES_SWAPCURVE("SOFR")'), ("E1", "=COUNTA(A1:B60)")])
    result, sheet = computed(path, engine, rates_client, tmp_path)
    assert sheet["A1"].value == "Tenor"
    assert [sheet.cell(r, c).value for r in range(1, 8) for c in (2,)] == [None] * 7
    assert sheet["A2"].value is None
    assert sheet["E1"].value == 1  # what the copy (and Excel) shows: one cell
