"""Every calc has a budget (issue 27, point 5): whole rows, columns and sheets read over the used
range; a book past its cells or its time stops with one line naming the cell and the setting
to raise, and the other books of the run go on; a reference to another workbook fails its own
cell, listed, never the book. Small generated workbooks, through `rates-xl calc`."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import openpyxl
import pytest

from rates_xl.calc.book import Book, CalcError
from rates_xl.calc.budget import Budget, measure
from rates_xl.calc.formula import passes
from rates_xl.calc.workbook import WorkbookCalculation
from rates_xl.client import setting_defaults
from rates_xl.client.settings import Settings
from tests.support.budget_books import chain_book, far_book
from tests.support.commands import fresh_env, rates_xl

SHARED = Path(__file__).resolve().parents[3] / "shared" / "corpus"
#: How long a run that must stop at a 2 s budget may take before the test fails instead of
#: holding the suite (a guard against a hang, not a speed figure).
HANG_GUARD_S = 300


def _far_book(path: Path) -> Path:
    far_book(path)
    assert path.stat().st_size < 6000  # the 5 KB book
    return path


def _plain(path: Path) -> Path:
    wb = openpyxl.Workbook()
    wb.active["A1"], wb.active["A2"] = 2, "=A1*21"
    wb.save(path)
    return path


def _one_line(stderr: str) -> str:
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


def test_a_whole_sheet_sum_over_one_far_cell_stops_at_once_naming_the_cell_and_the_setting(tmp_path):
    _far_book(tmp_path / "far.xlsx")
    _plain(tmp_path / "plain.xlsx")
    done = rates_xl("calc", "far.xlsx", "plain.xlsx", "-o", "out", "--no-progress", cwd=tmp_path,
                    env=fresh_env(tmp_path / "home"))
    assert done.returncode == 1
    line = _one_line(done.stderr)
    assert line.startswith("rates-xl calc: far.xlsx: stopped before computing: Sheet1!A1 (=SUM(Sheet2!A:XFD)) "
                           "reads 17,179,869,184 cells (Sheet2's used range is A1:XFD1048576)")
    assert "past the budget of 50,000,000; raise the setting calc_cells (RATES_CALC_CELLS)" in line
    # the other book of the run is computed and written; the stopped one has no copy
    assert not (tmp_path / "out" / "far.values.xlsx").exists()
    copy = openpyxl.load_workbook(tmp_path / "out" / "plain.values.xlsx")
    assert copy.active["A2"].value == 42


def test_past_its_seconds_the_engine_is_cancelled_and_the_line_names_the_cell_it_was_at(tmp_path):
    _far_book(tmp_path / "far.xlsx")
    env = fresh_env(tmp_path / "home", RATES_CALC_CELLS=str(10**12), RATES_CALC_SECONDS="2")
    done = rates_xl("calc", "far.xlsx", "--no-progress", cwd=tmp_path, env=env)
    assert done.returncode == 1
    line = _one_line(done.stderr)
    assert line.startswith("rates-xl calc: far.xlsx: stopped after ")
    assert " s computing at Sheet1!A1: past the budget of 2 s a book may take; raise the setting " \
           "calc_seconds (RATES_CALC_SECONDS) to compute it" in line


def test_a_lambda_called_within_one_cell_stops_at_the_budget_too(tmp_path):
    """MAKEARRAY(100000,1000,...) calls its LAMBDA 10^8 times in one cell (about 40 minutes),
    which the engine's cancel, stopping between cells, could not end: the LAMBDA's calls end
    once the book is out of time (calc/xlfuncs/logical/pipes.py `STOPPING`), the other book
    of the run is computed."""
    book = openpyxl.Workbook()
    book.active.title = "S"
    book.active["A1"] = "=SUM(_xlfn.MAKEARRAY(100000,1000,_xlfn.LAMBDA(_xlpm.r,_xlpm.c,_xlpm.r+_xlpm.c)))"
    book.save(tmp_path / "loop.xlsx")
    _plain(tmp_path / "plain.xlsx")
    env = fresh_env(tmp_path / "home", RATES_CALC_SECONDS="2")
    done = rates_xl("calc", "loop.xlsx", "plain.xlsx", "-o", "out", "--no-progress", cwd=tmp_path, env=env,
                    timeout=HANG_GUARD_S)
    assert done.returncode == 1
    line = _one_line(done.stderr)
    assert line.startswith("rates-xl calc: loop.xlsx: stopped after ")
    assert " s computing at S!A1: past the budget of 2 s a book may take" in line
    assert openpyxl.load_workbook(tmp_path / "out" / "plain.values.xlsx").active["A2"].value == 42


def test_whole_columns_rows_and_sheets_are_read_over_the_used_range(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    data, row = wb.create_sheet("Data"), wb.create_sheet("Row")
    data["A1"], data["A1048576"], data["C3"] = 5, 7, 11  # used range A1:C1048576
    row["A1"], row["XFD1"] = 5, 13  # used range A1:XFD1
    ws["A1"], ws["A2"], ws["A3"] = "=SUM(Data!A:A)", "=SUM(Row!1:1)", "=SUM(Data!1:1048576)"
    ws["A4"], ws["A5"], ws["A6"] = "=ROWS(Data!A:A)", "=COLUMNS(Row!1:1)", "=SUM(Row!A:XFD)"
    wb.save(tmp_path / "lines.xlsx")
    reads = measure(Book(tmp_path / "lines.xlsx"))
    assert reads.largest == 3 * 1048576 and reads.where == ("Sheet1", "A3")
    calc = WorkbookCalculation(tmp_path / "lines.xlsx", budget=Budget(cells=reads.total, seconds=600))
    values = calc.compute().values
    assert [values[("Sheet1", f"A{i}")] for i in range(1, 7)] == [12, 18, 23, 1048576, 16384, 18]
    assert calc.engine.model.threads == 1  # calc_threads' default, given the engine
    for threads in (0, 2):  # the same answers on formualizer's own threads, or two
        again = WorkbookCalculation(tmp_path / "lines.xlsx",
                                    budget=Budget(cells=reads.total, seconds=600, threads=threads))
        assert again.engine.model.threads == threads and again.compute().values == values
    with pytest.raises(CalcError, match=r"Sheet1!A3 \(=SUM\(Data!1:1048576\)\) reads 3,145,728 cells "
                                        r"\(Data's used range is A1:C1048576\)"):
        WorkbookCalculation(tmp_path / "lines.xlsx", budget=Budget(cells=reads.total - 1, seconds=600))


def test_a_long_chain_past_a_small_budget_stops_with_the_line(tmp_path):
    chain_book(tmp_path / "chain.xlsx", 2000)
    home = tmp_path / "home"
    done = rates_xl("calc", "chain.xlsx", "--no-progress", cwd=tmp_path,
                    env=fresh_env(home, RATES_CALC_CELLS="1500"))
    assert done.returncode == 1
    assert _one_line(done.stderr) == (
        "rates-xl calc: chain.xlsx: stopped before computing: the book's 1,999 formula cells and the ranges "
        "they read come to 1,999 cells, past the budget of 1,500; raise the setting calc_cells "
        "(RATES_CALC_CELLS) to compute it")
    # a budget of a millisecond: reading the file alone takes longer, so the first formula stops it
    done = rates_xl("calc", "chain.xlsx", "--no-progress", cwd=tmp_path,
                    env=fresh_env(home, RATES_CALC_SECONDS="0.001"))
    assert done.returncode == 1
    line = _one_line(done.stderr)
    assert line.startswith("rates-xl calc: chain.xlsx: stopped after ")
    assert line.endswith(" s preparing the formulas at Sheet1!A2: past the budget of 0.001 s a book may "
                         "take; raise the setting calc_seconds (RATES_CALC_SECONDS) to compute it")
    assert not (tmp_path / "chain.values.xlsx").exists()
    # within the defaults it is computed, every cell right
    done = rates_xl("calc", "chain.xlsx", "--no-progress", cwd=tmp_path, env=fresh_env(home))
    assert done.returncode == 0, done.stderr
    copy = openpyxl.load_workbook(tmp_path / "chain.values.xlsx", read_only=True)
    assert [row[0] for row in copy.active.iter_rows(min_row=1995, values_only=True)] == [1995, 1996, 1997, 1998,
                                                                                          1999, 2000]


def test_a_reference_to_another_workbook_fails_its_own_cell_listed_never_the_book(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet"
    ws["A1"] = "='http://host/[x.xlsx]S'!A1"
    ws["A2"] = "=[1]Sheet1!A1"  # no external link in the file to read it from
    ws["A3"] = "=SUM('C:\\dir\\[x.xlsx]S'!A1:B2)"
    ws["B1"], ws["B2"] = 4, "=B1*10"
    wb.save(tmp_path / "links.xlsx")
    done = rates_xl("calc", "links.xlsx", "--no-progress", cwd=tmp_path, env=fresh_env(tmp_path / "home"))
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    for cell, book in (("A1", "'http://host/[x.xlsx]S'"), ("A2", "[1]Sheet1"), ("A3", "'C:\\dir\\[x.xlsx]S'")):
        assert (f"Sheet!{cell}: not computed (it reads another workbook ({book}), which calc does not open and "
                "this file holds no copy of): the file's cached value is kept") in done.stdout
    assert openpyxl.load_workbook(tmp_path / "links.values.xlsx").active["B2"].value == 40


@pytest.mark.parametrize("formula, listed", [
    ("='http://host/[x.xlsx]S'!A1+1", True),
    ("=[2]Sheet1!A1", True),
    ("=[1]Sheet1!A1", False),  # the file's first link: its cached values are read
    ("=A2:'[1]MISSING'!A2", False),  # formulas_test.xlsx CORE!P18: a range ending in link 1
    ("=A2:'[3]MISSING'!A2", True),
    ("=SUM(Table1[Col])", False),  # a structured reference, not another book
])
def test_the_pass_lists_only_a_book_the_file_holds_no_copy_of(formula, listed):
    site = passes.Site("S", 1, 1, False, passes.Site("S", 1, 1).book.__class__(links=frozenset({1})))
    if listed:
        with pytest.raises(passes.NotComputed, match="reads another workbook"):
            passes.one("other_workbooks", formula, site)
    else:
        assert passes.one("other_workbooks", formula, site) == formula


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/corpus is not here")
def test_the_default_budget_fits_every_book_of_the_corpus():
    books = sorted(SHARED.glob("*/*.xlsx"))
    assert len(books) >= 14
    default = Settings().calc_cells
    largest = max(measure(Book(book)).total for book in books)
    assert 0 < largest <= default // 100  # two orders of magnitude to spare


_READ_BUDGET = ("import sys\n"
                "from rates_xl.calc.budget import Budget\n"
                "from rates_xl.calc.book import CalcError\n"
                "try:\n"
                "    b = Budget.from_settings()\n"
                "    print(b.cells, b.seconds, b.threads, 'pydantic' in sys.modules)\n"
                "except CalcError as exc:\n"
                "    print(exc)\n")


def _budget_read(env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", _READ_BUDGET], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_budget_with_no_rates_variable_is_the_settings_defaults_read_without_pydantic(tmp_path):
    clean = {k: v for k, v in fresh_env(tmp_path / "home").items() if not k.upper().startswith("RATES_")}
    assert not setting_defaults.any_set(clean)
    defaults = Settings.model_fields
    # the defaults, as Settings gives them, and pydantic never loaded (a book calling no RATES_*)
    assert _budget_read(clean) == (f"{defaults['calc_cells'].default} {defaults['calc_seconds'].default} "
                                   f"{defaults['calc_threads'].default} False")
    # a variable set, in any case: the settings are read (and checked) as before
    assert _budget_read({**clean, "rates_calc_cells": "1500"}) == "1500 600.0 1 True"
    assert _budget_read({**clean, "RATES_CALC_SECONDS": "2"}) == "50000000 2.0 1 True"
    assert _budget_read({**clean, "RATES_CALC_THREADS": "0"}) == "50000000 600.0 0 True"
    assert _budget_read({**clean, "RATES_CALC_THREADS": "-1"}).startswith(
        "the settings cannot be read (calc_threads: Input should be greater than or equal to 0")
    assert _budget_read({**clean, "RATES_TIMEOUT": "soon"}).startswith(
        "the settings cannot be read (timeout: Input should be a valid number")
    # a RATES_ name that is no setting only costs the full read
    assert setting_defaults.any_set(["PATH", "Rates_XL_CONF"]) and not setting_defaults.any_set(["PATH", "XRATES_A"])


def test_out_of_time_before_the_evaluation_starts_the_line_names_the_cell_it_would_compute_first():
    """A preparation that took the whole budget (a busy machine: CI's run of the test above
    said "stopped after 2.2 s computing:" and no cell) stops at the evaluation's start, naming
    the first cell the engine would compute, as a cancelled evaluation names where it was."""
    from rates_xl.calc.budget import Deadline, OverBudget

    deadline = Deadline(Path("far.xlsx"), 0.001)
    with deadline.running():
        time.sleep(0.01)
        with pytest.raises(OverBudget) as stopped, deadline.cancelling(lambda: None, lambda: ("Sheet1", "A1")):
            pytest.fail("evaluated past the budget")
    assert str(stopped.value).startswith("far.xlsx: stopped after ")
    assert " s computing at Sheet1!A1: past the budget of 0.001 s" in str(stopped.value)
