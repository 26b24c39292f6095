"""The ribbon's sources agree: schema-valid XML, a handler per button, a VBA Sub per onAction."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rates_xl.addin.classic import build_sources, ribbon

REPO_SCHEMA = Path(__file__).resolve().parents[2].parent / "shared" / "schemas" / "customui14.xsd"
#: ../shared beside the clone (CI), or $RATES_XL_CUSTOMUI_XSD (a worktree elsewhere).
SCHEMA = build_sources.find_schema() or REPO_SCHEMA
XML = build_sources.CUSTOM_UI.read_bytes()
BAS = build_sources.VBA_MODULE.read_text(encoding="utf-8")
TAB_BUTTONS = {"Refresh Selection", "Refresh Sheet", "Refresh Workbook", "Valuation Time", "Clear Cache",
               "Set API Key", "Explain Cell", "Status", "Templates", "Help", "Live", "Live Share", "Back to Market"}
#: Buttons whose label the add-in gives (getLabel): the Scenario button ("At Market", "SCENARIO ...").
DYNAMIC = {"rates_scenario": "RatesRibbon.RatesGetLabel"}

needs_schema = pytest.mark.skipif(
    not SCHEMA.is_file(),
    reason=f"customui14.xsd is kept outside the project and is absent here ({SCHEMA})",
)


def test_the_schema_is_found_relative_to_the_repository():
    assert build_sources.REPO_SCHEMA == REPO_SCHEMA


@needs_schema
def test_custom_ui_is_valid_against_customui14_xsd():
    result = build_sources.CheckResult()
    build_sources.check_schema(XML, SCHEMA, result, "customUI14.xml")
    assert result.ok, result.problems
    assert result.passed == ["customUI14.xml: valid against customui14.xsd"]


@needs_schema
@pytest.mark.parametrize("mutation", [
    (b'size="large"', b'size="huge"'),  # not an allowed size
    (b'<button id="rates_status"', b'<button id="rates status"'),  # an id must be an NCName
    (b"</group>", b"<knob id=\"x\"/></group>"),  # no such element
])
def test_the_schema_check_catches_invalid_ribbons(mutation):
    result = build_sources.CheckResult()
    build_sources.check_schema(XML.replace(*mutation, 1), SCHEMA, result, "customUI14.xml")
    assert not result.ok


def test_the_tab_has_the_buttons_users_expect():
    labels = {b.label for b in build_sources.buttons(XML) if b.get_label is None}
    assert labels == TAB_BUTTONS
    assert {b.id: b.get_label for b in build_sources.buttons(XML) if b.get_label is not None} == DYNAMIC
    tab = [c for c in build_sources.ribbon_controls(XML) if c.tag == "tab"]
    assert [t.label for t in tab] == ["Rates"]


def test_every_button_has_a_handler_and_every_handler_a_button():
    ids = [b.id for b in build_sources.buttons(XML)]
    assert len(ids) == len(set(ids))
    toggles = {b.id for b in build_sources.buttons(XML) if b.tag == "toggleButton"}
    assert toggles == {"rates_live"}
    handled = (set(ids) - toggles) | {t + state for t in toggles for state in ("_on", "_off")}
    assert handled | {ribbon.START_ACTION, ribbon.FILL_ACTION} == set(ribbon.ACTIONS)  # OnTime runs those
    result = build_sources.CheckResult()
    build_sources.check_handlers(XML, result)
    assert result.ok, result.problems


def test_every_on_action_names_a_sub_in_the_bas():
    module = build_sources.parse_bas(BAS)
    assert module.name == "RatesRibbon"
    for button in build_sources.buttons(XML):
        mod, _, sub = button.on_action.rpartition(".")
        assert mod == module.name and sub in module.subs, button
        assert "IRibbonControl" in module.subs[sub]
    result = build_sources.CheckResult()
    build_sources.check_callbacks(XML, BAS, result)
    assert result.ok, result.problems


ON_ACTION = b'onAction="RatesRibbon.RatesOnAction"'


@pytest.mark.parametrize("xml, bas", [
    (XML.replace(ON_ACTION, b'onAction="RatesRibbon.Missing"', 1), BAS),
    (XML.replace(ON_ACTION, b'onAction="OtherModule.RatesOnAction"', 1), BAS),
    (XML, BAS.replace("RatesOnAction(control As IRibbonControl)", "RatesOnAction()")),
    (XML, BAS.replace("Sub RatesOnAction", "Sub SomethingElse")),
    # The Live toggle's callback must take Office's `pressed` too (issue 21).
    (XML, BAS.replace("RatesOnToggle(control As IRibbonControl, pressed As Boolean)",
                      "RatesOnToggle(control As IRibbonControl)")),
    (XML.replace(b'onAction="RatesRibbon.RatesOnToggle"', ON_ACTION), BAS),
], ids=["unknown-sub", "other-module", "no-control-parameter", "renamed-sub", "toggle-without-pressed",
        "toggle-on-a-button-callback"])
def test_the_callback_check_catches_mismatches(xml, bas):
    result = build_sources.CheckResult()
    build_sources.check_callbacks(xml, bas, result)
    assert not result.ok


def test_a_bas_without_a_module_name_is_refused():
    with pytest.raises(build_sources.AddinBuildError, match="VB_Name"):
        build_sources.parse_bas("Sub X(control As IRibbonControl)\nEnd Sub\n")


def test_the_vba_hands_each_button_id_to_on_action(monkeypatch):
    """Run the exact Python command the VBA builds, for every button id."""
    commands = build_sources.runpython_commands(BAS)
    # RatesOnAction and RatesOnToggle run the same statement; RatesStart its own, fixed one.
    fixed = {f"import rates_xl.addin.classic.ribbon as r; r.on_action('{a}')"
             for a in (ribbon.START_ACTION, ribbon.FILL_ACTION)}
    assert fixed <= set(commands)
    commands = [c for c in commands if c not in fixed]
    assert len(set(commands)) == 1
    called = []
    monkeypatch.setattr(ribbon, "on_action", lambda control_id: called.append(control_id))
    ids = []
    for button in build_sources.buttons(XML):
        # The toggle's Sub appends "_on" or "_off" to its id (RatesOnToggle).
        ids += [button.id + "_on", button.id + "_off"] if button.tag == "toggleButton" else [button.id]
    for control_id in ids:
        source = commands[0].format(id=control_id)
        assert '"' not in source  # RunPython's command line wraps the command in double quotes
        exec(compile(ast.parse(source), "<RunPython>", "exec"), {})
    assert called == ids and set(ids) | {ribbon.START_ACTION, ribbon.FILL_ACTION} == set(ribbon.ACTIONS)
