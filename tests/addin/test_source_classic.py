"""RATES_SOURCE in the classic add-in follows the cell's own request (its formula, the cells
it references), never its value; on the serial-Excel stand-in, against the sandbox."""

from __future__ import annotations

import pytest

from rates_xl.addin.classic import ribbon, udfs
from tests.support import serial_excel

SWAP = "swap_rate?fixed_leg_frequency=1Y&index=SOFR&maturity_date=10Y&start_date=0D"


@pytest.fixture
def client(classic_client):
    return classic_client


def test_rates_source_reads_the_cells_formula_not_its_value(client):
    app = serial_excel.App()
    book = app.add_book("Book1.xlsx", {
        "Rates": {
            "B1": "SOFR", "B2": "10Y", "B3": "2026-01-02T16:00:01Z",
            # The same swap valued a second apart: two requests, one value.
            "A1": '=RATES_SWAP(B1,"0D",B2,"1Y",,,,"2026-01-02T16:00:00Z")',
            "A2": '=RATES_SWAP(B1,"0D",B2,"1Y",,,,B3)',
            "A3": "=A1*2",
            "D1": '=RATES_SWAPCURVE("SOFR",B3,FALSE)',
        },
        "Audit": {"B1": "ESTR", "B2": "2Y",  # what B1 and B2 would read on the wrong sheet
                  "A20": "=RATES_SOURCE(Rates!A2)", "A30": "=RATES_SOURCE(Rates!A3)",
                  "A40": "=RATES_SOURCE(Rates!E2)"},  # a cell of the curve's spill,
    })
    try:
        ribbon.on_action("rates_refresh_workbook", book=book)
        rates, audit = book.sheets["Rates"], book.sheets["Audit"]
        assert rates.range("A1").value == rates.range("A2").value  # the value alone is two answers
        assert audit.range("A20:A23").value == ["Request", "Valued at", "Fetched at", "Service"]
        assert audit.range("B20").value == SWAP + "&valuation_time=2026-01-02T16:00:01Z"
        assert audit.range("A24").value is None  # one answer, not a list of candidates
        assert audit.range("A30").value == ("#RATES! cell: Rates!A3: =A1*2 calls no RATES_* function "
                                            "that asks the service")
        # A cell of a table: its spill's formula (Range.SpillParent). The stand-in evaluated A40
        # before the curve's spill reached E2 and does not revisit it; Excel recalculates the
        # readers of a cell a spill grows into: calculate again, as Excel would.
        app.calculate_full()
        assert audit.range("A40").value == "Request", audit.range("A40").value
        assert audit.range("B40").value == "swap_curve?index=SOFR&valuation_time=2026-01-02T16:00:01Z"
    finally:
        app.close()


def test_the_udf_takes_its_cell_as_a_range(monkeypatch):
    """xlwings passes the Range itself when the argument's converter is `range`, so the
    formula can be read (xlwings' decorators are inert on Linux: record what is asked)."""
    asked = {}

    def arg(name, convert=None, **options):
        asked[name] = convert
        return lambda f: f

    monkeypatch.setattr(udfs.xw, "arg", arg)

    def RATES_SOURCE(cell, caller=None):  # noqa: N802 - the UDF's Excel name
        return cell

    udfs._udf(RATES_SOURCE)
    assert asked == {"cell": "range"}


def test_rates_source_in_a_1904_book_follows_the_request_the_cell_made(client):
    """In a book counting dates from 1904 (Workbook.Date1904) a referenced cell's serial is
    its date on that system, as the cell's own call read it (functions/date_system.py): the
    source is that request, not one 4 years and a day earlier that nobody asked."""
    app = serial_excel.App()
    book = app.add_book("Mac.xlsx", {"Rates": {
        "B1": 46_997 - 1462,  # 1 September 2028, counted from 1904
        "A1": '=RATES_DISCOUNT("SOFR",B1,"2026-01-02T16:00:00Z")',
        "A3": "=RATES_SOURCE(A1)"}})
    book.api.Date1904 = True
    try:
        ribbon.on_action("rates_refresh_workbook", book=book)
        rates = book.sheets["Rates"]
        assert isinstance(rates.range("A1").value, float)
        assert rates.range("A3").value == "Request", rates.range("A3:B3").value
        assert rates.range("B3").value == ("discount_factor?date=2028-09-01&index=SOFR"
                                           "&valuation_time=2026-01-02T16:00:00Z")
    finally:
        app.close()
