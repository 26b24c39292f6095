"""The structure a newcomer relies on, checked: the layer map (which part of rates_xl may
import which, every import read, a lazy one inside a function too), one exception root
drawn as a tree, and a module map in every package's docstring.

Each check is shown failing on a deliberately wrong input (a synthetic module, class or
folder), so none of them can pass by reading nothing.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

from rates_xl import errors
from tests.support import layers

ROOT = layers.ROOT

#: Parts h29calc is still moving (issue 29): their module maps and exception classes join the
#: checks once calc has moved. Empty when issue 29 is done.
PENDING: tuple[str, ...] = ()


def _pending(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in PENDING)


# -- the layer map ----------------------------------------------------------------------------
def test_every_import_follows_the_layer_map():
    assert layers.all_offences() == []


def test_the_layer_map_has_no_cycle_so_no_import_can_close_one():
    allowed = {(part, other) for part, others in layers.LAYERS.items() for other in others}
    assert set(layers.LAYERS) >= {other for _, other in allowed}
    assert layers.cycles(allowed) == []
    # and what the code really imports has none either
    assert layers.cycles(set(layers.part_graph())) == []


@pytest.mark.parametrize("module, source, expected", [
    # the hidden cycles, as they were written: lazily, inside a function
    ("rates_xl.functions.messages", "def how():\n    from rates_xl.addin.keys import how_to_set_key\n",
     "rates_xl.functions.messages:2: functions imports addin (rates_xl.addin.keys) (inside a function)"),
    ("rates_xl.client.pack_seal", "def ids():\n    from rates_xl.sandbox import BUILTIN_KEYS\n",
     "rates_xl.client.pack_seal:2: client imports sandbox (rates_xl.sandbox) (inside a function)"),
    ("rates_xl.calc.workbook", "from rates_xl.templates.demo import sandbox_client\n",
     "rates_xl.calc.workbook:1: calc imports templates (rates_xl.templates.demo)"),
    # relative, typing-only and plain imports count the same
    ("rates_xl.client.models", "from ..functions import core\n",
     "rates_xl.client.models:1: client imports functions (rates_xl.functions.core)"),
    ("rates_xl.functions.core", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import rates_xl.calc.book\n",
     "rates_xl.functions.core:3: functions imports calc (rates_xl.calc.book)"),
    ("rates_xl.sandbox.market", "import rates_xl.scenario.model\n",
     "rates_xl.sandbox.market:1: sandbox imports scenario (rates_xl.scenario.model)"),
    ("rates_xl.templates.build", "from rates_xl import cli\n",
     "rates_xl.templates.build:1: templates imports commands (rates_xl.cli)"),
])
def test_a_wrong_import_is_named(module, source, expected):
    assert layers.offences(source, module) == [expected]


def test_imports_the_map_allows_are_not_named():
    assert layers.offences("from rates_xl.client import RatesClient\nfrom rates_xl import errors\n"
                           "def f():\n    from rates_xl.functions.sheet import Area\n",
                           "rates_xl.calc.workbook") == []
    # a command module composes parts (calc --scenario, calc --sandbox)
    assert layers.offences("def run():\n    from rates_xl.scenario import replay\n"
                           "    from rates_xl.templates.demo import sandbox_client\n", "rates_xl.calc.cli") == []


def test_the_architecture_page_draws_the_same_map():
    drawn = layers.drawn_map((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    assert drawn == {part: tuple(others) for part, others in layers.LAYERS.items()}


# -- one exception root --------------------------------------------------------------------------
def _our_exceptions(pending: bool = False) -> dict[str, type]:
    """Every exception class of rates_xl by its dotted name (with `pending`: calc's too)."""
    found = {}
    for name, _ in layers.modules():
        module = importlib.import_module(name)
        for value in vars(module).values():
            if inspect.isclass(value) and issubclass(value, BaseException) \
                    and value.__module__.startswith("rates_xl") and (pending or not _pending(value.__module__)):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


def without_root(classes: dict[str, type]) -> list[str]:
    return sorted(name for name, cls in classes.items() if not issubclass(cls, errors.RatesXlError))


def drawn_tree(doc: str) -> dict[str, str | None]:
    """name -> its parent's name, as the docstring's tree draws it."""
    parents: dict[str, str | None] = {}
    stack: list[str] = []
    for line in doc.splitlines():
        found = re.match(r"^ {4}([│├└─ ]*)([A-Z]\w+)\s", line + " ")
        if not found:
            continue
        depth = len(found[1]) // 4
        stack[depth:] = [found[2]]
        parents[found[2]] = stack[depth - 1] if depth else None
    return parents


def test_every_exception_class_has_the_one_root():
    classes = _our_exceptions()
    assert len(classes) > 50
    assert without_root(classes) == []


def test_a_class_without_the_root_is_named():
    class Stray(ValueError):
        pass

    Stray.__module__ = "rates_xl.client.synthetic"
    assert without_root({"rates_xl.client.synthetic.Stray": Stray, "ok": errors.UsageError}) == \
        ["rates_xl.client.synthetic.Stray"]


def test_the_tree_in_the_docstring_is_the_real_one():
    drawn = drawn_tree(errors.__doc__)
    assert drawn["RatesXlError"] is None and drawn["UsageError"] == "CommandError"
    public = {cls.__name__: cls for cls in _our_exceptions().values() if not cls.__name__.startswith("_")}
    drawn_here = {name: parent for name, parent in drawn.items() if name in public or name == "RatesXlError"}
    assert sorted(set(public) - set(drawn)) == [], "draw these in rates_xl/errors.py"
    every = {cls.__name__ for cls in _our_exceptions(pending=True).values()}
    assert sorted(set(drawn) - every) == [], "drawn in rates_xl/errors.py, but no such class"
    for name, parent in drawn_here.items():
        if parent is not None:
            assert public[name].__bases__[0].__name__ == parent, (name, parent)


def test_a_tree_drawn_wrong_is_caught():
    drawn = drawn_tree("""
    RatesXlError         root
    ├── CommandError     a
    │   └── UsageError   b
    └── Internal         c
    """)
    assert drawn == {"RatesXlError": None, "CommandError": "RatesXlError", "UsageError": "CommandError",
                     "Internal": "RatesXlError"}
    wrong = drawn_tree("    RatesXlError  r\n    └── UsageError  u\n")
    assert wrong["UsageError"] != errors.UsageError.__bases__[0].__name__


def test_the_command_line_reports_any_of_ours_in_one_line(capsys):
    from rates_xl.cli import _one_line
    from rates_xl.client.pack import PackError
    from rates_xl.functions.formula_walk import NotFollowed

    assert _one_line(PackError("the pack is not JSON")) == "the pack is not JSON"
    assert _one_line(NotFollowed("VLOOKUP")) is None  # an Internal one escaping is a bug
    assert _one_line(KeyError("x")) is None


# -- module maps -----------------------------------------------------------------------------------
def unlisted(folder: Path, subpackages: set[str] | None = None) -> list[str]:
    """The modules (`name.py`) and subpackages (`name/`) of a package its docstring does not
    list, and the ones it lists that are not there (a data folder, `static/`, may be listed)."""
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))) or ""
    if subpackages is None:
        subpackages = {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}
    there = {p.name for p in folder.glob("*.py")} | {f"{name}/" for name in subpackages}
    listed = set(re.findall(r"`([a-z_0-9]+\.py|[a-z_0-9]+/)`", doc))
    missing = there - listed - {"__init__.py"}
    stale = {n for n in listed - there if not (n.endswith("/") and (folder / n).is_dir())}
    return sorted(f"missing {n}" for n in missing) + sorted(f"no such {n}" for n in stale)


def test_every_package_lists_its_modules():
    dirs = layers.package_dirs()
    # The root's subpackages are the top-level folders (pyproject's package-dir).
    top = {path.relative_to(ROOT).parts[0] for name, path in dirs.items() if name.count(".") == 1}
    problems = {package: found for package, folder in dirs.items()
                if not _pending(package) and (found := unlisted(folder, top if package == "rates_xl" else None))}
    assert problems == {}


def test_a_module_left_out_of_the_map_is_named(tmp_path):
    (tmp_path / "__init__.py").write_text('"""A package.\n\n- `kept.py`: listed;\n- `gone.py`: stale.\n"""\n')
    (tmp_path / "kept.py").write_text("")
    (tmp_path / "new.py").write_text("")
    assert unlisted(tmp_path) == ["missing new.py", "no such gone.py"]
