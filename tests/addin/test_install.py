"""`rates-xl addin install / uninstall`: the add-in's own settings and XLSTART, reversed exactly.

The tests' "XLSTART" and user profile are temporary folders (the `paths` fixture)."""

from __future__ import annotations

import json
import os
import sys

import pytest

from rates_xl.addin.classic import install

OTHER = (
    '"LICENSE_KEY","abc123"\r\n'
    '"Interpreter_Win","C:\\Old\\python.exe"\r\n'
    "this line is not an entry and must survive\r\n"
    '"PYTHONPATH","C:\\Users\\J\xfcrgen\\lib"\r\n'
)


def _entries(path):
    """What xlwings' own reader makes of the file."""
    import xlwings
    from xlwings import utils

    old = xlwings.USER_CONFIG_FILE
    xlwings.USER_CONFIG_FILE = str(path)
    try:
        return utils.read_user_config()
    finally:
        xlwings.USER_CONFIG_FILE = old


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode(install._ENCODING, errors="surrogateescape"))


def test_install_writes_the_settings_and_keeps_everything_else(cli, paths, built_xlam):
    _write(paths.config, OTHER)
    code, out, err = cli("addin", "install", "--xlam", str(built_xlam))
    assert code == 0, err
    entries = _entries(paths.config)
    assert entries["use udf server"] == "True"
    assert entries[install.interpreter_key().lower()] == sys.executable
    assert entries["license_key"] == "abc123"
    text = paths.config.read_bytes().decode(install._ENCODING)
    assert "this line is not an entry and must survive\r\n" in text
    assert '"PYTHONPATH","C:\\Users\\J\xfcrgen\\lib"\r\n' in text  # bytes and line ends kept
    assert text.count("\r\n") == len(text.splitlines())
    # The existing interpreter line is updated in place, keeping its spelling.
    assert f'"Interpreter_Win","{sys.executable}"' in text or sys.platform == "darwin"
    assert sorted(p.name for p in paths.config.parent.iterdir()) == [
        "rates_xl-install.json", "rates_xl.conf"]  # nothing else written beside it
    assert (paths.xlstart / "rates_xl.xlam").read_bytes() == built_xlam.read_bytes()
    assert "Restart Excel" in out


def test_uninstall_restores_the_config_byte_for_byte_and_removes_the_addin(cli, paths, built_xlam):
    _write(paths.config, OTHER)
    original = paths.config.read_bytes()
    assert cli("addin", "install", "--xlam", str(built_xlam))[0] == 0
    code, out, err = cli("addin", "uninstall")
    assert code == 0, err
    assert paths.config.read_bytes() == original
    assert not (paths.xlstart / "rates_xl.xlam").exists()
    assert not paths.config.with_name(install.RECORD_NAME).exists()
    assert "settings: removed USE UDF SERVER" in out


def test_install_builds_the_addin_itself_no_excel_needed(cli, paths, built):
    code, out, err = cli("addin", "install")
    assert code == 0, err
    assert (paths.xlstart / "rates_xl.xlam").read_bytes() == built.xlam  # same sources, same bytes
    assert f"built rates_xl.xlam for xlwings {built.xlwings_version}" in out


def test_install_on_a_fresh_machine_and_uninstall_leave_nothing_behind(cli, paths, built_xlam):
    home = paths.config.parent.parent
    home.mkdir(parents=True)
    assert cli("addin", "install", "--xlam", str(built_xlam))[0] == 0
    assert set(_entries(paths.config)) == {"use udf server", install.interpreter_key().lower()}
    assert cli("addin", "uninstall")[0] == 0
    assert list(home.iterdir()) == []  # the settings file and its folder are gone
    assert list(paths.xlstart.iterdir()) == []


def test_install_never_touches_xlwings_own_config(cli, paths, built_xlam, tmp_path, monkeypatch):
    import xlwings

    theirs = tmp_path / "xlwings-home" / "xlwings.conf"
    _write(theirs, '"PROJECT_NAME","xlwings"\r\n"UDF MODULES","their_module"\r\n')
    before = theirs.read_bytes()
    monkeypatch.setattr(xlwings, "USER_CONFIG_FILE", str(theirs))
    assert cli("addin", "install", "--xlam", str(built_xlam))[0] == 0
    assert cli("addin", "uninstall")[0] == 0
    assert theirs.read_bytes() == before
    assert sorted(p.name for p in theirs.parent.iterdir()) == ["xlwings.conf"]


