"""`rates-xl doctor`: check the installation end to end and say what to fix for each failure.

Checks, in the order a problem would bite: Python and package versions, the add-in's own
settings file, that the Python it names imports rates_xl, the xlwings DLL where the add-in
looks for it and of the version it declares, the add-in in XLSTART and current, the API key,
the base URL answering at all, and one real request through the client (`swap_rate_tenors`
for SOFR). Each failure comes with the command that fixes it.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

OK, WARN, FAIL = "ok", "warn", "FAIL"
PACKAGES = ("rates-xl", "xlwings", "keyring", "pydantic", "requests", "tenacity", "cachetools")
MIN_PYTHON = (3, 11)


@dataclass(frozen=True)
class Check:
    name: str
    state: str  # OK, WARN or FAIL
    detail: str
    fix: str = ""


@dataclass(frozen=True)
class Reachability:
    reachable: bool
    summary: str


def probe(base_url: str, timeout: float = 5.0) -> Reachability:
    """Does anything answer HTTP at the base URL? Any status counts as reachable."""
    import requests

    started = time.perf_counter()
    try:
        response = requests.get(base_url, timeout=timeout, allow_redirects=False)
    except requests.exceptions.InvalidURL:
        return Reachability(False, f"not a valid URL: {base_url}")
    except requests.exceptions.MissingSchema:
        return Reachability(False, f"not a valid URL (no http:// or https://): {base_url}")
    except requests.exceptions.SSLError:
        return Reachability(False, "TLS handshake failed (a proxy or an old certificate store?)")
    except requests.exceptions.Timeout:
        return Reachability(False, f"no answer within {timeout:g} s")
    except requests.exceptions.ConnectionError as exc:
        reason = "connection refused" if "refused" in str(exc).lower() else "cannot connect"
        return Reachability(False, reason)
    except requests.exceptions.RequestException as exc:
        return Reachability(False, type(exc).__name__)
    elapsed = (time.perf_counter() - started) * 1000
    response.close()
    return Reachability(True, f"reachable (HTTP {response.status_code} in {elapsed:.0f} ms)")


def check_python() -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    if sys.version_info[:2] < MIN_PYTHON:
        return Check("python", FAIL, f"Python {version} at {sys.executable}",
                     "install Python 3.11 or newer and reinstall rates-xl with it")
    return Check("python", OK, f"Python {version} at {sys.executable}")


def check_packages() -> Check:
    from importlib import metadata

    found, missing = [], []
    for name in PACKAGES:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            missing.append(name)
    if missing:
        return Check("packages", FAIL, "missing: " + ", ".join(missing),
                     'reinstall: pip install --upgrade "rates-xl"')
    return Check("packages", OK, ", ".join(found))


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
                     f'run: "{interpreter}" -m pip install rates-xl (or rates-xl addin install '
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
        from rates_xl.addin.classic import build

        try:
            current = build.build_xlam()[0]
        except build.BuildError as exc:
            return Check("add-in", WARN, f"{path} (cannot build a fresh copy to compare: {exc})")
    if _parts(path.read_bytes()) != _parts(current):
        return Check("add-in", FAIL, f"{path} is out of date (built from other sources or "
                     "another xlwings)", "quit Excel, then run: rates-xl addin install")
    return Check("add-in", OK, f"{path} (current)")


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


def check_key() -> Check:
    from rates_xl.addin.keys import key_state

    state = key_state()
    if state.is_set:
        return Check("api key", OK, state.describe())
    fix = "run: rates-xl key set (or set RATES_API_KEY)"
    return Check("api key", WARN if state.keychain_problem is None else FAIL, state.describe(), fix)


def check_reachable(base_url: str, timeout: float) -> Check:
    reach = probe(base_url, timeout)
    if reach.reachable:
        return Check("service", OK, f"{base_url}: {reach.summary}")
    return Check("service", FAIL, f"{base_url}: {reach.summary}",
                 "check the network, a proxy (HTTPS_PROXY) or RATES_BASE_URL")


def check_request(base_url: str, timeout: float) -> Check:
    from rates_xl.client import AuthError, RatesClient, RatesError

    try:
        with RatesClient(base_url=base_url, timeout=timeout, max_attempts=1,
                         deadline=timeout * 2) as client:
            answer = client.swap_rate_tenors(index="SOFR")
    except AuthError as exc:
        fix = {"missing": "run: rates-xl key set",
               "invalid": "the key is wrong: run rates-xl key set with the right one",
               "expired": "the trial has ended: renew the subscription, then rates-xl key set"}
        return Check("test request", FAIL, f"swap_rate_tenors(SOFR): {exc}",
                     fix.get(exc.reason, "check the key's permissions with the provider"))
    except RatesError as exc:
        return Check("test request", FAIL, f"swap_rate_tenors(SOFR): {exc}",
                     "see the message; rates-xl call swap_rate_tenors index=SOFR shows the answer")
    except Exception as exc:  # a settings problem (e.g. a bad RATES_TIMEOUT) lands here
        return Check("test request", FAIL, f"could not make the request: {type(exc).__name__}: {exc}",
                     "check the RATES_* environment variables")
    tenors = answer.tenors
    shown = ", ".join(tenors[:6]) + (", ..." if len(tenors) > 6 else "")
    return Check("test request", OK, f"swap_rate_tenors(SOFR): {len(tenors)} tenors ({shown})")


def run(config: Path, xlstart: Path | None, xlstart_problem: str | None, base_url: str,
        timeout: float) -> list[Check]:
    interpreter, udf_xlwings = check_interpreter(config)
    checks = [check_python(), check_packages(), check_config(config), interpreter,
              check_dll(config, udf_xlwings), check_addin(xlstart, xlstart_problem), check_key()]
    reach = check_reachable(base_url, timeout)
    checks.append(reach)
    if reach.state == OK:
        checks.append(check_request(base_url, timeout))
    else:
        checks.append(Check("test request", FAIL, "skipped: the service is not reachable",
                            "fix the service check first"))
    return checks
