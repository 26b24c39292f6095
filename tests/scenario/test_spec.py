"""The scenario grammar: what it reads, its canonical text, the key-rate triangles, and one
line for each spec it refuses (scenario/spec.py)."""

from __future__ import annotations

import pytest

from rates_xl.scenario.spec import DEFAULT_BUCKETS, SpecError, parse, parse_buckets, tenor_years


@pytest.mark.parametrize(("spec", "canonical"), [
    ("SOFR+1bp", "SOFR+1bp"),
    ("*+25bp", "*+25bp"),
    ("  sofr - 0.5 BP ", "sofr-0.5bp"),
    ("SOFR:10y+1bp", "SOFR:10Y+1bp"),
    ("3M EURIBOR:5Y-2bp", "3M EURIBOR:5Y-2bp"),
    ("SOFR:2Y-5bp, SOFR:10Y+5bp", "SOFR:2Y-5bp,SOFR:10Y+5bp"),
    ("*:30Y+1bp,ESTR+3bp", "*:30Y+1bp,ESTR+3bp"),
    ("SOFR+0bp", "SOFR+0bp"),
])
def test_specs_read_and_print_one_way(spec, canonical):
    scenario = parse(spec)
    assert scenario.text == canonical
    assert parse(scenario.text) == scenario  # the canonical text reads back the same


def test_parallel_key_rate_and_twist_amounts():
    assert parse("SOFR+1bp").shift_bp("SOFR", 7.3) == 1.0
    assert parse("SOFR+1bp").shift_bp("ESTR", 7.3) == 0.0
    assert parse("*-25bp").shift_bp("ESTR", 0.1) == -25.0
    key = parse("SOFR:10Y+1bp")
    assert key.shift_bp("SOFR", 10) == 1.0
    assert key.shift_bp("SOFR", 5) == 0.0 and key.shift_bp("SOFR", 30) == 0.0
    assert key.shift_bp("SOFR", 7.5) == pytest.approx(0.5)
    assert key.shift_bp("SOFR", 20) == pytest.approx(0.5)
    assert parse("SOFR:1Y+1bp").shift_bp("SOFR", 1 / 365) == 1.0  # the first bucket is flat below it
    assert parse("SOFR:30Y+1bp").shift_bp("SOFR", 50) == 1.0  # the last, flat above it
    twist = parse("SOFR:2Y-5bp,SOFR:10Y+5bp")
    assert twist.shift_bp("SOFR", 2) == -5.0 and twist.shift_bp("SOFR", 10) == 5.0
    assert twist.shift_bp("SOFR", 6) == pytest.approx(-5 * 0.0 + 5 * 0.2)


@pytest.mark.parametrize("years", [0.001, 0.5, 1, 1.5, 2, 3.7, 5, 9.99, 10, 17, 30, 45])
def test_the_buckets_add_up_to_the_parallel_shift_at_every_maturity(years):
    total = sum(parse(f"SOFR:{b}+1bp").shift_bp("SOFR", years) for b in DEFAULT_BUCKETS)
    assert total == pytest.approx(1.0, abs=1e-12)
    grid = "3M,2Y,7Y,50Y"
    assert sum(parse(f"SOFR:{b}+1bp", grid).shift_bp("SOFR", years) for b in grid.split(",")) == \
        pytest.approx(1.0, abs=1e-12)


def test_buckets_are_sorted_and_a_bucket_off_the_grid_is_refused():
    assert parse_buckets("10Y, 1Y,5Y") == ("1Y", "5Y", "10Y")
    assert parse("SOFR:7Y+1bp", "2Y,7Y,10Y").buckets == ("2Y", "7Y", "10Y")
    assert tenor_years("18M") == 1.5
    with pytest.raises(SpecError, match="7Y is not one of the buckets"):
        parse("SOFR:7Y+1bp")
    assert parse("SOFR:24M+1bp", "1Y,2Y").shifts[0].bucket == "2Y"  # the grid's spelling


@pytest.mark.parametrize(("spec", "says"), [
    ("", "empty scenario"),
    ("SOFR", "expected an index (or *), a sign and an amount in bp"),
    ("SOFR 1bp", "expected an index (or *), a sign and an amount in bp"),
    ("SOFR+1", "the amount is in bp (no unit given)"),
    ("SOFR+1%", "the amount is in bp ('%' given)"),
    ("SOFR+1bps", "the amount is in bp ('bps' given)"),
    ("+1bp", "name the index before the amount"),
    ("SOFR+5000bp", "more than the 1000 bp a scenario may shift"),
    ("SOFR+1bp,", "an empty shift between commas"),
    ("SOFR+1bp,SOFR+2bp", "shift the same curve: give it once"),
    ("SOFR:10Y+1bp,SOFR:10Y-1bp", "shift the same bucket: give it once"),
    ("SOFR:+1bp", "a bucket after ':' such as 10Y"),
    ("SOFR:10X+1bp", "the bucket '10X' is not a tenor"),
    ("SOFR:2Y:10Y+1bp", "one bucket per shift"),
    ("SO<FR+1bp", "is not an index name"),
    ("SOFR+1e3bp", "a sign and an amount in bp"),
    ("SOFR++1bp", "is not an index name"),
])
def test_a_malformed_spec_is_refused_in_one_line(spec, says):
    with pytest.raises(SpecError) as caught:
        parse(spec)
    message = str(caught.value)
    assert says in message, message
    assert "\n" not in message and len(message) < 300


@pytest.mark.parametrize(("buckets", "says"), [
    ("", "give tenors separated by commas"),
    ("1Y,,2Y", "give tenors separated by commas"),
    ("1Y,12M", "1Y and 12M are the same bucket"),
    ("1Y,0D", "0D is no length of time"),
    ("1Y,soon", "is not a tenor"),
])
def test_bad_buckets_are_one_line(buckets, says):
    with pytest.raises(SpecError, match=says):
        parse_buckets(buckets)
