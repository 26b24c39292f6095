"""The add-in's sources, read and checked before anything is built: the ribbon
(`ribbon/customUI14.xml`) against Microsoft's customUI14 schema, its callbacks against the
VBA (`vba/RatesRibbon.bas`), its buttons against the Python handlers (`ribbon.ACTIONS`), the
RunPython commands, and the start from the ribbon's onLoad with no auto-run procedure.
Each check adds to one `CheckResult`; `build.py` runs them all.
"""

from __future__ import annotations

import io
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from rates_xl.errors import TaskError

HERE = Path(__file__).resolve().parent


CUSTOM_UI = HERE / "ribbon" / "customUI14.xml"


VBA_MODULE = HERE / "vba" / "RatesRibbon.bas"


#: Where the schema lives relative to a clone: `<repo>/../shared/schemas/customui14.xsd`.
REPO_SCHEMA = HERE.parents[2] / "shared" / "schemas" / "customui14.xsd"


ENV_SCHEMA = "RATES_XL_CUSTOMUI_XSD"


CUSTOM_UI_NS = "http://schemas.microsoft.com/office/2009/07/customui"


_VBA_SUB = re.compile(
    r"^\s*(?:(?:Public|Private|Friend)\s+)?(?:Static\s+)?Sub\s+([A-Za-z][A-Za-z0-9_]*)\s*\(([^)]*)\)",
    re.IGNORECASE | re.MULTILINE,
)


_VB_NAME = re.compile(r'^Attribute\s+VB_Name\s*=\s*"([^"]+)"', re.MULTILINE)


_SAFE_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


#: Procedures Excel runs by themselves when a file opens or closes (Workbook and Auto_ events):
#: the add-in has none; it starts from the ribbon's onLoad (check_start).
_AUTO_RUN = re.compile(r"^\s*(?:(?:Public|Private)\s+)?Sub\s+(Auto_?(?:Open|Close|Exec|Exit|New)"
                       r"|Workbook_\w+|Document_\w+)\b", re.IGNORECASE | re.MULTILINE)


class AddinBuildError(TaskError):
    """A build problem the user can fix."""


@dataclass
class CheckResult:
    """Each check's outcome, for the console and the tests."""

    passed: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def check(self, condition: bool, passed: str, problem: str) -> bool:
        (self.passed if condition else self.problems).append(passed if condition else problem)
        return condition


# -- the sources ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Control:
    tag: str
    id: str
    label: str | None
    on_action: str | None
    get_label: str | None = None  # a label the add-in changes (the Scenario button's)


def ribbon_controls(xml: bytes | str) -> list[Control]:
    """Every element with an `id` in the customUI XML (tabs, groups, buttons)."""
    root = ET.fromstring(xml)
    controls = []
    for element in root.iter():
        if "id" in element.attrib:
            controls.append(Control(element.tag.rpartition("}")[2], element.attrib["id"],
                                    element.attrib.get("label"), element.attrib.get("onAction"),
                                    element.attrib.get("getLabel")))
    return controls


def buttons(xml: bytes | str) -> list[Control]:
    return [c for c in ribbon_controls(xml) if c.on_action is not None]


@dataclass(frozen=True)
class VbaModule:
    name: str
    subs: dict[str, str]  # name -> parameter list


def parse_bas(text: str) -> VbaModule:
    name = _VB_NAME.search(text)
    if not name:
        raise AddinBuildError('the VBA module has no Attribute VB_Name = "..." line')
    subs = {m.group(1): m.group(2).strip() for m in _VBA_SUB.finditer(text)}
    return VbaModule(name.group(1), subs)


def runpython_commands(text: str) -> list[str]:
    """The Python command template of each RunPython call, VBA string syntax undone.

    `control.Id` (or `id`) concatenations become `{id}`: `"...on_action('" & id & "')"`
    -> `...on_action('{id}')`.
    """
    commands = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("'") or not stripped.lower().startswith("runpython "):
            continue
        expression = stripped[len("RunPython "):]
        parts = re.split(r'\s*&\s*(?:control\.Id|id)\s*&\s*', expression, flags=re.IGNORECASE)
        pieces = []
        for part in parts:
            part = part.strip()
            if not (part.startswith('"') and part.endswith('"')):
                raise AddinBuildError(f"cannot read the RunPython command: {stripped}")
            pieces.append(part[1:-1].replace('""', '"'))
        commands.append("{id}".join(pieces))
    return commands


