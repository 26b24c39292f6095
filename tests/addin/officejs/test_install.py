"""Sideload install/uninstall, the local certificates and `rates-xl serve` as a console process.

The OS-specific operations sit behind the seam of `sideload.Sideload` (a registry object
with get/set/delete, the wef folder as a path) and `certs.trust(run=...)` (the command
runner): a dict stands in for the registry and a recorder for certutil/security. The
files, the records and the logic are the real ones.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from rates_xl.addin.officejs import certs, manifest
from rates_xl.addin.officejs.sideload import VALUE_NAME, WEF_FILE, WEF_KEY, Sideload
from rates_xl.cli import main
from rates_xl.errors import CommandError
from rates_xl.sandbox import PAID_KEY
from tests.support.sandbox import free_port

URL = "https://localhost:8766"


class FakeRegistry:
    """One registry key's string values."""

    def __init__(self, values=None) -> None:
        self.values = dict(values or {})

    def get(self, name):
        return self.values.get(name)

    def set(self, name, value):
        self.values[name] = value

    def delete(self, name):
        self.values.pop(name, None)


def test_windows_install_registers_the_manifest_and_uninstall_removes_exactly_that(tmp_path):
    registry = FakeRegistry({"other-addin": r"C:\other\manifest.xml"})
    side = Sideload(tmp_path / "data", "win32", registry=registry)
    said = side.install(URL)
    assert registry.values == {"other-addin": r"C:\other\manifest.xml", VALUE_NAME: str(side.manifest_path)}
    assert manifest.check(side.manifest_path.read_text(), URL) == []
    assert any(WEF_KEY in line for line in said)
    side.install(URL)  # twice: still one value, and uninstall still knows it was absent
    assert side.uninstall()[0].startswith("removed HKCU")
    assert registry.values == {"other-addin": r"C:\other\manifest.xml"}
    assert not side.manifest_path.exists() and not side.record_path.exists()
    assert side.uninstall() == ["nothing to undo: rates-xl's manifest is not installed for this user (windows)"]


def test_windows_uninstall_restores_a_previous_value_and_leaves_a_changed_one(tmp_path):
    registry = FakeRegistry({VALUE_NAME: r"C:\old\rates-xl.xml"})
    side = Sideload(tmp_path, "win32", registry=registry)
    side.install(URL)
    side.uninstall()
    assert registry.values == {VALUE_NAME: r"C:\old\rates-xl.xml"}

    registry = FakeRegistry()
    side = Sideload(tmp_path, "win32", registry=registry)
    side.install(URL)
    registry.set(VALUE_NAME, r"D:\someone-else.xml")
    said = side.uninstall()
    assert "changed since install" in said[0]
    assert registry.values == {VALUE_NAME: r"D:\someone-else.xml"}


def test_mac_install_copies_into_wef_and_uninstall_restores_the_folder(tmp_path):
    wef = tmp_path / "Containers" / "com.microsoft.Excel" / "Data" / "Documents" / "wef"
    side = Sideload(tmp_path / "data", "darwin", wef_dir=wef)
    side.install(URL)
    assert (wef / WEF_FILE).read_bytes() == side.manifest_path.read_bytes()
    side.uninstall()
    assert not wef.exists()  # install created it, empty again: gone
    assert wef.parent.exists()

    # An existing folder with another add-in and an older copy of ours: both kept or restored.
    wef.mkdir(parents=True)
    (wef / "other.xml").write_text("other")
    (wef / WEF_FILE).write_text("an older rates-xl manifest")
    side.install(URL)
    assert (wef / WEF_FILE).read_text() != "an older rates-xl manifest"
    side.uninstall()
    assert sorted(p.name for p in wef.iterdir()) == sorted([WEF_FILE, "other.xml"])
    assert (wef / WEF_FILE).read_text() == "an older rates-xl manifest"
    assert (wef / "other.xml").read_text() == "other"


def test_web_install_prints_the_upload_steps(tmp_path):
    side = Sideload(tmp_path, "linux")
    said = side.install(URL)
    assert any("Upload My Add-in" in line and str(side.manifest_path) in line or "Upload My Add-in" in line
               for line in said)
    assert any(str(side.manifest_path) in line for line in said)
    assert json.loads(side.record_path.read_text())["platform"] == "web"
    side.uninstall()
    assert list(tmp_path.iterdir()) == []


