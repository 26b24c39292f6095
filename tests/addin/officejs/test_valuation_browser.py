"""Office.js reads the book's RATES_VALUATION_TIME (Excel JS `workbook.names`) and every batch
carries it: in Chromium, with the stand-in Office runtime of test_browser.py plus a stand-in
of the Excel JavaScript API's defined names (what only Excel can show: addin/README.md)."""

from __future__ import annotations

import json

from starlette.responses import Response

from rates_xl.addin.officejs.metadata import script_arities
from rates_xl.client import RatesClient
from rates_xl.functions import FUNCTIONS, using_client
from rates_xl.sandbox import PAID_KEY
from tests.addin.officejs.test_browser import FIRE, OFFICE_STUB, browser, open_page, playwright  # noqa: F401

# Excel.run with the parts of the Excel JS API the script uses: names.getItemOrNullObject, a
# NamedItem's type and value, getRange().values for a name that points at a cell; and
# functions.date, DATE on the book's date system (`Excel.date1904`; `Excel.dateFails`: the call
# fails, as a sync does when Excel cannot answer; `Excel.dateAnswers`: it answers that error).
EXCEL_NAMES = """
window.rangesByName = {};
window.Excel = {
  names: {},
  date1904: false,
  dateFails: null,
  dateAnswers: null,
  run: function (batch) {
    var names = this.names;
    var excel = this;
    var context = {
      workbook: { names: { getItemOrNullObject: function (key) {
        var found = names[key.toUpperCase()];
        return { isNullObject: !found, type: found ? found.type : null, value: found ? found.value : null,
                 load: function () {},
                 getRange: function () { return { values: found.values, load: function () {} }; } };
      } },
      functions: { date: function (year, month, day) {
        if (excel.dateFails) { throw new Error(excel.dateFails); }
        if (excel.dateAnswers) { return { error: excel.dateAnswers, value: null, load: function () {} }; }
        var serial = (Date.UTC(year, month - 1, day) - Date.UTC(excel.date1904 ? 1904 : 1899,
                                                                  excel.date1904 ? 0 : 11, excel.date1904 ? 1 : 30)) / 864e5;
        return { error: null, value: serial, load: function () {} };
      } } },
      sync: function () { return Promise.resolve(); },
    };
    return Promise.resolve().then(function () { return batch(context); });
  },
};
"""


def _serve(serve, client):
    route = {"/test/office-stub.js": lambda: Response(OFFICE_STUB + EXCEL_NAMES, media_type="text/javascript")}
    return serve(client=client, office_js_url="/test/office-stub.js", extra_routes=route)


def test_every_batch_carries_the_books_valuation_moment(browser, serve, sandbox):  # noqa: F811
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, persistent=False)
    served = _serve(serve, client)
    page, _posts = open_page(browser, served)
    bodies: list[dict] = []
    page.on("request", lambda r: bodies.append(json.loads(r.post_data))
            if r.method == "POST" and r.url.endswith("/api/batch") else None)
    cells = [["SWAP", ["SOFR", "0D", "10Y", "1Y"]], ["FXSPOT", ["EURUSD", "2026-01-05T10:00:00Z"]],
             ["FIXING", ["SOFR"]]]
    swap, fxspot = FUNCTIONS["RATES_SWAP"], FUNCTIONS["RATES_FXSPOT"]
    with using_client(client):
        pinned = swap.core("SOFR", "0D", "10Y", "1Y", None, None, None, "2026-01-02T16:00:00Z")
        own = fxspot.core("EURUSD", "2026-01-05T10:00:00Z")
        cell_pinned = swap.core("SOFR", "0D", "10Y", "1Y", None, None, None, "2026-01-03T12:00:00Z")

    # A constant name, as the classic ribbon writes it.
    page.evaluate("""Excel.names.RATES_VALUATION_TIME = {type: "String", value: '="2026-01-02T16:00:00Z"'}""")
    got = page.evaluate(FIRE, [cells, script_arities()])
    assert bodies[-1]["valuation_time"] == '="2026-01-02T16:00:00Z"'
    assert got[0] == {"value": pinned}  # valued at the book's moment
    assert got[1] == {"value": own}  # a call's own valuation_time wins
    assert "value" in got[2]  # RATES_FIXING takes no valuation_time: unchanged

    # A name pointing at a cell: that cell's value (an Excel serial here).
    page.evaluate("Excel.names.RATES_VALUATION_TIME = {type: 'Range', value: 'Inputs!$B$2', values: [[46025.5]]}")
    got = page.evaluate(FIRE, [cells[:1], script_arities()])
    assert bodies[-1]["valuation_time"] == 46025.5
    assert got[0] == {"value": cell_pinned}

    # A bad moment is the cell's message naming valuation_time, never a silent "now".
    page.evaluate("Excel.names.RATES_VALUATION_TIME = {type: 'String', value: 'next tuesday'}")
    got = page.evaluate(FIRE, [cells[:1], script_arities()])
    assert got[0]["code"] == "#VALUE!" and got[0]["message"].startswith("valuation_time:"), got[0]

    # No name: as of now, and the batch says nothing about a moment.
    page.evaluate("delete Excel.names.RATES_VALUATION_TIME")
    page.evaluate(FIRE, [cells[:1], script_arities()])
    assert "valuation_time" not in bodies[-1]
    page.close()
    client.close()


