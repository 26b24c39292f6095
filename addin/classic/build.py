"""`rates-xl addin build`: write rates_xl.xlam from source, on any OS, without Excel.

The add-in is an Open XML package (written by `build_package.py`, from sources that
`build_sources.py` reads and checks first):
- the workbook (XlsxWriter: one empty sheet, code names ThisWorkbook and Sheet1, no full
  recalculation on load), its main part typed as a macro-enabled *add-in*;
- the ribbon, `customUI/customUI14.xml` (the Office 2010+ namespace), related from the
  package root with the 2007 ui/extensibility relationship type;
- `xl/vbaProject.bin`, written from source by `vbaproject.build_vba_project` (no Excel, no
  "Trust access to the VBA project object model"): the modules of `vba.project_modules()`,
  i.e. the installed xlwings' VBA with our fixes, the ribbon callback and the RATES_* wrappers
  of xlwings' own generator. Excel compiles the source when it first loads the add-in.

The same sources give the same bytes: fixed zip timestamps, sorted parts, ids derived from
the sources. `build_checked()` also runs every check (schema, callbacks, handlers, start,
package parts, content types, relationships, the VBA read back); `--check` runs them and
writes nothing.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

from rates_xl.addin.classic.build_package import check_package, package_xlam
from rates_xl.addin.classic.build_sources import (
    CUSTOM_UI,
    AddinBuildError,
    CheckResult,
    check_callbacks,
    check_sources,
    check_start,
)


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
