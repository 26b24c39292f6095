"""`rates-xl addin build`: the package assembled from xlwings' template, and every Linux check."""

from __future__ import annotations

import io
import sys
import zipfile
from pathlib import Path

import pytest

from rates_xl.addin.classic import build

SCHEMA = build.REPO_SCHEMA
needs_schema = pytest.mark.skipif(
    not SCHEMA.is_file(), reason=f"customui14.xsd is kept outside the project and is absent ({SCHEMA})"
)


@pytest.fixture(scope="module")
def template() -> Path:
    return build.find_template()


@pytest.fixture(scope="module")
def package(template) -> bytes:
    return build.assemble(template.read_bytes(), build.CUSTOM_UI.read_bytes())


def _check(data: bytes) -> build.CheckResult:
    result = build.CheckResult()
    build.check_package(data, build.CUSTOM_UI.read_bytes(), None, result)
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


def test_the_template_ships_in_the_xlwings_wheel(template):
    import xlwings

    assert template.parent == Path(xlwings.__file__).parent
    assert template.name == "quickstart_addin_ribbon.xlam"


def test_the_assembled_package_passes_every_check(package):
    result = _check(package)
    assert result.ok, result.problems
    assert any("ui/extensibility (2007 type)" in line for line in result.passed)


def test_assembly_keeps_the_template_and_swaps_only_the_ribbon(template, package):
    old = zipfile.ZipFile(template)
    new = zipfile.ZipFile(io.BytesIO(package))
    assert set(new.namelist()) == set(old.namelist()) - {"customUI/customUI.xml"} | {build.CUSTOM_UI_PART}
    assert new.read("xl/vbaProject.bin") == old.read("xl/vbaProject.bin")  # xlwings' VBA untouched
    assert new.read(build.CUSTOM_UI_PART) == build.CUSTOM_UI.read_bytes()
    rels = build.read_rels(new.read("_rels/.rels"))
    assert (build.REL_CUSTOM_UI_2007, build.CUSTOM_UI_PART) in [(t, target) for _, t, target in rels]
    assert b'name="_xlwings.conf"' in new.read("xl/workbook.xml")
    assert new.namelist()[0] == "[Content_Types].xml"


@pytest.mark.parametrize("damage, expected", [
    ({build.CUSTOM_UI_PART: None}, "part customUI/customUI14.xml missing"),
    ({"_rels/.rels": build._rels([("rId1", build.REL_OFFICE_DOCUMENT, "xl/workbook.xml")])},
     "must relate customUI/customUI14.xml"),
    ({"_rels/.rels": build._rels([("rId1", build.REL_OFFICE_DOCUMENT, "xl/workbook.xml"),
                                  ("rId2", build.REL_CUSTOM_UI_2007, "customUI/customUI14.xml"),
                                  ("rId3", build.REL_CUSTOM_UI_2006, "customUI/customUI.xml")])},
     "relationship to missing part customUI/customUI.xml"),
    ({"customUI/customUI.xml": b"<customUI/>"}, "customUI/customUI.xml is still in the package"),
    ({build.CUSTOM_UI_PART: b"<customUI xmlns='x'/>"}, "differs from addin/ribbon/customUI14.xml"),
    ({"xl/extra.bin": b"\0"}, "no content type for part xl/extra.bin"),
    ({"xl/vbaProject.bin": None}, "relationship to missing part vbaProject.bin"),
])
def test_the_package_check_catches_damage(package, damage, expected):
    result = _check(_rewrite(package, damage))
    assert not result.ok
    assert any(expected in problem for problem in result.problems), result.problems


def test_a_non_zip_is_reported(package):
    result = _check(b"not a zip")
    assert result.problems == ["the add-in is not a zip package"]
    with pytest.raises(build.BuildError, match="not a zip"):
        build.assemble(b"not a zip", b"")


@needs_schema
def test_build_check_runs_everything_and_writes_nothing(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("addin", "build", "--check")
    assert code == 0, err
    assert ", 0 failed, 0 skipped" in out
    assert list(tmp_path.iterdir()) == []


def test_build_check_without_the_schema_says_it_skipped(cli, tmp_path, monkeypatch):
    monkeypatch.setattr(build, "REPO_SCHEMA", tmp_path / "absent.xsd")
    monkeypatch.delenv(build.ENV_SCHEMA, raising=False)
    code, out, _ = cli("addin", "build", "--check")
    assert code == 0
    assert ", 0 failed, 2 skipped" in out  # the source and the packaged copy
    assert "customui14.xsd not found" in out


def test_build_no_vba_writes_the_package_and_refuses_to_overwrite(cli, tmp_path):
    output = tmp_path / "out" / "rates_xl.xlam"
    code, out, err = cli("addin", "build", "--no-vba", "-o", str(output))
    assert code == 0, err
    assert _check(output.read_bytes()).ok
    assert "not finished" in out
    before = output.read_bytes()
    code, _, err = cli("addin", "build", "--no-vba", "-o", str(output))
    assert code == 1 and "exists; pass --force" in err
    code, _, err = cli("addin", "build", "--no-vba", "-o", str(output), "--force")
    assert code == 0 and output.read_bytes() == before
    assert output.with_name("rates_xl.xlam.bak").read_bytes() == before


@pytest.mark.skipif(sys.platform.startswith("win"), reason="on Windows the build imports the VBA")
def test_build_says_the_vba_step_needs_windows_excel(cli, tmp_path):
    code, _, err = cli("addin", "build", "-o", str(tmp_path / "x.xlam"))
    assert code == 1
    assert "needs Windows Excel" in err and "--check" in err
    assert not (tmp_path / "x.xlam").exists()


def test_build_fails_cleanly_on_a_broken_ribbon(cli, tmp_path, monkeypatch):
    broken = tmp_path / "customUI14.xml"
    broken.write_bytes(build.CUSTOM_UI.read_bytes().replace(
        b'onAction="RatesRibbon.RatesOnAction"', b'onAction="Nope"', 1))
    monkeypatch.setattr(build, "CUSTOM_UI", broken)
    code, out, err = cli("addin", "build", "--check")
    assert code == 1
    assert "FAILED: rates_refresh_selection: onAction 'Nope'" in out
    assert "check(s) failed; nothing written" in err


@pytest.mark.parametrize("argv, message", [
    (("addin", "build", "--template", "/nonexistent.xlam", "--check"), "no template at"),
    (("addin", "build", "--schema", "/nonexistent.xsd", "--check"), "no schema at"),
])
def test_build_reports_missing_inputs(cli, argv, message):
    code, _, err = cli(*argv)
    assert code == 1 and message in err


@pytest.mark.parametrize("argv", [("addin", "build", "--bogus"), ("addin",), ("addin", "frobnicate")])
def test_bad_arguments_give_a_usage_error(cli, argv):
    code, _, err = cli(*argv)
    assert code == 2
    assert "usage:" in err
