"""One table read by many lookups, handed to Python once per evaluation instead of once per call.

VLOOKUP and HLOOKUP are ours (calc/xlfuncs: Excel's rules where formualizer's differ), so the
engine converts the whole table argument into Python lists for every call.
poi_StructuredRefs-lots-with-lookups.xlsx has 1,632 cells whose formulas call VLOOKUP twice
each over `Query!$A:$N`: 2,188 calls that received 111 million cell values, 8.5 of the 8.6 CPU
seconds of the engine's evaluation (Python's list building and its cyclic collector; the same
book with formualizer's own VLOOKUP evaluates in 0.07 s, but that one matches numbers within a
tolerance where ours does not, so it is no substitute).

So where two or more calls of the prepared copy read the same table (a reference of at least
`SMALLEST` cells), the table is read once by a helper cell, `=RATESXL.TABLE(Query!$A:$N, 1)`,
on a sheet of its own appended to the engine's copy; the helper keeps the values it is
handed under a token (a number) and answers the token. Each call becomes
`RATESXL.VLOOKUPIN(value, helper, column, match)`: the same VLOOKUP callable as before, given
the values kept under the token. The answers are those of the calls as written (the same
function, the same table values); the engine's dependencies are the same too (the lookup
reads the helper, the helper the table), so a change in the table recomputes the lookups.

The helper sheet goes last, where no 3-D reference and no formula of the book reads it; a book
whose formulas ask about sheets (SHEET, SHEETS, INFO) is left alone, as a sheet more would
change their answers.

The helpers' formulas are in `prepared.written` but not in the saved copy (their sheet is
there, empty): the engine sets them once the copy is loaded (`pending`; model.py). Loading
them from the file cost formualizer, for every INDIRECT cell inside a shared table, a walk
over everything that reads the helper (poi_StructuredRefs: 3,798 running counts in `Query!A`
times the 3,300 cells reading the lookups, 0.23 of the load's 0.30 CPU s); set after loading,
nothing (the book computes to the same values, bench/frozen_identity).
"""

from __future__ import annotations

import functools
import itertools
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rates_xl.calc.formula.shapes import NUMBERS, Scanner, Shape, shape, text_at
from rates_xl.calc.formula.tree import Formula, Group
from rates_xl.functions.sheet import quote_sheet, read_area, sheet_of, split_reference

if TYPE_CHECKING:
    from rates_xl.calc.engines.formualizer.prepare import Prepared
    from rates_xl.calc.xlfuncs.lookup.tables import Indexed

#: The helper's function and the lookups reading it, by the lookup they stand for.
TABLE = "RATESXL.TABLE"
SHARED = {"VLOOKUP": "RATESXL.VLOOKUPIN", "HLOOKUP": "RATESXL.HLOOKUPIN"}
#: A table smaller than this is cheap to hand over in every call: left as written.
SMALLEST = 64
#: What a formula calling one of them holds: a call's token is its name and "(" as written.
_CALLS = tuple(f"{name}(" for name in SHARED)
#: A call whose answer would see one sheet more.
_ABOUT_SHEETS = re.compile(r"(?<![A-Z0-9_.])(?:SHEETS?|INFO)\s*\(", re.IGNORECASE)
HELPER_SHEET = "_rates_xl_lookups"


def share_tables(book: Any, prepared: Prepared) -> None:
    """Rewrite the prepared copy (`book`, openpyxl) so that each table two or more lookups read
    is handed over once (the module's docstring). `prepared.written` and `rates_cells` follow."""
    candidates = {key: text for key, text in prepared.written.items() if _may_call(text)}
    if not candidates:
        return
    copies = _Copies()
    found: dict[tuple[str, int, int], _Read] = {}
    readers: Counter[tuple[str, str]] = Counter()
    for (title, row, col), text in candidates.items():
        read = copies.read(title, row, col, text)
        if read.tables:
            found[(title, row, col)] = read
            readers.update(read.tables)
    twice = [table for table, count in readers.items() if count >= 2]
    if not twice:
        return
    calculation = getattr(book, "calculation", None)
    iterates = calculation is not None and bool(calculation.iterate)
    by_sheet: dict[str, list[tuple[int, int, str]]] = {}
    for (title, row, col), text in prepared.written.items():
        by_sheet.setdefault(title, []).append((row, col, text))
    shared = sorted(table for table in twice if not _in_a_loop(by_sheet.get(table[0], []), table[1], iterates))
    if not shared:
        return
    names = [defined.attr_text for scope in (book.defined_names, *(getattr(ws, "defined_names", {}) for ws in
                                                                 book.worksheets)) for defined in scope.values()]
    if any(isinstance(text, str) and _ABOUT_SHEETS.search(text) for text in (*prepared.written.values(), *names)):
        return
    name = HELPER_SHEET
    while name in book.sheetnames:
        name += "_"
    book.create_sheet(name)  # left empty in the copy: the helpers are set once loaded (`pending`)
    helpers = {}
    for ident, (sheet, reference) in enumerate(shared, start=1):
        text = f"={TABLE}({quote_sheet(sheet)}!{reference},{ident})"
        prepared.written[(name, ident, 1)] = text
        helpers[(sheet, reference)] = f"{quote_sheet(name)}!$A${ident}"
    changed = {}
    for (title, row, col), read in found.items():  # (in order: a shape's first copies first)
        text = copies.rewritten(read, helpers)
        if text != candidates[(title, row, col)]:
            changed[(title, row, col)] = text
    for (title, row, col), text in changed.items():
        book[title].cell(row=row, column=col).value = text
    prepared.written.update(changed)
    prepared.rates_cells = [(t, r, c, changed.get((t, r, c), f)) for t, r, c, f in prepared.rates_cells]


