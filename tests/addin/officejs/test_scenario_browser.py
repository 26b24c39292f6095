"""The task pane's Scenario control, in Chromium with the stand-in Office runtime of
test_browser.py and stand-ins of the Excel JS calls it makes (the book's custom XML part,
Application.calculate, the document's settings): the book's pack sent to `rates-xl serve`,
every batch answered under the scenario (equal to the sandbox serving its curves shifted),
the banner on as long as it is, RATES.STATUS saying so, nothing asked of the service, back to
market, a scenario the server lost, and a book saved under one (what only Excel can show:
addin/README.md)."""

from __future__ import annotations

import json

from starlette.responses import Response

from rates_xl.addin.officejs.metadata import script_arities
from rates_xl.client import RatesClient
from rates_xl.sandbox import PAID_KEY
from rates_xl.sandbox.server import start_in_thread
from tests.addin.officejs.test_browser import FIRE, OFFICE_STUB, browser, open_page, playwright  # noqa: F401
from tests.addin.officejs.test_valuation_browser import EXCEL_NAMES, EXCEL_PARTS

MOMENT = "2026-03-10T16:00:00Z"
# A part's getXml(), Application.calculate (counted) and Office.context.document.settings.
EXCEL_MORE = """
window.Excel.calculations = 0;
window.Excel.CalculationType = { full: "Full" };
(function () {
  var run = window.Excel.run.bind(window.Excel);
  window.Excel.run = function (batch) {
    return run(function (context) {
      var parts = context.workbook.customXmlParts;
      if (parts) {
        var byNamespace = parts.getByNamespace;
        parts.getByNamespace = function (ns) {
          var found = byNamespace(ns);
          found.items.forEach(function (item, i) {
            var xml = window.Excel.parts.filter(function (p) { return p.xml.indexOf('xmlns="' + ns + '"') >= 0; })[i].xml;
            item.getXml = function () { return { value: xml }; };
          });
          return found;
        };
      }
      context.workbook.application = { calculate: function (kind) { window.Excel.calculations += 1; } };
      return batch(context);
    });
  };
})();
window.Office = { context: { document: { settings: {
  values: JSON.parse(window.localStorage.getItem("stub-settings") || "{}"),
  get: function (k) { return Object.prototype.hasOwnProperty.call(this.values, k) ? this.values[k] : null; },
  set: function (k, v) { this.values[k] = v; },
  remove: function (k) { delete this.values[k]; },
  saveAsync: function () { window.localStorage.setItem("stub-settings", JSON.stringify(this.values)); },
} } } };
"""
SWAP = ["SWAP", ["SOFR", "2D", "10Y", "1Y"]]


def _served(serve, client):
    route = {"/test/office-stub.js": lambda: Response(OFFICE_STUB + EXCEL_NAMES + EXCEL_PARTS + EXCEL_MORE,
                                                      media_type="text/javascript")}
    return serve(client=client, office_js_url="/test/office-stub.js", extra_routes=route)


def _recorded(page):
    page.evaluate(f"Excel.names.RATES_VALUATION_TIME = {{type: 'String', value: '{MOMENT}'}}")
    page.click("#rates-record")
    got = page.evaluate(FIRE, [[SWAP, ["FXSPOT", ["EURUSD"]], ["DISCOUNT", ["SOFR", "5Y"]]], script_arities()])
    page.wait_for_function("Excel.parts.length === 1 && Excel.parts[0].xml.indexOf('fx_spot') > 0")
    return got


def test_a_scenario_answers_the_book_under_it_and_the_banner_says_so(browser, serve, sandbox_factory):  # noqa: F811
    sandbox = sandbox_factory(rate_limit=1000, burst=1000)
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, persistent=False)
    page, _posts = open_page(browser, _served(serve, client))
    page.evaluate("window.localStorage.clear()")
    market = _recorded(page)
    assert page.is_hidden("#rates-scenario-banner")
    before = len(list(sandbox.arrivals))
    answer = page.evaluate("ratesScenario.apply('SOFR+25bp')")
    assert answer["spec"] == "SOFR+25bp" and answer["moved"] == 2
    assert answer["not_shifted"][0][0].startswith("fx_spot?currency_pair=EURUSD")
    banner = page.text_content("#rates-scenario-banner")
    assert page.is_visible("#rates-scenario-banner") and banner.startswith(
        "SCENARIO SOFR+25bp: NOT market data")
    assert "not shifted: fx_spot" in page.text_content("#rates-scenario-kept")
    assert page.evaluate("Excel.calculations") == 1  # the book recalculated under it
    assert page.evaluate("Office.context.document.settings.get('rates-xl-scenario')").startswith("SOFR+25bp")
    assert page.evaluate("document.getElementById('rates-record').textContent") == "Record market data"
    calibration = [a.path for a in list(sandbox.arrivals)[before:]]
    assert calibration and set(calibration) <= {"/v1/get_swap_curve", "/v1/fixing"}
    # Every batch now answered under the scenario: as the sandbox serving that shift answers.
    after = len(list(sandbox.arrivals))
    got = page.evaluate(FIRE, [[SWAP, ["FXSPOT", ["EURUSD"]], ["DISCOUNT", ["SOFR", "5Y"]], ["STATUS", []],
                                ["SWAP", ["SOFR", "2D", "7Y", "1Y"]]], script_arities()])
    with start_in_thread(rate_limit=1000, burst=1000, shift="SOFR+25bp") as shifted, \
            RatesClient(shifted.base_url, api_key=PAID_KEY, persistent=False) as oracle:
        swap = oracle.swap_rate("SOFR", "2D", "10Y", "1Y", valuation_time=MOMENT).swap_rate
        discount = oracle.discount_factor("SOFR", "5Y", valuation_time=MOMENT).discount_factor
    assert abs(got[0]["value"] - swap) < 1e-9 and abs(got[0]["value"] - market[0]["value"] - 0.25) < 1e-9
    assert abs(got[2]["value"] / discount - 1) < 1e-10
    assert got[1] == market[1]  # FX spot: not shifted
    status = {row[0]: row[1] for row in got[3]["value"]}
    assert status["Scenario"].startswith("SOFR+25bp: NOT market data")
    assert got[4]["code"] == "#N/A" and "not in the market-data pack" in got[4]["message"]
    assert len(list(sandbox.arrivals)) == after  # nothing asked of the service
    # Back to market: the market's answers, the banner gone, the setting removed.
    page.evaluate("ratesScenario.off()")
    assert page.is_hidden("#rates-scenario-banner")
    assert page.text_content("#rates-scenario-state") == "at market"
    assert page.evaluate("Office.context.document.settings.get('rates-xl-scenario')") is None
    assert page.evaluate(FIRE, [[SWAP], script_arities()])[0] == market[0]
    page.close()
    client.close()


