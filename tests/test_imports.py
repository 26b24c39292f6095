"""Tests import the package only as `rates_xl`.

The top-level folders are the subpackages of rates_xl (pyproject's package-dir). Imported
by their folder names (`import calc.engine`), a module would load a second time as another
module, with its own globals (a second shared client, a second cache): tests would pass
against a copy the users never run. pytest's options no longer put the root on sys.path for
this reason; this test keeps it so. `tests.*` and `bench.*` helpers are imported as such
(`python -m pytest` puts the working directory on sys.path).
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _package_folders() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapped = config["tool"]["setuptools"]["package-dir"].values()
    return {Path(folder).parts[0] for folder in mapped}


def _imported_top_names(path: Path) -> set[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {(node.lineno, alias.name.split(".")[0]) for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add((node.lineno, node.module.split(".")[0]))
    return found


def test_the_package_folders_are_known():
    assert {"calc", "client", "functions", "addin", "sandbox", "templates", "cli"} <= _package_folders()


def test_pytest_does_not_put_the_root_on_sys_path():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "pythonpath" not in config["tool"]["pytest"]["ini_options"]


def test_no_test_imports_a_package_folder_by_its_own_name():
    folders = _package_folders()
    wrong = [f"{path.relative_to(ROOT)}:{line}: import {name}"
             for path in sorted((ROOT / "tests").rglob("*.py"))
             for line, name in sorted(_imported_top_names(path)) if name in folders]
    assert wrong == [], "import these as rates_xl.<folder>: " + "; ".join(wrong)
