"""`rates-xl diff`: two computed copies of one book, cell by cell, and the service answers
behind each change (the start of a P&L explain: today against yesterday).

A and B are copies `rates-xl calc` wrote (values frozen, each carrying its market-data
pack), of one book: two valuations, or one book replayed from two packs. The diff lists

- every cell whose value moved beyond a tolerance (`DEFAULT_TOLERANCE`: a 5e-13 wobble of
  floating-point arithmetic is not a move), by how much (numbers, absolute and relative) or
  from what to what; the book's outputs (cells no formula reads: the NPV, not the cash
  flows behind it) first, then the rest, each group largest move first;
- every request whose answer moved between the two packs;
- for each moved cell, the moved requests upstream of it: the RATES_* cells it reads,
  directly or not (`calc/dependencies.py`'s graph of the book's formulas), and, for each,
  the request whose answers match that cell's values in A and in B.

Which request a RATES_* cell made is read from the book's formulas (the book the copies
were computed from: beside A by calc's naming, or `--book`), never matched by value
(`calc/attribution.py`): each RATES_* call of the cell, its arguments read as the cell read
them (a literal, or the referenced cell's value in that copy), validated into the request the
caches key it by (`functions/link.py`, the code RATES_SOURCE uses), at the moment each copy's
run was pinned at (its pack's `valuation_time`, else the book's RATES_VALUATION_TIME). IF and
the other branching functions are followed (only the branch taken asks), arguments may be
expressions over cells and defined names (`functions/formula_walk.py`); a cell whose request
still cannot be read is named with why: never a guess.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias, TypeGuard

from rates_xl.calc import feed_links, openpyxl_read
from rates_xl.calc.attribution import attribute, cell_labels, graph_of, read_cells
from rates_xl.calc.book import Book, CalcError
from rates_xl.client.json_types import JSONValue
from rates_xl.functions.sheet import Key, address, parse_cell
from rates_xl.functions.values import CellValue, ErrorLikeText

if TYPE_CHECKING:
    from rates_xl.client.pack import Pack, PackAnswer

#: Request -> its entry in A's pack and in B's (None: not in that pack).
Changed: TypeAlias = "dict[str, tuple[PackAnswer | None, PackAnswer | None]]"

#: How many moved cells of each group (outputs, the rest) the screen shows (the workbook
#: written with -o holds them all).
MAX_SHOWN = 20
#: A number moved when it changed by more than this much (absolute) AND by more than
#: `DEFAULT_RELATIVE` of its size: sums of products in double precision wobble by about 1e-16
#: of the terms' size (the swap pricer's par-rate check moved 4.9e-13 bp between two runs of
#: the same inputs), and a cash flow of 1e9 by 1e-7; neither is a move anyone asked about.
DEFAULT_TOLERANCE = 1e-9
DEFAULT_RELATIVE = 1e-12
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
    before: CellValue
    after: CellValue
    requests: tuple[str, ...] = ()  # moved requests upstream (or "the request of ... (not linked: why)")
    output: bool | None = None  # no formula reads it (None: the book with formulas was not found)
    label: str | None = None  # a defined name for the cell, or the text labelling its row

    @property
    def address(self) -> str:
        return address(self.sheet, self.cell)

    @property
    def change(self) -> float | None:
        if _number(self.before) and _number(self.after):
            return float(self.after) - float(self.before)
        return None

    @property
    def relative(self) -> float | None:
        """The change as a fraction of A's value (None from zero, or for text)."""
        change = self.change
        if change is None or not _number(self.before) or self.before == 0:
            return None
        return change / abs(float(self.before))

    def size(self) -> tuple[float, float]:
        """How much it moved, for ordering: (relative, absolute); a cell that changed kind
        (a number to an error) or moved from zero ranks above any number's move."""
        change = self.change
        if change is None or not math.isfinite(change):
            return math.inf, math.inf
        relative = self.relative
        return (math.inf if relative is None else abs(relative)), abs(change)


@dataclass
class Diff:
    a: Path
    b: Path
    cells: list[MovedCell] = field(default_factory=list)  # outputs first, then largest move first
    requests: list[MovedRequest] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: what cannot be trusted in A or B (calc/provenance.py): an edited pack, cells that are not
    #: the ones a pack was written with; a diff with any is never a clean comparison
    untrusted: list[str] = field(default_factory=list)
    #: each copy's pack check in one line, trusted or not (unsigned, unverified, checked)
    checks: list[str] = field(default_factory=list)
    #: a copy that is a scenario's (docs/scenarios.md), said first: its numbers are not market data
    scenarios: list[str] = field(default_factory=list)
    tolerance: tuple[float, float] = (DEFAULT_TOLERANCE, DEFAULT_RELATIVE)  # absolute, relative
    wobbles: list[float] = field(default_factory=list)  # numbers' changes within the tolerance

    @property
    def outputs(self) -> list[MovedCell]:
        return [c for c in self.cells if c.output]

    @property
    def others(self) -> list[MovedCell]:
        return [c for c in self.cells if not c.output]


