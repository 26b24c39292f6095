"""The classic add-in's Refresh records the book's market-data pack into the open workbook,
and the ribbon's Valuation Time pins one moment for every RATES_* cell of the book; on the
serial-Excel stand-in (tests/support/serial_excel.py), against the sandbox."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest

from rates_xl.addin.classic import ribbon, ribbon_refresh, valuation
from rates_xl.client.pack import loads
from rates_xl.client.pack_workbook import NAMESPACE
from tests.support import serial_excel

CELLS = {
    "A1": '=RATES_SWAP("SOFR","0D","10Y","1Y")',
    "A2": '=RATES_FXSPOT("EURUSD")',
    "A3": '=RATES_FIXING("SOFR")',  # takes no valuation_time: never pinned
    "B1": "=A1*2",
}


@pytest.fixture
def client(classic_client):
    return classic_client


def _parts(book):
    return book.api.CustomXMLParts.SelectByNamespace(NAMESPACE)


def _stored(book):
    (part,) = _parts(book)
    return loads(ElementTree.fromstring(part.XML).text)


def test_a_refresh_puts_the_answers_its_cells_used_into_the_workbook(client):
    app = serial_excel.App()
    book = app.add_book("Book1.xlsx", {"Rates": CELLS})
    try:
        assert ribbon.on_action("rates_refresh_workbook", book=book) == "refreshed 3"
        pack = _stored(book)
        assert pack == ribbon_refresh.last_pack
        assert {a.endpoint for a in pack.answers} == {"swap_rate", "fx_spot", "fixing"}
        assert pack.base_url == client.base_url
        swap = next(a for a in pack.answers if a.endpoint == "swap_rate")
        import json

        assert book.sheets[0].range("A1").value == json.loads(swap.answer)["swap_rate"]  # the answer as sent
        # A refresh of one cell keeps the other answers in the book's pack: still one part.
        book.select("Rates", "A2")
        assert ribbon.on_action("rates_refresh_selection", book=book) == "refreshed 1"
        assert len(_parts(book)) == 1
        assert {a.endpoint for a in _stored(book).answers} == {"swap_rate", "fx_spot", "fixing"}
    finally:
        app.close()


def test_a_partial_refresh_keeps_an_edited_answer_edited_and_seals_the_rest(client, sandbox_key):
    """Refresh Selection merges with the pack the book carries: each answer it keeps keeps its
    own digest and signature, so an answer edited in the book is still named after the merge
    (merging never launders an edit), and the merged pack is sealed with the client's key."""
    from rates_xl.client.pack_seal import check, signer_for
    from rates_xl.client.pack_workbook import item_xml

    app = serial_excel.App()
    book = app.add_book("Edited.xlsx", {"Rates": CELLS})
    try:
        assert ribbon.on_action("rates_refresh_workbook", book=book) == "refreshed 3"
        pack = _stored(book)
        fixing = next(a for a in pack.answers if a.endpoint == "fixing")
        edited = fixing.model_copy(update={"answer": fixing.answer.replace('"fixing_rate":', '"fixing_rate":1', 1)})
        forged = pack.model_copy(update={"answers": tuple(edited if a is fixing else a for a in pack.answers)})
        (part,) = _parts(book)
        part.Delete()
        book.api.CustomXMLParts.Add(item_xml(forged).decode())
        book.select("Rates", "A2")
        assert ribbon.on_action("rates_refresh_selection", book=book) == "refreshed 1"
        merged = _stored(book)
        verdict = check(merged, signer_for(sandbox_key))
        assert verdict.edited == (fixing.request,) and not verdict.fields, verdict
        assert {a.endpoint for a in merged.answers} == {"swap_rate", "fx_spot", "fixing"}
    finally:
        app.close()


def test_the_valuation_time_button_pins_every_cell_that_leaves_it_empty(client):
    app = serial_excel.App()
    book = app.add_book("Pinned.xlsx", {"Rates": CELLS})
    try:
        app.api.input_answers = ["2026-01-02T16:00:00Z"]
        assert ribbon.on_action("rates_valuation_time", book=book) == "pinned 2026-01-02T16:00:00Z"
        assert book.names["RATES_VALUATION_TIME"].refers_to == '="2026-01-02T16:00:00Z"'
        assert ribbon.on_action("rates_refresh_workbook", book=book) == "refreshed 3"
        pinned = {a.endpoint: dict(a.params).get("valuation_time") for a in _stored(book).answers}
        assert pinned == {"swap_rate": "2026-01-02T16:00:00Z", "fx_spot": "2026-01-02T16:00:00Z", "fixing": None}
        assert _stored(book).spread() == "every answer valued at 2026-01-02 16:00:00 UTC"
        # A new session reads the name the book carries: the pin survives without the button.
        valuation._pins.clear()
        assert ribbon.on_action("rates_refresh_workbook", book=book) == "refreshed 3"
        assert valuation.pinned("Pinned.xlsx").isoformat() == "2026-01-02T16:00:00+00:00"
        # Cleared: the name goes, the cells value as of now again.
        app.api.input_answers = [""]
        assert ribbon.on_action("rates_valuation_time", book=book) == "cleared"
        assert "RATES_VALUATION_TIME" not in book.names
        assert valuation.pinned("Pinned.xlsx") is None
    finally:
        app.close()


def test_a_valuation_time_that_is_not_one_is_a_message_and_changes_nothing(client):
    app = serial_excel.App()
    book = app.add_book("Bad.xlsx", {"Rates": CELLS})
    alerts = []
    book.app.alert = lambda prompt, title=None, **_: alerts.append(prompt)
    try:
        app.api.input_answers = ["next tuesday"]
        assert ribbon.on_action("rates_valuation_time", book=book) == "failed"
        assert alerts and "RATES_VALUATION_TIME" in alerts[0] and "not a date-time" in alerts[0]
        assert "RATES_VALUATION_TIME" not in book.names
        app.api.input_answers = []  # Cancel
        assert ribbon.on_action("rates_valuation_time", book=book) == "cancelled"
    finally:
        app.close()


def test_a_valuation_time_cell_holding_a_serial_is_read_on_its_books_date_system():
    """RATES_VALUATION_TIME pointing at a cell that holds a number (a moment computed, or a
    cell not formatted as a date): in a book counting dates from 1904 (Workbook.Date1904) the
    serial is read on that system, as the RATES_* cells read theirs (functions/date_system.py)."""
    from types import SimpleNamespace

    from rates_xl.addin.classic import valuation

    def book(serial: float, date1904: object) -> SimpleNamespace:
        cell = SimpleNamespace(refers_to="=Inputs!$B$2", refers_to_range=SimpleNamespace(value=serial))
        return SimpleNamespace(names={valuation.NAME: cell}, api=SimpleNamespace(Date1904=date1904))

    on_1900 = valuation.read_name(book(46_025.5, False))
    assert on_1900 is not None and on_1900.isoformat() == "2026-01-03T12:00:00+00:00"
    assert valuation.read_name(book(46_025.5 - 1462, True)) == on_1900

    class Unreadable:
        @property
        def Date1904(self):  # noqa: N802 - COM's name
            raise OSError("RPC server unavailable")

    broken = book(44_563.5, False)
    broken.api = Unreadable()
    with pytest.raises(ValueError, match="date system .* could not be read"):
        valuation.read_name(broken)
