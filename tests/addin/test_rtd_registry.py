"""The RTD server's per-user registration (rtd_registry.py) and `rates-xl addin install /
uninstall` writing and removing it: a small fake of the registry (Windows only) with winreg's
rules (a key with subkeys cannot be deleted; setting a key's value creates it and its parents)."""

from __future__ import annotations

from rates_xl.addin.classic import install, rtd, rtd_registry


class FakeRegistry:
    """HKEY_CURRENT_USER as {key path (folded): default value}."""

    def __init__(self) -> None:
        # What every Windows user's hive has.
        self.keys: dict[str, str | None] = {"software": None, "software\\classes": None,
                                            "software\\classes\\clsid": None}

    @staticmethod
    def _fold(key: str) -> str:
        return key.casefold()

    def exists(self, key: str) -> bool:
        return self._fold(key) in self.keys

    def get(self, key: str) -> str | None:
        return self.keys.get(self._fold(key))

    def set(self, key: str, value: str) -> None:
        parts = key.split("\\")
        for i in range(1, len(parts)):  # winreg.SetValue creates the missing parents
            self.keys.setdefault(self._fold("\\".join(parts[:i])), None)
        self.keys[self._fold(key)] = value

    def delete(self, key: str) -> bool:
        folded = self._fold(key)
        if any(k.startswith(folded + "\\") for k in self.keys):
            return False  # winreg.DeleteKey: "cannot delete a key with subkeys"
        self.keys.pop(folded, None)
        return True


def value(registry, key):
    return registry.get(f"Software\\Classes\\{key}")


def test_the_keys_are_what_pywin32_would_write_per_user():
    reg = FakeRegistry()
    rtd_registry.register(reg, python=r"C:\Py\python.exe")
    clsid = f"CLSID\\{rtd.CLSID}"
    assert value(reg, f"{rtd.PROGID}\\CLSID") == rtd.CLSID
    assert value(reg, f"{clsid}\\ProgID") == rtd.PROGID
    assert value(reg, f"{clsid}\\PythonCOM") == "rates_xl.addin.classic.rtd_com.RatesRtdServer"
    assert value(reg, f"{clsid}\\PythonCOMPolicy") == "win32com.server.policy.DesignatedWrapPolicy"
    # No LocalServer32 (issue 28): COM fails at once while the UDF server is not running.
    assert not reg.exists(f"Software\\Classes\\{clsid}\\LocalServer32")
    # Per user only, and never in-process in Excel.
    assert all(k.startswith("software\\classes") or k == "software" for k in reg.keys)
    assert not any(k.endswith("inprocserver32") for k in reg.keys)


def test_the_class_and_policy_named_exist():
    import importlib

    module, _, name = rtd_registry.COM_CLASS.rpartition(".")
    cls = getattr(importlib.import_module(module), name)
    assert cls._reg_clsid_ == rtd.CLSID and cls._reg_progid_ == rtd.PROGID
    assert set(cls._public_methods_) == {"ServerStart", "ConnectData", "RefreshData", "DisconnectData",
                                         "Heartbeat", "ServerTerminate"}


def test_install_registers_and_uninstall_puts_everything_back(paths):
    reg = FakeRegistry()
    reg.set("Software\\Classes\\Other.Thing", "someone else's")
    before = dict(reg.keys)
    settings = install.desired_settings(r"C:\Py\python.exe", platform="win32")
    report = install.install(paths.config, None, None, settings, registry=reg)
    assert any("registered the RTD server" in line for line in report.lines)
    assert value(reg, f"{rtd.PROGID}\\CLSID") == rtd.CLSID
    install.install(paths.config, None, None, settings, registry=reg)  # twice: still reversible
    report = install.uninstall(paths.config, registry=reg)
    assert report.warnings == []
    assert reg.keys == before


def test_uninstall_leaves_a_key_changed_since_and_says_so(paths):
    reg = FakeRegistry()
    settings = install.desired_settings(r"C:\Py\python.exe", platform="win32")
    install.install(paths.config, None, None, settings, registry=reg)
    reg.set(f"Software\\Classes\\CLSID\\{rtd.CLSID}\\PythonCOMPolicy", "changed by hand")
    report = install.uninstall(paths.config, registry=reg)
    assert any("PythonCOMPolicy" in w and "changed after install" in w for w in report.warnings)
    assert value(reg, f"CLSID\\{rtd.CLSID}\\PythonCOMPolicy") == "changed by hand"
    assert not reg.exists(f"Software\\Classes\\{rtd.PROGID}")  # the rest is gone


