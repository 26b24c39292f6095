"""The index a table searched by many lookups gets (calc/xlfuncs/lookup/tables.py `Indexed`)
finds what the scan (`_exact`, `approximate` over the table's first values) finds, for every
mix of numbers, booleans, text in any case, text that folds onto ASCII in `re`'s case rules,
wildcards, duplicates, blanks and errors; VLOOKUP and HLOOKUP read the table's rows and
columns alike; and the engine's tables drop a token's index with its values."""

from __future__ import annotations

import datetime
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rates_xl.calc.engines.formualizer.lookups import Tables
from rates_xl.calc.xlfuncs.lookup import lookups, tables

NA = {"type": "Error", "kind": "Na"}
DIV = {"type": "Error", "kind": "Div"}
# Hostile first values: 1 / 1.0 / True / "1", -0.0 / 0 / False / blank / "", case, the
# characters `re.IGNORECASE` folds onto ASCII letters (Kelvin sign, dotted I, dotless i, long
# s), text equal after str.casefold only ("ß", "ss"), wildcards as data, errors, NaN, a huge
# integer no float holds exactly, a date.
CELLS = [1.0, 1, True, "1", "1.0", 0.0, -0.0, 0, False, None, "", " ", "a", "A", "ab", "AB", "aB",
         "k", "K", "\u212a", "kate", "\u212aATE", "i", "I", "\u0130", "\u0131", "is", "\u0130S",
         "s", "\u017f", "ss", "SS", "\u00df", "stra\u00dfe", "STRASSE", "\u00e9", "\u00c9",
         "a*", "*", "?", "~", "~*", "a?c", "abc", NA, DIV, float("nan"), 2**53 + 1,
         float(2**53), 3.5, -7, "TRUE", datetime.date(2020, 1, 1), "2020-01-01"]
VALUES = [c for c in CELLS if not isinstance(c, dict)] + ["KATE", "Kate", "\u212a", "IS", "S", "STRASSE",
                                                         "a*", "a?c", "~", "", "\u00e9"]


def _first_values(table, by_rows):
    return [row[0] for row in table] if by_rows else list(table[0])


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(CELLS), min_size=1, max_size=14), st.sampled_from(VALUES))
def test_the_index_finds_what_the_scan_finds(keys, value):
    indexed = tables.Indexed([[k, i] for i, k in enumerate(keys)], by_rows=True)
    assert indexed.exact(value) == lookups._exact(value, keys)
    assert indexed.approximate(value) == lookups.approximate(value, keys)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(CELLS), min_size=1, max_size=14), st.lists(st.sampled_from(VALUES), max_size=8))
def test_one_index_answers_many_questions(keys, values):
    """Built on the first question, it answers every later one as the scan does."""
    indexed = tables.Indexed([list(keys), list(range(len(keys)))], by_rows=False)  # HLOOKUP's row
    assert [indexed.exact(v) for v in values] == [lookups._exact(v, keys) for v in values]


@pytest.mark.parametrize(("keys", "value", "expected"), [
    ([True, 1, "1", 1.0], 1.0, 1),  # a boolean is not 1, nor the text "1"
    ([1, "1", True], True, 2),
    ([1.0, True, "1"], "1", 2),
    ([None, "", 0.0], None, 2),  # an empty lookup value is 0: not a blank, not empty text
    (["b", "B", "b"], "B", 0),  # the first of duplicates, whatever the case
    (["\u212a", "k"], "K", 0),  # the Kelvin sign folds onto k in re's case rules
    (["k", "\u212a"], "K", 0),
    (["\u0131s", "IS"], "is", 0),  # so do the dotless i, the dotted I and the long s
    (["\u0130s", "IS"], "is", 0),
    (["S", "\u017f"], "\u017f", 0),
    (["stra\u00dfe", "STRASSE"], "strasse", 1),  # casefold would say the first
    (["abc", "a*"], "a*", 0),  # a wildcard: the scan's
    (["a*", "abc"], "a~*", 0),
    ([float("nan"), 1.0], float("nan"), None),
    ([2**53 + 1, float(2**53)], float(2**53), 1),  # Python compares int and float exactly
    ([NA, "x"], "x", 1),
])
def test_hostile_cases(keys, value, expected):
    indexed = tables.Indexed([[k] for k in keys], by_rows=True)
    assert lookups._exact(value, keys) == expected  # the scan, as Excel's rules are written there
    assert indexed.exact(value) == expected


def test_vlookup_over_a_token_answers_as_over_the_table():
    """The engine's VLOOKUPIN/HLOOKUPIN path (a token standing for the table) against the
    plain VLOOKUP/HLOOKUP over the same rows, every mode and column, errors included."""
    rows = [[k, i * 10, None if i % 3 == 0 else f"v{i}"] for i, k in enumerate(CELLS)]
    kept = Tables()
    token = kept.keep(rows, 1)
    columns = [list(c) for c in zip(*rows, strict=True)]
    htoken = kept.keep(columns, 2)
    for by_rows, table, key in ((True, rows, token), (False, columns, htoken)):
        plain = lookups.table_lookup(lambda t, by_rows=by_rows: lookups.Scanned(t, by_rows))
        shared = lookups.table_lookup(lambda t, by_rows=by_rows: kept.searched(t, by_rows))
        for value in [*VALUES, NA, [[1.0, "a"]]]:
            for column in (0, 1, 2, 3, 4, "2", NA, [[1, 2]]):
                for mode in (None, False, True, 0, "x"):
                    got, want = shared(value, key, column, mode), plain(value, table, column, mode)
                    assert repr(got) == repr(want), (value, column, mode)  # repr: NaN equals itself


def test_a_tokens_index_goes_with_its_values():
    kept = Tables()
    first = kept.keep([[1.0, 2.0]] * 64, "helper")
    built = kept.searched(first, True)
    assert kept.searched(first, True) is built  # built once
    assert built.exact(1.0) == 0 and built._index is not None
    for _ in range(Tables.KEPT):
        kept.keep([[3.0, 4.0]] * 64, "helper")
    with pytest.raises(KeyError):
        kept.searched(first, True)
    assert (first, True) not in kept._searched and first not in kept._values


def test_threads_share_one_index():
    kept = Tables()
    token = kept.keep([[i, i] for i in range(5000)], "helper")
    found, start = [], threading.Barrier(4)

    def ask():
        start.wait()
        searched = kept.searched(token, True)
        found.append((id(searched), [searched.exact(float(i)) for i in range(0, 5000, 7)]))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({ident for ident, _ in found}) == 1
    assert all(answers == list(range(0, 5000, 7)) for _, answers in found)
