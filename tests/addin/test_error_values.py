"""A failing RATES_ cell is a real Excel error, in both hosts alike, its message one step away
(issue 28, point 2). On the serial-Excel stand-in with the real UDFs and the VBA wrapper's rule
(`rtd.excel_answer`, what RatesAnswer does) against the sandbox; the Office.js side through
the batch endpoint's own rule (`batch.outcome`, which functions.js turns into
`CustomFunctions.Error`). Before this issue the classic cell held the text `#RATES! ...`, which
SUM skipped: the total below was a plausible wrong number.
"""

from __future__ import annotations

import pytest

from rates_xl.addin.classic import refresh, udfs
from rates_xl.addin.officejs import batch
from rates_xl.client import RatesClient
from rates_xl.functions import FUNCTIONS, errors
from tests.support import serial_excel

BAD = '=RATES_SWAP("SOFR","0D","10X","1Y")'  # an argument the user must fix: #VALUE!
NO_DATA = '=RATES_SWAP("NOSUCHINDEX","0D","10Y","1Y")'  # the service refuses the index (422): #VALUE!


@pytest.fixture(autouse=True)
def clean():
    refresh.clear_scopes()
    errors.messages.clear()
    yield
    udfs.set_client(None)
    errors.messages.clear()


@pytest.fixture
def client(sandbox, sandbox_key):
    live = RatesClient(base_url=sandbox.base_url, api_key=sandbox_key, persistent=False)
    udfs.set_client(live)
    yield live
    live.close()


def _book(cells):
    book = serial_excel.App().add_book("Book.xlsx", {"S": cells})
    book.app.calculate_full()
    return book, book.sheets[0]


def test_a_sum_over_a_failed_cell_is_an_error_and_iferror_catches_it(client):
    book, sheet = _book({
        "A1": '=RATES_SWAP("SOFR","0D","5Y","1Y")', "A2": BAD, "A3": NO_DATA,
        "B1": "=SUM(A1:A3)", "B2": '=IFERROR(A2,"bad")', "B3": "=ISERROR(A3)", "B4": "=ISNA(A3)",
        "B5": "=SUMPRODUCT(A1:A2,A1:A2)", "C2": "=RATES_ERROR(A2)", "C3": "=RATES_ERROR(A3)",
        "C1": "=RATES_ERROR(A1)"})
    assert isinstance(sheet.range("A1").value, float)
    assert str(sheet.range("A2").value) == "#VALUE!"
    assert str(sheet.range("A3").value) == "#VALUE!"
    assert str(sheet.range("B1").value) == "#VALUE!"  # never a number
    assert sheet.range("B2").value == "bad"
    assert sheet.range("B3").value is True and sheet.range("B4").value is False
    assert str(sheet.range("B5").value) == "#VALUE!"
    # The message one step away: RATES_ERROR(cell), "" for a cell with an answer.
    assert sheet.range("C2").value == "maturity: '10X' is not a date or a tenor like 10Y"
    assert sheet.range("C3").value.startswith("422 the service cannot use this request: Unknown index")
    assert sheet.range("C1").value in ("", None)
    # RATES_STATUS's last cell error is the latest message.
    assert errors.messages.last is not None and errors.messages.last.startswith("#RATES! ")


def test_no_answer_is_na_and_a_sum_over_it_too(sandbox_key):
    import socket

    with socket.socket() as s:  # a loopback port with nobody listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    down = RatesClient(base_url=f"http://127.0.0.1:{port}", api_key=sandbox_key, max_attempts=1,
                       persistent=False)
    udfs.set_client(down)
    try:
        book, sheet = _book({"A1": '=RATES_SWAP("SOFR","0D","5Y","1Y")', "A2": 1.5, "B1": "=SUM(A1:A2)",
                             "B2": "=ISNA(A1)", "C1": "=RATES_ERROR(A1)"})
        assert str(sheet.range("A1").value) == "#N/A" and str(sheet.range("B1").value) == "#N/A"
        assert sheet.range("B2").value is True
        assert "cannot reach" in sheet.range("C1").value
    finally:
        down.close()


def test_both_hosts_show_the_same_error_for_the_same_call(client):
    calls = {
        "bad tenor": ("RATES_SWAP", ("SOFR", "0D", "10X", "1Y")),
        "no data": ("RATES_SWAP", ("NOSUCHINDEX", "0D", "10Y", "1Y")),
        "bad pair": ("RATES_FXSPOT", ("EURXXX",)),
        "missing": ("RATES_DISCOUNT", ("SOFR", None)),
    }
    excel = {"#VALUE!": "invalidValue", "#N/A": "notAvailable"}
    cells = {f"A{i}": f"={name}({','.join(_literal(a) for a in args)})"
             for i, (name, args) in enumerate(calls.values(), start=1)}
    book, sheet = _book(cells)
    for i, (what, (name, args)) in enumerate(calls.items(), start=1):
        classic = str(sheet.range(f"A{i}").value)
        officejs = batch.outcome(FUNCTIONS[name], args, FUNCTIONS[name].core(*args))
        assert classic in excel, (what, classic)
        assert officejs["error"] == excel[classic], (what, classic, officejs)
        assert officejs["message"] == errors.without_prefix(errors.messages.of("Book.xlsx", "S", f"A{i}"))


