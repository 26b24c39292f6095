"""One rewriting per formula shape: the copies of a formula down a column (a shared formula,
or the same formula relative to its row) are rewritten once and the answer moved to each.

Most formulas of a real book are such copies (formulas_test.xlsx: 8,551 of its 13,487 cells
in 449 shared formulas), and the passes, the analysis and the fit cost a few hundred
microseconds a formula. A copy may take the answer of its shape (calc/formula/shapes.py)
only when the rewriting is known to move with the cell, which is checked, never assumed:

- the rewriting is watched (`Watch`): what it reads of its cell and its book goes through it.
  Reading the cell's row or column (`Site.row`: a structured `[#This Row]`, an implicit
  intersection), placing a helper cell, or a fact kept by position (`BookFacts.lifted`,
  `formula_cells`, `sources`, `sums`) makes the answer the cell's own: never shared. The
  book's other answers (a range's size, a name's range, a constant's kind ...) are noted with
  what was asked, and a copy takes the shared answer only if its book answers the same to the
  same questions moved to it (one whose answer cannot change with the copy is not asked again:
  a fixed reference's, or the cell count of a range that keeps its size, `_rigid`);
- the first copy's answer is shared only once a second copy, rewritten in full, is the first's
  moved to it (in each direction a copy moves: down a column, along a row); a rewriting that
  writes a reference of its own making (`@` over a one-cell name written as `B18`) fails it.

tests/calc/test_shape_memo.py holds the rewritings that must not be shared.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TypeVar, cast

from rates_xl.calc.formula.shapes import (
    NUMBERS,
    REFERENCES,
    Scanner,
    Shape,
    reference_shape,
    shape,
    text_at,
)
from rates_xl.calc.formula.site import BookFacts, FormulaCells, Site
from rates_xl.calc.formula.tree import Formula

#: Facts the same for every cell of a sheet (read freely).
_SAME = frozenset({"tables", "links", "feeds", "foreign_names", "unsure_texts", "lambda_names", "date1904", "defined_names",
                   "unknown_names", "file_name", "lotus_sheets"})
#: Facts asked a question: which of its arguments are references, moved with a copy.
_ASKED: dict[str, tuple[int, ...]] = {
    "range_size": (1,), "name_range": (1,), "constant_kind": (1,), "text_reading": (1,), "joined_length": (1,),
    "may_be_zero": (1,), "last_row": (),
}

#: Questions whose answer, a range's cell count, every reader compares with 1 alone (one cell,
#: several or unknown: calc/formula/hazards.py, comparisons.py, ranges.py, lambdas.py): a
#: copy's moved range need only answer the same of that (`$E$18:$E20` grows down a column).
_COUNTS = frozenset({"range_size", "size"})

_Ask = TypeVar("_Ask", bound=Callable[..., object])
_ROW = Site.__dict__["row"]
_COL = Site.__dict__["col"]


class Watch:
    """What one formula's rewriting read: the questions asked (name, arguments, answer), and
    whether it read anything that belongs to its cell alone (`own`)."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, tuple[object, ...], object]] = []
        self.own = False

    def site(self, sheet: str, row: int, col: int, facts: BookFacts, array: bool = False) -> Site:
        """A cell's site whose reads come here (an ordinary cell's; `array`: an element of an
        array formula's, for the passes over what each cell finally holds)."""
        found = _WatchedSite(sheet, row, col, array, cast(BookFacts, _WatchedFacts(facts, self)))
        found.watch = self
        return found

    def asking(self, name: str, ask: _Ask) -> _Ask:
        """`ask`, each question and answer noted under `name` (one of `Memo`'s `questions`)."""
        def asked(*args: object) -> object:
            answer = ask(*args)
            self.asked.append((name, args, answer))
            return answer
        return cast(_Ask, asked)

    def placing(self, place: Callable[[list[list[str]]], str | None]) -> Callable[[list[list[str]]], str | None]:
        """`place` (helper cells at addresses of the sheet's own): a rewriting that places any
        is the cell's own."""
        def placed(cells: list[list[str]]) -> str | None:
            self.own = True
            return place(cells)
        return placed