def _may_call(text: str) -> bool:
    """Whether a formula may call VLOOKUP or HLOOKUP (asked of every formula written: most
    hold no "LOOKUP(", and each that does is read from its tokens only if it names one)."""
    upper = text.upper()
    return "LOOKUP(" in upper and any(call in upper for call in _CALLS)


@dataclass(frozen=True, slots=True)
class _Calls:
    """A lookup formula read from its tokens: each call over a table (its group, the table)."""

    formula: Formula
    calls: list[tuple[Group, tuple[str, str]]]

    @classmethod
    def read(cls, title: str, text: str) -> _Calls:
        formula = Formula(text)
        calls = []
        for group in formula.calls(*SHARED):
            table = _table(formula, group, title)
            if table is not None:
                calls.append((group, table))
        return cls(formula, calls)

    @property
    def tables(self) -> list[tuple[str, str]]:
        return [table for _group, table in self.calls]

    def rewritten(self, helpers: dict[tuple[str, str], str]) -> str:
        """The formula with each call over a shared table reading its helper instead."""
        edits = self.formula.edits()
        for group, table in self.calls:
            if table not in helpers:
                continue
            edits.replace(group.open, group.open + 1, SHARED[group.name] + "(")
            first, last = group.arguments[1]
            edits.replace(first, last, helpers[table])
        return edits.text()


@dataclass(slots=True)
class _Read:
    """One lookup formula and the tables its calls read, in order: read from its tokens
    (`own`), or taken from the copies of its shape above it (`copied`)."""

    title: str
    row: int
    col: int
    text: str
    tables: list[tuple[str, str]]
    own: _Calls | None = None
    copied: _Shape | None = None


@dataclass(slots=True)
class _Shape:
    """The lookup formulas of one shape down one column (calc/formula/shapes.py): its first two
    copies, read from their tokens; the tables every copy reads, once the second's are the
    first's; the shape of its rewriting, once the second's is the first's moved to it
    (`moves`: None until asked)."""

    first: list[tuple[int, int, _Calls]] = field(default_factory=list)  # (row, col, calls)
    tables: list[tuple[str, str]] | None = None
    moves: bool | None = None
    rewritten: Shape | None = None


class _Copies:
    """The lookups of a book's formulas, read once per shape down a column: most are copies
    (poi_StructuredRefs' 3,264 lookups are those of 8 formulas, each copied 408 times down
    its column), which take their shape's tables and rewriting as the shape memo's copies take
    its answer (calc/formula/memo.py): only once a second copy, read from its tokens, is the
    first moved to it. A shape whose copies read tables of their own is read copy by copy."""

    def __init__(self) -> None:
        # (A number that is the row read as the row: a copy's `ROW($A8)` is written 8, memo.py.)
        self._scan = Scanner(lambda text, row, col: shape(text, row, col, NUMBERS))
        self._shapes: dict[tuple[str, int, Shape], _Shape] = {}

    def read(self, title: str, row: int, col: int, text: str) -> _Read:
        found = self._scan(title, text, row, col)
        entry = None if found is None else self._shapes.setdefault((title, col, found), _Shape())
        if entry is not None and entry.tables is not None:
            return _Read(title, row, col, text, entry.tables, copied=entry)
        own = _Calls.read(title, text)
        if entry is not None and len(entry.first) < 2:
            entry.first.append((row, col, own))
            if len(entry.first) == 2 and entry.first[0][2].tables == own.tables:
                entry.tables = own.tables
        return _Read(title, row, col, text, own.tables, own)

    def rewritten(self, read: _Read, helpers: dict[tuple[str, str], str]) -> str:
        """The formula with each lookup over a shared table reading its helper instead."""
        if read.own is not None:
            return read.own.rewritten(helpers)
        entry = read.copied
        if entry is not None and entry.moves is None:
            (row, col, first), (row2, col2, second) = entry.first
            found = shape(first.rewritten(helpers), row, col, NUMBERS)  # (read as its copies were)
            entry.moves = found is not None and text_at(found, row2, col2) == second.rewritten(helpers)
            entry.rewritten = found
        moved = None
        if entry is not None and entry.moves and entry.rewritten is not None:
            moved = text_at(entry.rewritten, read.row, read.col)
        return moved if moved is not None else _Calls.read(read.title, read.text).rewritten(helpers)


