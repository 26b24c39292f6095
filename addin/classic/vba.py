r"""The add-in's VBA, as source: the xlwings module, the ribbon callback, the UDF wrappers.

`project_modules()` returns every module of the add-in's VBA project (the build writes them
into vbaProject.bin, source only):
- `xlwings`: the standard `xlwings.bas` of the *installed* xlwings (so it declares the DLL of
  that version), with the changes listed in `XLWINGS_PATCHES`: its own settings file
  (%USERPROFILE%\.rates_xl\rates_xl.conf: PROJECT_NAME "rates_xl"), read once per Excel
  session and never from a sheet or a folder; the UDF server's command line computed once
  (from ThisWorkbook, the add-in: one Python for every workbook); the DLL loaded once; no
  `sql` UDF. Every change is an exact replacement that fails the build, naming the xlwings
  version, if that xlwings no longer has the text it replaces.
- `RatesRibbon`: vba/RatesRibbon.bas, the ribbon's callback.
- `xlwings_udfs`: the RATES_* wrappers from xlwings' own generator, run headless (below),
  each answer routed through `RatesRtd.RatesAnswer` (rtd_vba.py: a waiting cell subscribes
  to the add-in's RTD server and shows #N/A).
- `RatesRtd`: that function (rtd_vba.py).
- `ThisWorkbook` and `Sheet1`: the empty document modules of the add-in's workbook.

xlwings' own VBA wrapper generator, run over `rates_xl.addin.classic.udfs`:

On Windows, "Import Functions" runs `xlwings.udfs.import_udfs`, which writes one VBA
Function per UDF into a module `xlwings_udfs` and registers each with
`Application.MacroOptions` (description, category, argument descriptions). That code
needs pywin32 and Excel. Here it runs unchanged on any platform: the three Windows-only
modules it imports (pythoncom, pywintypes, win32com.client) are stubbed, xlwings' real
decorators replace the inert Linux ones, and a small fake workbook records what Excel
would receive.

It runs in a child process (`python -m rates_xl.addin.classic.vba`), so the stubs never
leak into the caller. `export_udf_vba()` returns {"vba": text, "macro_options": [...]};
the tests snapshot it, and the add-in build can embed the module in the .xlam.
"""

from __future__ import annotations

import copy
import functools
import json
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

from rates_xl.addin.classic import vbaprune
from rates_xl.errors import Internal, TaskError

UDF_MODULE = "rates_xl.addin.classic.udfs"
HERE = Path(__file__).resolve().parent
RIBBON_BAS = HERE / "vba" / "RatesRibbon.bas"
PROJECT_NAME = "rates_xl"
#: The document modules' names, which the workbook's codeName attributes must repeat.
WORKBOOK_CODENAME = "ThisWorkbook"
SHEET_CODENAME = "Sheet1"


#: What the xlwings module keeps though no module names it: RatesReloadSettings, run by hand
#: (`Application.Run "RatesReloadSettings"` after editing the settings file), and the
#: XLWINGS_VERSION constant, which says which xlwings (and DLL) the add-in was built for.
XLWINGS_ENTRY_POINTS = ("RatesReloadSettings", "XLWINGS_VERSION")


class VbaSourceError(TaskError):
    """The installed xlwings' VBA does not look as the patches expect."""


def installed_xlwings_bas() -> tuple[str, str]:
    """(xlwings version, text of its standard xlwings.bas)."""
    import xlwings

    path = Path(xlwings.__file__).parent / "xlwings.bas"
    try:
        return xlwings.__version__, path.read_bytes().decode("cp1252")
    except OSError as exc:
        raise VbaSourceError(f"cannot read {path}: {exc}") from None


_SETTINGS = """
' rates-xl: the settings and the UDF server's start line, read once per Excel session.
Private mSettings As Collection
Private mXLPyCommand As String
Private mDllLoaded As Boolean

Public Sub RatesReloadSettings()
    ' rates-xl: forget the cached settings and command; the next call reads them again.
    Set mSettings = Nothing
    mXLPyCommand = ""
End Sub
"""

_GET_CONFIG = r"""Function GetConfig(configKey As String, Optional default As String = "", Optional source As String = "") As Variant
    ' rates-xl: one source only, the add-in's own file (GetConfigFilePath:
    ' %USERPROFILE%\.rates_xl\rates_xl.conf), read once per session: no sheet, no .conf beside
    ' a workbook, never xlwings.conf. `source` is kept for xlwings' callers and ignored.
    Dim value As String
    If mSettings Is Nothing Then LoadSettings
    On Error Resume Next
    value = mSettings(LCase$(configKey))
    If Err.Number <> 0 Then value = default
    On Error GoTo 0
    GetConfig = ExpandEnvironmentStrings(value)
End Function

Private Sub LoadSettings()
    ' "KEY","VALUE" lines; the first line of a key wins, as in xlwings' GetConfigFromFile.
    Dim path As String, key As String, value As String, handle As Integer
    Set mSettings = New Collection
    path = GetConfigFilePath()
    If Not FileExists(path) Then Exit Sub
    handle = FreeFile
    On Error GoTo Done
    Open path For Input As #handle
    Do While Not EOF(handle)
        Input #handle, key, value
        On Error Resume Next
        mSettings.Add value, LCase$(key)  ' a Collection refuses a second item with the same key
        On Error GoTo Done
    Loop
Done:
    Close #handle
End Sub
"""

