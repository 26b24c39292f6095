"""The layer map of rates_xl (which part may import which) and the reader that checks it.

Every import counts, wherever it is written: at the top of a module, inside a function (a
lazy import for speed is fine, one that dodges a cycle is not: it is read like any other),
under `if TYPE_CHECKING:`. A module belongs to one part (`part_of`); the map (`LAYERS`)
says which parts each part may import; the map itself has no cycle, so no import between
parts can close one. docs/architecture.md draws the same map (tests/test_layers.py holds
the two equal).
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: part -> the parts it may import (besides itself), lowest part first.
LAYERS: dict[str, tuple[str, ...]] = {
    # rates_xl itself: the version, the exception tree, atomic file writes, the extras' names
    "base": (),
    "client": ("base",),
    "functions": ("client", "base"),
    # The scenario grammar (SOFR+1bp), which the sandbox reads for --shift.
    "scenario.spec": ("base",),
    "sandbox": ("scenario.spec", "client", "base"),
    "calc": ("functions", "client", "base"),
    "scenario": ("calc", "sandbox", "scenario.spec", "functions", "client", "base"),
    "templates": ("calc", "sandbox", "functions", "client", "base"),
    "addin": ("templates", "scenario", "scenario.spec", "functions", "client", "base"),
    # The command line: rates_xl.cli, the docs generator and each part's command module
    # (cli.py, *_cli.py), which compose parts (calc --scenario, calc --sandbox).
    "commands": ("addin", "templates", "scenario", "calc", "sandbox", "scenario.spec", "functions",
                 "client", "base"),
}

#: Modules of the package root (cli/) that are the base, not the command line.
BASE_MODULES = {"rates_xl", "rates_xl.errors", "rates_xl.atomic", "rates_xl.extras"}
#: Parts that are one module rather than a folder.
MODULE_PARTS = {"rates_xl.scenario.spec": "scenario.spec"}


@cache
def package_dirs() -> dict[str, Path]:
    """rates_xl's packages and their folders (pyproject's package-dir)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {name: ROOT / folder for name, folder in config["tool"]["setuptools"]["package-dir"].items()}


def modules() -> Iterator[tuple[str, Path]]:
    """(dotted name, file) of every module of rates_xl."""
    for package, folder in sorted(package_dirs().items()):
        for path in sorted(folder.glob("*.py")):
            yield (package if path.stem == "__init__" else f"{package}.{path.stem}"), path


@cache
def module_names() -> frozenset[str]:
    return frozenset(name for name, _ in modules())


def is_command(module: str) -> bool:
    last = module.rsplit(".", 1)[-1]
    return module in ("rates_xl.cli", "rates_xl.docgen") or last == "cli" or last.endswith("_cli")


def part_of(module: str) -> str | None:
    """The part a module of ours belongs to; None for anything else (a library)."""
    if module != "rates_xl" and not module.startswith("rates_xl."):
        return None
    if module in MODULE_PARTS:
        return MODULE_PARTS[module]
    if is_command(module):
        return "commands"
    if module in BASE_MODULES:
        return "base"
    parts = module.split(".")
    if len(parts) == 2 and module not in package_dirs():
        return "commands"  # another module of the root: the command line's
    return parts[1]


@dataclass(frozen=True)
class Import:
    module: str  # what is imported (a module, or the package a name is taken from)
    line: int
    nested: bool  # written inside a function


def imports(source: str, module: str, is_package: bool = False) -> list[Import]:
    """Every import in `source` (the text of `module`), relative ones resolved."""
    tree = ast.parse(source)
    package = module if is_package else module.rpartition(".")[0]
    found: list[Import] = []

    def visit(node: ast.AST, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = nested or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            if isinstance(child, ast.Import):
                found.extend(Import(alias.name, child.lineno, nested) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    up = package.split(".")[: len(package.split(".")) - child.level + 1]
                    base = ".".join([*up, base] if base else up)
                for alias in child.names:
                    name = f"{base}.{alias.name}"  # `from rates_xl import atomic`: the module
                    found.append(Import(name if name in module_names() else base, child.lineno, nested))
            visit(child, inner)

    visit(tree, False)
    return found


def offences(source: str, module: str, is_package: bool = False) -> list[str]:
    """The imports of `module` that its part may not make, one line each."""
    mine = part_of(module)
    if mine is None:
        return []
    allowed = {mine, *LAYERS[mine]}
    out = []
    for found in imports(source, module, is_package):
        theirs = part_of(found.module)
        if theirs is not None and theirs not in allowed:
            where = " (inside a function)" if found.nested else ""
            out.append(f"{module}:{found.line}: {mine} imports {theirs} ({found.module}){where}")
    return out


def all_offences() -> list[str]:
    return [line for name, path in modules()
            for line in offences(path.read_text(encoding="utf-8"), name, path.stem == "__init__")]


def part_graph() -> dict[tuple[str, str], list[Import]]:
    """(importing part, imported part) -> the imports that make the edge, over all of rates_xl."""
    edges: dict[tuple[str, str], list[Import]] = {}
    for name, path in modules():
        mine = part_of(name)
        for found in imports(path.read_text(encoding="utf-8"), name, path.stem == "__init__"):
            theirs = part_of(found.module)
            if theirs is not None and theirs != mine:
                edges.setdefault((mine, theirs), []).append(found)
    return edges


def cycles(edges: set[tuple[str, str]]) -> list[tuple[str, ...]]:
    """Every elementary cycle of a small directed graph, each once (from its least node)."""
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    found = []

    def walk(start: str, node: str, path: tuple[str, ...]) -> None:
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                found.append(path)
            elif nxt > start and nxt not in path:
                walk(start, nxt, (*path, nxt))

    for start in sorted(graph):
        walk(start, start, (start,))
    return found


def drawn_map(markdown: str) -> dict[str, tuple[str, ...]]:
    """The layer map as docs/architecture.md draws it: a table `| part | may import |`."""
    rows = re.findall(r"^\| `([\w.]+)` \| ([^|]*) \|", markdown, flags=re.MULTILINE)
    return {part: tuple(re.findall(r"`([\w.]+)`", allowed)) for part, allowed in rows}
