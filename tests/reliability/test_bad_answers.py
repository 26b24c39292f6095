"""Answers the sandbox never gives but a proxy, a load balancer or a broken deployment does:
malformed JSON, HTML error pages, a wrong shape, an empty body, a dropped connection. Each
cell says clearly what happened (a fault-injecting loopback server of our own)."""

from __future__ import annotations

import pytest

from rates_xl.client import RatesClient
from rates_xl.functions import FUNCTIONS
from tests.support.cells import GOOD_CELLS
from tests.support.faultserver import FaultServer, Reply

SECRET = "rk-reliability-3b9e71f0-NEVER-SHOWN"

NGINX_502 = ("<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad "
             "Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")
LOGIN_PAGE = "<!DOCTYPE html><html><head><title>Sign in</title></head><body><form>...</form></body></html>"

# One cell per function that asks the service, as Excel passes the arguments.
CELLS = GOOD_CELLS

# (what the server does, words the cell must contain)
FAULTS = {
    "malformed JSON": (Reply(body='{"swap_rate": 3.64, "index": "SOF'),
                       "the service's answer was not understood: the service answered text that is not JSON"),
    "HTML page with 200": (Reply(body=LOGIN_PAGE, headers={"Content-Type": "text/html"}),
                           "the service's answer was not understood: the service answered an HTML page"),
    "HTML 502 from a proxy": (Reply(status=502, body=NGINX_502, headers={"Content-Type": "text/html"}),
                              "502 service error: the service answered with an HTML page instead of JSON"),
    "plain-text 500": (Reply(status=500, body="Internal Server Error", headers={"Content-Type": "text/plain"}),
                       "500 service error: Internal Server Error"),
    "JSON of the wrong shape": (Reply(body={"unexpected": True}),
                                "does not have the documented shape"),
    "empty body": (Reply(body=""), "not JSON"),
    "connection reset": (Reply(reset=True), "connection reset"),
}


@pytest.fixture(scope="module")
def server():
    fault_server = FaultServer()
    yield fault_server
    fault_server.stop()


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_broken_answer_gives_every_function_a_clear_message(fault, server, use_client, caplog):
    reply, words = FAULTS[fault]
    server.responder = lambda arrival: reply
    use_client(RatesClient(base_url=server.base_url, api_key=SECRET, backoff=0.01, max_backoff=0.02))
    for name, args in CELLS.items():
        value = FUNCTIONS[name].core(*args)
        assert isinstance(value, str) and value.startswith("#RATES! "), (name, value)
        assert words in value, (name, value)
        assert len(value) < 255 and "Traceback" not in value and "\n" not in value
        assert SECRET not in value
    assert SECRET not in caplog.text
