"""The serial-Excel stand-in (tests/support/serial_excel.py) behaves like Excel where the refresh relies
on it: Dirty and Calculate recalculate only what they should, one cell at a time on one
thread, with the real UDFs; dynamic arrays spill, and a cell in the way is #SPILL!."""

from __future__ import annotations

import threading

import pytest

from rates_xl.addin.classic import udfs
from rates_xl.client import RatesClient
from tests.support import serial_excel


@pytest.fixture
def client(sandbox, sandbox_key):
    live = RatesClient(base_url=sandbox.base_url, api_key=sandbox_key)
    udfs.set_client(live)
    yield live
    udfs.set_client(None)
    live.close()


def book_of(cells, other=None):
    app = serial_excel.App()
    sheets = {"Main": cells}
    if other:
        sheets["Other"] = other
    return app.add_book("Book.xlsx", sheets)


def test_calculate_recomputes_dirty_volatile_and_dependent_cells_only(client):
    book = book_of({"A1": '=RATES_FXSPOT("EURUSD")', "A2": "=A1*2", "B1": '=RATES_FIXING("SOFR")',
                    "B2": "=B1+1", "C1": "=TODAY()"},
                   other={"A1": "=Main!A2+1"})
    app = book.app
    app.calculate_full()
    main, other = book.sheets
    assert app.evaluated == 6 and app.udf_calls == 2
    assert main.range("A2").value == pytest.approx(2 * main.range("A1").value)
    assert other.range("A1").value == pytest.approx(main.range("A2").value + 1)

    app.calculate()  # nothing dirty: only the volatile TODAY()
    assert app.evaluated == 7 and app.udf_calls == 2

    main.range("A1").api.Dirty()
    app.calculate()  # A1, what reads it (A2, Other!A1), and TODAY() again; not B1 or B2
    assert app.evaluated == 11 and app.udf_calls == 3
    assert main.dirty == set()

    main.range("A1").api.Dirty()
    main.calculate()  # Worksheet.Calculate: this sheet only
    assert app.evaluated == 14 and app.udf_calls == 4

    assert app.udf_threads == {threading.get_ident()}  # Excel's one calculation thread


def test_typing_a_value_recalculates_its_dependents(client):
    book = book_of({"A1": 2, "A2": "=A1*10", "B1": "=A2+1"})
    book.app.calculate_full()
    sheet = book.sheets[0]
    sheet.range("A1").value = 3
    assert sheet.range("B1").value == 31
    book.app.calculation = "manual"
    sheet.range("A1").value = 4
    assert sheet.range("B1").value == 31  # manual: nothing until Calculate
    book.app.calculate()
    assert sheet.range("B1").value == 41


def test_a_curve_spills_and_a_cell_in_the_way_blocks_it(client):
    book = book_of({"A1": '=RATES_SWAPCURVE("SOFR")', "E1": '=RATES_SWAPCURVE("ESTR")', "E3": "in the way"})
    book.app.calculate_full()
    sheet = book.sheets[0]
    rows = len(client.swap_curve("SOFR").swap_rates) + 1
    api = sheet.range("A1").api
    assert api.HasSpill and api.SpillingToRange.Address == f"$A$1:$B${rows}"
    assert sheet.range("A1:B2").value == [["Tenor", "Rate"], [client.swap_curve("SOFR").swap_rates[0].tenor,
                                                             pytest.approx(client.swap_curve("SOFR").swap_rates[0].swap_rate)]]
    assert str(sheet.range("E1").value) == "#SPILL!"
    assert not sheet.range("E1").api.HasSpill
    # Only the anchor holds a formula; the spilled cells show values.
    assert sheet.range("A1:A2").formula == ['=RATES_SWAPCURVE("SOFR")', ""]


def test_a_curve_meeting_merged_cells_is_spill(client):
    """Excel: "Spill into merged cells" is a #SPILL! reason; merging cells a curve spills
    over makes it one (calc/merged_spills.py computes the same headless)."""
    book = book_of({"A1": '=RATES_SWAPCURVE("SOFR")', "E1": '=RATES_SWAPCURVE("ESTR")', "G4": "label"})
    book.app.calculate_full()
    sheet = book.sheets[0]
    assert sheet.range("E1").api.HasSpill
    sheet.range("F4:G5").merge()  # across the ESTR curve's Rate column
    assert str(sheet.range("E1").value) == "#SPILL!" and not sheet.range("E1").api.HasSpill
    assert sheet.range("E2").value is None and sheet.range("G4").value is None  # F4 keeps its (empty) content
    assert sheet.range("A1").api.HasSpill  # the SOFR curve beside is whole
