"""The batch endpoint over TLS against the sandbox: the same answers as the core, one
service request per distinct question, and the security rules of `rates-xl serve`."""

from __future__ import annotations

import json
import logging
from datetime import date

from rates_xl.addin.officejs import batch as batchmod
from rates_xl.addin.officejs.metadata import officejs_name
from rates_xl.client import RatesClient
from rates_xl.functions import FUNCTIONS, PREFIX
from rates_xl.functions.core import prepare
from rates_xl.functions.messages import ArgumentError
from tests.support.cells import GOOD_CELLS, distinct_cells, duplicated
from tests.support.officejs_calls import sent

JUNK = ["", "   ", "10X", "#N/A", "#VALUE!", "#RATES! 404 earlier", "1.5Y", "-5Y", "2026-13-45", "EUR/USD/JPY",
        "tomorrow", "NaN", "🙂", "'; DROP TABLE", "a" * 300, True, False, 0, -1, 0.5, 1e18, 2958466, None]


def received(value):
    """What the server hands the core for a JSON value (numbers are floats, as in Excel)."""
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def excel_cell(value):
    if isinstance(value, date):
        return float((value - date(1899, 12, 30)).days)
    return "" if value is None else value


def good_and_junk_cells() -> list[tuple[str, tuple]]:
    cells = [(name, tuple(sent(a) for a in args)) for name, args in GOOD_CELLS.items()]
    cells.append(("RATES_STATUS", ()))
    for name, args in GOOD_CELLS.items():
        for position in range(len(args)):
            for junk in JUNK[position::3]:  # each junk value at one position or another
                bad = list(args)
                bad[position] = junk
                cells.append((name, tuple(sent(a) for a in bad)))
        cells.append((name, tuple(sent(a) for a in args) + ("extra",) * (len(FUNCTIONS[name].args) + 1 - len(args))))
    cells += [("RATES_SWAP", ("NOT AN INDEX", "0D", "5Y", "1Y")),  # the service's 422
              ("RATES_FIXING", ("SOFR", "2026-11-22")),  # a Sunday: 404
              ("RATES_SWAP", ("SOFR", "5Y", "0D", "1Y"))]  # maturity before start: 400
    return cells


def expected_kind(name: str, args: tuple, message: str) -> str:
    status = message.split()[1]
    if status in ("400", "422"):
        return "invalidValue"
    try:
        prepare(FUNCTIONS[name], args)
    except ArgumentError:
        return "invalidValue"
    return "notAvailable"


def test_answers_equal_the_core_for_good_and_junk_cells(serve, sandbox_client):
    served = serve(client=sandbox_client)
    cells = good_and_junk_cells()
    assert len(cells) > 150
    response = served.batch([{"fn": officejs_name(FUNCTIONS[n]), "args": list(a)} for n, a in cells])
    assert response.status_code == 200, response.text
    results = response.json()["results"]
    assert len(results) == len(cells)
    kinds = set()
    for (name, args), got in zip(cells, results, strict=True):
        args = tuple(received(a) for a in args)
        want = FUNCTIONS[name].core(*args)  # the same client, now warm: the same answers
        if isinstance(want, str) and want.startswith(PREFIX):
            assert got == {"error": expected_kind(name, args, want), "message": want[len(PREFIX):].strip()}, (name, args)
            kinds.add(got["error"])
        elif isinstance(want, list):
            if name == "RATES_STATUS":  # its counters moved on: compare the shape and labels
                assert [row[0] for row in got["value"]] == [row[0] for row in want]
                continue
            assert got == {"value": [[excel_cell(v) for v in row] for row in want]}, (name, args)
            assert all(len(row) == len(want[0]) for row in got["value"])
        else:
            assert isinstance(want, float)
            assert got == {"value": want}, (name, args)
    assert kinds == {"invalidValue", "notAvailable"}  # both kinds were exercised
    # The good cells compute (the reliability suite's forward curve starting "0D" is refused
    # by the sandbox on some days: the comparison above holds for it either way).
    good = results[: len(GOOD_CELLS)]
    assert sum("value" in r for r in good) >= len(GOOD_CELLS) - 1, good


