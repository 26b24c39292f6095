"""Every function against the sandbox over real HTTP, compared with the client's direct answer."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from rates_xl.addin.classic.udfs import UDFS
from rates_xl.client import RatesClient
from rates_xl.functions import FUNCTIONS, get_client, set_client
from rates_xl.functions.table import _DFCURVE_COLS, _FWDCURVE_COLS, _HISTORY_COLS, _SWAPCURVE_COLS
from tests.support.samples import DIRECT, SAMPLES


def _expected(name: str, model) -> object:
    """What the cell must show, written out from the client's model (not via the shaping code)."""
    if name == "RATES_SWAP":
        return model.swap_rate
    if name == "RATES_SWAPCURVE":
        return [list(_SWAPCURVE_COLS)] + [[p.tenor, p.swap_rate] for p in model.swap_rates]
    if name == "RATES_FORWARD":
        return model.forward_rate
    if name == "RATES_FORWARDCURVE":
        return [list(_FWDCURVE_COLS)] + [[p.start_date, p.end_date, p.forward_rate] for p in model.curve]
    if name == "RATES_DISCOUNT":
        return model.discount_factor
    if name == "RATES_DISCOUNTCURVE":
        return [list(_DFCURVE_COLS)] + [[p.date, p.discount_factor] for p in model.curve]
    if name in ("RATES_FXSPOT", "RATES_FXFORWARD"):
        return model.rate
    if name == "RATES_GOVYIELD":
        return model.yield_
    if name == "RATES_FIXING":
        return model.fixing_rate
    if name == "RATES_SWAPHISTORY":
        return [list(_HISTORY_COLS)] + [[p.date, p.rate] for p in model.swap_rates]
    if name == "RATES_TENORS":
        return [[t] for t in model.tenors]
    raise AssertionError(name)


@pytest.mark.parametrize("name", sorted(DIRECT))
def test_every_function_matches_the_clients_direct_answer(sandbox, sandbox_key, client, name):
    cell = UDFS[name](*SAMPLES[name])
    method, params = DIRECT[name]
    with RatesClient(base_url=sandbox.base_url, api_key=sandbox_key) as direct:  # its own cache
        model = getattr(direct, method)(**params)
    assert cell == _expected(name, model)
    # The cell's loose spelling (case, spaces, serials, date cells) was the same one request.
    assert client.stats()["requests_sent"] == 1
    assert UDFS[name](*SAMPLES[name]) == cell
    assert client.stats()["requests_sent"] == 1 and client.stats()["cache_hits"] >= 1


def test_units_are_the_services(client):
    swap = UDFS["RATES_SWAP"]("SOFR", "0D", "10Y", "1Y")
    assert 0.5 < swap < 15  # percent
    gov = UDFS["RATES_GOVYIELD"]("US", "10Y")
    assert 0.005 < gov < 0.15  # decimal
    assert 0.3 < UDFS["RATES_DISCOUNT"]("SOFR", "10Y") < 1.0
    assert 0.5 < UDFS["RATES_FXSPOT"]("EURUSD") < 2.0


@pytest.mark.parametrize("name", [n for n, s in FUNCTIONS.items() if s.result in ("table", "column")])
def test_spills_are_2d_with_dates_and_floats(client, name):
    cells = SAMPLES[name]
    table = UDFS[name](*cells)
    spec = FUNCTIONS[name]
    assert isinstance(table, list) and all(isinstance(row, list) for row in table)
    width = len(table[0])
    assert all(len(row) == width for row in table)
    body = table
    if spec.result == "table":
        assert table[0] == list(spec.columns)
        body = table[1:]
        # headers FALSE: the same rows without the header row (same shape but one row)
        position = spec.arg_names.index("headers")
        no_header = list(cells) + [None] * (len(spec.args) - len(cells))
        no_header[position] = False
        assert UDFS[name](*no_header) == body
    else:
        assert width == 1  # one column stays 2-D
    assert body
    for row in body:
        for value, column in zip(row, spec.columns or ("Tenor",), strict=True):
            if column in ("Date", "Start", "End"):
                assert type(value) is date
            elif column == "Tenor":
                assert isinstance(value, str)
            else:
                assert type(value) is float


def test_same_arguments_same_shape(client):
    first = UDFS["RATES_DISCOUNTCURVE"]("SOFR", "0D", "5Y", "3M")
    client.clear_cache()
    again = UDFS["RATES_DISCOUNTCURVE"]("sofr", " 0d", "5y", "quarterly")
    assert [len(r) for r in first] == [len(r) for r in again]
    assert client.stats()["requests_sent"] == 2


def test_status_never_shows_the_key(client, sandbox_key):
    UDFS["RATES_FXSPOT"]("EURUSD")
    UDFS["RATES_FXSPOT"]("EURUSD")
    UDFS["RATES_SWAPCURVE"]("NOPE")
    status = dict(UDFS["RATES_STATUS"]())
    assert status["Base URL"] == client.base_url
    assert status["API key"] == "set"
    assert status["Requests sent"] == 2 and status["Cache hits"] == 1
    assert "422" in status["Last error"]
    assert status["Network"].startswith("closed")  # the circuit breaker: an HTTP answer is no failure
    assert sandbox_key not in repr(status)
    assert client.stats()["requests_sent"] == 2  # asking for the status costs no request


def test_shared_client_is_built_lazily_from_the_environment(sandbox, sandbox_key, monkeypatch):
    monkeypatch.setenv("RATES_BASE_URL", sandbox.base_url)
    monkeypatch.setenv("RATES_API_KEY", sandbox_key)
    set_client(None)
    assert isinstance(UDFS["RATES_SWAP"]("SOFR", "0D", "2Y", "1Y"), float)
    built = get_client()
    assert built.base_url == sandbox.base_url and built.has_key
    assert get_client() is built  # shared by every cell
    set_client(None)  # reset: the next call builds a new one (and the old one is closed)
    assert get_client() is not built


def test_valuation_time_reaches_the_service(client, sandbox, sandbox_key):
    moment = datetime(2025, 6, 2, 16, 0)
    cell = UDFS["RATES_SWAP"]("SOFR", "0D", "5Y", "1Y", None, None, None, moment)
    with RatesClient(base_url=sandbox.base_url, api_key=sandbox_key) as direct:
        model = direct.swap_rate("SOFR", "0D", "5Y", "1Y", valuation_time="2025-06-02T16:00:00Z")
    assert cell == model.swap_rate
    assert model.valuation_time.year == 2025


def test_planning_cells_show_pending_then_the_answer(client):
    """The headless engine's plan: misses are recorded (cells say PENDING), fetched together."""
    from rates_xl.functions import PENDING

    with client.planning() as recorded:
        assert UDFS["RATES_FXSPOT"]("EURUSD") == PENDING
        assert UDFS["RATES_SWAPCURVE"]("SOFR") == PENDING
        assert UDFS["RATES_FXSPOT"]("eur/usd") == PENDING  # same request, recorded once
    assert len(recorded) == 2 and client.stats()["requests_sent"] == 0
    client.fetch_many(recorded)
    with client.planning() as again:
        assert isinstance(UDFS["RATES_FXSPOT"]("EURUSD"), float)
        assert UDFS["RATES_SWAPCURVE"]("SOFR")[0] == ["Tenor", "Rate"]
    assert not again and client.stats()["requests_sent"] == 2
