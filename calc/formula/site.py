"""Where a formula stands and what a pass may ask of its book (the passes' one argument
besides the formula), and the one way a pass says the engine cannot compute it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rates_xl.errors import InputError
from rates_xl.functions.sheet import (
    MAX_COL,
    MAX_ROW,
    Area,
    Key,
    cell_address,
    read_area,
    split_reference,
    unquote_sheet,
)

if TYPE_CHECKING:
    from rates_xl.calc.formula.defined_names import Names
    from rates_xl.calc.formula.tables import Table
    from rates_xl.calc.sources import Targets


def _no_names() -> Names:
    from rates_xl.calc.formula.defined_names import Names  # (it reads this module)

    return Names()


class NotComputed(InputError):
    """The engine's copy cannot hold the formula as Excel reads it (the message says why): the
    cell keeps the file's cached value and is listed with the `reason`."""

    @property
    def reason(self) -> str:
        return str(self)


#: A sum's last operand whose value can be read after an evaluation: a number, or the cell
#: (sheet, row, column) it reads (calc/formula/terms.py).
Operand = float | tuple[str, int, int]


@dataclass
class BookFacts:
    """What the passes read of the book, gathered once by the preparation (calc/fast.py)."""

    #: Upper-case table name -> its definition (calc/formula/tables.py).
    tables: dict[str, Table] = field(default_factory=dict)
    #: Which cells hold a formula (`FormulaCells`), for ISFORMULA.
    formula_cells: FormulaCells | None = None
    #: (the formula's sheet, a sheet it reads or None for its own) -> the last row that may
    #: hold a value there (whole columns read to one length).
    last_row: Callable[[str, str | None], int] = lambda _own, _sheet: 0
    #: The referenced cells' formulas for RATES_SOURCE (calc/sources.py `Targets`).
    sources: Targets | None = None
    #: (sheet, anchor) -> "A1:A5": dynamic arrays the engine computes cell by cell (filled
    #: once the fit has lifted them).
    lifted: dict[Key, str] = field(default_factory=dict)
    #: The external links to other workbooks the file holds (1-based, as `[1]Sheet1!A1` names them).
    links: frozenset[int] = frozenset()
    #: Its links to a live feed (a DDE server, an OLE object) by number -> what each reads
    #: (`DDE WINROS|LAST`: calc/feed_links.py); a cell reading one is listed (`other_workbooks`).
    feeds: dict[int, str] = field(default_factory=dict)
    #: (sheet, coordinate) -> whether the cell may hold Excel's 0 after a last + or -
    #: (calc/formula/terms.py): Excel cached 0 there or nothing, or the book's values are out of
    #: date. A cell Excel cached another number for did not meet the adjustment at the book's
    #: inputs, and its formula is left as it is (rewriting every sum costs its evaluation twice).
    may_be_zero: Callable[[str, str], bool] = lambda _sheet, _cell: True
    #: Sums whose adjustment the values decide (calc/formula/terms.py): (sheet, row, column)
    #: -> the last operand, a number or a cell. None: every sum is written out.
    sums: dict[tuple[str, int, int], Operand] | None = None
    #: Upper-case defined names standing for another workbook's name (`k` = `[4]!p`): a cell
    #: reading one is listed (calc/formula/ranges.py `other_workbooks`).
    foreign_names: frozenset[str] = frozenset()
    #: Upper-case defined name -> a function its formula calls that the engine does not know (an
    #: Excel 4 macro function, GET.WORKBOOK): a cell reading one is listed (calc/formula/defined_names.py).
    unknown_names: dict[str, str] = field(default_factory=dict)
    #: The sheets set to evaluate formulas by Lotus 1-2-3's rules, whose formulas are listed
    #: (calc/formula/lotus_rules.py).
    lotus_sheets: frozenset[str] = frozenset()
    #: (the formula's sheet, a defined name) -> the one range it stands for ("'Data'!$A$1:$A$9"),
    #: None for anything else (calc/book.py `Book.name_range`).
    name_range: Callable[[str, str], str | None] = lambda _sheet, _name: None
    #: (the formula's sheet, an operand) -> how many cells it covers, None when unknown
    #: (calc/book.py `Book.range_size`).
    range_size: Callable[[str, str], int | None] = lambda _sheet, _text: None
    #: (the formula's sheet, a one-cell reference) -> what the constant there is to a
    #: comparison (calc/formula/comparisons.py `constant_kind`), None when the cell holds a
    #: formula or may change during the calculation (a what-if data table's input).
    constant_kind: Callable[[str, str], str | None] = lambda _sheet, _text: None
    #: (the formula's sheet, a one-cell reference) -> of a cell holding a constant text, how the
    #: engine reads it against Excel (calc/xlfuncs/text/number_text.py `reading`: PLAIN, TIME,
    #: NO_NUMBER, UNSURE); NO_TEXT for any other constant (a number, a logical, nothing) and a
    #: formula that answers no text; None for any other formula, or when constants may change
    #: (calc/formula/number_arguments.py).
    text_reading: Callable[[str, str], str | None] = lambda _sheet, _text: None
    #: (the formula's sheet, a one-cell reference) -> of a cell holding a constant that is no
    #: number (a text, a logical, an error, nothing), the most characters it writes when joined
    #: (`&`: calc/formula/text.py, text_limit.py); None for a number, a formula, or when
    #: constants may change.
    joined_length: Callable[[str, str], int | None] = lambda _sheet, _text: None
    #: Whether any cell of the book holds a constant text whose reading as a number is not
    #: settled (`text_reading` UNSURE): only then are the operands of arithmetic asked about.
    unsure_texts: bool = False
    #: The defined names the engine does not read, written into the formulas using them
    #: (calc/formula/defined_names.py `Names`).
    defined_names: Names = field(default_factory=lambda: _no_names())
    #: Upper-case defined name -> the LAMBDA it stands for (calc/formula/lambdas.py `named_lambdas`).
    lambda_names: dict[str, str] = field(default_factory=dict)
    #: The book's sheets, in the order of their tabs (calc/formula/three_d.py).
    sheets: tuple[str, ...] = ()
    #: What CELL("filename") answers before a sheet's name: the book's folder and its name in
    #: brackets (`/models/[Plan.xlsx]`; calc/formula/cell_info.py), "" when not known.
    file_name: str = ""
    #: Whether it counts dates from 1904 (`date1904`): a typed date's serial is its
    #: (calc/formula/number_arguments.py, calc/xlfuncs/dates/system1904.py).
    date1904: bool = False
    #: Sheet -> (its hidden rows, those of them inside an autofilter's range: filtered out), for
    #: the sheets that hide any (calc/formula/hidden_rows.py).
    hidden_rows: dict[str, tuple[frozenset[int], frozenset[int]]] = field(default_factory=dict)


