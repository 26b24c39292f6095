"""Every shipped template computes against the sandbox with zero error cells, and the
numbers obey the invariants a rates desk would check."""

from __future__ import annotations

import math
from datetime import date

import openpyxl
import pytest

from rates_xl.calc.engines.formulas import functions as formulas_engine
from rates_xl.calc.workbook import WorkbookCalculation
from rates_xl.functions import FUNCTIONS
from rates_xl.functions.tokens import function_names
from rates_xl.templates import TEMPLATES, template_path

from .conftest import named


def call(name, *args):
    return FUNCTIONS[name].core(*args)


@pytest.mark.parametrize("name", list(TEMPLATES))
def test_template_computes_with_no_error_cells(demo_run, name):
    result = demo_run.results[name]
    assert result.unknown_functions == {}
    assert result.errors == [], [f"{e.address}: {e.value}" for e in result.errors]
    assert result.formula_cells > 10
    # The file opens showing numbers: formula cells carry cached values, not zeros or blanks.
    book = openpyxl.load_workbook(template_path(name), data_only=True)
    cached = [c.value for ws in book.worksheets for row in ws.iter_rows() for c in row
              if isinstance(c.value, int | float)]
    assert len(cached) > 10


@pytest.mark.parametrize("name", list(TEMPLATES))
def test_every_function_in_every_template_exists_in_the_engine(name):
    formulas_engine.register_functions()
    calc = WorkbookCalculation(template_path(name)) if name != "swap_pricer" else None
    source = calc.formulas() if calc else _formulas(template_path(name))
    names = set()
    for _address, formula in source:
        names |= function_names(formula)
    assert names, "a template without formulas"
    missing = sorted(n for n in names if not formulas_engine.known_to_engine(n))
    assert missing == []
    assert {n for n in names if n.startswith("RATES_")} <= set(FUNCTIONS)


def _formulas(path):
    from openpyxl.worksheet.formula import ArrayFormula

    book = openpyxl.load_workbook(path)
    for ws in book.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if isinstance(c.value, ArrayFormula):
                    yield c.coordinate, c.value.text
                elif c.data_type == "f":
                    yield c.coordinate, c.value


def test_static_check_reports_unknown_functions(tmp_path, rates_client):
    import xlsxwriter

    path = tmp_path / "unknown.xlsx"
    wb = xlsxwriter.Workbook(path)
    ws = wb.add_worksheet("Data")
    ws.write_formula("A1", '=RATES_NOPE("SOFR")')
    ws.write_formula("A2", '=NOSUCHFUNC(1)+SUM(1,2)')
    ws.write_formula("A3", '=RATES_SWAP("SOFR","2D","5Y","1Y")')
    ws.write_formula("A4", '="IGNORED(" & "x"')
    wb.close()
    calc = WorkbookCalculation(path)
    assert calc.unknown_functions == {"RATES_NOPE": ["Data!A1"], "NOSUCHFUNC": ["Data!A2"]}
    result = calc.compute(rates_client)
    # An unknown RATES_* name is #NAME? (as in Excel with the add-in); another unknown name
    # may be an Excel function the engine lacks: the file's cached value is kept and listed.
    assert {e.cell: e.value for e in result.errors} == {"A1": "#NAME?"}
    assert [(c.cell, "NOSUCHFUNC" in c.reason) for c in result.skipped] == [("A2", True)]


# -- the swap pricer ----------------------------------------------------------------------------
def test_swap_pricer_par_rate_matches_rates_swap(swap_pricer):
    calc, result = swap_pricer
    par, check = named(calc, result, "par_rate"), named(calc, result, "swap_rate_check")
    assert abs(par - check) < 1e-6  # both in percent
    assert check == pytest.approx(call("RATES_SWAP", "SOFR", "2D", "10Y", "1Y", "1Y", "Actual360", "Actual360"))
    assert 0 < par < 10


def test_swap_pricer_dv01_is_a_one_bp_move(swap_pricer):
    calc, result = swap_pricer
    notional = named(calc, result, "notional")
    dv01, pv01 = named(calc, result, "swap_dv01"), named(calc, result, "fixed_leg_pv01")
    # Paying fixed gains when rates rise; a 10Y swap's DV01 is close to its PV01.
    assert dv01 > 0
    assert dv01 == pytest.approx(pv01, rel=0.05)
    assert 5e-4 * notional < pv01 < 1.2e-3 * notional
    fixed, floating = named(calc, result, "fixed_leg_pv"), named(calc, result, "float_leg_pv")
    assert named(calc, result, "npv") == pytest.approx(floating - fixed)


def _with_inputs(tmp_path, changes):
    book = openpyxl.load_workbook(template_path("swap_pricer"))
    for cell, value in changes.items():
        book["Swap"][cell] = value
    path = tmp_path / "swap.xlsx"
    book.save(path)
    return path


