"""`rates-xl doctor` against the sandbox over loopback, and against nothing listening."""

from __future__ import annotations

import re
import socket
import sys

import pytest
import xlwings

from rates_xl.addin import doctor, doctor_addin, doctor_check, doctor_network


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def installed(cli, paths):
    assert cli("addin", "install")[0] == 0  # builds the add-in for the installed xlwings
    return paths


def _lines(out: str) -> dict[str, str]:
    """{check name: state} from doctor's `[state] name  detail` lines."""
    found = {}
    for line in out.splitlines():
        match = re.match(r"^\[\s*([\w/]+)\] (.+?)\s{2,}", line)
        if match:
            found[match.group(2)] = match.group(1)
    return found


def test_everything_set_up_passes(cli, installed, keychain, sandbox, sandbox_key, monkeypatch):
    monkeypatch.setenv("RATES_API_KEY", sandbox_key)
    code, out, err = cli("doctor", "--base-url", sandbox.base_url)
    assert code == 0, out + err
    states = _lines(out)
    dll = "ok" if sys.platform.startswith("win") else "warn"  # the DLL ships in Windows wheels
    rtd = "ok" if sys.platform.startswith("win") else "n/a"  # a COM server
    assert states == {"python": "ok", "packages": "ok", "settings": "ok", "udf python": "ok",
                      "xlwings dll": dll, "add-in": "ok", "rtd server": rtd, "api key": "ok", "caches": "ok",
                      "certificates": "ok", "proxy": "ok", "tls": "ok",
                      "service": "ok", "test request": "ok",
                      **({} if sys.platform.startswith("win") else {"it policy": "n/a"})}
    assert "swap_rate_tenors(SOFR):" in out and "tenors (" in out
    assert f"imports rates_xl (xlwings {xlwings.__version__})" in out
    assert "13 of 13 checks passed" in out
    assert sandbox_key not in out + err


def test_a_missing_key_fails_the_test_request_and_says_how_to_fix_it(cli, installed, keychain, sandbox):
    code, out, _ = cli("doctor", "--base-url", sandbox.base_url)
    assert code == 1
    states = _lines(out)
    assert states["api key"] == "warn" and states["test request"] == "FAIL"
    assert "fix: set a key with `rates-xl key set`" in out


def test_nothing_listening_is_reported_with_a_fix(cli, installed, keychain):
    url = f"http://127.0.0.1:{_closed_port()}"
    code, out, _ = cli("doctor", "--base-url", url, "--timeout", "2")
    assert code == 1
    assert f"{url}: connection refused" in out
    assert "skipped: the service is not reachable" in out
    assert "fix: check the network" in out


def test_no_config_says_run_install(cli, paths, keychain, sandbox, sandbox_key, monkeypatch):
    monkeypatch.setenv("RATES_API_KEY", sandbox_key)
    monkeypatch.setattr(doctor, "this_platform", lambda: "win32")  # where Excel runs
    code, out, _ = cli("doctor", "--base-url", sandbox.base_url)
    assert code == 1
    assert _lines(out)["settings"] == "FAIL"
    assert "fix: run: rates-xl addin install" in out
    assert _lines(out)["add-in"] == "FAIL"


def test_a_stale_config_is_explained(paths, tmp_path):
    paths.config.parent.mkdir(parents=True)
    paths.config.write_text('"INTERPRETER_WIN","C:\\gone\\python.exe"\n'
                            '"INTERPRETER_MAC","/gone/python"\n')
    check = doctor_addin.check_config(paths.config)
    assert check.state == doctor_check.FAIL
    assert "does not exist" in check.detail
    assert "USE UDF SERVER is not True" in check.detail