class _WatchedSite(Site):
    __slots__ = ("watch",)
    watch: Watch

    @property
    def row(self) -> int:
        self.watch.own = True
        return cast(int, _ROW.__get__(self))

    @row.setter
    def row(self, value: int) -> None:
        _ROW.__set__(self, value)

    @property
    def col(self) -> int:
        self.watch.own = True
        return cast(int, _COL.__get__(self))

    @col.setter
    def col(self, value: int) -> None:
        _COL.__set__(self, value)

    @property
    def address(self) -> str:
        """(Its own address, moved with a copy: no reading of its row.)"""
        from rates_xl.functions.sheet import cell_address

        return cell_address(_ROW.__get__(self), _COL.__get__(self))

    def in_rows(self, top: int, bottom: int) -> bool:
        answer: bool = top <= _ROW.__get__(self) <= bottom
        self.watch.asked.append(("in_rows", (top, bottom), answer))
        return answer

    def in_cols(self, left: int, right: int) -> bool:
        answer: bool = left <= _COL.__get__(self) <= right
        self.watch.asked.append(("in_cols", (left, right), answer))
        return answer

    def this_row(self) -> int:
        return cast(int, _ROW.__get__(self))

    def this_col(self) -> int:
        return cast(int, _COL.__get__(self))


class _WatchedFacts:
    """`BookFacts` as a watched rewriting reads them."""

    def __init__(self, facts: BookFacts, watch: Watch) -> None:
        self._facts, self._watch = facts, watch

    def __getattr__(self, name: str) -> object:
        value = getattr(self._facts, name)
        if name in _SAME:
            return value
        if name in _ASKED:
            return self._watch.asking(name, value)
        if name == "formula_cells" and value is not None:
            return _Titles(value, self._watch)
        self._watch.own = True  # kept by position, or a fact this list does not know yet
        return value


class _Titles:
    """`FormulaCells` as a watched rewriting reads it: its titles are the book's; any other
    question is about a cell."""

    def __init__(self, cells: FormulaCells, watch: Watch) -> None:
        self._cells, self._watch = cells, watch

    def __getattr__(self, name: str) -> object:
        if name != "titles":
            self._watch.own = True
        return getattr(self._cells, name)


#: A question asked, to ask again of a copy: the book's answer, the arguments (a reference's
#: shape in place of its text), the answer given; no book's answer: whether the cell's row
#: (column) is one of the first two arguments, "in_rows" ("in_cols") the third.
_Asked = tuple[Callable[..., object] | None, tuple[object, ...], object]
#: A question the book is asked again of a copy: its book's answer, the arguments (a moving
#: reference's shape in place of its text), the arguments as the first copy asked them, the
#: answer given.
_Again = tuple[Callable[..., object], tuple[object, ...], tuple[object, ...], object]


_Key = tuple[str, Shape]  # (sheet, shape)


class _Unread:
    """No shape noted for a formula (`Memo.find` reads it)."""


UNREAD = _Unread()


@dataclass(slots=True)
class _Entry:
    row: int
    col: int
    shape: Shape  # of the answer, written in (row, col)
    extra: Hashable
    asked: list[_Again]  # (the questions whose arguments move with a copy)
    lines: list[tuple[int, int, str, bool]]  # (low, high, "in_rows" | "in_cols", answer)
    answer: str  # as written in (row, col)
    rows: bool = False  # a copy in another row was rewritten in full to the same answer
    cols: bool = False
    own_row: bool = False  # the shape writes the copy's own row where the answer wrote its row


