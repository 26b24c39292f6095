"""functions.json against the function table and Excel's documented rules; the manifest
against what an offline reader can check (the official validator is an online service)."""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET

import pytest

from rates_xl.addin.officejs import manifest, metadata
from rates_xl.functions import FUNCTIONS
from rates_xl.functions.table import FORMER_NAMES


@pytest.fixture(scope="module")
def document():
    return json.loads(metadata.functions_json())  # what the server sends, parsed back


def test_every_table_row_is_present_with_its_arity_optionality_and_shape(document):
    entries = document["functions"]
    assert [e["id"] for e in entries] == [metadata.officejs_name(s) for s in FUNCTIONS.values()]
    for spec, entry in zip(FUNCTIONS.values(), entries, strict=True):
        assert entry["name"] == entry["id"] == spec.name.removeprefix("RATES_")
        assert f"RATES.{entry['name']}" == spec.dotted_name  # same name in both hosts but the separator
        assert entry["description"] == spec.description
        params = entry["parameters"]
        assert [p["name"] for p in params] == list(spec.arg_names)
        assert [p["optional"] for p in params] == [not a.required for a in spec.args]
        assert [p["description"] for p in params] == [a.doc for a in spec.args]
        assert all(p["type"] == "any" for p in params)
        # One cell each, but a range taken whole (a history's tenors and options) is a matrix.
        assert [p["dimensionality"] for p in params] == ["matrix" if a.many else "scalar" for a in spec.args]
        assert entry["result"]["dimensionality"] == ("scalar" if spec.result == "number" else "matrix")
        assert entry.get("options", {}).get("volatile", False) == spec.volatile
    assert metadata.script_arities() == {metadata.officejs_name(s): len(s.args) for s in FUNCTIONS.values()}
    ranges = {(e["id"], p["name"]) for e in entries for p in e["parameters"] if p["dimensionality"] == "matrix"}
    assert ranges == {("SWAPHISTORY", "tenor"), ("SWAPHISTORY", "options")}
    spilling = {e["id"] for e in entries if e["result"]["dimensionality"] == "matrix"}
    assert spilling == {"SWAPCURVE", "FORWARDCURVE", "DISCOUNTCURVE", "SWAPHISTORY", "TENORS", "STATUS", "SOURCE"}
    assert document["functions"][-1]["options"] == {"volatile": True}  # STATUS


def test_live_functions_stream_and_history_does_not(document):
    """Live mode (issue 21): every function whose answer can be valued as of now streams,
    as Microsoft's metadata says it (`options.stream`, no `cancelable` beside it: "A function
    can't use both"); a history, a tenor list and the volatile STATUS do not."""
    options = {e["id"]: e.get("options", {}) for e in document["functions"]}
    streaming = {fid for fid, o in options.items() if o.get("stream")}
    assert streaming == {"SWAP", "SWAPCURVE", "FORWARD", "FORWARDCURVE", "DISCOUNT", "DISCOUNTCURVE",
                         "FXSPOT", "FXFORWARD", "GOVYIELD", "FIXING"}
    assert all(o == {"stream": True} for fid, o in options.items() if fid in streaming)
    assert options["SWAPHISTORY"] == options["TENORS"] == {}
    assert sorted(metadata.script_streaming()) == sorted(streaming)


def test_names_follow_excels_rules(document):
    assert metadata.problems(document) == []
    for entry in document["functions"]:
        assert re.fullmatch(r"[A-Z][A-Z0-9_.]{2,}", entry["id"])
        assert not metadata.looks_like_cell_reference(entry["name"])
    # The former classic names are gone from the table: two of them were too short for Office.js.
    ids = {e["id"] for e in document["functions"]}
    assert not ids & {old.removeprefix("RATES_") for old in FORMER_NAMES}
    assert {new.removeprefix("RATES_") for new in FORMER_NAMES.values()} <= ids


@pytest.mark.parametrize("change, expected", [
    (lambda d: d["functions"][0].update(id="DF", name="DF"), "at least 3 characters"),
    (lambda d: d["functions"][0].update(id="swap"), "must start with a letter"),
    (lambda d: d["functions"][0].update(name="Swap"), "not upper case"),
    (lambda d: d["functions"][0].update(id="1SWAP"), "must start with a letter"),
    (lambda d: d["functions"][0].update(id="SWAP-2"), "must start with a letter"),
    (lambda d: d["functions"][0].update(id="ABC123", name="ABC123"), "cell reference"),
    (lambda d: d["functions"][0].update(id="R1C1", name="R1C1"), "cell reference"),
    (lambda d: d["functions"][1].update(id="SWAP", name="SWAP"), "duplicate"),
    (lambda d: d["functions"][0]["parameters"][0].update(type="date"), "type 'date'"),
    (lambda d: d["functions"][0]["parameters"][0].update(dimensionality="vector"), "dimensionality"),
    (lambda d: d["functions"][0]["parameters"][5].update(optional=False), "required parameter after an optional"),
    (lambda d: d["functions"][0]["result"].update(dimensionality="table"), "result.dimensionality"),
    (lambda d: d["functions"][0].update(options={"volatile": True, "stream": True}), "volatile function cannot"),
    (lambda d: d["functions"][0].update(options={"fast": True}), "options"),
    (lambda d: d["functions"][0].update(options={"stream": True, "cancelable": True}), "streaming function cannot"),
    (lambda d: d["functions"][0].update(options={"stream": True, "requiresAddress": True}),
     "streaming function cannot"),
    (lambda d: d["functions"][0].update(description="x" * 256), "description"),
    (lambda d: d["functions"][0].update(unknown=1), "unknown keys"),
])
def test_the_rule_check_catches_each_broken_rule(document, change, expected):
    broken = copy.deepcopy(document)
    change(broken)
    found = metadata.problems(broken)
    assert any(expected in p for p in found), found