def check_callbacks(xml: bytes | str, bas_text: str, result: CheckResult) -> None:
    """Every onAction names `Module.Sub` (or `Sub`) that exists in the .bas with the
    parameters Office passes: (control As IRibbonControl) for a button,
    (control As IRibbonControl, pressed As Boolean) for a toggleButton."""
    module = parse_bas(bas_text)
    control_param = r"(?:ByRef\s+|ByVal\s+)?\w+\s+As\s+IRibbonControl"
    pressed_param = r"\s*,\s*(?:ByRef\s+|ByVal\s+)?\w+\s+As\s+Boolean"
    for control in buttons(xml):
        target = control.on_action or ""
        mod, _, sub = target.rpartition(".")
        params = module.subs.get(sub)
        toggle = control.tag == "toggleButton"
        wanted = control_param + (pressed_param if toggle else "")
        shape = "Sub(control As IRibbonControl, pressed As Boolean)" if toggle else "Sub(control As IRibbonControl)"
        ok = (mod in ("", module.name) and params is not None and re.fullmatch(wanted, params, re.I))
        result.check(bool(ok), f"{control.id}: onAction {target} is a Sub in {module.name}.bas",
                     f"{control.id}: onAction {target!r} is not a {shape} "
                     f"in module {module.name} (subs: {', '.join(module.subs) or 'none'})")
        result.check(bool(_SAFE_ID.match(control.id)), f"{control.id}: id is safe to pass to Python",
                     f"{control.id}: ids must be letters, digits and underscores")
    # getLabel: Office asks Sub(control As IRibbonControl, ByRef returnedVal) for the label
    # (Microsoft, "Customizing the Office Fluent ribbon for developers", callback signatures).
    label_param = control_param + r"\s*,\s*ByRef\s+\w+(?:\s+As\s+\w+)?"
    for control in ribbon_controls(xml):
        if control.get_label is None:
            continue
        mod, _, sub = control.get_label.rpartition(".")
        params = module.subs.get(sub)
        ok = mod in ("", module.name) and params is not None and re.fullmatch(label_param, params, re.I)
        result.check(bool(ok), f"{control.id}: getLabel {control.get_label} is a Sub in {module.name}.bas",
                     f"{control.id}: getLabel {control.get_label!r} is not a Sub(control As IRibbonControl, "
                     f"ByRef label) in module {module.name}")


def check_handlers(xml: bytes | str, result: CheckResult) -> None:
    from rates_xl.addin.classic.ribbon import ACTIONS, FILL_ACTION, START_ACTION

    ids = [START_ACTION, FILL_ACTION]  # run by RatesStart and RatesFill, which OnTime schedules
    for control in buttons(xml):
        # A toggleButton's callback hands "<id>_on" or "<id>_off" (RatesRibbon.RatesOnToggle).
        ids += [control.id + "_on", control.id + "_off"] if control.tag == "toggleButton" else [control.id]
    for control_id in ids:
        result.check(control_id in ACTIONS, f"{control_id}: has a Python handler",
                     f"{control_id}: no handler in rates_xl.addin.classic.ribbon.ACTIONS")
    for control_id in ACTIONS:
        result.check(control_id in ids, f"handler {control_id}: has a button",
                     f"handler {control_id}: no button with that id in the ribbon")


def find_schema(option: str | None = None) -> Path | None:
    if option:
        if not Path(option).is_file():
            raise AddinBuildError(f"no schema at {option}")
        return Path(option)
    for candidate in (os.environ.get(ENV_SCHEMA), REPO_SCHEMA):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def check_schema(xml: bytes, schema: Path | None, result: CheckResult, label: str) -> None:
    if schema is None:
        result.skipped.append(
            f"{label}: not validated: customui14.xsd not found (looked for {REPO_SCHEMA}; "
            f"pass --schema or set {ENV_SCHEMA})"
        )
        return
    validator = _schema(str(schema))
    errors = list(validator.iter_errors(io.BytesIO(xml)))
    result.check(not errors, f"{label}: valid against {schema.name}",
                 f"{label}: not valid against {schema.name}: "
                 + "; ".join(f"{e.path}: {e.reason}" for e in errors[:5]))


