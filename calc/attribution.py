"""Which service answers are behind a cell: the moved requests upstream of each moved cell of
a diff (`attribute`), the requests every cell was computed from (`cells_reading`: a pack's
edited or unshifted answers, for provenance and scenarios), and what a reader calls a cell.

Which request a RATES_* cell made is read from the book's formulas, never matched by value:
each RATES_* call of the cell, its arguments read as the cell read them in that copy,
validated into the request the caches key it by (`functions/link.py`, the code RATES_SOURCE
uses), at the moment the copy's run was pinned at; a cell downstream of it (the book's
reference graph, `calc/dependencies.py`) was computed from the same requests. A request that
cannot be read is named with why: never a guess.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from datetime import datetime
from typing import TYPE_CHECKING

from rates_xl.calc.book import Book
from rates_xl.functions.sheet import Key, address, parse_cell
from rates_xl.functions.values import CellValue

if TYPE_CHECKING:
    from rates_xl.calc.dependencies import Graph
    from rates_xl.client.pack import Pack

#: One copy's cell values: (sheet title, "B7") -> value.
Values = Mapping[Key, CellValue]
#: The moment a copy's run was pinned at, as its pack writes it or its run held it (None: now).
Moment = datetime | str | None


def graph_of(book: Book) -> Graph:
    from rates_xl.calc.dependencies import Graph

    return Graph(book)


def read_cells(book: Book, graph: Graph) -> set[Key]:
    """Every cell some formula reads (a formula anchor that has dependents, with its spill
    area); the moved cells not in it are the book's outputs. A formula whose references are
    not all known (a structured reference, INDIRECT) may read anything: it is not counted."""
    read: set[Key] = set()
    for anchor, dependents in graph.dependents.items():
        if dependents and anchor in book.cells:
            read.update(_area(book, anchor))
    return read


def cell_labels(book: Book, moved: list[Key], values: Values) -> dict[Key, str]:
    """What a reader calls each moved cell: a defined name pointing at it, else the text just
    to its left in its row (the templates' "NPV" beside the NPV), within three cells."""
    from rates_xl.functions.sheet import cell_address

    by_cell = {(sheet, cell): name for name, (sheet, cell) in book.names.items() if "!" not in name}
    labels = {}
    for sheet, cell in moved:
        if (sheet, cell) in by_cell:
            labels[(sheet, cell)] = by_cell[(sheet, cell)]
            continue
        row, col = parse_cell(cell)
        for left in range(col - 1, max(col - 4, 0), -1):
            value = values.get((sheet, cell_address(row, left)))
            if value is None or value == "":
                continue
            if isinstance(value, str) and not value.startswith("#"):
                labels[(sheet, cell)] = value if len(value) <= 40 else value[:39] + "…"
            break
    return labels


def attribute(book: Book, graph: Graph, moved: list[Key], before: Values, after: Values,
              packs: tuple[Pack | None, Pack | None], changed: Set[str]) -> dict[Key, tuple[str, ...]]:
    """Moved cell -> the `changed` requests (those whose answer moved) upstream of it."""
    from rates_xl.calc.dependencies import anchors_calling
    from rates_xl.calc.valuation import book_moment

    rates = anchors_calling(book.cells, None, rates=True)
    own = book_moment(book)
    first, second = (pack.valuation_time if pack is not None and pack.valuation_time else own for pack in packs)
    pinned: tuple[Moment, Moment] = (first, second)
    moved_set = set(moved)
    date1904 = book.package.date1904()
    found: dict[Key, set[str]] = {}
    for anchor in rates:
        area = _area(book, anchor)
        if not any(key in moved_set for key in area):
            continue  # its answer did not move this run
        names = _requests_of(book, anchor, (before, after), pinned, changed, date1904)
        for key in graph.downstream([anchor]) | {anchor}:
            for cell in _area(book, key):
                if cell in moved_set:
                    found.setdefault(cell, set()).update(names)
    return {key: tuple(sorted(names)) for key, names in found.items()}


def cells_reading(book: Book, values: Values, pinned: Moment, requests: Set[str],
                  graph: Graph | None = None) -> dict[Key, tuple[str, ...]]:
    """Cell -> the `requests` it was computed from: the RATES_* cells that made one (read from
    their formulas with `values`, at the `pinned` moment) and every cell downstream of them.
    A RATES_* cell whose request cannot be read is counted, with why (never left out).
    `graph`: the book's dependency graph, when the caller has built it already."""
    from rates_xl.calc.dependencies import Graph, anchors_calling

    graph = graph if graph is not None else Graph(book)
    date1904 = book.package.date1904()
    found: dict[Key, set[str]] = {}
    for anchor in anchors_calling(book.cells, None, rates=True):
        names = _requests_of(book, anchor, (values, values), (pinned, pinned), requests, date1904)
        if not names:
            continue
        for key in graph.downstream([anchor]) | {anchor}:
            for cell in _area(book, key):
                found.setdefault(cell, set()).update(names)
    return {key: tuple(sorted(names)) for key, names in found.items()}


def _area(book: Book, anchor: Key) -> list[Key]:
    from rates_xl.functions.sheet import cell_address

    _formula, area = book.cells[anchor]
    return [(anchor[0], cell_address(r, c)) for r, c in area.cells()]


def _requests_of(book: Book, anchor: Key, copies: tuple[Values, Values],
                 pinned: tuple[Moment, Moment], changed: Set[str], date1904: bool = False) -> set[str]:
    """The `changed` requests a RATES_* cell made, read from its formula with the values of A and
    of B (`functions/link.py`: IF followed, names read; `date1904`: a date given as a number is
    the book's serial, counted from 1904); one it cannot read is named with why, never guessed."""
    from rates_xl.client.tiers import request_text
    from rates_xl.functions.link import Unlinked, requests_of

    formula = book.cells[anchor][0]
    made: set[str] = set()
    for values, moment in zip(copies, pinned, strict=True):
        def value_of(sheet: str, cell: str, values: Values = values) -> CellValue:
            return values.get((book.sheet_titles.get(sheet.upper(), sheet), cell))

        def name_value(sheet: str, name: str, values: Values = values) -> CellValue:
            return _name_value(book, sheet, name, values)

        try:
            made.update(request_text(key) for key in requests_of(formula, anchor[0], value_of, moment, name_value,
                                                                 date1904))
        except Unlinked as exc:
            return {f"the request of {address(*anchor)} (not linked: {exc})"}
    return made & changed


def _name_value(book: Book, sheet: str, name: str, values: Values) -> CellValue:
    """A defined name's value in a copy: the one cell it points at, or the constant it
    holds (`="SOFR"`, `=0.05`); LookupError for anything else (a range, a formula)."""
    from rates_xl.calc.book import find_name
    from rates_xl.functions.sheet import cell_reference

    where = book.name_range(sheet, name)
    if where is not None:
        found = cell_reference(where)
        if found is None or found[0] is None:
            raise LookupError(name)
        title, cell = found[0], found[1]
        return values.get((book.sheet_titles.get(title.upper(), title), cell))
    defined = find_name(book.book, sheet, name.rsplit("!", 1)[-1])
    text = (getattr(defined, "attr_text", None) or "").strip().removeprefix("=")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1].replace('""', '"')
    try:
        return float(text)
    except ValueError:
        raise LookupError(name) from None
