"""The add-in's Open XML package: the workbook (XlsxWriter: one empty sheet, code names
ThisWorkbook and Sheet1, no full recalculation on load) typed as a macro-enabled add-in, the
ribbon part related from the package root, `xl/vbaProject.bin`, written with fixed zip
timestamps and sorted parts (`package_xlam`); and the package read back and checked: parts,
content types, relationships (`check_package`).
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path, PurePosixPath

from rates_xl.addin.classic.build_sources import CheckResult, check_schema

CUSTOM_UI_PART = "customUI/customUI14.xml"


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