def test_installing_twice_still_uninstalls_to_the_original(cli, paths, built_xlam, tmp_path):
    _write(paths.config, '"SHOW CONSOLE","True"\n')
    original = paths.config.read_bytes()
    assert cli("addin", "install", "--xlam", str(built_xlam))[0] == 0
    other_python = tmp_path / "python-other"
    other_python.write_text("")
    assert cli("addin", "install", "--xlam", str(built_xlam), "--python", str(other_python))[0] == 0
    assert _entries(paths.config)[install.interpreter_key().lower()] == str(other_python)
    assert cli("addin", "uninstall")[0] == 0
    assert paths.config.read_bytes() == original


def test_an_addin_already_in_xlstart_is_kept_and_put_back(cli, paths, built_xlam):
    paths.xlstart.mkdir(parents=True)
    theirs = paths.xlstart / "rates_xl.xlam"
    theirs.write_bytes(b"an older copy someone placed by hand")
    assert cli("addin", "install", "--xlam", str(built_xlam))[0] == 0
    assert theirs.read_bytes() == built_xlam.read_bytes()
    assert sorted(p.name for p in paths.xlstart.iterdir()) == ["rates_xl.xlam"]  # Excel opens all
    assert paths.config.with_name("rates_xl-replaced.xlam").exists()
    assert cli("addin", "uninstall")[0] == 0
    assert not paths.config.with_name("rates_xl-replaced.xlam").exists()
    assert theirs.read_bytes() == b"an older copy someone placed by hand"
    assert sorted(p.name for p in paths.xlstart.iterdir()) == ["rates_xl.xlam"]


def test_uninstall_leaves_what_the_user_changed_since(cli, paths, built_xlam):
    assert cli("addin", "install", "--xlam", str(built_xlam))[0] == 0
    text = paths.config.read_text(encoding=install._ENCODING)
    paths.config.write_text(text.replace('"USE UDF SERVER","True"', '"USE UDF SERVER","False"'),
                            encoding=install._ENCODING)
    (paths.xlstart / "rates_xl.xlam").write_bytes(b"rebuilt by the user")
    code, out, err = cli("addin", "uninstall")
    assert code == 0
    assert "left USE UDF SERVER = False" in err
    assert "it is not the file install placed" in err
    assert _entries(paths.config) == {"use udf server": "False"}
    assert (paths.xlstart / "rates_xl.xlam").read_bytes() == b"rebuilt by the user"


def test_config_only_install(cli, paths):
    code, out, err = cli("addin", "install", "--no-addin")
    assert code == 0, err
    assert not paths.xlstart.exists()
    assert _entries(paths.config)["use udf server"] == "True"
    assert cli("addin", "uninstall")[0] == 0
    assert not paths.config.exists()


