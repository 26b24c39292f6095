r"""The RTD server's registration, per user: keys under HKEY_CURRENT_USER\Software\Classes.

Windows merges HKCU\Software\Classes into HKEY_CLASSES_ROOT for the user, so a per-user
registration needs no administrator rights (learn.microsoft.com/windows/win32/sysinfo/
hkey-classes-root-key). pywin32's own `win32com.server.register` writes the same keys under
HKEY_CLASSES_ROOT (which needs administrator rights): `CLSID\{clsid}` with its description,
`ProgID`, `PythonCOM` (the class, "module.Class"), `PythonCOMPolicy`, `LocalServer32`, and
`<ProgID>\CLSID`. We write them ourselves, with these choices:

- `PythonCOMPolicy` = `win32com.server.policy.DesignatedWrapPolicy` (pywin32's
  DefaultPolicy class under its own name): xlwings' UDF server replaces the module's
  `DefaultPolicy` with a policy that creates only its own XLPython object (xlwings 0.37.8
  com_server.serve), and pywin32's CreateInstance uses DefaultPolicy unless the CLSID names
  a policy.
- No `InprocServer32`: Excel must never load Python into its own process.
- No `LocalServer32` (issue 28): the server object Excel talks to is the one the UDF server
  registers at run time (`rtd_com.enable`, CoRegisterClassObject), so it shares the cells'
  cache, and COM finds a class object registered at run time with no registry key at all:
  xlwings' own UDF server is reached that way (its DLL calls CoCreateInstance on a CLSID
  registered nowhere, gets REGDB_E_CLASSNOTREG at once while the server is not running,
  starts it and retries: xlwingsdll/config.cpp, xlwings 0.37.8; com_server.serve registers
  the class object). A `LocalServer32` naming a command that never registers the class made
  COM start it and wait for it whenever Excel wanted the RTD server before the UDF server
  ran (a workbook with waiting cells opened first); without one, Excel's request fails at
  once and the add-in's start (ribbon_refresh.start) recalculates those cells. `register`
  removes a `LocalServer32` an earlier install wrote; `problems` reports one.

`install` records what each key held before; `uninstall` puts it back (deleting the keys it
created) unless the value was changed since, which it leaves and reports.
"""

from __future__ import annotations

import sys
from typing import Protocol

from rates_xl.addin.classic import rtd

CLASSES = "Software\\Classes"
COM_CLASS = "rates_xl.addin.classic.rtd_com.RatesRtdServer"
POLICY = "win32com.server.policy.DesignatedWrapPolicy"
DESCRIPTION = "rates-xl RTD server (RATES_ cells waiting for an answer)"


class Registry(Protocol):
    """Default values of keys under HKEY_CURRENT_USER (paths with backslashes)."""

    def exists(self, key: str) -> bool: ...

    def get(self, key: str) -> str | None: ...

    def set(self, key: str, value: str) -> None: ...

    def delete(self, key: str) -> bool: ...  # only a key without subkeys; False if it has some


def entries(python: str | None = None) -> dict[str, str]:
    """{key under HKCU: its default value}, parents before children. (`python` is kept for
    callers: no key names the interpreter since LocalServer32 went.)"""
    clsid = f"{CLASSES}\\CLSID\\{rtd.CLSID}"
    return {
        f"{CLASSES}\\{rtd.PROGID}": DESCRIPTION,
        f"{CLASSES}\\{rtd.PROGID}\\CLSID": rtd.CLSID,
        clsid: DESCRIPTION,
        f"{clsid}\\ProgID": rtd.PROGID,
        f"{clsid}\\PythonCOM": COM_CLASS,
        f"{clsid}\\PythonCOMPolicy": POLICY,
    }


def local_server_key() -> str:
    """The `LocalServer32` key earlier installs wrote (and `register` now removes)."""
    return f"{CLASSES}\\CLSID\\{rtd.CLSID}\\LocalServer32"


