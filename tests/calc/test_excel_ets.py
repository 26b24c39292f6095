"""The FORECAST.ETS family (calc/xlfuncs/statistical/ets.py), one class at a time on a small workbook made
from one cell of formulas_test.xlsx (`tests/calc/excel_cases.py`): Excel's value is read from
the corpus book at test time. Every case but KEPT's and the not-computed ones failed before ets.py (the bridged `formulas`
implementation needs statsmodels and answered #VALUE!, so each cell was listed stale)."""

from __future__ import annotations

import pytest

from tests.calc.excel_cases import (
    assert_array_as_excel,
    assert_cell_as_excel,
    computed,
    excel_value,
    reproduce,
)

_F = "formulas_test.xlsx"

#: (class, cell of formulas_test.xlsx): computed equal to Excel's value, not listed.
EQUAL = [
    ("FORECAST.ETS of an exactly seasonal series, after its end", "STATISTICAL!R38"),
    ("FORECAST.ETS far ahead, one season back and back", "STATISTICAL!U38"),
    ("FORECAST.ETS on the timeline's first point", "STATISTICAL!Y38"),
    ("FORECAST.ETS of a date text target", "STATISTICAL!X38"),
    ("FORECAST.ETS of a target before the timeline is #NUM!", "STATISTICAL!V38"),
    ("FORECAST.ETS of an empty target (0) is #NUM!", "STATISTICAL!W38"),
    ("FORECAST.ETS.CONFINT of an exact fit is 0", "STATISTICAL!S39"),
    ("FORECAST.ETS.CONFINT of an empty confidence level (the default) is 0", "STATISTICAL!W39"),
    ("FORECAST.ETS.CONFINT of a confidence level of 1 is #NUM!", "STATISTICAL!Y39"),
    ("FORECAST.ETS.CONFINT of a confidence level above 1 is #NUM!", "STATISTICAL!R39"),
    ("FORECAST.ETS.CONFINT of a negative confidence level is #NUM!", "STATISTICAL!V39"),
    ("FORECAST.ETS.STAT MASE of an exact fit is 0", "STATISTICAL!R41"),
    ("FORECAST.ETS.STAT RMSE of an exact fit is 0", "STATISTICAL!U41"),
    ("FORECAST.ETS.STAT 8 is the timeline's step", "STATISTICAL!V41"),
    ("FORECAST.ETS.STAT of statistic 0 is #NUM!", "STATISTICAL!W41"),
    ("FORECAST.ETS.STAT of FALSE is #NUM!", "STATISTICAL!Y41"),
]

#: Equal before ets.py too (`formulas` checks these arguments before it needs statsmodels):
#: kept equal.
KEPT = [
    ("FORECAST.ETS passes an error target on", "STATISTICAL!AC38"),
    ("FORECAST.ETS.SEASONALITY with data_completion 2 is #NUM!", "STATISTICAL!S40"),
    ("FORECAST.ETS.SEASONALITY with data_completion -1 is #NUM!", "STATISTICAL!V40"),
    ("FORECAST.ETS.SEASONALITY with a date text data_completion is #NUM!", "STATISTICAL!X40"),
]

#: Legacy array formulas over a range of single-value arguments: every cell Excel's.
ARRAY_EQUAL = [
    ("FORECAST.ETS.CONFINT over a range of confidence levels", "STATISTICAL!AH39"),
    ("FORECAST.ETS.STAT over a range of statistic types", "STATISTICAL!AH41"),
]

#: (class, cell): Excel's number depends on its undocumented fit: answered #NAME?, never a
#: near miss (in a book Excel calculated, the check then lists the cell stale: the corpus
#: measure, bench/excel_corpus.py, counts them flagged).
NOT_COMPUTED = [
    ("FORECAST.ETS of a target between the timeline's grid points", "STATISTICAL!S38"),
    ("FORECAST.ETS.SEASONALITY (Excel's detection)", "STATISTICAL!R40"),
]


@pytest.mark.parametrize(("case", "address"), EQUAL + KEPT, ids=[f"{c[0]}:{c[1]}" for c in EQUAL + KEPT])
def test_computed_as_excel_does(case, address, tmp_path):
    assert_cell_as_excel(case, _F, address, tmp_path, strict=True)


@pytest.mark.parametrize(("case", "address"), ARRAY_EQUAL, ids=[f"{c[0]}:{c[1]}" for c in ARRAY_EQUAL])
def test_array_formula_computed_as_excel_does(case, address, tmp_path):
    assert_array_as_excel(case, _F, address, tmp_path, strict=True)


@pytest.mark.parametrize(("case", "address"), NOT_COMPUTED, ids=[f"{c[0]}:{c[1]}" for c in NOT_COMPUTED])
def test_no_number_where_excel_fits_a_model(case, address, tmp_path):
    from rates_xl.calc.engines.formualizer.values import is_error

    path, sheet, cell = reproduce(_F, address, tmp_path)
    ours, _flagged = computed(path, sheet, cell)
    assert isinstance(excel_value(_F, address), int | float), "Excel's answer here is a number"
    assert is_error(ours) or (isinstance(ours, str) and ours.startswith("#")), \
        f"{case}: {address} gave {ours!r}, a number Excel's fit may not give"


def test_the_engine_answers_no_number_it_cannot_reproduce():
    """Straight to the callbacks, at inputs the corpus does not have: a series that is not
    exactly seasonal, an auto-detected seasonality and alpha are not computed (#NAME?, which
    the check lists); the argument checks still answer Excel's errors."""
    from rates_xl.calc.engines.formualizer.values import error
    from rates_xl.calc.xlfuncs import callbacks
    from rates_xl.calc.xlfuncs.omitted import OMITTED

    found = callbacks({})
    ets, stat = found["FORECAST.ETS"], found["FORECAST.ETS.STAT"]
    times = [[1, 2, 3, 4, 5, 6, 7, 8, 9]]
    seasonal = [[1, 2, 3, 2, 1, 2, 3, 2, 1]]
    trending = [[1, 2, 3, 4, 5, 6, 7, 8, 9.5]]
    assert ets(11, seasonal, times, 4, 1, OMITTED) == 3
    assert ets(11, trending, times, 4, 1, OMITTED) == error("#NAME?")
    assert ets(11, seasonal, times, OMITTED, OMITTED, OMITTED) == error("#NAME?")  # detection
    assert ets(11, seasonal, [[1, 2, 3]], 4, 1, OMITTED) == error("#N/A")  # sizes differ
    assert ets(11, seasonal, [[1, 2, 3, 4, 5, 6, 7, 8, 9.5]], 4, 1, OMITTED) == error("#NAME?")  # no one step
    assert ets(11, seasonal, times, 8761, 1, OMITTED) == error("#NUM!")
    assert ets(11, seasonal, times, 4, 1, 8) == error("#NUM!")  # aggregation 1..7
    assert stat(seasonal, times, 1, 4, 1, OMITTED) == error("#NAME?")  # alpha: Excel's fit
    # Empty cells where Excel may read 0 or the default: not measured, so not computed.
    assert ets(11, seasonal, times, 4, 1, None) == error("#NAME?")
    gapped = [[1, 3, 4, 5, 6, 7, 8, 9, 10]]
    assert ets(11, seasonal, gapped, 4, None, OMITTED) == error("#NAME?")
    assert ets(15, [[1, 3, 2, 1, 2, 3, 2, 1, 2]], gapped, 4, 1, OMITTED) == 3  # t=2 interpolated
    assert stat(seasonal, [[2, 4, 6, 8, 10, 12, 14, 16, 18]], 8, 4, 1, OMITTED) == 2
