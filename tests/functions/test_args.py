"""Coercion of what Excel really passes (pure: no service involved)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import numpy as np
import pytest

from rates_xl.functions import args
from rates_xl.functions.args import ArgProblem


@pytest.mark.parametrize(
    "value, expected",
    [
        (46023, date(2026, 1, 1)),  # unformatted date cell: a serial number
        (46023.0, date(2026, 1, 1)),  # ... as xlwings passes it, a whole-number float
        (46023.75, date(2026, 1, 1)),  # a date-time serial: the date part
        (datetime(2026, 1, 1), date(2026, 1, 1)),  # date-formatted cell
        (date(2026, 3, 2), date(2026, 3, 2)),
        ("2026-01-01", date(2026, 1, 1)),
        ("  2026-01-01 ", date(2026, 1, 1)),
        ("10y", "10Y"),
        (" 10 y ", "10Y"),
        ("0D", "0D"),
        ("18m", "18M"),
        ("2w", "2W"),
    ],
)
def test_date_or_tenor_accepts_what_cells_hold(value, expected):
    assert args.date_or_tenor(args.scalar(value)) == expected


@pytest.mark.parametrize(
    "value, fragment",
    [
        ("10X", "'10X' is not a date or a tenor like 10Y"),
        (10.0, "10 is not a date or a tenor like 10Y"),  # a tenor typed without its unit
        ("01/02/2026", "ambiguous"),
        (True, "TRUE is not a date or a tenor"),
        ("Y10", "not a date or a tenor"),
        ("2026-13-01", "not a date or a tenor"),
    ],
)
def test_date_or_tenor_refuses_with_what_was_expected(value, fragment):
    with pytest.raises(ArgProblem, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        args.date_or_tenor(args.scalar(value))


def test_serial_numbers_follow_excel_1900_system():
    assert args.serial_to_datetime(46023) == datetime(2026, 1, 1)
    assert args.serial_to_datetime(45658.5) == datetime(2025, 1, 1, 12, 0)
    assert args.serial_of(date(2026, 1, 1)) == 46023
    for day in (date(1950, 1, 1), date(2000, 2, 29), date(2199, 12, 31)):
        assert args.serial_to_datetime(args.serial_of(day)).date() == day


def test_date_only_refuses_tenors():
    assert args.date_only(46023.0) == date(2026, 1, 1)
    with pytest.raises(ArgProblem, match="is a tenor; this argument takes a date"):
        args.date_only("1M")


def test_timestamps_keep_time_and_are_utc():
    assert args.timestamp(datetime(2026, 1, 2, 16, 30)) == datetime(2026, 1, 2, 16, 30, tzinfo=UTC)
    assert args.timestamp(46023.5) == datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    assert args.timestamp("2026-01-01T16:00:00Z") == datetime(2026, 1, 1, 16, tzinfo=UTC)
    assert args.timestamp("2026-01-01") == datetime(2026, 1, 1, tzinfo=UTC)
    with pytest.raises(ArgProblem, match="not a date-time"):
        args.timestamp("5Y")


@pytest.mark.parametrize("value", [None, "", "   ", [], [[None]], [[""], [None]], np.array([])])
def test_empty_cells_are_not_given(value):
    assert args.scalar(value) is None


def test_one_cell_ranges_and_numpy_values_unwrap():
    assert args.scalar([["SOFR"]]) == "SOFR"
    assert args.scalar(np.float64(46023.0)) == 46023.0
    assert args.scalar(np.array([["5Y"]])) == "5Y"
    with pytest.raises(ArgProblem, match="got a range of 3 values"):
        args.scalar([["SOFR"], ["ESTR"], ["SONIA"]])


@pytest.mark.parametrize("value", ["#N/A", "#VALUE!", "#DIV/0!", "#RATES! index: bad", -2146826246])
def test_error_inputs_are_named(value):
    with pytest.raises(ArgProblem, match="the input is an error"):
        args.scalar(value)


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_non_finite_numbers(value):
    with pytest.raises(ArgProblem, match="not a usable number"):
        args.scalar(value)


@pytest.mark.parametrize(
    "value, expected",
    [(True, True), (False, False), (1.0, True), (0.0, False), (1, True), ("TRUE", True),
     (" false ", False), ("yes", True), ("0", False)],
)
def test_booleans(value, expected):
    assert args.boolean(value) is expected


@pytest.mark.parametrize("value", [2.0, 0.5, "maybe", datetime(2026, 1, 1)])
def test_booleans_refused(value):
    with pytest.raises(ArgProblem, match="is not TRUE or FALSE"):
        args.boolean(value)


@pytest.mark.parametrize(
    "value, expected",
    [("sofr", "SOFR"), ("  Sofr ", "SOFR"), ("3m euribor", "3M EURIBOR"), ("3M  EURIBOR", "3M EURIBOR"),
     ("3MEURIBOR", "3M EURIBOR"), ("fed funds", "Fed Funds"), ("€STR", "ESTR"), ("estr", "ESTR"),
     ("3m saibor", "3M SAIBOR"), ("saron", "SARON"),
     # unknown names pass as typed (spaces tidied): the service's 422 speaks for them
     ("My Index", "My Index"), ("6M  PRIBOR", "6M PRIBOR")],
)
def test_index_names_open_list_with_case_slips_fixed(value, expected):
    assert args.index(value) == expected


@pytest.mark.parametrize("value", [5.0, True, "!!", "12345", "x" * 60, "SOFR;DROP", datetime(2026, 1, 1)])
def test_index_shape_refused(value):
    with pytest.raises(ArgProblem, match="is not an index name like SOFR"):
        args.index(value)


@pytest.mark.parametrize(
    "value, expected",
    [("3m", "3M"), ("12M", "12M"), ("1y", "1Y"), ("Quarterly", "3M"), ("semi-annual", "6M"),
     ("annual", "1Y"), ("monthly", "1M")],
)
def test_frequencies(value, expected):
    assert args.frequency(value) == expected


@pytest.mark.parametrize("value", ["0M", "3", 3.0, "fortnightly", "3X"])
def test_frequencies_refused(value):
    with pytest.raises(ArgProblem, match="is not a frequency like 3M"):
        args.frequency(value)


def test_tenors():
    assert args.tenor(" 3m ") == "3M"
    for bad in ("0Y", "3", 10.0, "10YY"):
        with pytest.raises(ArgProblem):
            args.tenor(bad)


@pytest.mark.parametrize(
    "value, expected",
    [("actual360", "Actual360"), ("ACT/360", "Actual360"), ("Act/365F", "Actual365Fixed"),
     ("actual 365 fixed", "Actual365Fixed"), ("30/360", "Thirty360BondBasis"),
     ("thirty360bondbasis", "Thirty360BondBasis"), ("Thirty360EurobondBasis", "Thirty360EurobondBasis")],
)
def test_day_counts(value, expected):
    assert args.day_count(value) == expected


@pytest.mark.parametrize("value", ["Act/999", 360.0, "Actual"])
def test_day_counts_refused(value):
    with pytest.raises(ArgProblem, match="is not a day count like Actual360"):
        args.day_count(value)


@pytest.mark.parametrize("value, expected", [("eurusd", "EURUSD"), ("EUR/USD", "EURUSD"), (" eur usd ", "EURUSD")])
def test_currency_pairs(value, expected):
    assert args.currency_pair(value) == expected


@pytest.mark.parametrize("value, fragment", [("EURUS", "not a currency pair"), ("EUR/USD/X", "not a currency pair"),
                                             ("EUREUR", "same currency twice"), (1.17, "not a currency pair")])
def test_currency_pairs_refused(value, fragment):
    with pytest.raises(ArgProblem, match=fragment):
        args.currency_pair(value)


def test_countries():
    assert args.country(" us ") == "US"
    assert args.country("gb") == "GB"  # the service accepts GB beside UK
    assert args.country("DEU") == "DE"
    for bad in ("Germany", "U", 1.0):
        with pytest.raises(ArgProblem, match="is not a country code like US"):
            args.country(bad)
