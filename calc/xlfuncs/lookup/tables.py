"""A VLOOKUP/HLOOKUP table that many calls search (one read by every lookup of a column,
calc/engines/formualizer/lookups.py): its first values read once, and an index from a value
to the first place it stands, for the exact match, instead of a scan in every call
(poi_StructuredRefs-lots-with-lookups.xlsx: 1,730 calls over one 3,800-row table).

The index answers exactly what the scan (lookups.py `_exact`, `position` with match mode 2
for text, 0 otherwise) answers, or leaves the question to it:

- a number (an empty lookup value is 0) finds the first number equal to it (`==` on Python's
  numbers, as the scan compares: never a boolean, a text "1", a date; NaN nothing);
- a boolean finds the first boolean equal to it (never 1 or 0);
- a text without a wildcard character (`*`, `?`, `~`) finds the first text equal to it in
  Python's `re.IGNORECASE`, which the scan uses: for ASCII text that is ASCII case-folding
  (index by `str.lower`), but a few other characters fold onto ASCII letters (the Kelvin sign
  onto "k", "İ" onto "i", "ſ" onto "s"), so a text outside ASCII in the table is tried
  with the scan's own pattern where it stands before the index's answer;
- anything else (a text with a wildcard, a text outside ASCII, a date) is the scan's.

tests/calc/test_lookup_index.py compares the two on hostile mixes.
"""

from __future__ import annotations

import threading

from rates_xl.calc.xlfuncs.lookup.lookups import Scanned, _exact, _wildcard, approximate
from rates_xl.calc.xlfuncs.types import EngineScalar, EngineValue


class _Index:
    """The first position of each value in a table's first values, by the kind of value."""

    def __init__(self, keys: list[EngineScalar]) -> None:
        self.numbers: dict[float | int, int] = {}
        self.booleans: dict[bool, int] = {}
        self.texts: dict[str, int] = {}  # ASCII text, by its lower case
        self.others: dict[int, list[int]] = {}  # text outside ASCII: positions by length
        for i, v in enumerate(keys):
            if type(v) is float or type(v) is int:  # the scan's test: not a boolean
                if v == v:  # NaN equals nothing
                    self.numbers.setdefault(v, i)
            elif type(v) is bool:
                self.booleans.setdefault(v, i)
            elif type(v) is str and v.isascii():
                self.texts.setdefault(v.lower(), i)
            elif isinstance(v, str):
                self.others.setdefault(len(v), []).append(i)


class Indexed(Scanned):
    """`Scanned` for a table many calls search: its first values and its index built once, on
    first use, by whichever thread comes first (the engine calls from several)."""

    def __init__(self, table: EngineValue, by_rows: bool) -> None:
        super().__init__(table, by_rows)
        self._lock = threading.Lock()
        self._keys: list[EngineScalar] | None = None
        self._index: _Index | None = None

    def keys(self) -> list[EngineScalar]:
        keys = self._keys
        if keys is None:
            with self._lock:
                if self._keys is None:
                    self._keys = [line[0] for line in self.lines]
                keys = self._keys
        return keys

    def index(self) -> _Index:
        index = self._index
        if index is None:
            keys = self.keys()
            with self._lock:
                if self._index is None:
                    self._index = _Index(keys)
                index = self._index
        return index

    def approximate(self, value: EngineScalar) -> int | None:
        return approximate(value, self.keys())

    def exact(self, value: EngineScalar) -> int | None:
        if value is None:
            value = 0.0
        if type(value) is float or type(value) is int:
            return self.index().numbers.get(float(value))  # the scan's float(), its errors too
        if type(value) is bool:
            return self.index().booleans.get(value)
        if type(value) is str and value.isascii() and not any(c in value for c in "*?~"):
            return self._text(value)
        return _exact(value, self.keys())

    def _text(self, value: str) -> int | None:
        index = self.index()
        found = index.texts.get(value.lower())
        others = index.others.get(len(value))
        if others:
            pattern = _wildcard(value)
            keys = self.keys()
            for i in others:
                if found is not None and i > found:
                    break
                text = keys[i]
                if isinstance(text, str) and pattern.fullmatch(text):
                    return i
        return found
