"""The ribbon handlers, on the serial-Excel stand-in (tests/support/serial_excel.py).

The stand-in recalculates what was marked dirty by calling the real UDFs, one cell at a
time, with the real client against the sandbox, so the refresh floor is tested end to end:
cells in scope fetch once, duplicates share that fetch, cells outside keep their cache.
The refresh itself (plan, fetch, compute through Excel's calculation) is tested on whole
templates in test_refresh_excel.py.
"""

from __future__ import annotations

import pytest

from rates_xl.addin.classic import (
    refresh,
    ribbon,
    ribbon_buttons,
    ribbon_context,
    ribbon_refresh,
    udfs,
)
from rates_xl.client import RatesClient
from rates_xl.client.api_key import KEYRING_SERVICE, KEYRING_USERNAME
from rates_xl.functions.sheet import Area
from tests.support import serial_excel, serial_excel_book

FX = '=RATES_FXSPOT("EURUSD")'
FIXING = '=RATES_FIXING("SOFR")'
CURVE = '=RATES_SWAPCURVE("SOFR")'


def context(book, secret=None, choice=None):
    return ribbon_context.Context(book, lambda prompt, title: secret, lambda app, p, t, options: choice)


# -- fixtures -------------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def clean_scopes():
    refresh.clear_scopes()
    yield
    refresh.clear_scopes()


@pytest.fixture
def client(sandbox, sandbox_key, monkeypatch):
    monkeypatch.delenv("RATES_API_KEY", raising=False)
    live = RatesClient(base_url=sandbox.base_url, api_key=sandbox_key)
    udfs.set_client(live)
    yield live
    udfs.set_client(None)
    live.close()


def workbook(selection=None):
    app = serial_excel.App()
    book = app.add_book("Pricing.xlsx", {
        "Rates": {"A1": FX, "A2": FX, "B1": "=SUM(A1:A2)", "C1": FIXING, "E1": CURVE,
                  "H3": '="RATES_FXSPOT(""EURUSD"")"'},
        "Other": {"A1": FX, "B2": "plain text"},
    })
    if selection:
        book.select(0, selection)
    return book


def first_calculation(book):
    book.app.calculate_full()


def evaluate(sheet, cell):
    """Evaluate one cell now, with that cell as the caller (as xlwings does)."""
    sheet.range(cell).api.Calculate()
    return sheet.values[cell]


# -- refresh --------------------------------------------------------------------------------------
def test_refresh_sheet_refetches_once_and_leaves_other_sheets_cached(client):
    book = workbook()
    first_calculation(book)
    sent = client.stats()["requests_sent"]
    assert isinstance(book.sheets[0].values[(1, 1)], float)

    calculations = book.app.calculations
    assert ribbon.on_action("rates_refresh_sheet", book=book) == "refreshed 4"
    # A1 and A2 ask the same question: one fetch. C1 and E1 one each. Nothing else.
    assert client.stats()["requests_sent"] == sent + 3
    assert book.app.calculations == calculations + 2  # the plan pass and the compute pass
    assert book.app.status_bar.startswith("Rates: refreshed 4 cells on Rates (3 requests, ")
    # The other sheet's FX cell was not dirtied, and evaluating it now uses the cache.
    assert book.sheets[1].dirty == set()
    evaluate(book.sheets[1], (1, 1))
    assert client.stats()["requests_sent"] == sent + 3
    assert refresh.floor_for("Pricing.xlsx", "Other", "$A$1") is None
    assert refresh.floor_for("pricing.xlsx", "RATES", "$A$1") is not None


def test_refresh_selection_covers_selected_cells_and_curves_spilling_into_it(client):
    book = workbook(selection="$A$2,$F$5")  # one FX cell, and a cell inside the curve's spill
    first_calculation(book)
    sent = client.stats()["requests_sent"]
    dirtied = []
    original = serial_excel_book._RangeApi.Dirty

    def spy(self):
        dirtied.append(self._rng.address)
        original(self)

    serial_excel_book._RangeApi.Dirty = spy
    try:
        assert ribbon.on_action("rates_refresh_selection", book=book) == "refreshed 2"
    finally:
        serial_excel_book._RangeApi.Dirty = original
    assert len(dirtied) == 2  # the plan pass: exactly those cells; the compute pass: the same two
    assert set(dirtied[0].split(",")) == {"$A$2", "$E$1"}
    assert client.stats()["requests_sent"] == sent + 2  # the FX rate and the curve
    assert refresh.floor_for("Pricing.xlsx", "Rates", "A2") is not None
    assert refresh.floor_for("Pricing.xlsx", "Rates", "E1") is not None
    # A1 holds the same request as A2 but is outside the selection: no floor, cache kept.
    assert refresh.floor_for("Pricing.xlsx", "Rates", "A1") is None
    assert refresh.floor_for("Pricing.xlsx", "Rates", "C1") is None


