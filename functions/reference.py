"""The function reference, generated from the function table: one page per function.

The documentation site (docs/hooks.py) and the Office.js server's help pages (each
function's `helpUrl`, addin/officejs/help_pages.py) both read this module, so the page Excel
opens from the Function Wizard is the page in the docs. Each page has the signature in both
spellings, every argument with the service parameter it feeds and what it takes, the unit
of the answer, examples (the table's, which the tests compute against the sandbox) and every
`#RATES!` message the function can give (catalogue.py) with what to do.

A page is built once as a list of blocks and rendered to Markdown (the site) or to a
self-contained HTML page (the server); neither renderer knows anything about functions.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import date, datetime

from rates_xl.functions import catalogue
from rates_xl.functions.args import COERCERS
from rates_xl.functions.core import FunctionSpec
from rates_xl.functions.table import FUNCTIONS, UNITS

#: Where the troubleshooting page lives relative to a function page on the site.
TROUBLESHOOTING = "../troubleshooting.md"


# -- blocks ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True)
class Para:
    text: str  # `code` spans allowed


@dataclass(frozen=True)
class Code:
    text: str


@dataclass(frozen=True)
class Table:
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    code_columns: tuple[int, ...] = ()  # columns shown as literal text (messages, formulas)


Block = Heading | Para | Code | Table


# -- what a page says -------------------------------------------------------------------------------

def _literal(value: object) -> str:
    """A cell value as it is typed in a formula."""
    from rates_xl.functions.core import Call

    if isinstance(value, Call):  # a nested call: RATES_SOURCE(RATES_SWAP(...))
        from rates_xl.functions.table import FUNCTIONS

        return formula(FUNCTIONS[value.name], value.args)[1:]
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return f"{value:g}"
    if isinstance(value, (date, datetime)):
        return f'"{value.isoformat()}"'
    return '"' + str(value).replace('"', '""') + '"'


def formula(spec: FunctionSpec, values: tuple[object, ...], dotted: bool = False) -> str:
    name = spec.dotted_name if dotted else spec.name
    return f"={name}({', '.join(_literal(v) for v in values)})"


def signature(spec: FunctionSpec, dotted: bool = False) -> str:
    names = [a.name if a.required else f"[{a.name}]" for a in spec.args]
    return f"{spec.dotted_name if dotted else spec.name}({', '.join(names)})"


def _answer(spec: FunctionSpec) -> str:
    unit = UNITS.get(spec.unit, spec.unit)
    if spec.result == "number":
        return f"One number, in {unit}." if unit else "One number."
    if spec.result == "table":
        cols = ", ".join(spec.columns)
        return (f"A table that spills: a header row ({cols}) unless `headers` is FALSE, then one row per point"
                + (f"; rates in {unit}." if unit else "."))
    if spec.result == "column":
        return "One column that spills, no header."
    return "Label and value pairs that spill (two columns)."


def _endpoint_path(spec: FunctionSpec) -> str | None:
    if spec.endpoint is None:
        return None
    from rates_xl.client.endpoints import ENDPOINTS

    return ENDPOINTS[spec.endpoint].path


def blocks(spec: FunctionSpec, troubleshooting: str | None = TROUBLESHOOTING) -> list[Block]:
    """One function's page. `troubleshooting`: link target for service messages (None: no link)."""
    out: list[Block] = [Heading(1, spec.name), Para(spec.description)]
    out.append(Code(f"={signature(spec)}\n={signature(spec, dotted=True)}"))
    path = _endpoint_path(spec)
    where = f"Service endpoint: `{path}`." if path else "Makes no request to the service."
    out.append(Para(f"{_answer(spec)} {where} The second spelling is the Office.js host's "
                    "(Windows 365, Mac, the web); the headless engine knows both."
                    + (" Volatile: recalculates with every calculation." if spec.volatile else "")))

    if spec.args:
        out.append(Heading(2, "Arguments"))
        rows = []
        for arg in spec.args:
            rows.append((
                f"`{arg.name}`",
                "required" if arg.required else "optional",
                COERCERS[arg.kind][1],
                f"`{arg.param}`" if arg.param else "not sent",
                arg.doc,
            ))
        out.append(Table(("argument", "", "takes", "service parameter", "meaning"), tuple(rows)))
        out.append(Para("Dates may be date cells, Excel serial numbers or text like 2026-01-01; "
                        "tenors like 10Y count from today (a start) or from the start (an end). "
                        "Text is trimmed and its case ignored."))

    if spec.examples:
        out.append(Heading(2, "Examples"))
        out.append(Code("\n".join(formula(spec, ex) for ex in spec.examples)))

    out.append(Heading(2, "Messages"))
    out.append(Para("Every failure is one line starting `#RATES!` in the cell (the Office.js host shows "
                    "the same text as the error's tooltip: `#VALUE!` for bad input, `#N/A` otherwise). "
                    "Bad input never reaches the service."))
    input_rows = []
    for _arg, messages in catalogue.input_messages(spec):
        input_rows += [(m.text, m.action) for m in messages]
    input_rows += [(m.text, m.action) for m in catalogue.cross_messages(spec)]
    extra = catalogue.too_many_arguments(spec)
    input_rows.append((extra.text, extra.action))
    out.append(Heading(3, "Bad input"))
    out.append(Table(("message", "what to do"), tuple(input_rows), code_columns=(0,)))
    service = catalogue.service_messages(spec)
    if service:
        out.append(Heading(3, "The service, the network, the set-up"))
        if troubleshooting:
            out.append(Para(f"More on each in [Troubleshooting]({troubleshooting})."))
        out.append(Table(("message", "cause", "what to do"),
                         tuple((m.text, m.cause, m.action) for m in service), code_columns=(0,)))
    return out