def test_refresh_rewrites_an_installed_manifest_for_a_new_release(tmp_path, monkeypatch):
    side = Sideload(tmp_path, "win32", registry=FakeRegistry())
    side.install(URL)
    assert side.refresh(URL) == []  # unchanged
    monkeypatch.setattr(manifest, "asset_version", lambda: "9.9.9-new")
    assert "updated the installed manifest" in side.refresh(URL)[0]
    assert "/v/9.9.9-new/functions.js" in side.manifest_path.read_text()
    other = side.refresh("https://localhost:9999")  # another server's URL: not changed, but said
    assert other[0].startswith("warning: the installed manifest points at https://localhost:8766")
    assert "/v/9.9.9-new/" in side.manifest_path.read_text()


def test_certificates_chain_to_the_local_ca_and_are_private(tmp_path):
    from cryptography import x509

    paths, done = certs.ensure(certs.CertPaths(tmp_path))
    assert len(done) == 2
    assert oct(paths.ca_key.stat().st_mode & 0o777) == "0o600" and oct(paths.key.stat().st_mode & 0o777) == "0o600"
    cert = x509.load_pem_x509_certificate(paths.cert.read_bytes())
    ca = x509.load_pem_x509_certificate(paths.ca.read_bytes())
    cert.verify_directly_issued_by(ca)
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert names.get_values_for_type(x509.DNSName) == ["localhost"]
    assert [str(ip) for ip in names.get_values_for_type(x509.IPAddress)] == ["127.0.0.1", "::1"]
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    again, done_again = certs.ensure(paths)
    assert done_again == [] and paths.cert.read_bytes() == again.cert.read_bytes()


class Recorder:
    def __init__(self, returncode=0) -> None:
        self.commands, self.returncode = [], returncode

    def __call__(self, command):
        self.commands.append(list(command))
        return subprocess.CompletedProcess(command, self.returncode, "", "access denied")


def test_trust_and_untrust_run_the_per_user_commands(tmp_path):
    paths, _ = certs.ensure(certs.CertPaths(tmp_path))
    run = Recorder()
    certs.trust(paths.ca, "win32", run)
    certs.untrust(paths.ca, "win32", run)
    fingerprint = certs.ca_fingerprint(paths.ca)
    assert run.commands == [["certutil", "-user", "-addstore", "Root", str(paths.ca)],
                            ["certutil", "-user", "-delstore", "Root", fingerprint]]
    run = Recorder()
    certs.trust(paths.ca, "darwin", run)
    certs.untrust(paths.ca, "darwin", run)
    keychain = str(Path.home() / "Library" / "Keychains" / "login.keychain-db")
    assert run.commands == [["security", "add-trusted-cert", "-r", "trustRoot", "-k", keychain, str(paths.ca)],
                            ["security", "remove-trusted-cert", str(paths.ca)],
                            ["security", "delete-certificate", "-Z", fingerprint, keychain]]
    run = Recorder()
    steps = certs.trust(paths.ca, "linux", run)
    assert run.commands == [] and any(str(paths.ca) in s for s in steps)
    with pytest.raises(CommandError, match="access denied"):
        certs.trust(paths.ca, "win32", Recorder(returncode=1))


def test_rates_xl_serve_as_a_console_process(tmp_path, sandbox):
    """`rates-xl serve --certs` in a real process: creates and (on Linux) explains the CA,
    serves the manifest over TLS, answers a batch from the sandbox, never prints the key."""
    port = free_port()
    env = {**os.environ, "RATES_XL_DATA_DIR": str(tmp_path), "RATES_BASE_URL": sandbox.base_url,
           "RATES_API_KEY": PAID_KEY}
    process = subprocess.Popen([sys.executable, "-m", "rates_xl.cli", "serve", "--certs", "--port", str(port)],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        http = requests.Session()
        http.trust_env = False
        http.verify = str(tmp_path / "certs" / "rates-xl-ca.pem")
        base = f"https://localhost:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                response = http.get(base + "/manifest.xml", timeout=2)
                break
            except OSError:  # not listening yet, or the CA file not written yet
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.2)
        assert manifest.check(response.text, base) == []
        answer = http.post(base + "/api/batch", json={"calls": [{"fn": "TENORS", "args": ["SOFR"]}]},
                           headers={"Origin": base}, timeout=30).json()
        assert ["10Y"] in answer["results"][0]["value"]
        http.close()
    finally:
        process.terminate()
        output = process.communicate(timeout=15)[0]
    assert "created a certificate authority" in output and "Authorities > Import" in output
    assert f"rates-xl serve: {base}" in output and "API key set" in output
    assert PAID_KEY not in output
    # addin/README's checklist asks the user to look for these at the default level.
    assert "INFO:     batch: 1 calls, 1 distinct requests" in output, output
    # Stopped by SIGTERM (terminate): the console script's rule, exit 130.
    assert process.returncode == 130 and "rates-xl serve: interrupted" in output