_RUN_PYTHON = """Public Function RunPython(PythonCommand As String)
    ' rates-xl: always inside the UDF server, the Python that evaluates the RATES_ cells, so
    ' the ribbon's handlers act on its cache, rate limiter and key. xlwings' RunPython did
    ' that only with USE UDF SERVER = True (which `rates-xl addin install` writes) and
    ' otherwise started a console Python through cmd.exe and WScript.Shell, with a log file
    ' it deleted afterwards: none of that is kept. An error goes to the caller, RatesOnAction,
    ' which shows it.
    XLPy.SetAttr XLPy.Module("xlwings._xlwindows"), "BOOK_CALLER", ThisWorkbook
    XLPy.Exec PythonCommand
End Function"""

_XLPY_COMMAND = """Function XLPyCommand()
    ' rates-xl: computed once per session (RatesReloadSettings clears it): a call to a RATES_
    ' function reads no file. The command names ThisWorkbook (the add-in), so every workbook
    ' shares one UDF server: one cache, one rate limiter, one key.
    If mXLPyCommand = "" Then mXLPyCommand = BuildXLPyCommand()
    XLPyCommand = mXLPyCommand
End Function

Private Function BuildXLPyCommand()"""

_LOAD_DLL = """Private Sub XLPyLoadDLL()
    ' rates-xl: load the DLL once per session.
    If mDllLoaded Then Exit Sub
    LoadDLLFromInterpreterFolder
    mDllLoaded = True
End Sub

Private Sub LoadDLLFromInterpreterFolder()"""


def _between(text: str, start: str, end: str) -> str:
    """The text from `start` up to and including the first `end` after it."""
    i = text.find(start)
    j = text.find(end, i)
    if i < 0 or j < 0:
        raise VbaSourceError(f"no {start.strip()!r} ... {end.strip()!r} block")
    return text[i:j + len(end)]


def xlwings_module(version: str | None = None, text: str | None = None,
                   callers: list[str] | None = None) -> str:
    """The add-in's xlwings module: the installed xlwings.bas with XLWINGS_PATCHES applied,
    its conditional compilation decided for Excel on Windows and, given `callers` (the other
    modules' sources), cut down to what they call (`vbaprune`)."""
    if text is None:
        version, text = installed_xlwings_bas()
    text = text.replace("\r\n", "\n")
    try:
        xl_py_command = _between(text, "\nFunction XLPyCommand()", "\nEnd Function")
        patches = [
            # Our own settings file and name: %USERPROFILE%\.rates_xl\rates_xl.conf.
            ('Public Const PROJECT_NAME As String = "xlwings"\n',
             f'Public Const PROJECT_NAME As String = "{PROJECT_NAME}"\n' + _SETTINGS),
            (_between(text, "\nFunction GetConfig(", "\nEnd Function"), "\n" + _GET_CONFIG.rstrip("\n")),
            (_between(text, "\n#If App = \"Microsoft Excel\" Then\nFunction GetConfigFromSheet(",
                      "\nEnd Function\n#End If"), ""),
            (xl_py_command,
             "\n" + _XLPY_COMMAND + xl_py_command[len("\nFunction XLPyCommand()"):]
             .replace("XLPyCommand = ", "BuildXLPyCommand = ")),
            ("Private Sub XLPyLoadDLL()", _LOAD_DLL),
            (_between(text, "\nPublic Function RunPython(", "\nEnd Function"), "\n" + _RUN_PYTHON),
            # xlwings' `sql` UDF would appear in every workbook's function list.
            (_between(text, "\nFunction sql(", "\nEnd Function"), ""),
        ]
    except VbaSourceError as exc:
        raise VbaSourceError(f"xlwings {version}'s xlwings.bas has changed: {exc}; "
                             "update XLWINGS_PATCHES in rates_xl.addin.classic.vba") from None
    for old, new in patches:
        if text.count(old) != 1:
            raise VbaSourceError(f"xlwings {version}'s xlwings.bas has changed: expected "
                                 f"{old.strip().splitlines()[0]!r} once; update XLWINGS_PATCHES "
                                 "in rates_xl.addin.classic.vba")
        text = text.replace(old, new)
    try:
        text = vbaprune.resolve_conditionals(text)
        if callers is not None:
            text = vbaprune.prune(text, callers, XLWINGS_ENTRY_POINTS)
    except vbaprune.VbaStructureError as exc:
        raise VbaSourceError(f"xlwings {version}'s xlwings.bas has changed: {exc}; "
                             "update rates_xl.addin.classic.vbaprune") from None
    # No word here that olevba counts as suspicious ("Windows", "command", "call", ...): the
    # tests compare its list with the one justified in addin/README.md.
    header = (f"' rates-xl: generated from the xlwings.bas of xlwings {version} by "
              "rates_xl.addin.classic.vba with its\n' XLWINGS_PATCHES, cut to the procedures this "
              "add-in uses (rates_xl.addin.classic.vbaprune),\n' their comments left out. Do not "
              "edit here.\n' Private module: its helpers (XLPy, GetConfig, ...) stay out of the "
              "worksheet\n' function list; the wrappers and the ribbon in this project still "
              "use them.\nOption Private Module\n")
    first, _, rest = text.partition("\n")  # Attribute VB_Name stays the first line
    return first + "\n" + header + rest


