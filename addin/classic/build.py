"""`rates-xl addin build`: write rates_xl.xlam from source, on any OS, without Excel.

The add-in is an Open XML package written here:
- the workbook (XlsxWriter: one empty sheet, code names ThisWorkbook and Sheet1, no full
  recalculation on load), its main part typed as a macro-enabled *add-in*;
- the ribbon, `customUI/customUI14.xml` (the Office 2010+ namespace), related from the
  package root with the 2007 ui/extensibility relationship type;
- `xl/vbaProject.bin`, written from source by `vbaproject.build_vba_project` (no Excel, no
  "Trust access to the VBA project object model"): the modules of `vba.project_modules()`,
  i.e. the installed xlwings' VBA with our fixes, the ribbon callback and the RATES_* wrappers
  of xlwings' own generator. Excel compiles the source when it first loads the add-in.

The same sources give the same bytes: fixed zip timestamps, sorted parts, ids derived from
the sources. `build_checked()` also runs every check below (schema, callbacks, handlers,
package parts, content types, relationships); `--check` runs them and writes nothing.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from rates_xl.errors import TaskError

HERE = Path(__file__).resolve().parent
CUSTOM_UI = HERE / "ribbon" / "customUI14.xml"
VBA_MODULE = HERE / "vba" / "RatesRibbon.bas"
#: Where the schema lives relative to a clone: `<repo>/../shared/schemas/customui14.xsd`.
REPO_SCHEMA = HERE.parents[2] / "shared" / "schemas" / "customui14.xsd"
ENV_SCHEMA = "RATES_XL_CUSTOMUI_XSD"

CUSTOM_UI_PART = "customUI/customUI14.xml"
CUSTOM_UI_NS = "http://schemas.microsoft.com/office/2009/07/customui"
# MS-OI29500 3.4.1.3/3.4.1.4: customUI.xml (2006 namespace) and customUI14.xml (2009/07).
REL_CUSTOM_UI_2006 = "http://schemas.microsoft.com/office/2006/relationships/ui/extensibility"
REL_CUSTOM_UI_2007 = "http://schemas.microsoft.com/office/2007/relationships/ui/extensibility"
REL_OFFICE_DOCUMENT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
REL_VBA_PROJECT = "http://schemas.microsoft.com/office/2006/relationships/vbaProject"
NS_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
NS_TYPES = "http://schemas.openxmlformats.org/package/2006/content-types"
ADDIN_MAIN_TYPE = "application/vnd.ms-excel.addin.macroEnabled.main+xml"
VBA_TYPE = "application/vnd.ms-office.vbaProject"
XML_TYPE = "application/xml"
#: Every zip entry carries this date: the same sources give the same bytes.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
#: Excel 365's calculation engine id: a file stamped with an older id is fully recalculated
#: on open.
CALC_ID = 191029
REQUIRED_PARTS = ("[Content_Types].xml", "_rels/.rels", "xl/workbook.xml",
                  "xl/_rels/workbook.xml.rels", "xl/vbaProject.bin", CUSTOM_UI_PART)

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
    import os

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


# -- the package ------------------------------------------------------------------------------
def _rels(entries: list[tuple[str, str, str]]) -> bytes:
    ET.register_namespace("", NS_RELS)
    root = ET.Element(f"{{{NS_RELS}}}Relationships")
    for rel_id, rel_type, target in entries:
        ET.SubElement(root, f"{{{NS_RELS}}}Relationship", Id=rel_id, Type=rel_type, Target=target)
    return _xml(root)


def _xml(root: ET.Element) -> bytes:
    return b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n' + ET.tostring(root)


def read_rels(data: bytes, internal_only: bool = False) -> list[tuple[str, str, str]]:
    """(Id, Type, Target) of each relationship; `internal_only` leaves out external links."""
    root = ET.fromstring(data)
    return [(r.get("Id", ""), r.get("Type", ""), r.get("Target", ""))
            for r in root.iter(f"{{{NS_RELS}}}Relationship")
            if not (internal_only and r.get("TargetMode") == "External")]


def _workbook(vba_project: bytes) -> dict[str, bytes]:
    """The parts of a one-sheet macro workbook holding `vba_project`, written by XlsxWriter."""
    import datetime

    import xlsxwriter

    from rates_xl.addin.classic.vba import SHEET_CODENAME, WORKBOOK_CODENAME

    buffer = io.BytesIO()
    book = xlsxwriter.Workbook(buffer, {"in_memory": True})
    book.set_vba_name(WORKBOOK_CODENAME)
    sheet = book.add_worksheet("rates_xl")
    sheet.set_vba_name(SHEET_CODENAME)
    sheet.write("A1", "rates-xl add-in: the RATES_ functions and the Rates tab. Settings: "
                      "%USERPROFILE%\\.rates_xl\\rates_xl.conf")
    book.add_vba_project(io.BytesIO(vba_project), is_stream=True)
    book.set_properties({"title": "rates-xl", "created": datetime.datetime(2000, 1, 1)})
    book.calc_on_load = False  # nothing to calculate; never a full recalculation on load
    book.set_calc_mode("auto", calc_id=CALC_ID)
    book.close()
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as package:
        return {name: package.read(name) for name in package.namelist()}


def _as_addin(content_types: bytes) -> bytes:
    """Type the workbook part as an add-in and the VBA project explicitly."""
    ET.register_namespace("", NS_TYPES)
    root = ET.fromstring(content_types)
    for override in root.findall(f"{{{NS_TYPES}}}Override"):
        if override.get("PartName") == "/xl/workbook.xml":
            override.set("ContentType", ADDIN_MAIN_TYPE)
    ET.SubElement(root, f"{{{NS_TYPES}}}Override", PartName="/xl/vbaProject.bin", ContentType=VBA_TYPE)
    ET.SubElement(root, f"{{{NS_TYPES}}}Override", PartName=f"/{CUSTOM_UI_PART}", ContentType=XML_TYPE)
    return _xml(root)


def package_xlam(vba_project: bytes, custom_ui: bytes) -> bytes:
    """The .xlam: the workbook as an add-in, its VBA project, the ribbon; deterministic."""
    parts = _workbook(vba_project)
    parts["[Content_Types].xml"] = _as_addin(parts["[Content_Types].xml"])
    root_rels = read_rels(parts["_rels/.rels"])
    used = {r[0] for r in root_rels}
    new_id = next(f"rId{n}" for n in range(1, 1000) if f"rId{n}" not in used)
    parts["_rels/.rels"] = _rels([*root_rels, (new_id, REL_CUSTOM_UI_2007, CUSTOM_UI_PART)])
    parts[CUSTOM_UI_PART] = custom_ui
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name in sorted(parts):  # "[Content_Types].xml" sorts first
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            target.writestr(info, parts[name])
    return out.getvalue()


def _part(target: str) -> str:
    return str(PurePosixPath(target.lstrip("/")))


def check_package(data: bytes, custom_ui: bytes, schema: Path | None, result: CheckResult) -> None:
    """Zip parts, content types, relationships (the customUI one included) of an .xlam."""
    try:
        package = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        result.problems.append("the add-in is not a zip package")
        return
    with package:
        bad = package.testzip()
        result.check(bad is None, "zip: every part reads back intact", f"zip: part {bad} is corrupt")
        names = set(package.namelist())
        for part in REQUIRED_PARTS:
            result.check(part in names, f"part {part} present", f"part {part} missing")
        if not {"[Content_Types].xml", "_rels/.rels"} <= names:
            return
        _check_content_types(package, names, result)
        _check_relationships(package, names, result)
        if CUSTOM_UI_PART in names:
            packaged = package.read(CUSTOM_UI_PART)
            result.check(packaged == custom_ui, f"{CUSTOM_UI_PART} is our customUI14.xml",
                         f"{CUSTOM_UI_PART} differs from addin/ribbon/customUI14.xml")
            check_schema(packaged, schema, result, CUSTOM_UI_PART)
        result.check("customUI/customUI.xml" not in names,
                     "no leftover 2006 customUI.xml (it would add the template's tab)",
                     "customUI/customUI.xml is still in the package")
        if "xl/workbook.xml" in names:
            workbook = package.read("xl/workbook.xml")
            result.check(b'codeName="ThisWorkbook"' in workbook,
                         "workbook code name ThisWorkbook (its document module)",
                         "xl/workbook.xml must carry codeName ThisWorkbook")
            result.check(b"fullCalcOnLoad" not in workbook, "no full recalculation on load",
                         "xl/workbook.xml asks for a full recalculation on load")


def _check_content_types(package: zipfile.ZipFile, names: set[str], result: CheckResult) -> None:
    root = ET.fromstring(package.read("[Content_Types].xml"))
    defaults = {d.get("Extension", "").lower(): d.get("ContentType")
                for d in root.findall(f"{{{NS_TYPES}}}Default")}
    overrides = {o.get("PartName", "").lstrip("/"): o.get("ContentType")
                 for o in root.findall(f"{{{NS_TYPES}}}Override")}
    for name in sorted(names):
        if name == "[Content_Types].xml" or name.endswith("/"):
            continue
        extension = name.rpartition("/")[2].rpartition(".")[2].lower()
        typed = name in overrides or extension in defaults
        result.check(typed, f"content type for {name}", f"no content type for part {name}")
    for part in overrides:
        result.check(part in names, f"override {part} names a part",
                     f"[Content_Types].xml overrides missing part {part}")
    result.check(overrides.get("xl/workbook.xml") == ADDIN_MAIN_TYPE,
                 "xl/workbook.xml is a macro-enabled add-in",
                 f"xl/workbook.xml must have content type {ADDIN_MAIN_TYPE}")
    result.check(overrides.get("xl/vbaProject.bin", defaults.get("bin")) == VBA_TYPE,
                 "xl/vbaProject.bin typed as VBA",
                 f"xl/vbaProject.bin must have content type {VBA_TYPE}")
    ui_type = overrides.get(CUSTOM_UI_PART, defaults.get("xml"))
    result.check(ui_type == XML_TYPE, f"{CUSTOM_UI_PART} typed {XML_TYPE}",
                 f"{CUSTOM_UI_PART} must have content type {XML_TYPE}, not {ui_type}")


def _check_relationships(package: zipfile.ZipFile, names: set[str], result: CheckResult) -> None:
    for rels_name in sorted(n for n in names if n.endswith(".rels")):
        rels = read_rels(package.read(rels_name))
        ids = [r[0] for r in rels]
        internal = read_rels(package.read(rels_name), internal_only=True)
        result.check(len(ids) == len(set(ids)), f"{rels_name}: ids unique",
                     f"{rels_name}: duplicate relationship ids")
        source_dir = PurePosixPath(rels_name).parent.parent
        for _, _type, target in internal:
            resolved = _part(target) if target.startswith("/") else _resolve(source_dir, target)
            result.check(resolved in names, f"{rels_name}: {target} exists",
                         f"{rels_name}: relationship to missing part {target}")
    root = read_rels(package.read("_rels/.rels"))
    ui = [t for _, typ, t in root if typ == REL_CUSTOM_UI_2007]
    result.check(ui == [CUSTOM_UI_PART] or ui == [f"/{CUSTOM_UI_PART}"],
                 f"_rels/.rels relates {CUSTOM_UI_PART} as ui/extensibility (2007 type)",
                 f"_rels/.rels must relate {CUSTOM_UI_PART} with type {REL_CUSTOM_UI_2007} once; got {ui}")
    result.check(not [t for _, typ, t in root if typ == REL_CUSTOM_UI_2006],
                 "no 2006 customUI relationship left",
                 "_rels/.rels still has a 2006 customUI relationship")
    result.check([_part(t) for _, typ, t in root if typ == REL_OFFICE_DOCUMENT] == ["xl/workbook.xml"],
                 "_rels/.rels: officeDocument is xl/workbook.xml",
                 "_rels/.rels must relate xl/workbook.xml as the officeDocument")
    if "xl/_rels/workbook.xml.rels" in names:
        wb_rels = read_rels(package.read("xl/_rels/workbook.xml.rels"))
        result.check(any(typ == REL_VBA_PROJECT and _resolve(PurePosixPath("xl"), t) == "xl/vbaProject.bin"
                         for _, typ, t in wb_rels),
                     "workbook relates its VBA project",
                     "xl/_rels/workbook.xml.rels has no vbaProject relationship")


def _resolve(base: PurePosixPath, target: str) -> str:
    parts: list[str] = []
    for piece in (base / target).parts:
        if piece == "..":
            if parts:
                parts.pop()
        elif piece not in (".", ""):
            parts.append(piece)
    return "/".join(parts)


# -- the whole build --------------------------------------------------------------------------
@dataclass(frozen=True)
class Build:
    """A built add-in: its bytes, the modules in its VBA project and the checks' results."""

    xlam: bytes
    modules: list  # list[vbaproject.Module]
    result: CheckResult
    xlwings_version: str

    @property
    def dlls(self) -> set[str]:
        from rates_xl.addin.classic.vba import declared_dlls

        return declared_dlls(next(m.source for m in self.modules if m.name == "xlwings"))


