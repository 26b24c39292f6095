"""The exact-match search's fast paths (calc/xlfuncs/lookup/lookups.py `position`: a length check before
the pattern, numbers compared without keys) find what the plain search finds, for any mix of
types, cases, wildcards and errors."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rates_xl.calc.engines.formualizer.values import is_error
from rates_xl.calc.xlfuncs.lookup import lookups as lookup

CELLS = [1.0, 2, 2.0, -0.0, True, False, None, "a", "A", "ab", "ß", "ss", "SS", "a*", "*", "?", "~*",
         {"type": "Error", "kind": "Na"}, "", "1", 3.5, "ǅ", "ǆ", "K", "k"]


def _plain(value, values, match_mode, search_mode):
    target = lookup._key(value)
    order = range(len(values)) if search_mode == 1 else range(len(values) - 1, -1, -1)
    if match_mode == 2 and isinstance(value, str):
        pattern = lookup._wildcard(value)
        return next((i for i in order if isinstance(values[i], str) and pattern.fullmatch(values[i])), None)
    return next((i for i in order if values[i] is not None and not is_error(values[i])
                 and lookup._key(values[i]) == target), None)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(CELLS), max_size=10),
       st.sampled_from([c for c in CELLS if c is not None and not isinstance(c, dict)]), st.sampled_from([1, -1]))
def test_the_fast_paths_find_what_the_plain_search_finds(values, value, search_mode):
    mode = 2 if isinstance(value, str) else 0
    assert lookup.position(value, values, mode, search_mode) == _plain(value, values, mode, search_mode)
