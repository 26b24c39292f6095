"""README's first command works on a fresh machine (issue 31; the guide's set-up contract):
`pip install ".[sandbox]" && rates-xl demo`, read out of README.md and run as written with
bash, in a fresh virtual environment, from a copy of this working tree (a clone's files), in
a fresh HOME under umask 022: it installs, the demo computes every template, and the copies
it writes are 0644. (The second command, the tests, is what CI runs: .ci/run.)"""

from __future__ import annotations

import os
import stat
import subprocess

import pytest

from tests.docs.markdown_commands import every_command
from tests.support.commands import copy_of_the_clone, fresh_env, new_venv

README_FIRST = 'pip install ".[sandbox]" && rates-xl demo'


@pytest.mark.slow
def test_the_readme_first_command_installs_and_runs_the_demo_in_a_fresh_venv(tmp_path):
    written = [c.text for c in every_command() if c.page == "README.md" and c.block == 0]
    assert written[0] == README_FIRST  # the command this test runs is the README's, verbatim
    clone = copy_of_the_clone(tmp_path / "clone")
    bin_dir = new_venv(tmp_path / "venv")
    # PIP_COMPILE=0 (`--compile` off; PIP_NO_COMPILE=1 would turn it on: pip reads a "no-"
    # option's variable the other way round): pip's byte-compiling of the 480 MB it installs (18
    # of its 47 CPU s here) is not what this shows, and a file it cannot compile is only a warning
    # to pip; the demo's imports compile what they read (3 CPU s).
    env = fresh_env(tmp_path / "home", PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
                    VIRTUAL_ENV=str(tmp_path / "venv"), PIP_COMPILE="0")
    env.pop("PYTHONPATH", None)
    done = subprocess.run(["bash", "-c", README_FIRST], cwd=clone, env=env, capture_output=True, text=True,
                          timeout=900, check=False, stdin=subprocess.DEVNULL, preexec_fn=lambda: os.umask(0o022))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "rates-xl demo: headline numbers" in done.stdout, done.stdout[-3000:]
    assert "Traceback" not in done.stderr
    copies = sorted((clone / "rates-demo").glob("*.xlsx"))
    assert len(copies) == 5
    assert {stat.S_IMODE(p.stat().st_mode) for p in copies} == {0o644}  # issue 31, point 8
    installed = subprocess.run([str(bin_dir / "python"), "-c", "import rates_xl, os; print(rates_xl.__file__)"],
                               capture_output=True, text=True, check=True).stdout
    assert "site-packages" in installed  # the clone was installed, not run from in place
