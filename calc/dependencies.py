"""Which formula cells depend on which, read from the formulas' references (no engine needed):
what a recalculation must recompute (the cells downstream of a RATES_* call, a volatile
function or a cell with no cached value) and what a cell found wrong makes stale.

A reference this cannot follow (a structured reference, a name defined by a formula, a
3-D reference, a range built with ':' from a function) makes its cell depend on everything:
it is recomputed whenever anything is, which costs time, never a value.
"""

from __future__ import annotations

import bisect
import collections
import re
from collections.abc import Iterable, Iterator, Mapping

from rates_xl.calc.book import Book
from rates_xl.functions.sheet import Area, Key, is_rates_name, read_area, sheet_of, split_reference
from rates_xl.functions.tokens import OTHER, function_names, range_operands

#: What a reference reads: an area of a sheet (its title as the formula writes it).
Place = tuple[str, Area]
#: Anchors covering more cells than this are indexed as rectangles, not cell by cell.
LARGE_AREA = 64

#: Quoted sheet names and text in a defined name's formula (a '(' there calls nothing).
_QUOTED = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"")
_LITERAL = re.compile(r'=?\s*(-?[\d.]+(E[+-]?\d+)?|"[^"]*"|TRUE|FALSE)\s*', re.IGNORECASE)


class Graph:
    """Formula anchors (sheet, cell) and, for each, the anchors it reads.

    Kept by range, not by cell: each distinct rectangle the formulas read is one entry with the
    anchors reading it (`_readers`), and each anchor knows the rectangles it lies in
    (`_within`). The loan tracker's 5,748 formulas read 2,626 distinct rectangles 25,550 times
    (the schedule's columns, 520 rows each, by every row): one edge per precedent cell made
    6.9 million and 30 s of building (issue 30, item 7); by rectangle the same graph is a few
    hundred thousand entries."""

    def __init__(self, book: Book, read: Mapping[Key, list[Place] | None] | None = None) -> None:
        """`read`: `references` of some anchors, found already (`read_by_any`'s scan)."""
        self.book = book
        self.cells = book.cells  # anchor -> (formula, area)
        self.unknown: set[Key] = set()  # anchors with a reference not followed
        self._index = self._build_index()
        ids: dict[tuple[str, Area], int] = {}
        self._readers: list[set[Key]] = []  # rectangle id -> the anchors reading it
        readers = self._readers
        tables, read = book.data_tables, read or {}
        for key, (formula, _area) in self.cells.items():
            # A what-if data table reads its input cells and its formula row or column through
            # substitutions no reference names: it depends on everything.
            if key in tables:
                places = None
            else:
                places = read[key] if key in read else references(formula, key[0], book)
            if places is None:
                self.unknown.add(key)
                continue
            for sheet, area in places:
                place = (sheet.upper(), area)
                number = ids.get(place)
                if number is None:
                    number = ids[place] = len(readers)
                    readers.append({key})
                else:
                    readers[number].add(key)
        self._within: dict[Key, list[int]] = collections.defaultdict(list)  # anchor -> rectangle ids
        for place, number in ids.items():
            for precedent in self._anchors_in(place):
                self._within[precedent].append(number)
        self.dependents = _Dependents(self)

    def dependents_of(self, key: Key) -> set[Key]:
        """The anchors that read `key` directly (itself left out)."""
        found: set[Key] = set()
        for number in self._within.get(key, ()):
            found |= self._readers[number]
        found.discard(key)
        return found

    def downstream(self, seeds: Iterable[Key]) -> set[Key]:
        """The seeds and every anchor that reads them, directly or not; anchors whose
        references are not all known join as soon as anything does."""
        found: set[Key] = set()
        seen: set[int] = set()  # rectangles whose readers are found already
        todo = list(seeds)
        while True:
            while todo:
                key = todo.pop()
                if key in found:
                    continue
                found.add(key)
                for number in self._within.get(key, ()):
                    if number not in seen:
                        seen.add(number)
                        todo.extend(self._readers[number])
            extra = self.unknown - found if found else set()
            if not extra:
                return found
            todo = list(extra)

    def _build_index(self) -> dict[str, dict[int, tuple[list[int], list[Key]]]]:
        """sheet -> column -> (sorted rows, the anchor each cell belongs to); large areas (a
        RATES_* spill's range grown to thousands of rows) are kept whole in `_areas`."""
        by_sheet: dict[str, dict[int, list[tuple[int, Key]]]] = collections.defaultdict(
            lambda: collections.defaultdict(list))
        self._areas: dict[str, list[tuple[int, int, int, int, Key]]] = collections.defaultdict(list)
        for key, (_formula, (r1, c1, r2, c2)) in self.cells.items():
            if (r2 - r1 + 1) * (c2 - c1 + 1) > LARGE_AREA:
                self._areas[key[0].upper()].append((r1, c1, r2, c2, key))
                continue
            for c in range(c1, c2 + 1):
                for r in range(r1, r2 + 1):
                    by_sheet[key[0].upper()][c].append((r, key))
        index: dict[str, dict[int, tuple[list[int], list[Key]]]] = {}
        for sheet, columns in by_sheet.items():
            index[sheet] = {}
            for c, entries in columns.items():
                entries.sort()
                index[sheet][c] = ([r for r, _ in entries], [k for _, k in entries])
        return index

    def _anchors_in(self, place: Place) -> set[Key]:
        sheet, (r1, c1, r2, c2) = place
        found = {key for a1, b1, a2, b2, key in self._areas.get(sheet.upper(), ())
                 if a1 <= r2 and r1 <= a2 and b1 <= c2 and c1 <= b2}
        columns = self._index.get(sheet.upper())
        if not columns:
            return found
        # The columns the rectangle spans that hold an anchor (a narrow one looks each up, a
        # wide one reads the sheet's few columns).
        spanned = [c for c in range(c1, c2 + 1) if c in columns] if c2 - c1 < len(columns) else \
            [c for c in columns if c1 <= c <= c2]
        for c in spanned:
            rows, keys = columns[c]
            lo, hi = bisect.bisect_left(rows, r1), bisect.bisect_right(rows, r2)
            found.update(keys[lo:hi])
        return found


