"""`rates-xl addin build`: assemble rates_xl.xlam, and check everything Linux can check.

The add-in is xlwings' own ribbon add-in template (`quickstart_addin_ribbon.xlam`, shipped
in the xlwings wheel: it carries xlwings' VBA, RunPython included) with
- its ribbon replaced by ours: `customUI/customUI14.xml` (the Office 2010+ namespace),
  related from the package root with the 2007 ui/extensibility relationship type;
- our VBA module `RatesRibbon.bas` imported, the template's demo ribbon module removed,
  `PROJECT_NAME` pointed at "xlwings" (so the add-in reads `~/.xlwings/xlwings.conf`,
  the file `rates-xl addin install` writes) and the RATES_* UDF wrappers imported with
  xlwings' own generator. This VBA step needs Windows Excel with "Trust access to the VBA
  project object model" (see addin/README.md).

The package steps are plain zip/XML work, done and checked here on any OS; `--check` runs
them all into a temporary file and reports, writing nothing.
"""

from __future__ import annotations

import io
import re
import sys
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

HERE = Path(__file__).resolve().parent
CUSTOM_UI = HERE / "ribbon" / "customUI14.xml"
VBA_MODULE = HERE / "vba" / "RatesRibbon.bas"
TEMPLATE_NAME = "quickstart_addin_ribbon.xlam"
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
#: The template's config sheet: renamed to match PROJECT_NAME; the leading "_" keeps it
#: inactive, so the user config file (not a sheet inside the add-in) holds the settings.
TEMPLATE_CONFIG_SHEET = "_myaddin.conf"
CONFIG_SHEET = "_xlwings.conf"
REQUIRED_PARTS = ("[Content_Types].xml", "_rels/.rels", "xl/workbook.xml",
                  "xl/_rels/workbook.xml.rels", "xl/vbaProject.bin", CUSTOM_UI_PART)

_VBA_SUB = re.compile(
    r"^\s*(?:(?:Public|Private|Friend)\s+)?(?:Static\s+)?Sub\s+([A-Za-z][A-Za-z0-9_]*)\s*\(([^)]*)\)",
    re.IGNORECASE | re.MULTILINE,
)
_VB_NAME = re.compile(r'^Attribute\s+VB_Name\s*=\s*"([^"]+)"', re.MULTILINE)
_SAFE_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


class BuildError(Exception):
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


def ribbon_controls(xml: bytes | str) -> list[Control]:
    """Every element with an `id` in the customUI XML (tabs, groups, buttons)."""
    root = ET.fromstring(xml)
    controls = []
    for element in root.iter():
        if "id" in element.attrib:
            controls.append(Control(element.tag.rpartition("}")[2], element.attrib["id"],
                                    element.attrib.get("label"), element.attrib.get("onAction")))
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
        raise BuildError('the VBA module has no Attribute VB_Name = "..." line')
    subs = {m.group(1): m.group(2).strip() for m in _VBA_SUB.finditer(text)}
    return VbaModule(name.group(1), subs)


def runpython_commands(text: str) -> list[str]:
    """The Python command template of each RunPython call, VBA string syntax undone.

    `control.Id` concatenations become `{id}`: `"...on_action('" & control.Id & "')"`
    -> `...on_action('{id}')`.
    """
    commands = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("'") or not stripped.lower().startswith("runpython "):
            continue
        expression = stripped[len("RunPython "):]
        parts = re.split(r'\s*&\s*control\.Id\s*&\s*', expression, flags=re.IGNORECASE)
        pieces = []
        for part in parts:
            part = part.strip()
            if not (part.startswith('"') and part.endswith('"')):
                raise BuildError(f"cannot read the RunPython command: {stripped}")
            pieces.append(part[1:-1].replace('""', '"'))
        commands.append("{id}".join(pieces))
    return commands


def check_callbacks(xml: bytes | str, bas_text: str, result: CheckResult) -> None:
    """Every onAction names `Module.Sub` (or `Sub`) that exists in the .bas with one parameter."""
    module = parse_bas(bas_text)
    for control in buttons(xml):
        target = control.on_action or ""
        mod, _, sub = target.rpartition(".")
        params = module.subs.get(sub)
        ok = (mod in ("", module.name) and params is not None
              and re.fullmatch(r"(?:ByRef\s+|ByVal\s+)?\w+\s+As\s+IRibbonControl", params, re.I))
        result.check(bool(ok), f"{control.id}: onAction {target} is a Sub in {module.name}.bas",
                     f"{control.id}: onAction {target!r} is not a Sub(control As IRibbonControl) "
                     f"in module {module.name} (subs: {', '.join(module.subs) or 'none'})")
        result.check(bool(_SAFE_ID.match(control.id)), f"{control.id}: id is safe to pass to Python",
                     f"{control.id}: ids must be letters, digits and underscores")


def check_handlers(xml: bytes | str, result: CheckResult) -> None:
    from rates_xl.addin.classic.ribbon import ACTIONS

    ids = [c.id for c in buttons(xml)]
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
            raise BuildError(f"no schema at {option}")
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
        raise BuildError(f"cannot read the add-in sources: {exc}") from None
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
def find_template(option: str | None = None) -> Path:
    if option:
        path = Path(option)
        if not path.is_file():
            raise BuildError(f"no template at {option}")
        return path
    try:
        import xlwings
    except ImportError:
        raise BuildError("xlwings is not installed; pip install xlwings") from None
    path = Path(xlwings.__file__).parent / TEMPLATE_NAME
    if not path.is_file():
        raise BuildError(
            f"the xlwings wheel ({xlwings.__version__}) has no {TEMPLATE_NAME}; "
            "pass --template PATH to a ribbon add-in template"
        )
    return path


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