def test_swap_pricer_npv_is_zero_at_its_par_rate(swap_pricer, rates_client, tmp_path):
    calc, result = swap_pricer
    par, notional = named(calc, result, "par_rate"), named(calc, result, "notional")
    fixed_cell = calc.cell_of_name("fixed_rate")[1]
    at_par = WorkbookCalculation(_with_inputs(tmp_path, {fixed_cell: par}))
    computed = at_par.compute(rates_client)
    assert computed.errors == []
    assert abs(named(at_par, computed, "npv")) < 1e-6 * notional


def test_swap_pricer_euribor_conventions(rates_client, tmp_path):
    """A 3M EURIBOR swap: annual 30/360 fixed against quarterly Act/360, discounted on ESTR,
    received fixed: the legs' par rate still matches RATES_SWAP."""
    path = _with_inputs(tmp_path, {"C5": "3M EURIBOR", "C7": "Receive fixed", "C11": "5Y",
                                   "C13": "3M", "C14": "Thirty360BondBasis"})
    calc = WorkbookCalculation(path)
    result = calc.compute(rates_client)
    assert result.errors == []
    assert result.value("Swap", "C20") == "ESTR"  # discount curve used
    par, check = named(calc, result, "par_rate"), named(calc, result, "swap_rate_check")
    assert abs(par - check) < 1e-6
    assert check == pytest.approx(call("RATES_SWAP", "3M EURIBOR", "2D", "5Y", "1Y", "3M",
                                       "Thirty360BondBasis", "Actual360"))
    assert named(calc, result, "swap_dv01") < 0  # receiving fixed loses when rates rise


# -- the other templates ------------------------------------------------------------------------
def _calc_and_result(demo_run, name):
    calc = WorkbookCalculation(template_path(name))
    return calc, demo_run.results[name]


def test_fx_forward_points_equal_forward_minus_spot(demo_run, rates_client):
    calc, result = _calc_and_result(demo_run, "fx_hedging")
    spot = named(calc, result, "fx_spot")
    assert spot == pytest.approx(rates_client.fx_spot("EURUSD").rate)
    rows = range(31, 42)
    for r in rows:
        forward, diff, pips = (result.value("FX", f"{col}{r}") for col in "FGH")
        assert diff == pytest.approx(forward - spot, abs=1e-12)
        assert pips == pytest.approx((forward - spot) * 10_000, abs=1e-8)
    one_year = named(calc, result, "forward_1y")
    assert one_year == pytest.approx(call("RATES_FXFORWARD", "EURUSD", result.value("FX", "D37")))
    cost = named(calc, result, "hedge_cost")
    assert cost == pytest.approx(10_000_000 * (spot - one_year))


def test_swap_spreads_compare_percent_with_percent(demo_run):
    calc, result = _calc_and_result(demo_run, "swap_spreads")
    for r in range(17, 25):  # 2Y .. 30Y
        for block in range(3):
            raw, pct, swap, spread = (result.value("Spreads", f"{chr(ord('C') + 4 * block + k)}{r}")
                                      for k in range(4))
            assert 0 < raw < 0.2, "RATES_GOVYIELD answers a decimal"
            assert pct == pytest.approx(raw * 100)
            assert spread == pytest.approx((swap - 100 * raw) * 100)
            assert abs(spread) < 300, "a percent-vs-decimal slip would give thousands of bp"
    us10 = named(calc, result, "us_10y_spread")
    direct = (call("RATES_SWAP", "SOFR", "2D", "10Y", "1Y") - 100 * call("RATES_GOVYIELD", "US", "10Y")) * 100
    assert us10 == pytest.approx(direct)


def test_curve_dashboard_slopes(demo_run):
    calc, result = _calc_and_result(demo_run, "curve_dashboard")
    curve = {result.value("Curves", f"B{r}"): result.value("Curves", f"C{r}") for r in range(25, 60)
             if result.value("Curves", f"B{r}")}
    assert named(calc, result, "sofr_10y") == pytest.approx(curve["10Y"])
    assert named(calc, result, "slope_2s10s") == pytest.approx((curve["10Y"] - curve["2Y"]) * 100)
    assert named(calc, result, "slope_5s30s") == pytest.approx((curve["30Y"] - curve["5Y"]) * 100)
    direct = call("RATES_SWAPCURVE", "SOFR")
    assert len(curve) == len(direct) - 1
    ten = next(r for r in range(25, 60) if result.value("Curves", f"B{r}") == "10Y")
    assert result.value("Curves", f"D{ten}") == pytest.approx(10.0)  # years, for the chart
    nine = next(r for r in range(25, 60) if result.value("Curves", f"B{r}") == "9M")
    assert result.value("Curves", f"D{nine}") == pytest.approx(0.75)


