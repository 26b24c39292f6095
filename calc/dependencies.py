"""Which formula cells depend on which, read from the formulas' references (no engine needed):
what a recalculation must recompute (the cells downstream of a RATES_* call, a volatile
function or a cell with no cached value) and what a cell found wrong makes stale.

`Graph` reads every formula and walks down from some cells; `Precedents` reads only what some
cells read, directly or not, walking up (what the check's wrong cells read, in full mode).

A reference this cannot follow (a structured reference, a name defined by a formula, a
3-D reference, a range built with ':' from a function) makes its cell depend on everything:
it is recomputed whenever anything is, which costs time, never a value.
"""

from __future__ import annotations

import bisect
import collections
import re
from collections.abc import Iterable, Iterator, Mapping
from itertools import compress
from operator import itemgetter

from rates_xl.calc.book import Book
from rates_xl.functions.sheet import (
    Area,
    Key,
    is_rates_name,
    parse_cell,
    read_area,
    sheet_of,
    split_reference,
)
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

    def __init__(self, book: Book, read: Mapping[Key, list[Place] | None] | None = None,
                 index: _Index | None = None) -> None:
        """`read`: `references` of some anchors, found already (`read_by_any`'s scan,
        `Precedents`); `index`: where the anchors lie, if built already (`Precedents.index`)."""
        self.book = book
        self.cells = book.cells  # anchor -> (formula, area)
        self.unknown: set[Key] = set()  # anchors with a reference not followed
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
        self._places = ids  # (sheet in upper case, area) -> its rectangle id (`readers_of_value`)
        self._within: dict[Key, list[int]] = collections.defaultdict(list)  # anchor -> rectangle ids
        anchors_in = (index or _Index(self.cells)).anchors_in
        for place, number in ids.items():
            for precedent in anchors_in(place):
                self._within[precedent].append(number)
        self.dependents = _Dependents(self)

    def dependents_of(self, key: Key) -> set[Key]:
        """The anchors that read `key` directly (itself left out)."""
        found: set[Key] = set()
        for number in self._within.get(key, ()):
            found |= self._readers[number]
        found.discard(key)
        return found

    def readers_of_value(self, key: Key) -> set[Key]:
        """The anchors reading the cell `key` (a constant's too, which no anchor lies over)."""
        sheet, (row, col) = key[0].upper(), parse_cell(key[1])
        found: set[Key] = set()
        for (title, (r1, c1, r2, c2)), number in self._places.items():
            if title == sheet and r1 <= row <= r2 and c1 <= col <= c2:
                found |= self._readers[number]
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

class _Index:
    """Where the anchors lie, by sheet (each sheet's built when first asked: a few cells' reads
    touch few sheets): column -> (sorted rows, the anchor each cell belongs to); large areas (a
    RATES_* spill's range grown to thousands of rows) kept whole."""

    def __init__(self, cells: Mapping[Key, tuple[str, Area]]) -> None:
        self._cells: dict[str, list[tuple[Key, Area]]] = collections.defaultdict(list)
        for key, (_formula, area) in cells.items():
            self._cells[key[0].upper()].append((key, area))
        self._sheets: dict[str, tuple[dict[int, tuple[list[int], list[Key]]], list[tuple[int, int, int, int, Key]]]] = {}

    def _sheet(self, sheet: str) -> tuple[dict[int, tuple[list[int], list[Key]]], list[tuple[int, int, int, int, Key]]]:
        found = self._sheets.get(sheet)
        if found is not None:
            return found
        by_column: dict[int, list[tuple[int, Key]]] = collections.defaultdict(list)
        areas: list[tuple[int, int, int, int, Key]] = []
        for key, (r1, c1, r2, c2) in self._cells.get(sheet, ()):
            if (r2 - r1 + 1) * (c2 - c1 + 1) > LARGE_AREA:
                areas.append((r1, c1, r2, c2, key))
                continue
            for c in range(c1, c2 + 1):
                for r in range(r1, r2 + 1):
                    by_column[c].append((r, key))
        columns: dict[int, tuple[list[int], list[Key]]] = {}
        for c, entries in by_column.items():
            entries.sort()
            columns[c] = ([r for r, _ in entries], [k for _, k in entries])
        found = self._sheets[sheet] = (columns, areas)
        return found

    def anchors_in(self, place: Place) -> set[Key]:
        """The anchors whose area meets the rectangle `place`."""
        sheet, (r1, c1, r2, c2) = place
        columns, areas = self._sheet(sheet.upper())
        found = {key for a1, b1, a2, b2, key in areas if a1 <= r2 and r1 <= a2 and b1 <= c2 and c1 <= b2}
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


