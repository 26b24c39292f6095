"""The Scenario control of the classic Rates tab, on the serial-Excel stand-in against the
sandbox: a workbook's RATES_ cells answered from its pack under a shift of the curves (equal to
the sandbox serving its curves shifted), the button's label, RATES_STATUS and RATES_SOURCE
saying it is not at market, another open book left at market, Refresh and Live refused while
on, nothing asked of the service, and back to market."""

from __future__ import annotations

import pytest

from rates_xl.addin.classic import ribbon, scenario, valuation
from rates_xl.client import RatesClient
from rates_xl.sandbox.server import start_in_thread
from tests.support import serial_excel

MOMENT = "2026-03-10T16:00:00Z"
CELLS = {
    "A1": f'=RATES_SWAP("SOFR","2D","10Y","1Y",,,,"{MOMENT}")',
    "A2": f'=RATES_DISCOUNT("SOFR","5Y","{MOMENT}")',
    "A3": f'=RATES_FXSPOT("EURUSD","{MOMENT}")',
    "A4": "=A1*100",
    "C1": "=RATES_STATUS()",
    "F1": "=RATES_SOURCE(A1)",
}


@pytest.fixture
def sandbox(sandbox_factory):
    """A sandbox of this test's own: what reached it is counted."""
    return sandbox_factory(rate_limit=1000, burst=1000)


@pytest.fixture
def client(classic_client):
    return classic_client


@pytest.fixture
def excel(client):
    app = serial_excel.App()
    book = app.add_book("Pricer.xlsx", {"Rates": CELLS})
    other = app.add_book("Other.xlsx", {"Rates": {"A1": f'=RATES_SWAP("SOFR","2D","10Y","1Y",,,,"{MOMENT}")'}})
    assert ribbon.on_action("rates_refresh_workbook", book=other) == "refreshed 1"
    assert ribbon.on_action("rates_refresh_workbook", book=book) == "refreshed 5"
    yield app, book, other
    app.close()


def _value(book, cell):
    return book.sheets[0].range(cell).value


def _rows(book, block):
    """A spilled table of (label, value) rows: {label: value}."""
    return {row[0]: row[1] for row in book.sheets[0].range(block).value if row[0] is not None}


def _shifted(spec):
    with start_in_thread(rate_limit=1000, burst=1000, shift=spec) as shifted, \
            RatesClient(shifted.base_url, api_key="sandbox-paid", persistent=False) as c:
        return (c.swap_rate("SOFR", "2D", "10Y", "1Y", valuation_time=MOMENT).swap_rate,
                c.discount_factor("SOFR", "5Y", valuation_time=MOMENT).discount_factor)


def test_a_scenario_answers_the_book_from_its_pack_shifted_and_says_so_until_back_to_market(excel, sandbox):
    app, book, other = excel
    market = {cell: _value(book, cell) for cell in ("A1", "A2", "A3", "A4")}
    at_market_other = _value(other, "A1")
    assert app.ribbon_label("rates_scenario") == "At Market"
    assert _rows(book, "C1:D20")["Scenario"] == "none: market data"
    sent = len(list(sandbox.arrivals))
    app.api.input_answers = ["SOFR:10Y+25bp"]
    assert ribbon.on_action("rates_scenario", book=book) == "scenario SOFR:10Y+25bp"
    swap, discount = _shifted("SOFR:10Y+25bp")
    assert _value(book, "A1") == pytest.approx(swap, abs=1e-9) and abs(_value(book, "A1") - market["A1"]) > 0.2
    assert _value(book, "A2") == pytest.approx(discount, rel=1e-10)
    assert _value(book, "A4") == pytest.approx(100 * _value(book, "A1"))  # what reads it moved with it
    assert _value(book, "A3") == market["A3"]  # FX spot: not shifted, and said so
    assert any("fx_spot?currency_pair=EURUSD" in prompt and "not shifted" in prompt for prompt, _ in app.alerts)
    # The workbook says it is not at market: the button, RATES_STATUS, RATES_SOURCE, the status bar.
    assert app.ribbon_label("rates_scenario") == "SCENARIO SOFR:10Y+25bp (key-rate buckets 1Y 2Y 5Y 10Y 30Y)"
    assert "rates_scenario" in app.invalidated
    assert _rows(book, "C1:D20")["Scenario"].startswith("SOFR:10Y+25bp (key-rate buckets 1Y 2Y 5Y 10Y 30Y): NOT market data")
    assert _rows(book, "F1:G6")["Scenario"].startswith("SOFR:10Y+25bp: the recorded answer moved by the local model")
    assert "SCENARIO SOFR:10Y+25bp" in str(app.status_bar)
    # The other open book stays at market, recalculated or not.
    other.sheets[0].range("A1").api.Dirty()
    app.calculate()
    assert _value(other, "A1") == at_market_other
    # Only the SOFR curve's calibration was asked of the service (the pack lacked it); nothing else.
    asked = [a.path for a in list(sandbox.arrivals)[sent:]]
    assert asked and set(asked) <= {"/v1/get_swap_curve", "/v1/fixing"}
    # A new RATES_ cell in the book asks the pack, never the service.
    after = len(list(sandbox.arrivals))
    book.sheets[0].range("A6").formula = f'=RATES_SWAP("SOFR","2D","7Y","1Y",,,,"{MOMENT}")'
    from rates_xl.functions import errors

    assert errors.messages.of(book.name, "Rates", "$A$6").startswith("#RATES! not in the market-data pack: swap_rate")
    assert len(list(sandbox.arrivals)) == after
    # Refresh and Live are refused while it is on; the book's pack stays the market's.
    app.alerts.clear()
    assert ribbon.on_action("rates_refresh_workbook", book=book) == "failed"
    assert "shows the scenario SOFR:10Y+25bp" in app.alerts[-1][0] and "Back to Market" in app.alerts[-1][0]
    assert valuation.stored_pack(book).scenario is None
    assert book.names[scenario.NAME].refers_to.startswith('="SOFR:10Y+25bp')  # saved with the book
    # Back to market: the market's values again, the label and the status say so.
    assert ribbon.on_action("rates_market", book=book) == "market"
    assert {cell: _value(book, cell) for cell in ("A1", "A2", "A3", "A4")} == market
    assert app.ribbon_label("rates_scenario") == "At Market"
    assert _rows(book, "C1:D20")["Scenario"] == "none: market data"
    assert scenario.NAME not in book.names


