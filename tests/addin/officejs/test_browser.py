"""The real page and script in a real browser: headless Chromium loads functions.html over
HTTPS from `rates-xl serve`, with a small stand-in for Office's `CustomFunctions` global
served in place of office.js, and fires cells the way Excel does (every dirty cell at once,
each call with Excel's invocation object appended).

What this proves: the script registers every function of the table, batches a burst into
one POST, trims the invocation argument, settles every promise with the value, the spill or
the right CustomFunctions.Error (code and message), and never leaves a cell pending (time
limit, server gone). What only Excel can show is in addin/README.md's checklist.
"""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest
from fastapi.responses import Response

from rates_xl.addin.officejs.metadata import officejs_name, script_arities
from rates_xl.client import RatesClient
from rates_xl.functions import FUNCTIONS, PREFIX
from rates_xl.sandbox import PAID_KEY
from tests.addin.officejs.test_backend import excel_cell, expected_kind, received, sent
from tests.support.cells import distinct_cells

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason="Chromium is not installed (Debian: apt-get install chromium)")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--ignore-certificate-errors"]

# The stand-in for Office's CustomFunctions (served where the page loads office.js): it
# records what the script associates and builds errors the way Office's do. Nothing else.
OFFICE_STUB = """
window.CustomFunctions = {
  registered: {},
  associate: function (id, fn) { this.registered[id] = fn; },
  ErrorCode: { invalidValue: "#VALUE!", notAvailable: "#N/A", divisionByZero: "#DIV/0!",
               invalidNumber: "#NUM!", nullReference: "#NULL!", invalidName: "#NAME?",
               invalidReference: "#REF!" },
  Error: function (code, message) { this.code = code; this.message = message; },
};
"""

# Excel's way: every cell called in one go, each with every declared argument (an omitted
# one as null) and an invocation object appended.
FIRE = """
async ([cells, arities]) => {
  const promises = cells.map(([id, args], i) => {
    const invocation = { address: "Sheet1!A" + (i + 1), functionName: id };
    const padded = args.concat(Array(Math.max(0, arities[id] - args.length)).fill(null));
    return CustomFunctions.registered[id](...padded, invocation);
  });
  const settled = await Promise.allSettled(promises);
  return settled.map((s) => s.status === "fulfilled"
    ? { value: s.value }
    : { code: s.reason.code, message: s.reason.message, isError: s.reason instanceof CustomFunctions.Error });
}
"""


@pytest.fixture(scope="module")
def playwright():
    with sync_api.sync_playwright() as started:  # one per thread: every browser comes from it
        yield started


@pytest.fixture(scope="module")
def browser(playwright):
    launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
    yield launched
    launched.close()


def stub_route():
    return {"/test/office-stub.js": lambda: Response(OFFICE_STUB, media_type="text/javascript")}


def open_page(browser, served):
    page = browser.new_page(ignore_https_errors=True)
    posts: list[int] = []
    page.on("request", lambda r: posts.append(len(r.post_data_json["calls"]))
            if r.method == "POST" and r.url.endswith("/api/batch") else None)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{served.url}/v/{served.app.state.version}/functions.html")
    page.wait_for_function("Object.keys(CustomFunctions.registered).length > 0")
    assert errors == []
    return page, posts


def cells_500() -> list[tuple[str, tuple]]:
    """400 distinct swap/discount/forward cells, 60 repeats, curves that spill, bad input."""
    cells = [(n, tuple(sent(a) for a in args)) for n, args in distinct_cells(400)]
    cells += cells[:60]
    cells += [("RATES_SWAPCURVE", ("SOFR", "2026-11-20T16:00:00Z")),
              ("RATES_SWAPCURVE", ("ESTR", "2026-11-20T16:00:00Z", False)),
              ("RATES_DISCOUNTCURVE", ("SOFR", "2026-11-20", "2027-11-20", "6M", None, "2026-11-20T16:00:00Z")),
              ("RATES_FORWARDCURVE", ("SOFR", "2026-12-01", "2027-12-01", "3M", "3M", None, "2026-11-20T16:00:00Z")),
              ("RATES_TENORS", ("SOFR",)), ("RATES_STATUS", ()),
              ("RATES_SWAPHISTORY", ("SOFR", "5Y", 46341, 46345))]
    bad = [("RATES_SWAP", ("SOFR", "0D", "10X", "1Y")), ("RATES_FXSPOT", ("EURUS",)),
           ("RATES_SWAP", ("NOT AN INDEX", "0D", "5Y", "1Y")), ("RATES_FIXING", ("SOFR", "2026-11-22")),
           ("RATES_SWAP", (None, "0D", "5Y", "1Y")), ("RATES_GOVYIELD", ("ZZ", "10Y")),
           ("RATES_SWAP", ("SOFR", "#N/A", "5Y", "1Y")), ("RATES_DISCOUNT", ("SOFR", True))]
    while len(cells) < 500:
        cells.append(bad[len(cells) % len(bad)])
    return cells