class _Dependents(Mapping[Key, set[Key]]):
    """anchor -> the anchors reading it directly, computed when asked (`Graph.dependents`)."""

    def __init__(self, graph: Graph) -> None:
        self._graph = graph

    def __getitem__(self, key: Key) -> set[Key]:
        found = self._graph.dependents_of(key)
        if not found:
            raise KeyError(key)
        return found

    def __iter__(self) -> Iterator[Key]:
        return (key for key in self._graph._within if self._graph.dependents_of(key))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def read_by_any(book: Book, cells: set[Key], read: dict[Key, list[Place] | None]) -> bool:
    """Whether some anchor's formula reads one of `cells` (an anchor of `book`) other than
    itself: a `Graph`'s `dependents` of them, found without building it, stopping at the first
    (the references read on the way are left in `read`, for the graph built next)."""
    areas: dict[str, list[tuple[Key, Area]]] = collections.defaultdict(list)
    for key in cells:
        areas[key[0].upper()].append((key, Area(*book.cells[key][1])))
    for key, (formula, _area) in book.cells.items():
        if key in book.data_tables:
            continue  # depends on everything, reads nothing a reference names (as in `Graph`)
        read[key] = places = references(formula, key[0], book)
        for sheet, (r1, c1, r2, c2) in places or ():
            for cell, (a1, b1, a2, b2) in areas.get(sheet.upper(), ()):
                if cell != key and a1 <= r2 and r1 <= a2 and b1 <= c2 and c1 <= b2:
                    return True
    return False


def references(formula: str, sheet: str, book: Book) -> list[Place] | None:
    """The rectangles `formula` (on `sheet`) reads; None when one cannot be followed."""
    operands = range_operands(formula if formula.startswith("=") else "=" + formula)
    if operands is None:
        return None  # refused by the tokenizer
    places: list[Place] = []
    i, count = 0, len(operands)
    while i < count:
        text = operands[i]
        if text is OTHER:
            i += 1
            continue
        if text == ":":
            return None  # A1:INDEX(...): a range built at run time
        # `C14:E14:G13:I14`: plain ranges of this sheet joined by ':' read the smallest range
        # holding them all (Excel's range operator; calc/formula/operators.py).
        run = [text]
        while i + 2 < count and operands[i + 1] == ":":
            after = operands[i + 2]
            if after is OTHER or after == ":":
                break
            run.append(after)
            i += 2
        i += 1
        found = _cached_places(text, sheet, book) if len(run) == 1 else _box(run, sheet, book)
        if found is None:
            return None
        places += found
    return places


