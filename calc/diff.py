"""`rates-xl diff`: two computed copies of one book, cell by cell, and the service answers
behind each change (the start of a P&L explain: today against yesterday).

A and B are copies `rates-xl calc` wrote (values frozen, each carrying its market-data
pack), of one book: two valuations, or one book replayed from two packs. The diff lists

- every cell whose value moved, by how much (numbers) or from what to what;
- every request whose answer moved between the two packs;
- for each moved cell, the moved requests upstream of it: the RATES_* cells it reads,
  directly or not (`calc/dependencies.py`'s graph of the book's formulas), and, for each,
  the request whose answers match that cell's values in A and in B.

Which request a RATES_* cell made is read from the book's formulas (the book the copies
were computed from: beside A by calc's naming, or `--book`), never matched by value: each
RATES_* call of the cell, its arguments read as the cell read them (a literal, or the
referenced cell's value in that copy), validated into the request the caches key it by
(`functions/link.py`, the code RATES_SOURCE uses), at the moment each copy's run was pinned
at (its pack's `valuation_time`, else the book's RATES_VALUATION_TIME). A cell whose request
cannot be read that way (an argument that is an expression) is named with why: never a guess.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rates_xl.calc.book import Book, CalcError, Key, address, row_col

#: How many moved cells the screen shows (the workbook written with -o holds them all).
MAX_SHOWN = 60
#: How many moved cells get a note in the highlighted workbook (every one is filled and listed
#: on its first sheet): a note is a drawing shape, and thousands make the file slow to write
#: and to open in Excel.
MAX_NOTES = 500


@dataclass(frozen=True)
class MovedRequest:
    request: str  # endpoint?param=value&... (the caches' and the pack's own spelling)
    change: str  # "answer changed", "only in A", "only in B"
    valued: tuple[str | None, str | None]  # valuation time in A, in B


@dataclass(frozen=True)
class MovedCell:
    sheet: str
    cell: str
    before: Any
    after: Any
    requests: tuple[str, ...] = ()  # moved requests upstream (or "an answer of ... at ...")

    @property
    def address(self) -> str:
        return address(self.sheet, self.cell)

    @property
    def change(self) -> float | None:
        if _number(self.before) and _number(self.after):
            return float(self.after) - float(self.before)
        return None


@dataclass
class Diff:
    a: Path
    b: Path
    cells: list[MovedCell] = field(default_factory=list)
    requests: list[MovedRequest] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def diff(a: str | Path, b: str | Path, *, book: str | Path | None = None) -> Diff:
    """Compare two computed copies; `book` (the workbook with formulas) attributes each moved
    cell to the requests upstream of it (default: A's name without `.values`, if present)."""
    from rates_xl.client.pack import PackError
    from rates_xl.client.pack_workbook import read_pack

    a, b = Path(a), Path(b)
    for path in (a, b):
        if not path.exists():
            raise CalcError(f"{path}: no such file")
    try:
        packs = read_pack(a), read_pack(b)
    except PackError as exc:
        raise CalcError(str(exc)) from None
    before, after = _values(a), _values(b)
    out = Diff(a, b)
    moved = sorted((key for key in before.keys() | after.keys() if not _same(before.get(key), after.get(key))),
                   key=lambda k: (k[0], *row_col(k[1])))
    out.requests, changed = _moved_requests(*packs)
    for path, pack in zip((a, b), packs, strict=True):
        if pack is None:
            out.notes.append(f"{path.name} carries no market-data pack: the answers that moved cannot be named")
    source = Path(book) if book is not None else _source_of(a)
    attribution: dict[Key, tuple[str, ...]] = {}
    if source is not None and moved and changed:  # no answer moved: nothing to attribute
        attribution = _attribute(Book(source), moved, before, after, packs, changed)
    elif moved and book is None:
        out.notes.append("the book with formulas was not found beside A (give --book): moved cells are "
                         "not attributed to requests")
    out.cells = [MovedCell(s, c, before.get((s, c)), after.get((s, c)), attribution.get((s, c), ()))
                 for s, c in moved]
    return out


# -- values ---------------------------------------------------------------------------------------
def _values(path: Path) -> dict[Key, Any]:
    """Every non-empty cell's value as stored, dates as Excel's serials (as `cached_values`
    gives them), read in openpyxl's streaming mode: twice as fast on a big book, and a diff
    reads two of them."""
    from datetime import date, datetime, time, timedelta

    import openpyxl
    from openpyxl.utils.datetime import to_excel

    from rates_xl.functions.sheet import cell_address

    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True, keep_links=True)
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback
        raise CalcError(f"{path}: not a workbook ({type(exc).__name__})") from None
    found: dict[Key, Any] = {}
    try:
        for ws in book.worksheets:
            for row in ws.iter_rows():
                for cell in row:
                    value = getattr(cell, "value", None)
                    if value is None:
                        continue
                    if isinstance(value, datetime | date):
                        value = to_excel(value, book.epoch)
                    elif isinstance(value, time | timedelta):
                        value = to_excel(value)
                    found[(ws.title, cell_address(cell.row, cell.column))] = value
    finally:
        book.close()
    return found


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _same(x: Any, y: Any) -> bool:
    """Equal as stored: numbers bit for bit (a diff reports the least move), NaN equal to NaN."""
    if _number(x) and _number(y):
        return float(x) == float(y) or (math.isnan(float(x)) and math.isnan(float(y)))
    return x == y


