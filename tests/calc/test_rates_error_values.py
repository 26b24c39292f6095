"""`rates-xl calc`: a RATES_ cell that fails is an error value there too, as in Excel, so a SUM
over it is an error and not a total without it; the summary still names the message (issue 28).
"""

from __future__ import annotations

import openpyxl
import pytest

from rates_xl.calc.workbook import WorkbookCalculation
from rates_xl.client import RatesClient
from rates_xl.functions import using_client


@pytest.fixture
def book(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"] = '=RATES_SWAP("SOFR","0D","5Y","1Y")'
    ws["A2"] = '=RATES_SWAP("SOFR","0D","10X","1Y")'
    ws["B1"] = "=SUM(A1:A2)"
    ws["B2"] = '=IFERROR(A2,"bad")'
    path = tmp_path / "book.xlsx"
    wb.save(path)
    return path


@pytest.mark.parametrize("engine", ["fast", "formulas"])
def test_a_sum_over_a_failed_rates_cell_is_an_error_and_the_summary_names_the_message(
        book, sandbox, sandbox_key, engine):
    client = RatesClient(base_url=sandbox.base_url, api_key=sandbox_key, persistent=False)
    with using_client(client):
        result = WorkbookCalculation(book, engine_name=engine, full=True).compute(client)
    client.close()
    assert isinstance(result.values[("S", "A1")], float)
    assert str(result.values[("S", "A2")]) == "#VALUE!"
    assert str(result.values[("S", "B1")]) == "#VALUE!"  # never A1 alone
    assert result.values[("S", "B2")] == "bad"
    errors = {e.cell: e for e in result.errors}
    assert errors["A2"].message == "maturity: '10X' is not a date or a tenor like 10Y"
    assert "B1" in errors


def test_every_function_a_message_is_looked_up_for_is_named_rates():
    """The summary skips reading an error cell's formula for RATES_* calls when its text holds
    no "RATES_" nor "RATES." (calc/error_cells.py `_Messages.of`): true only while every name is so
    spelt. The engine's own functions (RATESXL.*, in the prepared formulas it reads) are not."""
    from rates_xl.calc.error_cells import NAMES_A_SERVICE_CALL
    from rates_xl.functions.link import rates_calls
    from rates_xl.functions.table import FORMER_NAMES, FUNCTIONS

    names = [*FUNCTIONS, *FORMER_NAMES, *FORMER_NAMES.values()]
    assert names and all(name.upper().startswith("RATES_") for name in names)
    for name in names:
        for spelt in (name, name.replace("_", ".", 1), f"_xludf.{name.lower()}"):
            assert NAMES_A_SERVICE_CALL.search(f"=IFERROR({spelt}(A1),0)")
    internal = "=RATESXL.CMPROUND(A1)=RATESXL.CMPROUND(B1)"
    assert not NAMES_A_SERVICE_CALL.search(internal) and rates_calls(internal) == []


def test_the_error_cells_read_formulas_for_messages_only_when_a_call_answered_one(monkeypatch):
    """calc/error_cells.py `listed` reads no error cell's formula while `errors.calls` holds no
    call (a message is only ever one it answered): it counts what was noted and forgotten."""
    from rates_xl.calc import error_cells
    from rates_xl.calc.engines import Settled
    from rates_xl.functions.errors import CallMessages

    calls = CallMessages()
    assert len(calls) == 0
    calls.note("RATES_SWAP", ["SOFR", "10X"], "#RATES! maturity: '10X' is not a tenor")
    calls.note("RATES_SWAP", ["SOFR", "5Y", None], "#RATES! pending")
    assert len(calls) == 2
    calls.forget("RATES_SWAP", ["SOFR", "5Y"])
    assert len(calls) == 1

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"] = '=RATES_SWAP("SOFR","10X")'
    values = {("S", "A1"): "#VALUE!"}
    monkeypatch.setattr("rates_xl.functions.errors.calls", calls)
    [listed] = error_cells.listed(wb, Settled("fast", values), {}, values)
    assert (listed.cell, listed.value, listed.message) == ("A1", "#VALUE!", "maturity: '10X' is not a tenor")
    monkeypatch.setattr("rates_xl.functions.errors.calls", CallMessages())
    monkeypatch.setattr(error_cells, "_Messages", None)  # (never made: nothing to look up)
    [listed] = error_cells.listed(wb, Settled("fast", values), {}, values)
    assert (listed.cell, listed.value, listed.message) == ("A1", "#VALUE!", "")