# Excel.run's workbook.customXmlParts: getByNamespace(ns).items, a part's delete(), add(xml).
EXCEL_PARTS = """
window.Excel.parts = [];
(function () {
  var run = window.Excel.run.bind(window.Excel);
  window.Excel.run = function (batch) {
    return run(function (context) {
      var parts = window.Excel.parts;
      context.workbook.customXmlParts = {
        getByNamespace: function (ns) {
          var found = { items: [], load: function () {} };
          parts.forEach(function (p) {
            if (p.xml.indexOf('xmlns="' + ns + '"') >= 0) {
              found.items.push({ delete: function () { parts.splice(parts.indexOf(p), 1); } });
            }
          });
          return found;
        },
        add: function (xml) { parts.push({ xml: xml }); },
      };
      return batch(context);
    });
  };
})();
"""


def test_record_market_data_writes_the_pack_into_the_book(browser, serve, sandbox, tmp_path):  # noqa: F811
    from xml.etree import ElementTree

    from rates_xl.client.pack import loads
    from rates_xl.client.pack_seal import check, signer_for
    from rates_xl.client.pack_workbook import NAMESPACE

    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, persistent=False)
    route = {"/test/office-stub.js": lambda: Response(OFFICE_STUB + EXCEL_NAMES + EXCEL_PARTS,
                                                      media_type="text/javascript")}
    served = serve(client=client, office_js_url="/test/office-stub.js", extra_routes=route)
    page, _posts = open_page(browser, served)
    page.evaluate("Excel.names.RATES_VALUATION_TIME = {type: 'String', value: '2026-01-02T16:00:00Z'}")
    page.evaluate(FIRE, [[["SWAP", ["SOFR", "0D", "10Y", "1Y"]]], script_arities()])
    assert page.evaluate("Excel.parts.length") == 0  # not recording: nothing written
    page.click("#rates-record")
    page.evaluate(FIRE, [[["SWAP", ["SOFR", "0D", "10Y", "1Y"]], ["FXSPOT", ["EURUSD"]]], script_arities()])
    page.wait_for_function("Excel.parts.length === 1")
    page.evaluate(FIRE, [[["SWAP", ["SOFR", "0D", "5Y", "1Y"]]], script_arities()])  # a later batch adds
    page.wait_for_function("Excel.parts.length === 1 && Excel.parts[0].xml.indexOf('5Y') > 0")
    xml = page.evaluate("Excel.parts[0].xml")
    root = ElementTree.fromstring(xml.encode())
    assert root.tag == f"{{{NAMESPACE}}}marketDataPack"
    pack = loads(root.text)
    requests = sorted(a.request for a in pack.answers)
    assert len(requests) == 3 and all("valuation_time=2026-01-02T16:00:00Z" in r for r in requests), requests
    assert pack.base_url == client.base_url
    with using_client(client):  # the recorded answer is the one the cell showed
        swap = next(a for a in pack.answers if "10Y" in a.request)
        assert json.loads(swap.answer)["swap_rate"] == FUNCTIONS["RATES_SWAP"].core(
            "SOFR", "0D", "10Y", "1Y", None, None, None, "2026-01-02T16:00:00Z")
    assert page.text_content("#rates-pack-state") == "3 answers in this book's market-data pack"
    # Sealed by the server (addin/officejs/packs.py): every answer's digest and MAC as served,
    # the seal over them signed with the server's key (the sandbox's, which is public).
    verdict = check(pack, signer_for(PAID_KEY))
    assert not verdict.is_edited and verdict.sealed and not verdict.unverified, verdict
    assert verdict.signed == "public" and verdict.key_id == signer_for(PAID_KEY).key_id
    assert all(a.mac and a.mac.split(":")[1] == verdict.key_id for a in pack.answers)
    page.close()
    client.close()