def test_a_batch_of_1000_cells_sends_each_distinct_request_once(serve, sandbox_client):
    served = serve(client=sandbox_client)
    distinct = distinct_cells(250)
    cells = duplicated(distinct, copies=4)  # every request 4 times, spelled 4 ways, shuffled
    assert len(cells) == 1000
    calls = [{"fn": officejs_name(FUNCTIONS[n]), "args": [sent(a) for a in args]} for n, args in cells]
    before = sandbox_client.stats()["requests_sent"]
    results = served.batch(calls).json()["results"]
    assert sandbox_client.stats()["requests_sent"] - before == 250
    assert all("value" in r and isinstance(r["value"], float) for r in results), [r for r in results if "value" not in r][:3]
    # Asked again: everything from the cache, nothing sent.
    again = served.batch(calls).json()["results"]
    assert again == results
    assert sandbox_client.stats()["requests_sent"] - before == 250


def test_served_files_and_manifest(serve, sandbox_client):
    from rates_xl.addin.officejs import manifest, metadata

    served = serve(client=sandbox_client)
    assert served.file("functions.json").json() == metadata.functions_document(help_base=served.url)
    script = served.file("functions.js")
    assert script.headers["content-type"].startswith("text/javascript")
    assert json.dumps(metadata.script_arities(), sort_keys=True)[1:-1] in script.text
    page = served.file("functions.html")
    assert '<script src="functions.js">' in page.text and "office.js" in page.text
    for size in manifest.ICON_SIZES:
        icon = served.file(f"icon-{size}.png")
        assert icon.content[:8] == b"\x89PNG\r\n\x1a\n" and icon.headers["content-type"] == "image/png"
    xml = served.http.get(served.url + "/manifest.xml").text
    assert manifest.check(xml, served.url) == []
    # Every URL the manifest names is served, over this TLS certificate.
    for url in manifest.urls(served.url, served.app.state.version).values():
        assert served.http.get(url).status_code == 200, url
    # An older version's URL (an old manifest) is sent to the current file.
    old = served.http.get(f"{served.url}/v/0.0.1-old/functions.js", allow_redirects=False)
    assert old.status_code == 307 and old.headers["location"] == f"/v/{served.app.state.version}/functions.js"
    assert served.http.get(f"{served.url}/v/0.0.1-old/functions.js").text == script.text


def test_foreign_origin_and_host_are_refused_and_nothing_says_cors(serve, sandbox_client):
    served = serve(client=sandbox_client)
    call = [{"fn": "SWAP", "args": ["SOFR", "0D", "5Y", "1Y"]}]
    before = sandbox_client.stats()["requests_sent"]
    for origin in ("https://evil.example", "null", f"http://localhost:{served.running.port}",
                   "https://localhost.evil.example", f"https://localhost:{served.running.port + 1}"):
        refused = served.batch(call, headers={"Origin": origin})
        assert refused.status_code == 403, origin
        assert served.http.get(served.url + "/manifest.xml", headers={"Origin": origin}).status_code == 403
    for host in ("evil.example", f"evil.example:{served.running.port}", "rebind.127.0.0.1.nip.io"):
        refused = served.http.post(served.url + "/api/batch", json={"calls": call},
                                   headers={"Host": host, "Origin": served.url})
        assert refused.status_code == 400, host
        assert served.http.get(served.url + "/", headers={"Host": host}).status_code == 400
    cross_site = served.batch(call, headers={"Sec-Fetch-Site": "cross-site"})
    assert cross_site.status_code == 403
    form = served.http.post(served.url + "/api/batch", data="calls=1", headers={"Origin": served.url})
    assert form.status_code == 415
    assert sandbox_client.stats()["requests_sent"] == before  # nothing refused reached the service
    # Our own origin works, with any loopback spelling of it.
    for origin in (served.url, f"https://127.0.0.1:{served.running.port}"):
        assert "value" in served.batch(call, headers={"Origin": origin}).json()["results"][0]
    # No CORS for our own origin (none needed) nor anywhere on the batch, a preflight included.
    responses = [served.http.options(served.url + "/api/batch", headers={
        "Origin": served.url, "Access-Control-Request-Method": "POST"}),
        served.batch(call), served.http.get(served.url + "/manifest.xml"), served.file("functions.js")]
    for response in responses:
        assert not [h for h in response.headers if h.lower().startswith("access-control-")]


