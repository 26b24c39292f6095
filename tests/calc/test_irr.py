"""IRR (calc/xlfuncs/financial/irr.py): the cash flows read as Excel reads them, and an answer
in bounded time for any count of them (numpy_financial's roots are cubic in the count: 10,000
flows took hours)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap

import numpy_financial as npf
import openpyxl
import pytest

from rates_xl.calc.engines.formualizer.values import error, error_text, is_error
from rates_xl.calc.workbook import WorkbookCalculation
from rates_xl.calc.xlfuncs import callbacks
from rates_xl.calc.xlfuncs.bridge import bridged as bridge
from rates_xl.calc.xlfuncs.financial import irr

#: The calls past `irr.ROOTS_UP_TO` flows are made in a child process: if numpy.roots came back
#: for them, the test fails after this long instead of holding the suite for hours (a guard
#: against a hang, not a speed figure: the calls end within a second).
HANG_GUARD_S = 180


@pytest.fixture(scope="module")
def IRR():  # noqa: N802 - the function's name
    return callbacks()["IRR"]


def shown(value):
    return error_text(value) if is_error(value) else value


def annuity(principal: float, payment: float, periods: int) -> list[float]:
    return [-principal] + [payment] * periods


def worth(flows: list[float], rate: float) -> float:
    """The flows' value at `rate`, relative to the sum of its terms' sizes (0 at the IRR, to
    rounding)."""
    terms = [value / (1 + rate) ** period for period, value in enumerate(flows)]
    return sum(terms) / sum(map(abs, terms))


def test_empty_cells_text_and_logicals_in_a_range_are_not_flows(tmp_path):
    """Microsoft's IRR page: text, logical values and empty cells in an array or reference are
    ignored. LibreOffice agrees (10 % for -100, an empty cell, 110); the bridged `formulas` IRR
    read the empty cell as a flow of 0 (4.88 %) and numeric text as a number."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    sheet["B1"], sheet["B3"], sheet["B4"], sheet["B5"], sheet["B6"] = -100, 110, "abc", "5", True
    sheet["C1"], sheet["C2"], sheet["C3"] = -100, 0, 110
    sheet["A1"], sheet["A2"], sheet["A3"] = "=IRR(B1:B3)", "=IRR(B1:B6)", "=IRR(B1:B6,0.2)"
    sheet["A4"], sheet["A5"] = "=IRR(C1:C3)", "=IRR(B2:B6)"
    book.save(tmp_path / "irr.xlsx")
    values = WorkbookCalculation(tmp_path / "irr.xlsx").compute().values
    for cell in ("A1", "A2", "A3"):
        assert values[("S", cell)] == pytest.approx(0.1, rel=1e-12), cell
    assert values[("S", "A4")] == pytest.approx(npf.irr([-100, 0, 110]), rel=1e-12)  # a typed 0 is a flow
    assert values[("S", "A5")] == "#NUM!"  # one flow, 110: no rate


def rates_of(flows: list[float]) -> list[float]:
    """Every rate above -100 % at which the flows are worth 0 (numpy's roots, as numpy_financial
    finds them)."""
    import numpy as np

    return sorted(1 / root.real - 1 for root in np.roots(flows[::-1]) if root.imag == 0 and root.real > 0)


def test_a_range_of_plain_numbers_is_answered_as_formulas_answers_it(IRR):
    """Up to ROOTS_UP_TO flows the bridged `formulas` IRR decides, with the range as it came,
    where the flows have one rate (or none); with several, see the next test."""
    bridged = bridge("IRR")
    chance = random.Random(46)
    compared = 0
    for _ in range(80):
        count = chance.randint(2, 60)
        flows = [[round(chance.uniform(-100, 100), 2) for _ in range(count)]]
        guess = chance.choice([(), (0.1,), (-0.5,), ("x",), (error("#N/A"),)])
        if len(rates_of(flows[0])) > 1 and guess in ((), (0.1,), (-0.5,)):
            continue
        compared += 1
        assert shown(IRR(flows, *guess)) == shown(bridged(flows, *guess))
    assert compared >= 40


#: Flows whose signs change twice and which have two rates, -73.5 % and 90.5 %.
TWO_RATES = [-2558.32, 2453.33, 2657.89, 2268.84, 1466.88, 1644.77, 281.35, 2172.0, 948.85, -420.72]