# Excel.run's worksheets.getItem(name).getRange(cell): formulas, values, and the spill parent.
EXCEL_CELLS = """
window.Excel.cells = {};  // "Sheet!A1" -> {formula, value, parent}
(function () {
  var run = window.Excel.run.bind(window.Excel);
  window.Excel.run = function (batch) {
    return run(function (context) {
      var cells = window.Excel.cells;
      function rangeOf(key) {
        var c = cells[key] || { value: "" };
        var formula = c.formula || c.value;
        return { formulas: [[formula]], values: [[c.value]], load: function () {},
                 getSpillParentOrNullObject: function () {
                   return c.parent ? rangeOf(c.parent) : { isNullObject: true, load: function () {} };
                 } };
      }
      context.workbook.worksheets = { getItem: function (sheet) {
        return { getRange: function (cell) { return rangeOf(sheet + "!" + cell); } };
      } };
      return batch(context);
    });
  };
})();
"""

FIRE_SOURCE = """
async ([id, address]) => {
  const invocation = { address: "Audit!A1", functionName: id, parameterAddresses: [address] };
  try { return { value: await CustomFunctions.registered[id](0, invocation) }; }
  catch (e) { return { code: e.code, message: e.message }; }
}
"""


def test_rates_source_reads_the_referenced_cells_formula(browser, serve, sandbox):  # noqa: F811
    from rates_xl.addin.officejs.metadata import function_entry

    assert function_entry(FUNCTIONS["RATES_SOURCE"])["options"] == {"requiresParameterAddresses": True}
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, persistent=False)
    route = {"/test/office-stub.js": lambda: Response(OFFICE_STUB + EXCEL_NAMES + EXCEL_CELLS,
                                                      media_type="text/javascript")}
    served = serve(client=client, office_js_url="/test/office-stub.js", extra_routes=route)
    page, _posts = open_page(browser, served)
    page.evaluate("""Object.assign(Excel.cells, {
      "Rates!B1": {value: "SOFR"}, "Rates!B2": {value: "10Y"}, "Rates!B3": {value: "2026-01-02T16:00:01Z"},
      "Audit!B1": {value: "ESTR"},
      "Rates!A1": {formula: '=RATES.SWAP(B1,"0D",B2,"1Y",,,,"2026-01-02T16:00:00Z")', value: 0},
      "Rates!A2": {formula: '=RATES.SWAP(B1,"0D",B2,"1Y",,,,Rates!B3)', value: 0},
      "Rates!A3": {formula: "=A1*2", value: 0},
      "Rates!E2": {value: 3.5, parent: "Rates!D1"},
      "Rates!D1": {formula: '=RATES.SWAPCURVE("SOFR",B3,FALSE)', value: "10Y"},
    })""")
    # The cells answered first (the same swap valued a second apart: one value, two requests).
    page.evaluate(FIRE, [[["SWAP", ["SOFR", "0D", "10Y", "1Y", None, None, None, "2026-01-02T16:00:00Z"]],
                          ["SWAP", ["SOFR", "0D", "10Y", "1Y", None, None, None, "2026-01-02T16:00:01Z"]],
                          ["SWAPCURVE", ["SOFR", "2026-01-02T16:00:01Z", False]]], script_arities()])
    got = page.evaluate(FIRE_SOURCE, ["SOURCE", "Rates!$A$2"])
    rows = dict(got["value"])
    assert list(rows) == ["Request", "Valued at", "Fetched at", "Service"]
    assert rows["Request"] == ("swap_rate?fixed_leg_frequency=1Y&index=SOFR&maturity_date=10Y&start_date=0D"
                               "&valuation_time=2026-01-02T16:00:01Z")
    got = page.evaluate(FIRE_SOURCE, ["SOURCE", "Rates!E2"])  # a cell of the curve's spill
    assert dict(got["value"])["Request"] == "swap_curve?index=SOFR&valuation_time=2026-01-02T16:00:01Z"
    got = page.evaluate(FIRE_SOURCE, ["SOURCE", "Rates!A3"])
    # An explainer's refusal is its text in every host (functions/errors.EXPLAINERS): read, not summed.
    assert got["value"] == "#RATES! cell: Rates!A3: =A1*2 calls no RATES_* function that asks the service"
    page.close()
    client.close()