@dataclass
class Memo:
    """The shared answers of one book's formulas, by sheet and shape. `questions`: name ->
    (the book's answer, which of its arguments are references) for what a watched rewriting
    asks beyond `BookFacts` (the analysis' range sizes and names of the sheet being read)."""

    facts: BookFacts
    questions: dict[str, tuple[Callable[..., object], tuple[int, ...]]] = field(default_factory=dict)
    _entries: dict[_Key, _Entry | None] = field(default_factory=dict)
    _scan: Scanner = field(default_factory=Scanner)
    _copies: dict[_Key, int] = field(default_factory=dict)  # (`note`)
    _read: Formula | None = None  # the last formula `find` read from its tokens
    shared: int = 0

    def note(self, sheet: str, text: str, row: int, col: int) -> Shape | None:
        """A formula's shape, read and counted before any formula is found (and given to
        `find`): the only formula of its shape has no copy to share with, and is rewritten in
        full unwatched, as one without a shape is (formulas_test.xlsx: 1,242 of 2,535 shapes)."""
        found = self._scan(sheet, text, row, col)
        if found is not None:
            key = (sheet, found)
            self._copies[key] = self._copies.get(key, 0) + 1
        return found

    def find(self, sheet: str, text: str, row: int, col: int,
             noted: Shape | None | _Unread = UNREAD) -> tuple[_Key | None, tuple[str, Hashable] | None]:
        """(a handle for `learn`, the shared (answer, extra) for this copy or None: rewrite it
        in full, watched when the handle is not None). `noted`: its shape as `note` answered."""
        found = self._scan(sheet, text, row, col) if isinstance(noted, _Unread) else noted
        if found is None:
            return None, None
        key = (sheet, found)
        if self._copies.get(key, 2) < 2:
            return None, None  # (the shape's only formula)
        entry = self._entries.get(key)
        if entry is None and key in self._entries:
            return None, None  # (a shape whose answer is not shared)
        if entry is None or (row != entry.row and not entry.rows) or (col != entry.col and not entry.cols):
            # The first copy, or the first in a new direction: rewritten in full and compared,
            # when its tokens read the shape its text scans to.
            read = self._read = Formula(text)
            if (None if read.error is not None else shape(text, row, col, tokens=read.tokens)) != found:
                self._entries[key] = None
                return None, None
            return key, None
        if not _same_answers(entry, row, col):
            # The book answers this copy otherwise (its own cached 0, a range grown past one
            # cell): it is rewritten in full, and the copies after it follow it instead.
            del self._entries[key]
            return key, None
        # (An answer of the copy's own shape is its text: a scanned shape writes it back, shapes.py.)
        answer = text if entry.shape is found else text_at(entry.shape, row, col)
        if answer is None:
            return None, None
        self.shared += 1
        return None, (answer, entry.extra)

    def read(self, text: str) -> Formula:
        """`text` read (the formula `find` last read, when it is this one: its tokens are read
        once)."""
        last = self._read
        return last if last is not None and last.text == text else Formula(text)

    def learn(self, key: _Key, watch: Watch, row: int, col: int, answer: str | None, extra: Hashable,
              text: str | None = None) -> None:
        """A watched rewriting's `answer` (None: it has none to share) for the copy `find` gave
        `key` for (`text`: the copy's own, when known)."""
        entry = self._entries.get(key)
        if answer is None or watch.own:
            self._entries[key] = None
            return
        if entry is None:
            # (An answer that is the copy's text has the shape `find` checked its text has.)
            found = key[1] if answer == text else shape(answer, row, col)
            if found == key[1]:
                found = key[1]  # (the formula unchanged: its copies' answer is their text, `find`)
            asked = self._asked(watch, row, col)
            self._entries[key] = None if found is None or asked is None else _Entry(
                row, col, found, extra, *_again(asked, row, col), answer)
            return
        if extra != entry.extra:
            self._entries[key] = None
            return
        if text_at(entry.shape, row, col) != answer:
            # The copy in another row may write its own row where the first wrote its own
            # (`[#This Row]` as `$C$5`, `ROW($A5)` as 5): the answer's shape read so.
            readings = () if entry.own_row or row == entry.row else (REFERENCES, NUMBERS, REFERENCES | NUMBERS)
            own = next((found for reading in readings
                        if (found := shape(entry.answer, entry.row, entry.col, reading)) is not None
                        and text_at(found, row, col) == answer), None)
            if own is None:
                self._entries[key] = None  # the answer does not move with the cell
                return
            entry.shape, entry.own_row = own, True
        entry.rows = entry.rows or row != entry.row
        entry.cols = entry.cols or col != entry.col

    def _asked(self, watch: Watch, row: int, col: int) -> list[_Asked] | None:
        """The questions the rewriting asked, each reference argument as its shape (None: one
        has none, and the answer cannot be shared)."""
        out: list[_Asked] = []
        for name, args, answer in watch.asked:
            if name in ("in_rows", "in_cols"):
                out.append((None, (*args, name), answer))
                continue
            if name in self.questions:
                ask, references = self.questions[name]
            else:
                ask, references = getattr(self.facts, name), _ASKED[name]
            if name in _COUNTS:
                ask, answer = _counted(ask), _one_or_more(answer)
            if references:
                moved = list(args)
                for at in references:
                    text = args[at]
                    found = reference_shape(text, row, col) if isinstance(text, str) else None
                    if found is None:
                        return None
                    moved[at] = found
                args = tuple(moved)
                if name in _COUNTS and all(_rigid(args[at]) for at in references):
                    continue  # (a count every copy answers the same: not asked again)
            out.append((ask, tuple(args), answer))
        return out


