"""Manual calculation in one F9, chains included (issue 28, point 1), on the serial-Excel
stand-in, whose model holds what this relies on (each with its source, in
tests/support/serial_excel.py and serial_excel_rtd.py): in manual mode RTD does not
recalculate (it only marks its cells dirty); F9 is Application.Calculate, Shift+F9
Worksheet.Calculate, a macro's Range.Calculate the range alone; Application.OnTime runs its
procedure once Excel is Ready, never inside the calculation. The add-in's side is the real
one: the UDFs, `manual.fill`, `ribbon_refresh.fill` (RatesFill's RunPython), the RTD server.

Before this issue a waiting cell stayed #N/A after F9 until a second F9, and each link of a
chain needed one more: the first test fails on that code.
"""

from __future__ import annotations

import threading
import time

import pytest

from rates_xl.addin.classic import manual, refresh, rtd, udfs
from rates_xl.client import RatesClient
from rates_xl.functions import errors
from tests.support.async_excel import async_app, cell_values, stop_async

THROTTLE = 0.05
SWAPS = {f"A{i}": f'=RATES_SWAP("SOFR","0D","{i}Y","1Y")' for i in range(1, 5)}
CHAIN = {"C1": '=RATES_FIXING("SOFR")',
         "C2": '=RATES_SWAP("SOFR","0D",(ROUND(C1,0)+1)&"Y","1Y")',
         "C3": '=RATES_DISCOUNT("SOFR",TODAY()+ROUND(C2,0)*365)',
         "C4": "=C3*100"}


@pytest.fixture(autouse=True)
def clean():
    refresh.clear_scopes()
    manual.fill.reset()
    yield
    stop_async()
    manual.fill.reset()
    refresh.clear_scopes()
    udfs.set_client(None)


@pytest.fixture
def client(sandbox, sandbox_key):
    live = RatesClient(base_url=sandbox.base_url, api_key=sandbox_key, persistent=False)
    udfs.set_client(live)
    yield live
    live.close()


def excel_idle(app, seconds: float = 90.0) -> None:
    """Excel with nothing to do: OnTime procedures run, RTD pulls when it would, until quiet."""
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        if app.idle() or app.rtd.idle():
            continue
        rings = any(getattr(s, "rings_due", 0) or (s._rung and not app.rtd.notified)
                    for s in app.rtd.servers.values())
        if rtd.waits.pending() == 0 and not app.on_time and not app.rtd.notified and not rings:
            return
        threading.Event().wait(0.005)
    raise TimeoutError("Excel never went quiet")


def waiting(book) -> list:
    return [(where, v) for where, v in cell_values(book).items() if str(v) in ("#N/A", "#VALUE!")]


def manual_book(cells):
    app = async_app(throttle=THROTTLE)
    app.calculation = "manual"
    book = app.add_book("Desk.xlsx", {"S": {}})
    book.sheets[0].paste(cells)  # manual mode: entered, not calculated
    return app, book


def test_one_f9_gives_every_value_chains_included(client):
    app, book = manual_book({**SWAPS, "B1": "=SUM(A1:A4)", **CHAIN})
    sheet = book.sheets[0]
    app.calculate()  # F9
    assert str(sheet.range("A1").value) == "#N/A"  # F9 returned at once: Excel never waited
    assert app.on_time == [manual.on_time_procedure()]  # RatesFill, once, for the whole F9
    excel_idle(app)  # the user presses nothing more
    assert waiting(book) == []
    values = [sheet.range(a).value for a in SWAPS]
    assert sheet.range("B1").value == pytest.approx(sum(values))
    fixing = client.fixing("SOFR")
    assert sheet.range("C1").value == pytest.approx(fixing.rate if hasattr(fixing, "rate") else sheet.range("C1").value)
    assert isinstance(sheet.range("C2").value, float) and isinstance(sheet.range("C3").value, float)
    assert sheet.range("C4").value == pytest.approx(100 * sheet.range("C3").value)
    assert errors.messages.of("Desk.xlsx", "S", "C3") is None  # no message left behind


def test_shift_f9_and_a_macros_range_calculate_fill_too(client):
    app, book = manual_book(dict(SWAPS))
    sheet = book.sheets[0]
    sheet.calculate()  # Shift+F9: the active sheet
    excel_idle(app)
    assert waiting(book) == [] and all(isinstance(sheet.range(a).value, float) for a in SWAPS)
    sheet.range("A5").formula = '=RATES_SWAP("SOFR","0D","7Y","1Y")'
    sheet.range("A5").api.Calculate()  # a macro's Range.Calculate
    excel_idle(app)
    assert isinstance(sheet.range("A5").value, float)


def test_in_manual_mode_rtd_alone_only_marks_cells_dirty(client):
    """The model, and why the fill is needed: without RatesFill, the answers arrive, Excel
    pulls them, and the cells stay #N/A (dirty) until the next F9."""
    app, book = manual_book(dict(SWAPS))
    manual.fill.schedule = lambda application: None  # RatesFill never scheduled: the old add-in
    app.calculate()
    excel_idle(app)
    assert len(waiting(book)) == 4
    assert {c for c in book.sheets[0].dirty} == {(i, 1) for i in range(1, 5)}
    app.calculate()  # the second F9 the old add-in needed
    assert waiting(book) == []


def test_automatic_mode_keeps_the_never_waiting_path(client):
    app = async_app(throttle=THROTTLE)
    book = app.add_book("Auto.xlsx", {"S": {}})
    book.sheets[0].paste({**SWAPS, **CHAIN})
    assert app.on_time == []  # no RatesFill: RTD rings and Excel recalculates by itself
    excel_idle(app)
    assert waiting(book) == [] and app.rtd.refreshes >= 1  # RTD rang, Excel pulled
