"""A scenario pack is never market data: its kind says so, the seal covers its scenario record
(strip the record and the pack reads as edited), a copy's cells are bound to it under the
scenario's own label, and a record that speaks of answers the pack lacks is refused."""

from __future__ import annotations

import json

import pytest

from rates_xl.client import RatesClient
from rates_xl.client.pack import SCENARIO_KIND, PackError, loads
from rates_xl.client.pack_seal import check, seal, signer_for, values_digest
from rates_xl.sandbox import PAID_KEY
from rates_xl.scenario.apply import apply, prepare
from rates_xl.scenario.spec import parse
from tests.scenario.conftest import MOMENTS, record


def _two_swaps(client, moment):
    client.swap_rate("SOFR", "2D", "10Y", "1Y", valuation_time=moment)
    client.fx_spot("EURUSD", valuation_time=moment)


@pytest.fixture(scope="module")
def scenario_pack(sandbox):
    pack = record(sandbox.base_url, MOMENTS["business day"], _two_swaps)
    with RatesClient(sandbox.base_url, api_key=PAID_KEY, persistent=False) as client:
        return seal(apply(prepare(pack, client), parse("SOFR+1bp")), signer_for("team-key")), pack


def test_it_reads_back_as_written_and_checks(scenario_pack):
    sealed, market = scenario_pack
    again = loads(sealed.dumps())
    assert again == sealed and again.kind == SCENARIO_KIND
    assert again.scenario.spec == "SOFR+1bp" and again.scenario.market == market.seal.digest
    verdict = check(again, signer_for("team-key"))
    assert not verdict.is_edited and verdict.sealed and verdict.signed == "here"
    # The market's answers are kept as recorded, their own seals with them; the curve's
    # calibration answers join them.
    assert set(market.answers) < set(again.answers)
    assert any(a.endpoint == "swap_curve" for a in again.answers)
    assert set(again.scenario.calibration) <= {a.request for a in again.answers}


def test_stripping_the_scenario_reads_as_edited(scenario_pack):
    sealed, _ = scenario_pack
    stripped = sealed.model_copy(update={"scenario": None, "kind": "rates-xl market-data pack"})
    verdict = check(loads(stripped.dumps()), signer_for("team-key"))
    assert verdict.is_edited and verdict.fields
    moved = json.loads(sealed.dumps())
    entry = next(a for a in moved["scenario"]["answers"] if "answer" in a)
    entry["answer"] = entry["answer"].replace('"swap_rate":3.', '"swap_rate":4.', 1)
    assert check(loads(json.dumps(moved)), signer_for("team-key")).is_edited


def test_a_copys_cells_are_bound_under_the_scenarios_label(scenario_pack):
    sealed, market = scenario_pack
    cells = {("Swap", "C34"): 3.61}
    assert values_digest(cells, sealed) != values_digest(cells, market) == values_digest(cells)


@pytest.mark.parametrize(("change", "says"), [
    (lambda d: d.pop("scenario"), "both or neither"),
    (lambda d: d.update(kind="rates-xl market-data pack"), "both or neither"),
    (lambda d: d["scenario"]["answers"].append(dict(d["scenario"]["answers"][0])), "given twice"),
    (lambda d: d["scenario"]["answers"][0].update(params=[["index", "XYZ"]]), "not an answer of the pack"),
    (lambda d: d["scenario"]["answers"][0].update(not_shifted="why", answer="{}"), "needs an answer under"),
    (lambda d: d["scenario"]["answers"][0].update(answer="[1]", not_shifted=None), "not a JSON object"),
    (lambda d: d["scenario"]["answers"][0].update(answer="NaN", not_shifted=None), "not JSON"),
    (lambda d: d["scenario"].update(extra=1), "Extra inputs"),
])
def test_a_damaged_scenario_record_is_one_line(scenario_pack, change, says):
    data = json.loads(scenario_pack[0].dumps())
    change(data)
    with pytest.raises(PackError, match=says) as caught:
        loads(json.dumps(data))
    assert "\n" not in str(caught.value)