def test_serve_on_a_taken_port_prints_no_banner(tmp_path, tls):
    """The "serving at" banner comes only once the port is ours, never before "cannot listen"."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "rates_xl.cli", "serve", "--port", str(port),
                               "--cert", str(tls.cert), "--key", str(tls.key)],
                              env={**os.environ, "RATES_XL_DATA_DIR": str(tmp_path)},
                              capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1
    assert f"rates-xl serve: cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "rates-xl serve: https://" not in done.stdout and "manifest:" not in done.stdout


def test_serve_says_what_to_do_without_a_certificate(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RATES_XL_DATA_DIR", str(tmp_path))
    assert main(["serve"]) == 1
    assert "rates-xl serve --certs" in capsys.readouterr().err
    assert main(["serve", "--cert", str(tmp_path / "x.pem")]) == 1
    assert "--cert and --key go together" in capsys.readouterr().err


def test_each_platform_is_installed_and_uninstalled_on_its_own(tmp_path):
    """Installed for the Mac and for the web, `uninstall --platform mac` undoes the Mac's (it
    undid the web's and left the Mac manifest in Excel's folder, issue 31); uninstall with no
    platform undoes what is left."""
    from tests.support.commands import fresh_env, rates_xl

    env = fresh_env(tmp_path / "home")
    wef = tmp_path / "home" / "Library" / "Containers" / "com.microsoft.Excel" / "Data" / "Documents" / "wef"
    for platform in ("mac", "web"):
        done = rates_xl("officejs", "install", "--platform", platform, cwd=tmp_path, env=env)
        assert done.returncode == 0, done.stderr
    assert (wef / WEF_FILE).is_file()
    mac = rates_xl("officejs", "uninstall", "--platform", "mac", cwd=tmp_path, env=env)
    assert mac.returncode == 0, mac.stderr
    assert f"removed {wef / WEF_FILE}" in mac.stdout and "Excel on the web" not in mac.stdout
    assert not (wef / WEF_FILE).exists() and not wef.exists()  # install made the folder: gone too
    again = rates_xl("officejs", "uninstall", "--platform", "mac", cwd=tmp_path, env=env)
    assert again.stdout.strip() == "nothing to undo: rates-xl's manifest is not installed for this user (mac)"
    rest = rates_xl("officejs", "uninstall", cwd=tmp_path, env=env)
    assert "Excel on the web: remove it under" in rest.stdout, rest.stdout
    data = Path(env["RATES_XL_DATA_DIR"])
    assert not list(data.glob("sideload*.json")) and not list(data.glob("manifest*.xml"))
    windows = rates_xl("officejs", "install", "--platform", "windows", cwd=tmp_path, env=env)
    if not sys.platform.startswith("win"):
        assert windows.returncode == 1 and "run it on the Windows computer" in windows.stderr


def test_a_record_from_before_each_platform_had_its_own_is_still_undone(tmp_path):
    wef = tmp_path / "wef"
    side = Sideload(tmp_path / "data", "darwin", wef_dir=wef)
    side.install(URL)
    # As an earlier release left it: one record, one manifest.
    (tmp_path / "data" / "manifest-mac.xml").rename(tmp_path / "data" / "manifest.xml")
    record = json.loads((tmp_path / "data" / "sideload-mac.json").read_text())
    record["manifest"] = str(tmp_path / "data" / "manifest.xml")
    (tmp_path / "data" / "sideload.json").write_text(json.dumps(record))
    (tmp_path / "data" / "sideload-mac.json").unlink()
    assert Sideload(tmp_path / "data", "linux").record() is None  # the web's: not installed
    said = Sideload(tmp_path / "data", "darwin", wef_dir=wef).uninstall()
    assert f"removed {wef / WEF_FILE}" in said
    assert not any((tmp_path / "data").iterdir())
