"""The classic add-in (the real xlwings UDFs on the serial-Excel stand-in, one cell at a time as
Excel calls them) never shows `nan` or `inf`: a service answer holding `NaN`, `Infinity` or
`1e999` is a `#RATES!` line naming the field, and a formula reading that cell fails as in Excel
(tests/reliability/test_non_finite.py covers the core and calc)."""

from __future__ import annotations

import math

import pytest

from rates_xl.addin.classic import udfs
from rates_xl.client import RatesClient
from rates_xl.functions import errors
from tests.support import serial_excel
from tests.support.faultserver import FaultServer, Reply, poisoned


@pytest.fixture
def server():
    fault_server = FaultServer()
    yield fault_server
    fault_server.stop()


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "1e999"])
def test_a_cell_shows_the_message_never_nan_or_inf(literal, server):
    server.responder = lambda arrival: Reply(body=poisoned(arrival.path, literal))
    client = RatesClient(base_url=server.base_url, api_key="rk-classic-nonfinite-7a2d", backoff=0.01,
                         persistent=False)
    udfs.set_client(client)
    try:
        book = serial_excel.App().add_book("Book.xlsx", {"Main": {
            "A1": '=RATES_SWAP("SOFR","0D","5Y","1Y")', "A2": "=A1*2",
            "B1": '=RATES_SWAPCURVE("6M EURIBOR")', "D1": '=RATES_FXSPOT("EURUSD")'}})
        book.app.calculate_full()
        sheet = book.sheets[0]
        shown = {cell: sheet.range(cell).value for cell in ("A1", "A2", "B1", "D1")}
        # A failing cell is an Excel error (issue 28); its message is one step away.
        said = {cell: errors.messages.of("Book.xlsx", "Main", cell) for cell in ("A1", "B1", "D1")}
    finally:
        udfs.set_client(None)
        client.close()
    assert not any(isinstance(v, float) and not math.isfinite(v) for v in shown.values()), shown
    assert {str(shown[c]) for c in ("A1", "B1", "D1")} == {"#N/A"}  # not the user's to fix
    assert said["A1"].startswith("#RATES! the service answered ") and " for swap_rate:" in said["A1"]
    assert " for swap_rate of point 5 of swap_rates" in said["B1"]  # the curve does not spill
    assert " for rate:" in said["D1"]
    assert str(shown["A2"]) == "#N/A"  # the error propagates, as in Excel