# -- renderers --------------------------------------------------------------------------------------

def _md_text(text: str) -> str:
    """Plain text for Markdown: code spans kept, angle brackets and pipes made literal."""
    parts = re.split(r"(`[^`]*`)", text)
    return "".join(p if p.startswith("`") else p.replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")
                   for p in parts)


def _md_code(text: str) -> str:
    return "`` " + text.replace("|", "\\|") + " ``"


def to_markdown(page: list[Block]) -> str:
    lines: list[str] = []
    for block in page:
        if isinstance(block, Heading):
            lines += ["#" * block.level + " " + _md_text(block.text), ""]
        elif isinstance(block, Para):
            lines += [block.text if "](" in block.text else _md_text(block.text), ""]
        elif isinstance(block, Code):
            lines += ["```text", block.text, "```", ""]
        else:
            lines.append("| " + " | ".join(block.headers) + " |")
            lines.append("|" + "---|" * len(block.headers))
            for row in block.rows:
                cells = [_md_code(c) if i in block.code_columns else _md_text(c) for i, c in enumerate(row)]
                lines.append("| " + " | ".join(cells) + " |")
            lines.append("")
    return "\n".join(lines)


def _html_text(text: str) -> str:
    parts = re.split(r"(`[^`]*`)", text)
    return "".join(f"<code>{html.escape(p[1:-1])}</code>" if p.startswith("`") else html.escape(p)
                   for p in parts)


_STYLE = ("body{font-family:system-ui,sans-serif;margin:1.5em;max-width:60em;color:#222}"
          "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.3em .5em;"
          "vertical-align:top;text-align:left}pre,code{font-family:Consolas,monospace;background:#f4f4f4}"
          "pre{padding:.5em}h1{color:#1f5fa8}")


def to_html(page: list[Block], title: str) -> str:
    body: list[str] = []
    for block in page:
        if isinstance(block, Heading):
            body.append(f"<h{block.level}>{_html_text(block.text)}</h{block.level}>")
        elif isinstance(block, Para):
            body.append(f"<p>{_html_text(block.text)}</p>")
        elif isinstance(block, Code):
            body.append(f"<pre>{html.escape(block.text)}</pre>")
        else:
            head = "".join(f"<th>{html.escape(h)}</th>" for h in block.headers)
            rows = "".join(
                "<tr>" + "".join(
                    f"<td><code>{html.escape(c)}</code></td>" if i in block.code_columns else f"<td>{_html_text(c)}</td>"
                    for i, c in enumerate(row)) + "</tr>"
                for row in block.rows)
            body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_STYLE}</style>'
            f"</head><body>{''.join(body)}</body></html>\n")


# -- the pages ----------------------------------------------------------------------------------------

def function_pages(table: dict[str, FunctionSpec] | None = None) -> dict[str, str]:
    """Excel name -> the function's reference page in Markdown, in the table's order."""
    table = FUNCTIONS if table is None else table
    return {name: to_markdown(blocks(spec)) for name, spec in table.items()}


def function_html(name: str) -> str | None:
    """The function's page as one self-contained HTML document (the helpUrl page); None if unknown.
    Either spelling: RATES_SWAP or RATES.SWAP (and SWAP, the Office.js id)."""
    key = name.upper().replace(".", "_", 1)
    if not key.startswith("RATES_"):
        key = "RATES_" + key
    spec = FUNCTIONS.get(key)
    if spec is None:
        return None
    return to_html(blocks(spec, troubleshooting=None), f"{spec.name}: rates-xl")


def index_page(table: dict[str, FunctionSpec] | None = None, link: str = "{name}.md") -> str:
    """The list of functions, each linked to its page, with what it answers."""
    table = FUNCTIONS if table is None else table
    lines = ["# Function reference", "",
             "Generated from the function table (`functions/table.py`), the one place every host reads. "
             "Each page gives the signature, each argument with the service parameter it feeds, the unit, "
             "examples and every message the function can give.", "",
             "| function | answer |", "|---|---|"]
    for name, spec in table.items():
        lines.append(f"| [`{signature(spec)}`]({link.format(name=name)}) | {_md_text(spec.description)} |")
    lines += ["", "Units: " + "; ".join(_md_text(text) for text in UNITS.values()) + ".", ""]
    return "\n".join(lines)