def test_of_several_rates_the_one_the_iteration_from_the_guess_reaches(IRR):
    """Microsoft's IRR page: "Starting with guess, IRR cycles through the calculation until the
    result is accurate within 0.00001 percent", and a different guess may give another result.
    `formulas` answered the rate nearest 0 whatever the guess: -73.5 % here, where LibreOffice
    (whose IRR iterates from the guess) answers 90.5 % for the default guess of 10 %. IronCalc's
    Excel-made FINANCIAL__IRR.xlsx General!L6 (flows 20, -5, -20, -5, -10, 5; rates -64.7 % and
    30.3 %) is 0.30348071959875655 in Excel: the rate reached from 10 %, and nearest 0 too."""
    low, high = rates_of(TWO_RATES)
    assert low == pytest.approx(-0.7348254631223, abs=1e-12) and high == pytest.approx(0.9053938950248, abs=1e-12)
    assert abs(worth(TWO_RATES, low)) < 1e-12 and abs(worth(TWO_RATES, high)) < 1e-12
    assert IRR([TWO_RATES]) == IRR([TWO_RATES], 0.1) == IRR([TWO_RATES], 2.0) == high
    assert IRR([TWO_RATES], -0.7) == IRR([TWO_RATES], -0.9) == low
    assert IRR([[20.0, -5.0, -20.0, -5.0, -10.0, 5.0]]) == pytest.approx(0.30348071959875655, rel=1e-11)
    assert bridge("IRR")([TWO_RATES], 2.0) == low  # (the answer before)


def test_a_guess_of_minus_100_percent_or_below_is_a_value_error(IRR):
    """Excel 16's answers, cached in IronCalc's FINANCIAL__IRR.xlsx (General!N5: guess -1, N3:
    -10, both #VALUE!; N4: -0.9 answered). `formulas` answered a rate for both."""
    assert IRR([[-20.0, 5.0, 5.0, None, -10.0, 5.0]], -1.0) == error("#VALUE!")
    assert IRR([[-1000.0, 230.0, 200.0, 125.0, 200.0, 10.0]], -10.0) == error("#VALUE!")
    assert IRR([[-55.0, 10.0, 5.0, 5.0, 5.0, 5.0]], -0.9) == pytest.approx(-0.18845644425120334, rel=1e-9)


def test_past_the_roots_a_unique_rate_is_numpy_financials_root():
    """Flows whose signs change once have one rate (Descartes' rule of signs), the one
    numpy_financial's roots give: halving finds it, both signs of the rate."""
    chance = random.Random(30)
    for _ in range(16):
        count = chance.randint(irr.ROOTS_UP_TO + 1, 220)  # (numpy_financial: 0.03-0.05 s each)
        cut = chance.randint(1, count - 1)
        sign = chance.choice([1, -1])
        flows = ([sign * chance.uniform(0, 1000) for _ in range(cut)]
                 + [-sign * chance.uniform(0, 50) for _ in range(count - cut)])
        flows[0] = sign * chance.uniform(1, 1000)
        expected = npf.irr(flows)
        found = irr.unique_rate(flows)
        assert found == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert abs(worth(flows, found)) < 1e-9


def test_a_date_formatted_flow_is_its_number(IRR):
    """A flow whose cell is formatted as a date reaches the function as a date: it is its serial
    number, a flow like any other."""
    import datetime

    as_date = [[-100.0, datetime.datetime(1900, 4, 19), 0.0]]  # 110 as a date (19 April 1900)
    assert IRR(as_date) == IRR([[-100.0, 110.0, 0.0]]) == pytest.approx(0.1, rel=1e-12)
    assert callbacks()["MIRR"]([[-100.0, datetime.datetime(1900, 4, 19)]], 0.1, 0.1) == pytest.approx(0.1, rel=1e-12)


def test_signs_that_never_change_have_no_rate():
    assert irr.unique_rate([1.0] * 300) is None
    assert irr.unique_rate([0.0, -1.0, 0.0, -2.0] * 100) is None


def test_leading_and_trailing_zeros_change_nothing():
    flows = annuity(100_000, 600, 360)
    assert irr.unique_rate([0.0] * 5 + flows + [0.0] * 7) == irr.unique_rate(flows)


@pytest.fixture(scope="module")
def large() -> dict[str, str]:
    """Calls of IRR past ROOTS_UP_TO flows, made in a child process behind the hang guard."""
    calls = {
        "loan of 10,000 payments": "[[-100000.0] + [600.0] * 10000]",
        "annuity at 0.5 % for 5,000 periods": "[[-100 * (1 - 1.005 ** -5000) / 0.005] + [100.0] * 5000]",
        "a negative rate over 3,000 periods": "[[-1000.0] + [0.25] * 3000]",
        "signs changing twice, 1,500 flows": "[[-100.0] + [10.0] * 1500 + [-50.0]]",
        "signs changing twice, 500 flows": "[[-100.0] + [10.0] * 500 + [-50.0]]",
        "no change of sign, 5,000 flows": "[[1.0] * 5000]",
        "guess #N/A": "[[-100000.0] + [600.0] * 1000], {'type': 'Error', 'kind': 'Na'}",
        "guess text": "[[-100000.0] + [600.0] * 1000], 'x'",
        "a range of guesses": "[[-100000.0] + [600.0] * 1000], [[0.1, 'x']]",
    }
    code = textwrap.dedent(f"""
        from rates_xl.calc.engines.formualizer.values import error_text, is_error
        from rates_xl.calc.xlfuncs import callbacks
        IRR = callbacks()["IRR"]
        def shown(value):
            if isinstance(value, list):
                return [[shown(v) for v in row] for row in value]
            return error_text(value) if is_error(value) else value
        for name, args in {calls!r}.items():
            print(repr(shown(IRR(*eval(args)))))
    """)
    # (one BLAS thread, as the console script sets: numpy.roots of 500 flows is 0.2 s on one
    # and several seconds on two busy cores)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_GUARD_S,
                          check=True, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    return dict(zip(calls, map(eval, done.stdout.splitlines()), strict=True))