#: Declared DLL file names, for the tests and doctor.
_DLL = re.compile(r'Lib "(xlwings(?:32|64)-[^"]+\.dll)"')


def declared_dlls(module_text: str) -> set[str]:
    return set(_DLL.findall(module_text))


def ribbon_module() -> str:
    return RIBBON_BAS.read_bytes().decode("cp1252")


def _vba_string(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def registration_module(macro_options: list[dict[str, Any]]) -> str:
    """`RatesRegister`: the Function Wizard texts, set when the add-in opens.

    xlwings' own import calls Application.MacroOptions once, inside Excel, and Excel keeps the
    result in the workbook. A project written without Excel cannot do that, so the add-in
    makes the same calls itself when it starts (the ribbon's onLoad, RatesRibbon.RatesOnLoad):
    category, description and argument help for every RATES_ function.
    """
    lines = [
        'Attribute VB_Name = "RatesRegister"',
        "' rates-xl: generated by rates_xl.addin.classic.vba from the function table. Gives the",
        "' Function Wizard each RATES_ function's category, description and argument help (what",
        "' xlwings' import does with Application.MacroOptions). Called by RatesRibbon.RatesOnLoad.",
        "Option Explicit",
        "",
        "Public Sub RatesRegisterFunctions()",
        "    Dim args() As Variant",
        "    On Error Resume Next  ' never stop the add-in from opening over a description",
    ]
    for option in macro_options:
        name = option["macro"].rpartition("!")[2]
        call = (f"    Application.MacroOptions Macro:=\"'\" & ThisWorkbook.Name & \"'!{name}\", "
                f"Description:={_vba_string(option['Description'])}, "
                f"Category:={_vba_string(option['Category'])}")
        descriptions = option.get("ArgumentDescriptions") or []
        if descriptions:
            lines.append(f"    ReDim args(0 To {len(descriptions) - 1})")
            lines += [f"    args({i}) = {_vba_string(d)}" for i, d in enumerate(descriptions)]
            call += ", ArgumentDescriptions:=args"
        lines.append(call)
    lines += ["End Sub"]
    return "\n".join(lines) + "\n"


def project_modules(udf_export: dict[str, Any] | None = None):
    """Every module of the add-in's VBA project, in the order the project lists them."""
    from rates_xl.addin.classic import rtd_vba
    from rates_xl.addin.classic.vbaproject import (
        WORKBOOK_BASE,
        WORKSHEET_BASE,
        Module,
        document_module,
    )
    from rates_xl.functions.table import FUNCTIONS

    if udf_export is None:
        udf_export = export_udf_vba(PROJECT_NAME + ".xlam")
    workbook = document_module(WORKBOOK_CODENAME, WORKBOOK_BASE)
    others = [
        # No event procedure in the document modules: the add-in starts from the ribbon's
        # onLoad (RatesRibbon.RatesOnLoad), never from an auto-run macro (addin/README.md,
        # "What the VBA carries").
        workbook,
        document_module(SHEET_CODENAME, WORKSHEET_BASE),
        Module("RatesRibbon", ribbon_module()),
        # Each wrapper's answer through RatesAnswer: a waiting cell subscribes to RTD (rtd_vba).
        Module("xlwings_udfs", rtd_vba.wrap_udfs(udf_export["vba"], sorted(FUNCTIONS))),
        Module("RatesRegister", registration_module(udf_export["macro_options"])),
        Module(rtd_vba.MODULE_NAME, rtd_vba.module()),
    ]
    # The xlwings module keeps what these modules call (the entry points: the UDF wrappers,
    # the ribbon callbacks and RatesRegister).
    xlwings = Module("xlwings", xlwings_module(callers=[m.source for m in others]))
    return [*others[:2], xlwings, *others[2:]]


def export_udf_vba(workbook_name: str = "rates_xl.xlam", timeout: float = 120) -> dict[str, Any]:
    """The VBA module and MacroOptions calls xlwings generates for our UDFs: made once per
    process (a child Python, a second of CPU; `doctor` and `addin install` build the add-in
    more than once), each caller given its own copy."""
    return copy.deepcopy(_exported(workbook_name, timeout))


@functools.lru_cache(maxsize=4)
def _exported(workbook_name: str, timeout: float) -> dict[str, Any]:
    # What it reads (the function table, the installed xlwings) does not change while a
    # process runs; a failure is raised, never kept.
    done = subprocess.run(
        [sys.executable, "-m", "rates_xl.addin.classic.vba", workbook_name],
        capture_output=True, text=True, timeout=timeout, check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the VBA export failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


class _ComError(Internal):
    pass


def _stub_windows_modules() -> None:
    pythoncom = types.ModuleType("pythoncom")
    pythoncom.CoInitialize = lambda: None
    pythoncom.IID_IDispatch = None
    pywintypes = types.ModuleType("pywintypes")
    pywintypes.com_error = _ComError
    pywintypes.TimeType = type("TimeType", (), {})
    win32com = types.ModuleType("win32com")
    win32com_client = types.ModuleType("win32com.client")
    win32com_client.Dispatch = lambda *a, **k: None
    win32com.client = win32com_client
    sys.modules.update({
        "pythoncom": pythoncom, "pywintypes": pywintypes,
        "win32com": win32com, "win32com.client": win32com_client,
    })


class _FakeWorkbook:
    """Just what `import_udfs` touches: VBProject.VBComponents, Application, Name."""

    def __init__(self, name: str) -> None:
        self.Name = name
        self.imported: list[str] = []
        self.macro_options: list[dict[str, Any]] = []
        book = self

        class Components:
            def __call__(self, name):
                raise _ComError(f"no component {name}")  # a fresh workbook has no xlwings_udfs yet

            def Remove(self, component):  # noqa: N802 (COM's spelling)
                pass

            def Import(self, path):  # noqa: N802
                book.imported.append(Path(path).read_text())

        class Application:
            Version = "16.0"

            def MacroOptions(self, macro, **options):  # noqa: N802
                book.macro_options.append({"macro": macro, **options})

            def Run(self, *args):  # noqa: N802
                raise AssertionError("import fallback must not be needed")

        self.VBProject = types.SimpleNamespace(VBComponents=Components())
        self.Application = Application()


def _export(workbook_name: str) -> dict[str, Any]:
    _stub_windows_modules()
    import xlwings
    from xlwings import udfs

    # xlwings' Windows decorators, in place of the inert ones it installs on Linux.
    xlwings.func, xlwings.arg, xlwings.ret, xlwings.sub = udfs.xlfunc, udfs.xlarg, udfs.xlret, udfs.xlsub
    import importlib

    # `python -m rates_xl.addin.classic.vba` imported the package before the stubs existed, with
    # the inert decorators: run its body again so the real ones register the UDFs.
    module = importlib.reload(importlib.import_module(UDF_MODULE))
    udfs.udf_modules[UDF_MODULE] = {"filename": module.__file__, "filetime": None, "module": module}
    book = _FakeWorkbook(workbook_name)
    udfs.import_udfs(UDF_MODULE, book)
    return {"vba": book.imported[0] if book.imported else "", "macro_options": book.macro_options}


if __name__ == "__main__":
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):  # import_udfs prints a line
        result = _export(sys.argv[1] if len(sys.argv) > 1 else "rates_xl.xlam")
    print(json.dumps(result))


_PROCEDURE = re.compile(
    r"^[ \t]*(?:(?:Public|Private|Friend)\s+)?(?:Static\s+)?(Sub|Function)\s+(\w+)\s*\((.*?)\)[^\n]*\n"
    r"(.*?)^[ \t]*End\s+\1\b", re.MULTILINE | re.DOTALL | re.IGNORECASE)


def procedures(module_text: str) -> dict[str, tuple[str, str]]:
    """{name: (parameters, body)} of each Sub and Function in a module's text."""
    text = module_text.replace("\r\n", "\n")
    return {m.group(2): (m.group(3), m.group(4)) for m in _PROCEDURE.finditer(text)}


def statements(body: str) -> list[str]:
    """A procedure body's statements, without comments, blank lines and declarations."""
    found = []
    for line in body.splitlines():
        line = line.strip()
        if not line or line.startswith("'") or line.lower().startswith(("dim ", "#")):
            continue
        found.append(line)
    return found