def test_a_book_saved_under_a_scenario_opens_recalculated_at_market(excel):
    """Excel reopened: the process that applied the scenario is gone, the book still shows its
    values and carries RATES_SCENARIO; the add-in's start recalculates it from the market."""
    app, book, _ = excel
    market = _value(book, "A1")
    app.api.input_answers = ["*+25bp"]
    assert ribbon.on_action("rates_scenario", book=book) == "scenario *+25bp"
    assert abs(_value(book, "A1") - market - 0.25) < 1e-9
    for name in list(scenario._books):  # a new process: no scenario held, the book's values kept
        scenario._books.pop(name).client.close()
    app.alerts.clear()
    assert ribbon.on_action(ribbon.START_ACTION, book=book).endswith("1 saved under a scenario recalculated at market")
    assert _value(book, "A1") == market
    assert scenario.NAME not in book.names
    assert "was saved while a scenario was on (*+25bp: not market data)" in app.alerts[-1][0]


def test_a_bad_spec_or_a_book_without_a_pack_is_one_message_and_changes_nothing(client):
    app = serial_excel.App()
    book = app.add_book("Fresh.xlsx", {"Rates": CELLS})
    try:
        assert ribbon.on_action("rates_scenario", book=book) == "no pack"
        assert "carries no market-data pack yet: Refresh Workbook first" in app.alerts[-1][0]
        assert ribbon.on_action("rates_refresh_workbook", book=book) == "refreshed 5"
        before = _value(book, "A1")
        for typed, says in [("SOFR+1", "the amount is in bp"), ("SOFT+1bp", "no answer in the pack is on SOFT"),
                            ("SOFR:7Y+1bp", "7Y is not one of the buckets")]:
            app.api.input_answers = [typed]
            assert ribbon.on_action("rates_scenario", book=book) == "failed"
            assert says in app.alerts[-1][0] and "\n" not in app.alerts[-1][0].rstrip(".")
            assert scenario.active(book.name) is None and _value(book, "A1") == before
        app.api.input_answers = []  # Cancel
        assert ribbon.on_action("rates_scenario", book=book) == "cancelled"
        assert app.ribbon_label("rates_scenario") == "At Market"
    finally:
        app.close()


def test_the_ribbon_declares_the_control_and_the_vba_its_callbacks():
    """The Scenario button's label comes from RatesRibbon.RatesGetLabel, which the build checks
    (a Sub(control As IRibbonControl, ByRef label)); RatesShowScenario, which Python runs,
    redraws it; both handlers have a button."""
    from rates_xl.addin.classic import build_sources

    xml = build_sources.CUSTOM_UI.read_bytes()
    bas = build_sources.VBA_MODULE.read_text(encoding="utf-8")
    result = build_sources.CheckResult()
    build_sources.check_callbacks(xml, bas, result)
    build_sources.check_handlers(xml, result)
    assert result.ok, result.problems
    assert any("rates_scenario: getLabel RatesRibbon.RatesGetLabel is a Sub" in p for p in result.passed)
    assert "Public Sub RatesShowScenario(shown As String)" in bas
    assert 'RatesUI.InvalidateControl "rates_scenario"' in bas
    assert set(serial_excel.ADDIN_RUN) == {scenario.SHOW_MACRO}


def test_without_quantlib_the_button_says_which_extra(client, monkeypatch):
    """`pip install .` (the Windows install) leaves QuantLib out: the Scenario button says
    which extra to install, never 'the button failed'."""
    import sys

    app = serial_excel.App()
    book = app.add_book("NoQL.xlsx", {"Rates": CELLS})
    try:
        assert ribbon.on_action("rates_refresh_workbook", book=book) == "refreshed 5"
        for name in [m for m in sys.modules if m.startswith(("rates_xl.scenario.", "rates_xl.sandbox."))
                     and not m.endswith(".spec")]:
            monkeypatch.delitem(sys.modules, name)
        monkeypatch.setitem(sys.modules, "QuantLib", None)  # import QuantLib: ModuleNotFoundError
        app.api.input_answers = ["SOFR+1bp"]
        assert ribbon.on_action("rates_scenario", book=book) == "failed"
        said = app.alerts[-1][0]
        assert said.startswith("a scenario needs the local curve model: QuantLib is not installed: this needs the "
                               "[sandbox] extra"), said
        assert scenario.active(book.name) is None
    finally:
        app.close()