def _fake_install(paths, tmp_path, built_for: str, dll_version: str | None):
    """A Python in a venv-like folder, with (or without) the DLL where the add-in looks."""
    from rates_xl.addin.classic import install

    scripts = tmp_path / "venv" / "Scripts"
    scripts.mkdir(parents=True)
    python = scripts / "python.exe"
    python.write_text("")
    if dll_version:
        (tmp_path / "venv" / f"xlwings64-{dll_version}.dll").write_bytes(b"MZ")
    install.install(paths.config, paths.xlstart, b"an add-in", install.desired_settings(str(python)),
                    built_for)
    return python


def test_the_dll_the_addin_declares_is_found_where_it_looks(paths, tmp_path):
    _fake_install(paths, tmp_path, "0.37.8", "0.37.8")
    check = doctor_addin.check_dll(paths.config, "0.37.8", platform="win32")
    assert check.state == doctor_check.OK and "xlwings64-0.37.8.dll" in check.detail


def test_an_upgraded_xlwings_is_caught_with_the_command_that_fixes_it(paths, tmp_path):
    _fake_install(paths, tmp_path, "0.37.8", "0.38.0")
    check = doctor_addin.check_dll(paths.config, "0.38.0", platform="win32")
    assert check.state == doctor_check.FAIL
    assert "declares xlwings64-0.37.8.dll" in check.detail and "xlwings 0.38.0" in check.detail
    assert "rates-xl addin install" in check.fix


def test_a_missing_dll_names_both_folders_and_the_fix(paths, tmp_path):
    python = _fake_install(paths, tmp_path, "0.37.8", None)
    check = doctor_addin.check_dll(paths.config, "0.37.8", platform="win32")
    assert check.state == doctor_check.FAIL
    assert str(python.parent) in check.detail and str(python.parent.parent) in check.detail
    assert 'pip install --force-reinstall "xlwings==0.37.8"' in check.fix


@pytest.mark.skipif(sys.platform.startswith("win"), reason="uses /bin/false as a broken Python")
def test_a_python_that_cannot_import_rates_xl_fails(paths, tmp_path):
    from rates_xl.addin.classic import install

    install.install(paths.config, None, None, install.desired_settings("/bin/false"))
    check, version = doctor_addin.check_interpreter(paths.config)
    assert check.state == doctor_check.FAIL and version is None
    assert "cannot import rates_xl" in check.detail
    # rates-xl is installed from its clone (no package on PyPI): the fix names this one.
    from rates_xl.extras import clone

    assert f'/bin/false" -m pip install -e "{clone()}"' in check.fix


