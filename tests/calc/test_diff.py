"""`rates-xl diff` leads with what a user asks first (issue 31): the book's outputs (cells no
formula reads) before the cells they read, each group largest move first; a floating-point
wobble is not a move; every moved cell of the project's own swap pricer is traced to the
answers behind it, through its IFs."""

from __future__ import annotations

import json
import shutil

import pytest

from rates_xl.client.pack_workbook import read_pack
from rates_xl.sandbox import PAID_KEY
from rates_xl.templates import template_path
from tests.support.commands import fresh_env, rates_xl
from tests.support.packs import resealed


@pytest.fixture
def two_days(tmp_path, sandbox_factory):
    """The swap pricer computed against two markets (the sandbox's seeds 0 and 1): yesterday's
    copy and today's, of the same book with the same requests."""
    book = tmp_path / "book.xlsx"
    shutil.copyfile(template_path("swap_pricer"), book)
    for seed, out in ((0, "book.values.xlsx"), (1, "today.values.xlsx")):
        service = sandbox_factory(seed=seed, rate_limit=1000, burst=1000)
        env = fresh_env(tmp_path / "home", RATES_BASE_URL=service.base_url, RATES_API_KEY=PAID_KEY)
        done = rates_xl("calc", "book.xlsx", "--no-progress", "-o", out, cwd=tmp_path, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
    return tmp_path


def test_the_swap_pricers_diff_leads_with_its_outputs_and_traces_every_cell(two_days):
    env = fresh_env(two_days / "home")
    done = rates_xl("diff", "book.values.xlsx", "today.values.xlsx", cwd=two_days, env=env)
    assert done.returncode == 4, done.stderr
    out = done.stdout
    lines = out.splitlines()
    assert lines[0].startswith("today.values.xlsx against book.values.xlsx: ") and " of them output" in lines[0]
    # The first table is the outputs, and its first row the cell that moved most among them.
    assert next(line for line in lines if "Outputs: cells no formula reads" in line)
    first_row = next(line for line in lines if line.startswith("│ "))
    assert "Swap!C31" in first_row and "npv" in first_row, out
    assert out.index("Outputs:") < out.index("Cells they read") < out.index("Service answers that moved")
    assert "not linked" not in out and "Traceback" not in done.stderr
    assert lines[1].startswith("Moved most by amount: Swap!C31 (npv) "), lines[1]

    from rates_xl.calc.diff import diff

    result = diff(two_days / "book.values.xlsx", two_days / "today.values.xlsx")
    outputs = {c.address for c in result.outputs}
    assert {"Swap!C31", "Swap!C36", "Swap!C37"} <= outputs  # NPV, PV01, DV01: nothing reads them
    assert not outputs & {"Swap!C29", "Swap!C30", "Swap!C33"}  # leg PVs and the par rate feed others
    others = result.others
    sizes = [c.size() for c in others]
    assert sizes == sorted(sizes, reverse=True)  # largest relative move first
    # The screen's 20 intermediate cells hold the 10 that moved most by share and the 10 that
    # moved most by amount: a leg's PV (a large amount, a small share) is not left off.
    from rates_xl.calc.diff import on_screen

    assert len(others) > 20
    shown = {c.address for c in on_screen(others, 20)}
    by_amount = sorted(others, key=lambda c: -abs(c.change))
    assert len(shown) == 20 and {c.address for c in others[:10] + by_amount[:10]} <= shown
    assert by_amount[0].address in out and by_amount[0].address == "Swap!C30"  # float_leg_pv
    # Every moved cell is traced, through the floating leg's IFs, to the answers that moved.
    assert all(c.requests and not any("not linked" in r for r in c.requests) for c in result.cells)
    floating = {c.address: c.requests for c in result.cells if c.address.startswith("'Floating leg'!G")}
    assert floating and all(any(r.startswith("forward_rate?") for r in reqs) for reqs in floating.values())
    assert not any(r.startswith("fixing?") for reqs in floating.values() for r in reqs)  # the branch not taken




def test_a_wobble_within_the_tolerance_is_not_a_move_and_zero_counts_it(tmp_path, sandbox):
    from tests.calc.test_pack_calc import TEN_YEARS, _small_book

    _small_book(tmp_path / "book.xlsx")
    env = fresh_env(tmp_path / "home", RATES_BASE_URL=sandbox.base_url, RATES_API_KEY=PAID_KEY)
    assert rates_xl("calc", "book.xlsx", "--no-progress", cwd=tmp_path, env=env).returncode == 0
    pack = read_pack(tmp_path / "book.values.xlsx")
    edited = []
    for answer in pack.answers:
        if answer.request == TEN_YEARS:
            body = json.loads(answer.answer)
            body["swap_rate"] += 4.9e-13  # a last-digit wobble of a rate near 3.9
            answer = answer.model_copy(update={"answer": json.dumps(body)})
        edited.append(answer)
    resealed(pack, edited).write(tmp_path / "w.json")  # another valuation, not an edited pack
    done = rates_xl("calc", "book.xlsx", "--replay", "w.json", "-o", "wobbled.xlsx", "--no-progress",
                    cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    quiet = rates_xl("diff", "book.values.xlsx", "wobbled.xlsx", cwd=tmp_path, env=env)
    assert quiet.returncode == 0, quiet.stdout
    assert "0 cells moved" in quiet.stdout and "within the tolerance" in quiet.stdout
    strict = rates_xl("diff", "book.values.xlsx", "wobbled.xlsx", "--tolerance", "0", "--relative-tolerance", "0",
                      cwd=tmp_path, env=env)
    assert strict.returncode == 4 and "Rates!A1" in strict.stdout and "1 service answer moved" in strict.stdout
    bad = rates_xl("diff", "book.values.xlsx", "wobbled.xlsx", "--tolerance", "-1", cwd=tmp_path, env=env)
    assert bad.returncode == 2 and "give a number 0 or more" in bad.stderr