def problems(registry: Registry) -> list[str]:
    """What is wrong with this user's registration, [] when Excel can reach the server: each
    key `register` writes holds our value, no InprocServer32 would load Python into Excel,
    and no LocalServer32 would make COM start a command and wait for it.
    `rtd_com.enable` and `rates-xl doctor` both ask this."""
    found: list[str] = []
    clsid = f"{CLASSES}\\CLSID\\{rtd.CLSID}"
    any_value = {f"{CLASSES}\\{rtd.PROGID}", clsid}  # descriptions
    for key, value in entries().items():
        if not registry.exists(key):
            found.append(f"HKCU\\{key} is missing")
        elif key not in any_value and registry.get(key) != value:
            found.append(f"HKCU\\{key} is {registry.get(key)!r}, not {value!r}")
    inproc = f"{clsid}\\InprocServer32"
    if registry.exists(inproc):
        found.append(f"HKCU\\{inproc} exists: Excel would load Python into its own process")
    if registry.exists(local_server_key()):
        found.append(f"HKCU\\{local_server_key()} exists: COM would start it for a workbook opened before "
                     "the add-in's Python and wait for a server that never registers")
    return found


def register(registry: Registry, python: str | None = None) -> dict[str, dict]:
    """Write the keys; returns the record uninstall needs: per key, what it held before and
    what we wrote. A second install keeps the first one's 'before'."""
    record: dict[str, dict] = {}
    for key, value in entries(python).items():
        record[key] = {"existed": registry.exists(key), "previous": registry.get(key), "value": value}
        registry.set(key, value)
    stale = local_server_key()
    if registry.exists(stale):
        # An earlier install's LocalServer32 (see the module's notes): removed, and recorded so
        # that uninstall can put back what was there before rates-xl ever wrote one.
        record[stale] = {"existed": True, "previous": registry.get(stale), "value": None, "removed": True}
        registry.delete(stale)
    return record


def unregister(registry: Registry, record: dict[str, dict]) -> tuple[list[str], list[str]]:
    """Put every key back as it was; (what was done, warnings)."""
    done: list[str] = []
    warnings: list[str] = []
    for key in sorted(record, key=lambda k: k.count("\\"), reverse=True):  # children first
        entry = record[key]
        if entry.get("removed"):
            continue  # what install removed (an earlier install's LocalServer32) stays removed
        current = registry.get(key)
        if not registry.exists(key):
            continue
        if current != entry["value"]:
            warnings.append(f"RTD registration: left HKCU\\{key}: it was changed after install")
            continue
        if entry["existed"]:
            registry.set(key, entry["previous"] or "")
            done.append(f"RTD registration: restored HKCU\\{key}")
        elif registry.delete(key):
            done.append(f"RTD registration: removed HKCU\\{key}")
        else:
            warnings.append(f"RTD registration: left HKCU\\{key}: something else was added under it")
    return done, warnings


def merge(first: dict[str, dict] | None, again: dict[str, dict]) -> dict[str, dict]:
    """A repeated install: the first record's 'before' stays, the latest 'value' wins."""
    if not first:
        return again
    merged = dict(again)
    for key, entry in first.items():
        if key in merged:
            merged[key] = {**merged[key], "existed": entry["existed"], "previous": entry["previous"]}
        else:
            merged[key] = entry
    return merged


class WindowsRegistry:
    """HKEY_CURRENT_USER through winreg (Windows only)."""

    def __init__(self) -> None:
        import winreg  # noqa: F401 (fails early off Windows)

    def exists(self, key: str) -> bool:
        import winreg

        try:
            winreg.OpenKey(winreg.HKEY_CURRENT_USER, key).Close()
            return True
        except FileNotFoundError:
            return False

    def get(self, key: str) -> str | None:
        import winreg

        try:
            return str(winreg.QueryValue(winreg.HKEY_CURRENT_USER, key))
        except FileNotFoundError:
            return None

    def set(self, key: str, value: str) -> None:
        import winreg

        winreg.SetValue(winreg.HKEY_CURRENT_USER, key, winreg.REG_SZ, value)  # creates the key

    def delete(self, key: str) -> bool:
        import winreg

        try:
            winreg.DeleteKey(winreg.HKEY_CURRENT_USER, key)  # fails on a key with subkeys
            return True
        except FileNotFoundError:
            return True
        except OSError:
            return False


def windows_registry() -> Registry | None:
    """The real registry on Windows, else None (nothing to register)."""
    if not sys.platform.startswith("win"):
        return None
    return WindowsRegistry()