def diff(a: str | Path, b: str | Path, *, book: str | Path | None = None,
         tolerance: float = DEFAULT_TOLERANCE, relative: float = DEFAULT_RELATIVE) -> Diff:
    """Compare two computed copies; `book` (the workbook with formulas) attributes each moved
    cell to the requests upstream of it and tells outputs from the cells they read (default:
    A's name without `.values`, if present). A number moved when it changed by more than
    `tolerance` and by more than `relative` times its size."""
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
    before, after = copy_values(a), copy_values(b)
    out = Diff(a, b, tolerance=(tolerance, relative))
    _check_copies(out, packs, (before, after))
    for label, path, pack in zip("AB", (a, b), packs, strict=True):
        if pack is not None and pack.scenario is not None:
            out.scenarios.append(f"{label} ({path.name}) is a SCENARIO copy, {pack.scenario.described}: NOT market "
                                 "data; its answers are the market's moved by the local model, compared as such")
    moved = []
    for key in before.keys() | after.keys():
        x, y = before.get(key), after.get(key)
        if _same(x, y):
            continue
        if _number(x) and _number(y) and _within(x, y, out.tolerance):
            out.wobbles.append(abs(float(y) - float(x)))
            continue
        moved.append(key)
    out.requests, changed = _moved_requests(*packs, out.tolerance)
    for path, pack in zip((a, b), packs, strict=True):
        if pack is None:
            out.notes.append(f"{path.name} carries no market-data pack: the answers that moved cannot be named")
    source = Path(book) if book is not None else _source_of(a)
    attribution: dict[Key, tuple[str, ...]] = {}
    read: set[Key] | None = None
    labels: dict[Key, str] = {}
    if source is not None and moved:
        formulas = Book(source)
        graph = graph_of(formulas)
        read = read_cells(formulas, graph)
        labels = cell_labels(formulas, moved, after)
        if changed:  # no answer moved: nothing to attribute
            attribution = attribute(formulas, graph, moved, before, after, packs, changed.keys())
    elif moved and book is None:
        out.notes.append("the book with formulas was not found beside A (give --book): moved cells are "
                         "not attributed to requests, nor told apart as outputs")
    cells = [MovedCell(s, c, before.get((s, c)), after.get((s, c)), attribution.get((s, c), ()),
                       None if read is None else (s, c) not in read, labels.get((s, c)))
             for s, c in moved]
    cells.sort(key=lambda m: (not m.output, *(-x for x in m.size()), m.sheet, *parse_cell(m.cell)))
    out.cells = cells
    return out


def _check_copies(out: Diff, packs: tuple[Pack | None, Pack | None],
                  values: tuple[dict[Key, CellValue], dict[Key, CellValue]]) -> None:
    """Each copy's pack checked and its cells compared with the digest the pack recorded."""
    from rates_xl.calc.provenance import check_copy, this_machine

    signer = this_machine()
    for label, path, pack, cells in zip("AB", (out.a, out.b), packs, values, strict=True):
        found = check_copy(path, pack, cells, signer)
        lines = found.lines(f"{label} ({path.name})")
        if pack is None:
            continue  # said in the notes, as before
        (out.untrusted if not found.trusted else out.checks).extend(lines)


# -- values ---------------------------------------------------------------------------------------
def copy_values(path: Path) -> dict[Key, CellValue]:
    """Every non-empty cell's value as stored, dates as Excel's serials (as `cached_values`
    gives them), read in openpyxl's streaming mode: twice as fast on a big book, and a diff
    reads two of them."""
    from datetime import date, time, timedelta

    import openpyxl

    from rates_xl.functions.values import text_value, to_serial

    feed_links.mend()  # (a link to a DDE or OLE feed read too)
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True, keep_links=True)
    except Exception as exc:  # noqa: BLE001 - one line, never a traceback
        raise CalcError(f"{path}: not a workbook ({type(exc).__name__})") from None
    found: dict[Key, CellValue] = {}
    try:
        for ws in book.worksheets:
            for row in ws.iter_rows():
                for cell in row:
                    value = getattr(cell, "value", None)
                    if value is None:
                        continue
                    if isinstance(value, date | time | timedelta):
                        value = to_serial(value, book.epoch)
                    elif isinstance(value, str) and cell.data_type == "s":
                        value = text_value(value)  # "#N/A" in a string cell is text
                    found[(ws.title, cell.coordinate)] = value
    finally:
        book.close()
    return found


