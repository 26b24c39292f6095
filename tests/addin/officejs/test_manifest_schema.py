"""The manifest against Microsoft's XSDs (tests/addin/officejs/schemas/, provenance in its
README), validated offline with xmlschema: the manifest `rates-xl officejs manifest` writes,
with and without the team's SSO, is valid; a manifest broken in a way the schema forbids is
not (so the validation is real); the task pane sits on the shared runtime (issue 28)."""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from rates_xl.addin.officejs import manifest

xmlschema = pytest.importorskip("xmlschema", reason="xmlschema (the dev extra) is not installed")

SCHEMAS = Path(__file__).parent / "schemas"
BASE = "https://localhost:8766"


@pytest.fixture(scope="module")
def schema():
    loaded = xmlschema.XMLSchema(str(SCHEMAS / "OfficeAppManifestV1_1.xsd"), validation="lax")
    # The one known defect of Microsoft's files (README): a lazy quantifier in a pattern.
    assert [str(e).splitlines()[0] for e in loaded.all_errors] == [
        "unexpected meta character '?' at position 31: '([0-9]{1,5})(\\\\.[0-9]{1,5}){0,3}?':"]
    return loaded


def _errors(schema, xml: str) -> list[str]:
    return [str(e).splitlines()[0] for e in schema.iter_errors(xml)]


def test_the_manifest_is_valid_against_microsofts_schema(schema):
    xml = manifest.render(BASE)
    assert _errors(schema, xml) == []
    # What the lax pattern does not check, checked with its meaning: n[.n[.n[.n]]].
    version = ET.fromstring(xml.encode()).findtext(f"{{{manifest.NS['o']}}}Version")
    assert re.fullmatch(r"[0-9]{1,5}(\.[0-9]{1,5}){0,3}", version)


def test_the_team_manifest_with_sso_is_valid_too(schema):
    from types import SimpleNamespace

    sso = SimpleNamespace(client_id="3f4b1c1e-4f1a-4a55-9c1f-7f3c2d1b0a99",
                          resource="api://rates.example.com/3f4b1c1e-4f1a-4a55-9c1f-7f3c2d1b0a99",
                          scopes=["openid", "profile"])
    assert _errors(schema, manifest.render(BASE, sso=sso)) == []


@pytest.mark.parametrize("edit", [
    lambda x: x.replace('<Runtime resid="Rates.Page.Url" lifetime="long"/>', '<Runtime lifetime="long"/>'),
    lambda x: x.replace('lifetime="long"', 'lifetime="forever"'),
    lambda x: x.replace("<TaskpaneId>Rates.Taskpane</TaskpaneId>\n                    <SourceLocation resid=\"Rates.Page.Url\"/>",
                        "<SourceLocation resid=\"Rates.Page.Url\"/>\n                    <TaskpaneId>Rates.Taskpane</TaskpaneId>"),
    lambda x: x.replace("<Permissions>ReadWriteDocument</Permissions>", "<Permissions>Everything</Permissions>"),
    lambda x: x.replace("<ProviderName>", "<Provider>").replace("</ProviderName>", "</Provider>"),
])
def test_the_schema_refuses_a_broken_manifest(schema, edit):
    xml = manifest.render(BASE)
    broken = edit(xml)
    assert broken != xml
    assert _errors(schema, broken)


def test_the_task_pane_is_on_the_shared_runtime_and_a_button_opens_it():
    root = ET.fromstring(manifest.render(BASE).encode())
    ov, xsi, o = (f"{{{manifest.NS[k]}}}" for k in ("ov", "xsi", "o"))
    runtime = root.find(f".//{ov}Runtime")
    assert runtime.get("lifetime") == "long"
    buttons = [c for c in root.iter(f"{ov}Control") if c.get(f"{xsi}type") == "Button"]
    assert len(buttons) == 1
    action = buttons[0].find(f"{ov}Action")
    assert action.get(f"{xsi}type") == "ShowTaskpane"
    assert action.findtext(f"{ov}TaskpaneId") == manifest.TASKPANE_ID
    assert action.find(f"{ov}SourceLocation").get("resid") == runtime.get("resid")
    assert {s.get("Name"): s.get("MinVersion") for s in root.iter(f"{o}Set")} == {
        "SharedRuntime": "1.1", "CustomFunctionsRuntime": "1.2"}
