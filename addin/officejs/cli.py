"""`rates-xl serve`, `rates-xl officejs install|uninstall|manifest|certs`, `rates-xl respell`.

Cheap to import: FastAPI, uvicorn, cryptography and openpyxl-free zip work are imported by
the handlers. Every failure the user can fix is a CommandError: one clear line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rates_xl.errors import CommandError

DEFAULT_PORT = 8766  # server.DEFAULT_PORT, repeated so this module stays light


def register(subparsers: Any) -> None:
    serve = subparsers.add_parser(
        "serve", help="serve the Office.js add-in (RATES.SWAP ...) on https://localhost",
        description="Serve the Office.js custom functions (page, script, metadata, manifest) and "
        "answer their batches through the same core and client as the classic add-in, over "
        "HTTPS on 127.0.0.1. The first time, add --certs: it creates a local certificate "
        "authority and a localhost certificate and trusts it for you (Windows, macOS).",
    )
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1; anything else lets other computers in)")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    serve.add_argument("--public-url", help="the URL Excel uses (default https://localhost:PORT); "
                       "its host name is the only one answered besides localhost")
    serve.add_argument("--certs", action="store_true",
                       help="create (once) and trust the local certificate authority and localhost certificate")
    serve.add_argument("--cert", help="your own certificate (PEM), e.g. your company's; with --key")
    serve.add_argument("--key", help="the private key of --cert (PEM)")
    serve.add_argument("--time-limit", type=float, default=120.0,
                       help="seconds a cell waits before it shows #N/A (default 120)")
    serve.add_argument("--live-share", type=_share, default=None,
                       help="percent of the service's rate limit Live mode may use for every page "
                            "together (default: RATES_LIVE_SHARE, 50; new formulas always have the rest)")
    serve.set_defaults(handler=run_serve)
    from rates_xl.addin.officejs import team_cli

    team_cli.register(serve)  # the team server's sign-in options and `serve users ...`

    officejs = subparsers.add_parser(
        "officejs", help="install the Office.js add-in's manifest, its certificate, ...",
        description="The Office.js add-in for Excel on Windows (Microsoft 365), Mac and the web.",
    )
    commands = officejs.add_subparsers(dest="officejs_command", metavar="ACTION", required=True)
    install = commands.add_parser(
        "install", help="sideload the manifest for this user",
        description="Write the manifest for the server's URL and register it for this user: "
        "Windows: HKCU\\Software\\Microsoft\\Office\\16.0\\WEF\\Developer; macOS: Excel's wef "
        "folder; Excel on the web: prints the upload steps. `uninstall` reverses exactly this.",
    )
    install.add_argument("--url", default=f"https://localhost:{DEFAULT_PORT}",
                         help=f"the server's URL (default https://localhost:{DEFAULT_PORT})")
    _platform_option(install)
    install.set_defaults(handler=run_install)
    uninstall = commands.add_parser(
        "uninstall", help="reverse exactly what install did",
        description="Reverse exactly what `officejs install` did: for --platform only, or for every platform "
        "it was installed for (each is recorded on its own).")
    uninstall.add_argument("--platform", choices=("windows", "mac", "web"),
                           help="undo the install for this platform only (default: every platform installed)")
    uninstall.set_defaults(handler=run_uninstall)
    show = commands.add_parser("manifest", help="print (or write) the manifest for a URL")
    show.add_argument("--url", default=f"https://localhost:{DEFAULT_PORT}")
    show.add_argument("-o", "--output", help="write it to this file instead of printing it")
    show.set_defaults(handler=run_manifest)
    certs = commands.add_parser(
        "certs", help="create and trust the local certificate (what serve --certs does)",
        description="Create (once) a local certificate authority and a localhost certificate, and "
        "trust the authority for this user (Windows: certutil -user; macOS: the login keychain; "
        "Linux: prints what to do). --untrust removes the trust again.",
    )
    group = certs.add_mutually_exclusive_group()
    group.add_argument("--untrust", action="store_true", help="remove the authority from this user's trusted roots")
    group.add_argument("--no-trust", action="store_true", help="create the files only")
    certs.set_defaults(handler=run_certs)

    respell = subparsers.add_parser(
        "respell", help="rewrite a workbook's RATES formulas for the other Excel host",
        description="Rewrite every RATES formula of a workbook from one host's spelling to the "
        "other's: classic (RATES_SWAP, the xlwings add-in) or officejs (RATES.SWAP, stored in "
        "the file as Excel stores custom functions: _xldudf_RATES_SWAP), former names "
        "(RATES_DF, RATES_DFCURVE, RATES_FX) included. Only formula text in the sheets and "
        "defined names changes; every other byte of every other part is kept.",
    )
    respell.add_argument("book", help="the workbook (.xlsx, .xlsm)")
    respell.add_argument("--to", required=True, choices=("officejs", "classic"), help="the target spelling")
    respell.add_argument("-o", "--output", help="where to write (default: BOOK with -officejs/-classic added, "
                         "in place of either one it has)")
    respell.add_argument("--force", action="store_true", help="overwrite an existing output file")
    respell.set_defaults(handler=run_respell)


def _platform_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--platform", choices=("windows", "mac", "web"),
                        help="where Excel runs (default: this computer's; web: print the upload steps)")


def _missing(exc: ImportError) -> str:
    from rates_xl.extras import missing_extra

    return missing_extra(exc, "officejs")


def _error(message: str) -> Exception:
    return CommandError(message)


def _say(lines: list[str]) -> None:
    for line in lines:
        print(line)


def _sideload(platform: str | None):
    from rates_xl.addin.officejs.certs import data_dir
    from rates_xl.addin.officejs.sideload import Sideload

    return Sideload(data_dir(), {"windows": "win32", "mac": "darwin", "web": "linux"}.get(platform or "", None))


def _installed() -> list[str]:
    from rates_xl.addin.officejs.certs import data_dir
    from rates_xl.addin.officejs.sideload import installed

    return installed(data_dir())


def run_serve(args: argparse.Namespace) -> int:
    try:
        from rates_xl.addin.officejs import app as appmod
        from rates_xl.addin.officejs import certs, server
        from rates_xl.addin.officejs.origins import public_url_problem
    except ImportError as exc:
        raise _error(_missing(exc)) from None
    if bool(args.cert) != bool(args.key):
        raise _error("--cert and --key go together")
    if args.cert:
        cert, key = Path(args.cert), Path(args.key)
        for path in (cert, key):
            if not path.is_file():
                raise _error(f"no such file: {path}")
    else:
        paths = certs.default_paths()
        if args.certs:
            paths, done = certs.ensure(paths)
            _say(done)
            _say(certs.trust(paths.ca))
        elif not paths.exist():
            raise _error("no certificate yet: run `rates-xl serve --certs` once (it creates a local "
                         "certificate authority and trusts it for you), or pass --cert/--key")
        cert, key = paths.cert, paths.key
    public_url = (args.public_url or f"https://localhost:{args.port}").rstrip("/")
    if not public_url.startswith("https://"):
        raise _error("--public-url must be an https:// URL (Office loads add-ins over HTTPS only)")
    if problem := public_url_problem(public_url):
        raise _error(f"--public-url {problem}")
    if not server.is_loopback(args.host):
        print(f"warning: listening on {args.host}: other computers can reach this server", file=sys.stderr)
    from rates_xl.addin.officejs import team_cli
    from rates_xl.functions import get_client

    team = team_cli.team_from_args(args, public_url)  # None: the local single-user server
    client = get_client()  # one client for every batch, from the settings (RATES_*, the keychain)
    app = appmod.create_app(public_url, client=client, time_limit_s=args.time_limit, team=team,
                            live_share=None if args.live_share is None else args.live_share / 100)
    if team is not None:
        print(f"team server: users sign in with {' or '.join(team.authenticator.methods)}")
    for kind in _installed():
        _say(_sideload(kind).refresh(public_url))
    if client.has_key:
        key_state = "set"
    else:
        from rates_xl.client.api_key import how_to_set_key

        key_state = f"NOT set: set one {how_to_set_key()}"

    def listening() -> None:  # only once the port is ours: never a banner before "cannot listen"
        print(f"rates-xl serve: {public_url} (service {client.base_url}, API key {key_state})")
        install = "rates-xl officejs install" + (
            "" if public_url == f"https://localhost:{DEFAULT_PORT}" else f" --url {public_url}")
        print(f"manifest: {public_url}/manifest.xml (install it with `{install}`); Ctrl+C stops", flush=True)

    _log_batches()
    try:
        server.serve(app, args.host, args.port, cert, key, on_listening=listening)
    except OSError as exc:
        raise _error(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    return 0


def _log_batches() -> None:
    """The host's own log lines (`batch: N calls, ...`, which addin/README's checklist asks
    for) at INFO on stderr, beside uvicorn's, which has its own handlers."""
    import logging

    logger = logging.getLogger("rates_xl.addin.officejs")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s:     %(message)s"))
        logger.addHandler(handler)
    logger.setLevel(logging.INFO)


