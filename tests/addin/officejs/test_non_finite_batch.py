"""The Office.js batch (`rates-xl serve` over TLS on loopback) never sends a cell `nan`, `inf`
or a blank in their place: a service answer holding `NaN`, `Infinity` or `1e999` settles the
cell as an error whose message names the field, for one number and for a point of a curve."""

from __future__ import annotations

import pytest

from rates_xl.client import RatesClient
from tests.support.faultserver import FaultServer, Reply, poisoned


@pytest.fixture
def server():
    fault_server = FaultServer()
    yield fault_server
    fault_server.stop()


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "1e999"])
def test_the_script_gets_an_error_naming_the_field(literal, serve, server):
    server.responder = lambda arrival: Reply(body=poisoned(arrival.path, literal))
    client = RatesClient(base_url=server.base_url, api_key="rk-officejs-nonfinite-41c9", backoff=0.01,
                         persistent=False)
    try:
        served = serve(client=client)
        response = served.batch([{"fn": "SWAP", "args": ["SOFR", "0D", "5Y", "1Y"]},
                                 {"fn": "SWAPCURVE", "args": ["6M EURIBOR"]},
                                 {"fn": "DISCOUNTCURVE", "args": ["SOFR", "0D", "1Y", "6M"]}])
    finally:
        client.close()
    assert response.status_code == 200, response.text
    assert "NaN" not in response.text.replace("NaN (not a number)", "")  # no number spelled so
    swap, curve, discounts = response.json()["results"]
    assert swap["error"] == "notAvailable" and swap["message"].startswith("the service answered ")
    assert " for swap_rate:" in swap["message"]
    assert curve.get("error") == "notAvailable", curve  # not a table with a blank in it
    assert " for swap_rate of point 5 of swap_rates" in curve["message"]
    assert " for discount_factor of point 2 of curve" in discounts["message"]
