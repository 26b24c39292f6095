"""The documentation site's generated pages, written from the code they describe.

`generated_pages()` maps a path under docs/ to its Markdown; docs/hooks.py adds them to the
MkDocs build, so a page exists only in the built site, never in git, and cannot go stale:

- `reference/<RATES_NAME>.md` and `reference/index.md`: the function reference
  (rates_xl.functions.reference, also served as the Office.js help pages);
- `commands.md`: every `rates-xl` command's usage and help, from the console script's own
  argparse parsers (`rates_xl.cli.build_parser`);
- `settings.md`: every client setting from the settings model (name, environment variable,
  default, description: `rates_xl.client.settings.Settings`);
- `troubleshooting.md`: every `#RATES!` message, with its cause and what to do
  (rates_xl.functions.catalogue).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from typing import Any

#: Width of the generated help text (argparse otherwise follows the terminal it runs in).
HELP_WIDTH = 90


# -- commands -------------------------------------------------------------------------------------

def _subcommands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:  # argparse has no public walk over subparsers
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


def commands(parser: argparse.ArgumentParser | None = None,
             prefix: str = "rates-xl") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """(full command, its parser) for the console script and every subcommand, depth first."""
    if parser is None:
        from rates_xl.cli import build_parser

        parser = build_parser()
    yield prefix, parser
    for name, sub in _subcommands(parser):
        yield from commands(sub, f"{prefix} {name}")


def _help(parser: argparse.ArgumentParser) -> str:
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=HELP_WIDTH)
    return parser.format_help().rstrip()


def commands_page() -> str:
    lines = ["# Commands", "",
             "Generated from the console script's own parsers: each block is exactly what "
             "`COMMAND --help` prints. Every command prints one clear line when it fails and exits 1; "
             "a usage error exits 2.", ""]
    for full, parser in commands():
        lines += [f"## `{full}`", "", "```text", _help(parser), "```", ""]
    return "\n".join(lines)


# -- settings -------------------------------------------------------------------------------------

def _default(field: Any) -> str:
    extra = field.json_schema_extra or {}
    if "default_text" in extra:
        return str(extra["default_text"])
    value = field.default
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"`{value}`" if isinstance(value, str) else f"`{json.dumps(value)}`"


def settings_rows() -> list[tuple[str, str, str, str]]:
    """(setting, environment variable, default, description) for every client setting."""
    from rates_xl.client.settings import Settings

    prefix = Settings.model_config.get("env_prefix", "")
    return [(name, f"{prefix}{name.upper()}", _default(field), field.description or "")
            for name, field in Settings.model_fields.items()]


def settings_page() -> str:
    lines = ["# Client settings", "",
             "Generated from the settings model (`client/settings.py`). Each setting is a keyword "
             "argument of `RatesClient` and an environment variable; a keyword argument wins over the "
             "environment, the environment over the default. A value the client cannot use is named "
             "in the cell (`#RATES! settings: RATES_TIMEOUT: ...`), never shown (it may be the key).", "",
             "| setting | environment | default | meaning |", "|---|---|---|---|"]
    for name, env, default, description in settings_rows():
        lines.append(f"| `{name}` | `{env}` | {default} | {description} |")
    lines += ["", "How the client uses them: [the client](client.md); the disk and team tiers: "
              "[caches](caches.md).", ""]
    return "\n".join(lines)


# -- troubleshooting ------------------------------------------------------------------------------

def troubleshooting_page() -> str:
    from rates_xl.functions import catalogue
    from rates_xl.functions.reference import _md_code, _md_text
    from rates_xl.functions.table import FUNCTIONS

    def row(*cells: str) -> str:
        return "| " + _md_code(cells[0]) + " | " + " | ".join(_md_text(c) for c in cells[1:]) + " |"

    lines = ["# Troubleshooting", "",
             "Every message a cell can show, generated from the code that writes it. A cell answers a "
             "number, a table, or one line starting `#RATES!` that says what is wrong; the Office.js host "
             "(`=RATES.SWAP`) shows the same text when you hover over the cell's `#VALUE!` (bad input) or "
             "`#N/A` (everything else). Text in angle brackets varies. Each function's page lists the "
             "messages that function can give: [function reference](reference/index.md).", "",
             "For the network and the set-up, `rates-xl doctor` checks everything in one go and says what "
             "to fix ([commands](commands.md#rates-xl-doctor)).", "",
             "## Bad input", "",
             "`#RATES! <argument>: <what is wrong>`: the argument named has a value it cannot take. Nothing "
             "was sent to the service.", "",
             "Any argument, whatever it takes (shown for `index`):", "",
             "| message | what to do |", "|---|---|"]
    swap = FUNCTIONS["RATES_SWAP"]
    general = [m for m in catalogue.argument_messages(swap, swap.args[0]) if m.general]
    for message in [*general, *catalogue.cross_messages(swap), catalogue.too_many_arguments(swap)]:
        lines.append(row(message.text, message.action))
    lines += ["", "By what the argument takes (one example argument of each kind):", "",
              "| message | what to do |", "|---|---|"]
    seen_kinds: set[str] = set()
    for spec in FUNCTIONS.values():
        for arg in spec.args:
            if arg.kind in seen_kinds:
                continue
            seen_kinds.add(arg.kind)
            for message in catalogue.argument_messages(spec, arg):
                if not message.general:
                    lines.append(row(message.text, message.action))

    lines += ["", "## The service, the network, the set-up", "",
              "In order of the message text.", "",
              "| message | cause | what to do |", "|---|---|---|"]
    found: dict[str, tuple[str, str]] = {}
    for spec in FUNCTIONS.values():
        for message in catalogue.service_messages(spec):
            found.setdefault(message.text, (message.cause, message.action))
    for text in sorted(found, key=lambda t: t.removeprefix("#RATES! ").lower()):
        lines.append(row(text, *found[text]))
    lines.append("")
    return "\n".join(lines)


# -- all of them ----------------------------------------------------------------------------------

def generated_pages() -> dict[str, str]:
    """Path under docs/ -> Markdown, for every generated page."""
    from rates_xl.functions.reference import function_pages, index_page

    pages = {f"reference/{name}.md": text for name, text in function_pages().items()}
    pages["reference/index.md"] = index_page()
    pages["commands.md"] = commands_page()
    pages["settings.md"] = settings_page()
    pages["troubleshooting.md"] = troubleshooting_page()
    return pages
