"""The `rates-xl` console script.

Each area of the project owns its subcommands in its own `cli` module, which exposes
`register(subparsers)`; this file only lists those modules and turns failures into one
clear line on stderr (never a traceback, never the API key). Keep the listed modules
cheap to import: heavy libraries (QuantLib, formulas) are imported inside the handlers.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from rates_xl import __version__

COMMAND_MODULES = [
    "rates_xl.client.cli",  # call
    "rates_xl.sandbox.cli",  # sandbox
    "rates_xl.addin.cli",  # addin build|install|uninstall, key set|status|clear, doctor
    "rates_xl.calc.cli",  # calc
    "rates_xl.templates.cli",  # demo, templates build|list
    "rates_xl.addin.officejs.cli",  # serve, officejs install|uninstall|manifest|certs, respell
]


class CommandError(Exception):
    """A failure the user can fix; its message is printed as is."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rates-xl",
        description="Interest-rate market data in Excel: client, sandbox, add-in, templates.",
    )
    parser.add_argument("--version", action="version", version=f"rates-xl {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    from rates_xl.client.errors import RatesError

    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except (CommandError, RatesError) as exc:
        print(f"rates-xl {args.command}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"rates-xl {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    # `python -m rates_xl.cli`: run the imported module's main, so the CommandError the
    # handlers raise (rates_xl.cli.CommandError) is the class caught there, not __main__'s.
    from rates_xl.cli import main as _main

    sys.exit(_main())
