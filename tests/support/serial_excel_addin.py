"""Excel opening an add-in, for the serial stand-in: what runs when `rates_xl.xlam` loads.

The built file is read the way no code of ours writes it: the package with `zipfile`, the
ribbon part found through the package's relationships, the VBA modules extracted by
oletools' olevba (an independent reader of MS-OVBA). Then Excel's documented start is played:

- **Workbook_Open** in the workbook's document module runs when the workbook opens with
  macros enabled (MS excel.workbook.open: "Occurs when the workbook is opened"), and
  **Auto_Open** in a standard module when Excel itself opens the file (MS
  excel.workbook.runautomacros: Auto_Open runs when the file is opened by the user, not by
  `Workbooks.Open`; XLSTART files are opened by Excel). Either is an auto-run procedure:
  oletools' mraptor counts it as "AutoExec" (`auto_run` lists them).
- Excel loads the customUI part and calls the callback its `onLoad` names with the ribbon's
  IRibbonUI: "When the host application starts, the onLoad callback procedure is called"
  (MS office.iribbonui). Callbacks are "Module.Procedure" or "Procedure".

The procedures reached are *run* by a deliberately tiny interpreter of the statements the
add-in's start-up uses (a call of another procedure, `On Error`, `ReDim`, an array element
set to a string, `Application.MacroOptions`, keeping the ribbon: `Set RatesUI = ribbon`); anything else stops with `Unmodelled`, so the
model never claims a start-up it cannot follow. `Application.MacroOptions` records what the
Function Wizard will show for a function (MS excel.application.macrooptions: Description,
Category, ArgumentDescriptions).
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass, field
from typing import Any
from xml.etree import ElementTree

RIBBON_2007 = "http://schemas.microsoft.com/office/2006/relationships/ui/extensibility"
RIBBON_2010 = "http://schemas.microsoft.com/office/2007/relationships/ui/extensibility"
_RELS = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"
# Procedures Excel runs by itself (see the module's notes).
_AUTO_RUN = re.compile(r"^(?:Workbook_Open|Auto_Open)$", re.IGNORECASE)
_PROCEDURE = re.compile(
    r"^[ \t]*(?:(?:Public|Private|Friend)\s+)?(?:Static\s+)?(Sub|Function)\s+(\w+)\s*\((.*?)\)[^\n]*\n"
    r"(.*?)^[ \t]*End\s+\1\b", re.MULTILINE | re.DOTALL | re.IGNORECASE)
_STRING = r'"(?:[^"]|"")*"'
# Application.OnTime Now, "'" & ThisWorkbook.Name & "'!Procedure": the add-in's own procedure.
_ON_TIME = r"Application\.OnTime\s+Now\s*,\s*\"'\"\s*&\s*ThisWorkbook\.Name\s*&\s*\"'!(\w+)\""


class Unmodelled(Exception):
    """A statement the stand-in cannot run: the model must grow before it claims this start."""


@dataclass
class LoadedAddIn:
    name: str
    modules: dict[str, str]  # module name -> code, as olevba extracted it
    ribbon_xml: bytes | None
    on_load: str | None  # the customUI's onLoad callback, as written
    auto_run: list[str] = field(default_factory=list)  # "Module.Procedure" Excel ran by itself
    ran: list[str] = field(default_factory=list)  # every procedure run, in order
    #: Application.MacroOptions as the Function Wizard keeps them: function -> options.
    macro_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Procedures scheduled with Application.OnTime (run when Excel is Ready: MS
    #: excel.application.ontime), as "Module.Procedure".
    scheduled: list[str] = field(default_factory=list)
    #: The module variable onLoad kept the ribbon in (None: it kept none).
    ribbon_kept_in: str | None = None

    def procedure(self, target: str) -> tuple[str, str, str, str]:
        """(module, name, parameters, body) of "Module.Name" or "Name"."""
        module_name, _, name = target.rpartition(".")
        for module, code in self.modules.items():
            if module_name and module.casefold() != module_name.casefold():
                continue
            for m in _PROCEDURE.finditer(code.replace("\r\n", "\n")):
                if m.group(2).casefold() == name.casefold():
                    return module, m.group(2), m.group(3), m.group(4)
        raise Unmodelled(f"no procedure {target} in the add-in's VBA: Excel would say it cannot run the macro")


def read_addin(data: bytes, name: str = "rates_xl.xlam") -> LoadedAddIn:
    """The add-in's ribbon part and VBA modules, read as described above (nothing run)."""
    from oletools import olevba

    with zipfile.ZipFile(io.BytesIO(data)) as package:
        rels = ElementTree.fromstring(package.read("_rels/.rels"))
        ribbon_part = next((r.attrib["Target"].lstrip("/") for r in rels.iter(_RELS)
                            if r.attrib.get("Type") in (RIBBON_2007, RIBBON_2010)), None)
        ribbon = package.read(ribbon_part) if ribbon_part else None
    parser = olevba.VBA_Parser(name, data=data)
    try:
        modules = {stream.rpartition("/")[2]: code for _, stream, _, code in parser.extract_macros()}
    finally:
        parser.close()
    on_load = ElementTree.fromstring(ribbon).attrib.get("onLoad") if ribbon else None
    return LoadedAddIn(name, modules, ribbon, on_load)


