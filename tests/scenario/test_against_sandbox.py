"""The local model against the sandbox serving its own curves shifted (`rates-xl sandbox
--shift`): for every endpoint that moves and each kind of shift (parallel, key rate, twist; 1
and 25 bp), the pack's answers under the scenario equal the shifted sandbox's: swap rates and
forwards within 0.01 bp, discount factors and FX forwards within 1e-8 relative, at the same
valuation time; what the model cannot move is listed and keeps its value; the base scenario
is the pack to the last digit (scenario/apply.py)."""

from __future__ import annotations

import json

import pytest

from rates_xl.client import RatesClient
from rates_xl.client.pack_replay import PackTransport
from rates_xl.sandbox import PAID_KEY
from rates_xl.sandbox.server import start_in_thread
from rates_xl.scenario.apply import apply, prepare
from rates_xl.scenario.spec import parse
from tests.scenario.conftest import MOMENTS, asked, record

RATE_BOUND = 0.01 / 100  # 0.01 bp, in percent
RELATIVE_BOUND = 1e-8
KINDS = {"swap_rate": "rate", "swap_rates": "rate", "forward_rate": "rate", "discount_factor": "discount",
         "rate": "fx"}
MOVING = {"swap_rate", "swap_curve", "forward_rate", "forward_curve", "discount_factor", "discount_curve",
          "fx_forward"}


@pytest.fixture(scope="module")
def recorded(sandbox):
    return {name: record(sandbox.base_url, moment) for name, moment in MOMENTS.items()}


