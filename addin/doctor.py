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

This module runs them in that order (`run`) and holds the machine's own checks; the add-in's
set-up is checked in `doctor_addin.py`, the network in `doctor_network.py`, and each outcome
is a `doctor_check.Check`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from rates_xl.addin.doctor_addin import (
    check_addin,
    check_config,
    check_dll,
    check_interpreter,
    check_policy,
    check_rtd,
    excel_runs_here,
    not_applicable,
)
from rates_xl.addin.doctor_check import FAIL, OK, WARN, Check
from rates_xl.addin.doctor_network import (
    check_certificates,
    check_proxy,
    check_reachable,
    check_request,
    check_tls,
    configured_trust_store,
)
from rates_xl.extras import install_hint

PACKAGES = ("rates-xl", "xlwings", "keyring", "pydantic", "requests", "tenacity", "cachetools",
            "truststore")
MIN_PYTHON = (3, 11)


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


def check_key() -> Check:
    from rates_xl.client.api_key import key_state

    state = key_state()
    if state.is_set:
        return Check("api key", OK, state.describe())
    from rates_xl.client.api_key import how_to_set_key

    return Check("api key", WARN if state.keychain_problem is None else FAIL, state.describe(),
                 f"set a key {how_to_set_key()}")


# -- the network, as the client sees it ------------------------------------------------------


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
        excel = [not_applicable(name, platform)
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
