"""What a calculation recomputes, and the check that the engine agrees with Excel first.

A book Excel calculated last holds Excel's answer in every formula cell. By default only the
cells downstream of something whose answer is new are recomputed: a RATES_* call, a volatile
function (NOW, TODAY, RAND, RANDBETWEEN, RANDARRAY, CELL, INFO; OFFSET and INDIRECT, whose
references may move) or a formula with no cached value. Every other formula cell is a
constant, Excel's value, in the engine's copy. `full` recomputes every cell (Ctrl+Alt+F9).

The check: the cells to recompute are first evaluated at the book's stored inputs (the
RATES_* and NOW-like cells at their cached values) and compared with Excel's cached values.
A cell the engine gets wrong there is not trusted with new inputs: it keeps Excel's value
and is listed as stale with the reason, and so is every recomputed cell downstream of it
when its own value may have moved (it depends on a changing input).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import eq, is_, is_not, not_

from rates_xl.calc import check
from rates_xl.calc.book import Book
from rates_xl.calc.dependencies import (
    Graph,
    Precedents,
    anchors_calling_each,
    read_by_any,
)
from rates_xl.calc.results import StaleCell
from rates_xl.functions.sheet import Area, Key, address, cell_address, column_letters, parse_cell
from rates_xl.functions.values import CellValue

#: Volatile functions whose answer is new at every calculation: fixed at their cached value
#: for the check, recomputed after it.
NEW_EACH_TIME = frozenset({"NOW", "TODAY", "RAND", "RANDBETWEEN", "RANDARRAY", "CELL", "INFO"})
#: Volatile functions whose answer follows their inputs (checked like any other formula).
MOVING_REFERENCES = frozenset({"OFFSET", "INDIRECT"})


@dataclass
class Scope:
    """What a recalculation covers: the anchors it recomputes, the ones with new answers and
    the ones the file holds no value for (`scope` decides; "plan" is the requests' planning
    round, functions/plan.py)."""

    full: bool
    recompute: set[Key]  # anchors the engine computes
    inputs: set[Key]  # anchors with new answers (RATES_*, NOW ...): fixed for the check
    uncached: set[Key]  # anchors the file holds no value for
    graph: Graph | None = None
    _changing: set[Key] | None = None

    @property
    def kept(self) -> set[Key]:
        if self.full:  # every anchor is recomputed (`scope`): no set of them built to say so
            return set()
        return set(self._book.cells) - self.recompute

    def changing(self) -> set[Key]:
        """Anchors whose value may differ from the cached one (downstream of a new answer)."""
        if self._changing is None:
            sources = self.inputs | self.uncached | self._moving
            self._changing = self.downstream(sources) if sources else set()
        return self._changing

    def changing_among(self, keys: set[Key]) -> set[Key]:
        """`keys & changing()`, found by walking up from `keys` while the graph is not built
        (full mode builds none unless a walk reaches too far)."""
        if self._changing is not None or self.graph is not None:
            return keys & self.changing()
        sources = self.inputs | self.uncached | self._moving
        if not sources or not keys:
            return set()
        precedents = self.precedents()
        up = precedents.reaching(keys, upward_limit(self._book))
        if up is None:
            return keys & self.changing()
        return keys & precedents.downstream_within(up, sources)

    def answering_among(self, keys: set[Key]) -> set[Key]:
        """Those of `keys` that read, directly or not, a new answer (`inputs`: a RATES_* call,
        NOW ...), walking up from them as `changing_among` does."""
        if not self.inputs or not keys:
            return set()
        precedents = self.precedents()
        up = precedents.reaching(keys, upward_limit(self._book))
        if up is None:
            return keys & self.downstream(self.inputs)
        return keys & precedents.downstream_within(up, self.inputs)

    def downstream(self, seeds: set[Key]) -> set[Key]:
        if not seeds:
            return set()
        if self.graph is None:
            # (the references and the index read already for `precedents` are not read again)
            found = self._precedents
            self.graph = Graph(self._book) if found is None else Graph(self._book, found.read, found.index())
        return self.graph.downstream(seeds)

    def precedents(self) -> Precedents:
        if self._precedents is None:
            self._precedents = Precedents(self._book)
        return self._precedents

    _book: Book = field(default=None, repr=False)  # type: ignore[assignment]
    _moving: set[Key] = field(default_factory=set, repr=False)
    _precedents: Precedents | None = field(default=None, repr=False)


def scope(book: Book, full: bool) -> Scope:
    """The recalculation's scope: every formula (`full`), or what is downstream of a new answer."""
    cells = book.cells
    # A book whose values are placeholders, or may be out of date (manual calculation not
    # recalculated on save; see Book), is recomputed whole and checked against none of them.
    untrusted = book.values_out_of_date
    cached = book.cached() if cells and not untrusted else {}
    inputs, moving = anchors_calling_each(cells, [(NEW_EACH_TIME, True), (MOVING_REFERENCES, False)])
    on_f9 = book.data_tables.keys() & cells.keys() if book.tables_on_f9 and not untrusted else set()
    if on_f9:
        # Tables Excel computes only on F9: what they hold may predate their inputs, as a
        # NOW's may. Held at it for the check (what reads them was computed from it), then
        # computed as F9 computes them, with what reads them.
        inputs = inputs | on_f9
    if untrusted:
        uncached = set(cells)
    else:
        uncached = {key for key in cells if key not in cached}
        if uncached and book.without_values is not None:  # an empty text answer (="") is a value
            for key in uncached - book.without_values:
                cached[key] = ""
            uncached &= book.without_values
    result = Scope(full, set(cells), inputs, uncached, _book=book, _moving=moving)
    if not full:
        sources = inputs | uncached | moving
        if len(sources) == len(cells):
            result.recompute = set(cells)
            result._changing = set(cells)
        elif on_f9:
            # (A table is computed through every formula between its inputs and its own formula
            # cell, which must be formulas in the engine's copy: every cell is, as in `full`.)
            result.recompute = set(cells)
        else:
            result.recompute = result.changing()
    return result