# -- requests -------------------------------------------------------------------------------------
def _moved_requests(a: Any, b: Any) -> tuple[list[MovedRequest], dict[str, tuple[Any, Any]]]:
    """Requests whose answer differs between the packs; and request -> (entry in A, in B)."""
    index_a = {e.request: e for e in a.answers} if a is not None else {}
    index_b = {e.request: e for e in b.answers} if b is not None else {}
    moved, changed = [], {}
    for request in sorted(index_a.keys() | index_b.keys()):
        x, y = index_a.get(request), index_b.get(request)
        if x is not None and y is not None and (x.answer, x.error) == (y.answer, y.error):
            continue
        if x is not None and y is not None and _same_json(x.answer, y.answer) and x.error == y.error:
            continue  # the same values spelled otherwise (a cache entry written again)
        what = "answer changed" if x is not None and y is not None else ("only in A" if y is None else "only in B")
        moved.append(MovedRequest(request, what, (x.valuation_time if x else None, y.valuation_time if y else None)))
        changed[request] = (x, y)
    return moved, changed


def _same_json(x: str | None, y: str | None) -> bool:
    if x is None or y is None:
        return False
    try:
        return _without_times(json.loads(x)) == _without_times(json.loads(y))
    except ValueError:
        return False


def _without_times(data: Any) -> Any:
    """An answer without its valuation_time stamp: a trial key's two answers valued a second
    apart with the same numbers have not moved."""
    if isinstance(data, dict):
        return {k: _without_times(v) for k, v in data.items() if k != "valuation_time"}
    if isinstance(data, list):
        return [_without_times(v) for v in data]
    return data


# -- attribution ----------------------------------------------------------------------------------
def _source_of(a: Path) -> Path | None:
    """The book a copy was computed from, by calc's naming: BOOK.values.xlsx -> BOOK.xlsx."""
    if ".values." not in a.name:
        return None
    for suffix in (".xlsx", ".xlsm"):
        found = a.with_name(a.name.split(".values.")[0] + suffix)
        if found.exists():
            return found
    return None


def _attribute(book: Book, moved: list[Key], before: dict[Key, Any], after: dict[Key, Any],
               packs: tuple[Any, Any], changed: dict[str, tuple[Any, Any]]) -> dict[Key, tuple[str, ...]]:
    """Moved cell -> the moved requests upstream of it."""
    from rates_xl.calc.dependencies import Graph, anchors_calling
    from rates_xl.calc.valuation import book_moment

    graph = Graph(book)
    rates = anchors_calling(book.cells, None, rates=True)
    own = book_moment(book)
    pinned = tuple(pack.valuation_time if pack is not None and pack.valuation_time else own for pack in packs)
    moved_set = set(moved)
    found: dict[Key, set[str]] = {}
    for anchor in rates:
        area = _area(book, anchor)
        if not any(key in moved_set for key in area):
            continue  # its answer did not move this run
        names = _requests_of(book, anchor, (before, after), pinned, changed)
        for key in graph.downstream([anchor]) | {anchor}:
            for cell in _area(book, key):
                if cell in moved_set:
                    found.setdefault(cell, set()).update(names)
    return {key: tuple(sorted(names)) for key, names in found.items()}


