"""What Excel imports: xlwings' own VBA wrapper generator run over `rates_xl.addin.classic.udfs`.

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

import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

UDF_MODULE = "rates_xl.addin.classic.udfs"


def export_udf_vba(workbook_name: str = "rates_xl.xlam", timeout: float = 120) -> dict[str, Any]:
    """The VBA module and MacroOptions calls xlwings generates for our UDFs."""
    done = subprocess.run(
        [sys.executable, "-m", "rates_xl.addin.classic.vba", workbook_name],
        capture_output=True, text=True, timeout=timeout, check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the VBA export failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


class _ComError(Exception):
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