def test_the_text_setting_keeps_the_message_in_the_cell(sandbox, sandbox_key):
    live = RatesClient(base_url=sandbox.base_url, api_key=sandbox_key, persistent=False, cell_errors="text")
    udfs.set_client(live)
    try:
        book, sheet = _book({"A1": BAD, "A2": "=SUM(A1,1)", "A3": '=RATES_SWAP("SOFR","0D","5Y","1Y")',
                             "A4": "=SUM(A1,A3)"})
        assert sheet.range("A1").value.startswith("#RATES! maturity: ")  # Bloomberg-style text
        assert sheet.range("A4").value == pytest.approx(sheet.range("A3").value)  # SUM skips text
        outcome = batch.outcome(FUNCTIONS["RATES_SWAP"], ("SOFR", "0D", "10X", "1Y"),
                                FUNCTIONS["RATES_SWAP"].core("SOFR", "0D", "10X", "1Y"))
        assert outcome["value"].startswith("#RATES! maturity: ")  # Office.js alike
    finally:
        live.close()


def test_a_cell_fixed_clears_its_message(client):
    book, sheet = _book({"A1": BAD, "B1": "=RATES_ERROR(A1)"})
    assert sheet.range("B1").value.startswith("maturity:")
    sheet.range("A1").formula = '=RATES_SWAP("SOFR","0D","10Y","1Y")'
    assert isinstance(sheet.range("A1").value, float)
    assert sheet.range("B1").value in ("", None)


def _literal(value):
    return "" if value is None else f'"{value}"'


def test_office_js_rates_error_recomputes_the_referenced_cells_message(client):
    """RATES.ERROR(B7) in Office.js: the script reads B7's formula and its inputs (as for
    RATES.SOURCE, requiresParameterAddresses) and the batch answers the message B7's call
    gives now; "" for a cell with an answer."""
    from rates_xl.functions import using_client

    def call(formula, values):
        source = {"where": "S!B7", "formula": formula, "sheet": "S", "values": values}
        return {"fn": "ERROR", "args": [0], "source": source}

    with using_client(client):
        outcomes, _ = batch.run_batch([call('=RATES_SWAP("SOFR","0D",A1,"1Y")', {"S!A1": "10X"}),
                                       call('=RATES_SWAP("SOFR","0D",A1,"1Y")', {"S!A1": "10Y"})], client)
    assert outcomes[0] == {"value": "maturity: '10X' is not a date or a tenor like 10Y"}
    assert outcomes[1] == {"value": ""}


def test_a_history_grids_failed_column_and_fill_na_cells_are_error_values(client):
    """A grid's column for a tenor the service lacks is an error in every cell (#N/A: no data,
    404), as a whole failing cell is; a Fill=NA day is #N/A; SUM over either is an error, the
    other columns stay numbers, and RATES_ERROR(grid) gives the column's message."""
    grid = '=RATES_SWAPHISTORY("SOFR","2Y,11Y","2025-07-01","2025-07-08",,"Days=W Fill=NA")'
    book, sheet = _book({"A1": grid, "H1": "=SUM(B2:B4)", "H2": "=SUM(C2:C4)", "H3": "=SUM(B2:B7)",
                         "H4": "=ISNA(C2)", "H5": "=RATES_ERROR(A1)"})
    assert sheet.range("A1").api.HasSpill
    assert [sheet.value_at((1, c)) for c in (1, 2, 3)] == ["Date", "2Y", "11Y"]
    assert all(isinstance(sheet.value_at((r, 2)), float) for r in (2, 3, 4, 6, 7))
    assert str(sheet.value_at((5, 2))) == "#N/A"  # 4 July, Fill=NA
    assert all(str(sheet.value_at((r, 3))) == "#N/A" for r in range(2, 8))  # the failed column
    assert isinstance(sheet.range("H1").value, float)
    assert str(sheet.range("H2").value) == "#N/A" and str(sheet.range("H3").value) == "#N/A"
    assert sheet.range("H4").value is True
    assert sheet.range("H5").value.startswith("404 no data for this request: No history for SOFR 11Y")
    # Office.js: the same cells as CustomFunctions.Error objects (the script's rule).
    spec = FUNCTIONS["RATES_SWAPHISTORY"]
    args = ("SOFR", "2Y,11Y", "2025-07-01", "2025-07-08", None, "Days=W Fill=NA")
    shown = batch.outcome(spec, args, spec.core(*args))["value"]
    assert shown[1][2] == {"error": "notAvailable",
                           "message": spec.core(*args)[1][2][len("#RATES! "):]}
    assert shown[4][1] == {"error": "notAvailable", "message": "no value for this date (Fill=NA)"}


def test_the_explain_button_says_what_the_selected_cell_failed_with(client):
    from rates_xl.addin.classic import ribbon

    book, sheet = _book({"A1": BAD, "A2": '=RATES_SWAP("SOFR","0D","5Y","1Y")', "A3": "=1+1"})
    said = []
    book.app.alert = lambda text, title=None, **_: said.append(text)
    for cell, expected in (("A1", "S!A1: maturity: '10X' is not a date"), ("A2", "S!A2 has an answer"),
                           ("A3", "S!A3 holds no RATES_ formula")):
        book.select("S", cell)
        ribbon.on_action("rates_explain", book=book)
        assert said[-1].startswith(expected), said[-1]
