"""Live mode in a real browser (issue 21): headless Chromium runs the served script with the
`CustomFunctions` stand-in; streaming cells get Excel's `StreamingInvocation` shape
(`setResult`, `onCanceled` set by the function). With the Live switch on, a cell valued as of
now receives a second value after its answer's lifetime ends (the sandbox's lifetimes
scaled down to 1 s), stops when Excel cancels it, and a cell valued as of a past time never
refreshes. The server side (one scheduler per `rates-xl serve`) is addin/officejs/live_hub.py.
"""

from __future__ import annotations

import time

from rates_xl.client import RatesClient
from rates_xl.sandbox import PAID_KEY
from tests.addin.officejs.test_browser import browser, open_page, playwright, stub_route  # noqa: F401 (fixtures)

# Excel's side of a streaming call: the invocation carries setResult; the function sets
# onCanceled on it. Every value set is kept, with the time, per cell address.
STREAM = """
([address, id, args]) => {
  window.cells = window.cells || {};
  const cell = window.cells[address] = { values: [], invocation: null };
  const invocation = {
    address: address, functionName: id,
    setResult: (v) => cell.values.push({ at: Date.now(), value: v instanceof CustomFunctions.Error
                                          ? { code: v.code, message: v.message } : v }),
  };
  cell.invocation = invocation;
  const result = CustomFunctions.registered[id](...args, invocation);
  return result === undefined;  // a streaming function returns nothing
}
"""


def values(page, address):
    return page.evaluate("(a) => window.cells[a].values.map((v) => v.value)", address)


def test_a_streaming_cell_refreshes_after_its_lifetime_and_stops_on_cancel(browser, serve, sandbox):  # noqa: F811
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, ttl_live=1.0, persistent=False)
    served = serve(client=client, office_js_url="/test/office-stub.js", extra_routes=stub_route(),
                   live_tick=0.05)
    page, posts = open_page(browser, served)
    page.evaluate("window.ratesLive.set(true)")
    now_args = ["SOFR", "0D", "5Y", "1Y", None, None, None, None]
    past_args = ["SOFR", "0D", "5Y", "1Y", None, None, None, "2026-11-20T16:00:00Z"]
    assert page.evaluate(STREAM, ["Sheet1!A1", "SWAP", now_args])
    assert page.evaluate(STREAM, ["Sheet1!A2", "SWAP", past_args])

    # A second value arrives for the live cell once its answer's lifetime (1 s) has ended.
    page.wait_for_function("window.cells['Sheet1!A1'].values.length >= 2", timeout=20000)
    first, second = values(page, "Sheet1!A1")[:2]
    assert isinstance(first, float) and isinstance(second, float)
    hub = served.app.state.live
    assert hub.scheduler.status().cells == 1  # the past valuation time was never watched
    assert page.evaluate("window.ratesLive.state().subscribed") == 1
    assert "Live" in page.evaluate("document.getElementById('rates-live-status').textContent")

    # Excel cancels the cell (formula deleted): it is unsubscribed and gets nothing more.
    page.evaluate("window.cells['Sheet1!A1'].invocation.onCanceled()")
    deadline = time.monotonic() + 10
    while hub.scheduler.status().cells and time.monotonic() < deadline:
        time.sleep(0.05)
    assert hub.scheduler.status().cells == 0
    count = len(values(page, "Sheet1!A1"))
    sent = client.stats()["requests_sent"]
    time.sleep(2.5)  # more than two lifetimes
    assert len(values(page, "Sheet1!A1")) == count
    assert client.stats()["requests_sent"] == sent
    # The cell valued as of a past time got its one value and never another.
    assert len(values(page, "Sheet1!A2")) == 1 and isinstance(values(page, "Sheet1!A2")[0], float)
    client.close()


def test_live_off_sets_each_streaming_cell_once(browser, serve, sandbox):  # noqa: F811
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, ttl_live=0.5, persistent=False)
    served = serve(client=client, office_js_url="/test/office-stub.js", extra_routes=stub_route(),
                   live_tick=0.05)
    page, _ = open_page(browser, served)
    page.evaluate("window.ratesLive.set(false)")
    assert page.evaluate(STREAM, ["Sheet1!B1", "FXSPOT", ["EURUSD", None]])
    page.wait_for_function("window.cells['Sheet1!B1'].values.length >= 1", timeout=20000)
    time.sleep(1.5)
    assert len(values(page, "Sheet1!B1")) == 1
    assert served.app.state.live is None  # nothing subscribed: no scheduler was even made
    # Switched on, the open cell subscribes and refreshes.
    page.evaluate("window.ratesLive.set(true)")
    page.wait_for_function("window.cells['Sheet1!B1'].values.length >= 2", timeout=20000)
    client.close()
