"""The ribbon handlers, on a small fake of just the xlwings objects they touch.

The fake Excel recalculates what was marked dirty by calling the real UDFs with the real
client against the sandbox, so the refresh floor is tested end to end: cells in scope fetch
once, duplicates share that fetch, cells outside keep their cache.
"""

from __future__ import annotations

import re

import pytest

from rates_xl.addin.classic import refresh, ribbon, scope, udfs
from rates_xl.client import RatesClient
from rates_xl.client.settings import KEYRING_SERVICE, KEYRING_USERNAME

FX = '=RATES_FXSPOT("EURUSD")'
FIXING = '=RATES_FIXING("SOFR")'
CURVE = '=RATES_SWAPCURVE("SOFR")'
_CALL = re.compile(r'^=RATES_([A-Z]+)\((.*)\)$')


# -- the fake: only what the handlers use ---------------------------------------------------------
class FakeCom:
    def __init__(self, rng):
        self._rng = rng

    def Dirty(self):
        for rect in scope.parse_address(self._rng.address):
            for row in range(rect.top, rect.bottom + 1):
                for col in range(rect.left, rect.right + 1):
                    self._rng.sheet.dirty.append((row, col))

    @property
    def HasSpill(self):
        return self._rng.cell in self._rng.sheet.spills

    @property
    def SpillingToRange(self):
        return type("Spill", (), {"Address": self._rng.sheet.spills[self._rng.cell]})()


class FakeRange:
    def __init__(self, sheet, where):
        self.sheet = sheet
        if isinstance(where, tuple):
            where = scope.cell_address(*where)
        self.rects = scope.parse_address(where)
        self.address = ",".join(_dollar(r) for r in self.rects)

    @property
    def cell(self):
        return self.rects[0].top, self.rects[0].left

    @property
    def formula(self):
        rect = self.rects[0]
        grid = tuple(tuple(self.sheet.formulas.get((r, c), "") for c in range(rect.left, rect.right + 1))
                     for r in range(rect.top, rect.bottom + 1))
        return grid[0][0] if len(grid) == 1 and len(grid[0]) == 1 else grid

    @property
    def api(self):
        return FakeCom(self)


def _dollar(rect):
    first = f"${scope.column_letters(rect.left)}${rect.top}"
    last = f"${scope.column_letters(rect.right)}${rect.bottom}"
    return first if first == last else f"{first}:{last}"


class FakeSheet:
    def __init__(self, book, name, formulas, spills=None):
        self.book, self.name = book, name
        self.formulas = {_cell(a): f for a, f in formulas.items()}
        self.spills = {_cell(a): area for a, area in (spills or {}).items()}
        self.dirty: list[tuple[int, int]] = []
        self.values: dict[tuple[int, int], object] = {}

    @property
    def used_range(self):
        cells = list(self.formulas) or [(1, 1)]
        top, left = min(r for r, _ in cells), min(c for _, c in cells)
        bottom, right = max(r for r, _ in cells), max(c for _, c in cells)
        return FakeRange(self, f"{scope.cell_address(top, left)}:{scope.cell_address(bottom, right)}")

    def range(self, where):
        return FakeRange(self, where)


def _cell(address):
    rect = scope.parse_address(address)[0]
    return rect.top, rect.left


class FakeSheets(list):
    active = None


class FakeWorkbooks:
    def __init__(self):
        self.added = []

    def Add(self, template):
        self.added.append(template)


class FakeApp:
    def __init__(self):
        self.calculations = 0
        self.alerts: list[tuple[str, str]] = []
        self.status_bar = None
        self.api = type("Api", (), {})()
        self.api.Workbooks = FakeWorkbooks()
        self.books: list[FakeBook] = []

    def alert(self, prompt, title=None):
        self.alerts.append((prompt, title))

    def calculate(self):
        """Excel's Calculate: evaluate the dirty cells (with the real UDFs), clear the marks."""
        self.calculations += 1
        for book in self.books:
            for sheet in book.sheets:
                for cell in sorted(set(sheet.dirty)):
                    sheet.values[cell] = evaluate(sheet, cell)
                sheet.dirty.clear()


class FakeBook:
    def __init__(self, name, app, sheets):
        self.name, self.app = name, app
        self.sheets = FakeSheets(FakeSheet(self, n, f, s) for n, f, s in sheets)
        self.sheets.active = self.sheets[0]
        self.selection = None
        app.books.append(self)

    def select(self, sheet_index, address):
        self.selection = FakeRange(self.sheets[sheet_index], address)


def evaluate(sheet, cell):
    """Call the UDF a cell's formula names, with that cell as the caller (as xlwings does)."""
    name, args = _CALL.match(sheet.formulas[cell]).groups()
    values = [a.strip().strip('"') for a in args.split(",")] if args else []
    return getattr(udfs, f"RATES_{name}")(*values, caller=FakeRange(sheet, cell))


def context(book, secret=None, choice=None):
    return ribbon.Context(book, lambda prompt, title: secret, lambda app, p, t, options: choice)


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
    app = FakeApp()
    book = FakeBook("Pricing.xlsx", app, [
        ("Rates", {"A1": FX, "A2": FX, "B1": "=SUM(A1:A2)", "C1": FIXING, "E1": CURVE,
                   "H3": '="RATES_FXSPOT(""EURUSD"")"'}, {"E1": "$E$1:$F$12"}),
        ("Other", {"A1": FX, "B2": "plain text"}, {}),
    ])
    if selection:
        book.select(0, selection)
    return book


def first_calculation(book):
    for sheet in book.sheets:
        for cell, formula in sheet.formulas.items():
            if scope.is_rates_formula(formula):
                sheet.values[cell] = evaluate(sheet, cell)


