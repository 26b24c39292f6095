"""The add-in IT lets through (issue 28): it starts from the ribbon, never from an auto-run
macro, and the scanners endpoint tools use rate it as xlwings' own add-in.

- Excel opening the built `.xlam` (tests/support/serial_excel_addin.py: the package and its
  VBA read back by zipfile and olevba, Excel's documented start played): no procedure runs by
  itself; the ribbon's onLoad runs, and from it the Function Wizard's texts of every RATES_
  function are registered, as the function table writes them;
- oletools' mraptor: "Macro OK" (no AutoExec), as for xlwings' own add-in; before this it was
  SUSPICIOUS (AutoExec: Workbook_Open, beside SetAttr and a DLL declaration);
- olevba: no more suspicious keywords than the 12 justified in addin/README.md, none AutoExec.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import serial_excel_addin

mraptor = pytest.importorskip("oletools.mraptor", reason="oletools (the dev extra) is not installed")
olevba = pytest.importorskip("oletools.olevba", reason="oletools (the dev extra) is not installed")


def _verdict(data: bytes, name: str) -> tuple[str, str]:
    """mraptor's verdict and flags for a file, as its command line computes them."""
    parser = olevba.VBA_Parser(name, data=data)
    try:
        code = "\n".join(c for _, _, _, c in parser.extract_all_macros())
    finally:
        parser.close()
    raptor = mraptor.MacroRaptor(code)
    raptor.scan()
    result = mraptor.Result_Suspicious if raptor.suspicious else mraptor.Result_MacroOK
    return result.name, raptor.get_flags()


def test_excel_opening_the_addin_runs_no_auto_run_macro_and_registers_every_function(built):
    from rates_xl.functions import FUNCTIONS

    addin = serial_excel_addin.open_addin(built.xlam)
    assert addin.auto_run == []
    assert addin.on_load == "RatesRibbon.RatesOnLoad"
    assert addin.ran == ["RatesRibbon.RatesOnLoad", "RatesRegister.RatesRegisterFunctions"]
    # Then, once Excel is ready, the add-in's Python starts (ribbon_refresh.start, issue 28).
    from rates_xl.addin.classic import ribbon

    assert addin.scheduled == ["RatesRibbon.RatesStart"]
    body = addin.procedure("RatesRibbon.RatesStart")[3]
    assert f"r.on_action('{ribbon.START_ACTION}')" in body and ribbon.START_ACTION in ribbon.ACTIONS
    assert sorted(addin.macro_options) == sorted(FUNCTIONS)
    for name, spec in FUNCTIONS.items():
        options = addin.macro_options[name]
        assert options["Description"] == spec.description
        assert options["Category"] == "RATES"
        assert options.get("ArgumentDescriptions", []) == [a.doc for a in spec.args]


def test_the_model_sees_an_auto_run_macro_and_refuses_what_it_cannot_run(built):
    """The stand-in is not a rubber stamp: a Workbook_Open is found and run, and a start-up
    statement it does not model stops it."""
    import io
    import zipfile

    from rates_xl.addin.classic import vbaproject

    modules = [m if m.name != "ThisWorkbook" else vbaproject.Module(
        m.name, m.source + "\r\nPrivate Sub Workbook_Open()\r\n    RatesRegisterFunctions\r\nEnd Sub\r\n", "document")
        for m in built.modules]
    with zipfile.ZipFile(io.BytesIO(built.xlam)) as package:
        parts = {n: package.read(n) for n in package.namelist()}
    parts["xl/vbaProject.bin"] = vbaproject.build_vba_project("rates_xl", modules)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as package:
        for n, data in parts.items():
            package.writestr(n, data)
    addin = serial_excel_addin.open_addin(buffer.getvalue())
    assert addin.auto_run == ["ThisWorkbook.Workbook_Open"]
    assert _verdict(buffer.getvalue(), "x.xlam")[0] == "SUSPICIOUS"

    odd = [m if m.name != "RatesRibbon" else vbaproject.Module(
        m.name, m.source.replace("    RatesRegisterFunctions", "    Shell \"calc.exe\"", 1), m.kind)
        for m in built.modules]
    parts["xl/vbaProject.bin"] = vbaproject.build_vba_project("rates_xl", odd)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as package:
        for n, data in parts.items():
            package.writestr(n, data)
    with pytest.raises(serial_excel_addin.Unmodelled, match="Shell"):
        serial_excel_addin.open_addin(buffer.getvalue())


def test_mraptor_rates_the_addin_macro_ok_as_xlwings_own(built):
    import xlwings

    assert _verdict(built.xlam, "rates_xl.xlam") == ("Macro OK", "-WX")
    xlwings_addin = Path(xlwings.__file__).parent / "addin" / "xlwings.xlam"
    if xlwings_addin.exists():  # shipped in the xlwings package: the figure beside ours
        assert _verdict(xlwings_addin.read_bytes(), "xlwings.xlam")[0] == "Macro OK"


def test_olevba_finds_no_auto_exec_and_no_more_keywords_than_before(built):
    parser = olevba.VBA_Parser("rates_xl.xlam", data=built.xlam)
    try:
        found = {(kind, keyword.lower()) for kind, keyword, _ in parser.analyze_macros()}
    finally:
        parser.close()
    assert not [k for kind, k in found if kind == "AutoExec"]
    assert len({k for kind, k in found if kind == "Suspicious"}) <= 12