def run_install(args: argparse.Namespace) -> int:
    _say(_sideload(args.platform).install(args.url.rstrip("/")))
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    for kind in [args.platform] if args.platform else (_installed() or [None]):
        _say(_sideload(kind).uninstall())
    return 0


def run_manifest(args: argparse.Namespace) -> int:
    from rates_xl.addin.officejs import manifest

    text = manifest.render(args.url.rstrip("/"))
    problems = manifest.check(text, args.url.rstrip("/"))
    if problems:
        raise _error(f"the manifest for {args.url} is not valid: {problems[0]}")
    if args.output:
        from rates_xl import atomic

        atomic.write_text(args.output, text)
        print(f"wrote {args.output}")
    else:
        sys.stdout.write(text)
    return 0


def run_certs(args: argparse.Namespace) -> int:
    try:
        from rates_xl.addin.officejs import certs
    except ImportError as exc:
        raise _error(_missing(exc)) from None
    paths = certs.default_paths()
    if args.untrust:
        if not paths.ca.is_file():
            raise _error(f"no certificate authority at {paths.ca}: nothing to untrust")
        _say(certs.untrust(paths.ca))
        return 0
    paths, done = certs.ensure(paths)
    _say(done or [f"certificates already in {paths.directory}"])
    if not args.no_trust:
        _say(certs.trust(paths.ca))
    return 0


