"""`rates-xl addin build`: the .xlam written from source, read back by tools no one here wrote.

- oletools' olevba must extract exactly our modules (names, code, CRLF) from the package;
- LibreOffice (headless) must open the add-in and list the same VBA modules;
- olefile must read every stream of the compound file we write;
- Excel's own encrypted protection fields (in xlwings' template, written by Excel) must
  decrypt with our algorithm.
Then one test per defect of issue 10, on the generated VBA and settings.
"""

from __future__ import annotations

import html
import io
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path, PurePosixPath

import pytest

from rates_xl.addin.classic import build, build_package, build_sources, vba, vbaproject

SCHEMA = build_sources.find_schema()
SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")


@pytest.fixture(scope="module")
def xlam(built) -> bytes:
    return built.xlam


@pytest.fixture(scope="module")
def modules(built) -> dict[str, vbaproject.Module]:
    return {m.name: m for m in built.modules}


@pytest.fixture(scope="module")
def streams(xlam) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(xlam)) as package:
        return build.read_compound_file(package.read("xl/vbaProject.bin"))


def _check(data: bytes) -> build_sources.CheckResult:
    result = build_sources.CheckResult()
    build_package.check_package(data, build_sources.CUSTOM_UI.read_bytes(), None, result)
    return result


def _rewrite(data: bytes, replace: dict[str, bytes | None]) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            if name in replace:
                if replace[name] is not None:
                    target.writestr(name, replace[name])
            else:
                target.writestr(name, source.read(name))
        for name, content in replace.items():
            if name not in source.namelist() and content is not None:
                target.writestr(name, content)
    return out.getvalue()


# -- the package ------------------------------------------------------------------------------
def test_the_built_addin_passes_every_check(built):
    assert built.result.ok, built.result.problems
    passed = "\n".join(built.result.passed)
    assert "ui/extensibility (2007 type)" in passed
    assert "_VBA_PROJECT version 0xFFFF" in passed
    if SCHEMA:
        assert "customUI/customUI14.xml: valid against customui14.xsd" in passed


