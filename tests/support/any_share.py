"""How much of the typed layers is typed as `Any`: `python -m tests.support.any_share [-v]`.

An AST scan of every module of calc, functions and client (the packages mypy checks,
tests.support.typecheck.TYPED): of the annotated parameters (`self`, `cls` and unannotated
ones are not counted) and the annotated returns, how many mention `Any` anywhere in their
annotation (`Any`, `typing.Any`, `list[Any]`, `"Any | None"`, or an alias the module defines
with one). Per package, and per module with -v. tests/test_any_share.py ratchets the figures; EDGES names the modules that sit at a
third-party library's edge, where `Any` stays.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The scanned packages and their folders (the typed layers).
PACKAGES = {"calc": ROOT / "calc", "functions": ROOT / "functions", "client": ROOT / "client"}

#: Modules at a third-party library's edge: the library whose objects they receive. `Any`
#: stays there (narrowed to our types before the inner code sees it); every other module that
#: still mentions it is to be narrowed.
EDGES = {
    "calc/book.py": "openpyxl (a sheet's cells, which its stubs may answer as a MergedCell)",
    "calc/frozen.py": "openpyxl (the copy's cells it writes)",
    "calc/undo.py": "openpyxl (a sheet's and the defined names' private attributes, put back)",
    "calc/engines/formualizer/model.py": "formualizer (its Workbook, registered callbacks)",
    "calc/engines/formualizer/prepare.py": "formualizer and openpyxl (the engine's copy of a book)",
    "calc/engines/formualizer/cells.py": "openpyxl (the copy's cells it writes)",
    "calc/engines/formualizer/lookups.py": "formualizer and openpyxl (the tables handed to Python, the copy)",
    "calc/engines/formualizer/values.py": "formualizer (any answer of ours, as it stores it)",
    "calc/engines/formulas/engine.py": "formulas and schedula (its ExcelModel, solution, ranges)",
    "calc/engines/formulas/functions.py": "formulas (numpy arrays, XlError, schedula's EMPTY)",
    "calc/xlfuncs/bridge.py": "formulas (its function implementations, called from formualizer)",
    "calc/xlfuncs/unvectorized.py": "formulas (what its wrap_ufunc wrappers close over)",
    "calc/xlfuncs/scipy_deferred.py": "scipy and numpy (the modules formulas' statistics import, stood in for)",
    "calc/xlfuncs/logical/pipes.py": "schedula (formulas' compiled pipes: their nodes, filters and functions)",
    "functions/core.py": "pydantic (the validation model built per function)",
    "client/calendars.py": "QuantLib (its calendar objects)",
    "client/team.py": "redis (its client and scripts)",
    "client/transport.py": "requests and urllib3 (their adapters' and pools' arguments)",
    "client/deadline.py": "urllib3 (its connections' responses)",
}

_ANY_WORD = re.compile(r"\bAny\b")


@dataclass
class Count:
    """Annotated parameters and returns, and how many of each mention `Any`."""

    params: int = 0
    any_params: int = 0
    #: Of them, annotated `Any` itself (not `list[Any]`, `Any | None`).
    bare_params: int = 0
    returns: int = 0
    any_returns: int = 0
    #: (line, what) of each `Any`: "param name" or "return of name".
    where: list[tuple[int, str]] = field(default_factory=list)

    def add(self, other: Count) -> None:
        self.params += other.params
        self.any_params += other.any_params
        self.bare_params += other.bare_params
        self.returns += other.returns
        self.any_returns += other.any_returns

    @property
    def any(self) -> int:
        return self.any_params + self.any_returns

    def bare_share(self) -> float:
        """The share of annotated parameters annotated `Any` itself."""
        return self.bare_params / self.params if self.params else 0.0

    def share(self) -> float:
        """The share of annotated parameters that mention Any (0 when none is annotated)."""
        return self.any_params / self.params if self.params else 0.0

    def return_share(self) -> float:
        return self.any_returns / self.returns if self.returns else 0.0


def mentions_any(annotation: ast.expr, aliases: frozenset[str] = frozenset()) -> bool:
    """Whether an annotation names `Any`: as a name, an attribute (typing.Any) or in a string,
    or names one of the module's `aliases` that does."""
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name) and (node.id == "Any" or node.id in aliases):
            return True
        if isinstance(node, ast.Attribute) and node.attr == "Any":
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                _ANY_WORD.search(node.value) or any(re.search(rf"\b{a}\b", node.value) for a in aliases)):
            return True
    return False


