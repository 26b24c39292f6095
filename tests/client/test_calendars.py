"""The one calendar table: the client's shipped holidays are QuantLib's, day by day, and the
sandbox prices and publishes history on the same calendars."""

from __future__ import annotations

import json
from datetime import date, timedelta
from importlib import resources

import pytest

from rates_xl.client import calendars
from rates_xl.functions.args import KNOWN_INDEXES

ql = pytest.importorskip("QuantLib")


def test_the_shipped_data_is_quantlibs():
    shipped = json.loads(resources.files("rates_xl.client").joinpath(calendars.DATA).read_text())
    fresh = calendars.quantlib_data()
    # The holidays and weekends (the source line names the QuantLib that wrote the file).
    assert shipped["calendars"] == fresh["calendars"], (
        "the calendars moved in this QuantLib: run python -m rates_xl.client.calendars")
    assert (shipped["first_year"], shipped["last_year"]) == (calendars.FIRST_YEAR, calendars.LAST_YEAR)


@pytest.mark.parametrize("name", list(calendars.CALENDARS))
def test_every_day_agrees_with_quantlib(name):
    """Not only the holiday list: every day of three decades, weekends included."""
    mine, theirs = calendars.calendar(name), calendars.quantlib(name)
    day, last = date(2000, 1, 1), date(2030, 12, 31)
    wrong = []
    while day <= last:
        if mine.is_business_day(day) != theirs.isBusinessDay(ql.Date(day.day, day.month, day.year)):
            wrong.append(day)
        day += timedelta(days=1)
    assert wrong == []


def test_known_holidays():
    sofr = calendars.index_calendar("SOFR")
    assert not sofr.is_business_day(date(2025, 7, 4))  # Independence Day
    assert not sofr.is_business_day(date(2025, 4, 18))  # Good Friday: SIFMA closes
    assert sofr.is_business_day(date(2025, 7, 3))
    assert not calendars.index_calendar("ESTR").is_business_day(date(2025, 5, 1))  # TARGET
    saibor = calendars.index_calendar("3M SAIBOR")
    assert saibor.weekend == {4, 5}  # Friday and Saturday
    assert saibor.is_business_day(date(2025, 6, 1))  # a Sunday
    assert list(sofr.business_days(date(2025, 7, 3), date(2025, 7, 8))) == [
        date(2025, 7, 3), date(2025, 7, 7), date(2025, 7, 8)]


def test_every_index_the_sandbox_prices_reads_its_calendar_from_the_table():
    from rates_xl.sandbox import conventions as cv

    for name, conv in cv.INDEXES.items():
        assert conv.calendar.name() == calendars.quantlib(calendars.INDEX_CALENDARS[name]).name(), name
    for country, gov in cv.GOVERNMENTS.items():
        assert gov.calendar.name() == calendars.quantlib(calendars.GOVERNMENT_CALENDARS[country]).name()


def test_the_table_names_only_indexes_the_client_knows():
    assert set(calendars.INDEX_CALENDARS) <= set(KNOWN_INDEXES)
    assert set(calendars.INDEX_CALENDARS.values()) <= set(calendars.CALENDARS)
    assert calendars.index_calendar("3M STIBOR").name == "Sweden"
    assert calendars.index_calendar("NO SUCH INDEX") is None


def test_spellings():
    assert calendars.calendar_name("target") == "TARGET"
    assert calendars.calendar_name(" uk ") == "UnitedKingdom"
    assert calendars.calendar_name("Mars") is None
    with pytest.raises(KeyError):
        calendars.calendar("Mars")
    assert calendars.calendar("us").name == "FederalReserve"
