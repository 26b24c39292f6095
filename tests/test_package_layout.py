"""Python started in the clone's root imports the installed rates_xl, not a folder shadowing it.

README command 1 is a non-editable `pip install`, after which a user often stays in the
clone's root. A top-level folder named `rates_xl` would then shadow the installed package
(`python -c "import rates_xl.functions"` and `python -m rates_xl.templates.render` failed so
before the package root moved to cli/). A real non-editable install into a fresh virtual
environment takes minutes, so this checks the two things that decide it: no top-level folder
or module is called rates_xl, and a child Python whose working directory is the root imports
every subpackage from where the installation maps it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_no_top_level_folder_or_module_is_named_rates_xl():
    assert (ROOT / "pyproject.toml").is_file()
    assert not (ROOT / "rates_xl").exists()
    assert not (ROOT / "rates_xl.py").exists()


def _run(*argv: str) -> subprocess.CompletedProcess:
    # -P would hide the problem (it leaves the working directory out of sys.path): not used.
    return subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)


def test_python_in_the_root_imports_the_installed_package():
    done = _run("-c", "import json, rates_xl, rates_xl.functions, rates_xl.calc.workbook, "
                      "rates_xl.addin.classic.build, rates_xl.templates; "
                      "print(json.dumps({m: __import__(m, fromlist=['x']).__file__ for m in "
                      "['rates_xl', 'rates_xl.functions', 'rates_xl.calc.workbook', 'rates_xl.templates']}))")
    assert done.returncode == 0, done.stderr
    files = {name: Path(path).resolve() for name, path in json.loads(done.stdout).items()}
    for name, path in files.items():
        assert ROOT / "rates_xl" not in path.parents, (name, path)
    # Where the installation maps them: site-packages, or (editable) the source folders.
    editable = files["rates_xl"].parent == ROOT / "cli"
    if editable:
        assert files["rates_xl.functions"].parent == ROOT / "functions"
        assert files["rates_xl.calc.workbook"].parent == ROOT / "calc"
    else:
        assert all("site-packages" in str(p) for p in files.values()), files


def test_python_m_runs_a_module_of_the_package_from_the_root():
    done = _run("-m", "rates_xl.templates.render", "--help")
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout


def test_every_subpackage_is_in_the_distribution():
    """pyproject lists the packages one by one (the folders map onto one namespace), so a new
    subpackage left out installs in editable mode and is missing from README command 1's
    non-editable install (calc/engines and calc/xlfuncs were, once: `rates-xl demo` failed)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed, folders = set(config["packages"]), config["package-dir"]
    assert listed == set(folders), listed ^ set(folders)
    found = set()
    for package, folder in folders.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            if "__pycache__" in init.parts:
                continue
            relative = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((package, *relative)))
    assert found <= listed, sorted(found - listed)