def constants(book: Book, anchors: set[Key]) -> dict[Key, CellValue]:
    """Every cell of these anchors' areas -> the value the file cached for it."""
    if not anchors:
        return {}  # the cached values are not read (a book recomputed whole never needs them)
    cached = book.cached()
    out = {}
    for sheet, anchor in anchors:
        _formula, (r1, c1, r2, c2) = book.cells[(sheet, anchor)]
        out[(sheet, anchor)] = cached.get((sheet, anchor))
        if (r2 - r1 + 1) * (c2 - c1 + 1) <= 64:
            for r in range(r1, r2 + 1):
                for c in range(c1, c2 + 1):
                    key = (sheet, cell_address(r, c))
                    out[key] = cached.get(key)
        else:  # a spill's range grown to thousands of rows: only its cells holding a value
            for r, c, key, value in book.cached_cells(sheet):
                if r1 <= r <= r2 and c1 <= c <= c2:
                    out[key] = value
    return out


@dataclass
class Outcome:
    """The check's verdict: the values at the stored inputs, the cells found wrong (why)."""

    values: dict[Key, CellValue]
    wrong: dict[Key, str]
    checked: int = 0
    unchecked: int = 0
    _checked: set[Key] = field(default_factory=set, repr=False)  # the anchors compared
    _found: dict[Key, str] = field(default_factory=dict, repr=False)  # `wrong` as `compare` found it


def compare(book: Book, scope: Scope, values: dict[Key, CellValue], unsupported: dict[Key, str],
            before: Outcome | None = None) -> Outcome:
    """Compare each recomputed anchor's cells with the cached ones (inputs and cells the
    engine does not compute left out; so are cells reading an input the file has no value for).

    `before`: the comparison of the round before (the check holds the cells it found wrong and
    compares again). An anchor compared then whose cells all hold the same values now (of the
    same class, equal, a zero of the same sign) has the same verdict, word for word: it depends
    on nothing else (its cells' values, the cached ones). Only the others are compared again."""
    cached = book.cached()
    blind = scope.downstream(scope.inputs & scope.uncached)
    todo = scope.recompute - scope.inputs - set(unsupported)
    checked = todo - scope.uncached - blind
    outcome = Outcome(values, {}, len(checked), len(todo) - len(checked))
    if before is None:
        wrong = _disagreements(book, checked, values, cached)
    else:
        moved = _moved_since(book, scope, before.values, values)
        again = (checked - before._checked) | (checked & moved)
        wrong = {key: why for key, why in before._found.items() if key in checked and key not in again}
        wrong.update(_disagreements(book, again, values, cached))
    outcome._checked, outcome._found = checked, wrong
    outcome.wrong = dict(sorted(wrong.items()))  # by anchor (the sets' order is no order)
    return outcome


