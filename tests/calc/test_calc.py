"""Headless calculation: the planning loop, the engine's fixes, the frozen copy, the error
summary and the `calc` / `demo` commands, on real workbooks against the sandbox."""

from __future__ import annotations

import shutil
from datetime import date, datetime

import openpyxl
import pytest
import xlsxwriter

from rates_xl.calc.workbook import CalcError, WorkbookCalculation
from rates_xl.cli import main
from rates_xl.client import RatesClient
from rates_xl.functions.values import to_serial
from rates_xl.templates import template_path

PINNED = "2026-11-20T16:00:00Z"


@pytest.fixture
def fresh_client(sandbox, rates_client):
    """A client with an empty cache and zeroed counters (the session client stays shared)."""
    from rates_xl.sandbox import PAID_KEY

    with RatesClient(sandbox.base_url, api_key=PAID_KEY, rate_limit=1000, burst=1000) as client:
        yield client


def workbook(path, cells, spills=()):
    wb = xlsxwriter.Workbook(path)
    ws = wb.add_worksheet("Data")
    for cell, value in cells.items():
        if isinstance(value, str) and value.startswith("="):
            ws.write_formula(cell, value)
        elif isinstance(value, date):
            ws.write_datetime(cell, datetime(value.year, value.month, value.day), wb.add_format({"num_format": "yyyy-mm-dd"}))
        else:
            ws.write(cell, value)
    for ref, formula in spills:
        ws.write_dynamic_array_formula(ref, formula)
    wb.close()
    return path


def test_each_distinct_request_is_sent_once_even_when_arguments_depend_on_results(tmp_path, fresh_client):
    path = workbook(tmp_path / "plan.xlsx", {
        "D3": f'=RATES_DISCOUNT("SOFR",A3,"{PINNED}")',  # its date is the DFCURVE's second date
        "D4": f'=RATES_DISCOUNT(" sofr ",A3,"{PINNED}")',  # the same request, spelled differently
        "E1": f'=RATES_SWAP("SOFR","2D","5Y","1Y",,,,"{PINNED}")',
        "E2": f'=RATES_SWAP("sofr","2d","5y","1Y",,,,"{PINNED}")',
        "E3": f'=RATES.SWAP("SOFR","2D","5Y","1Y",,,,"{PINNED}")',  # Office.js spelling
    }, spills=[("A1:B5", f'=RATES_DISCOUNTCURVE("SOFR","2D","3Y","1Y",,"{PINNED}")')])
    result = WorkbookCalculation(path).compute(fresh_client)
    assert result.errors == []
    assert result.report.distinct_requests == 3
    assert result.report.requests_sent == 3 == fresh_client.stats()["requests_sent"]
    assert result.report.rounds == 3  # curve, then the DF its dates ask for, then nothing new
    second_date = result.value("Data", "A3")
    direct = fresh_client.discount_factor("SOFR", date(1899, 12, 30).fromordinal(
        date(1899, 12, 30).toordinal() + int(second_date)), valuation_time=PINNED)
    assert result.value("Data", "D3") == result.value("Data", "D4") == pytest.approx(direct.discount_factor)
    assert result.value("Data", "E1") == result.value("Data", "E2") == result.value("Data", "E3")


