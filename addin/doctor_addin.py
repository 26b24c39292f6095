"""The classic add-in's set-up, as `rates-xl doctor` checks it: its settings file, the Python
it names (which must import rates_xl), the xlwings DLL where the add-in looks for it and of
the version it declares, the add-in in XLSTART and current, the RTD server's per-user
registration, and what Windows and Office policy allow it (it_policy.py). Off Windows and
macOS these are not applicable unless the add-in was set up here anyway.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from rates_xl.addin.doctor_check import FAIL, NA, OK, WARN, Check
from rates_xl.extras import install_hint


# -- the add-in's set-up (settings, interpreter, DLL, the .xlam) ----------------------------------
def check_config(config: Path) -> Check:
    from rates_xl.addin.classic.install import interpreter_key, read_config

    conf = read_config(config)
    if not conf.lines:
        return Check("settings", FAIL, f"no settings at {config}", "run: rates-xl addin install")
    problems = []
    interpreter = conf.get(interpreter_key())
    if not interpreter:
        problems.append(f"{interpreter_key()} is not set")
    elif not Path(interpreter).exists():
        problems.append(f"{interpreter_key()} points at {interpreter}, which does not exist")
    if (conf.get("USE UDF SERVER") or "").strip().lower() != "true":
        problems.append("USE UDF SERVER is not True (the ribbon could not reach the cells' cache)")
    if problems:
        return Check("settings", FAIL if len(problems) > 1 or "INTERPRETER" in problems[0] else WARN,
                     f"{config}: " + "; ".join(problems), "run: rates-xl addin install")
    return Check("settings", OK, f"{config}: interpreter {interpreter}, UDF server on")


#: What the configured Python must import for the UDF server, and the xlwings it has.
_PROBE = "import rates_xl.addin.classic.udfs, xlwings; print(xlwings.__version__)"


def configured_interpreter(config: Path) -> str | None:
    from rates_xl.addin.classic.install import interpreter_key, read_config

    return read_config(config).get(interpreter_key())


def check_interpreter(config: Path, timeout: float = 120) -> tuple[Check, str | None]:
    """Can the Python Excel will start import rates_xl? Returns the check and its xlwings version."""
    import subprocess

    interpreter = configured_interpreter(config)
    if not interpreter or not Path(interpreter).exists():
        return Check("udf python", FAIL, "no interpreter configured", "run: rates-xl addin install"), None
    try:
        done = subprocess.run([interpreter, "-c", _PROBE], capture_output=True, text=True,
                              timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Check("udf python", FAIL, f"{interpreter} did not run: {exc}",
                     "point the add-in at a working Python: rates-xl addin install --python PATH"), None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return Check("udf python", FAIL, f"{interpreter} cannot import rates_xl: {last}",
                     f'run: "{interpreter}" -m {install_hint()} (or rates-xl addin install '
                     "with the Python that has it)"), None
    version = done.stdout.strip()
    return Check("udf python", OK, f"{interpreter} imports rates_xl (xlwings {version})"), version


def dll_folders(interpreter: str) -> list[Path]:
    """Where the add-in's VBA (XLPyLoadDLL) looks: beside python.exe, then one folder up."""
    exe = Path(interpreter)
    return [exe.parent, exe.parent.parent]


def check_dll(config: Path, udf_xlwings: str | None, platform: str = sys.platform) -> Check:
    """The DLL the add-in declares exists where it looks, and matches the Python's xlwings."""
    from rates_xl.addin.classic.install import load_record

    record = load_record(config) or {}
    declared = (record.get("addin") or {}).get("xlwings_version")
    if not declared:
        return Check("xlwings dll", WARN, "the add-in was not built by rates-xl addin install",
                     "run: rates-xl addin install")
    fix = "run: rates-xl addin install (it rebuilds the add-in for the installed xlwings)"
    if udf_xlwings and udf_xlwings != declared:
        return Check("xlwings dll", FAIL,
                     f"the add-in declares xlwings64-{declared}.dll, but that Python has "
                     f"xlwings {udf_xlwings}: every RATES_ cell would fail to load the DLL", fix)
    interpreter = configured_interpreter(config)
    if not interpreter:
        return Check("xlwings dll", FAIL, "no interpreter configured", "run: rates-xl addin install")
    names = [f"xlwings64-{declared}.dll", f"xlwings32-{declared}.dll"]
    found = [folder / name for folder in dll_folders(interpreter) for name in names
             if (folder / name).is_file()]
    if found:
        return Check("xlwings dll", OK, f"{found[0]} (the version the add-in declares)")
    where = " or ".join(str(f) for f in dll_folders(interpreter))
    if not platform.startswith("win"):
        return Check("xlwings dll", WARN, f"xlwings64-{declared}.dll not in {where} "
                     "(the DLL ships in xlwings' Windows wheels only)",
                     "nothing to do on this machine: Excel and the DLL are Windows-only")
    return Check("xlwings dll", FAIL, f"xlwings64-{declared}.dll is in neither {where}",
                 f'run: "{interpreter}" -m pip install --force-reinstall "xlwings=={declared}"')