def test_a_bad_spec_a_lost_scenario_and_a_book_saved_under_one(browser, serve, sandbox_factory):  # noqa: F811
    sandbox = sandbox_factory(rate_limit=1000, burst=1000)
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, persistent=False)
    served = _served(serve, client)
    page, _posts = open_page(browser, served)
    page.evaluate("window.localStorage.clear()")
    failed = page.evaluate("ratesScenario.apply('SOFR+1bp').then(() => 'applied', (e) => e.message)")
    assert failed.startswith("this book carries no market-data pack")
    _recorded(page)
    for spec, says in [("SOFR+1", "the amount is in bp"), ("SOFT+1bp", "no answer in the pack is on SOFT")]:
        failed = page.evaluate(f"ratesScenario.apply('{spec}').then(() => 'applied', (e) => e.message)")
        assert says in failed, failed
        assert page.text_content("#rates-scenario-state").startswith("not applied: ")
        assert page.evaluate("ratesScenario.state().id") is None and page.is_hidden("#rates-scenario-banner")
    # The server forgets it (a restart): the next batch is refused, the pane says so and goes
    # back to market.
    page.evaluate("ratesScenario.apply('*+1bp')")
    sid = page.evaluate("ratesScenario.state().id")
    served.app.state.scenarios.close(sid, None)
    got = page.evaluate(FIRE, [[SWAP], script_arities()])
    assert got[0]["code"] == "#N/A" and "no longer on at this server" in got[0]["message"]
    assert page.evaluate("ratesScenario.state().id") is None
    assert "ended" in page.text_content("#rates-scenario-banner")
    # A book saved while a scenario was on (its document settings say so) opens recalculated.
    page.evaluate("ratesScenario.apply('*+1bp')")
    calculations = page.evaluate("Excel.calculations")
    assert calculations >= 1
    page.reload()
    page.wait_for_function("Object.keys(CustomFunctions.registered).length > 0")
    assert "was saved while the SCENARIO *+1bp was on" in page.text_content("#rates-scenario-banner")
    assert page.evaluate("Excel.calculations") == 1  # recalculated back to market at once (a fresh stub)
    assert page.evaluate("Office.context.document.settings.get('rates-xl-scenario')") is None
    page.close()
    client.close()


def test_the_scenario_endpoint_refuses_what_it_cannot_apply(serve, sandbox_factory):
    """POST /api/scenario directly: one line for each refusal, an edited pack named."""
    from rates_xl.client.pack_seal import seal

    sandbox = sandbox_factory(rate_limit=1000, burst=1000)
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, persistent=False)
    served = serve(client=client)
    with client.recording() as recorder:
        client.swap_rate("SOFR", "2D", "10Y", "1Y", valuation_time=MOMENT)
    pack = recorder.pack()
    edited = pack.model_copy(update={"answers": (pack.answers[0].model_copy(update={
        "answer": pack.answers[0].answer.replace('"swap_rate":3', '"swap_rate":4', 1)}),)})
    from rates_xl.client.pack import SCENARIO_KIND

    def post(body):
        return served.http.post(f"{served.url}/api/scenario", data=json.dumps(body), timeout=60,
                                headers={"Content-Type": "application/json", "Origin": served.url})

    cases = [({"pack": pack.dumps(), "spec": "SOFR+1"}, "the amount is in bp"),
             ({"pack": "{}", "spec": "SOFR+1bp"}, "not a market-data pack"),
             ({"pack": edited.dumps(), "spec": "SOFR+1bp"}, "EDITED since it was recorded"),
             ({"pack": seal(pack.model_copy(update={"kind": SCENARIO_KIND}), None).dumps(), "spec": "SOFR+1bp"},
              "damaged market-data pack"),
             ({"pack": pack.dumps(), "spec": "SOFR+1bp", "colour": "red"}, "expected {\"pack\""),
             ({"spec": "SOFR+1bp"}, "the book carries no market-data pack")]
    for body, says in cases:
        response = post(body)
        assert response.status_code == 400 and says in response.json()["detail"], (body.keys(), response.text)
    good = post({"pack": pack.dumps(), "spec": "SOFR+1bp"})
    assert good.status_code == 200 and good.json()["moved"] == 1
    client.close()