def test_500_cells_fired_at_once_settle_right_in_one_post(browser, serve, sandbox):
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY)
    served = serve(client=client, office_js_url="/test/office-stub.js", extra_routes=stub_route())
    page, posts = open_page(browser, served)
    assert sorted(page.evaluate("Object.keys(CustomFunctions.registered)")) == sorted(script_arities())

    cells = cells_500()
    before = client.stats()["requests_sent"]
    got = page.evaluate(FIRE, [[[officejs_name(FUNCTIONS[n]), list(a)] for n, a in cells], script_arities()])
    assert posts == [500]  # one POST for the whole burst
    assert client.stats()["requests_sent"] - before <= 400 + 12  # the distinct ones, once
    codes = {"invalidValue": "#VALUE!", "notAvailable": "#N/A"}
    seen = {"number": 0, "spill": 0, "#VALUE!": 0, "#N/A": 0}
    for (name, args), cell in zip(cells, got, strict=True):
        want = FUNCTIONS[name].core(*(received(a) for a in args))
        if isinstance(want, str) and want.startswith(PREFIX):
            kind = expected_kind(name, tuple(received(a) for a in args), want)
            assert cell == {"code": codes[kind], "message": want[len(PREFIX):].strip(), "isError": True}, (name, args)
            seen[codes[kind]] += 1
        elif isinstance(want, list):
            assert "value" in cell and all(isinstance(r, list) for r in cell["value"]), (name, args, cell)
            if name != "RATES_STATUS":  # its counters move on
                assert cell["value"] == [[excel_cell(v) for v in row] for row in want], name
            assert len({len(r) for r in cell["value"]}) == 1  # rectangular: it spills
            seen["spill"] += 1
        else:
            assert cell == {"value": want}, (name, args)
            seen["number"] += 1
    assert seen["number"] >= 460 and seen["spill"] == 7 and seen["#VALUE!"] >= 4 and seen["#N/A"] >= 1, seen
    page.close()
    client.close()


def test_a_slow_answer_becomes_na_at_the_time_limit_never_busy(browser, serve, sandbox_factory):
    slow = sandbox_factory(latency_ms=3000)
    client = RatesClient(base_url=slow.base_url, api_key=PAID_KEY)
    served = serve(client=client, office_js_url="/test/office-stub.js", extra_routes=stub_route(),
                   time_limit_s=0.5)
    page, posts = open_page(browser, served)
    got = page.evaluate(FIRE, [[["FXSPOT", ["EURUSD"]], ["SWAP", ["SOFR", "0D", "10X", "1Y"]]], script_arities()])
    assert got[0] == {"code": "#N/A", "message": "no answer within 0.5 s; calculate again", "isError": True}
    assert got[1]["code"] == "#N/A"  # the whole batch waited on the slow one
    assert posts == [2]
    page.close()
    client.close()


def test_a_history_grid_from_ranges_with_fill_na_holds_excels_na_in_its_cells(browser, serve, sandbox):
    """Tenors and options as Excel passes a range to a "matrix" parameter; a Fill=NA cell is
    a CustomFunctions.Error (#N/A) inside the returned matrix, not text."""
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY)
    served = serve(client=client, office_js_url="/test/office-stub.js", extra_routes=stub_route())
    page, posts = open_page(browser, served)
    cells = [["SWAPHISTORY", ["SOFR", [["2Y"], ["5Y"]], "2025-07-01", "2025-07-08", None, [["Days=W"], ["Fill=NA"]]]],
             ["SWAPHISTORY", ["SOFR", [["2Y", "2Y"]], "2025-07-01", "2025-07-08"]]]
    grid, duplicate = page.evaluate(FIRE, [cells, script_arities()])
    assert posts == [2]
    assert grid["value"][0] == ["Date", "2Y", "5Y"]
    july4 = float((date(2025, 7, 4) - date(1899, 12, 30)).days)
    (row,) = [r for r in grid["value"] if r[0] == july4]
    assert row[1:] == [{"code": "#N/A", "message": "no value for this date (Fill=NA)"}] * 2
    assert all(isinstance(v, int | float) for r in grid["value"][1:] if r[0] != july4 for v in r)
    assert duplicate == {"code": "#VALUE!", "isError": True,
                         "message": "tenor: 2Y appears twice (cells 1 and 2 of the range); give each tenor once"}
    page.close()
    client.close()