# -- refresh --------------------------------------------------------------------------------------
def test_refresh_sheet_refetches_once_and_leaves_other_sheets_cached(client):
    book = workbook()
    first_calculation(book)
    sent = client.stats()["requests_sent"]
    assert isinstance(book.sheets[0].values[(1, 1)], float)

    assert ribbon.on_action("rates_refresh_sheet", book=book) == "refreshed 4"
    # A1 and A2 ask the same question: one fetch. C1 and E1 one each. Nothing else.
    assert client.stats()["requests_sent"] == sent + 3
    assert book.app.calculations == 1
    assert book.app.status_bar == "Rates: refreshed 4 cells on Rates"
    # The other sheet's FX cell was not dirtied, and evaluating it now uses the cache.
    assert book.sheets[1].dirty == []
    evaluate(book.sheets[1], (1, 1))
    assert client.stats()["requests_sent"] == sent + 3
    assert refresh.floor_for("Pricing.xlsx", "Other", "$A$1") is None
    assert refresh.floor_for("pricing.xlsx", "RATES", "$A$1") is not None


def test_refresh_selection_covers_selected_cells_and_curves_spilling_into_it(client):
    book = workbook(selection="$A$2,$F$5")  # one FX cell, and a cell inside the curve's spill
    first_calculation(book)
    sent = client.stats()["requests_sent"]
    dirtied = []
    original = FakeCom.Dirty

    def spy(self):
        dirtied.append(self._rng.address)
        original(self)

    FakeCom.Dirty = spy
    try:
        assert ribbon.on_action("rates_refresh_selection", book=book) == "refreshed 2"
    finally:
        FakeCom.Dirty = original
    assert len(dirtied) == 1  # one Dirty call, exactly those cells
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
    assert ribbon.on_action("rates_refresh_workbook", book=book) == "refreshed 5"
    assert client.stats()["requests_sent"] == sent + 3  # FX (4 cells on 2 sheets), fixing, curve
    assert refresh.floor_for("Pricing.xlsx", "Other", "A1") is not None
    assert book.app.calculations == 1


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
    evaluate(FakeSheet(book, "Bad", {"A1": '=RATES_FIXING("NOSUCHINDEX")'}), (1, 1))
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
    text = ribbon.status_text("http://127.0.0.1:1", "connection refused", "set (in the keychain: X)", stats)
    assert text.splitlines()[:3] == ["Service: http://127.0.0.1:1", "Connection: connection refused",
                                     "API key: set (in the keychain: X)"]
    for expected in ("Requests sent: 12", "Answered from cache: 40", "identical request: 3", "Retries: 1",
                     "rate limit: 2 (0.4 s)", "Answers in the cache: 25", "Errors: 403 x1, 422 x2"):
        assert expected in text
    assert text.endswith("...") and len(text.splitlines()[-1]) < 320
    empty = ribbon.status_text("u", "r", "not set", {})
    assert "Errors: none" in empty and "Last error: none" in empty


# -- templates, help, dispatch ---------------------------------------------------------------------
def test_templates_open_a_copy_of_the_chosen_workbook(tmp_path, monkeypatch):
    for name in ("swap_pricer.xlsx", "curve_dashboard.xlsx", "~$swap_pricer.xlsx"):
        (tmp_path / name).write_bytes(b"")
    catalogue = ribbon.template_catalogue(tmp_path)
    assert [title for title, _ in catalogue] == ["Curve dashboard", "Swap pricer"]
    monkeypatch.setattr(ribbon, "template_catalogue", lambda: catalogue)
    book = workbook()
    assert ribbon.on_action("rates_templates", book=book, choose=lambda app, p, t, options: 1) == "opened swap_pricer.xlsx"
    assert book.app.api.Workbooks.added == [str(tmp_path / "swap_pricer.xlsx")]
    assert ribbon.on_action("rates_templates", book=book, choose=lambda app, p, t, options: None) == "cancelled"
    monkeypatch.setattr(ribbon, "template_catalogue", lambda: [])
    assert ribbon.on_action("rates_templates", book=book) == "none"


def test_the_shipped_templates_are_listed():
    from pathlib import Path

    import rates_xl.templates

    folder = Path(rates_xl.templates.__file__).parent
    assert [p for _, p in ribbon.template_catalogue()] == sorted(
        p for p in folder.glob("*.xlsx") if not p.name.startswith(("~$", ".")))


@pytest.mark.parametrize("answer, expected", [(1, 0), ("2", 1), (2.0, 1), (False, None), (None, None),
                                              (0, None), (4, None), ("x", None)])
def test_choice_parsing(answer, expected):
    assert ribbon.parse_choice(answer, 3) == expected


def test_numbered_menu():
    assert ribbon.numbered_menu("Pick:", ["A", "B"]) == "Pick:\n\n1. A\n2. B\n\nType a number:"


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


def test_spill_extent_reads_excel_and_tolerates_old_excel():
    book = workbook()
    sheet = book.sheets[0]
    assert ribbon.spill_extent(sheet, (1, 5)) == scope.Rect(1, 5, 12, 6)
    assert ribbon.spill_extent(sheet, (1, 1)) is None

    class NoDynamicArrays:
        def range(self, cell):
            raise AttributeError("HasSpill")

    assert ribbon.spill_extent(NoDynamicArrays(), (1, 1)) is None


def test_dirty_goes_in_chunks_excel_accepts():
    book = workbook()
    sheet = book.sheets[0]
    cells = [(row, 1) for row in range(1, 120)]
    addresses = []
    original = FakeCom.Dirty
    FakeCom.Dirty = lambda self: addresses.append(self._rng.address)
    try:
        ribbon.mark_dirty(sheet, cells)
    finally:
        FakeCom.Dirty = original
    assert len(addresses) > 1
    assert sum(a.count(",") + 1 for a in addresses) == len(cells)
