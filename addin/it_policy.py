r"""What Windows and Office policy allow the classic add-in, read from the registry for
`rates-xl doctor` (issue 28). Read only: nothing here changes a setting.

The add-in needs two things managed desks often block:

- **Defender attack-surface-reduction rules** (Microsoft, "Attack surface reduction rules
  reference"): *Block Win32 API calls from Office macros* (92e97fa1-2edf-4476-bdd6-
  9dd0b4dddc7b) stops xlwings' `Declare ... Lib "xlwings64-<v>.dll"` and `LoadLibraryA`,
  which reach the UDF server; *Block all Office applications from creating child processes*
  (d4f940ab-401b-4efc-aadc-ad5f3c50688a) stops Excel starting that Python process. Each rule
  is read where group policy writes it (`HKLM\SOFTWARE\Policies\Microsoft\Windows Defender\
  Windows Defender Exploit Guard\ASR\Rules`, value named by the rule's id) and where
  `Set-MpPreference` keeps it (`HKLM\SOFTWARE\Microsoft\Windows Defender\Windows Defender
  Exploit Guard\ASR\Rules`); 0 off, 1 block, 2 audit, 6 warn. Rules deployed by Intune are
  not under these keys: "not configured here" is said as such, never as "allowed".
- **Excel's macro settings** (`HKCU\Software\Policies\Microsoft\Office\16.0\Excel\Security`
  from group policy, else the user's own under `HKCU\Software\Microsoft\Office\16.0\...`):
  `VBAWarnings` (1 enable all, 2 disable with notification, 3 disable except digitally
  signed, 4 disable all without notification), `RequireAddinSig` (add-ins must be signed by
  a trusted publisher), `Trusted Locations\AllLocationsDisabled`. The add-in is written into
  the user's XLSTART, one of Excel's default trusted locations, where its macros run whatever
  VBAWarnings says, unless trusted locations are disabled; the add-in is not signed (no
  independent reader here can verify a VBA project signature: docs/start/windows.md says what
  IT does instead), so `RequireAddinSig` stops it.

Tested with a fake reader on Linux (tests/addin/test_it_policy.py); on Windows `winreg`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Protocol

ASR_RULES = {
    "92e97fa1-2edf-4476-bdd6-9dd0b4dddc7b": ("Block Win32 API calls from Office macros",
                                             "stops the add-in's xlwings DLL calls"),
    "d4f940ab-401b-4efc-aadc-ad5f3c50688a": ("Block all Office applications from creating child processes",
                                             "stops Excel starting the add-in's Python"),
}
ASR_KEYS = (r"SOFTWARE\Policies\Microsoft\Windows Defender\Windows Defender Exploit Guard\ASR\Rules",
            r"SOFTWARE\Microsoft\Windows Defender\Windows Defender Exploit Guard\ASR\Rules")
ASR_STATES = {"0": "off", "1": "block", "2": "audit", "6": "warn"}
OFFICE = r"Software\Policies\Microsoft\Office\16.0\Excel\Security"
OFFICE_USER = r"Software\Microsoft\Office\16.0\Excel\Security"
VBA_WARNINGS = {1: "enable all macros", 2: "disable with notification", 3: "disable except digitally signed",
                4: "disable all without notification"}


class Reader(Protocol):
    """One registry value: `value("HKLM", key, name)`, None when absent or unreadable."""

    def value(self, hive: str, key: str, name: str) -> Any: ...


@dataclass(frozen=True)
class Finding:
    name: str
    blocks: bool  # the setting stops the add-in
    detail: str
    fix: str = ""


def asr(reader: Reader) -> list[Finding]:
    found = []
    for rule, (title, effect) in ASR_RULES.items():
        states = []
        for key in ASR_KEYS:
            raw = _asr_value(reader, key, rule)
            if raw is not None:
                states.append(ASR_STATES.get(str(raw).strip(), f"state {raw}"))
        if not states:
            found.append(Finding(f"asr: {title}", False, "not configured here (group policy and "
                                 "Set-MpPreference keys; an Intune rule is not visible here)"))
            continue
        state = states[0]
        blocks = state in ("block", "warn")
        fix = (f"ask IT for an ASR exclusion of the add-in's Python (pythonw.exe) and xlwings DLL for rule "
               f"{rule}, or to set it to audit for the desk (docs/start/windows.md)") if blocks else ""
        found.append(Finding(f"asr: {title}", blocks, f"{state}: {effect}" if blocks else state, fix))
    return found


def _asr_value(reader: Reader, key: str, rule: str) -> Any:
    for name in (rule, rule.upper()):  # value names are the rule id, written in either case
        raw = reader.value("HKLM", key, name)
        if raw is not None:
            return raw
    return None


def macros(reader: Reader) -> list[Finding]:
    found = []
    policy = reader.value("HKCU", OFFICE, "VBAWarnings")
    user = reader.value("HKCU", OFFICE_USER, "VBAWarnings")
    setting, source = (policy, "group policy") if policy is not None else (user, "the user's Trust Center")
    trusted_off = reader.value("HKCU", OFFICE + r"\Trusted Locations", "AllLocationsDisabled")
    if setting is None:
        found.append(Finding("macro settings", False, "Excel's default (disable with notification); the "
                             "add-in in XLSTART, a trusted location, runs without a prompt"))
    else:
        label = VBA_WARNINGS.get(_int(setting), f"VBAWarnings {setting}")
        blocks = bool(_int(trusted_off)) and _int(setting) in (3, 4)
        found.append(Finding("macro settings", blocks, f"{label} ({source})"
                             + ("; trusted locations disabled: the add-in's macros do not run" if blocks else
                                "; the add-in in XLSTART, a trusted location, runs")
                             , "ask IT to allow the add-in's folder as a trusted location by group policy"
                             if blocks else ""))
    if _int(trusted_off) and not found[-1].blocks:
        found.append(Finding("trusted locations", True, "disabled by policy: the add-in's macros follow "
                             "the macro setting", "ask IT for a trusted location by group policy"))
    require = reader.value("HKCU", OFFICE, "RequireAddinSig")
    if require is None:
        require = reader.value("HKCU", OFFICE_USER, "RequireAddinSig")
    if _int(require):
        found.append(Finding("signed add-ins only", True, "Excel requires add-ins signed by a trusted "
                             "publisher; rates_xl.xlam is not signed",
                             "ask IT to sign the built add-in with the company's code-signing certificate "
                             "(docs/start/windows.md) or lift RequireAddinSig for it"))
    return found


def findings(reader: Reader) -> list[Finding]:
    return asr(reader) + macros(reader)


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


class WindowsReader:
    """winreg, read only (Windows)."""

    def value(self, hive: str, key: str, name: str) -> Any:
        import winreg

        root = {"HKLM": winreg.HKEY_LOCAL_MACHINE, "HKCU": winreg.HKEY_CURRENT_USER}[hive]
        try:
            with winreg.OpenKey(root, key) as handle:
                return winreg.QueryValueEx(handle, name)[0]
        except OSError:
            return None


def windows_reader() -> Reader | None:
    return WindowsReader() if sys.platform.startswith("win") else None