def test_the_same_sources_give_the_same_bytes(xlam, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing depends on the working directory or the clock
    again, _ = build.build_xlam()
    assert again == xlam


def test_parts_are_sorted_and_dated_1980(xlam):
    infos = zipfile.ZipFile(io.BytesIO(xlam)).infolist()
    names = [i.filename for i in infos]
    assert names == sorted(names) and names[0] == "[Content_Types].xml"
    assert {i.date_time for i in infos} == {build_package.ZIP_DATE}


def test_content_types_and_relationships_part_by_part(xlam):
    package = zipfile.ZipFile(io.BytesIO(xlam))
    names = set(package.namelist())
    assert set(build_package.REQUIRED_PARTS) <= names
    types = package.read("[Content_Types].xml").decode()
    overrides = dict(re.findall(r'<Override PartName="/([^"]+)" ContentType="([^"]+)"', types))
    defaults = dict(re.findall(r'<Default Extension="([^"]+)" ContentType="([^"]+)"', types))
    for name in names - {"[Content_Types].xml"}:
        assert name in overrides or name.rpartition(".")[2] in defaults, name
    assert overrides["xl/workbook.xml"] == build_package.ADDIN_MAIN_TYPE  # an add-in, macro-enabled
    assert overrides["xl/vbaProject.bin"] == build_package.VBA_TYPE
    assert overrides[build_package.CUSTOM_UI_PART] == build_package.XML_TYPE
    root = build_package.read_rels(package.read("_rels/.rels"))
    assert [t for _, typ, t in root if typ == build_package.REL_CUSTOM_UI_2007] == [build_package.CUSTOM_UI_PART]
    assert [t for _, typ, t in root if typ == build_package.REL_OFFICE_DOCUMENT] == ["xl/workbook.xml"]
    book = build_package.read_rels(package.read("xl/_rels/workbook.xml.rels"))
    assert ("vbaProject.bin" in [t for _, typ, t in book if typ == build_package.REL_VBA_PROJECT])
    for rels in (n for n in names if n.endswith(".rels")):
        base = PurePosixPath(rels).parent.parent
        for _, _, target in build_package.read_rels(package.read(rels), internal_only=True):
            assert build_package._resolve(base, target) in names, (rels, target)
    assert package.read(build_package.CUSTOM_UI_PART) == build_sources.CUSTOM_UI.read_bytes()
    workbook = package.read("xl/workbook.xml").decode()
    assert 'codeName="ThisWorkbook"' in workbook and "fullCalcOnLoad" not in workbook
    assert 'codeName="Sheet1"' in package.read("xl/worksheets/sheet1.xml").decode()


@pytest.mark.parametrize("damage, expected", [
    ({build_package.CUSTOM_UI_PART: None}, "part customUI/customUI14.xml missing"),
    ({"_rels/.rels": build_package._rels([("rId1", build_package.REL_OFFICE_DOCUMENT, "xl/workbook.xml")])},
     "must relate customUI/customUI14.xml"),
    ({"_rels/.rels": build_package._rels([("rId1", build_package.REL_OFFICE_DOCUMENT, "xl/workbook.xml"),
                                  ("rId2", build_package.REL_CUSTOM_UI_2006, "customUI/customUI14.xml")])},
     "2006 customUI relationship"),
    ({"xl/styles.xml": None}, "relationship to missing part"),
    ({"[Content_Types].xml": b'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/'
      b'package/2006/content-types"><Default Extension="rels" ContentType="application/'
      b'vnd.openxmlformats-package.relationships+xml"/></Types>'}, "no content type for part"),
    ({build_package.CUSTOM_UI_PART: b"<customUI/>"}, "differs from"),
    ({"xl/workbook.xml": b'<workbook fullCalcOnLoad="1"/>'}, "full recalculation on load"),
])
def test_the_package_check_catches_damage(xlam, damage, expected):
    result = _check(_rewrite(xlam, damage))
    assert not result.ok
    assert any(expected in p for p in result.problems), result.problems


def test_a_non_zip_is_reported():
    result = _check(b"not a zip")
    assert result.problems == ["the add-in is not a zip package"]


# -- read back by independent readers ---------------------------------------------------------
def test_olevba_extracts_exactly_our_modules(xlam, modules):
    olevba = pytest.importorskip("oletools.olevba", reason="oletools (the dev extra) is not installed")
    parser = olevba.VBA_Parser("rates_xl.xlam", data=xlam)
    assert parser.detect_vba_macros()
    extracted = {name.rpartition(".")[0]: (stream, name.rpartition(".")[2], code)
                 for _, stream, name, code in parser.extract_macros()}
    assert sorted(extracted) == sorted(modules)
    for name, module in modules.items():
        stream, extension, code = extracted[name]
        assert stream == f"VBA/{name}"
        assert extension == ("cls" if module.kind == "document" else "bas")
        assert code.encode(vbaproject.ENCODING) == module.source_bytes()  # code and CRLF
    parser.close()


def test_oletools_decompresses_every_stream_we_compress(streams, modules):
    olevba = pytest.importorskip("oletools.olevba", reason="oletools (the dev extra) is not installed")
    for name, module in modules.items():
        assert bytes(olevba.decompress_stream(bytearray(streams[f"VBA/{name}"]))) == module.source_bytes()
    for data in (os.urandom(9000), b"a" * 20000, b"abcabcabd" * 2000, b""):
        assert bytes(olevba.decompress_stream(bytearray(vbaproject.compress(data)))) == data
        assert vbaproject.decompress(vbaproject.compress(data)) == data


def _lo_modules(path: Path, tmp_path: Path) -> dict[str, dict[str, str]]:
    """{library: {module: code}} as LibreOffice loads the add-in's VBA (converted to .ods)."""
    out = tmp_path / "out"
    done = subprocess.run(
        [SOFFICE, f"-env:UserInstallation={(tmp_path / 'profile').as_uri()}", "--headless",
         "--infilter=Calc MS Excel 2007 VBA XML", "--convert-to", "ods", "--outdir", str(out),
         str(path)], capture_output=True, text=True, timeout=300, check=False)
    converted = out / (path.stem + ".ods")
    assert converted.is_file(), done.stdout + done.stderr
    found: dict[str, dict[str, str]] = {}
    with zipfile.ZipFile(converted) as ods:
        for name in ods.namelist():
            match = re.fullmatch(r"Basic/([^/]+)/([^/]+)\.xml", name)
            if match and match.group(2) not in ("script-lb", "script-lc"):
                text = ods.read(name).decode()
                body = re.search(r"<script:module[^>]*>(.*)</script:module>", text, re.S)
                found.setdefault(match.group(1), {})[match.group(2)] = html.unescape(body.group(1))
    return found


@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice (soffice) is not installed; "
                    "Debian: apt-get install libreoffice-calc (.ci/run installs it)")