def test_an_addin_that_is_not_current_is_caught(paths, built):
    paths.xlstart.mkdir(parents=True)
    (paths.xlstart / "rates_xl.xlam").write_bytes(b"not even a zip")
    check = doctor_addin.check_addin(paths.xlstart, None, current=built.xlam)
    assert check.state == doctor_check.FAIL and "out of date" in check.detail
    assert "rates-xl addin install" in check.fix
    import io
    import zipfile

    older = io.BytesIO()  # the same parts but one, as an add-in built by another xlwings
    with zipfile.ZipFile(io.BytesIO(built.xlam)) as source, zipfile.ZipFile(older, "w") as target:
        for name in source.namelist():
            data = source.read(name)
            target.writestr(name, data + b"\0" if name == "xl/vbaProject.bin" else data)
    (paths.xlstart / "rates_xl.xlam").write_bytes(older.getvalue())
    assert doctor_addin.check_addin(paths.xlstart, None, current=built.xlam).state == doctor_check.FAIL
    recompressed = io.BytesIO()  # the same parts, compressed by another zlib: still current
    with zipfile.ZipFile(io.BytesIO(built.xlam)) as source, \
            zipfile.ZipFile(recompressed, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as target:
        for name in source.namelist():
            target.writestr(name, source.read(name))
    (paths.xlstart / "rates_xl.xlam").write_bytes(recompressed.getvalue())
    assert doctor_addin.check_addin(paths.xlstart, None, current=built.xlam).state == doctor_check.OK


@pytest.mark.parametrize("argv", [("doctor", "--timeout", "0"), ("doctor", "--timeout", "soon"),
                                  ("doctor", "--verbose")])
def test_bad_flags(cli, argv):
    code, _, err = cli(*argv)
    assert code == 2 and "usage:" in err


def test_probe_reports_bad_urls():
    assert not doctor_network.probe("not a url").reachable
    assert "no http://" in doctor_network.probe("example.invalid/v1").summary


def test_without_excel_the_addin_checks_are_not_applicable(cli, paths, keychain, sandbox,
                                                          sandbox_key, monkeypatch):
    """On Linux with nothing installed, the add-in's checks say why they do not apply; they
    do not fail with a fix (`rates-xl addin install`) that cannot run there."""
    monkeypatch.setenv("RATES_API_KEY", sandbox_key)
    monkeypatch.setattr(doctor, "this_platform", lambda: "linux")
    code, out, _ = cli("doctor", "--base-url", sandbox.base_url)
    states = _lines(out)
    for name in ("settings", "udf python", "xlwings dll", "add-in", "rtd server"):
        assert states[name] == "n/a", out
    assert "not applicable here: Excel runs on Windows and macOS" in out
    assert "addin install" not in out
    assert code == 0, out


def test_a_404_at_the_probe_path_fails_the_service_check(cli, paths, keychain, sandbox, monkeypatch):
    """A base URL one folder off answers 404 everywhere: the service check fails with the fix."""
    monkeypatch.setattr(doctor, "this_platform", lambda: "linux")
    code, out, _ = cli("doctor", "--base-url", sandbox.base_url + "/api", "--timeout", "5")
    states = _lines(out)
    assert code == 1 and states["service"] == "FAIL", out
    assert "HTTP 404" in out and "not the rates service's root" in out
    assert "fix: set RATES_BASE_URL (or --base-url) to the service's root" in out


def test_a_base_url_without_a_scheme_is_one_clear_failure(cli, paths, keychain, monkeypatch):
    monkeypatch.setattr(doctor, "this_platform", lambda: "linux")
    code, out, _ = cli("doctor", "--base-url", "127.0.0.1:8765", "--timeout", "2")
    assert code == 1
    assert "direct to" not in out and "proxy" not in _lines(out)
    assert "the base URL '127.0.0.1:8765' has no http:// or https://" in out


def test_the_rtd_servers_registration_is_checked_with_the_fix(monkeypatch):
    """On Windows: the keys `addin install` writes (rtd_registry); missing or damaged, doctor
    fails with the command that writes them; elsewhere not applicable."""
    from rates_xl.addin.classic import rtd, rtd_registry
    from tests.addin.test_rtd_registry import FakeRegistry

    monkeypatch.delenv("RATES_XL_ASYNC", raising=False)
    reg = FakeRegistry()
    check = doctor_addin.check_rtd("win32", reg)
    assert check.state == doctor_check.FAIL and f"{rtd.PROGID} is not registered for this user" in check.detail
    assert check.fix == "quit Excel, then run: rates-xl addin install"

    rtd_registry.register(reg, python=r"C:\Py\python.exe")
    check = doctor_addin.check_rtd("win32", reg)
    assert check.state == doctor_check.OK and rtd.CLSID in check.detail

    reg.set(f"Software\\Classes\\{rtd.PROGID}\\CLSID", "{00000000-0000-0000-0000-000000000000}")
    check = doctor_addin.check_rtd("win32", reg)
    assert check.state == doctor_check.FAIL and "damaged" in check.detail and "addin install" in check.fix

    rtd_registry.register(reg, python=r"C:\Py\python.exe")
    monkeypatch.setenv("RATES_XL_ASYNC", "0")
    check = doctor_addin.check_rtd("win32", reg)
    assert check.state == doctor_check.WARN and "RATES_XL_ASYNC" in check.fix

    assert doctor_addin.check_rtd("darwin").state == doctor_check.NA
    assert doctor_addin.check_rtd("linux").state == doctor_check.NA