class Precedents:
    """What some anchors read, directly or not, found formula by formula from them upwards:
    for a few cells, without reading every formula of the book as `Graph` does (formulas_test's
    check asks it of 16 wrong cells, which read 21 anchors in all, not 13,487; its graph took
    0.1 of the run's 2.1 CPU seconds). Kept by rectangle as `Graph` is, with its edges: an
    anchor reads the anchors of each rectangle its references name (`_Index.anchors_in`)."""

    def __init__(self, book: Book) -> None:
        self.book = book
        #: `references` of the anchors read so far (for `read_by_any` and a `Graph` built next).
        self.read: dict[Key, list[Place] | None] = {}
        self._index: _Index | None = None
        self._ids: dict[Place, int] = {}  # (SHEET, area) -> rectangle id
        self._anchors: list[set[Key]] = []  # rectangle id -> the anchors in it
        self._rectangles: dict[Key, list[int] | None] = {}

    def index(self) -> _Index:
        if self._index is None:
            self._index = _Index(self.book.cells)
        return self._index

    def rectangles(self, key: Key) -> list[int] | None:
        """The ids of the rectangles anchor `key` reads; None when its references are not all
        known (`Graph.unknown`: it joins any downstream that is not empty)."""
        if key in self._rectangles:
            return self._rectangles[key]
        book = self.book
        if key in book.data_tables:
            places = None  # reads through substitutions no reference names (as in `Graph`)
        elif key in self.read:
            places = self.read[key]
        else:
            places = self.read[key] = references(book.cells[key][0], key[0], book)
        found: list[int] | None = None
        if places is not None:
            found = []
            for sheet, area in places:
                place = (sheet.upper(), area)
                number = self._ids.get(place)
                if number is None:
                    number = self._ids[place] = len(self._anchors)
                    self._anchors.append(self.index().anchors_in(place))
                found.append(number)
        self._rectangles[key] = found
        return found

    def reaching(self, targets: Iterable[Key], limit: int) -> dict[Key, list[int] | None] | None:
        """Every anchor the targets read, directly or not, and the targets -> `rectangles` of it;
        None once that is more than `limit` anchors (the whole graph may then cost less)."""
        found: dict[Key, list[int] | None] = {}
        seen: set[int] = set()
        todo = list(targets)
        while todo:
            key = todo.pop()
            if key in found:
                continue
            if len(found) >= limit:
                return None
            found[key] = numbers = self.rectangles(key)
            for number in numbers or ():
                if number not in seen:
                    seen.add(number)
                    todo.extend(self._anchors[number])
        return found

    def reads_one_of(self, key: Key, cells: set[Key]) -> bool:
        """Whether anchor `key` (known, read already) reads one of `cells` other than itself."""
        return any((self._anchors[number] & cells) - {key} for number in self._rectangles[key] or ())

    def downstream_within(self, up: Mapping[Key, list[int] | None], seeds: set[Key]) -> set[Key]:
        """The anchors of `up` (`reaching`'s) that `Graph.downstream` of `seeds` (not empty)
        holds: those a seed, or an anchor whose references are not all known, reaches. Every
        path into an anchor of `up` runs inside it, so walking down its own edges finds them."""
        readers: dict[int, list[Key]] = collections.defaultdict(list)  # rectangle id -> its readers
        for key, numbers in up.items():
            for number in numbers or ():
                readers[number].append(key)
        within: dict[Key, list[int]] = collections.defaultdict(list)  # anchor -> rectangles holding it
        for number in readers:
            for anchor in self._anchors[number]:
                within[anchor].append(number)
        todo = [key for key, numbers in up.items() if numbers is None or key in seeds]
        found: set[Key] = set()
        seen: set[int] = set()
        while todo:
            key = todo.pop()
            if key not in found:
                found.add(key)
                for number in within.get(key, ()):
                    if number not in seen:
                        seen.add(number)
                        todo.extend(readers[number])
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
        places = read[key] if key in read else references(formula, key[0], book)
        read[key] = places
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
    from rates_xl.calc.formula.defined_names import is_relative

    if is_relative(value):
        return None  # `S!$T1` is $T7 for a cell of row 7 (calc/formula/defined_names.py): read as anything
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
    and a book's formulas call few distinct sets of functions, each judged once. (Each
    formula's calls side by side with its key, and the anchors picked in C: formulas_test's
    13,487 formulas, 6.0 -> 4.5 ms once their calls are read.)"""
    called = list(map(function_names, map(itemgetter(0), cells.values())))
    distinct = set(called)
    found: list[set[Key]] = []
    for names, rates in asked:
        hits = {calls for calls in distinct
                if (names and not names.isdisjoint(calls)) or (rates and any(map(is_rates_name, calls)))}
        found.append(set(compress(cells, map(hits.__contains__, called))) if hits else set())
    return found