def _disagreements(book: Book, checked: set[Key], values: dict[Key, CellValue],
                   cached: dict[Key, CellValue]) -> dict[Key, str]:
    """Each of the `checked` anchors whose cells the engine and Excel disagree on -> why."""
    wrong: dict[Key, str] = {}
    # One-cell anchors (most formulas: the key is the cell's address) are read in bulk, and
    # only a pair not equal, or not of one type (but an int and a float), is asked of
    # `check.agrees` (which agrees with the others at once: `check.ALIKE`).
    alike = check.ALIKE
    one_cell = _one_cell(book)
    single = list(checked & one_cell)
    ours, theirs = list(map(values.get, single)), list(map(cached.get, single))
    # The pairs not equal, or not of one class, found side by side in C-level maps (as
    # `_moved_since` does): formulas_test's 12,796 one-cell anchors, 0.02 -> 0.01 CPU s.
    odd = set(compress(range(len(single)), map(not_, map(eq, ours, theirs))))
    odd.update(compress(range(len(single)), map(is_not, map(type, ours), map(type, theirs))))
    for i in sorted(odd):
        mine, stored = ours[i], theirs[i]
        if (mine.__class__, stored.__class__) in alike and mine == stored:
            continue
        if not check.agrees(mine, stored):
            wrong[single[i]] = _disagrees(single[i], single[i], mine, stored)
    letters: dict[int, str] = {}  # a column's letters, found once for every area
    for key in checked - one_cell:
        _formula, area = book.cells[key]
        found = _first_disagreement(key[0], area, values, cached, letters)
        if found is not None:
            wrong[key] = _disagrees(key, *found)
    return wrong


_ABSENT = object()  # (`_moved_since`: a cell not in the round before, unlike any value)
#: The classes of value `_moved_since` takes as unchanged when equal (a value of another class,
#: a list, a date ..., counts as moved: equal ones may read differently).
_PLAIN = frozenset({float, int, bool, str, type(None)})


def _moved_since(book: Book, scope: Scope, old: dict[Key, CellValue],
                 values: dict[Key, CellValue]) -> set[Key]:
    """The anchors with a cell whose value is not the one it held in `old`. (Side by side in
    C-level maps; looked up only when the two do not list their cells in the same order: a
    spill's extent may have moved.)"""
    keys = list(values)
    gone: set[Key] = set()
    theirs: list[object]
    if keys == list(old):
        theirs = list(old.values())
    else:
        before: Mapping[Key, object] = old
        theirs = list(map(before.get, keys, repeat(_ABSENT)))
        gone = old.keys() - values.keys()  # (read as blank now)
    ours = list(values.values())
    classes = list(map(type, ours))
    same = map(is_, classes, map(type, theirs))
    moved = set(compress(range(len(ours)), map(not_, map(eq, ours, theirs))))
    moved.update(compress(range(len(ours)), map(not_, same)))
    unplain = set(classes) - _PLAIN
    if unplain:
        moved.update(i for i, kind in enumerate(classes) if kind in unplain)
    # 0.0 and -0.0 are equal, and read "0" and "-0" (check.shown)
    for i in compress(range(len(ours)), map(eq, ours, repeat(0.0))):
        if i not in moved and classes[i] is float and math.copysign(1.0, ours[i]) != math.copysign(1.0, theirs[i]):  # type: ignore[arg-type]
            moved.add(i)
    if not moved and not gone:
        return set()
    one_cell = _one_cell(book)
    index = scope.precedents().index()
    found: set[Key] = set()
    for key in [keys[i] for i in moved] + list(gone):
        if key in one_cell:
            found.add(key)
        row, col = parse_cell(key[1])
        found.update(anchor for anchor in index.anchors_in((key[0], Area(row, col, row, col)))
                     if anchor not in one_cell)
    return found


def _first_disagreement(sheet: str, area: Area, values: dict[Key, CellValue], cached: dict[Key, CellValue],
                        letters: dict[int, str] | None = None) -> tuple[Key, CellValue, CellValue] | None:
    """The first cell of an anchor's range (row by row) where the engine and Excel disagree:
    (the cell, ours, Excel's), or None. (`letters`: columns' letters found so far.)"""
    alike = check.ALIKE
    r1, c1, r2, c2 = area
    known = {} if letters is None else letters
    columns = [known.get(c) or known.setdefault(c, column_letters(c)) for c in range(c1, c2 + 1)]
    cell_address(r2, c1)  # (its ValueError for a range off the sheet)
    for r in range(r1, r2 + 1):
        for column in columns:
            cell = (sheet, f"{column}{r}")  # (`cell_address(r, c)`)
            ours, theirs = values.get(cell), cached.get(cell)
            if (ours.__class__ is theirs.__class__ or (ours.__class__, theirs.__class__) in alike) and ours == theirs:
                continue
            if not check.agrees(ours, theirs):
                return cell, ours, theirs
    return None