def _numbers(data, path=()):
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _numbers(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _numbers(value, (*path, i))
    elif isinstance(data, float):
        yield path, data


def _compare(pack, scenario_pack, shifted: dict) -> dict[str, float]:
    """The largest gap per endpoint between the scenario pack's answers and the shifted
    sandbox's (rates in percent, the rest relative); asserts the not-shifted ones kept theirs."""
    served = PackTransport(scenario_pack)
    record_ = scenario_pack.scenario.index()
    gaps: dict[str, float] = {}
    for answer in pack.answers:
        if answer.answer is None:
            continue
        ident = (answer.endpoint, answer.params)
        ours = served.fetch(answer.endpoint, "", dict(answer.params), 0).payload
        note = record_.get(ident)
        if note is not None and note.not_shifted is not None:
            assert ours == json.loads(answer.answer), ident  # kept, as recorded
            continue
        theirs = shifted[ident]
        for path, value in _numbers(ours):
            field = path[-1] if isinstance(path[-1], str) else path[-2]
            kind = KINDS.get(field)
            if field in ("forward_rate",) or (answer.endpoint.endswith("curve") and field in ("swap_rate", "forward_rate")):
                kind = "rate"
            if answer.endpoint == "discount_curve":
                kind = "discount"
            if kind is None or answer.endpoint not in MOVING:
                continue
            other = theirs
            for step in path:
                other = other[step]
            gap = abs(value - other) if kind == "rate" else abs(value / other - 1)
            gaps[answer.endpoint] = max(gaps.get(answer.endpoint, 0.0), gap)
    return gaps


CASES = [
    ("SOFR+1bp", "business day"), ("SOFR+25bp", "business day"), ("*+1bp", "business day"),
    ("*-25bp", "business day"), ("SOFR:10Y+1bp", "business day"), ("*:2Y+25bp", "business day"),
    ("ESTR:5Y-25bp", "business day"), ("*:1Y+1bp", "business day"), ("*:30Y+25bp", "business day"),
    ("SOFR:2Y-5bp,SOFR:10Y+5bp", "business day"), ("*+25bp", "holiday"), ("*:5Y+25bp", "weekend"),
]


@pytest.mark.parametrize(("spec", "when"), CASES, ids=[f"{s} {w}" for s, w in CASES])
def test_the_scenario_equals_the_shifted_sandbox(sandbox, recorded, spec, when):
    pack = recorded[when]
    scenario = parse(spec)
    with RatesClient(sandbox.base_url, api_key=PAID_KEY, persistent=False) as client:
        scenario_pack = apply(prepare(pack, client), scenario)
    with start_in_thread(rate_limit=1000, burst=1000, shift=spec) as shifted_sandbox:
        shifted = asked(shifted_sandbox.base_url, pack)
    gaps = _compare(pack, scenario_pack, shifted)
    for endpoint in MOVING:
        assert endpoint in gaps, endpoint  # every endpoint that moves was compared
        bound = RATE_BOUND if endpoint in ("swap_rate", "swap_curve", "forward_rate", "forward_curve") \
            else RELATIVE_BOUND
        assert gaps[endpoint] <= bound, (endpoint, gaps[endpoint])
    moved = [a for a in scenario_pack.scenario.answers if a.answer is not None]
    assert len(moved) >= (5 if ":" in spec or not spec.startswith("*") else 15)
    kept = {a.endpoint: a.not_shifted for a in scenario_pack.scenario.answers if a.not_shifted}
    for endpoint, says in [("fx_spot", "FX spot"), ("gov_yield", "government yield"), ("fixing", "published fixing"),
                           ("historical_swap_rates", "history")]:
        assert says in kept[endpoint]


def test_each_number_the_scenario_touches_moves_and_the_rest_stay(sandbox, recorded):
    """SOFR+25bp moves every SOFR number and EURUSD's forward, and no ESTR or EURIBOR one
    (EURIBOR discounts on ESTR, not SOFR): the recorded text is served for those."""
    pack = recorded["business day"]
    with RatesClient(sandbox.base_url, api_key=PAID_KEY, persistent=False) as client:
        scenario_pack = apply(prepare(pack, client), parse("SOFR+25bp"))
    served = PackTransport(scenario_pack)
    for answer in pack.answers:
        if answer.answer is None:
            continue
        text = served.fetch(answer.endpoint, "", dict(answer.params), 0).text
        index = dict(answer.params).get("index") or dict(answer.params).get("currency_pair")
        if answer.endpoint in MOVING and index in ("SOFR", "EURUSD", "USDJPY"):
            assert text != answer.answer, answer.request
        elif answer.endpoint in MOVING:
            assert text == answer.answer, answer.request


@pytest.mark.parametrize("spec", ["SOFR+0bp", "*+0bp", "*:10Y+0bp"])
def test_the_base_scenario_is_the_pack_to_the_last_digit(sandbox, recorded, spec):
    pack = recorded["business day"]
    with RatesClient(sandbox.base_url, api_key=PAID_KEY, persistent=False) as client:
        scenario_pack = apply(prepare(pack, client), parse(spec))
    served = PackTransport(scenario_pack)
    for answer in pack.answers:
        if answer.answer is not None:
            assert served.fetch(answer.endpoint, "", dict(answer.params), 0).text == answer.answer


def test_an_index_the_pack_does_not_use_is_refused_in_one_line(recorded):
    from rates_xl.scenario.apply import ScenarioError

    with pytest.raises(ScenarioError, match=r"no answer in the pack is on SOFT \(the pack's indexes: "):
        apply(prepare(recorded["business day"]), parse("SOFT+1bp"))


def test_without_the_curve_the_index_is_not_shifted_and_says_why(recorded):
    """No client and no swap curve in the pack: nothing is guessed; each SOFR answer keeps its
    value and says its curve is not available."""
    scenario_pack = apply(prepare(recorded["business day"], None), parse("SOFR+1bp"))
    kept = [a for a in scenario_pack.scenario.answers
            if a.not_shifted and "SOFR" in a.request and a.endpoint in MOVING]
    assert kept and all("cannot be rebuilt" in a.not_shifted for a in kept)
    assert not [a for a in scenario_pack.scenario.answers if a.answer is not None]
