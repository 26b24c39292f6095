"""The classic add-in reads a date given as a number on the caller's book's date system
(functions/date_system.py): in a book counting dates from 1904 (Workbook.Date1904), the serial
45,535 is 1 September 2028, which a 1900 book writes 46,997. Before, the add-in read every
serial on the 1900 system, and a 1904 book's RATES_DISCOUNT of DATE(2028,9,1) asked the service
for 31 August 2024, silently. On the serial-Excel stand-in, the real UDFs, against the sandbox.
A date cell reaches a UDF as the day itself (xlwings reads Range.Value, a COM date), which the
stand-in cannot show (its cells hold no number formats): manual checklist, addin/README.md."""

from __future__ import annotations

import pytest

from rates_xl.addin.classic import udfs
from rates_xl.client import RatesClient
from rates_xl.functions import errors
from rates_xl.functions.date_system import SHIFT
from rates_xl.sandbox import PAID_KEY
from tests.support import serial_excel

SERIAL_1900 = 46_997  # 2028-09-01 on the 1900 system
PINNED = '"2026-01-02T16:00:00Z"'


@pytest.fixture
def client(sandbox):
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, persistent=False)
    udfs.set_client(client)
    yield client
    udfs.set_client(None)
    client.close()


def _book(app: serial_excel.App, name: str, serial: int, date1904: bool) -> dict[str, object]:
    book = app.add_book(name, {"Main": {
        "A1": f'=RATES_DISCOUNT("SOFR", {serial}, {PINNED})',  # a date a formula computed: a number
        "B1": serial, "A2": f'=RATES_DISCOUNT("SOFR", B1, {PINNED})',  # a cell holding the serial
        "A4": f'=RATES_FORWARD("SOFR", {serial}, "3M", {PINNED})',  # a date as the start, a tenor after
    }})
    book.api.Date1904 = date1904
    app.calculate_full()
    return {cell: book.sheets[0].range(cell).value for cell in ("A1", "A2", "A4")}


def test_a_1904_books_serial_is_read_on_its_own_system(client):
    app = serial_excel.App()
    on_1900 = _book(app, "Book1900.xlsx", SERIAL_1900, False)
    on_1904 = _book(app, "Book1904.xlsx", SERIAL_1900 - SHIFT, True)
    assert all(isinstance(v, float) for v in on_1900.values()), on_1900
    assert on_1904 == on_1900  # the same date, so the same discount factor and forward
    # The serial read as 1900's (what the add-in did) is another date's: another discount factor.
    wrong = _book(app, "Wrong.xlsx", SERIAL_1900 - SHIFT, False)
    assert wrong["A1"] != on_1900["A1"] and wrong["A4"] != on_1900["A4"]


def test_a_date_system_that_cannot_be_read_is_the_cells_message(client):
    class Unreadable:
        CustomXMLParts = None

        @property
        def Date1904(self):  # noqa: N802 - COM's name
            raise OSError("RPC server unavailable")

    app = serial_excel.App()
    book = app.add_book("Book.xlsx", {"Main": {"A1": f'=RATES_DISCOUNT("SOFR", 45535, {PINNED})',
                                               "A2": f'=RATES_DISCOUNT("SOFR", "5Y", {PINNED})'}})
    book.api = Unreadable()
    app.calculate_full()
    sheet = book.sheets[0]
    assert str(sheet.range("A1").value) == "#N/A"  # not the formula's fault: Excel's
    said = errors.messages.of("Book.xlsx", "Main", "A1")
    assert said.startswith("#RATES! pay_date: a date given as a number") and "(OSError)" in said, said
    assert isinstance(sheet.range("A2").value, float)  # no date given as a number: the book is not asked