def test_a_request_behind_a_spilled_curve_and_a_formula_between_is_made(tmp_path, fresh_client):
    """swap_pricer's schedule: a DF asked of a date that a formula reads from a curve's spill.
    Round 2 re-sets the RATES_* formulas; the curve spills and E3, dirty, must be computed after
    D3 reads the spill. formualizer 0.13's sequential evaluation (`enable_parallel = False`)
    computes E3 first and never again: "" there, no third round (swap_pricer: 5 requests in 2
    rounds instead of 25 in 4, 78 cells #VALUE!). The engine keeps its parallel evaluation."""
    path = workbook(tmp_path / "behind.xlsx", {
        "D3": '=IF(ISNUMBER(A3),A3,"")',  # the curve's second date, through a formula
        "E3": f'=IF(ISNUMBER(D3),RATES_DISCOUNT("SOFR",D3,"{PINNED}"),"")',
        "F3": "=E3*2",
    }, spills=[("A1:B5", f'=RATES_DISCOUNTCURVE("SOFR","2D","3Y","1Y",,"{PINNED}")')])
    result = WorkbookCalculation(path).compute(fresh_client)
    assert result.errors == []
    assert result.report.rounds == 3 and result.report.distinct_requests == 2
    assert isinstance(result.value("Data", "D3"), float) and result.value("Data", "D3") == result.value("Data", "A3")
    paid = date.fromordinal(date(1899, 12, 30).toordinal() + int(result.value("Data", "D3")))
    direct = fresh_client.discount_factor("SOFR", paid, valuation_time=PINNED)
    assert result.value("Data", "E3") == pytest.approx(direct.discount_factor)
    assert result.value("Data", "F3") == pytest.approx(2 * direct.discount_factor)


def test_engine_fixes_index_workday_and_omitted_arguments(tmp_path, fresh_client):
    path = workbook(tmp_path / "fixes.xlsx", {
        "D1": "=SUM(INDEX(A2:B4,0,2))",  # Excel: the whole second column
        "D2": "=SUM(B2:B4)",
        "D3": "=WORKDAY(C1,1)",  # from a Saturday
        "C1": date(2026, 11, 21),
        "D4": f'=RATES_SWAP("SOFR","2D","5Y","1Y",,,,"{PINNED}")',
        "D5": f'=RATES_SWAP("SOFR","2D","5Y","1Y","1Y","Actual360","Actual360","{PINNED}")',
    }, spills=[("A1:B4", f'=RATES_DISCOUNTCURVE("SOFR","2D","2Y","1Y",,"{PINNED}")')])
    result = WorkbookCalculation(path).compute(fresh_client)
    assert result.errors == []
    assert result.value("Data", "D1") == pytest.approx(result.value("Data", "D2"))
    assert result.value("Data", "D3") == to_serial(date(2026, 11, 23))
    assert result.value("Data", "D4") == pytest.approx(result.value("Data", "D5"))


def test_a_spill_longer_than_its_stored_range_is_computed_whole(tmp_path, fresh_client):
    path = workbook(tmp_path / "grow.xlsx", {"D1": "=COUNT(B2:B100)"},
                    spills=[("A1:B2", f'=RATES_DISCOUNTCURVE("SOFR","2D","5Y","1Y",,"{PINNED}")')])
    calc = WorkbookCalculation(path)
    result = calc.compute(fresh_client)
    assert result.errors == []
    assert result.value("Data", "D1") == 6  # start plus five yearly dates
    out = calc.freeze(result, tmp_path / "grow.values.xlsx")
    frozen = openpyxl.load_workbook(out)["Data"]
    assert [frozen[f"B{r}"].value is not None for r in range(2, 9)] == [True] * 6 + [False]


def test_valuation_time_pins_calls_that_leave_it_empty(tmp_path, fresh_client):
    path = workbook(tmp_path / "pin.xlsx", {
        "A1": '=RATES_SWAP("SOFR","2D","7Y","1Y")',
        "A2": f'=RATES_SWAP("SOFR","2D","7Y","1Y",,,,"{PINNED}")',
        "A3": '=RATES_FXSPOT("EURUSD")',
    })
    result = WorkbookCalculation(path).compute(fresh_client, valuation_time=PINNED)
    assert result.value("Data", "A1") == result.value("Data", "A2")
    assert result.value("Data", "A1") == pytest.approx(
        fresh_client.swap_rate("SOFR", "2D", "7Y", "1Y", valuation_time=PINNED).swap_rate)
    assert result.value("Data", "A3") == pytest.approx(fresh_client.fx_spot("EURUSD", valuation_time=PINNED).rate)
    assert result.report.distinct_requests == 2