def assemble(template: bytes, custom_ui: bytes) -> bytes:
    """The template package with our ribbon in place of its own (VBA untouched)."""
    try:
        source = zipfile.ZipFile(io.BytesIO(template))
    except zipfile.BadZipFile:
        raise BuildError("the template is not an Office package (not a zip file)") from None
    with source:
        names = source.namelist()
        root_rels = read_rels(source.read("_rels/.rels"))
        old_ui = {_part(t) for _, typ, t in root_rels if typ in (REL_CUSTOM_UI_2006, REL_CUSTOM_UI_2007)}
        kept_rels = [r for r in root_rels if r[1] not in (REL_CUSTOM_UI_2006, REL_CUSTOM_UI_2007)]
        used = {r[0] for r in kept_rels}
        new_id = next(f"rId{n}" for n in range(1, 1000) if f"rId{n}" not in used)
        kept_rels.append((new_id, REL_CUSTOM_UI_2007, CUSTOM_UI_PART))

        dropped = old_ui | {_rels_of(p) for p in old_ui} | {CUSTOM_UI_PART}
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
            target.writestr("[Content_Types].xml", _content_types(source.read("[Content_Types].xml"), dropped))
            target.writestr("_rels/.rels", _rels(kept_rels))
            for name in names:
                if name in dropped or name in ("[Content_Types].xml", "_rels/.rels"):
                    continue
                data = source.read(name)
                if name == "xl/workbook.xml":
                    data = data.replace(f'name="{TEMPLATE_CONFIG_SHEET}"'.encode(),
                                        f'name="{CONFIG_SHEET}"'.encode())
                target.writestr(name, data)
            target.writestr(CUSTOM_UI_PART, custom_ui)
    return out.getvalue()


def _part(target: str) -> str:
    return str(PurePosixPath(target.lstrip("/")))


def _rels_of(part: str) -> str:
    path = PurePosixPath(part)
    return str(path.parent / "_rels" / (path.name + ".rels"))


def _content_types(data: bytes, dropped: set[str]) -> bytes:
    ET.register_namespace("", NS_TYPES)
    root = ET.fromstring(data)
    for override in list(root.findall(f"{{{NS_TYPES}}}Override")):
        if override.get("PartName", "").lstrip("/") in dropped:
            root.remove(override)
    defaults = {d.get("Extension", "").lower(): d.get("ContentType")
                for d in root.findall(f"{{{NS_TYPES}}}Default")}
    if defaults.get("xml") != XML_TYPE:
        ET.SubElement(root, f"{{{NS_TYPES}}}Override", PartName=f"/{CUSTOM_UI_PART}", ContentType=XML_TYPE)
    return _xml(root)


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
            result.check(f'name="{CONFIG_SHEET}"'.encode() in workbook,
                         f"config sheet is {CONFIG_SHEET} (inactive)",
                         f"the add-in's config sheet is not {CONFIG_SHEET}")


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
    result.check(overrides.get("xl/vbaProject.bin") == VBA_TYPE, "xl/vbaProject.bin typed as VBA",
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
def run_checks(schema: Path | None, template: Path) -> tuple[CheckResult, bytes]:
    """Every check that runs without Excel; returns the results and the assembled package."""
    result = CheckResult()
    custom_ui, _ = check_sources(schema, result)
    try:
        package = assemble(template.read_bytes(), custom_ui)
    except (KeyError, ET.ParseError) as exc:
        raise BuildError(f"the template {template.name} is not a usable add-in package: {exc}") from None
    check_package(package, custom_ui, schema, result)
    return result, package


def import_vba(xlam: Path, bas: Path = VBA_MODULE) -> list[str]:
    """Windows Excel only: put our VBA into the assembled add-in and save it.

    Needs Excel's Trust Center > Macro Settings > "Trust access to the VBA project object
    model". Returns what it did, line by line.
    """
    if not sys.platform.startswith("win"):
        raise BuildError(
            "importing the VBA module needs Windows Excel; on this machine run "
            "`rates-xl addin build --check`, or `rates-xl addin build --no-vba` to write the "
            "package and finish it on Windows (addin/README.md)"
        )
    import xlwings as xw  # pragma: no cover - Windows Excel only
    from xlwings import udfs  # pragma: no cover

    done = []  # pragma: no cover
    with xw.App(visible=False, add_book=False) as app:  # pragma: no cover
        book = app.books.open(str(xlam))
        try:
            project = book.api.VBProject
            components = project.VBComponents
        except Exception:
            raise BuildError(
                "Excel refused access to the VBA project: enable File > Options > Trust Center "
                "> Trust Center Settings > Macro Settings > 'Trust access to the VBA project "
                "object model', then run the build again"
            ) from None
        for name in ("RibbonMyAddin", "RatesRibbon"):
            try:
                components.Remove(components(name))
                done.append(f"removed VBA module {name}")
            except Exception:
                pass
        components.Import(str(bas))
        done.append(f"imported {bas.name}")
        module = components("xlwings").CodeModule
        for line_no in range(1, module.CountOfLines + 1):
            if module.Lines(line_no, 1).strip().startswith("Public Const PROJECT_NAME"):
                module.ReplaceLine(line_no, 'Public Const PROJECT_NAME As String = "xlwings"')
                done.append('set PROJECT_NAME = "xlwings" (reads ~/.xlwings/xlwings.conf)')
                break
        else:
            raise BuildError("the template's xlwings module has no PROJECT_NAME constant")
        project.Name = "rates_xl"
        udfs.import_udfs("rates_xl.addin.classic.udfs", book.api)
        done.append("imported the RATES_* UDF wrappers (module xlwings_udfs)")
        book.save()
        book.close()
    return done  # pragma: no cover