def build_xlam(modules=None, custom_ui: bytes | None = None) -> tuple[bytes, list]:
    """The add-in's bytes and its modules (default: `vba.project_modules()`, our ribbon)."""
    from rates_xl.addin.classic import vba, vbaproject

    try:
        modules = vba.project_modules() if modules is None else modules
    except vba.VbaSourceError as exc:
        raise AddinBuildError(str(exc)) from None
    except (RuntimeError, OSError) as exc:
        raise AddinBuildError(f"cannot generate the UDF wrappers: {exc}") from None
    custom_ui = CUSTOM_UI.read_bytes() if custom_ui is None else custom_ui
    project = vbaproject.build_vba_project(vba.PROJECT_NAME, modules)
    return package_xlam(project, custom_ui), modules


def build_checked(schema: Path | None) -> Build:
    """Build the add-in and run every check; `result.ok` says whether it may be written."""
    import xlwings

    result = CheckResult()
    custom_ui, _ = check_sources(schema, result)
    xlam, modules = build_xlam(custom_ui=custom_ui)
    check_package(xlam, custom_ui, schema, result)
    check_vba(xlam, modules, custom_ui, result)
    return Build(xlam, modules, result, xlwings.__version__)


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


def check_vba(xlam: bytes, modules, custom_ui: bytes, result: CheckResult) -> None:
    """The VBA project read back from the package: modules, callbacks, the fixed defects."""
    from rates_xl.addin.classic import vbaproject

    with zipfile.ZipFile(io.BytesIO(xlam)) as package:
        project = package.read("xl/vbaProject.bin")
    streams = read_compound_file(project)
    for module in modules:
        stream = streams.get(f"VBA/{module.name}")
        ok = stream is not None and vbaproject.decompress(stream) == module.source_bytes()
        result.check(ok, f"VBA module {module.name} reads back (source only, CRLF)",
                     f"VBA module {module.name} does not read back from vbaProject.bin")
    result.check(streams.get("VBA/_VBA_PROJECT", b"")[2:4] == b"\xff\xff",
                 "_VBA_PROJECT version 0xFFFF: Excel compiles the source",
                 "_VBA_PROJECT must have version 0xFFFF (no performance cache)")
    ribbon = next(m for m in modules if m.name == "RatesRibbon")
    check_callbacks(custom_ui, ribbon.source, result)
    check_start(custom_ui, modules, result)


def read_compound_file(data: bytes) -> dict[str, bytes]:
    """Every stream of a compound file by path ("VBA/dir"), read with olefile (strict: any
    structural defect it knows of is an error)."""
    import olefile

    with olefile.OleFileIO(io.BytesIO(data), raise_defects=olefile.DEFECT_INCORRECT) as ole:
        return {"/".join(path): ole.openstream(path).read() for path in ole.listdir()}