def run_respell(args: argparse.Namespace) -> int:
    from rates_xl.addin import respell

    book = Path(args.book)
    output = Path(args.output) if args.output else _respelled_name(book, args.to)
    try:
        report = respell.respell_file(book, output, to=args.to, force=args.force)
    except respell.RespellError as exc:
        raise _error(str(exc)) from None
    print(f"{output}: {report.formulas} formulas rewritten in {report.parts} parts"
          + (f" ({', '.join(f'{k} x{v}' for k, v in sorted(report.names.items()))})" if report.names else ""))
    return 0


def _respelled_name(book: Path, to: str) -> Path:
    """BOOK-officejs.xlsx; a book already named for a host loses that name first (respelling
    book-officejs.xlsx back gives book-classic.xlsx, never book-officejs-classic.xlsx)."""
    stem = book.stem
    for host in ("officejs", "classic"):
        stem = stem.removesuffix(f"-{host}")
    output = book.with_name(f"{stem}-{to}{book.suffix}")
    if output.resolve() == book.resolve():
        raise _error(f"{book.name} is already named for {to} (respelled before?): give -o FILE for the new copy")
    return output


def _share(text: str) -> float:
    """--live-share: a percentage of the rate limit, 1 to 100."""
    import argparse

    try:
        value = float(text.strip().rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage (1 to 100)") from None
    if not 1 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text!r}: give a percentage from 1 to 100")
    return value