def test_ten_thousand_flows_are_answered(large):
    rate = large["loan of 10,000 payments"]
    assert rate == pytest.approx(0.006, rel=1e-9)  # 600 a period forever on 100,000: 0.6 %
    assert abs(worth([-100000.0] + [600.0] * 10000, rate)) < 1e-9
    assert large["annuity at 0.5 % for 5,000 periods"] == pytest.approx(0.005, rel=1e-9)
    rate = large["a negative rate over 3,000 periods"]
    assert -1 < rate < 0 and abs(worth([-1000.0] + [0.25] * 3000, rate)) < 1e-9


def test_signs_changing_more_than_once(large):
    """Up to MIXED_ROOTS_UP_TO flows numpy_financial's roots decide; past it #NUM! (which of
    several rates Excel's iteration finds is not known here)."""
    # (10 a period at 10 % is worth the 100; the -50 after 501 periods, nothing to 1e-20)
    assert large["signs changing twice, 500 flows"] == pytest.approx(0.1, rel=1e-12)
    assert large["signs changing twice, 1,500 flows"] == "#NUM!"
    assert large["no change of sign, 5,000 flows"] == "#NUM!"


def test_the_guess_is_read_as_formulas_reads_it(large):
    rate = irr.unique_rate([-100000.0] + [600.0] * 1000)
    assert large["guess #N/A"] == "#N/A"
    assert large["guess text"] == "#VALUE!"
    assert large["a range of guesses"] == [[rate, "#VALUE!"]]


# -- MIRR ----------------------------------------------------------------------------------------

def test_mirr_leaves_out_what_excel_leaves_out(tmp_path):
    """Microsoft's MIRR page: text, logical values and empty cells in the range are ignored
    (LibreOffice, checked here: 17.13 % for -100, an empty cell, 60, "abc", 70 at 10 % and
    12 %, as for {-100,60,70}); formualizer's own read the empty cell as a flow of 0 (11.12 %)."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "S"
    sheet["B1"], sheet["B3"], sheet["B4"], sheet["B5"], sheet["B6"] = -100, 60, "abc", 70, True
    sheet["A1"], sheet["A2"] = "=MIRR(B1:B6,0.1,0.12)", "=MIRR({-100,60,70},0.1,0.12)"
    sheet["A3"], sheet["A4"] = "=MIRR(B1:B2,0.1,0.12)", '=MIRR(B1:B6,"x",0.12)'
    book.save(tmp_path / "mirr.xlsx")
    values = WorkbookCalculation(tmp_path / "mirr.xlsx").compute().values
    assert values[("S", "A1")] == values[("S", "A2")] == pytest.approx(0.171324037147706, rel=1e-12)
    assert values[("S", "A3")] == "#DIV/0!"  # one flow: no positive one
    assert values[("S", "A4")] == "#VALUE!"


def test_mirr_of_plain_numbers_is_formualizers_to_the_bit():
    """Plain numbers answer as formualizer's own MIRR did (its arithmetic, Rust's powi), bit for
    bit: 300 random flows and rates computed by formualizer itself, with no function of ours."""
    import formualizer
    from openpyxl.utils import get_column_letter

    chance = random.Random(7)
    native = formualizer.Workbook()
    native.add_sheet("S")
    cases = []
    for row in range(1, 301):
        flows = [round(chance.uniform(-1000, 1000), chance.choice([0, 2, 6])) for _ in range(chance.randint(2, 40))]
        finance, reinvest = round(chance.uniform(-0.5, 0.6), 4), round(chance.uniform(-0.5, 0.6), 4)
        for column, flow in enumerate(flows, 3):
            native.set_value("S", row, column, flow)
        native.set_formula("S", row, 1, f"=MIRR(C{row}:{get_column_letter(2 + len(flows))}{row},{finance},{reinvest})")
        cases.append((flows, finance, reinvest))
    native.evaluate_all()
    MIRR = callbacks()["MIRR"]  # noqa: N806 - the function's name
    for row, (flows, finance, reinvest) in enumerate(cases, 1):
        if not any(flow > 0 for flow in flows):  # Excel's -1 (FINANCIAL__MIRR.xlsx), formualizer's #DIV/0!
            assert MIRR([flows], finance, reinvest) == -1.0
            continue
        assert MIRR([flows], finance, reinvest) == native.get_value("S", row, 1), (flows, finance, reinvest)