def test_libreoffice_opens_the_addin_and_lists_the_same_modules(xlam, modules, tmp_path):
    path = tmp_path / "rates_xl.xlam"
    path.write_bytes(xlam)
    libraries = _lo_modules(path, tmp_path)
    assert list(libraries) == [vba.PROJECT_NAME], libraries.keys()
    loaded = libraries[vba.PROJECT_NAME]
    assert sorted(loaded) == sorted(modules)
    for name, module in modules.items():
        code = [line for line in module.source_bytes().decode(vbaproject.ENCODING).splitlines()
                if line.strip() and not line.startswith("Attribute ")]
        assert [line for line in loaded[name].splitlines() if line in code] == code, name
    # The start, as an independent reader sees it: the ribbon's onLoad callback is there, and
    # no procedure in the workbook's module runs by itself when the file opens.
    assert "Public Sub RatesOnLoad(ribbon As IRibbonUI)" in loaded["RatesRibbon"]
    assert "Sub " not in loaded["ThisWorkbook"]


@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice (soffice) is not installed; "
                    "Debian: apt-get install libreoffice-calc (.ci/run installs it)")
def test_libreoffice_finds_no_modules_in_a_damaged_project(xlam, modules, tmp_path):
    """The reader above can fail: a module stream cut short leaves LibreOffice without it."""
    with zipfile.ZipFile(io.BytesIO(xlam)) as package:
        streams = build.read_compound_file(package.read("xl/vbaProject.bin"))
    streams["VBA/dir"] = streams["VBA/dir"][:40]  # the module records are gone
    damaged = _rewrite(xlam, {"xl/vbaProject.bin": vbaproject.compound_file(streams)})
    path = tmp_path / "damaged.xlam"
    path.write_bytes(damaged)
    loaded = _lo_modules(path, tmp_path).get(vba.PROJECT_NAME, {})
    assert sorted(loaded) != sorted(modules)


def test_olefile_reads_every_stream_of_a_compound_file():
    olefile = pytest.importorskip("olefile")
    streams = {f"S{i}/stream{j}": os.urandom(37 * i + 4000 * j) for i in range(1, 4) for j in range(3)}
    streams.update({f"top{i}": bytes([i]) * (100 * i) for i in range(1, 12)})
    data = vbaproject.compound_file(streams)
    with olefile.OleFileIO(io.BytesIO(data)) as ole:
        assert sorted("/".join(p) for p in ole.listdir()) == sorted(k for k, v in streams.items() if v)
        for path, content in streams.items():
            assert ole.openstream(path).read() == content


def test_each_storage_is_a_red_black_tree_in_compound_file_order():
    """[MS-CFB] 2.6.4: siblings form a red-black tree ordered by (name length, upper case)."""
    import struct

    names = [f"S{i}" * (i % 4 + 1) for i in range(23)]
    data = vbaproject.compound_file({f"F/{n}": b"x" for n in names} | {"top": b"y"})
    first_dir = struct.unpack_from("<I", data, 48)[0]
    raw = data[512 * (first_dir + 1):]
    entries = []
    for n in range(1 + 1 + 1 + len(names)):  # root, F, top, the streams: one directory chain
        e = raw[128 * n:128 * (n + 1)]
        name = e[:struct.unpack_from("<H", e, 64)[0] - 2].decode("utf-16-le")
        entries.append((name, e[67], *struct.unpack_from("<III", e, 68)))  # color, left, right, child

    def black_height(i, lower, upper):
        if i == vbaproject.NOSTREAM:
            return 1
        name, color, left, right, _ = entries[i]
        key = vbaproject._cfb_key(name)
        assert (lower is None or lower < key) and (upper is None or key < upper)
        if color == 0:  # red: no red child
            assert all(c == vbaproject.NOSTREAM or entries[c][1] == 1 for c in (left, right))
        heights = {black_height(left, lower, key), black_height(right, key, upper)}
        assert len(heights) == 1
        return heights.pop() + color

    for storage in (e for e in entries if e[4] != vbaproject.NOSTREAM):
        assert entries[storage[4]][1] == 1  # a black root
        black_height(storage[4], None, None)


def test_the_vba_project_is_source_only(streams):
    assert streams["VBA/_VBA_PROJECT"] == b"\xcc\x61\xff\xff\x00\x01\x00"  # version 0xFFFF
    records = _dir_records(vbaproject.decompress(streams["VBA/dir"]))
    offsets = [payload for record_id, payload in records if record_id == 0x0031]
    assert offsets and set(offsets) == {b"\0\0\0\0"}  # MODULEOFFSET 0: no p-code before the source
    project = streams["PROJECT"].decode(vbaproject.ENCODING)
    assert 'Name="rates_xl"' in project and "\r\n" in project


