"""`rates-xl call historical_swap_rates` with RATES_SWAPHISTORY's own arguments: several
tenors and BDH's options print the grid a cell spills, computed by the same code; bad input
is one line naming the argument, and nothing is sent."""

from __future__ import annotations

import pytest

from rates_xl.client import RatesClient
from rates_xl.functions import FUNCTIONS, using_client
from rates_xl.sandbox import PAID_KEY
from tests.support.commands import fresh_env, rates_xl


@pytest.fixture
def env(tmp_path):
    return {**fresh_env(tmp_path / "home", RATES_API_KEY=PAID_KEY), "COLUMNS": "200"}


def _rows(stdout: str) -> list[list[str]]:
    """The table's rows as printed by rich (box characters between cells)."""
    rows = []
    for line in stdout.splitlines():
        if line.startswith(("│", "┃")):
            rows.append([cell.strip() for cell in line.strip("│┃").replace("┃", "│").split("│")])
    return rows


def test_call_prints_the_grid_a_cell_spills(sandbox, env, tmp_path):
    argv = ["call", "historical_swap_rates", "index=SOFR", "tenor=2Y,5Y,10Y,30Y", "start_date=2025-01-01",
            "end_date=2025-06-30", "options=Per=M Quote=A", "--base-url", sandbox.base_url]
    done = rates_xl(*argv, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    # The cell's own code, given the command's budget: a cell's 4 s (`cell_deadline`) is Excel's
    # main thread's, and this comparison is of the grids, not of the time. With it, the three
    # requests after the first answered "no answer from the service within 2 s" in two CI runs
    # on a loaded machine, the sandbox serving them from this same process (its GIL).
    with RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, cell_deadline=30) as client, \
            using_client(client):
        cell = FUNCTIONS["RATES_SWAPHISTORY"].core("SOFR", "2Y,5Y,10Y,30Y", "2025-01-01", "2025-06-30", None,
                                                   "Per=M Quote=A")
    assert _rows(done.stdout) == [[str(v) if not hasattr(v, "isoformat") else v.isoformat() for v in row]
                                  for row in cell]
    # The function's argument names too, and Fill=NA's empty days as #N/A.
    done = rates_xl("call", "historical_swap_rates", "index=SOFR", "tenor=2Y", "start=2025-07-01",
                    "end_date=2025-07-08", "options=Days=W Fill=NA", "headers=FALSE", "--base-url",
                    sandbox.base_url, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert ["2025-07-04", "#N/A"] in _rows(done.stdout)
    assert all(row[0] != "Date" for row in _rows(done.stdout))


@pytest.mark.parametrize("pairs, message", [
    (["tenor=2Y,2Y"], "tenor: 2Y appears twice (items 1 and 2 of the list); give each tenor once"),
    (["tenor=2Y,,5Y"], "tenor: item 2 of the list is empty"),
    (["tenor=2Y", "options=Per=Z"], "options: Per=Z: Z is not a periodicity; use Per=D, W, M, Q, S, Y"),
    (["tenor=2Y,5Y", "options=Colour=red"], "options: 'Colour' is not an option"),
    (["tenor=2Y,5Y", "colour=red"], "historical_swap_rates takes index, tenor, start, end_date, headers, options"),
])
def test_bad_input_is_one_line_and_sends_nothing(sandbox_factory, env, tmp_path, pairs, message):
    service = sandbox_factory()
    done = rates_xl("call", "historical_swap_rates", "index=SOFR", "start_date=2025-01-01",
                    "end_date=2025-06-30", *pairs, "--base-url", service.base_url, cwd=tmp_path, env=env)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr
    assert list(service.arrivals) == []


def test_the_command_waits_as_a_script_does_not_as_a_cell(sandbox_factory, env, tmp_path):
    """A cell gives the service 4 s (`cell_deadline`: Excel waits on its main thread); the
    command is no cell, and waits as a script does (`deadline`, 30 s): a service answering in
    4.5 s prints the grid, where the cell's budget printed "no answer" in every cell of it."""
    slow = sandbox_factory(latency_ms=4500)
    done = rates_xl("call", "historical_swap_rates", "index=SOFR", "tenor=2Y", "start_date=2025-01-01",
                    "end_date=2025-03-31", "options=Per=M", "--base-url", slow.base_url, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    rows = _rows(done.stdout)
    assert rows[0] == ["Date", "Rate"] and len(rows) == 4, done.stdout
    assert all(float(rate) > 0 for _, rate in rows[1:]), done.stdout