def test_the_cell_reference_rule_is_excels_grid():
    assert metadata.looks_like_cell_reference("XFD1048576")
    assert not metadata.looks_like_cell_reference("XFE1")  # past the last column
    assert not metadata.looks_like_cell_reference("AB1048577")  # past the last row
    assert not metadata.looks_like_cell_reference("SWAPCURVE")


def test_the_manifest_is_well_formed_and_complete():
    base = "https://localhost:8766"
    xml = manifest.render(base, "9.9.9-abc")
    assert manifest.check(xml, base) == []
    root = ET.fromstring(xml.encode())
    ns = {"o": manifest.NS["o"], "ov": manifest.NS["ov"], "bt": manifest.NS["bt"]}
    assert root.find("o:Id", ns).text == manifest.ADDIN_ID
    assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", root.find("o:Version", ns).text)
    urls = {u.get("id"): u.get("DefaultValue") for u in root.iter(f"{{{ns['bt']}}}Url")}
    assert urls == {"Rates.Page.Url": f"{base}/v/9.9.9-abc/functions.html",
                    "Rates.Script.Url": f"{base}/v/9.9.9-abc/functions.js",
                    "Rates.Metadata.Url": f"{base}/v/9.9.9-abc/functions.json"}
    runtime = next(root.iter(f"{{{ns['ov']}}}Runtime"))
    assert runtime.get("lifetime") == "long" and runtime.get("resid") == "Rates.Page.Url"


@pytest.mark.parametrize("edit, expected", [
    (lambda x: x.replace('lifetime="long"', ""), "lifetime"),
    (lambda x: x.replace('<Set Name="SharedRuntime" MinVersion="1.1"/>', ""), "SharedRuntime"),
    (lambda x: x.replace('<Set Name="CustomFunctionsRuntime" MinVersion="1.2"/>', ""), "CustomFunctionsRuntime"),
    (lambda x: x.replace('MinVersion="1.2"', 'MinVersion="1.1"'), "CustomFunctionsRuntime 1.2"),
    (lambda x: x.replace("<TaskpaneId>Rates.Taskpane</TaskpaneId>", ""), "TaskpaneId"),
    (lambda x: x.replace("<TaskpaneId>Rates.Taskpane</TaskpaneId>\n                    <SourceLocation resid=\"Rates.Page.Url\"/>",
                         "<TaskpaneId>Rates.Taskpane</TaskpaneId>\n                    <SourceLocation resid=\"Rates.Script.Url\"/>"),
     "shared runtime's page"),
    (lambda x: x.replace('<Action xsi:type="ShowTaskpane">', '<Action xsi:type="ExecuteFunction">'), "opens the task pane"),
    (lambda x: x.replace('resid="Rates.Script.Url"', 'resid="Rates.Nothing"'), "not defined"),
    (lambda x: x.replace("<Permissions>ReadWriteDocument</Permissions>", ""), "missing elements"),
    (lambda x: x.replace('DefaultValue="RATES"', 'DefaultValue="RATE"'), "namespace"),
    (lambda x: x.replace("https://localhost:8766/v/", "http://localhost:8766/v/"), "not HTTPS"),
    (lambda x: x.replace("</OfficeApp>", ""), "well-formed"),
    (lambda x: x.replace("<Version>", "<Hosts/><Version>", 1), "order"),
])
def test_the_manifest_check_catches_each_problem(edit, expected):
    found = manifest.check(edit(manifest.render("https://localhost:8766")), "https://localhost:8766")
    assert any(expected in p for p in found), found


def test_the_manifest_escapes_its_base_url():
    base = 'https://rates.example.com:8443/a&b"c<'
    root = ET.fromstring(manifest.render(base, "1").encode())  # still well-formed
    urls = {u.get("id"): u.get("DefaultValue") for u in root.iter(f"{{{manifest.NS['bt']}}}Url")}
    assert urls["Rates.Page.Url"] == base + "/v/1/functions.html"


def test_the_host_needs_neither_xlwings_nor_quantlib():
    """A user of `pip install rates-xl[officejs]` runs `serve` without xlwings' code (whose
    Office.js parts are not licensed for commercial use) and without QuantLib."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from rates_xl.addin.officejs import app, batch, certs, cli, manifest, server, sideload\n"
        "from rates_xl.addin import respell\n"
        "app.create_app('https://localhost:8766')\n"
        "batch.run_batch([{'fn': 'SWAP', 'args': ['SOFR', '0D', '10X', '1Y']}], __import__("
        "'rates_xl.functions', fromlist=['get_client']).get_client())\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('xlwings', 'QuantLib'))\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={"PATH": "", "RATES_BASE_URL": "http://127.0.0.1:9", "RATES_API_KEY": "x" * 20,
                              "HOME": "/nonexistent"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"