def check_addin(xlstart: Path | None, problem: str | None, current: bytes | None = None) -> Check:
    """The add-in in XLSTART, and whether it is what this installation builds (`current`)."""
    from rates_xl.addin.classic.install import ADDIN_NAME

    if xlstart is None:
        return Check("add-in", WARN, problem or "no XLSTART folder on this platform",
                     "on Windows: rates-xl addin install")
    path = xlstart / ADDIN_NAME
    if not path.is_file():
        return Check("add-in", FAIL, f"not in {xlstart}", "run: rates-xl addin install")
    if current is None:
        from rates_xl.addin.classic import build, build_sources

        try:
            current = build.build_xlam()[0]
        except build_sources.AddinBuildError as exc:
            return Check("add-in", WARN, f"{path} (cannot build a fresh copy to compare: {exc})")
    if _parts(path.read_bytes()) != _parts(current):
        return Check("add-in", FAIL, f"{path} is out of date (built from other sources or "
                     "another xlwings)", "quit Excel, then run: rates-xl addin install")
    return Check("add-in", OK, f"{path} (current)")


def check_rtd(platform: str, registry: Any = None) -> Check:
    """The RTD server's per-user registration (what `rates-xl addin install` writes): without
    it Excel cannot start the server, and a new RATES_ cell makes Excel wait for its answer."""
    from rates_xl.addin.classic import rtd, rtd_com, rtd_registry

    if not platform.startswith("win"):
        return Check("rtd server", NA, f"not applicable here: the RTD server is a Windows COM "
                                       f"server, this is {platform}")
    if registry is None:
        registry = rtd_registry.windows_registry()
    fix = "quit Excel, then run: rates-xl addin install"
    if registry is None:  # not really on Windows (a test saying win32)
        return Check("rtd server", WARN, "cannot read this user's registry", fix)
    found = rtd_registry.problems(registry)
    if found:
        unregistered = len(found) >= len(rtd_registry.entries())
        detail = (f"{rtd.PROGID} is not registered for this user" if unregistered
                  else f"{rtd.PROGID}'s registration is damaged: " + "; ".join(found[:3]))
        return Check("rtd server", FAIL, detail + ": a new RATES_ cell makes Excel wait for its "
                     "answer", fix)
    if os.environ.get(rtd_com.ENV_SWITCH, "").strip() == "0":
        return Check("rtd server", WARN, f"{rtd.PROGID} registered, but {rtd_com.ENV_SWITCH}=0 "
                     "keeps RATES_ cells synchronous (Excel waits for each answer)",
                     f"unset {rtd_com.ENV_SWITCH} and restart Excel")
    return Check("rtd server", OK, f"{rtd.PROGID} registered for this user "
                 f"(HKCU\\{rtd_registry.CLASSES}\\CLSID\\{rtd.CLSID})")


def _parts(package: bytes) -> dict[str, str] | None:
    """SHA-256 of each part: what the add-in holds, whatever zlib compressed it."""
    import hashlib
    import io
    import zipfile

    try:
        with zipfile.ZipFile(io.BytesIO(package)) as archive:
            return {n: hashlib.sha256(archive.read(n)).hexdigest() for n in archive.namelist()}
    except (zipfile.BadZipFile, OSError, KeyError):
        return None


def excel_runs_here(config: Path, platform: str) -> bool:
    """Do the classic add-in's checks apply? Excel runs on Windows and macOS; elsewhere they
    apply only when the add-in was set up here anyway (its settings file exists)."""
    return platform.startswith("win") or platform == "darwin" or config.exists()


def not_applicable(name: str, platform: str) -> Check:
    return Check(name, NA, f"not applicable here: Excel runs on Windows and macOS, this is "
                           f"{platform} (compute workbooks with rates-xl calc)")


def check_policy(platform: str, reader: Any = None) -> list[Check]:
    """Defender's two ASR rules and Excel's macro policy, where the registry shows them
    (addin/it_policy.py); n/a off Windows."""
    from rates_xl.addin import it_policy

    if not platform.startswith("win"):
        return [Check("it policy", NA, "not applicable here: Defender and Office policies are read on Windows")]
    reader = reader if reader is not None else it_policy.windows_reader()
    if reader is None:
        return [Check("it policy", WARN, "cannot read the registry")]
    return [Check(f.name, FAIL if f.blocks else OK, f.detail, f.fix) for f in it_policy.findings(reader)]