_SCHEMAS: dict[str, object] = {}


def _schema(path: str):
    import xmlschema

    if path not in _SCHEMAS:
        _SCHEMAS[path] = xmlschema.XMLSchema(path)
    return _SCHEMAS[path]


def check_sources(schema: Path | None, result: CheckResult,
                  custom_ui: Path | None = None, bas: Path | None = None) -> tuple[bytes, str]:
    custom_ui, bas = custom_ui or CUSTOM_UI, bas or VBA_MODULE
    try:
        xml = custom_ui.read_bytes()
        bas_text = bas.read_text(encoding="utf-8")
    except OSError as exc:
        raise AddinBuildError(f"cannot read the add-in sources: {exc}") from None
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        result.problems.append(f"{custom_ui.name}: not well-formed XML: {exc}")
        return xml, bas_text
    result.check(root.tag == f"{{{CUSTOM_UI_NS}}}customUI",
                 f"{custom_ui.name}: customUI in the 2009/07 namespace",
                 f"{custom_ui.name}: root must be customUI in {CUSTOM_UI_NS}")
    check_schema(xml, schema, result, custom_ui.name)
    check_callbacks(xml, bas_text, result)
    check_handlers(xml, result)
    for command in runpython_commands(bas_text):
        _check_command(command, result)
    return xml, bas_text


def _check_command(command: str, result: CheckResult) -> None:
    import ast

    try:
        tree = ast.parse(command.format(id="rates_status"))
    except SyntaxError as exc:
        result.problems.append(f"RunPython command is not valid Python: {exc.msg}")
        return
    imports = [n for n in tree.body if isinstance(n, ast.Import)]
    calls = [n for n in tree.body if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)]
    ok = (len(imports) == 1 and imports[0].names[0].name == "rates_xl.addin.classic.ribbon"
          and len(calls) == 1 and isinstance(calls[0].value.func, ast.Attribute)
          and calls[0].value.func.attr == "on_action")
    result.check(ok, "RunPython command imports rates_xl.addin.classic.ribbon and calls on_action",
                 f"RunPython command does not call rates_xl.addin.classic.ribbon.on_action: {command}")


def check_start(xml: bytes | str, modules, result: CheckResult) -> None:
    """The add-in starts from the ribbon: customUI's onLoad names `RatesRibbon.RatesOnLoad`
    with the parameter Office passes, `(ribbon As IRibbonUI)` (Microsoft, office/vba/api/
    office.iribbonui: "When the host application starts, the onLoad callback procedure is
    called"); no module has a procedure Excel runs by itself on open or close."""
    root = ET.fromstring(xml)
    target = root.attrib.get("onLoad", "")
    mod, _, sub = target.rpartition(".")
    ribbon = next((m for m in modules if m.name == "RatesRibbon"), None)
    params = parse_bas(ribbon.source).subs.get(sub) if ribbon is not None else None
    wanted = r"(?:ByRef\s+|ByVal\s+)?\w+\s+As\s+IRibbonUI"
    result.check(mod in ("", "RatesRibbon") and params is not None and bool(re.fullmatch(wanted, params, re.I)),
                 f"customUI onLoad {target} is a Sub(ribbon As IRibbonUI) in RatesRibbon.bas",
                 f"customUI onLoad {target!r} must name a Sub(ribbon As IRibbonUI) of RatesRibbon")
    auto = sorted({f"{m.name}.{name}" for m in modules for name in _AUTO_RUN.findall(m.source)})
    result.check(not auto, "no procedure runs by itself when a file opens (the add-in starts from onLoad)",
                 f"auto-run procedures in the add-in's VBA: {', '.join(auto)}; start from the ribbon's onLoad")
