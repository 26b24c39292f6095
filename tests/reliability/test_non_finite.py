"""A 200 whose number is `NaN`, `Infinity` or `1e999` (Python's and JavaScript's JSON parsers
read all three as numbers) is an error in every cell, decided once: the client's models refuse
a number that is not finite wherever an answer is parsed (the wire, a cache tier, a pack), and
the core checks every value it hands a host. Here through the core for every function (top
level, curves, tables, history), `rates-xl calc` and `--replay` of a pack that holds one; the
classic add-in (serial-Excel stand-in) and the Office.js batch have their own tests beside
their hosts (tests/addin/test_non_finite_classic.py, tests/addin/officejs/test_backend.py)."""

from __future__ import annotations

import math

import openpyxl
import pytest

from rates_xl.calc.book import cached_values
from rates_xl.cli import main
from rates_xl.client import RatesClient
from rates_xl.client.endpoints import ENDPOINTS
from rates_xl.client.pack import Pack, PackAnswer
from rates_xl.functions import FUNCTIONS
from tests.support.cells import GOOD_CELLS
from tests.support.faultserver import BODIES, FaultServer, Reply, poisoned

SECRET = "rk-nonfinite-5d1e0c7a-NEVER-SHOWN"
LITERALS = ("NaN", "Infinity", "-Infinity", "1e999")
#: What the cell says for each literal (1e999 is read as infinity by every JSON parser).
SAYS = {"NaN": "NaN (not a number)", "Infinity": "an infinite number", "-Infinity": "an infinite number",
        "1e999": "an infinite number"}


@pytest.fixture(scope="module")
def server():
    fault_server = FaultServer()
    yield fault_server
    fault_server.stop()


def _answer_with(literal: str):
    def respond(arrival):
        body = poisoned(arrival.path, literal)
        return Reply(body=body) if body is not None else Reply()

    return respond


def _no_number(value) -> bool:
    """Nothing in a cell's value is a float that is not finite."""
    rows = value if isinstance(value, list) else [[value]]
    return not any(isinstance(v, float) and not math.isfinite(v) for row in rows for v in row)


@pytest.mark.parametrize("literal", LITERALS)
def test_every_function_says_which_field_was_not_a_number(literal, server, use_client):
    server.responder = _answer_with(literal)
    use_client(RatesClient(base_url=server.base_url, api_key=SECRET, backoff=0.01, persistent=False))
    checked = 0
    for name, args in GOOD_CELLS.items():
        if poisoned(ENDPOINTS[FUNCTIONS[name].endpoint].path, literal) is None:
            continue  # RATES_TENORS: no number in its answer
        value = FUNCTIONS[name].core(*args)
        assert _no_number(value), (name, value)
        assert isinstance(value, str) and value.startswith("#RATES! the service answered "), (name, value)
        assert SAYS[literal] in value and len(value) < 255 and SECRET not in value, (name, value)
        field = {"RATES_FXSPOT": "rate", "RATES_FXFORWARD": "rate", "RATES_GOVYIELD": "yield"}.get(name)
        if field is not None:
            assert value.split(" for ")[1].startswith(field), value
        checked += 1
    assert checked == len(GOOD_CELLS) - 1
    # A curve, a table and a history name the point: the last one was written as the literal.
    curve = FUNCTIONS["RATES_SWAPCURVE"].core("6M EURIBOR")
    points = len(BODIES["/v1/get_swap_curve"]["swap_rates"])
    assert f"for swap_rate of point {points} of swap_rates" in curve
    assert "for rate of point 2 of swap_rates" in FUNCTIONS["RATES_SWAPHISTORY"].core(*GOOD_CELLS["RATES_SWAPHISTORY"])
    assert "for discount_factor of point 2 of curve" in FUNCTIONS["RATES_DISCOUNTCURVE"].core(
        *GOOD_CELLS["RATES_DISCOUNTCURVE"])


