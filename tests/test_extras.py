"""A module an optional extra provides, missing, is the user's to fix (issue 31, point 3): the
command says which extra and how to install it, in one line, exit 1; never "internal error".

The extra is made missing the way Python sees an uninstalled package: a module of that name
first on PYTHONPATH whose import fails with ModuleNotFoundError (its `name` set), in front of
the installed one, for the real `rates-xl` console script."""

from __future__ import annotations

import shutil

import pytest

from rates_xl.extras import clone, install_hint
from rates_xl.templates import template_path
from tests.support.commands import fresh_env, rates_xl


def _without(tmp_path, *modules: str) -> dict[str, str]:
    shims = tmp_path / "uninstalled"
    shims.mkdir()
    for module in modules:
        (shims / f"{module}.py").write_text(
            f"raise ModuleNotFoundError(\"No module named '{module}'\", name={module!r})\n")
    return fresh_env(tmp_path / "home", PYTHONPATH=str(shims))


@pytest.mark.parametrize("argv", [
    ["calc", "book.xlsx", "--sandbox", "--no-progress"],
    ["templates", "build", "history", "--out", "built"],
    ["demo", "--no-progress"],
    ["sandbox", "--port", "0"],
], ids=lambda argv: " ".join(argv[:2]))
def test_without_quantlib_the_sandbox_commands_name_the_extra(argv, tmp_path):
    shutil.copyfile(template_path("history"), tmp_path / "book.xlsx")
    done = rates_xl(*argv, cwd=tmp_path, env=_without(tmp_path, "QuantLib"), timeout=120)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 1, done.stdout + done.stderr
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(f"rates-xl {argv[0]}"), lines[0]
    assert "QuantLib is not installed" in lines[0] and "[sandbox] extra" in lines[0], lines[0]
    assert install_hint("sandbox") in lines[0] and "internal error" not in lines[0]


def test_without_fastapi_serve_names_the_officejs_extra(tmp_path):
    done = rates_xl("serve", "--port", "0", cwd=tmp_path, env=_without(tmp_path, "fastapi"), timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.strip() == f"rates-xl serve: fastapi is not installed: this needs the [officejs] extra " \
                                  f"({install_hint('officejs')})"


def test_the_install_hint_names_this_clone():
    root = clone()
    assert root is not None and (root / "README.md").exists()  # the tests run from an editable install
    assert install_hint("sandbox") == f'pip install -e "{root}[sandbox]"'
