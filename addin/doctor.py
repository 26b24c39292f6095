"""`rates-xl doctor`: check the installation end to end and say what to fix for each failure.

Checks, in the order a problem would bite: Python and package versions, the add-in's own
settings file, that the Python it names imports rates_xl, the xlwings DLL where the add-in
looks for it and of the version it declares, the add-in in XLSTART and current, the RTD
server's per-user registration (Windows), the API key,
the cache tiers (the persistent folder, and the team's Redis when RATES_TEAM_URL is set),
then the network the way the client sees it (which certificate store verifies the service,
which proxy carries the request, whether a TLS handshake with the service succeeds), the
base URL answering at all, and one real request through the client (`swap_rate_tenors` for
SOFR). Each failure comes with the command that fixes it.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rates_xl.extras import install_hint

#: NA: the check does not apply on this machine (the classic add-in's checks without Excel).
OK, WARN, FAIL, NA = "ok", "warn", "FAIL", "n/a"
PACKAGES = ("rates-xl", "xlwings", "keyring", "pydantic", "requests", "tenacity", "cachetools",
            "truststore")
MIN_PYTHON = (3, 11)


@dataclass(frozen=True)
class Check:
    name: str
    state: str  # OK, WARN, FAIL or NA
    detail: str
    fix: str = ""


@dataclass(frozen=True)
class Reachability:
    reachable: bool
    summary: str


#: Where the probe asks: an endpoint every rates service has. Without a key or parameters it
#: answers 403 or 422; a 404 there means the base URL is not the service's root.
PROBE_PATH = "/v1/swap_rate_tenors"


def probe(base_url: str, timeout: float = 5.0, trust_store: str = "os") -> Reachability:
    """Does the rates service answer HTTP at the base URL? Any status but 404 at PROBE_PATH
    counts as reachable. Sent the way the client sends (its certificate store, the same
    proxies), without the key."""
    import requests

    from rates_xl.client.settings import base_url_problem
    from rates_xl.client.transport import HTTPTransport

    problem = base_url_problem(base_url)
    if problem:  # not a URL, or one that programs read as two places (client/urls.py)
        return Reachability(False, problem)
    started = time.perf_counter()
    transport = HTTPTransport(base_url, None, pool_size=1, trust_store=trust_store)
    try:
        response = transport.session.get(base_url.rstrip("/") + PROBE_PATH, timeout=timeout,
                                         allow_redirects=False)
    except requests.exceptions.InvalidURL:
        return Reachability(False, f"not a valid URL: {base_url}")
    except requests.exceptions.MissingSchema:
        return Reachability(False, f"not a valid URL (no http:// or https://): {base_url}")
    except requests.exceptions.SSLError:
        return Reachability(False, "TLS handshake failed (see the tls check)")
    except requests.exceptions.Timeout:
        return Reachability(False, f"no answer within {timeout:g} s")
    except requests.exceptions.ConnectionError as exc:
        reason = "connection refused" if "refused" in str(exc).lower() else "cannot connect"
        return Reachability(False, reason)
    except requests.exceptions.RequestException as exc:
        return Reachability(False, type(exc).__name__)
    finally:
        transport.close()
    elapsed = (time.perf_counter() - started) * 1000
    response.close()
    if response.status_code == 404:
        return Reachability(False, f"answers, but HTTP 404 at {PROBE_PATH}: this is not the rates "
                                   "service's root")
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
                     f"reinstall: {install_hint()}")
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


def check_key() -> Check:
    from rates_xl.client.api_key import key_state

    state = key_state()
    if state.is_set:
        return Check("api key", OK, state.describe())
    from rates_xl.client.api_key import how_to_set_key

    return Check("api key", WARN if state.keychain_problem is None else FAIL, state.describe(),
                 f"set a key {how_to_set_key()}")


# -- the network, as the client sees it ------------------------------------------------------

def configured_trust_store() -> str:
    """RATES_TRUST_STORE as the client reads it ("os" when unset or unreadable)."""
    value = os.environ.get("RATES_TRUST_STORE", "os").strip().lower()
    return value if value in ("os", "certifi") else "os"


def check_certificates(trust_store: str) -> Check:
    """Which certificate store verifies the service (and any bundle the environment adds)."""
    from rates_xl.client.transport import os_trust_context

    extra = [f"{name}={os.environ[name]}" for name in ("REQUESTS_CA_BUNDLE", "SSL_CERT_FILE")
             if os.environ.get(name)]
    added = f"; also {', '.join(extra)}" if extra else ""
    if trust_store == "os" and os_trust_context() is not None:
        from importlib import metadata

        return Check("certificates", OK, "the operating system's store (truststore "
                     f"{metadata.version('truststore')}), as the browser uses{added}")
    import certifi

    why = ("RATES_TRUST_STORE=certifi" if trust_store == "certifi"
           else "truststore is not installed")
    return Check("certificates", WARN, f"certifi's bundle at {certifi.where()} ({why}){added}",
                 "a company's TLS-inspection certificate is not in it: unset RATES_TRUST_STORE "
                 "(or pip install truststore) to use the operating system's store")


def proxy_for(url: str) -> tuple[str | None, str]:
    """(the proxy requests will use for `url` or None, where that comes from), exactly as the
    client decides: HTTP(S)_PROXY / NO_PROXY, else the system's settings (urllib's
    getproxies, which reads the Windows registry and macOS System Configuration)."""
    import urllib.request

    from requests.utils import get_environ_proxies, select_proxy

    proxy = select_proxy(url, get_environ_proxies(url))
    environment = urllib.request.getproxies_environment()
    if proxy is None:
        if urllib.request.getproxies() or environment:
            return None, "NO_PROXY or the system's exceptions leave this host out"
        return None, "no proxy set"
    for name, value in os.environ.items():
        if name.lower().endswith("_proxy") and name.lower() != "no_proxy" and value == proxy:
            return proxy, f"from {name}"
    return proxy, "from the system's proxy settings"


def check_proxy(base_url: str) -> Check:
    from rates_xl.functions.messages import scrub

    proxy, source = proxy_for(base_url)
    if proxy is None:
        detail = f"direct to {urlsplit(base_url).netloc} ({source})"
        if sys.platform == "win32":
            detail += "; a proxy from a PAC script is not read: set HTTPS_PROXY if the browser uses one"
        return Check("proxy", OK, detail)
    return Check("proxy", OK, f"{scrub(proxy)} ({source}) for {urlsplit(base_url).netloc}")


def check_tls(base_url: str, timeout: float, trust_store: str) -> Check:
    """A TLS handshake with the service, through the client's own transport (certificate
    store and proxy): the check that fails when a company proxy inspects TLS with a root
    this computer does not trust."""
    import requests

    from rates_xl.client.transport import HTTPTransport, tls_problem

    parts = urlsplit(base_url)
    if parts.scheme != "https":
        return Check("tls", OK, f"not used: {base_url} is plain HTTP")
    host = parts.netloc
    transport = HTTPTransport(base_url, None, pool_size=1, trust_store=trust_store)
    try:
        response = transport.session.get(base_url, timeout=timeout, allow_redirects=False,
                                         stream=True)
        details = _peer_details(response)
        response.close()
    except requests.exceptions.SSLError as exc:
        message, _ = tls_problem(exc, base_url)
        message = message.replace("; a company proxy inspecting TLS? run rates-xl doctor", "")
        return Check("tls", FAIL, f"handshake with {host} failed: {message}", _tls_fix(str(exc), trust_store))
    except requests.exceptions.ProxyError as exc:
        return Check("tls", FAIL, f"the proxy did not connect us to {host} ({type(exc).__name__})",
                     "check HTTPS_PROXY (or the system's proxy settings) and the proxy's login")
    except requests.exceptions.RequestException as exc:
        reason = "no answer in time" if isinstance(exc, requests.exceptions.Timeout) else (
            "connection refused" if "refused" in str(exc).lower() else "cannot connect")
        return Check("tls", FAIL, f"no handshake with {host}: {reason}",
                     "check the network, a firewall or a proxy (HTTPS_PROXY), and RATES_BASE_URL")
    finally:
        transport.close()
    return Check("tls", OK, f"handshake with {host} succeeded{details}")


def _peer_details(response) -> str:
    """', TLSv1.3, certificate issued by X' when the socket tells (best effort)."""
    try:
        sock = response.raw.connection.sock
        cert = sock.getpeercert() or {}
        issuer = dict(pair for rdn in cert.get("issuer", ()) for pair in rdn)
        name = issuer.get("organizationName") or issuer.get("commonName")
        return f", {sock.version()}" + (f", certificate issued by {name}" if name else "")
    except Exception:  # a detail only: never fail the check over it
        return ""


def _tls_fix(error_text: str, trust_store: str) -> str:
    text = error_text.lower()
    if "certificate verify failed" in text and ("hostname" in text or "ip address mismatch" in text):
        return ("the certificate is for another host: check RATES_BASE_URL; if a proxy inspects "
                "TLS, ask IT to exempt the service's host")
    if "certificate verify failed" in text:
        if "expired" in text:
            return "the certificate has expired, or this computer's clock is wrong: check the date"
        if trust_store == "certifi":
            return ("unset RATES_TRUST_STORE to use the operating system's store, where IT installs "
                    "the company's TLS-inspection certificate")
        return ("if your company inspects TLS, its root certificate must be in this computer's "
                "store (IT installs it; the browser then trusts it too), or save it as a .pem "
                "file and set REQUESTS_CA_BUNDLE to its path")
    return "a proxy or firewall interfering with TLS? set HTTPS_PROXY, or ask IT to allow the host"


def check_reachable(base_url: str, timeout: float, trust_store: str = "os") -> Check:
    reach = probe(base_url, timeout, trust_store)
    if reach.reachable:
        return Check("service", OK, f"{base_url}: {reach.summary}")
    if "HTTP 404" in reach.summary:
        return Check("service", FAIL, f"{base_url}: {reach.summary}",
                     "set RATES_BASE_URL (or --base-url) to the service's root, e.g. "
                     "https://api.bluegamma.io (without /v1)")
    return Check("service", FAIL, f"{base_url}: {reach.summary}",
                 "check the network, a proxy (HTTPS_PROXY) or RATES_BASE_URL")


def check_request(base_url: str, timeout: float) -> Check:
    from rates_xl.client import AuthError, RatesClient, RatesError

    try:
        with RatesClient(base_url=base_url, timeout=timeout, max_attempts=1,
                         deadline=timeout * 2) as client:
            answer = client.swap_rate_tenors(index="SOFR")
    except AuthError as exc:
        from rates_xl.client.api_key import how_to_set_key

        how = how_to_set_key()
        fix = {"missing": f"set a key {how}",
               "invalid": f"the key is wrong: set the right one {how}",
               "expired": f"the trial has ended: renew the subscription, then set the key {how}"}
        from rates_xl.functions.messages import PREFIX, message_for

        words = message_for(exc).removeprefix(PREFIX).strip()  # the cells' words
        return Check("test request", FAIL, f"swap_rate_tenors(SOFR): {words}",
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


def check_caches() -> Check:
    """The persistent tier (where, readable) and the team backend (off, up or unreachable)."""
    from rates_xl.client.tiers import stored_tiers

    try:
        settings, disk, team = stored_tiers()
    except Exception as exc:  # a bad RATES_* value lands here
        return Check("caches", FAIL, f"{type(exc).__name__}: {exc}", "check the RATES_* environment variables")
    state, parts, fix = OK, [], ""
    if not settings.persistent:
        parts.append("persistent: off (RATES_PERSISTENT=false)")
    else:
        info = disk.info()
        disk.close()
        if disk.failed:
            state, fix = WARN, f"check that {disk.directory} can be written, or set RATES_CACHE_DIR"
            parts.append(f"persistent: {info['state']}")
        else:
            parts.append(f"persistent: {info.get('answers', 0)} answers in {disk.directory}")
    if team is None:
        parts.append("team: off (solo; RATES_TEAM_URL=redis://... shares one limit and cache)")
    else:
        team.link.ping()
        parts.append(f"team: {team.link.describe()}")
        if team.link.problem and "not installed" in team.link.problem:
            state, fix = FAIL, install_hint("team")
        elif not team.link.up:
            state = FAIL if team.link.problem and "not a Redis URL" in team.link.problem else WARN
            fix = ("start Redis or check RATES_TEAM_URL and the network; until then each client "
                   "works solo with its own cache and limit")
        team.link.close()
    return Check("caches", state, "; ".join(parts), fix)


def this_platform() -> str:
    return sys.platform


def excel_runs_here(config: Path, platform: str) -> bool:
    """Do the classic add-in's checks apply? Excel runs on Windows and macOS; elsewhere they
    apply only when the add-in was set up here anyway (its settings file exists)."""
    return platform.startswith("win") or platform == "darwin" or config.exists()


def _not_applicable(name: str, platform: str) -> Check:
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


def run(config: Path, xlstart: Path | None, xlstart_problem: str | None, base_url: str,
        timeout: float, platform: str | None = None, registry: Any = None,
        policy_reader: Any = None) -> list[Check]:
    from rates_xl.client.settings import base_url_problem

    platform = platform or this_platform()
    trust_store = configured_trust_store()
    if excel_runs_here(config, platform):
        interpreter, udf_xlwings = check_interpreter(config)
        excel = [check_config(config), interpreter, check_dll(config, udf_xlwings, platform),
                 check_addin(xlstart, xlstart_problem), check_rtd(platform, registry),
                 *check_policy(platform, policy_reader)]
    else:
        excel = [_not_applicable(name, platform)
                 for name in ("settings", "udf python", "xlwings dll", "add-in", "rtd server")]
    checks = [check_python(), check_packages(), *excel, check_key(), check_caches(),
              check_certificates(trust_store)]
    problem = base_url_problem(base_url)
    if problem:  # nothing on the network can be checked against a URL that is not one
        checks.append(Check("service", FAIL, f"the base URL {problem}",
                            "set RATES_BASE_URL (or --base-url) to the service's root, e.g. "
                            "https://api.bluegamma.io"))
        checks.append(Check("test request", FAIL, "skipped: the base URL is not a URL",
                            "fix the service check first"))
        return checks
    checks += [check_proxy(base_url), check_tls(base_url, timeout, trust_store)]
    reach = check_reachable(base_url, timeout, trust_store)
    checks.append(reach)
    if reach.state == OK:
        checks.append(check_request(base_url, timeout))
    else:
        checks.append(Check("test request", FAIL, "skipped: the service is not reachable",
                            "fix the service check first"))
    return checks