def test_frozen_copy_keeps_styles_charts_validation_and_names(tmp_path, rates_client):
    calc = WorkbookCalculation(template_path("fx_hedging"))
    result = calc.compute(rates_client)
    out = calc.freeze(result, tmp_path / "fx.xlsx")
    book = openpyxl.load_workbook(out)
    fx = book["FX"]
    assert fx["C17"].data_type == "n" and fx["C17"].value == pytest.approx(calc.named(result, "fx_spot"))
    assert not any(c.data_type == "f" for row in fx.iter_rows() for c in row), "every formula frozen"
    assert len(fx._charts) == 1
    assert {str(dv.sqref) for dv in fx.data_validations.dataValidation} >= {"C5", "C7", "C8"}
    assert book["Lists"].sheet_state == "hidden"
    assert {"fx_spot", "forward_1y", "list_pairs"} <= set(book.defined_names)
    assert fx["C5"].fill.fgColor.rgb.endswith("FFF2CC")  # the input style
    with pytest.raises(CalcError, match="exists"):
        calc.freeze(result, out)


def test_calc_command_lists_error_cells_and_exits_3(tmp_path, rates_client, capsys):
    path = workbook(tmp_path / "bad.xlsx", {
        "A1": '=RATES_SWAP("SOFR","2D","10X","1Y")',
        "A2": "=A1*2",
        "A3": "=NOSUCH(1)",
        "A4": "=1/0",
        "A5": '=RATES_SWAP("SOFR","2D","5Y","1Y")',
    })
    out = tmp_path / "bad.values.xlsx"
    assert main(["calc", str(path), "-o", str(out), "--no-progress"]) == 3
    printed = capsys.readouterr()
    # An error value, as in Excel (issue 28), the message beside it in the summary.
    assert "Data!A1: #VALUE! (maturity: '10X' is not a date or a tenor like 10Y)" in printed.out
    assert "Data!A2: #VALUE!" in printed.out and "Data!A4: #DIV/0!" in printed.out
    assert "Data!A5" not in printed.out
    # A function the engine does not know: not computed, the file's cached value kept, said so.
    assert "unknown function NOSUCH" in printed.out
    assert "Data!A3: not computed (calls NOSUCH, which the engine does not know)" in printed.out
    frozen = openpyxl.load_workbook(out)["Data"]
    assert frozen["A1"].value == "#VALUE!"  # the copy holds the error value Excel would show
    assert isinstance(frozen["A5"].value, float)