def _in_a_loop(formulas: list[tuple[int, int, str]], reference: str, iterates: bool) -> bool:
    """Whether the helper of the table at `reference` could be in a circular reference
    (`formulas`: (row, col, text) of its sheet's formula cells). A formula in the table reading
    a lookup over it is a loop (Excel's VLOOKUP depends on its whole table), and through a
    shared table the helper would be in it too, with every other lookup reading the helper:
    those listed as loops with iteration off, silently #VALUE! iterating. So a table holding a
    lookup is never shared, nor, in a book that iterates, one holding any formula (a loop may
    run through other cells, and iterating lists nothing)."""
    area = read_area(reference)
    if area is None:
        return False
    return any(area.top <= row <= area.bottom and area.left <= col <= area.right and (iterates or "LOOKUP" in text.upper())
               for row, col, text in formulas)


def pending(prepared: Prepared) -> dict[tuple[str, int, int], str]:
    """The helper cells' formulas, left out of the saved copy: the engine sets them once it has
    loaded it (the module's docstring)."""
    start = f"={TABLE}("
    return {key: text for key, text in prepared.written.items() if text.startswith(start)}


def _table(formula: Formula, group: Any, title: str) -> tuple[str, str] | None:
    """(sheet, reference as written) of a lookup's table argument when it is one reference of
    at least SMALLEST cells; None otherwise (an array, a name, an expression, a small range)."""
    if len(group.arguments) not in (3, 4):
        return None
    token = formula.single(group.arguments[1])
    if token is None or not token.is_range:
        return None
    prefix, reference = split_reference(token.text)
    if "[" in prefix or "[" in reference:  # another workbook's, a structured reference
        return None
    area = read_area(reference)
    if area is None or (area.bottom - area.top + 1) * (area.right - area.left + 1) < SMALLEST:
        return None
    sheet = sheet_of(prefix) if prefix else title
    if sheet is None or ":" in sheet:  # a 3-D reference
        return None
    return sheet, reference


class Tables:
    """The tables the helpers were handed, by token, for the lookups of one loaded workbook,
    each with its search structures (calc/xlfuncs/lookup/tables.py `Indexed`: its first
    values and exact-match index, built once per token and orientation, not in every call).
    The engine may call from several threads; a helper's older tokens are forgotten once it
    has newer ones (two kept, for a lookup the engine may still be finishing), and their
    search structures with them."""

    KEPT = 2

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tokens = itertools.count(1)
        self._values: dict[float, Any] = {}
        self._searched: dict[tuple[float, bool], Indexed] = {}
        self._recent: dict[Any, list[float]] = {}

    def keep(self, values: Any, ident: Any) -> float:
        with self._lock:
            token = float(next(self._tokens))
            self._values[token] = values
            recent = self._recent.setdefault(ident, [])
            recent.append(token)
            while len(recent) > self.KEPT:
                old = recent.pop(0)
                self._values.pop(old, None)
                for by_rows in (True, False):
                    self._searched.pop((old, by_rows), None)
            return token

    def values(self, token: Any) -> Any:
        with self._lock:
            return self._values[token]

    def searched(self, token: float, by_rows: bool) -> Indexed:
        """The table kept under `token` as VLOOKUP (`by_rows`) or HLOOKUP searches it."""
        from rates_xl.calc.xlfuncs.lookup.tables import Indexed

        with self._lock:
            values = self._values[token]
            found = self._searched.get((token, by_rows))
        if found is None:
            # Built outside the lock (it is cheap: its index waits for the first exact match);
            # of two threads building it at once, the first one kept is used by both.
            built = Indexed(values, by_rows)
            with self._lock:
                if token not in self._values:  # forgotten meanwhile: used once, not kept
                    return built
                found = self._searched.setdefault((token, by_rows), built)
        return found


def register(workbook: Any, tables: Tables) -> None:
    """The helper's function and the lookups reading it, on a formualizer workbook."""
    from rates_xl.calc.engines.formualizer.values import is_error
    from rates_xl.calc.xlfuncs.lookup.lookups import table_lookup
    from rates_xl.calc.xlfuncs.omitted import given

    def table(values: Any, ident: Any) -> Any:
        return tables.keep(values, ident)

    # Never memoised by its arguments: a table back at earlier values gets a token still kept.
    workbook.register_function(TABLE, table, min_args=2, max_args=2, volatile=False, deterministic=False)
    for name, shared in SHARED.items():
        by_rows = name == "VLOOKUP"
        # The same VLOOKUP (HLOOKUP) as calc/xlfuncs', over the table kept under the token.
        call = table_lookup(functools.partial(tables.searched, by_rows=by_rows))

        def lookup(value: Any, token: Any, *rest: Any, call: Any = call) -> Any:
            if is_error(token):  # the table's helper in a loop, say: as the call would have seen
                return token
            return call(*given((value, token, *rest)))

        lookup.__name__ = shared
        workbook.register_function(shared, lookup, min_args=3, max_args=4, volatile=False, deterministic=True)