def test_refresh_workbook_covers_every_sheet(client):
    book = workbook()
    first_calculation(book)
    sent = client.stats()["requests_sent"]
    calculations = book.app.calculations
    assert ribbon.on_action("rates_refresh_workbook", book=book) == "refreshed 5"
    assert client.stats()["requests_sent"] == sent + 3  # FX (4 cells on 2 sheets), fixing, curve
    assert refresh.floor_for("Pricing.xlsx", "Other", "A1") is not None
    assert book.app.calculations == calculations + 2


def test_refresh_with_nothing_to_do_does_not_recalculate(client):
    book = workbook(selection="$B$1:$B$3")  # only a SUM
    assert ribbon.on_action("rates_refresh_selection", book=book) == "nothing to refresh"
    assert book.app.calculations == 0 and not refresh.has_scopes()
    assert book.app.status_bar == "Rates: no RATES_ formulas in the selection"
    book.selection = None
    assert ribbon.on_action("rates_refresh_selection", book=book) == "no selection"
    assert book.app.alerts[-1][0] == "Select the cells to refresh first."


# -- cache, key, status ----------------------------------------------------------------------------
def test_clear_cache_empties_the_cells_client(client):
    book = workbook()
    first_calculation(book)
    assert client.stats()["cached_answers"] >= 3
    assert ribbon.on_action("rates_clear_cache", book=book).startswith("cleared ")
    assert client.stats()["cached_answers"] == 0
    assert "cleared" in book.app.status_bar


def test_set_key_stores_it_and_rebuilds_the_client(keychain, monkeypatch):
    monkeypatch.delenv("RATES_API_KEY", raising=False)
    before = udfs.get_client()
    book = workbook()
    assert ribbon.on_action("rates_set_key", book=book, prompt_secret=lambda p, t: " key-1234567890 ") == "stored"
    assert keychain.get_password(KEYRING_SERVICE, KEYRING_USERNAME) == "key-1234567890"
    after = udfs.get_client()
    assert after is not before and after.has_key
    text, _ = book.app.alerts[-1]
    assert "stored in the keychain" in text and "key-1234567890" not in text
    udfs.set_client(None)


def test_set_key_cancelled_or_refused(keychain, monkeypatch):
    monkeypatch.delenv("RATES_API_KEY", raising=False)
    book = workbook()
    assert ribbon.on_action("rates_set_key", book=book, prompt_secret=lambda p, t: None) == "cancelled"
    assert ribbon.on_action("rates_set_key", book=book, prompt_secret=lambda p, t: "has a space") == "failed"
    assert "contains spaces" in book.app.alerts[-1][0]
    assert keychain.get_password(KEYRING_SERVICE, KEYRING_USERNAME) is None


def test_set_key_without_a_keychain_says_what_to_do(no_keychain):
    book = workbook()
    assert ribbon.on_action("rates_set_key", book=book, prompt_secret=lambda p, t: "key-1234567890") == "failed"
    text = book.app.alerts[-1][0]
    assert "no usable keychain backend" in text and "key-1234567890" not in text


def test_status_shows_connection_key_state_counters_and_last_error(client, keychain, sandbox_key):
    book = workbook()
    first_calculation(book)
    bad = book.app.add_book("Bad.xlsx", {"Bad": {"A1": '=RATES_FIXING("NOSUCHINDEX")'}})
    evaluate(bad.sheets[0], (1, 1))
    assert ribbon.on_action("rates_status", book=book) == "shown"
    text, title = book.app.alerts[-1]
    assert title == "Rates: Status"
    assert client.base_url in text and "reachable (HTTP" in text
    assert "API key: not set" in text  # the test client got its key as an argument
    assert f"Requests sent: {client.stats()['requests_sent']}" in text
    assert "Last error: fixing:" in text
    assert sandbox_key not in text


def test_status_text_is_complete_and_bounded():
    stats = {"requests_sent": 12, "cache_hits": 40, "coalesced_waits": 3, "retries": 1,
             "throttled_waits": 2, "throttle_wait_seconds": 0.4, "errors_by_status": {"422": 2, "403": 1},
             "last_error": "swap_rate: " + "x" * 500, "cached_answers": 25}
    text = ribbon_buttons.status_text("http://127.0.0.1:1", "connection refused", "set (in the keychain: X)", stats)
    assert text.splitlines()[:3] == ["Service: http://127.0.0.1:1", "Connection: connection refused",
                                     "API key: set (in the keychain: X)"]
    for expected in ("Requests sent: 12", "Answered from cache: 40", "identical request: 3", "Retries: 1",
                     "rate limit: 2 (0.4 s)", "Answers in the cache: 25", "Errors: 403 x1, 422 x2"):
        assert expected in text
    assert text.endswith("...") and len(text.splitlines()[-1]) < 320
    empty = ribbon_buttons.status_text("u", "r", "not set", {})
    assert "Errors: none" in empty and "Last error: none" in empty