def test_an_unwritable_config_is_a_clear_error_and_changes_nothing(cli, paths, built_xlam, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the config folder should be")
    code, _, err = cli("addin", "install", "--xlam", str(built_xlam),
                       "--config", str(blocker / "rates_xl.conf"))
    assert code == 1
    assert err.startswith("rates-xl addin install: cannot write") and "Traceback" not in err
    assert not paths.xlstart.exists()


def test_a_failed_write_leaves_the_old_config_and_no_temporary_file(paths, monkeypatch):
    _write(paths.config, OTHER)
    original = paths.config.read_bytes()

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(install.InstallError, match="No space left"):
        install.install(paths.config, None, None, install.desired_settings())
    assert paths.config.read_bytes() == original
    assert sorted(p.name for p in paths.config.parent.iterdir()) == ["rates_xl.conf"]


def test_a_value_with_a_double_quote_is_refused_before_writing(cli, paths):
    code, _, err = cli("addin", "install", "--no-addin", "--python", 'C:\\odd"name\\python.exe')
    assert code == 1 and "cannot hold a double quote" in err
    assert not paths.config.exists()


def test_missing_addin_file_is_a_clear_error(cli, paths, tmp_path):
    code, _, err = cli("addin", "install", "--xlam", str(tmp_path / "nope.xlam"))
    assert code == 1 and "cannot read" in err and "nope.xlam" in err
    assert not paths.config.exists()


def test_uninstall_without_install_says_so(cli, paths):
    code, _, err = cli("addin", "uninstall")
    assert code == 1 and "nothing to uninstall" in err


def test_a_corrupt_install_record_is_reported(cli, paths):
    paths.config.parent.mkdir(parents=True)
    paths.config.with_name(install.RECORD_NAME).write_text("{not json")
    code, _, err = cli("addin", "uninstall")
    assert code == 1 and "cannot read the install record" in err


def test_where_things_live(tmp_path, monkeypatch):
    from pathlib import PureWindowsPath

    # Where the add-in's VBA reads: Environ("USERPROFILE") & "\.rates_xl\rates_xl.conf".
    windows = install.config_path(environ={"USERPROFILE": "C:\\Users\\me"}, platform="win32")
    assert PureWindowsPath(str(windows)).parts[-2:] == (".rates_xl", "rates_xl.conf")
    assert str(windows).startswith("C:\\Users\\me")
    assert install.config_path("x.conf", environ={install.ENV_CONFIG: "y.conf"}).name == "x.conf"
    appdata = {"APPDATA": "C:\\Users\\me\\AppData\\Roaming"}
    assert install.xlstart_dir(environ=appdata, platform="win32").parts[-3:] == ("Microsoft", "Excel", "XLSTART")
    assert install.xlstart_dir(environ={}, platform="darwin").name == "Excel"
    with pytest.raises(install.InstallError, match="--xlstart"):
        install.xlstart_dir(environ={}, platform="linux")
    assert install.interpreter_key("darwin") == "INTERPRETER_MAC"
    assert install.interpreter_key("win32") == "INTERPRETER_WIN"


def test_linux_without_xlstart_points_at_the_options(cli, paths, monkeypatch, built_xlam):
    monkeypatch.delenv("RATES_XL_XLSTART")
    if sys.platform.startswith("win") or sys.platform == "darwin":
        pytest.skip("Excel's XLSTART exists on this platform")
    code, _, err = cli("addin", "install", "--xlam", str(built_xlam))
    assert code == 1 and "--xlstart DIR" in err and "--no-addin" in err
    assert not paths.config.exists()


def test_the_record_lists_what_install_did(cli, paths, built_xlam):
    assert cli("addin", "install", "--xlam", str(built_xlam))[0] == 0
    record = json.loads(paths.config.with_name(install.RECORD_NAME).read_text())
    assert set(record["changes"]) == {"USE UDF SERVER", install.interpreter_key()}
    assert record["addin"]["sha256"] == install.sha256(built_xlam)
    assert record["config_existed"] is False


@pytest.mark.parametrize("text, key, expected", [
    ('"UDF MODULES","a;b"', "udf modules", "a;b"),
    ('  "Udf Modules" , "a" ', "UDF MODULES", "a"),
    ("UDF MODULES,plain", "UDF MODULES", "plain"),
    ('"UDF MODULES",""', "UDF MODULES", ""),
])
def test_config_lines_are_read_like_xlwings_reads_them(text, key, expected):
    assert install.ConfigFile.parse(text).get(key) == expected


def test_duplicate_entries_all_get_the_value_and_all_come_back():
    conf = install.ConfigFile.parse('"UDF MODULES","a"\n"x","y"\n"udf modules","b"\n')
    previous = conf.set("UDF MODULES", "rates_xl.addin.classic.udfs")
    assert previous == ["a", "b"]
    assert conf.values("UDF MODULES") == ["rates_xl.addin.classic.udfs", "rates_xl.addin.classic.udfs"]
    conf.restore("UDF MODULES", previous)
    assert conf.render() == '"UDF MODULES","a"\n"x","y"\n"udf modules","b"\n'


def test_uninstall_says_so_when_the_addin_is_already_gone(cli, paths, built_xlam):
    """Uninstall reports what it removed, not what it meant to: an add-in deleted since is
    a warning, never "removed"."""
    assert cli("addin", "install", "--xlam", str(built_xlam))[0] == 0
    placed = paths.xlstart / install.ADDIN_NAME
    placed.unlink()
    code, out, err = cli("addin", "uninstall")
    assert code == 0
    assert f"removed {placed}" not in out
    assert f"the add-in is no longer at {placed}: nothing to remove there" in err


def test_a_relative_xlstart_is_recorded_as_an_absolute_path(cli, paths, built_xlam, monkeypatch):
    monkeypatch.chdir(paths.root)
    assert cli("addin", "install", "--xlam", str(built_xlam), "--xlstart", "rel")[0] == 0
    record = install.load_record(paths.config)
    assert record["addin"]["path"] == str(paths.root / "rel" / install.ADDIN_NAME)


def test_an_old_relative_record_is_refused_and_nothing_changes(cli, paths, built_xlam, monkeypatch):
    """A record an older install wrote with the folder as typed: uninstall from elsewhere
    cannot know where it was, so it says so and changes nothing."""
    assert cli("addin", "install", "--xlam", str(built_xlam))[0] == 0
    record_file = paths.config.with_name(install.RECORD_NAME)
    record = json.loads(record_file.read_text())
    record["addin"]["path"] = os.path.join("rel", install.ADDIN_NAME)
    record_file.write_text(json.dumps(record))
    before = paths.config.read_bytes()
    monkeypatch.chdir(paths.root)
    code, out, err = cli("addin", "uninstall")
    assert code == 1 and "relative to the folder install ran in" in err and "nothing was changed" in err
    assert paths.config.read_bytes() == before and record_file.exists()