def open_addin(data: bytes, name: str = "rates_xl.xlam") -> LoadedAddIn:
    """Excel opening the add-in (XLSTART, macros enabled): auto-run procedures, then onLoad."""
    addin = read_addin(data, name)
    for module, code in addin.modules.items():
        for m in _PROCEDURE.finditer(code.replace("\r\n", "\n")):
            if _AUTO_RUN.match(m.group(2)):
                addin.auto_run.append(f"{module}.{m.group(2)}")
                run(addin, f"{module}.{m.group(2)}")
    if addin.on_load:
        module, proc, params, _ = addin.procedure(addin.on_load)
        if not re.fullmatch(r"\s*(?:ByVal\s+|ByRef\s+)?\w+\s+As\s+IRibbonUI\s*", params, re.IGNORECASE):
            # Office passes one IRibbonUI; another signature fails to load the callback.
            raise Unmodelled(f"onLoad {addin.on_load} takes ({params}), not (ribbon As IRibbonUI)")
        run(addin, f"{module}.{proc}")
    return addin


def run(addin: LoadedAddIn, target: str, depth: int = 0) -> None:
    """Run one procedure of the add-in with the tiny interpreter (see the module's notes)."""
    if depth > 20:
        raise Unmodelled(f"{target}: calls nested too deep")
    module, name, _, body = addin.procedure(target)
    addin.ran.append(f"{module}.{name}")
    arrays: dict[str, dict[int, str]] = {}
    for statement in _statements(body):
        lowered = statement.casefold()
        if lowered.startswith(("on error ", "dim ", "option ")):
            continue
        if m := re.fullmatch(r"ReDim\s+(\w+)\s*\(\s*0\s+To\s+(\d+)\s*\)", statement, re.IGNORECASE):
            arrays[m[1].casefold()] = {}
            continue
        if m := re.fullmatch(rf"(\w+)\((\d+)\)\s*=\s*({_STRING})", statement):
            arrays.setdefault(m[1].casefold(), {})[int(m[2])] = _unquote(m[3])
            continue
        if statement.startswith("Application.MacroOptions "):
            _macro_options(addin, statement, arrays)
            continue
        if m := re.fullmatch(_ON_TIME, statement):
            # The add-in's own procedure, to run once Excel is Ready (not run here: it is
            # RunPython, whose Python the tests call directly).
            procedure_module, procedure, _, _ = addin.procedure(m[1])
            addin.scheduled.append(f"{procedure_module}.{procedure}")
            continue
        if m := re.fullmatch(r"Set\s+(\w+)\s*=\s*ribbon", statement, re.IGNORECASE):
            # onLoad keeps the IRibbonUI Office hands it, to redraw a control later
            # (IRibbonUI.InvalidateControl: MS office.iribbonui.invalidatecontrol).
            addin.ribbon_kept_in = m[1]
            continue
        if re.fullmatch(r"(?:Call\s+)?\w+", statement, re.IGNORECASE):
            run(addin, statement.split()[-1], depth + 1)
            continue
        raise Unmodelled(f"{module}.{name}: the stand-in does not run {statement!r}")


def _statements(body: str) -> list[str]:
    out = []
    for line in body.splitlines():
        code = re.match(rf"^((?:[^\"']|{_STRING})*)", line).group(1).strip()  # up to a comment
        if code and not code.startswith("#"):
            out.append(code)
    return out


def _unquote(text: str) -> str:
    return text[1:-1].replace('""', '"')


def _macro_options(addin: LoadedAddIn, statement: str, arrays: dict[str, dict[int, str]]) -> None:
    """Application.MacroOptions Macro:=..., Description:=..., Category:=..., ArgumentDescriptions:=arr."""
    options: dict[str, Any] = {}
    for m in re.finditer(rf"(\w+):=((?:{_STRING}|[^,\"])+?(?:\s*&\s*(?:{_STRING}|[\w.]+))*)(?=,\s*\w+:=|$)",
                         statement[len("Application.MacroOptions "):]):
        key, expression = m[1], m[2].strip()
        if key == "ArgumentDescriptions":
            described = arrays.get(expression.casefold())
            if described is None:
                raise Unmodelled(f"ArgumentDescriptions:={expression} is not an array set before")
            options[key] = [described[i] for i in sorted(described)]
        else:
            options[key] = "".join(_unquote(p) if p.startswith('"') else f"<{p}>"
                                   for p in re.findall(rf"{_STRING}|[\w.]+", expression))
    macro = options.get("Macro", "")
    # "'" & ThisWorkbook.Name & "'!RATES_SWAP": the add-in's own function.
    function = macro.rpartition("!")[2]
    if not macro.startswith("'<ThisWorkbook.Name>'!") or not function:
        raise Unmodelled(f"MacroOptions for a macro outside the add-in: {macro!r}")
    addin.macro_options[function] = options