def _dir_records(data: bytes) -> list[tuple[int, bytes]]:
    records, position = [], 0
    while position < len(data):
        record_id, size = int.from_bytes(data[position:position + 2], "little"), \
            int.from_bytes(data[position + 2:position + 6], "little")
        if record_id == 0x0009:  # PROJECTVERSION: its size field says 4, six bytes follow
            size = 6
        records.append((record_id, data[position + 6:position + 6 + size]))
        position += 6 + size
    return records


def _template_project() -> dict[str, bytes]:
    """The streams of xlwings' ribbon template's VBA project: a file saved by Excel."""
    import xlwings

    template = Path(xlwings.__file__).parent / "quickstart_addin_ribbon.xlam"
    with zipfile.ZipFile(template) as package:
        return build.read_compound_file(package.read("xl/vbaProject.bin"))


def test_our_records_follow_what_excel_writes(streams):
    """Same _VBA_PROJECT bytes, same project records in the same order, same module records."""
    excel = _template_project()
    assert streams["VBA/_VBA_PROJECT"] == excel["VBA/_VBA_PROJECT"]
    ours = [i for i, _ in _dir_records(vbaproject.decompress(streams["VBA/dir"]))]
    theirs = [i for i, _ in _dir_records(vbaproject.decompress(excel["VBA/dir"]))]

    def information(ids):  # up to the first reference
        return ids[:ids.index(0x0016)]

    def standard_module(ids):  # the records of the first standard module (MODULETYPE 0x0021)
        end = ids.index(0x0021) + 2
        return ids[max(i for i in range(end - 1) if ids[i] == 0x0019):end]

    assert information(ours) == information(theirs)
    assert standard_module(ours) == standard_module(theirs)
    assert ours[-1] == theirs[-1] == 0x0010


def test_our_encryption_matches_what_excel_writes():
    """xlwings' template was saved by Excel: decrypt its CMG/DPB/GC, and round-trip ours."""
    olefile = pytest.importorskip("olefile")
    import xlwings

    template = Path(xlwings.__file__).parent / "quickstart_addin_ribbon.xlam"
    with zipfile.ZipFile(template) as package, \
            olefile.OleFileIO(io.BytesIO(package.read("xl/vbaProject.bin"))) as ole:
        project = ole.openstream("PROJECT").read().decode("cp1252")
    fields = dict(re.findall(r'^(ID|CMG|DPB|GC)="([^"]*)"', project, re.M))
    key = sum(fields["ID"].encode()) & 0xFF
    assert vbaproject.decrypt(fields["CMG"]) == (b"\0\0\0\0", key)  # not protected
    assert vbaproject.decrypt(fields["DPB"]) == (b"\0", key)  # no password
    assert vbaproject.decrypt(fields["GC"]) == (b"\xff", key)  # visible
    for seed in range(256):
        assert vbaproject.decrypt(vbaproject.encrypt(b"\x12\x34", fields["ID"], seed)) == (b"\x12\x34", key)


# -- the defects of issue 10, one by one ------------------------------------------------------
def test_1_one_python_for_every_workbook(modules):
    """The server command line is built from ThisWorkbook (the add-in), never ActiveWorkbook."""
    xlwings_vba = modules["xlwings"].source
    body = vba.procedures(xlwings_vba)["BuildXLPyCommand"][1]
    assert 'ThisWorkbook.FullName & ";" & ThisWorkbook.FullName' in body
    assert "ActiveWorkbook" not in xlwings_vba


def test_2_no_service_function_exits_early(modules):
    """call_in_wizard=True everywhere: no CommandBars("Standard") check, so no 0 on open."""
    from rates_xl.functions import FUNCTIONS

    wrappers = vba.procedures(modules["xlwings_udfs"].source)
    assert sorted(wrappers) == sorted(FUNCTIONS)
    for name, (_, body) in wrappers.items():
        # The first statement sets the error handler; the call to Python follows at once.
        first, second = [s for s in vba.statements(body) if s != "Application.Volatile"][:2]
        assert first == "If TypeOf Application.Caller Is Range Then On Error GoTo failed", name
        assert second.startswith(f"{name} = RatesAnswer(XLPy.CallUDF("), name
    assert not any("CommandBars" in m.source for m in modules.values())