# -- templates, help, dispatch ---------------------------------------------------------------------
def test_templates_open_a_copy_of_the_chosen_workbook(tmp_path, monkeypatch):
    for name in ("swap_pricer.xlsx", "curve_dashboard.xlsx", "~$swap_pricer.xlsx"):
        (tmp_path / name).write_bytes(b"")
    catalogue = ribbon_buttons.template_catalogue(tmp_path)
    assert [title for title, _ in catalogue] == ["Curve dashboard", "Swap pricer"]
    monkeypatch.setattr(ribbon_buttons, "template_catalogue", lambda: catalogue)
    book = workbook()
    assert ribbon.on_action("rates_templates", book=book, choose=lambda app, p, t, options: 1) == "opened swap_pricer.xlsx"
    assert book.app.api.Workbooks.added == [str(tmp_path / "swap_pricer.xlsx")]
    assert ribbon.on_action("rates_templates", book=book, choose=lambda app, p, t, options: None) == "cancelled"
    monkeypatch.setattr(ribbon_buttons, "template_catalogue", lambda: [])
    assert ribbon.on_action("rates_templates", book=book) == "none"


def test_the_shipped_templates_are_listed():
    from pathlib import Path

    import rates_xl.templates

    folder = Path(rates_xl.templates.__file__).parent
    assert [p for _, p in ribbon_buttons.template_catalogue()] == sorted(
        p for p in folder.glob("*.xlsx") if not p.name.startswith(("~$", ".")))


@pytest.mark.parametrize("answer, expected", [(1, 0), ("2", 1), (2.0, 1), (False, None), (None, None),
                                              (0, None), (4, None), ("x", None)])
def test_choice_parsing(answer, expected):
    assert ribbon_context.parse_choice(answer, 3) == expected


def test_numbered_menu():
    assert ribbon_context.numbered_menu("Pick:", ["A", "B"]) == "Pick:\n\n1. A\n2. B\n\nType a number:"


def test_help_lists_every_function():
    from rates_xl.functions.table import FUNCTIONS

    book = workbook()
    assert ribbon.on_action("rates_help", book=book) == "shown"
    text = book.app.alerts[-1][0]
    assert all(name in text for name in FUNCTIONS)
    assert "rates-xl doctor" in text


def test_unknown_buttons_and_failures_give_a_message_not_a_traceback(monkeypatch):
    book = workbook()
    assert ribbon.on_action("rates_nonexistent", book=book) == "unknown"
    assert "has no handler" in book.app.alerts[-1][0]

    def broken(ctx):
        raise KeyError("internal detail")

    monkeypatch.setitem(ribbon.ACTIONS, "rates_help", broken)
    assert ribbon.on_action("rates_help", book=book) == "failed"
    text = book.app.alerts[-1][0]
    assert "rates-xl doctor" in text and "Traceback" not in text and "internal detail" not in text


def test_spill_extent_reads_excel_and_tolerates_old_excel(client):
    book = workbook()
    first_calculation(book)
    sheet = book.sheets[0]
    rows = len(client.swap_curve("SOFR").swap_rates) + 1  # a header row, then one row per tenor
    assert ribbon_refresh.spill_extent(sheet, (1, 5)) == Area(1, 5, rows, 6)
    assert ribbon_refresh.spill_extent(sheet, (1, 1)) is None

    class NoDynamicArrays:
        def range(self, cell):
            raise AttributeError("HasSpill")

    assert ribbon_refresh.spill_extent(NoDynamicArrays(), (1, 1)) is None


def test_dirty_goes_in_chunks_excel_accepts():
    book = workbook()
    sheet = book.sheets[0]
    cells = [(row, 1) for row in range(1, 120)]
    addresses = []
    original = serial_excel_book._RangeApi.Dirty
    serial_excel_book._RangeApi.Dirty = lambda self: addresses.append(self._rng.address)
    try:
        ribbon_refresh.mark_dirty(sheet, cells)
    finally:
        serial_excel_book._RangeApi.Dirty = original
    assert len(addresses) > 1
    assert sum(a.count(",") + 1 for a in addresses) == len(cells)
