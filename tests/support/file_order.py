"""A pytest plugin (tests/conftest.py loads it): the files that take longest run first.

Under `--dist loadfile` xdist hands each worker a file at a time, in the order of its queue,
and by default queues the files by their number of tests, most first. A file of one long
test (a fresh venv's install, mypy over the package, a nested pytest) was then handed out
last and ran alone at the end of the run while the other workers sat idle: on CI's 2 cores
the last minute or two of the suite was one such file. pyproject's addopts keep the
collection's order instead (`--no-loadscope-reorder`), and this plugin makes that order the
files of `SECONDS` first, longest first, then the others by number of tests, most first
(xdist's own order), so the long files overlap the many short ones. Tests keep their order
inside a file; the order is the same in every worker, as xdist requires.

`SECONDS` is measured (the junit times of a whole run, summed per file, on a loaded 2-core
machine): only the order matters, and a file missing from it merely starts later.
"""

from __future__ import annotations

import pytest

#: Seconds per file, the files of 20 s or more (a whole run's junit times, 2 cores, load ~7).
SECONDS = {
    "tests/docs/test_documented_commands.py": 218,
    "tests/calc/test_fidelity.py": 182,
    "tests/docs/test_readme_first_command.py": 148,
    "tests/reliability/test_fuzz.py": 138,
    "tests/scenario/test_risk.py": 133,
    "tests/docs/test_install_commands.py": 106,
    "tests/test_worker_exit.py": 89,
    "tests/client/test_team.py": 81,
    "tests/templates/test_build.py": 79,
    "tests/test_types.py": 74,
    "tests/calc/test_pack_seal_calc.py": 73,
    "tests/scenario/test_calc_scenario.py": 69,
    "tests/test_cli_rule.py": 64,
    "tests/calc/test_limits.py": 56,
    "tests/calc/test_excel_corpus.py": 50,
    "tests/docs/test_site.py": 45,
    "tests/addin/test_refresh_excel.py": 45,
    "tests/calc/test_robustness.py": 44,
    "tests/test_file_modes.py": 39,
    "tests/calc/test_unvectorized.py": 38,
    "tests/reliability/test_soak.py": 37,
    "tests/scenario/test_against_sandbox.py": 36,
    "tests/addin/officejs/test_browser.py": 35,
    "tests/calc/test_pack_calc.py": 34,
    "tests/calc/test_stored_cells.py": 34,
    "tests/client/test_persistent.py": 32,
    "tests/docs/test_site_browser.py": 32,
    "tests/calc/test_budget.py": 31,
    "tests/addin/test_doctor.py": 30,
    "tests/addin/officejs/test_live_browser.py": 29,
    "tests/functions/test_history.py": 26,
    "tests/templates/test_templates.py": 25,
    "tests/sandbox/test_cli.py": 24,
    "tests/addin/officejs/test_team_signin.py": 21,
    "tests/addin/officejs/test_install.py": 21,
    "tests/addin/officejs/test_backend.py": 20,
    "tests/addin/officejs/test_live_backend.py": 20,
}


def _file(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def ordered(items: list[pytest.Item]) -> list[pytest.Item]:
    """`items` with whole files moved: `SECONDS`' files first, longest first, then the others
    by number of tests, most first; ties keep the collection's order (the sort is stable)."""
    count: dict[str, int] = {}
    for item in items:
        count[_file(item)] = count.get(_file(item), 0) + 1
    return sorted(items, key=lambda item: (-SECONDS.get(_file(item), 0), -count[_file(item)]))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items[:] = ordered(items)