def _rigid(found: object) -> bool:
    """Whether a reference's shape covers as many cells wherever it is written (a count's
    reader reads only that, `_COUNTS`): one cell, or one range whose corners are as absolute
    as each other on each axis (`A5:B7` moving down a column, `$A$1:$B$3`; not `$A$1:A5`,
    which grows), after a sheet's prefix or none."""
    if not isinstance(found, tuple) or len(found) not in (3, 5) or found[-1] != "":
        return False
    first = found[0]
    if not isinstance(first, str) or not (first == "=" or first.endswith("!")):
        return False
    if len(found) == 3:
        return True
    a, b = found[1], found[3]
    return found[2] == ":" and a[0] == b[0] and a[2] == b[2]


def _one_or_more(count: object) -> object:
    """A cell count as its readers read it: 1, "more", or itself (None: unknown)."""
    return "more" if isinstance(count, int) and count > 1 else count


def _counted(ask: Callable[..., object]) -> Callable[..., object]:
    def counted(*args: object) -> object:
        return _one_or_more(ask(*args))
    return counted


def _fixed(found: Shape) -> bool:
    """Whether a reference's shape is written the same in every cell (each corner absolute, or
    no row or column, and no absolute row 0: the cell's own)."""
    return all(isinstance(piece, str) or ((piece[0] or piece[1] is None) and (piece[2] or piece[3] is None)
                                           and piece[3] != 0)
               for piece in found)


def _again(asked: list[_Asked], row: int, col: int) -> tuple[list[_Again], list[tuple[int, int, str, bool]]]:
    """The questions of an entry first asked in (row, col), as `_same_answers` asks them again:
    those about the cell's row or column apart; of the book's, only those with an argument
    that moves with a copy (one whose arguments read the same in every copy is answered the
    same), each with its arguments as first asked."""
    again: list[_Again] = []
    lines: list[tuple[int, int, str, bool]] = []
    for ask, args, answer in asked:
        if ask is None:
            low, high, name = cast(tuple[int, int, str], args)
            lines.append((low, high, name, cast(bool, answer)))
        elif any(isinstance(arg, tuple) and not _fixed(arg) for arg in args):
            first = tuple(cast(str, text_at(arg, row, col))[1:] if isinstance(arg, tuple) else arg for arg in args)
            again.append((ask, args, first, answer))
    return again, lines


def _same_answers(entry: _Entry, row: int, col: int) -> bool:
    """Whether the book answers the entry's questions, moved to (row, col), as it did (a
    question that reads the same in the copy is not asked again)."""
    for low, high, name, answer in entry.lines:
        if (low <= (row if name == "in_rows" else col) <= high) != answer:
            return False
    for ask, args, first, given in entry.asked:
        moved = []
        for arg in args:
            if isinstance(arg, tuple):
                text = text_at(arg, row, col)
                if text is None:
                    return False
                arg = text[1:]
            moved.append(arg)
        if moved != list(first) and ask(*moved) != given:
            return False
    return True