def test_a_registration_that_replaced_one_is_restored(paths):
    reg = FakeRegistry()
    reg.set(f"Software\\Classes\\{rtd.PROGID}\\CLSID", "{00000000-0000-0000-0000-000000000000}")
    settings = install.desired_settings(r"C:\Py\python.exe", platform="win32")
    install.install(paths.config, None, None, settings, registry=reg)
    install.uninstall(paths.config, registry=reg)
    assert value(reg, f"{rtd.PROGID}\\CLSID") == "{00000000-0000-0000-0000-000000000000}"


def test_off_windows_nothing_is_registered(paths):
    assert rtd_registry.windows_registry() is None or __import__("sys").platform.startswith("win")
    settings = install.desired_settings("/usr/bin/python3")
    install.install(paths.config, None, None, settings, registry=None)
    assert "rtd" not in install.load_record(paths.config)


def test_the_com_layer_stays_off_outside_the_udf_server():
    from rates_xl.addin.classic import rtd_com

    rtd.waits.enabled = False
    assert rtd_com.enable() is False and rtd.waits.enabled is False
    assert rtd_com.main() == 1


def test_problems_says_what_is_missing_damaged_or_dangerous():
    reg = FakeRegistry()
    assert len(rtd_registry.problems(reg)) == len(rtd_registry.entries())  # nothing registered
    rtd_registry.register(reg, python=r"C:\Py\python.exe")
    assert rtd_registry.problems(reg) == []
    # A LocalServer32 (an earlier install's) is a problem: COM would start it and wait.
    reg.set(f"Software\\Classes\\CLSID\\{rtd.CLSID}\\LocalServer32", r'"D:\Other\python.exe" -m x')
    assert ["LocalServer32" in p and "wait" in p for p in rtd_registry.problems(reg)] == [True]
    rtd_registry.register(reg, python=r"C:\Py\python.exe")  # a new install removes it
    assert rtd_registry.problems(reg) == []
    reg.set(f"Software\\Classes\\CLSID\\{rtd.CLSID}\\PythonCOM", "someone.Else")
    reg.set(f"Software\\Classes\\CLSID\\{rtd.CLSID}\\InprocServer32", "python311.dll")
    found = rtd_registry.problems(reg)
    assert len(found) == 2 and "PythonCOM is 'someone.Else'" in found[0]
    assert "InprocServer32 exists" in found[1]


class _Loop:
    def is_running(self) -> bool:
        return True


def _fake_pywin32(monkeypatch) -> list:
    """pywin32 and xlwings' running UDF server, as enable() meets them in Excel (Windows only)."""
    import sys
    import types

    registered: list = []
    pythoncom = types.SimpleNamespace(
        CLSCTX_LOCAL_SERVER=4, REGCLS_MULTIPLEUSE=1, MakePyFactory=lambda clsid: ("factory", clsid),
        CoRegisterClassObject=lambda *args: registered.append(args) or "revoke-token")
    win32com = types.ModuleType("win32com")
    win32com.universal = types.SimpleNamespace(RegisterInterfaces=lambda *a: None)
    client = types.ModuleType("win32com.client")
    client.gencache = types.SimpleNamespace(EnsureModule=lambda *a: None)
    for name, module in {"pythoncom": pythoncom, "win32com": win32com, "win32com.client": client,
                         "xlwings.com_server": types.SimpleNamespace(loop=_Loop())}.items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.delenv("RATES_XL_ASYNC", raising=False)
    return registered


def test_the_com_layer_stays_synchronous_without_the_registration(monkeypatch):
    """Excel finds the server only through the per-user keys: without them a waiting cell
    would show #N/A for good, so the UDFs stay synchronous (slow but right)."""
    from rates_xl.addin.classic import rtd_com

    registered = _fake_pywin32(monkeypatch)
    monkeypatch.setattr(rtd.waits, "enabled", False)
    assert rtd_com.enable(registry=FakeRegistry()) is False
    assert rtd.waits.enabled is False and registered == []

    reg = FakeRegistry()
    rtd_registry.register(reg, python=r"C:\Py\python.exe")
    assert rtd_com.enable(registry=reg) is True
    assert rtd.waits.enabled is True and registered[0][0] == rtd.CLSID