def _number(value: object) -> TypeGuard[int | float]:
    """A number (a boolean is not one)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _same(x: object, y: object) -> bool:
    """Equal as stored: numbers bit for bit, NaN equal to NaN, the text "#N/A" not the error."""
    if _number(x) and _number(y):
        return float(x) == float(y) or (math.isnan(float(x)) and math.isnan(float(y)))
    return x == y and isinstance(x, ErrorLikeText) == isinstance(y, ErrorLikeText)


def _within(x: object, y: object, tolerance: tuple[float, float]) -> bool:
    """Two numbers closer than the tolerance: by at most `absolute`, or at most `relative`
    of the larger one's size (a wobble, not a move)."""
    if not (_number(x) and _number(y)):
        return False
    a, b = float(x), float(y)
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    absolute, relative = tolerance
    return abs(b - a) <= max(absolute, relative * max(abs(a), abs(b)))


# -- requests -------------------------------------------------------------------------------------
def _moved_requests(a: Pack | None, b: Pack | None, tolerance: tuple[float, float] = (0.0, 0.0)
                    ) -> tuple[list[MovedRequest], Changed]:
    """Requests whose answer differs between the packs; and request -> (entry in A, in B)."""
    index_a, index_b = _served(a), _served(b)
    moved: list[MovedRequest] = []
    changed: Changed = {}
    for request in sorted(index_a.keys() | index_b.keys()):
        x, y = index_a.get(request), index_b.get(request)
        if x is not None and y is not None and (x.answer, x.error) == (y.answer, y.error):
            continue
        if x is not None and y is not None and _same_json(x.answer, y.answer, tolerance) and x.error == y.error:
            continue  # the same values spelled otherwise (a cache entry written again), or a wobble
        what = "answer changed" if x is not None and y is not None else ("only in A" if y is None else "only in B")
        moved.append(MovedRequest(request, what, (x.valuation_time if x else None, y.valuation_time if y else None)))
        changed[request] = (x, y)
    return moved, changed


def _served(pack: Pack | None) -> dict[str, PackAnswer]:
    """Request -> the answer a replay of `pack` serves: a scenario pack's under its scenario."""
    if pack is None:
        return {}
    moved = {s.request: s.answer for s in pack.scenario.answers if s.answer is not None} if pack.scenario else {}
    return {e.request: e.model_copy(update={"answer": moved[e.request]}) if e.request in moved else e
            for e in pack.answers}


def _same_json(x: str | None, y: str | None, tolerance: tuple[float, float] = (0.0, 0.0)) -> bool:
    if x is None or y is None:
        return False
    try:
        return _close(_without_times(json.loads(x)), _without_times(json.loads(y)), tolerance)
    except ValueError:
        return False


def _close(x: JSONValue, y: JSONValue, tolerance: tuple[float, float]) -> bool:
    """Two JSON answers equal but for numbers within the tolerance."""
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(_close(x[k], y[k], tolerance) for k in x)
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(_close(i, j, tolerance) for i, j in zip(x, y, strict=True))
    return _same(x, y) or _within(x, y, tolerance)


def _without_times(data: JSONValue) -> JSONValue:
    """An answer without its valuation_time stamp: a trial key's two answers valued a second
    apart with the same numbers have not moved."""
    if isinstance(data, dict):
        return {k: _without_times(v) for k, v in data.items() if k != "valuation_time"}
    if isinstance(data, list):
        return [_without_times(v) for v in data]
    return data


# -- the book with formulas --------------------------------------------------------------------
def _source_of(a: Path) -> Path | None:
    """The book a copy was computed from, by calc's naming: BOOK.values.xlsx -> BOOK.xlsx."""
    if ".values." not in a.name:
        return None
    for suffix in (".xlsx", ".xlsm"):
        found = a.with_name(a.name.split(".values.")[0] + suffix)
        if found.exists():
            return found
    return None