def test_a_book_saved_under_a_scenario_is_computed_at_market_and_its_copy_loses_the_mark(tmp_path, rates_client, capsys):
    """The classic add-in names a book RATES_SCENARIO while a scenario is on, and a book saved
    so keeps the scenario's values: calc computes it at market, so its copy must not say
    "not market data" (the add-in would take it for a scenario's), and the summary says why."""
    from rates_xl.addin.classic.scenario import NAME
    from rates_xl.calc.frozen import SCENARIO_MARK

    assert SCENARIO_MARK == NAME
    path = tmp_path / "saved.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Data")
    sheet.write_formula("A1", '=RATES_SWAP("SOFR","2D","5Y","1Y")', None, 9.99)  # the scenario's value
    sheet.write_formula("A2", "=A1*100", None, 999)
    book.define_name(NAME, '="SOFR+1bp: not market data"')
    book.close()
    out = tmp_path / "saved.values.xlsx"
    assert main(["calc", str(path), "-o", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "saved in Excel while a scenario was on (SOFR+1bp: not market data)" in printed
    frozen = openpyxl.load_workbook(out)
    assert NAME not in {name.upper() for name in frozen.defined_names}
    market = rates_client.swap_rate("SOFR", "2D", "5Y", "1Y").swap_rate
    assert frozen["Data"]["A1"].value == pytest.approx(market)
    assert frozen["Data"]["A2"].value == pytest.approx(market * 100)


def test_calc_command_refuses_what_it_cannot_do(tmp_path, rates_client, capsys):
    assert main(["calc", str(tmp_path / "missing.xlsx")]) == 1
    assert "no such file" in capsys.readouterr().err
    corrupt = tmp_path / "corrupt.xlsx"
    corrupt.write_bytes(b"this is not a workbook")
    assert main(["calc", str(corrupt)]) == 1
    assert "not a valid workbook" in capsys.readouterr().err
    good = tmp_path / "good.xlsx"
    shutil.copy(template_path("swap_spreads"), good)
    out = tmp_path / "good.values.xlsx"
    out.write_bytes(b"keep me")
    assert main(["calc", str(good), "--no-progress"]) == 1
    assert "exists" in capsys.readouterr().err and out.read_bytes() == b"keep me"
    assert main(["calc", str(good), "--force", "--no-progress", "--valuation-time", "2026-13-01"]) == 1
    assert "--valuation-time" in capsys.readouterr().err and out.read_bytes() == b"keep me"
    assert main(["calc", str(good), "--force", "--no-progress"]) == 0
    assert "No error cells" in capsys.readouterr().out
    assert openpyxl.load_workbook(out)["Spreads"]["F21"].value is not None


def test_demo_command_on_its_own_sandbox(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    for label in ("10Y SOFR swap rate", "Swap pricer NPV", "Swap pricer par rate", "EURUSD 1Y forward",
                  "US 10Y swap spread"):
        assert label in printed
    assert sorted(p.name for p in out.glob("*.xlsx")) == sorted(
        f"{n}.xlsx" for n in ("swap_pricer", "curve_dashboard", "fx_hedging", "swap_spreads", "history"))


def test_former_function_names_still_compute(tmp_path, fresh_client):
    """RATES_DF, RATES_DFCURVE and RATES_FX (renamed for Office.js) compute as before."""
    book = tmp_path / "former.xlsx"
    wb = xlsxwriter.Workbook(book)
    ws = wb.add_worksheet("S")
    ws.write_formula("A1", '=RATES_DF("SOFR","5Y")')
    ws.write_formula("A2", '=RATES_DISCOUNT("SOFR","5Y")')
    ws.write_formula("A3", '=RATES_FX("EURUSD")')
    ws.write_formula("A4", '=RATES_FXSPOT("EURUSD")')
    ws.write_formula("A5", '=INDEX(RATES_DFCURVE("SOFR","0D","2Y","1Y",,,FALSE),2,2)')
    wb.close()
    result = WorkbookCalculation(book).compute(fresh_client)
    assert not result.unknown_functions and not result.errors
    assert result.value("S", "A1") == result.value("S", "A2") and 0.5 < result.value("S", "A1") < 1
    assert result.value("S", "A3") == result.value("S", "A4") > 0
    assert 0.5 < result.value("S", "A5") < 1


def test_several_workbooks_share_one_fetch(tmp_path, fresh_client):
    """Two books asking partly the same requests: each distinct request is sent once."""
    from rates_xl.calc.workbook import calculate_many

    first = workbook(tmp_path / "first.xlsx", {
        "A1": f'=RATES_SWAP("SOFR","2D","5Y","1Y",,,,"{PINNED}")',
        "A2": f'=RATES_SWAP("SOFR","2D","7Y","1Y",,,,"{PINNED}")',
    })
    second = workbook(tmp_path / "second.xlsx", {
        "A1": f'=RATES_SWAP("sofr","2D","5Y","1Y",,,,"{PINNED}")',  # the same request as first!A1
        "A2": f'=RATES_FXSPOT("EURUSD","{PINNED}")',
    })
    batch = calculate_many([first, second], fresh_client)
    assert not batch.failures
    assert batch.report.distinct_requests == 3 == fresh_client.stats()["requests_sent"]
    assert batch.results[first].value("Data", "A1") == batch.results[second].value("Data", "A1")
    assert batch.results[second].value("Data", "A2") > 0


def test_a_book_with_service_calls_keeps_and_lists_a_formula_the_fast_engine_gets_wrong(tmp_path, fresh_client):
    """No engine guesses it: the cell keeps the file's cached value and is listed, its reason
    saying the value may predate this run's service answers; the rest is computed."""
    path = workbook(tmp_path / "mixed.xlsx", {
        "A1": "abc", "A2": "de",
        "B1": f'=RATES_SWAP("SOFR","2D","5Y","1Y",,,,"{PINNED}")',
        "B2": "=SUMPRODUCT(LEN(A:A)*MAX(A:A))+B1",  # a whole column under MAX: the fast engine cannot write it out
        "B3": "=ROWS(SORT(A:A))+B1",  # a pass's NotComputed (SORT of a whole column): kept the same way
        "B4": "=ROWS(SORT(A:A))",  # reads no answer of the service: nothing to predate
    })
    calc = WorkbookCalculation(path)
    assert calc.engine_name == "fast"
    result = calc.compute(fresh_client)
    assert result.value("Data", "B1") > 0
    skipped = {(s.sheet, s.cell): s.reason for s in result.skipped}
    for cell in ("B2", "B3"):
        assert "may predate this calculation's answers" in skipped[("Data", cell)]
        assert skipped[("Data", cell)].endswith("the file's cached value is kept")
    assert "predate" not in skipped[("Data", "B4")]
    assert result.value("Data", "B2") == 0  # XlsxWriter's cached value, kept, not a guess


def test_service_calls_inside_helper_cells_are_computed_again_in_later_rounds(tmp_path, fresh_client):
    """SUM(IF(LEN(A1:A3)>0, RATES_...)) is computed through helper cells: they are re-set
    each round like any RATES_* cell, so the answer fetched after round 1 reaches the sum."""
    path = workbook(tmp_path / "helpers.xlsx", {
        "A1": "x", "A2": "yy", "A3": "",
        "B1": f'=SUM(IF(LEN(A1:A3)>0,RATES_DISCOUNT("SOFR","5Y","{PINNED}"),0))',
        "B2": f'=RATES_DISCOUNT("SOFR","5Y","{PINNED}")',
    })
    calc = WorkbookCalculation(path)
    assert calc.engine_name == "fast"
    result = calc.compute(fresh_client)
    assert result.errors == [] and result.report.rounds == 2
    assert result.value("Data", "B1") == pytest.approx(2 * result.value("Data", "B2"))


def test_a_curve_read_through_its_spill_reference_is_this_run_s(tmp_path, fresh_client):
    """`INDEX(A1#,2,2)` over a RATES_* curve, in a book Excel saved (its values cached): the
    check held the curve at Excel's values cell by cell, so it spilled nowhere and `A1#` was
    #REF!; the cell was kept stale at Excel's older value beside the curve's new one."""
    from tests.calc.test_kept_spills import as_excel_saves

    raw = tmp_path / "raw.xlsx"
    wb = xlsxwriter.Workbook(raw)
    ws = wb.add_worksheet("Data")
    ws.write_dynamic_array_formula("A1:B5", f'=RATES_DISCOUNTCURVE("SOFR","2D","3Y","1Y",,"{PINNED}")', None, 46000)
    for row in range(5):
        if row:
            ws.write_number(row, 0, 46000 + row)
        ws.write_number(row, 1, 0.99 - row / 100)  # Excel's values of another day
    ws.write_formula("C1", "=INDEX(A1#,2,2)", None, 0.98)
    ws.write_formula("C2", "=ROWS(A1#)", None, 5)
    wb.close()
    path = as_excel_saves(raw, tmp_path / "curve.xlsx")
    for full in (False, True):
        result = WorkbookCalculation(path, full=full).compute(fresh_client)
        assert result.value("Data", "C1") == result.value("Data", "B2") != 0.98
        assert result.value("Data", "C2") == 5 and not result.stale, full