def _cached_places(text: str, sheet: str, book: Book) -> list[Place] | None:
    """`_places`, read once per operand text and sheet (the same ranges recur in thousands of
    formulas)."""
    cache = book.__dict__.get("_places")
    if cache is None:
        cache = book.__dict__["_places"] = {}
    found = cache.get((text, sheet), _UNREAD)
    if found is _UNREAD:
        found = cache[(text, sheet)] = _places(text, sheet, book)
    return found


#: `_cached_places`' mark for an operand not read yet (None is an answer: not followed).
_UNREAD = object()


def _box(run: list[str], sheet: str, book: Book) -> list[Place] | None:
    """The one area holding every range of `run` (all on this sheet), or None."""
    if any("!" in text for text in run):
        return None
    parts = [_places(text, sheet, book) for text in run]
    if any(p is None or len(p) != 1 for p in parts):
        return None
    areas = [p[0][1] for p in parts]  # type: ignore[index]
    box = areas[0]
    for area in areas[1:]:
        box = box.span(area)
    return [(sheet, box)]


def _places(text: str, sheet: str, book: Book, depth: int = 0) -> list[Place] | None:
    if text.upper() in ("#REF!",) or text.startswith("["):
        return []  # a dead reference, or another workbook's cached value: nothing here changes
    prefix, ref = split_reference(text)
    target = sheet
    if prefix:
        name = sheet_of(prefix) or ""
        if ":" in name or "[" in name:
            return [] if "[" in name else None  # another workbook / a 3-D reference
        target = name
    area = read_area(ref)
    if area is not None:
        return [(target, area)]
    if "[" in ref or depth > 3:
        return None  # a structured reference (Table[col])
    return _name_places(target, ref, book, depth)


def _name_places(sheet: str, name: str, book: Book, depth: int) -> list[Place] | None:
    from rates_xl.calc.book import find_name

    if name.upper().startswith("_XLETA.") or name.upper().startswith("_XLPM."):
        return []  # a function passed by name (PIVOTBY's PERCENTOF), a LAMBDA parameter
    defined = find_name(book.book, sheet, name)
    if defined is None:
        return []  # a LET / LAMBDA variable, or a name Excel itself answers #NAME? for
    value = (getattr(defined, "attr_text", None) or "").strip()
    if _LITERAL.fullmatch(value):
        return []
    if "(" in _QUOTED.sub("", value):
        # A name defined by a formula (`OFFSET(S!$B$1,0,0,n,1)`, INDEX, a LAMBDA): what it
        # reads is known only once computed, so its readers depend on everything. Read as
        # ranges, `OFFSET(S!$B$1` was a sheet "OFFSET(S" and `=SUM(X)` read nothing: kept
        # at Excel's value in default mode while the cell X stands on was recomputed.
        return None
    places: list[Place] = []
    for part in value.split(","):
        found = _places(part.strip(), sheet, book, depth + 1)
        if found is None:
            return None
        places += found
    return places


def anchors_calling(cells: dict[Key, tuple[str, Area]], names: frozenset[str] | None, *,
                    rates: bool = False) -> set[Key]:
    """Anchors whose formula calls one of `names` (or any RATES_* function, `rates`)."""
    return anchors_calling_each(cells, [(names, rates)])[0]


def anchors_calling_each(cells: dict[Key, tuple[str, Area]],
                         asked: list[tuple[frozenset[str] | None, bool]]) -> list[set[Key]]:
    """`anchors_calling` for each (names, rates) of `asked`, the formulas read once: a
    recalculation's scope asks two (the new answers, the moving references) of every formula,
    and a book's formulas call few distinct sets of functions, each judged once."""
    found: list[set[Key]] = [set() for _ in asked]
    verdicts: dict[frozenset[str], list[bool]] = {}
    for key, (formula, _area) in cells.items():
        if "(" not in formula:
            continue  # calls nothing (`function_names`)
        called = function_names(formula)
        verdict = verdicts.get(called)
        if verdict is None:
            rates_called = any(is_rates_name(n) for n in called)
            verdict = verdicts[called] = [bool((names and called & names) or (rates and rates_called))
                                          for names, rates in asked]
        for i, calls in enumerate(verdict):
            if calls:
                found[i].add(key)
    return found
