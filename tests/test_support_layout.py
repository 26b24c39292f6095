"""The contract of tests/support (its docstring): tests never import bench/, bench/ imports
only tests.support, and tests/support imports our code only as `rates_xl.*`.

Read from the source with `ast`, so a lazy import inside a function counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Our top-level folders: importing one by its folder name instead of as rates_xl.* works
# only from the clone's root and loads a second copy of the module.
FOLDERS = {"cli", "client", "functions", "addin", "calc", "sandbox", "templates"}


def imported(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, module) for every import in the file, relative ones resolved to absolute."""
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            names = [f"{base}.{alias.name}" for alias in node.names] if base in ("bench", "tests.support") \
                else [base]
            out += [(node.lineno, name) for name in names]
    return out


def offences(folder: str, bad) -> list[str]:
    return [f"{path.relative_to(ROOT)}:{line}: {module}"
            for path in sorted((ROOT / folder).rglob("*.py"))
            for line, module in imported(path) if bad(path, module)]


def test_no_test_imports_bench():
    assert offences("tests", lambda path, m: m == "bench" or m.startswith("bench.")) == []


def test_bench_imports_only_tests_support_from_tests():
    assert offences("bench", lambda path, m: (m == "tests" or m.startswith("tests."))
                    and not m.startswith("tests.support")) == []


def test_support_imports_our_code_as_rates_xl_and_no_other_test_module():
    def bad(path, module):
        top = module.split(".")[0]
        return top in FOLDERS or top == "bench" or (top == "tests" and not module.startswith("tests.support"))

    assert offences("tests/support", bad) == []


def test_the_checks_see_lazy_and_relative_imports(tmp_path):
    # The moved modules import lazily inside functions; a relative import is resolved.
    probe = tmp_path / "tests" / "support" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text("def f():\n    from bench.common import figure\n    import client.wire\n"
                     "from ..reliability import conftest\nfrom . import cells\n")
    assert [m for _, m in imported(probe, tmp_path)] == [
        "tests.reliability", "tests.support.cells", "bench.common", "client.wire"]
