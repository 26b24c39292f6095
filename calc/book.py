"""The workbook as read once, for every engine: its formulas, what the file cached for them
(Excel's answers when Excel saved it last), its array formulas (dynamic spills or legacy
ranges), defined names and calculation settings. Engines read a `Book`; none opens the file
for itself (except `formulas`, which parses the file its own way).
"""

from __future__ import annotations

import io
import re
import warnings
import zipfile
from contextlib import nullcontext
from datetime import date, time, timedelta
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from rates_xl.calc import (
    data_tables,
    feed_links,
    merged_read,
    merged_spills,
    openpyxl_read,
    stored_cells,
    strict,
    undo,
)
from rates_xl.calc.package import Package, escaped
from rates_xl.errors import TaskError
from rates_xl.functions.sheet import (
    Area,
    Key,
    is_rates_name,
    parse_area,
    parse_cell,
    quote_sheet,
    read_area,
    split_reference,
    unquote_sheet,
)
from rates_xl.functions.tokens import function_names
from rates_xl.functions.values import CellValue, StoredValue, to_serial

if TYPE_CHECKING:
    # openpyxl's own types (types-openpyxl, the dev extra): a book, a sheet, a defined name.
    from openpyxl import Workbook
    from openpyxl.cell.cell import Cell
    from openpyxl.workbook.defined_name import DefinedName
    from openpyxl.worksheet.worksheet import Worksheet

#: How far a RATES_* spill may grow down over empty cells beyond the range stored in the file.
MAX_SPILL_ROWS = 3000


class CalcError(TaskError):
    """A workbook that cannot be calculated (missing, not a workbook, corrupt); message for people."""


class OverBudget(CalcError):
    """A book stopped by its budget (calc/budget.py): the message names the cell and the
    setting to raise. It passes every "never a traceback" catch, as an interrupt does."""


