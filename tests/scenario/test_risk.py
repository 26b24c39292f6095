"""`rates-xl risk BOOK` through the real console script: the swap pricer's NPV DV01 and 10Y
key-rate sensitivity equal a bump-and-recompute of the book against `rates-xl sandbox
--shift` (+1 bp and -1 bp) within 0.5 %, the ladder adds up to the DV01, the table is largest
first, the workbook holds the ladder, a chart and the market data; a template the model
cannot move says which cells and why; what cannot be measured is one line."""

from __future__ import annotations

import re
import shutil
import zipfile

import openpyxl
import pytest

from rates_xl.calc.diff import copy_values
from rates_xl.client.pack_workbook import read_pack, write_pack
from rates_xl.sandbox import PAID_KEY
from rates_xl.templates import template_path
from tests.support.commands import fresh_env, rates_xl
from tests.support.sandbox import sandbox_process

MOMENT = "2026-03-10T16:00:00Z"
NPV = ("Swap", "C31")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The swap pricer and the history and swap-spreads templates computed against a sandbox
    (their packs in BOOK.values.xlsx), and the sandbox itself for the curves."""
    folder = tmp_path_factory.mktemp("risk")
    with sandbox_process(rate_limit=1000, burst=1000) as base:
        env = fresh_env(folder / "home", RATES_BASE_URL=base.base_url, RATES_API_KEY=PAID_KEY)
        for name in ("swap_pricer", "history", "swap_spreads"):
            shutil.copyfile(template_path(name), folder / f"{name}.xlsx")
            done = rates_xl("calc", f"{name}.xlsx", "--valuation-time", MOMENT, "--no-progress", cwd=folder, env=env)
            assert done.returncode == 0, done.stdout + done.stderr
        done = rates_xl("risk", "swap_pricer.xlsx", cwd=folder, env=env)
        yield folder, env, done


def _bumped(folder, env, spec: str) -> float:
    """The NPV of the book computed live against the sandbox serving its curves shifted."""
    with sandbox_process(rate_limit=1000, burst=1000, shift=spec) as shifted:
        out = f"bumped-{spec.replace(':', '_')}.xlsx"
        done = rates_xl("calc", "swap_pricer.xlsx", "-o", out, "--valuation-time", MOMENT, "--no-progress",
                        cwd=folder, env={**env, "RATES_BASE_URL": shifted.base_url})
    assert done.returncode == 0, done.stderr
    return copy_values(folder / out)[NPV]


def _ladder(folder) -> dict[str, dict[str, float]]:
    sheet = openpyxl.load_workbook(folder / "swap_pricer.risk.xlsx")["Ladder"]
    rows = list(sheet.iter_rows(values_only=True))
    head = next(i for i, row in enumerate(rows) if row[0] == "Cell")
    columns = rows[head]
    found = {}
    for row in rows[head + 1:]:
        if not row[0] or not re.match(r"^'?[\w ]+'?!\$?[A-Z]+\$?\d+$", str(row[0])):
            break
        found[f"{row[0]} {row[3]}"] = dict(zip(columns, row, strict=True))
    return found


def test_the_npvs_dv01_and_ladder_equal_bump_and_recompute_against_the_shifted_sandbox(world):
    folder, env, done = world
    assert done.returncode == 0, done.stdout + done.stderr
    ladder = _ladder(folder)
    npv = ladder["Swap!C31 SOFR"]
    up, down = _bumped(folder, env, "SOFR+1bp"), _bumped(folder, env, "SOFR-1bp")
    bumped = (up - down) / 2
    assert npv["DV01 (+1 bp parallel)"] == pytest.approx(bumped, rel=0.005)
    assert abs(bumped) > 5000  # a 10-year 10m swap: about 8,700 per bp
    ten_up, ten_down = _bumped(folder, env, "SOFR:10Y+1bp"), _bumped(folder, env, "SOFR:10Y-1bp")
    assert npv["10Y"] == pytest.approx((ten_up - ten_down) / 2, rel=0.005)
    rungs = sum(npv[b] for b in ("1Y", "2Y", "5Y", "10Y", "30Y"))
    assert rungs == pytest.approx(npv["DV01 (+1 bp parallel)"], rel=0.01)  # the buckets add up
    assert npv["30Y"] == 0.0  # nothing of a 10-year swap is past 30Y's triangle


def test_the_table_is_largest_first_and_the_workbook_carries_a_chart_and_the_market_data(world):
    folder, _, done = world
    out = done.stdout
    assert "Risk of swap_pricer.xlsx: 5 output cells, 1 index (SOFR), key-rate buckets 1Y 2Y 5Y 10Y 30Y" in out
    cells = re.findall(r"│ (Swap!C\d+)", out)
    assert cells[0] == "Swap!C31"  # the NPV: the largest DV01
    assert re.search(r"12 scenarios [\d.]+ s", out)
    assert "Wrote swap_pricer.risk.xlsx" in out
    with zipfile.ZipFile(folder / "swap_pricer.risk.xlsx") as package:
        assert any(name.startswith("xl/charts/chart") for name in package.namelist())
    pack = read_pack(folder / "swap_pricer.risk.xlsx")
    market = read_pack(folder / "swap_pricer.values.xlsx")
    assert pack.scenario is None and set(market.answers) < set(pack.answers)  # plus the curve's answers
    assert any(a.endpoint == "swap_curve" for a in pack.answers)
    # Measured again from the report's own pack: the same numbers, nothing fetched.
    again = rates_xl("risk", "swap_pricer.xlsx", "--pack", "swap_pricer.risk.xlsx", "-o", "again.xlsx", cwd=folder,
                     env={**_without_key(world[1]), "RATES_BASE_URL": "http://127.0.0.1:9"})
    assert again.returncode == 0, again.stderr
    assert "fetched" not in again.stdout
    first = _ladder(folder)["Swap!C31 SOFR"]
    second_sheet = openpyxl.load_workbook(folder / "again.xlsx")["Ladder"]
    assert any(row[4] == first["DV01 (+1 bp parallel)"] for row in second_sheet.iter_rows(values_only=True))


def _without_key(env):
    return {k: v for k, v in env.items() if k != "RATES_API_KEY"}


def test_cells_and_buckets_chosen(world):
    folder, env, _ = world
    done = rates_xl("risk", "swap_pricer.xlsx", "--cells", "npv, Swap!C36", "--buckets", "2Y,7Y,10Y", "-o",
                    "chosen.xlsx", cwd=folder, env=env)
    assert done.returncode == 0, done.stderr
    assert "2 output cells" in done.stdout and "key-rate buckets 2Y 7Y 10Y" in done.stdout
    assert sorted(set(re.findall(r"│ (Swap!C\d+)", done.stdout))) == ["Swap!C31", "Swap!C36"]


def test_a_template_the_model_cannot_move_says_which_cells_and_why(world):
    folder, env, _ = world
    done = rates_xl("risk", "history.xlsx", cwd=folder, env=env)
    assert done.returncode == 3, done.stderr
    assert re.search(r"History!C15 \(history_change\): no sensitivity: reads only answers no scenario moves: "
                     r"historical_swap_rates\?\S+ \(history: past closes do not move", done.stdout)
    spreads = rates_xl("risk", "swap_spreads.xlsx", cwd=folder, env=env)
    assert spreads.returncode == 3, spreads.stderr
    assert re.search(r"Spreads!F21: its sensitivity leaves out answers no scenario moves: gov_yield\?country_code=US"
                     r"\S+ \(a government yield", spreads.stdout)
    assert re.search(r"│ Spreads!F21 +│ us_10y_spread +│ +-?[\d.]+ │ SOFR +│ +1 │", spreads.stdout)


def test_what_cannot_be_measured_is_one_line(world, tmp_path):
    folder, env, _ = world
    shutil.copyfile(template_path("swap_pricer"), tmp_path / "fresh.xlsx")
    edited = folder / "edited.values.xlsx"
    shutil.copyfile(folder / "swap_pricer.values.xlsx", edited)
    pack = read_pack(edited)
    first = pack.answers[0]
    write_pack(edited, pack.model_copy(update={"answers": (first.model_copy(update={
        "answer": first.answer.replace("0.", "1.", 1)}), *pack.answers[1:])}))
    scenario = rates_xl("calc", "swap_pricer.xlsx", "--replay", "swap_pricer.values.xlsx", "--scenario",
                        "SOFR+1bp", "--no-progress", cwd=folder, env=env)
    assert scenario.returncode == 0, scenario.stderr
    cases = [
        (["risk", str(tmp_path / "fresh.xlsx")], "carries no market-data pack"),
        (["risk", "swap_pricer.xlsx", "--pack", "swap_pricer.scenario-SOFR+1bp.values.xlsx", "-o", "x.xlsx"],
         "is a scenario's (SOFR+1bp), not market data"),
        (["risk", "swap_pricer.xlsx", "--pack", "edited.values.xlsx", "-o", "x.xlsx"], "EDITED since it was recorded"),
        (["risk", "swap_pricer.xlsx", "--cells", "Nowhere!A1", "-o", "x.xlsx"], "--cells: 'Nowhere!A1' is not a cell"),
        (["risk", "swap_pricer.xlsx", "--buckets", "1Y,12M", "-o", "x.xlsx"], "1Y and 12M are the same bucket"),
        (["risk", "swap_pricer.xlsx"], "swap_pricer.risk.xlsx exists; pass --force"),
        (["risk", "missing.xlsx"], "missing.xlsx: no such file"),
    ]
    for argv, says in cases:
        done = rates_xl(*argv, cwd=folder, env=env)
        lines = done.stderr.strip().splitlines()
        assert done.returncode in (1, 2) and len(lines) == 1 and says in lines[0], (argv, done.stderr)
        assert not (folder / "x.xlsx").exists()