def test_3_our_own_settings_file_and_nothing_else(modules):
    xlwings_vba = modules["xlwings"].source
    assert 'Public Const PROJECT_NAME As String = "rates_xl"' in xlwings_vba
    path = vba.procedures(xlwings_vba)["GetConfigFilePath"][1]
    assert 'Environ("USERPROFILE") & "\\." & PROJECT_NAME & "\\" & PROJECT_NAME & ".conf"' in path
    get_config = vba.procedures(xlwings_vba)["GetConfig"][1] + vba.procedures(xlwings_vba)["LoadSettings"][1]
    code = "\n".join(vba.statements(get_config))  # comments left out
    for other_source in ("Sheet", "GetDirectoryConfigFilePath", "GetFullName", "xlwings"):
        assert other_source not in code, other_source
    assert "GetConfigFilePath()" in get_config
    # Its helpers (XLPy, GetConfig, ...) are not worksheet functions: a private module.
    assert "\nOption Private Module\n" in xlwings_vba.split("\nPublic Function RunPython")[0]
    # `sql`, xlwings' own UDF, is not ours to add to every workbook's function list.
    assert "sql" not in vba.procedures(xlwings_vba)


def test_4_the_dll_is_the_installed_xlwings_one(built, modules):
    import xlwings

    version = xlwings.__version__
    assert vba.declared_dlls(modules["xlwings"].source) == {
        f"xlwings64-{version}.dll", f"xlwings32-{version}.dll"}
    assert built.dlls == vba.declared_dlls(modules["xlwings"].source)
    assert f'Public Const XLWINGS_VERSION As String = "{version}"' in modules["xlwings"].source


def test_4_a_changed_xlwings_fails_the_build_clearly():
    version, text = vba.installed_xlwings_bas()
    with pytest.raises(vba.VbaSourceError, match=r"xlwings 9\.9's xlwings.bas has changed"):
        vba.xlwings_module("9.9", text.replace("Function XLPyCommand()", "Function XLPyCmd()"))


def test_5_every_button_handles_errors_before_touching_a_workbook(modules):
    ribbon = vba.procedures(modules["RatesRibbon"].source)
    for name, (_, body) in ribbon.items():
        assert vba.statements(body)[0].startswith("On Error"), name
    ready = vba.statements(ribbon["RatesWorkbookReady"][1])
    protected = next(i for i, s in enumerate(ready) if "ActiveProtectedViewWindow" in s)
    active = next(i for i, s in enumerate(ready) if "ActiveWorkbook" in s)
    assert protected < active  # Protected View is asked first, each answers with a MsgBox
    assert sum("MsgBox" in s for s in ready) == 2
    on_action = "".join(vba.statements(ribbon["RatesOnAction"][1]))
    assert 'Left$(id, 14) = "rates_refresh_"' in on_action and "MsgBox" in on_action
    assert "ActiveWorkbook" not in on_action


def test_5_the_refresh_guard_covers_exactly_the_refresh_buttons():
    ids = [b.id for b in build_sources.buttons(build_sources.CUSTOM_UI.read_bytes())]
    needing_a_workbook = [i for i in ids if i.startswith("rates_refresh_")]
    assert needing_a_workbook == ["rates_refresh_selection", "rates_refresh_sheet", "rates_refresh_workbook"]


def test_6_no_settings_read_on_the_path_of_a_call(modules):
    """A wrapper calls XLPy.CallUDF; XLPy loads the DLL and asks XLPyCommand: both cached."""
    xlwings_vba = vba.procedures(modules["xlwings"].source)
    xlpy = vba.statements(xlwings_vba["XLPy"][1])
    assert xlpy[0] == "XLPyLoadDLL" and "XLPyCommand" in xlpy[1]
    assert vba.statements(xlwings_vba["XLPyLoadDLL"][1])[0] == "If mDllLoaded Then Exit Sub"
    command = vba.statements(xlwings_vba["XLPyCommand"][1])
    assert command == ['If mXLPyCommand = "" Then mXLPyCommand = BuildXLPyCommand()',
                       "XLPyCommand = mXLPyCommand"]
    assert "GetConfig" in xlwings_vba["BuildXLPyCommand"][1]  # computed once, from the settings
    assert vba.statements(xlwings_vba["GetConfig"][1])[0] == "If mSettings Is Nothing Then LoadSettings"
    reload = vba.statements(xlwings_vba["RatesReloadSettings"][1])
    assert reload == ["Set mSettings = Nothing", 'mXLPyCommand = ""']