def test_history_matches_the_service(demo_run, rates_client):
    calc, result = _calc_and_result(demo_run, "history")
    observations = result.value("History", "C11")
    start, end = result.value("History", "C8"), result.value("History", "C7")
    direct = call("RATES_SWAPHISTORY", "SOFR", "10Y", start, end)
    assert observations == len(direct) - 1 > 200
    assert named(calc, result, "history_latest") == pytest.approx(direct[-1][1])
    assert math.isclose(result.value("History", "C16"), min(r[1] for r in direct[1:]))


def test_history_grid_is_the_function_and_its_chart_draws_each_tenor(demo_run, rates_client):
    """The Curve history sheet: one RATES_SWAPHISTORY grid over the tenor range, equal to the
    function computed directly, its summary from the grid, and a line per tenor in the chart
    over exactly the rows the grid fills."""
    import re
    import zipfile

    from rates_xl.templates.history import GRID_SHEET, GRID_TENORS, GRID_TOP

    calc, result = _calc_and_result(demo_run, "history")
    start, end = result.value(GRID_SHEET, "C9"), result.value(GRID_SHEET, "C7")
    assert end == result.value("History", "C7")
    direct = call("RATES_SWAPHISTORY", "SOFR", [GRID_TENORS], start, end, None, "Per=M")
    assert direct[0] == ["Date", *GRID_TENORS] and len(direct) - 1 in (60, 61)  # five years: partial ends
    for i, row in enumerate(direct):
        shown = [result.value(GRID_SHEET, f"{c}{GRID_TOP + i}") for c in "BCDEF"]
        if i == 0:
            assert shown == row
        else:
            assert shown[0] == (row[0] - date(1899, 12, 30)).days and shown[1:] == row[1:]
    for j, col in enumerate("CDEF", start=1):
        assert result.value(GRID_SHEET, f"{col}15") == direct[-1][j]  # latest
        assert result.value(GRID_SHEET, f"{col}17") == pytest.approx((direct[-1][j] - direct[1][j]) * 100)
    assert named(calc, result, "grid_change_10y") == result.value(GRID_SHEET, "E17")
    # The chart covers the rows the grid filled when the template was built (its stored spill).
    stored = openpyxl.load_workbook(template_path("history"))[GRID_SHEET][f"B{GRID_TOP}"].value.ref
    last = int(re.sub(r"\D", "", stored.split(":")[1]))
    assert stored == f"B{GRID_TOP}:F{last}" and last - GRID_TOP in (60, 61)
    with zipfile.ZipFile(template_path("history")) as z:
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]
    (grid_chart,) = [c for c in charts if "Curve history" in c]
    values = re.findall(r"<c:val><c:numRef><c:f>([^<]+)</c:f>", grid_chart)
    assert values == [f"'Curve history'!${c}${GRID_TOP + 1}:${c}${last}" for c in "CDEF"]


@pytest.mark.parametrize("name", list(TEMPLATES))
def test_the_printed_page_is_one_page_wide_and_long_notes_wrap(name):
    """Printed (or rendered to PDF), a sheet is fit to one page wide over its sized columns;
    text past the last of them is cut off at the page's edge, so a note longer than the room
    it has up to there must wrap (templates/layout.py: Sheet.note)."""
    from openpyxl.utils import column_index_from_string

    book = openpyxl.load_workbook(template_path(name))
    for ws in book.worksheets:
        if ws.sheet_state != "visible":
            continue
        # fitToWidth left out of the file is OOXML's default, 1.
        assert ws.sheet_properties.pageSetUpPr.fitToPage and ws.page_setup.fitToWidth in (None, 1), ws.title
        widths = {column_index_from_string(letter): dim.width
                  for letter, dim in ws.column_dimensions.items() if dim.width}
        # openpyxl groups equal widths (D:L) under the first letter, with min and max.
        for dim in ws.column_dimensions.values():
            for n in range(dim.min or 0, (dim.max or 0) + 1):
                if dim.width and n:
                    widths[n] = dim.width
        last = max(widths)
        merged = {rng.min_row * 100000 + rng.min_col: rng for rng in ws.merged_cells.ranges}
        for row in ws.iter_rows():
            for cell in row:
                if not isinstance(cell.value, str) or cell.value.startswith("=") or not cell.font.i:
                    continue
                span = merged.get(cell.row * 100000 + cell.column)
                end = span.max_col if span else last
                room = sum(widths.get(n, 8.43) for n in range(cell.column, end + 1))
                # 10-point italic Calibri takes about 0.8 width units a character (the swap
                # pricer's 199-character subtitle prints whole across 165).
                if len(cell.value) * 0.8 > room:
                    assert cell.alignment.wrap_text, f"{name}!{ws.title}!{cell.coordinate} is cut off in print"
