"""`rates-xl templates build` (issue 31, point 1): every template builds, through the console
script against the sandbox it starts; the file goes to the current folder (or --out); an
existing file, a shipped template above all, is never replaced without --force."""

from __future__ import annotations

import hashlib

import openpyxl
import pytest

from rates_xl.templates import TEMPLATES, template_path
from tests.support.commands import fresh_env, rates_xl


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _formulas(path) -> dict:
    book = openpyxl.load_workbook(path)
    return {(ws.title, c.coordinate): getattr(c.value, "text", c.value) for ws in book.worksheets
            for row in ws.iter_rows() for c in row if isinstance(getattr(c.value, "text", c.value), str)}


@pytest.mark.slow
def test_every_template_builds_into_the_current_folder_and_the_shipped_ones_stay(tmp_path):
    shipped = {name: _digest(template_path(name)) for name in TEMPLATES}
    env = fresh_env(tmp_path / "home")
    done = rates_xl("templates", "build", cwd=tmp_path, env=env, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    for name in TEMPLATES:
        built = tmp_path / f"{name}.xlsx"
        assert f"built {name}.xlsx (" in done.stdout and "no error cells" in done.stdout
        # The same workbook as the shipped one: same formulas, labels and notes.
        assert _formulas(built) == _formulas(template_path(name)), name
    assert {name: _digest(template_path(name)) for name in TEMPLATES} == shipped


def test_the_swap_pricer_builds_and_an_existing_file_needs_force(tmp_path):
    env = fresh_env(tmp_path / "home")
    first = rates_xl("templates", "build", "swap_pricer", "--out", "out", cwd=tmp_path, env=env)
    assert first.returncode == 0, first.stdout + first.stderr  # failed 3 of 3 before (issue 31)
    built = tmp_path / "out" / "swap_pricer.xlsx"
    assert first.stdout.strip() == f"built out/swap_pricer.xlsx ({_count(first.stdout)} formulas, no error cells)"
    before = _digest(built)
    again = rates_xl("templates", "build", "swap_pricer", "--out", "out", cwd=tmp_path, env=env)
    assert again.returncode == 1 and _digest(built) == before
    assert again.stderr.strip() == ("rates-xl templates build: out/swap_pricer.xlsx exists; pass --force to replace "
                                    "it, or --out DIR to build elsewhere")
    forced = rates_xl("templates", "build", "swap_pricer", "--out", "out", "--force", cwd=tmp_path, env=env)
    assert forced.returncode == 0, forced.stderr


def test_run_in_the_templates_folder_it_refuses_to_replace_the_shipped_template(tmp_path):
    folder = template_path("history").parent
    before = _digest(template_path("history"))
    for force in ([], ["--force"]):  # without --out, not even when forced
        done = rates_xl("templates", "build", "history", *force, cwd=folder, env=fresh_env(tmp_path / "home"))
        assert done.returncode == 1
        assert "history.xlsx is the shipped template: to replace it, name its folder (--out" in done.stderr
    assert _digest(template_path("history")) == before


def test_the_help_says_where_the_files_go():
    import subprocess

    from tests.support.commands import console_script

    text = subprocess.run([console_script(), "templates", "build", "--help"], capture_output=True, text=True,
                          check=True).stdout
    flat = " ".join(text.split())
    assert "Writes NAME.xlsx into the current folder, or into --out DIR" in flat
    assert "never replaces an existing file without --force" in flat
    top = subprocess.run([console_script(), "templates", "--help"], capture_output=True, text=True, check=True).stdout
    assert "pricing workbooks shipped with rates-xl" in " ".join(top.split())


def _count(stdout: str) -> str:
    return stdout.split("(")[1].split(" ")[0]