def _area(book: Book, anchor: Key) -> list[Key]:
    from rates_xl.functions.sheet import cell_address as format_cell

    _formula, (r1, c1, r2, c2) = book.cells[anchor]
    return [(anchor[0], format_cell(r, c)) for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)]


def _requests_of(book: Book, anchor: Key, copies: tuple[dict[Key, Any], dict[Key, Any]],
                 pinned: tuple[Any, Any], changed: dict[str, tuple[Any, Any]]) -> set[str]:
    """The moved requests a RATES_* cell made, read from its formula with the values of A and
    of B (`functions/link.py`); one it cannot read is named with why, never guessed."""
    from rates_xl.client.tiers import request_text
    from rates_xl.functions.link import Unlinked, requests_of

    formula = book.cells[anchor][0]
    made = set()
    for values, moment in zip(copies, pinned, strict=True):
        def value_of(sheet: str, cell: str, values: dict[Key, Any] = values) -> Any:
            return values.get((book.sheet_titles.get(sheet.upper(), sheet), cell))

        try:
            made.update(request_text(key) for key in requests_of(formula, anchor[0], value_of, moment))
        except Unlinked as exc:
            return {f"the request of {address(*anchor)} (not linked: {exc})"}
    return made & changed.keys()


# -- the workbook with the changes highlighted ------------------------------------------------------
def write_report(result: Diff, out: str | Path, *, force: bool = False) -> Path:
    """B with each moved cell filled and noted (was, now, by how much, the requests), and a
    first sheet listing every change."""
    import openpyxl
    from openpyxl.comments import Comment
    from openpyxl.styles import Font, PatternFill

    from rates_xl import atomic

    out = Path(out)
    if out.exists() and not force:
        raise CalcError(f"{out} exists; pass --force to overwrite it")
    try:
        book = openpyxl.load_workbook(result.b, keep_links=True)
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback
        raise CalcError(f"{result.b}: cannot read the workbook ({type(exc).__name__})") from None
    fill = PatternFill("solid", fgColor="FFEB84")
    for number, moved in enumerate(result.cells):
        if moved.sheet not in book.sheetnames:
            continue
        cell = book[moved.sheet][moved.cell]
        cell.fill = fill
        if number >= MAX_NOTES:
            continue
        lines = [f"rates-xl diff: was {_shown(moved.before)} in {result.a.name}, now {_shown(moved.after)}"]
        if moved.change is not None:
            lines.append(f"moved by {moved.change:+.10g}")
        lines += [f"with {r}" for r in moved.requests]
        cell.comment = Comment("\n".join(lines), "rates-xl", width=420, height=30 + 16 * len(lines))
    sheet = book.create_sheet("rates-xl diff", 0)
    sheet.append([f"{result.b.name} against {result.a.name}: {len(result.cells)} cells moved, "
                  f"{len(result.requests)} service answers moved"])
    sheet.append(["Cell", f"A ({result.a.name})", f"B ({result.b.name})", "Change", "Service answers moved with it"])
    for moved in result.cells:
        sheet.append([moved.address, _cell_value(moved.before), _cell_value(moved.after), moved.change,
                      "; ".join(moved.requests)])
    sheet.append([])
    sheet.append(["Request", "Change", "Valued in A", "Valued in B"])
    for request in result.requests:
        sheet.append([request.request, request.change, request.valued[0], request.valued[1]])
    for row in (1, 2, len(result.cells) + 4):
        for cell in sheet[row]:
            cell.font = Font(bold=True)
    sheet.column_dimensions["A"].width = 28
    sheet.column_dimensions["E"].width = 80
    try:
        with atomic.replacing(out) as tmp:
            book.save(tmp)
    except OSError as exc:
        raise CalcError(f"{out}: cannot write it ({exc.strerror or exc})") from None
    return out


def _shown(value: Any) -> str:
    return "empty" if value is None else repr(value) if isinstance(value, str) else f"{value}"


def _cell_value(value: Any) -> Any:
    """A value as the report sheet can hold it (text that looks like a formula stays text)."""
    if isinstance(value, str) and value.startswith("="):
        return "'" + value
    return value