def _one_cell(book: Book) -> set[Key]:
    """The anchors of one cell (read once per book: `compare` runs a few times)."""
    found: set[Key] | None = book.__dict__.get("_one_cell")
    if found is None:
        found = book.__dict__["_one_cell"] = {
            key for key, (_formula, (r1, c1, r2, c2)) in book.cells.items() if r1 == r2 and c1 == c2}
    return found


def _disagrees(key: Key, cell: Key, ours: CellValue, theirs: CellValue) -> str:
    where = "" if cell[1] == key[1] else f" (in {cell[1]})"
    return (f"the engine gives {check.shown(ours)}{where} at the book's stored "
            f"inputs where Excel has {check.shown(theirs)}")


def roots(scope: Scope, wrong: set[Key]) -> set[Key]:
    """The wrong cells no other wrong cell feeds: their own formula is what the engine gets
    wrong (the others may only have read a wrong value)."""
    if not scope.graph and len(wrong) < 2:
        return set(wrong)
    if scope.graph is None:
        found = _roots_upwards(scope, wrong)
        if found is not None:
            return found
        # Whether any formula reads a wrong cell is found by a scan that stops at the first
        # one: the loan tracker's two wrong cells are read by none, and building its graph
        # only to say so cost 0.09 of its 2.1 CPU seconds. Otherwise the graph is built from
        # what the scan read.
        if not read_by_any(scope._book, wrong, scope.precedents().read):
            return set(wrong)
        scope.downstream(wrong)  # builds the graph
    graph = scope.graph
    if graph is None:  # not built: no cell reads another
        return set(wrong)
    after = {d for key in wrong for d in graph.dependents.get(key, ())}
    return wrong - scope.downstream(after) if after else set(wrong)


def _roots_upwards(scope: Scope, wrong: set[Key]) -> set[Key] | None:
    """`roots` without the graph, from what the wrong cells read, directly or not (None when
    that reaches too far): a wrong cell is no root when a cell reading another wrong cell (the
    graph's `after`), or one whose references are not all known, reaches it. Those unknown
    ones count only when some cell reads a wrong one at all (`after` is not empty): asked of
    the scan only when no cell they read does."""
    precedents = scope.precedents()
    up = precedents.reaching(wrong, upward_limit(scope._book))
    if up is None:
        return None
    readers = {key for key, numbers in up.items() if numbers is not None and precedents.reads_one_of(key, wrong)}
    if not readers and (all(numbers is not None for numbers in up.values())
                        or not read_by_any(scope._book, wrong, precedents.read)):
        return set(wrong)
    return wrong - precedents.downstream_within(up, readers)


def upward_limit(book: Book) -> int:
    """How many anchors a walk up from a few cells may reach before the whole graph is built
    instead: past a sixteenth of the book the walk saves little (the loan tracker's two wrong
    cells read 4,689 of its 5,748 anchors, and its wrong cells are read by none: a scan that
    stops says so sooner)."""
    return max(64, len(book.cells) // 16)


def stale_cells(book: Book, scope: Scope, wrong: dict[Key, str]) -> dict[Key, str]:
    """Anchor -> reason for every cell kept at its cached value: the wrong ones, and the
    recomputed cells downstream of a wrong one whose own value may have moved."""
    stale = {}
    changing = scope.changing_among(set(wrong)) if wrong else set()
    for key, why in wrong.items():
        moved = key in changing
        stale[key] = (f"stale: {why}, so Excel's value is kept" +
                      ("; it may predate this calculation's inputs" if moved else ""))
    moving = {key for key in wrong if key in changing}
    if moving:
        first: dict[Key, Key] = {}
        for key in sorted(moving):
            for after in scope.downstream({key}):
                first.setdefault(after, key)
        for after, origin in first.items():
            if after not in stale and after in scope.recompute:
                stale[after] = (f"stale: reads {address(*origin)}, which the engine does not compute as "
                                "Excel does, so Excel's value is kept; it may predate this calculation's inputs")
    return stale


def stale_list(book: Book, stale: dict[Key, str]) -> list[StaleCell]:
    if not stale:
        return []
    cached = book.cached()
    out = []
    for key, reason in sorted(stale.items()):
        formula, (r1, c1, r2, c2) = book.cells[key]
        for r in range(r1, r2 + 1):
            for c in range(c1, c2 + 1):
                cell = cell_address(r, c)
                out.append(StaleCell(key[0], cell, formula, reason, cached.get((key[0], cell))))
    return out
