"""POST /api/pack/seal (addin/officejs/packs.py) over TLS: the task pane gets the seal of the
pack it merged from its batches, signed with the server's key; it cannot get a seal over
answers the server did not sign, and a forged answer under a real seal still fails its check."""

from __future__ import annotations

import json

from rates_xl.client.pack import Pack
from rates_xl.client.pack_seal import check, signer_for
from rates_xl.sandbox import PAID_KEY


def _recorded(served) -> list[dict]:
    calls = [{"fn": "SWAP", "args": ["SOFR", "0D", "10Y", "1Y"]}, {"fn": "FXSPOT", "args": ["EURUSD"]}]
    response = served.http.post(served.url + "/api/batch", json={"calls": calls, "record": True},
                                headers={"Origin": served.url}, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()["pack"]["answers"]


def _seal(served, body) -> object:
    return served.http.post(served.url + "/api/pack/seal", json=body, headers={"Origin": served.url}, timeout=30)


def _pack(fields: dict, answers: list[dict]) -> Pack:
    from rates_xl.client.pack import loads

    return loads(json.dumps({**fields, "answers": answers}))


def test_the_page_gets_a_seal_over_its_answers_and_nothing_else(serve, sandbox_client):
    served = serve(client=sandbox_client)
    answers = _recorded(served)
    pairs = [[a["digest"], a["mac"]] for a in answers]
    sealed = _seal(served, {"answers": pairs, "valuation_time": None})
    assert sealed.status_code == 200, sealed.text
    fields = sealed.json()
    pack = _pack(fields, answers)
    verdict = check(pack, signer_for(PAID_KEY))
    assert not verdict.is_edited and verdict.sealed and verdict.key_id == signer_for(PAID_KEY).key_id
    assert pack.base_url == sandbox_client.base_url

    # An answer the page changed: the seal it gets is over the digest it sent, and the
    # answer still fails its own check.
    forged = [dict(a) for a in answers]
    body = json.loads(forged[0]["answer"])
    body["rate" if "rate" in body else "swap_rate"] += 1.0
    forged[0]["answer"] = json.dumps(body)
    assert check(_pack(fields, forged), signer_for(PAID_KEY)).edited

    for body, says in [
        ({"answers": pairs + [pairs[0]]}, "given twice"),
        ({"answers": [[pairs[0][0], None]]}, "not signed by this server"),
        ({"answers": [[pairs[0][0], signer_for("rk-someone-else").tag(b"x")]]}, "not signed by this server"),
        ({"answers": [["sha256:zz", pairs[0][1]]]}, "not a [digest, mac] pair"),
        ({"answers": []}, "a list of 1 to"),
        ({"answers": pairs, "valuation_time": "tomorrow"}, "valuation_time"),
        ({"answers": pairs, "base_url": "https://elsewhere.example"}, "expected"),
        ([1, 2], "expected"),
    ]:
        refused = _seal(served, body)
        assert refused.status_code == 400 and says in refused.json()["detail"], (body, refused.text)
    assert _seal(served, {"answers": pairs}).status_code == 200
    foreign = served.http.post(served.url + "/api/pack/seal", json={"answers": pairs},
                               headers={"Origin": "https://evil.example"}, timeout=30)
    assert foreign.status_code == 403