@dataclass(slots=True)
class Site:
    """A formula's cell: its sheet, row and column, whether it is an array formula's anchor
    (Ctrl+Shift+Enter or dynamic), and its book."""

    sheet: str
    row: int
    col: int
    array: bool = False
    book: BookFacts = field(default_factory=BookFacts)

    @property
    def address(self) -> str:
        """Its own cell's A1 address (`B7`): a pass asking the book about its own cell asks
        this, which moves with a copy of the formula (calc/formula/memo.py), not its row."""
        return cell_address(self.row, self.col)

    # A pass that reads its cell's position for a reference to its own row or column (an
    # implicit intersection, `[#This Row]`) asks these rather than reading `row` and `col`:
    # the shape memo (calc/formula/memo.py) asks a copy the same questions, and moves the row
    # written into the answer with the copy. Any other use of the position reads `row`.
    def in_rows(self, top: int, bottom: int) -> bool:
        """Whether its row is one of top..bottom."""
        return top <= self.row <= bottom

    def in_cols(self, left: int, right: int) -> bool:
        """Whether its column is one of left..right."""
        return left <= self.col <= right

    def this_row(self) -> int:
        """Its row, to be written into the answer as its own row (nothing else decided by it)."""
        return self.row

    def this_col(self) -> int:
        """Its column, to be written into the answer as its own column."""
        return self.col


_ROWS = 256  # an array taller than this is asked of in full (`FormulaCells._index`)

#: Past this many cells the argument is left to the engine (the answer is written out cell by cell).
MOST_CELLS = 10_000