def test_server_gone_is_na_with_our_message(browser, serve, sandbox):
    client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY)
    served = serve(client=client, office_js_url="/test/office-stub.js", extra_routes=stub_route())
    page, _ = open_page(browser, served)
    served.running.stop()
    got = page.evaluate(FIRE, [[["TENORS", ["SOFR"]], ["SWAP", ["SOFR", "0D", "5Y", "1Y"]]], script_arities()])
    for cell in got:
        assert cell["code"] == "#N/A" and cell["isError"]
        assert cell["message"].startswith(f"cannot reach rates-xl serve at {served.url} (is it running?)")
    page.close()
    client.close()


# -- Excel on the web: cross-origin rules, proved in Chromium ---------------------------------

STAND_IN_HOSTS = ("excel.test.local", "other.test.local")
RESOLVE_TO_LOOPBACK = "--host-resolver-rules=" + ", ".join(f"MAP {h} 127.0.0.1" for h in STAND_IN_HOSTS)

FETCH_JSON = """
async ([url, headers]) => {
  try {
    const response = await fetch(url, { headers });
    return { status: response.status, body: await response.json() };
  } catch (error) {
    return { error: String(error) };
  }
}
"""

POST_BATCH = """
async ([url, mode, contentType]) => {
  try {
    const response = await fetch(url, {
      method: "POST", mode, headers: { "Content-Type": contentType },
      body: JSON.stringify({ calls: [{ fn: "SWAP", args: ["SOFR", "0D", "5Y", "1Y"] }] }),
    });
    return { status: response.status, type: response.type };
  } catch (error) {
    return { error: String(error) };
  }
}
"""


class StandInPages:
    """A blank page at http://<any name>:<port>/ on 127.0.0.1: the stand-in for Excel on the
    web's origin and for any other site (Chromium maps the names, see RESOLVE_TO_LOOPBACK)."""

    def __init__(self) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Blank(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                body = b"<!DOCTYPE html><html><head><title>stand-in</title></head><body></body></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Blank)
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def origin(self, host: str) -> str:
        return f"http://{host}:{self.port}"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def test_excel_on_the_web_loads_the_metadata_and_no_other_origin_reads_or_spends(playwright, serve):
    from rates_xl.addin.officejs import metadata
    from tests.support.badnet import BadNetwork

    service = BadNetwork("hold")  # the service: counts every connection, answers none
    client = RatesClient(base_url=service.base_url, api_key=PAID_KEY, max_attempts=1, timeout=5, deadline=5)
    pages = StandInPages()
    excel, other = pages.origin("excel.test.local"), pages.origin("other.test.local")
    served = serve(client=client, excel_origins=(excel,))
    metadata_url = f"{served.url}/v/{served.app.state.version}/functions.json"
    batch_url = f"{served.url}/api/batch"
    console: list[str] = []
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS + [RESOLVE_TO_LOOPBACK], headless=True)
    try:
        office = browser.new_page(ignore_https_errors=True)
        office.goto(excel + "/")
        # The stand-in Office origin reads the metadata: a simple GET, and one with a header
        # that makes Chromium send a preflight first.
        for headers in ({}, {"X-Requested-With": "rates-xl-test"}):
            got = office.evaluate(FETCH_JSON, [metadata_url, headers])
            assert got == {"status": 200, "body": metadata.functions_document(help_base=served.url)}, got.get("error")
        # ... but not the batch: its preflight is refused, the POST never leaves Chromium.
        for mode, content_type in (("cors", "application/json"), ("no-cors", "text/plain")):
            got = office.evaluate(POST_BATCH, [batch_url, mode, content_type])
            assert "error" in got or got == {"status": 0, "type": "opaque"}, got

        stranger = browser.new_page(ignore_https_errors=True)
        stranger.on("console", lambda message: console.append(message.text))
        stranger.goto(other + "/")
        got = stranger.evaluate(FETCH_JSON, [metadata_url, {}])
        assert "error" in got and "Failed to fetch" in got["error"], got
        for mode, content_type in (("cors", "application/json"), ("no-cors", "text/plain"),
                                   ("no-cors", "application/json")):
            got = stranger.evaluate(POST_BATCH, [batch_url, mode, content_type])
            # An opaque answer is all a no-cors request gets: nothing to read (it was a 403).
            assert "error" in got or got == {"status": 0, "type": "opaque"}, got
        assert any("blocked by CORS policy" in line for line in console), console
        assert service.accepted == 0  # nothing any page did reached the service with the key
        assert client.stats()["requests_sent"] == 0
    finally:
        browser.close()
        pages.stop()
        service.stop()
        client.close()
