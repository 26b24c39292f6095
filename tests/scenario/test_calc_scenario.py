"""`rates-xl calc BOOK --replay [PACK] --scenario SPEC` through the real console script: the swap
pricer under SOFR+1bp equals the same book computed live against `rates-xl sandbox --shift
SOFR+1bp`; the copy, its RATES_* cells, RATES_STATUS, RATES_SOURCE and its pack say it is a
scenario; a replay of the copy says so again; a stripped scenario record is named; and every
malformed spec is one line."""

from __future__ import annotations

import shutil

import openpyxl
import pytest

from rates_xl.calc.diff import copy_values
from rates_xl.client.pack import SCENARIO_KIND
from rates_xl.client.pack_workbook import read_pack, write_pack
from rates_xl.sandbox import PAID_KEY
from rates_xl.templates import template_path
from tests.support.commands import fresh_env, rates_xl
from tests.support.faultserver import FaultServer
from tests.support.sandbox import sandbox_process

MOMENT = "2026-03-10T16:00:00Z"


@pytest.fixture(scope="module")
def base():
    with sandbox_process(rate_limit=1000, burst=1000) as running:
        yield running


@pytest.fixture(scope="module")
def computed(base, tmp_path_factory):
    """The swap pricer and a small book (STATUS, SOURCE, an FX spot, a fixing), computed
    against the sandbox at one moment, then replayed under SOFR+1bp."""
    folder = tmp_path_factory.mktemp("scenario")
    shutil.copyfile(template_path("swap_pricer"), folder / "pricer.xlsx")
    import xlsxwriter

    book = xlsxwriter.Workbook(str(folder / "small.xlsx"))
    sheet = book.add_worksheet("Rates")
    sheet.write_formula("A1", '=RATES_SWAP("SOFR","2D","10Y","1Y")')
    sheet.write_formula("A2", "=A1*100")
    sheet.write_formula("B1", '=RATES_FXSPOT("EURUSD")')
    sheet.write_formula("B2", '=RATES_FIXING("SOFR","2026-03-09")')
    sheet.write_dynamic_array_formula("C1", "=RATES_STATUS()")  # spills, as in Excel 365
    sheet.write_dynamic_array_formula("E1", "=RATES_SOURCE(A1)")
    book.close()
    env = fresh_env(folder / "home", RATES_BASE_URL=base.base_url, RATES_API_KEY=PAID_KEY)
    for name in ("pricer", "small"):
        done = rates_xl("calc", f"{name}.xlsx", "--valuation-time", MOMENT, "--no-progress", cwd=folder, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        done = rates_xl("calc", f"{name}.xlsx", "--replay", f"{name}.values.xlsx", "--scenario", "SOFR+1bp",
                        "--no-progress", cwd=folder, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        (folder / f"{name}.out").write_text(done.stdout)
    return folder, env


def test_the_pricer_under_the_scenario_is_the_book_against_the_shifted_sandbox(computed):
    folder, env = computed
    with sandbox_process(rate_limit=1000, burst=1000, shift="SOFR+1bp") as shifted:
        done = rates_xl("calc", "pricer.xlsx", "-o", "live-shifted.xlsx", "--valuation-time", MOMENT, "--no-progress",
                        cwd=folder, env={**env, "RATES_BASE_URL": shifted.base_url})
    assert done.returncode == 0, done.stderr
    ours, theirs = copy_values(folder / "pricer.scenario-SOFR+1bp.values.xlsx"), copy_values(folder / "live-shifted.xlsx")
    market = copy_values(folder / "pricer.values.xlsx")
    assert ours.keys() == theirs.keys()
    compared = 0
    for key, value in theirs.items():
        if isinstance(value, float):
            assert ours[key] == pytest.approx(value, rel=1e-9, abs=1e-6), key
            compared += 1
        else:
            assert ours[key] == value, key
    assert compared > 300
    npv = ("Swap", "C31")
    assert abs(ours[npv] - market[npv]) > 1000  # +1 bp moved a 10m 10-year swap by about 8,700
    out = (folder / "pricer.out").read_text()
    assert "Scenario SOFR+1bp: NOT market data: 25 service answers moved" in out
    assert "answers the pack lacked fetched once from" in out


def test_the_copy_its_cells_and_its_pack_say_it_is_a_scenario(computed):
    folder, _ = computed
    copy = folder / "small.scenario-SOFR+1bp.values.xlsx"
    values = copy_values(copy)
    status = {values[("Rates", f"C{r}")]: values.get(("Rates", f"D{r}")) for r in range(1, 20)
              if ("Rates", f"C{r}") in values}
    assert status["Scenario"].startswith("SOFR+1bp: NOT market data")
    source = {values[("Rates", f"E{r}")]: values.get(("Rates", f"F{r}")) for r in range(1, 8) if ("Rates", f"E{r}") in values}
    assert source["Scenario"].startswith("SOFR+1bp: the recorded answer moved by the local model")
    book = openpyxl.load_workbook(copy)
    assert book.properties.title == "SCENARIO SOFR+1bp: not market data"
    # Not the classic add-in's live mark (addin/classic/scenario.py NAME): finding it, the add-in
    # would "recalculate from the market" a copy of values and drop the mark (calc/frozen.py).
    assert "RATES_SCENARIO" not in book.defined_names
    for cell in ("A1", "B1", "B2", "C1", "E1"):
        note = book["Rates"][cell].comment
        assert note is not None and "SCENARIO SOFR+1bp, NOT market data" in note.text, cell
    assert "Not shifted: fx_spot?currency_pair=EURUSD" in book["Rates"]["B1"].comment.text
    assert "Not shifted: fixing?index=SOFR&valuation_date=2026-03-09" in book["Rates"]["B2"].comment.text
    pack = read_pack(copy)
    assert pack.kind == SCENARIO_KIND and pack.scenario.spec == "SOFR+1bp"
    out = (folder / "small.out").read_text()
    assert "not shifted: fx_spot?currency_pair=EURUSD&valuation_time=2026-03-10T16:00:00Z: FX spot" in out
    assert "not shifted: fixing?index=SOFR&valuation_date=2026-03-09: a published fixing" in out
    market = copy_values(folder / "small.values.xlsx")
    assert values[("Rates", "A1")] == pytest.approx(market[("Rates", "A1")] + 0.01, abs=1e-9)
    assert values[("Rates", "B1")] == market[("Rates", "B1")] and values[("Rates", "B2")] == market[("Rates", "B2")]


def test_a_replay_of_the_copy_says_it_is_a_scenario_and_asks_no_service(computed):
    folder, env = computed
    offline = FaultServer()
    try:
        done = rates_xl("calc", "pricer.xlsx", "--replay", "pricer.scenario-SOFR+1bp.values.xlsx", "-o",
                        "again.xlsx", "--no-progress", cwd=folder, env={**env, "RATES_BASE_URL": offline.base_url})
        assert offline.count() == 0
    finally:
        offline.stop()
    assert done.returncode == 0, done.stderr
    assert "Scenario SOFR+1bp: NOT market data" in done.stdout
    assert "Reproduced: every cell of the copy equals the recorded run's" in done.stdout
    assert read_pack(folder / "again.xlsx").scenario.spec == "SOFR+1bp"
    assert openpyxl.load_workbook(folder / "again.xlsx").properties.title == "SCENARIO SOFR+1bp: not market data"
    diff = rates_xl("diff", "small.values.xlsx", "small.scenario-SOFR+1bp.values.xlsx", cwd=folder, env=env)
    assert diff.returncode == 4
    assert "SCENARIO: B (small.scenario-SOFR+1bp.values.xlsx) is a SCENARIO copy, SOFR+1bp: NOT market data" in diff.stdout


def test_a_scenario_record_stripped_from_the_pack_is_named(computed):
    """Strip the record (and call the pack market data): the seal names the edit on replay;
    resealed by an editor who recomputes the digests, the copy's cells no longer match it."""
    folder, env = computed
    stripped = folder / "stripped.xlsx"
    shutil.copyfile(folder / "small.scenario-SOFR+1bp.values.xlsx", stripped)
    pack = read_pack(stripped)
    write_pack(stripped, pack.model_copy(update={"scenario": None, "kind": "rates-xl market-data pack"}))
    done = rates_xl("calc", "small.xlsx", "--replay", "stripped.xlsx", "-o", "r.xlsx", "--no-progress", cwd=folder,
                    env=env)
    assert done.returncode == 1 and "EDITED since it was recorded" in done.stderr
    from rates_xl.client.pack_seal import seal

    write_pack(stripped, seal(pack.model_copy(update={"scenario": None, "kind": "rates-xl market-data pack"}), None))
    diff = rates_xl("diff", "small.values.xlsx", "stripped.xlsx", cwd=folder, env=env)
    assert diff.returncode == 5, diff.stdout
    assert "cells are not those its pack was written with" in diff.stdout


def test_the_base_scenario_gives_the_market_copy_bit_for_bit(computed):
    folder, env = computed
    done = rates_xl("calc", "pricer.xlsx", "--replay", "pricer.values.xlsx", "--scenario", "SOFR+0bp", "--no-progress",
                    cwd=folder, env=env)
    assert done.returncode == 0, done.stderr
    base, market = copy_values(folder / "pricer.scenario-SOFR+0bp.values.xlsx"), copy_values(folder / "pricer.values.xlsx")
    assert {k: repr(v) for k, v in base.items()} == {k: repr(v) for k, v in market.items()}


@pytest.mark.parametrize(("argv", "code", "says"), [
    (["--scenario", "SOFR+1bp"], 2, "--scenario goes with --replay"),
    (["--replay", "small.values.xlsx", "--scenario", "SOFR+1"], 2, "--scenario: scenario 'SOFR+1': the amount is in bp"),
    (["--replay", "small.values.xlsx", "--scenario", "SOFR:7Y+1bp"], 2, "7Y is not one of the buckets"),
    (["--replay", "small.values.xlsx", "--buckets", "1Y,5Y"], 2, "--buckets goes with --scenario"),
    (["--replay", "small.values.xlsx", "--scenario", "SOFT+1bp", "-o", "x.xlsx"], 1,
     "no answer in the pack is on SOFT (the pack's indexes: SOFR)"),
    (["--replay", "small.scenario-SOFR+1bp.values.xlsx", "--scenario", "*+1bp", "-o", "x.xlsx"], 1,
     "its pack already holds the scenario SOFR+1bp"),
])
def test_a_scenario_that_cannot_be_run_is_one_line(computed, argv, code, says):
    folder, env = computed
    done = rates_xl("calc", "small.xlsx", *argv, "--no-progress", cwd=folder, env=env)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == code and len(lines) == 1 and says in lines[0], done.stderr
    assert "Traceback" not in done.stderr
