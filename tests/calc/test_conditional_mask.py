"""The SUMIF family's criteria over a whole range at once (`conditional.mask`, numpy) say
exactly what the per-cell definition (`conditional.criterion`) says, for every kind of
criterion and cell Excel has; and the functions answer as before over ranges of every shape."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rates_xl.calc.xlfuncs import callbacks
from rates_xl.calc.xlfuncs.statistical import conditional

ERRORS = [{"type": "Error", "kind": kind} for kind in ("Div", "Na", "Value")]
CELLS = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False, width=32),
    st.sampled_from(["", "a", "A", "abc", "ABC", "b", "5", " 5 ", "2.5", "x*y", "nan", "inf", "TRUE",
                     "2024-01-10", "50%", "(5)"]),
    st.sampled_from(ERRORS))
CRITERIA = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False, width=32), st.sampled_from(ERRORS),
    st.builds(lambda op, operand: op + operand,
              st.sampled_from(["", "=", "<>", "<", ">", "<=", ">="]),
              st.sampled_from(["", "a", "ABC", "a*", "?bc", "~*", "x~*y", "*", "5", "2.5", "-1", "TRUE",
                               "false", "nan", "b", "2024-01-10", "50%", "12:00"])))


@settings(max_examples=400, deadline=None)
@given(st.lists(CELLS, max_size=12), CRITERIA)
def test_mask_is_the_criterion_cell_by_cell(cells, value):
    test = conditional.criterion(value)
    assert conditional.mask(cells, value).tolist() == [test(cell) for cell in cells]


def _reference_sumif(rng, crit, target):
    """SUMIF spelt out cell by cell (same-shape ranges): the first error among the matching
    summed cells, else the sum of their numbers."""
    test = conditional.criterion(crit)
    total = 0.0
    for line, summed in zip(rng, target, strict=True):
        for cell, value in zip(line, summed, strict=True):
            if test(cell):
                if isinstance(value, dict):
                    return value
                if isinstance(value, int | float) and not isinstance(value, bool):
                    total += value
    return total


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 8).flatmap(lambda rows: st.tuples(
    st.lists(st.lists(CELLS, min_size=2, max_size=2), min_size=rows, max_size=rows),
    st.lists(st.lists(CELLS, min_size=2, max_size=2), min_size=rows, max_size=rows))), CRITERIA)
def test_sumif_over_a_two_column_range(ranges, crit):
    rng, target = ranges
    assert callbacks()["SUMIF"](rng, crit, target) == _reference_sumif(rng, crit, target)


def test_sum_range_read_at_the_criteria_range_shape():
    sumif = callbacks()["SUMIF"]
    # A one-cell sum range stands for the range of the criteria range's shape from there:
    # the cells beyond what the engine handed over are empty.
    assert sumif([["a"], ["b"], ["a"]], "a", [[4.0]]) == 4.0
    assert sumif([["a"], ["b"], ["a"]], "a", [[1.0], [2.0], [3.0], [100.0]]) == 4.0
    assert sumif([["a"], ["b"]], "<>a", [[1.0], [{"type": "Error", "kind": "Div"}]]) == {"type": "Error", "kind": "Div"}
    assert callbacks()["COUNTIFS"]([[1], [2], [3]], ">1", [["x"], ["y"], ["x"]], "x") == 1
    assert callbacks()["AVERAGEIFS"]([[1.0], [3.0]], [["a"], ["b"]], "c") == {"type": "Error", "kind": "Div"}


def test_text_criteria_over_a_range_seen_before_answer_as_the_definition():
    """The positions of each text kept per range (`_text_positions`): asked again over the same
    range, over one equal to it as a tuple (True == 1, 1 == 1.0) and over one with an error
    (not kept), every criterion still says what the per-cell definition says."""
    base = [f"item{i % 7}" for i in range(300)] + ["ITEM1", "", None, 1, 1.0, True, "Item3"]
    ranges = [base, base[:-3] + [True, 1, 1], list(base), base + [ERRORS[0]]]
    for cells in ranges * 2:
        for value in ("item1", "=ITEM3", "<>item0", "item9", "", "<>"):
            test = conditional.criterion(value)
            assert conditional.mask(cells, value).tolist() == [test(cell) for cell in cells]


def test_a_date_time_or_percentage_criterion_is_the_number_excel_reads():
    """Excel reads a criterion's text as VALUE reads it: "<2024-01-05" is "<45296", so every
    number below it counts, a date or not; "<12:00" is "<0.5", "<50%" "<0.5". The criterion was
    compared as text with the text cells alone: COUNTIF gave 0 (Excel: 4), silently. A date
    whose reading depends on the locale ("1/5/2024", "$5") is #NAME?: not computed, listed."""
    count = callbacks()["COUNTIF"]
    cells = [[1.0], [2.0], [100.0], [45294.0], [45301.0], ["apple"], ["2024-01-10"], [True], [0.25]]
    assert count(cells, "<2024-01-05") == 5  # 1, 2, 100, 45294 (3 January 2024), 0.25
    assert count(cells, ">=2024-01-10") == 1
    assert count(cells, "2024-01-10") == 2  # the date, and the text that reads as it (as "5" does)
    assert count(cells, "<12:00") == count(cells, "<50%") == count(cells, "<0.5") == 1
    assert count(cells, "<1/5/2024") == count(cells, ">$5") == {"type": "Error", "kind": "Name"}
    assert count(cells, "apple") == 1 and count(cells, "<b") == 2  # text stays text
    # a locale's date matched by "=" over text alone: the same cells either way (STATISTICAL!X24)
    assert count([["29/02/1900"], [True], ["x"]], "29/02/1900") == 1
    assert count([["29/02/1900"], [60.0]], "29/02/1900") == {"type": "Error", "kind": "Name"}