class Book:
    """One workbook file, read once (`package`: its bytes), parsed with openpyxl (formulas kept),
    and what calc needs from it."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.package = read_package(self.path)  # the file's one read (raises CalcError)
        # Set by writers that store no answers (openpyxl) or placeholders (XlsxWriter's 0):
        # Excel recalculates such a book on opening, so its cached values are not Excel's.
        self.full_calc_on_load = self.package.full_calc_on_load()
        # openpyxl, formulas kept; merged ranges not formatted (calc/merged_read.py): this copy
        # goes to the engine and comes back (calc/undo.py), and is formatted when it is
        # written for the user. Its parse of the sheets keeps what the package's readings
        # need (stored values, dynamic-array marks: calc/stored_cells.py), parsed only once;
        # not where those values are placeholders, which the check never reads.
        with nullcontext() if self.full_calc_on_load else stored_cells.recording() as kept:
            self.book = self.workbook(merged_borders=False)
        if kept is not None:
            self.package.keep(kept)
        else:  # (`recording` counted the text its cells show as it read them)
            try:
                stored_cells.refuse_text_bomb(self.book)
            except stored_cells.TextBomb as exc:
                raise _text_bomb(self.path, exc) from None
        if not any(sheet.sheet_state == "visible" for sheet in self.book._sheets):  # type: ignore[attr-defined]
            # (Excel neither saves nor opens such a book as it is; openpyxl's save of its copy
            # failed after the whole calculation: "At least one sheet must be visible")
            some = "no visible sheet" if self.book._sheets else "no sheet"  # type: ignore[attr-defined]
            raise CalcError(f"{self.path}: the workbook has {some}, which Excel does not allow; is it corrupt?")
        self.sheet_titles = {ws.title.upper(): ws.title for ws in self.book.worksheets}
        self.names = _defined_names(self.book)
        #: Links to a live feed (DDE, OLE: calc/feed_links.py) by number -> what each reads.
        self.feeds = feed_links.feeds(self.book)
        #: What the book was read without, and why (calc/openpyxl_read.py), or None: read whole.
        self.read_losses = openpyxl_read.read_losses(self.book)
        self.external_links = len(getattr(self.book, "_external_links", []) or []) - len(self.feeds)
        self.iteration = _iteration_settings(self.book)
        # Saved in manual calculation mode (`<calcPr calcMode="manual"/>`): Excel recalculates
        # only on F9, so a value it saved may predate an input edited since, unless it
        # recalculated when saving: `calcOnSave`, true unless the file says "0" (ECMA-376
        # CT_CalcPr; Excel's "Recalculate workbook before saving", on by default:
        # Application.CalculateBeforeSave, MS-XLS 2.4.37 CalcSaveRecalc "the workbook is
        # recalculated before it is saved"). `calcCompleted="0"`: a calculation the save cut short.
        calculation = getattr(self.book, "calculation", None)
        self.manual_calculation = getattr(calculation, "calcMode", None) == "manual"
        # "Automatic except for data tables" (ECMA-376 ST_CalcMode `autoNoTable`): Excel computes
        # the what-if data tables only on F9, so the values a table holds may predate its inputs.
        self.tables_on_f9 = getattr(calculation, "calcMode", None) == "autoNoTable"
        self.recalculated_on_save = getattr(calculation, "calcOnSave", None) is not False
        self.calculation_completed = getattr(calculation, "calcCompleted", None) is not False
        # Legacy (Ctrl+Shift+Enter) array formulas fill exactly their stored range; dynamic
        # ones spill to their result. openpyxl drops the marker: read it from the package
        # (None: the book has no marker at all, see `_spill_ranges`).
        self.dynamic_arrays = self.package.dynamic_array_anchors()
        if self.values_out_of_date:
            self.package.keep({})  # (values the check will not read: not held, read if asked)
        self.legacy_arrays: frozenset[Key] = frozenset()
        self.formulas: list[tuple[str, str]] = []  # (address, text)
        cells, arrays = self._scan()  # (the formulas and what-if data tables too)
        self.spills = self._spill_ranges(arrays)
        #: Sheet -> its merged ranges: a spill over one is #SPILL! (calc/merged_spills.py).
        self.merged = merged_spills.merged_ranges(self.book)
        # Read before an engine's preparation changes `book`.
        self.cells = self._with_spills(cells)
        self._cached: dict[Key, CellValue] | None = None
        self.without_values: frozenset[Key] | None = None  # formula cells with no <v>
        self._handed_over = False
        self._lent: undo.Snapshot | None = None  # the state `book` was lent to an engine in

    @property
    def values_out_of_date(self) -> bool:
        """Whether the values the file cached may not be Excel's answers to its inputs: a
        placeholder or none (`full_calc_on_load`), a manual-mode book Excel did not
        recalculate when it saved, or a calculation left unfinished."""
        return self.full_calc_on_load or not self.calculation_completed or \
            (self.manual_calculation and not self.recalculated_on_save)

    def cached(self) -> dict[Key, CellValue]:
        """The values the file cached for its cells (read once, on first use): numbers, dates
        and times as serials, text, booleans, error text; an empty cached text is ""."""
        if self._cached is None:
            read = self.package.cell_values()
            if read is None:  # not readable that way: openpyxl's reading (dates turned back)
                self._cached, self.without_values = cached_values(self.package.stream()), None
            else:
                self._cached, self.without_values = read
        return self._cached

    def cached_cells(self, sheet: str) -> list[tuple[int, int, Key, CellValue]]:
        """(row, col, key, value) of every cell of `sheet` the file cached a value for."""
        if not hasattr(self, "_by_sheet"):
            self._by_sheet: dict[str, list[tuple[int, int, Key, CellValue]]] = {}
            for key, value in self.cached().items():
                self._by_sheet.setdefault(key[0], []).append((*parse_cell(key[1]), key, value))
        return self._by_sheet.get(sheet, [])

    def engine_copy(self) -> Workbook:
        """An openpyxl copy an engine may change (its preparation rewrites formulas): the one
        already read, the first time (reading costs as much as computing a small book), its
        state kept (calc/undo.py) so that the values-frozen copy is written from it too. It
        holds no merged range (`merged_spills.unmerged`: `merged` says where they were)."""
        if not self._handed_over:
            self._handed_over = True
            workbook = self.as_stored(self.book)
            self._lent = undo.Snapshot(workbook)
        else:
            workbook = self.as_stored(self.workbook())
        return merged_spills.unmerged(workbook)

    def writable_copy(self, keep_vba: bool) -> Workbook:
        """An openpyxl copy to write values into (the frozen copy): the one already read, as
        it was read (an engine's changes undone), the first time; read again after that, or
        to leave out (or keep) a VBA project the file's kind does not."""
        if keep_vba == (self.path.suffix.lower() == ".xlsm"):
            lent, self._lent = self._lent, None
            if lent is not None and lent.reusable:
                lent.restore()  # (as stored already: lent so)
                merged_read.format_merged(self.book)
                return self.book
            if not self._handed_over:
                self._handed_over = True
                merged_read.format_merged(self.book)
                return self.as_stored(self.book)
        return self.as_stored(self.workbook(keep_vba=keep_vba))

    def workbook(self, *, keep_vba: bool | None = None, merged_borders: bool = True) -> Workbook:
        """The book parsed by openpyxl (formulas kept) from the bytes read once; `keep_vba`
        defaults to the file's kind (.xlsm). Without `merged_borders`, merged ranges are read
        as openpyxl reads them but not formatted (`merged_read.format_merged` does it later)."""
        try:
            keep_vba = self.path.suffix.lower() == ".xlsm" if keep_vba is None else keep_vba
            # openpyxl warns on stderr of each part it will not carry over ("Sparkline Group
            # extension is not supported and will be removed"); the summary names them all
            # instead, counted (calc/copy_losses.py).
            with nullcontext() if merged_borders else merged_read.unformatted(), warnings.catch_warnings():
                warnings.filterwarnings("ignore", category=UserWarning, module=r"openpyxl\.")
                # (a pivot table openpyxl cannot read loses the copy that table, not the whole book)
                workbook = openpyxl_read.load_workbook(self.package.data, keep_vba=keep_vba, keep_links=True)
        except stored_cells.TextBomb as exc:
            raise _text_bomb(self.path, exc) from None
        except Exception as exc:
            raise CalcError(f"{self.path}: cannot read the workbook ({type(exc).__name__}: {exc}); "
                            "is it corrupt?") from None
        archive = getattr(workbook, "vba_archive", None)
        if archive is not None:
            # openpyxl keeps the macro parts in a ZipFile open for appending over a buffer of
            # its own, and ZipFile.__del__ writes to that buffer: collected with the workbook (a
            # cycle) after the buffer was, it printed "Exception ignored in ZipFile.__del__" and
            # a traceback. The parts are kept read-only instead (the writer only reads them).
            buffer = archive.fp
            archive.close()
            workbook.vba_archive = zipfile.ZipFile(io.BytesIO(buffer.getvalue()))
        return workbook

    def as_stored(self, workbook: Workbook) -> Workbook:
        """`workbook` (openpyxl, read from this file) with the constants openpyxl reads wrongly
        put back as the file stores them, so that no save of it changes one silently (the
        engine's copy, the values-frozen copy):

        - text whose shared string holds Excel's escape of a literal `_xHHHH_`
          (`_x005F_x0001_`): openpyxl reads `_x0001_` and saves it so, which Excel and the
          engine read as CHAR(1) (formulas_test.xlsx CORE!B27; CODE of it gave 1, Excel 95);
        - a number in a date or time format that openpyxl's date does not hold: openpyxl reads
          it to the nearest millisecond (`from_excel`) and saves that, so 45123.999999999 became
          45124, the next day, a time of 2.5E-7 days 22 ms, and `A1-45000.1234567891234`
          4.9E-09 where Excel has 0 (tests/calc/test_excel_singles.py); and serial 60, Excel's
          29 February 1900 (its 1900 leap-year bug): openpyxl reads it as 28 February 1900 and
          saves 59 (CORE!C22; C22+1 gave 59, Excel 61). Each is put back as the serial the file
          holds (a number: the cell's own format shows the date).

        The file's values are read a second time (`cached`) only when a book holds either."""
        from openpyxl.utils.datetime import CALENDAR_WINDOWS_1900, to_excel

        if not hasattr(self, "_strings_escaped"):  # one read of the package per book
            self._strings_escaped = self.package.shared_strings_escaped()
        strings = self._strings_escaped
        epoch = getattr(workbook, "epoch", CALENDAR_WINDOWS_1900)
        for ws in workbook.worksheets:
            # (each cell's type first, its value, the slot `value` reads, only for a date or text:
            # formulas_test.xlsx's 35,000 `value` calls were 0.006 CPU s)
            for cell in ws._cells.values():
                kind = cell.data_type
                if kind == "s":
                    if strings and isinstance(value := cell._value, str):  # type: ignore[union-attr]
                        text = self.cached().get((ws.title, cell.coordinate))
                        if isinstance(text, str) and (stored := escaped(text)) != value:
                            cell.value = stored
                elif kind == "d":
                    serial = self.cached().get((ws.title, cell.coordinate))
                    if isinstance(serial, int | float) and not isinstance(serial, bool) and \
                            to_excel(cell._value, epoch) != serial:  # type: ignore[union-attr]
                        cell.value = serial
        return workbook

    def _scan(self) -> tuple[dict[Key, tuple[str, Area]], list[tuple[Worksheet, Cell]]]:
        """One pass over every formula cell the book holds: `formulas` (address, text as Excel shows
        it), `data_tables`, (sheet, anchor) -> (formula text, its area) of every formula
        cell, an array formula's area as stored (`_with_spills` puts its spill range in), and
        (sheet, cell) of every array formula. Each of three scans walked every cell, and
        asked each value whether it was a data table: 0.24 s of a 6.4 s cProfile run of
        formulas_test, 0.08 CPU s unprofiled."""
        from openpyxl.worksheet.formula import ArrayFormula, DataTableFormula

        found: dict[Key, tuple[str, Area]] = {}
        formulas = self.formulas
        new = tuple.__new__  # (an ordinary formula's one-cell Area: `Area.cell` without its two Python calls)
        letters: dict[int, str] = {}  # a column -> its letters (`cell.coordinate` without its calls)
        #: What-if data tables by their first cell (calc/data_tables.py): their area is the
        #: table's results.
        self.data_tables: dict[Key, data_tables.DataTable] = {}
        arrays: list[tuple[Worksheet, Cell]] = []
        objects = (ArrayFormula, DataTableFormula)
        for ws in self.book.worksheets:
            title = ws.title
            quoted = quote_sheet(title)
            cells = cast("dict[tuple[int, int], Cell]", ws._cells)  # (a MergedCell reads as an empty Cell)
            # Only the formula cells, in the order of `sheet_rows` (by row, then column): most
            # cells are not (formulas_test: 13,500 of 35,000), and sorting all of them cost
            # more than picking these first.
            # (`_value`: the slot `value` reads, without a Python call for each of 35,000 cells)
            for place in sorted([place for place, cell in cells.items()
                                 if cell.data_type == "f" or isinstance(cell._value, objects)]):  # type: ignore[attr-defined]
                cell = cells[place]
                value = cell.value
                if value.__class__ is str and cell.data_type == "f":  # (most formula cells: asked first)
                    row, column = cell.row, cell.column
                    if (column_text := letters.get(column)) is None:  # (read once for each column)
                        column_text = letters[column] = cell.coordinate[:-len(str(row))]
                    coordinate = f"{column_text}{row}"
                    formulas.append((f"{quoted}!{coordinate}", value))
                    found[(title, coordinate)] = (value, new(Area, (row, column, row, column)))
                elif isinstance(value, ArrayFormula):
                    arrays.append((ws, cell))
                    text = str(value.text)
                    formulas.append((f"{quoted}!{cell.coordinate}", text))
                    found[(title, cell.coordinate)] = (text, parse_area(value.ref or cell.coordinate))
                elif isinstance(value, DataTableFormula):
                    table = data_tables.read(title, value)
                    assert table is not None  # (read answers every DataTableFormula)
                    key = (title, cell.coordinate)
                    self.data_tables[key] = table
                    if cell.data_type == "f":
                        formulas.append((f"{quoted}!{cell.coordinate}", table.text))  # `=TABLE(D247,J10)`
                    found[key] = (table.text, table.area)
                elif cell.data_type == "f":
                    formulas.append((f"{quoted}!{cell.coordinate}", str(value)))
                    found[(title, cell.coordinate)] = (
                        value if isinstance(value, str) else f"={type(value).__name__}",
                        Area.cell(cell.row, cell.column))
        return found, arrays

    def _with_spills(self, cells: dict[Key, tuple[str, Area]]) -> dict[Key, tuple[str, Area]]:
        """`cells` (`_scan`'s) with each array formula's area its spill range (`spills`, which
        holds every array formula: a RATES_* spill the range it may grow into)."""
        for key, area in self.spills.items():
            cells[key] = (cells[key][0], area)
        return cells

    def range_size(self, sheet: str, text: str) -> int | None:
        """How many cells a formula operand covers (None when it is not known to be one)."""
        prefix, ref = split_reference(text)
        area = read_area(ref, whole_lines=False)  # (cached by the A1 reader: no dict of our own)
        if area is not None:
            return area.size
        if read_area(ref) is not None:
            return None  # whole columns or rows, of this sheet or another (`S2!AM:AM` is not one cell)
        if prefix:
            return None if "[" in prefix else 1
        # A defined name: asked for every name operand of every formula, the same ones over and over.
        sizes = self.__dict__.setdefault("_sizes", {})
        if (sheet, ref) not in sizes:
            sizes[(sheet, ref)] = self._name_size(sheet, ref)
        return sizes[(sheet, ref)]

    def name_range(self, sheet: str, name: str) -> str | None:
        """The one rectangular range in this book a defined name stands for, as a formula
        would write it ("'Data sheet'!$A$1:$A$9"); None for anything else."""
        # Asked for every name operand of every formula (thousands of times for one name).
        ranges = self.__dict__.setdefault("_name_ranges", {})
        if (sheet, name) not in ranges:
            ranges[(sheet, name)] = self._name_range(sheet, name)
        return ranges[(sheet, name)]

    def _name_range(self, sheet: str, name: str) -> str | None:
        if "!" in name:  # 'Other sheet'!local_name: that sheet's own name
            prefix, name = split_reference(name)
            sheet = unquote_sheet(prefix[:-1])
        defined = find_name(self.book, sheet, name)
        value = (getattr(defined, "attr_text", None) or "").strip()
        if not value or "," in value or "[" in value or "(" in value:
            return None
        prefix, ref = split_reference(value)
        if not prefix or read_area(ref, whole_lines=False) is None:
            return None
        return value

    def _name_size(self, sheet: str, name: str) -> int | None:
        defined = find_name(self.book, sheet, name)
        if defined is None:
            return None
        value = (defined.attr_text or "").strip()
        if re.fullmatch(r'-?[\d.]+(E[+-]?\d+)?|"[^"]*"|TRUE|FALSE', value, re.IGNORECASE):
            return 1
        total = 0
        for part in value.split(","):
            area = read_area(split_reference(part.strip())[1], whole_lines=False)
            if area is None:
                return None
            total += area.size
        return total or None

    def _spill_ranges(self, arrays: list[tuple[Worksheet, Cell]]) -> dict[Key, Area]:
        """Array-formula anchors: (sheet, anchor) -> (r1, c1, r2, c2), dynamic RATES_* ones
        grown (a legacy array keeps its stored range; those are listed in `legacy_arrays`).

        In a book with no dynamic-array marker at all the RATES_* arrays count as dynamic: a
        template re-saved by openpyxl or LibreOffice has lost the marker, and cutting its curve
        to the range Excel last saved would silently drop rows; every other array there is a
        legacy one, as Excel and LibreOffice read that very file."""
        from openpyxl.worksheet.formula import ArrayFormula

        spills = {}
        legacy = set()
        for ws, cell in arrays:  # (the book's scan found them, in its order)
            assert isinstance(cell.value, ArrayFormula)
            r1, c1, r2, c2 = parse_area(cell.value.ref or cell.coordinate)
            text = str(cell.value.text)
            # (only a formula whose text holds "RATES" can call one: `is_rates_name`'s prefix)
            rates = "RATES" in text.upper() and any(is_rates_name(n) for n in function_names(text))
            if self.dynamic_arrays is None:
                dynamic = rates  # no marker in the book (see above)
            else:
                dynamic = (ws.title, cell.coordinate) in self.dynamic_arrays
            if not dynamic:
                legacy.add((ws.title, cell.coordinate))
            elif rates:
                while (r2 - r1 + 1 < MAX_SPILL_ROWS
                       and all(empty_cell(ws, r2 + 1, c) for c in range(c1, c2 + 1))):
                    r2 += 1
            spills[(ws.title, cell.coordinate)] = Area(r1, c1, r2, c2)
        self.legacy_arrays = frozenset(legacy)
        return spills


def empty_cell(ws: Worksheet, row: int, col: int) -> bool:
    """Whether an openpyxl sheet holds nothing at (row, col) (a spill may grow over it)."""
    cell = ws._cells.get((row, col))
    return cell is None or cell.value is None


def read_package(path: Path) -> Package:
    """The workbook file's bytes, read once, after the checks every caller of calc goes
    through (calculate_many, the frozen copy, the benches); CalcError says what is wrong."""
    if not path.exists():
        raise CalcError(f"{path}: no such file")
    if path.is_dir():
        raise CalcError(f"{path} is a folder, not a workbook")
    if path.suffix.lower() not in (".xlsx", ".xlsm"):
        raise CalcError(f"{path}: not an .xlsx or .xlsm workbook")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CalcError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise CalcError(f"{path}: not a valid workbook (the file is not an Excel zip package; is it corrupt?)")
    # Before anything inflates it (openpyxl, then formualizer and formulas, each its own way).
    from rates_xl.calc.safezip import refusal

    if (refused := refusal(path, data)) is not None:
        raise CalcError(refused)
    if strict.is_strict(data):
        # (Excel's "Strict Open XML Spreadsheet": read as the Transitional package it maps to)
        package = Package(strict.transitional(data))
        package.strict = True
        return package
    return Package(data)


def _text_bomb(path: Path, bomb: stored_cells.TextBomb) -> CalcError:
    """The one line a book whose cells show too much text is refused with (as safezip's)."""
    return CalcError(f"{path}: refused: {bomb}; not a workbook rates-xl will open")


def sheet_rows(ws: Worksheet) -> list[list[Any]]:
    """The cells a sheet holds, row by row (as `ws.iter_rows()` gives them, without the empty
    ones). `ws.iter_rows()` creates a cell for every empty position of the used rectangle
    (180,000 in swap_pricer.xlsx, which holds 15,000), and each was then read by every scan
    and written again by every save. (Grouped in C, no Python frame per cell: a book's scans
    and the frozen copy call it seven times; 0.14 s a call for 200,000 cells, was 0.53 s.)"""
    cells = ws._cells
    return [list(map(cells.__getitem__, keys)) for _row, keys in groupby(sorted(cells), key=itemgetter(0))]


def cached_values(path: Path | io.BytesIO) -> dict[Key, CellValue]:
    """The values the file itself cached for its cells (what Excel last computed)."""
    try:
        book = openpyxl_read.load_workbook(path, data_only=True, keep_links=True)
    except Exception:
        return {}
    epoch = book.epoch

    def excel(value: StoredValue) -> CellValue:
        # The reader turns a date-formatted serial into a date or time: Excel stores the
        # serial (the cell's format shows it as a date), and so must the copy.
        return to_serial(value, epoch) if isinstance(value, date | time | timedelta) else value

    return {(ws.title, cell.coordinate): excel(cell.value) for ws in book.worksheets
            for row in sheet_rows(ws) for cell in row if cell.value is not None}


def _defined_names(book: Workbook) -> dict[str, tuple[str, str]]:
    """Workbook-level names that point at one place in this workbook: name -> (sheet, cell).

    Every other kind Excel saves is skipped here (it is still computed by the engine):
    constants and formulas (`rate = 0.05`, `=OFFSET(...)`), names into other workbooks
    (`[1]Sheet1!A1`), #REF! names, and several areas. Sheet-scoped names are read too,
    under `sheet!name`, without shadowing a workbook-level one.
    """
    names: dict[str, tuple[str, str]] = {}

    def add(key: str, defined: DefinedName) -> None:
        try:
            destinations = list(defined.destinations)
        except Exception:  # a formula, a constant or a malformed reference: no destination
            return
        for sheet, ref in destinations[:1]:
            if not sheet or not ref or "[" in sheet or sheet not in book.sheetnames:
                continue
            names.setdefault(key, (sheet, ref.replace("$", "").split(":")[0]))

    for name, defined in book.defined_names.items():
        add(name.lower(), defined)
    for ws in book.worksheets:
        for name, defined in getattr(ws, "defined_names", {}).items():
            add(f"{ws.title}!{name}".lower(), defined)
    return names


def find_name(book: Workbook, sheet: str, name: str) -> DefinedName | None:
    """The defined name `name` as a formula on `sheet` sees it (sheet scope first)."""
    try:
        scoped = book[sheet].defined_names
        for key, defined in scoped.items():
            if key.lower() == name.lower():
                return defined
    except (KeyError, AttributeError):
        pass
    for key, defined in book.defined_names.items():
        if key.lower() == name.lower():
            return defined
    return None


def _iteration_settings(book: Workbook) -> tuple[bool, int, float]:
    """The workbook's own calculation settings for circular references (Excel's defaults)."""
    calc = getattr(book, "calculation", None)
    iterate = bool(getattr(calc, "iterate", False))
    count = int(getattr(calc, "iterateCount", None) or 100)
    delta = float(getattr(calc, "iterateDelta", None) or 0.001)
    return iterate, count, delta


def reraise_interrupts(exc: BaseException) -> None:
    """Engine failures are caught as BaseException, because a Rust panic inside formualizer
    arrives as pyo3's PanicException, which derives from it; Ctrl-C and exit still pass."""
    if isinstance(exc, KeyboardInterrupt | SystemExit | GeneratorExit | OverBudget):
        raise exc
