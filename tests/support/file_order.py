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

#: Seconds per file, the files of 20 s or more (a whole run's junit times summed per file, 2
#: cores, load ~4.5, 2026-12-01; test_types.py's from a clean clone, where mypy has no cache).
SECONDS = {
    "tests/docs/test_documented_commands.py": 225,
    "tests/calc/test_unvectorized.py": 127,
    "tests/calc/test_fidelity.py": 124,
    "tests/docs/test_readme_first_command.py": 106,
    "tests/scenario/test_risk.py": 89,
    "tests/reliability/test_fuzz.py": 88,
    "tests/client/test_team.py": 85,
    "tests/test_types.py": 74,
    "tests/test_cli_rule.py": 74,
    "tests/test_worker_exit.py": 63,
    "tests/calc/test_excel_corpus.py": 62,
    "tests/docs/test_install_commands.py": 53,
    "tests/calc/test_limits.py": 49,
    "tests/calc/test_pack_seal_calc.py": 46,
    "tests/calc/test_stored_cells.py": 44,
    "tests/reliability/test_soak.py": 43,
    "tests/templates/test_build.py": 43,
    "tests/scenario/test_calc_scenario.py": 43,
    "tests/addin/test_refresh_excel.py": 41,
    "tests/calc/test_budget.py": 41,
    "tests/addin/test_doctor.py": 39,
    "tests/addin/officejs/test_browser.py": 38,
    "tests/calc/test_model_classes.py": 38,
    "tests/scenario/test_against_sandbox.py": 34,
    "tests/docs/test_site_browser.py": 33,
    "tests/functions/test_history.py": 33,
    "tests/calc/test_robustness.py": 33,
    "tests/calc/test_pack_calc.py": 32,
    "tests/calc/test_xlsx_writer.py": 31,
    "tests/addin/officejs/test_live_browser.py": 31,
    "tests/test_file_modes.py": 30,
    "tests/docs/test_site.py": 28,
    "tests/client/test_persistent.py": 26,
    "tests/calc/test_diff.py": 24,
    "tests/addin/test_build.py": 22,
    "tests/calc/test_bases.py": 20,
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