class FormulaCells:
    """Which cells of the book hold a formula, as the file was read (`Book.cells`:
    (sheet, anchor) -> (text, area r1, c1, r2, c2); `legacy`: the legacy array anchors;
    `titles`: `Book.sheet_titles`)."""

    def __init__(self, cells: dict[Key, tuple[str, Area]],
                 legacy: frozenset[Key] | set[Key], titles: dict[str, str]) -> None:
        self.titles = titles  # upper-case title -> the sheet's title
        self._cells, self._legacy_anchors = cells, legacy
        self._indexed = False  # (the areas of several cells, gathered on first use)
        self._legacy: dict[tuple[str, int], list[Area]] = {}  # (sheet, row) -> areas of several cells
        self._spills: dict[tuple[str, int], list[Area]] = {}
        self._tall: dict[str, list[tuple[Area, bool]]] = {}  # areas past _ROWS rows (legacy or not), asked in full
        self._subtotals: dict[str, list[tuple[int, int, int, int]]] | None = None  # (`subtotal_rows`)

    def _index(self) -> None:
        if self._indexed:
            return
        self._indexed = True
        for (sheet, anchor), (_text, area) in self._cells.items():
            r1, c1, r2, c2 = area
            if r1 != r2 or c1 != c2:
                kind = self._legacy if (sheet, anchor) in self._legacy_anchors else self._spills
                for row in range(r1, min(r2, r1 + _ROWS) + 1):  # (asked of many cells: by row)
                    kind.setdefault((sheet, row), []).append(area)
                if r2 > r1 + _ROWS:
                    self._tall.setdefault(sheet, []).append((area, kind is self._legacy))

    def area(self, reference: str, sheet: str) -> tuple[str, Area] | None:
        """The sheet (its title) and the area a plain A1 reference of this book covers, read from
        `sheet`; None for anything else (another workbook, a 3-D reference, a sheet the book does
        not have, a name, a whole column)."""
        prefix, ref = split_reference(reference)
        if prefix:
            if "[" in prefix or ":" in prefix:
                return None
            title = self.titles.get(unquote_sheet(prefix[:-1]).upper())
            if title is None:
                return None
            sheet = title
        area = read_area(ref, whole_lines=False)
        return None if area is None else (sheet, area)

    def subtotal_rows(self, sheet: str, area: Area) -> set[int] | None:
        """The rows of `area` on `sheet` whose cell holds a SUBTOTAL or AGGREGATE (which an
        AGGREGATE over them leaves out with its options 0 to 3), the area being one column; None
        when the area is wider and holds one, or an array formula calling one crosses it."""
        if self._subtotals is None:
            self._subtotals = {}
            for (title, _anchor), (text, (r1, c1, r2, c2)) in self._cells.items():
                upper = text.upper()
                if "SUBTOTAL(" in upper or "AGGREGATE(" in upper:
                    self._subtotals.setdefault(title, []).append((r1, c1, r2, c2))
        rows: set[int] = set()
        for r1, c1, r2, c2 in self._subtotals.get(sheet, ()):
            if r2 < area.top or r1 > area.bottom or c2 < area.left or c1 > area.right:
                continue
            if (r1, c1) != (r2, c2) or area.left != area.right:
                return None
            rows.add(r1)
        return rows

    def formula(self, sheet: str, row: int, col: int) -> str | None:
        """The formula of that cell where it is a formula's one cell (not an array's)."""
        found = self._cells.get((sheet, cell_address(row, col))) if 1 <= row <= MAX_ROW and 1 <= col <= MAX_COL else None
        if found is None or (sheet, cell_address(row, col)) in self._legacy_anchors:
            return None
        text, (r1, c1, r2, c2) = found
        return text if (r1, c1) == (r2, c2) else None

    def answer(self, sheet: str, row: int, col: int) -> bool | None:
        """Whether that cell holds a formula; None when the file cannot say (a spilled cell)."""
        self._index()
        # (An anchor is keyed by its coordinate as openpyxl writes it, `B7`, as `cell_address`
        # writes one: a book's anchors are not read and parsed for the few cells asked.)
        if 1 <= row <= MAX_ROW and 1 <= col <= MAX_COL and (sheet, cell_address(row, col)) in self._cells:
            return True
        at = (sheet, row)
        if any(c1 <= col <= c2 for _r1, c1, _r2, c2 in self._legacy.get(at, ())):
            return True
        if any(c1 <= col <= c2 for _r1, c1, _r2, c2 in self._spills.get(at, ())):
            return None
        for (r1, c1, r2, c2), legacy in self._tall.get(sheet, ()):
            if r1 <= row <= r2 and c1 <= col <= c2:
                return True if legacy else None
        return False