EXCEL_ON_THE_WEB = ("https://excel.officeapps.live.com", "https://usc-excel.officeapps.live.com",
                    "https://contoso.sharepoint.com", "https://excel.cloud.microsoft", "https://www.office.com")
NOT_EXCEL = ("https://evil.example", "null", "http://excel.officeapps.live.com",
             "https://excel.officeapps.live.com.evil.example", "https://evil.example/.officeapps.live.com",
             "https://officeapps.live.com", "https://a.b.sharepoint.com", "https://excel.officeapps.live.com:8443",
             "https://excel-officeapps.live.com")


def cors_headers(response) -> dict[str, str]:
    return {k.lower(): v for k, v in response.headers.items() if k.lower().startswith("access-control-")}


def test_excel_on_the_web_may_read_the_static_files_and_nothing_else(serve, sandbox_client):
    from rates_xl.addin.officejs import manifest, metadata

    served = serve(client=sandbox_client)
    version = served.app.state.version
    # Every file the manifest names but the support page (a link Excel opens in a browser).
    statics = ["/manifest.xml"] + [u.removeprefix(served.url) for name, u in manifest.urls(served.url, version).items()
                                   if name != "support"]
    assert f"/v/{version}/functions.json" in statics and f"/v/{version}/functions.js" in statics
    before = sandbox_client.stats()["requests_sent"]
    for origin in EXCEL_ON_THE_WEB:
        for path in statics:
            got = served.http.get(served.url + path, headers={"Origin": origin})
            assert got.status_code == 200, (origin, path)
            assert cors_headers(got) == {"access-control-allow-origin": origin}, (origin, path)
            assert got.headers["vary"] == "Origin"
        assert served.http.get(served.url + f"/v/{version}/functions.json", headers={"Origin": origin}).json() == \
            metadata.functions_document(help_base=served.url)
        preflight = served.http.options(served.url + f"/v/{version}/functions.json", headers={
            "Origin": origin, "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "x-requested-with", "Sec-Fetch-Site": "cross-site"})
        assert preflight.status_code == 204
        assert cors_headers(preflight)["access-control-allow-origin"] == origin
        assert cors_headers(preflight)["access-control-allow-methods"] == "GET, HEAD"
        # The batch stays closed to it: refused, no CORS header, a preflight refused too.
        batch = served.batch([{"fn": "SWAP", "args": ["SOFR", "0D", "5Y", "1Y"]}], headers={"Origin": origin})
        assert batch.status_code == 403 and not cors_headers(batch)
        preflight = served.http.options(served.url + "/api/batch", headers={
            "Origin": origin, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type"})
        assert preflight.status_code == 403 and not cors_headers(preflight)
        home = served.http.get(served.url + "/", headers={"Origin": origin})
        assert home.status_code == 403 and not cors_headers(home)
    for origin in NOT_EXCEL:
        for path in statics[:2]:
            got = served.http.get(served.url + path, headers={"Origin": origin})
            assert got.status_code == 403 and not cors_headers(got), (origin, path)
        preflight = served.http.options(served.url + statics[1], headers={
            "Origin": origin, "Access-Control-Request-Method": "GET"})
        assert preflight.status_code == 403 and not cors_headers(preflight), origin
    assert sandbox_client.stats()["requests_sent"] == before  # nothing reached the service


def test_the_excel_origins_are_one_injectable_list(serve, sandbox_client):
    served = serve(client=sandbox_client, excel_origins=("https://excel.test.local",))
    got = served.file("functions.json")
    assert served.http.get(got.url, headers={"Origin": "https://excel.test.local"}).headers[
        "access-control-allow-origin"] == "https://excel.test.local"
    assert served.http.get(got.url, headers={"Origin": "https://excel.officeapps.live.com"}).status_code == 403


def test_caps_on_body_batch_and_arguments(serve, sandbox_client):
    served = serve(client=sandbox_client)
    too_many = served.batch([{"fn": "TENORS", "args": ["SOFR"]}] * (batchmod.MAX_BATCH + 1))
    assert too_many.status_code == 413
    huge = served.http.post(served.url + "/api/batch", data=b'{"calls": ["' + b"x" * 1_100_000 + b'"]}',
                            headers={"Origin": served.url, "Content-Type": "application/json"})
    assert huge.status_code == 413
    results = served.batch([
        {"fn": "SWAP", "args": ["SOFR", "0D", "x" * (batchmod.MAX_TEXT + 1), "1Y"]},
        {"fn": "SWAP", "args": ["SOFR", [["0D", "1D"]], "5Y", "1Y"]},
        {"fn": "NOPE", "args": []},
        {"fn": "SWAP", "args": ["SOFR"] * (batchmod.MAX_ARGS + 1)},
        "not a call",
        {"fn": "TENORS", "args": ["SOFR"]},
    ]).json()["results"]
    assert [r.get("error") for r in results[:5]] == ["invalidValue"] * 5
    assert "text longer than" in results[0]["message"] and "not a range" in results[1]["message"]
    assert "unknown function" in results[2]["message"]
    assert "value" in results[5]  # one bad call never spoils the others
    assert served.http.post(served.url + "/api/batch", data="{", headers={
        "Origin": served.url, "Content-Type": "application/json"}).status_code == 400


SECRET = "rk-live-Off1ceJsLeakT3st"
EXPIRED = "rk-trial-Off1ceJsExp1red"


def leaked(text: str) -> bool:
    return any(s in text or s[-10:] in text or s[:12] in text for s in (SECRET, EXPIRED))


def test_the_key_appears_in_no_served_file_response_or_log(serve, sandbox_factory, caplog):
    from rates_xl.addin.officejs import manifest

    caplog.set_level(logging.DEBUG)
    service = sandbox_factory(extra_keys={SECRET: "paid", EXPIRED: "expired"}, rate_limit=1000, burst=1000)
    texts: dict[str, str] = {}
    calls = [{"fn": officejs_name(FUNCTIONS[n]), "args": [sent(a) for a in args]} for n, args in GOOD_CELLS.items()]
    calls += [{"fn": "STATUS", "args": []}, {"fn": "SWAP", "args": ["SOFR", "0D", "10X", "1Y"]},
              {"fn": "SWAP", "args": ["NOT AN INDEX", "0D", "5Y", "1Y"]}]
    for label, key, base_url in (("paid", SECRET, service.base_url), ("expired", EXPIRED, service.base_url),
                                 ("down", SECRET, "http://127.0.0.1:9")):
        client = RatesClient(base_url=base_url, api_key=key, max_attempts=1)
        served = serve(client=client)
        response = served.batch(calls)
        texts[f"batch {label}"] = response.text + json.dumps(dict(response.headers))
        if label == "paid":
            assert sum("value" in r for r in response.json()["results"]) >= len(GOOD_CELLS) - 1
        else:
            assert all("error" in r for r in response.json()["results"][:len(GOOD_CELLS)])
        names = ["/", "/manifest.xml"] + [u.removeprefix(served.url) for u in manifest.urls(served.url).values()]
        for path in names:
            got = served.http.get(served.url + path)
            assert got.status_code == 200, path
            texts[f"{label} {path}"] = got.content.decode("latin-1") + json.dumps(dict(got.headers))
        refused = served.batch(calls, headers={"Origin": "https://evil.example"})
        texts[f"refused {label}"] = refused.text
        client.close()
    texts["log"] = caplog.text + "\n".join(f"{r.getMessage()} {r.args!r}" for r in caplog.records)
    assert "batch:" in texts["log"]  # the search reads real records
    assert not [name for name, text in texts.items() if leaked(text)]


def test_the_public_url_is_read_once_and_one_read_two_ways_is_refused():
    """The server's own origin comes from the reading the client uses (client/urls.py),
    written as a browser writes `Origin`; a public URL that parsers read as two places is
    refused at start (issue 27: one URL parser decides)."""
    import pytest

    from rates_xl.addin.officejs.app import allowed_origins, create_app
    from rates_xl.addin.officejs.origins import public_url_problem
    from rates_xl.addin.officejs.team import default_resource

    assert allowed_origins("https://Rates.Corp.Example:443") == {"https://rates.corp.example"}
    assert allowed_origins("https://localhost:8766") == {
        "https://localhost:8766", "https://127.0.0.1:8766", "https://[::1]:8766"}
    assert default_resource("https://RATES.corp.example", "id") == "api://rates.corp.example/id"
    for trick in ("https://localhost:8766\\@rates.corp.example", "https://user@rates.corp.example",
                  "https://127.1:8766", "https://rates.corp.example%2F@evil.example",
                  "https://rates.corp.example\t", "https://rates.corp.example#@evil.example"):
        assert public_url_problem(trick), trick
        with pytest.raises(ValueError):
            create_app(trick)


def test_a_history_grid_takes_ranges_whole_and_fill_na_is_excels_na(serve, sandbox_client):
    """tenor and options are "matrix" parameters: a range arrives as rows of values. A cell
    with no value by design (Fill=NA) is an error object the script turns into #N/A there."""
    served = serve(client=sandbox_client)
    na = {"error": "notAvailable", "message": "no value for this date (Fill=NA)"}
    calls = [
        {"fn": "SWAPHISTORY", "args": ["SOFR", [["2Y"], ["5Y"]], "2025-07-01", "2025-07-08", None, [["Days=W Fill=NA"]]]},
        {"fn": "SWAPHISTORY", "args": ["SOFR", [["2Y"]], "2025-07-01", "2025-07-08"]},  # one cell: [[v]]
        {"fn": "SWAPHISTORY", "args": ["SOFR", [["2Y"], [None]], "2025-07-01", "2025-07-08"]},
        {"fn": "SWAPHISTORY", "args": ["SOFR", [[["2Y"]]], "2025-07-01", "2025-07-08"]},
        {"fn": "SWAP", "args": ["SOFR", [["0D"]], "5Y", "1Y"]},  # any other argument: one cell
    ]
    grid, single, blank, nested, swap = served.batch(calls).json()["results"]
    assert grid["value"][0] == ["Date", "2Y", "5Y"]
    july4 = float((date(2025, 7, 4) - date(1899, 12, 30)).days)
    (row,) = [r for r in grid["value"] if r[0] == july4]
    assert row[1:] == [na, na]
    assert single == {"value": [[excel_cell(v) for v in r] for r in FUNCTIONS["RATES_SWAPHISTORY"].core(
        "SOFR", "2Y", "2025-07-01", "2025-07-08")]}
    assert single["value"][0] == ["Date", "Rate"]
    assert blank == {"error": "invalidValue", "message": "tenor: cell 2 of the range is empty; give a tenor "
                                                         "in each (no blanks)"}
    assert nested == {"error": "invalidValue", "message": "tenor: not a cell value"}
    assert swap == {"error": "invalidValue", "message": "start: give one cell, not a range or an array"}
