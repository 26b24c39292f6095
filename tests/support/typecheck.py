"""mypy over the typed layers (`calc`, `functions`, `client`), as the installed `rates_xl`
sees them: `python -m tests.support.typecheck [--json] [FILE ...]` (.ci/run runs it; the
settings are pyproject.toml's [tool.mypy]).

Why a runner: the folders are the subpackages of one namespace only through setuptools'
package-dir table (pyproject.toml), which an editable install serves with an import hook
mypy cannot follow. So the package is laid out once as mypy would find it installed, a tree
of symbolic links under .mypy_cache/package (`rates_xl/` holding cli/'s modules and one link
per top-level subpackage), and mypy is pointed at it. FILEs (a test's module) are checked
too, against the same package.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The packages the type check covers (the others are read, through their imports, silently).
TYPED = ("rates_xl.calc", "rates_xl.functions", "rates_xl.client")


def package_tree(root: Path = ROOT) -> Path:
    """The installed package's layout of `root`'s folders, as links; its parent folder."""
    table = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    base = root / ".mypy_cache" / "package"
    package = base / "rates_xl"
    package.mkdir(parents=True, exist_ok=True)
    wanted = {}
    for module in sorted((root / table["rates_xl"]).glob("*.py")):
        wanted[module.name] = module
    for name, folder in table.items():
        parts = name.split(".")
        if len(parts) == 2:  # rates_xl.calc -> calc/ (its subpackages are its own subfolders)
            wanted[parts[1]] = root / folder
    for entry in package.iterdir():
        if entry.name not in wanted or not entry.is_symlink() or entry.resolve() != wanted[entry.name].resolve():
            entry.unlink()
    for name, target in wanted.items():
        link = package / name
        if not link.is_symlink():
            link.symlink_to(target)
    return base


def run(files: list[str] | None = None, root: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """mypy's run over the typed packages (and `files`): its exit code and report."""
    base = package_tree(root)
    command = [sys.executable, "-m", "mypy", "--config-file", str(root / "pyproject.toml"),
               "--cache-dir", str(root / ".mypy_cache"), "--no-color-output"]
    # The packages as folders of the laid-out tree (mypy takes files or packages, not both).
    command += [str(base.joinpath(*package.split("."))) for package in TYPED]
    command += list(files or [])
    env = {**os.environ, "MYPYPATH": str(base)}
    return subprocess.run(command, cwd=base, env=env, capture_output=True, text=True, check=False)


def main(argv: list[str] | None = None) -> int:
    done = run(list(argv if argv is not None else sys.argv[1:]))
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