# -- the workbook with the changes highlighted ------------------------------------------------------
def write_report(result: Diff, out: str | Path, *, force: bool = False) -> Path:
    """B with each moved cell filled and noted (was, now, by how much, the requests), and a
    first sheet listing every change."""
    from openpyxl.comments import Comment
    from openpyxl.styles import Font, PatternFill

    from rates_xl import atomic

    out = Path(out)
    if out.exists() and not force:
        raise CalcError(f"{out} exists; pass --force to overwrite it")
    try:
        book = openpyxl_read.load_workbook(result.b, keep_links=True)
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
    warning = " NOT TRUSTED: a copy's record was edited (listed at the end of this sheet)." if result.untrusted else ""
    warning += "".join(f" {line}." for line in result.scenarios)
    sheet.append([headline(result) + warning])
    sheet.append(["Cell", "Output", "Label", f"A ({result.a.name})", f"B ({result.b.name})", "Change",
                  "Change (relative)", "Service answers moved with it"])
    for moved in result.cells:
        sheet.append([moved.address, {True: "output", False: "", None: "?"}[moved.output], moved.label or "",
                      _cell_value(moved.before), _cell_value(moved.after), moved.change, moved.relative,
                      "; ".join(moved.requests)])
        sheet.cell(sheet.max_row, 7).number_format = "0.0000%"
    sheet.append([])
    sheet.append(["Request", "Change", "Valued in A", "Valued in B"])
    for request in result.requests:
        sheet.append([request.request, request.change, request.valued[0], request.valued[1]])
    for row in (1, 2, len(result.cells) + 4):
        for cell in sheet[row]:
            cell.font = Font(bold=True)
    if result.untrusted:
        sheet.append([])
        for line in result.untrusted:
            sheet.append([f"NOT TRUSTED: {line}."])
            sheet.cell(sheet.max_row, 1).font = Font(bold=True, color="C00000")
    sheet.column_dimensions["A"].width = 28
    sheet.column_dimensions["C"].width = 24
    sheet.column_dimensions["H"].width = 80
    try:
        with atomic.replacing(out) as tmp:
            book.save(tmp)
    except OSError as exc:
        raise CalcError(f"{out}: cannot write it ({exc.strerror or exc})") from None
    return out


def headline(result: Diff) -> str:
    """One line: what moved, beyond which tolerance, and the wobbles left out."""
    cells, answers = len(result.cells), len(result.requests)
    absolute, relative = result.tolerance
    outputs = "" if any(c.output is None for c in result.cells) or not cells else (
        f" ({len(result.outputs)} of them output{'s' if len(result.outputs) != 1 else ''})")
    line = (f"{result.b.name} against {result.a.name}: {cells} cell{'s' if cells != 1 else ''} moved{outputs}, "
            f"{answers} service answer{'s' if answers != 1 else ''} moved.")
    if result.wobbles:
        line += (f" {len(result.wobbles)} more changed by at most {max(result.wobbles):.2g}, within the tolerance "
                 f"({absolute:g}, or {relative:g} of the value): not counted.")
    return line


def on_screen(cells: list[MovedCell], limit: int = MAX_SHOWN) -> list[MovedCell]:
    """The cells of a group a screen has room for: those that moved most by share and those
    that moved most by amount, half the room each (the rest from the first ranking), in the
    group's order. By share alone, a leg's PV moving 19,571 (0.6 %) was left off the screen
    under twenty cash flows moving 1 % (issue 31: what a user asks first)."""
    if len(cells) <= limit:
        return cells
    by_amount = sorted((c for c in cells if c.change is not None), key=lambda c: -abs(c.change or 0.0))  # (None left out above)
    picked = {id(c) for c in by_amount[:limit // 2]}
    for cell in cells:
        if len(picked) >= limit:
            break
        picked.add(id(cell))
    return [c for c in cells if id(c) in picked]


def moved_most(cells: list[MovedCell]) -> str | None:
    """One line: the cell that moved most by amount and the one that moved most by share."""
    numbers = [c for c in cells if c.change is not None and math.isfinite(c.change)]
    if not numbers:
        return None
    amount = max(numbers, key=lambda c: abs(c.change or 0.0))  # (None left out above)
    shares = [c for c in numbers if c.relative is not None]
    share = max(shares, key=lambda c: abs(c.relative or 0.0)) if shares else None

    def named(cell: MovedCell) -> str:
        label = f" ({cell.label})" if cell.label else ""
        relative = "" if cell.relative is None else f", {cell.relative * 100:+.4g} %"
        return f"{cell.address}{label} {cell.change:+,.6g}{relative}"

    line = f"Moved most by amount: {named(amount)}"
    if share is not None and share is not amount:
        line += f"; by share: {named(share)}"
    elif share is amount:
        line += " (also the most by share)"
    return line + "."


def _shown(value: CellValue) -> str:
    return "empty" if value is None else repr(value) if isinstance(value, str) else f"{value}"


def _cell_value(value: CellValue) -> CellValue:
    """A value as the report sheet can hold it (text that looks like a formula stays text)."""
    if isinstance(value, str) and value.startswith("="):
        return "'" + value
    return value
