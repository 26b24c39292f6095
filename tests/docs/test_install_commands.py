"""The install commands of README.md and docs/ work from a clone (issue 31, point 2): there
is no rates-xl on PyPI, so `pip install rates-xl` or `pip install "rates-xl[officejs]"` finds
nothing, and each page must install from the clone as the README does.

- README's first command runs as written in test_readme_first_command.py.
- Every other `pip install ...` in the docs is resolved (`--dry-run`: everything but the
  copying) in a fresh virtual environment that holds no rates-xl, from a copy of this working
  tree (a clone's files).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.markdown_commands import every_command
from tests.support.commands import copy_of_the_clone, new_venv


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    return copy_of_the_clone(tmp_path_factory.mktemp("clone"))


def _pip_commands() -> dict[str, list[str]]:
    """Each distinct `pip install` command of the docs (README's own two aside) -> where."""
    found: dict[str, list[str]] = {}
    for command in every_command():
        text = command.text.split("&&")[0].strip()  # `pip install ... && rates-xl demo`: the install
        if text.startswith("pip install") and command.page != "README.md":
            found.setdefault(text, []).append(command.where)
    return found


def test_every_other_pip_install_in_the_docs_resolves_from_the_clone(clone, tmp_path):
    commands = _pip_commands()
    assert len(commands) >= 4, commands  # the getting-started pages' and the extras'
    # The environment's own pip is not what is checked: this one, pointed at it (`--python`).
    pip = [sys.executable, "-m", "pip", "--python", str(new_venv(tmp_path / "venv", with_pip=False) / "python")]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    # What each command asks pip for, as the shell hands it over (".[team]" and .[team] alike):
    # resolved in one run (one build of the clone's metadata), which fails if any one fails.
    asked = {tuple(shlex.split(text)[2:]): where for text, where in commands.items()}
    for arguments, where in asked.items():
        assert all(a.startswith(".") for a in arguments), f"{where}: not installed from the clone: {arguments}"
    requirements = sorted({a for arguments in asked for a in arguments})
    done = subprocess.run([*pip, "install", "--dry-run", "--quiet", *requirements], cwd=clone,
                          env=env, capture_output=True, text=True, timeout=600, check=False, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{requirements}: {done.stderr[-2000:]}"
    # The environment holds no rates-xl: a command naming the distribution itself finds none.
    missing = subprocess.run([*pip, "install", "--dry-run", "--quiet", "rates-xl"], cwd=tmp_path,
                             env=env, capture_output=True, text=True, timeout=600, check=False)
    assert missing.returncode != 0 and "rates-xl" in missing.stderr


def test_no_page_tells_a_reader_to_install_a_package_that_does_not_exist():
    for command in every_command():
        assert not command.text.startswith(("pip install rates-xl", 'pip install "rates-xl')), command.where
    assert sys.version_info >= (3, 11)