def test_the_refusal_is_not_cached_and_a_good_answer_afterwards_is_shown(server, use_client):
    server.responder = _answer_with("NaN")
    use_client(RatesClient(base_url=server.base_url, api_key=SECRET, backoff=0.01, persistent=False))
    assert FUNCTIONS["RATES_SWAP"].core(*GOOD_CELLS["RATES_SWAP"]).startswith("#RATES! the service answered NaN")
    server.responder = lambda arrival: Reply()
    assert FUNCTIONS["RATES_SWAP"].core(*GOOD_CELLS["RATES_SWAP"]) == BODIES["/v1/swap_rate"]["swap_rate"]


def test_a_value_computed_in_the_core_that_is_not_finite_is_a_failure():
    from rates_xl.functions.core import finite

    assert finite(2.5) == 2.5 and finite([["Tenor", "Rate"], ["1Y", 2.2]]) == [["Tenor", "Rate"], ["1Y", 2.2]]
    assert finite("#RATES! x") == "#RATES! x" and finite(None) is None
    from rates_xl.client.errors import NonFiniteNumber

    for bad in (float("nan"), float("inf"), [["1Y", float("-inf")]], [[1.0], [float("nan")]]):
        with pytest.raises(NonFiniteNumber, match="not a finite number"):
            finite(bad)


def _book(path):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Rates"
    sheet["A1"] = '=RATES_SWAP("SOFR","0D","5Y","1Y")'
    sheet["A2"] = "=A1*2"
    sheet["B1"] = '=RATES_SWAPCURVE("6M EURIBOR")'
    book.save(path)
    return path


@pytest.mark.parametrize("literal", ["NaN", "1e999"])
def test_calc_writes_the_message_not_an_error_value_nor_a_number(literal, server, use_client, tmp_path, capsys):
    """Never NaN or a number: since issue 28 the cell is Excel's #N/A (the service's fault,
    not the formula's) in the copy, the message beside it in the summary."""
    server.responder = _answer_with(literal)
    use_client(RatesClient(base_url=server.base_url, api_key=SECRET, backoff=0.01, persistent=False))
    assert main(["calc", str(_book(tmp_path / "book.xlsx")), "--no-progress"]) == 3
    out = capsys.readouterr().out
    values = cached_values(tmp_path / "book.values.xlsx")
    assert values[("Rates", "A1")] == "#N/A" and values[("Rates", "B1")] == "#N/A"
    assert values[("Rates", "A2")] == "#N/A"  # the error propagates, as in Excel
    assert f"Rates!A1: #N/A (the service answered {SAYS[literal]}" in out and "for swap_rate:" in out
    assert "for swap_rate of point 5 of swap_rates" in out and SECRET not in out


def test_a_pack_holding_a_nan_replays_as_the_message(tmp_path, capsys):
    """A pack recorded before the models refused such numbers (or written by hand): replay
    parses its answer through the same models."""
    text = poisoned("/v1/swap_rate", "NaN")
    pack = Pack(base_url="https://api.example", created="2026-04-01T16:00:05.000000Z", answers=(
        PackAnswer(endpoint="swap_rate", params=(("fixed_leg_frequency", "1Y"), ("index", "SOFR"),
                                                 ("maturity_date", "5Y"), ("start_date", "0D")),
                   answer=text, fetched_at="2026-04-01T16:00:05.000000Z"),))
    pack.write(tmp_path / "book.pack.json")
    book = _book(tmp_path / "book.xlsx")
    assert main(["calc", str(book), "--replay", "-o", str(tmp_path / "r.xlsx"), "--no-progress"]) == 3
    values = cached_values(tmp_path / "r.xlsx")
    assert values[("Rates", "A1")] == "#N/A"  # an error value (issue 28), the message in the summary
    assert "Rates!A1: #N/A (the service answered NaN (not a number) for swap_rate" in capsys.readouterr().out