def test_7_crlf_in_whatever_excel_reads(streams, modules):
    for name in modules:
        text = vbaproject.decompress(streams[f"VBA/{name}"])
        assert text.endswith(b"\r\n") and b"\n" not in text.replace(b"\r\n", b"")
        assert b"\r" not in text.replace(b"\r\n", b"")
    # Whatever git does with the .bas files (LF, CRLF, a mix), Excel gets CRLF.
    on_disk = vba.RIBBON_BAS.read_bytes().decode(vbaproject.ENCODING)
    for source in (on_disk.replace("\r\n", "\n"), on_disk.replace("\r\n", "\n").replace("\n", "\r\n"),
                   on_disk.replace("\r\n", "\n").replace("\n", "\r", 3)):
        assert vbaproject.Module("RatesRibbon", source).source_bytes() == modules["RatesRibbon"].source_bytes()


def test_the_function_wizard_texts_are_set_when_the_addin_opens(modules):
    """xlwings' MacroOptions calls, made by the add-in itself from the ribbon's onLoad (no
    procedure in ThisWorkbook: nothing runs by itself when the file opens)."""
    from rates_xl.functions import FUNCTIONS

    assert vba.procedures(modules["ThisWorkbook"].source) == {}
    opening = vba.procedures(modules["RatesRibbon"].source)["RatesOnLoad"]
    assert opening[0].strip().lower() == "ribbon as iribbonui"
    # It keeps the ribbon (to redraw the Scenario button's label), then registers the texts.
    assert vba.statements(opening[1]) == ["On Error Resume Next", "Set RatesUI = ribbon", "RatesRegisterFunctions",
                                          'Application.OnTime Now, "\'" & ThisWorkbook.Name & "\'!RatesStart"']
    register = vba.statements(vba.procedures(modules["RatesRegister"].source)["RatesRegisterFunctions"][1])
    assert register[0].startswith("On Error Resume Next")
    calls = {re.search(r"'!(\w+)\"", s).group(1): s for s in register if "MacroOptions" in s}
    assert sorted(calls) == sorted(FUNCTIONS)
    for name, spec in FUNCTIONS.items():
        assert f'Description:="{spec.description.replace(chr(34), chr(34) * 2)}"' in calls[name]
        assert 'Category:="RATES"' in calls[name]
        assert ("ArgumentDescriptions:=args" in calls[name]) == bool(spec.args)
    for line in modules["RatesRegister"].source.splitlines():
        assert len(line) < 1023  # VBA's longest line


# -- the command ------------------------------------------------------------------------------
def test_build_out_writes_the_same_file_anywhere(cli, tmp_path, xlam):
    target = tmp_path / "somewhere" / "else.xlam"
    code, out, err = cli("addin", "build", "--out", str(target))
    assert code == 0, err
    assert target.read_bytes() == xlam
    assert "VBA modules: ThisWorkbook, Sheet1, xlwings, RatesRibbon, xlwings_udfs, RatesRegister" in out
    code, _, err = cli("addin", "build", "--out", str(target))
    assert code == 1 and "--force" in err
    assert cli("addin", "build", "--out", str(target), "--force")[0] == 0


def test_build_check_writes_nothing(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("addin", "build", "--check")
    assert code == 0, err
    assert "0 failed" in out and "check only: nothing written" in out
    assert list(tmp_path.iterdir()) == []


def test_build_fails_cleanly_on_a_broken_ribbon(cli, tmp_path, monkeypatch):
    broken = tmp_path / "customUI14.xml"
    broken.write_bytes(build_sources.CUSTOM_UI.read_bytes().replace(b'onAction="RatesRibbon.RatesOnAction"',
                                                             b'onAction="Nope.Sub"', 1))
    monkeypatch.setattr(build_sources, "CUSTOM_UI", broken)
    code, out, err = cli("addin", "build", "--out", str(tmp_path / "x.xlam"))
    assert code == 1 and "FAILED" in out and "nothing written" in err
    assert not (tmp_path / "x.xlam").exists()


@pytest.mark.parametrize("argv", [("addin", "build", "--schema", "/no/such.xsd"),
                                  ("addin", "build", "--template", "x.xlam"),
                                  ("addin", "build", "--no-vba")])
def test_bad_arguments(cli, argv):
    code, _, err = cli(*argv)
    assert code in (1, 2) and ("usage:" in err or "no schema at" in err)
