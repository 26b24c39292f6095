"""`rates-xl addin build|install|uninstall`, `rates-xl key set|status|clear`, `rates-xl doctor`.

Cheap to import: the work is in rates_xl.addin.classic.build / install / keys / doctor, imported by
the handlers. Every failure the user can fix ends as a CommandError with one clear line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rates_xl.errors import CommandError


def register(subparsers: Any) -> None:
    _register_addin(subparsers)
    _register_key(subparsers)
    doctor = subparsers.add_parser(
        "doctor", help="check the installation end to end and say what to fix",
        description="Check Python and package versions, the add-in's settings, that the "
        "configured Python imports rates_xl, the xlwings DLL where the add-in looks for it, the "
        "add-in in XLSTART and current, the API key, that the service answers, and one test "
        "request (swap_rate_tenors for SOFR). Exits 1 when a check fails.",
    )
    doctor.add_argument("--base-url", help="service root (default: RATES_BASE_URL or the public service)")
    doctor.add_argument("--timeout", type=_positive, default=5.0, help="seconds per network check (default 5)")
    _path_options(doctor)
    doctor.set_defaults(handler=run_doctor)


def _register_addin(subparsers: Any) -> None:
    addin = subparsers.add_parser(
        "addin", help="build, install or uninstall the Excel add-in",
        description="The Excel add-in (rates_xl.xlam): build it from source, install it for "
        "Excel, uninstall it.",
    )
    commands = addin.add_subparsers(dest="addin_command", metavar="ACTION", required=True)

    build = commands.add_parser(
        "build", help="write rates_xl.xlam from source (any OS, no Excel)",
        description="Write the add-in from source, without Excel: the workbook flagged as an "
        "add-in, the Rates ribbon (customUI14.xml) and a source-only VBA project (the installed "
        "xlwings' VBA module with rates-xl's fixes, the ribbon callback, the RATES_* wrappers). "
        "Every check runs first (schema, callbacks, package parts, content types, "
        "relationships, the VBA read back); --check runs them and writes nothing. The same "
        "sources give the same bytes. `rates-xl addin install` builds and places it itself.",
    )
    build.add_argument("--check", action="store_true", help="check only; write nothing")
    build.add_argument("-o", "--out", "--output", dest="output",
                       default=str(Path("dist") / "rates_xl.xlam"),
                       help="where to write the add-in (default: dist/rates_xl.xlam)")
    build.add_argument("--force", action="store_true", help="overwrite an existing output file")
    build.add_argument("--schema", help="customui14.xsd (default: ../shared/schemas/customui14.xsd "
                       "next to the repository, or RATES_XL_CUSTOMUI_XSD)")
    build.set_defaults(handler=run_build)

    install = commands.add_parser(
        "install", help="write the add-in's settings and place rates_xl.xlam in XLSTART",
        description="Set the interpreter (this Python) and USE UDF SERVER = True in the "
        "add-in's own settings file (%USERPROFILE%\\.rates_xl\\rates_xl.conf; xlwings' own "
        "xlwings.conf is left alone), keeping every other line, then build rates_xl.xlam from "
        "source (no Excel needed) and write it into Excel's XLSTART folder. "
        "`rates-xl addin uninstall` reverses exactly this.",
    )
    install.add_argument("--xlam", help="place this add-in file instead of building one")
    install.add_argument("--no-addin", action="store_true", help="write only the settings file")
    install.add_argument("--python", help="interpreter Excel should start (default: this one)")
    _path_options(install)
    install.set_defaults(handler=run_install)

    uninstall = commands.add_parser(
        "uninstall", help="reverse exactly what install did",
        description="Put back every setting install changed (unless you changed it since), "
        "delete the settings file if install created it and nothing else is in it, remove the "
        "add-in install placed and restore any file it replaced.",
    )
    _path_options(uninstall, xlstart=False)
    uninstall.set_defaults(handler=run_uninstall)


def _path_options(parser: argparse.ArgumentParser, xlstart: bool = True) -> None:
    parser.add_argument("--config", help="the add-in's settings file (default: $RATES_XL_CONF or "
                        "~/.rates_xl/rates_xl.conf)")
    if xlstart:
        parser.add_argument("--xlstart", help="Excel's startup folder (default: $RATES_XL_XLSTART or "
                            "the per-user XLSTART)")


def _register_key(subparsers: Any) -> None:
    key = subparsers.add_parser(
        "key", help="store, inspect or clear the API key in the system keychain",
        description="The API key lives in the system keychain (service rates-xl, user api_key) "
        "or in the RATES_API_KEY environment variable, which wins. It is never printed.",
    )
    commands = key.add_subparsers(dest="key_command", metavar="ACTION", required=True)
    key_set = commands.add_parser("set", help="prompt for the key (not echoed) and store it",
                                  description="Prompt for the key without echoing it and store "
                                  "it in the keychain. With input piped in, read one line.")
    key_set.set_defaults(handler=run_key_set)
    commands.add_parser("status", help="say whether a key is set and where from (never the key)"
                        ).set_defaults(handler=run_key_status)
    commands.add_parser("clear", help="delete the stored key from the keychain"
                        ).set_defaults(handler=run_key_clear)


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def _error(exc: BaseException):
    return CommandError(str(exc))


# -- addin ------------------------------------------------------------------------------------------
def run_build(args: argparse.Namespace) -> int:
    from rates_xl.addin.classic import build, build_sources

    output = Path(args.output)
    if not args.check and output.exists() and not args.force:
        raise CommandError(f"{output} exists; pass --force to overwrite it")
    try:
        built = build.build_checked(build_sources.find_schema(args.schema))
    except build_sources.AddinBuildError as exc:
        raise _error(exc) from None
    result = built.result
    print(f"VBA modules: {', '.join(m.name for m in built.modules)} "
          f"(xlwings {built.xlwings_version}: {', '.join(sorted(built.dlls))})")
    print(f"checks: {len(result.passed)} passed, {len(result.problems)} failed, "
          f"{len(result.skipped)} skipped")
    for line in result.skipped:
        print(f"  skipped: {line}")
    for line in result.problems:
        print(f"  FAILED: {line}")
    if not result.ok:
        raise CommandError(f"{len(result.problems)} check(s) failed; nothing written")
    if args.check:
        print("check only: nothing written")
        return 0
    from rates_xl.addin.classic.install import InstallError, write_atomic

    try:
        write_atomic(output, built.xlam, backup=output.exists())
    except InstallError as exc:
        raise _error(exc) from None
    print(f"wrote {output} ({len(built.xlam)} bytes)")
    return 0


def _locations(args: argparse.Namespace, want_xlstart: bool):
    from rates_xl.addin.classic import install

    config = install.config_path(args.config)
    xlstart, problem = None, None
    if want_xlstart:
        try:
            xlstart = install.xlstart_dir(args.xlstart)
        except install.InstallError as exc:
            problem = str(exc)
    return config, xlstart, problem


def run_install(args: argparse.Namespace) -> int:
    from rates_xl.addin.classic import build, build_sources, install

    config, xlstart, problem = _locations(args, want_xlstart=not args.no_addin)
    if problem and not args.no_addin:
        raise _error(problem)
    xlam, version = None, None
    if not args.no_addin:
        if args.xlam:
            try:
                xlam = Path(args.xlam).read_bytes()
            except OSError as exc:
                raise _error(f"cannot read {args.xlam}: {exc.strerror or exc}") from None
        else:
            try:
                built = build.build_checked(build_sources.find_schema())
            except build_sources.AddinBuildError as exc:
                raise _error(exc) from None
            if not built.result.ok:
                raise _error("the add-in failed its checks (run `rates-xl addin build --check`): "
                             + "; ".join(built.result.problems[:3]))
            xlam, version = built.xlam, built.xlwings_version
            print(f"built rates_xl.xlam for xlwings {version} ({len(xlam)} bytes)")
    try:
        from rates_xl.addin.classic import rtd_registry

        report = install.install(config, None if args.no_addin else xlstart, xlam,
                                 install.desired_settings(args.python), version,
                                 registry=rtd_registry.windows_registry())
    except install.InstallError as exc:
        raise _error(exc) from None
    for line in report.lines:
        print(line)
    print("installed. Restart Excel to load the add-in; `rates-xl doctor` checks the set-up.")
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    from rates_xl.addin.classic import install, rtd_registry

    config = install.config_path(args.config)
    try:
        report = install.uninstall(config, registry=rtd_registry.windows_registry())
    except install.InstallError as exc:
        raise _error(exc) from None
    for line in report.lines:
        print(line)
    for line in report.warnings:
        print(f"warning: {line}", file=sys.stderr)
    # Say what happened, not what was hoped: a run that removed nothing says so.
    print("uninstalled." if report.lines else "nothing was removed (see the warnings above); "
          "the install record is deleted")
    return 0


# -- key --------------------------------------------------------------------------------------------
def _read_secret() -> str:
    import getpass

    if sys.stdin is None:
        raise _error("no input to read the key from")
    if not sys.stdin.isatty():
        # Piped in (`... | rates-xl key set`): read one line; nothing is echoed either way.
        return sys.stdin.readline().rstrip("\r\n")
    return getpass.getpass("API key (input hidden): ")


def run_key_set(args: argparse.Namespace) -> int:
    from rates_xl.client import api_key as keys

    try:
        secret = _read_secret()
    except EOFError:
        raise _error("no key given") from None
    try:
        keys.store_key(secret)
    except (ValueError, keys.KeychainError) as exc:
        raise _error(exc) from None
    finally:
        del secret
    print(f"stored the key in the keychain ({keys.backend_name()}), service "
          f"{keys.KEYRING_SERVICE!r}, user {keys.KEYRING_USERNAME!r}")
    if keys.key_state().in_environment:
        print(f"note: {keys.ENV_VAR} is set in this environment and takes precedence")
    return 0


def run_key_status(args: argparse.Namespace) -> int:
    from rates_xl.client import api_key as keys

    state = keys.key_state()
    if not state.is_set:  # one line: what is missing and how to set it on this machine
        raise _error(f"no API key is set; set one {keys.how_to_set_key()}")
    print(f"API key: {state.describe()}")
    return 0


def run_key_clear(args: argparse.Namespace) -> int:
    from rates_xl.client import api_key as keys

    try:
        removed = keys.clear_key()
    except keys.KeychainError as exc:
        raise _error(exc) from None
    print("deleted the key from the keychain" if removed else "no key was stored in the keychain")
    if keys.key_state().in_environment:
        print(f"note: {keys.ENV_VAR} is still set in this environment; unset it to remove that key")
    return 0


# -- doctor -----------------------------------------------------------------------------------------
def run_doctor(args: argparse.Namespace) -> int:
    from rates_xl.addin import doctor, doctor_check
    from rates_xl.client.settings import Settings

    config, xlstart, problem = _locations(args, want_xlstart=True)
    if args.base_url:
        base_url = args.base_url  # checked by doctor.run, as one of its checks
    else:
        try:
            base_url = Settings().base_url
        except Exception as exc:  # a malformed RATES_* variable
            from rates_xl.functions.messages import settings_problem

            raise _error(f"the RATES_* settings are invalid: {settings_problem(exc)}") from None
    checks = doctor.run(config, xlstart, problem, base_url, args.timeout)
    width = max(len(c.name) for c in checks)
    for check in checks:
        print(f"[{check.state:>4}] {check.name:<{width}}  {check.detail}")
        if check.fix and check.state in (doctor_check.WARN, doctor_check.FAIL):
            print(f"       {'':<{width}}  fix: {check.fix}")
    failed = [c for c in checks if c.state == doctor_check.FAIL]
    applicable = [c for c in checks if c.state != doctor_check.NA]
    print(f"{len(applicable) - len(failed)} of {len(applicable)} checks passed"
          + (f" ({len(checks) - len(applicable)} not applicable here)" if len(applicable) < len(checks) else "")
          + ("" if not failed else f"; fix: {', '.join(c.name for c in failed)}"))
    return 1 if failed else 0