def any_aliases(tree: ast.Module) -> frozenset[str]:
    """The module's own type aliases whose definition mentions `Any` (`Row = list[Any]`, `Row:
    TypeAlias = ...`, under `if TYPE_CHECKING:` too), in order, so one defined from another counts:
    an alias does not hide an `Any` from the count."""
    found: set[str] = set()
    body = [n for top in tree.body for n in ([top, *top.body] if isinstance(top, ast.If) else [top])]
    for node in body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None \
                and "TypeAlias" in ast.unparse(node.annotation):
            name, value = node.target.id, node.value
        else:
            continue
        if isinstance(value, ast.Subscript | ast.BinOp | ast.Name | ast.Attribute) and mentions_any(value, frozenset(found)):
            found.add(name)
    return frozenset(found)


def is_bare_any(annotation: ast.expr) -> bool:
    """An annotation that is `Any` itself (`Any`, `typing.Any`, `"Any"`)."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.strip() in ("Any", "typing.Any")
    return (isinstance(annotation, ast.Name) and annotation.id == "Any"
            or isinstance(annotation, ast.Attribute) and annotation.attr == "Any")


def count_source(source: str) -> Count:
    """The count of one module's text."""
    count = Count()
    tree = ast.parse(source)
    aliases = any_aliases(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        args = node.args
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        every += [a for a in (args.vararg, args.kwarg) if a is not None]
        for arg in every:
            if arg.annotation is None:
                continue  # self, cls, a lambda-like helper: not annotated, not counted
            count.params += 1
            if mentions_any(arg.annotation, aliases):
                count.any_params += 1
                count.bare_params += is_bare_any(arg.annotation)
                count.where.append((node.lineno, f"{arg.arg} of {node.name}"))
        if node.returns is not None:
            count.returns += 1
            if mentions_any(node.returns, aliases):
                count.any_returns += 1
                count.where.append((node.lineno, f"return of {node.name}"))
    return count


def modules(package: str) -> Iterator[tuple[str, Path]]:
    """(name relative to the root, e.g. calc/engines/formulas/engine.py, path) of a package."""
    folder = PACKAGES[package]
    for path in sorted(folder.rglob("*.py")):
        yield path.relative_to(ROOT).as_posix(), path


def per_module(package: str) -> dict[str, Count]:
    return {name: count_source(path.read_text(encoding="utf-8")) for name, path in modules(package)}


def per_package() -> dict[str, Count]:
    """Each scanned package's total."""
    totals = {}
    for package in PACKAGES:
        total = Count()
        for count in per_module(package).values():
            total.add(count)
        totals[package] = total
    return totals


def allowance() -> dict[str, int]:
    """Every module that mentions `Any` in a parameter's or return's annotation: how many."""
    return {name: count.any for package in PACKAGES for name, count in per_module(package).items()
            if count.any}


def report(verbose: bool = False) -> str:
    """Per package: parameters that mention Any, of them `Any` itself, returns that mention Any;
    how many of those annotations are in modules at an edge (EDGES) and how many elsewhere."""
    lines = [f"{'':10} {'parameters: mention Any':<24}{'are Any':<14}returns: mention Any"]
    for package, total in per_package().items():
        lines.append(f"{package:10} {total.any_params:5}/{total.params:<5} {total.share():6.1%}    "
                     f"{total.bare_params:5} {total.bare_share():6.1%}  "
                     f"{total.any_returns:5}/{total.returns:<5} {total.return_share():6.1%}")
        modules = {name: count.any for name, count in per_module(package).items() if count.any}
        edge = {name: n for name, n in modules.items() if name in EDGES}
        lines.append(f"{'':10} Any at an edge: {sum(edge.values())} in {len(edge)} modules; elsewhere: "
                     f"{sum(modules.values()) - sum(edge.values())} in {len(modules) - len(edge)} modules")
        if verbose:
            for name, count in per_module(package).items():
                if count.any:
                    lines.append(f"    {name:50} {count.any_params:3}/{count.params:<4} "
                                 f"returns {count.any_returns:3}/{count.returns}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    if "--allowance" in args:  # the figures tests/test_any_share.py holds, as Python
        print("\n".join(f"    {name!r}: {n}," for name, n in allowance().items()))
    else:
        print(report(verbose="-v" in args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
