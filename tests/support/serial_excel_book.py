"""The serial stand-in's workbooks (tests/support/serial_excel.py): `Book` (its sheets, defined
names, custom XML parts and COM members), `Sheet` (its cells, formulas, spills and what is
dirty), `Range` (a block of one sheet as xlwings hands it: value, formula, address, and its COM
`api`: Dirty, HasSpill, SpillingToRange ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rates_xl.addin.classic import scope
from rates_xl.functions.sheet import Area
from tests.support.serial_excel_graph import (
    Formula,
    fold,
)

if TYPE_CHECKING:
    from tests.support.serial_excel import App, _AppApi


class Sheets(list):
    active: Sheet | None = None

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            for sheet in self:
                if fold(sheet.name) == fold(key):
                    return sheet
            raise KeyError(key)
        return super().__getitem__(key)


class Names(dict):
    """`Book.names`: a reference name -> (Sheet, Area) for the engine; and, as xlwings'
    Names, `add(name, refers_to)` for a constant (="2026-01-02T16:00:00Z"), read back as an
    object with `refers_to` and `delete()`. Names are case-insensitive, as in Excel."""

    def add(self, name: str, refers_to: str) -> Any:
        self[name] = _ConstantName(self, name.upper(), refers_to)
        return self[name]

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key.upper(), value)

    def __getitem__(self, key: str) -> Any:
        return super().__getitem__(key.upper())


@dataclass
class _ConstantName:
    names: Names
    name: str
    refers_to: str

    def delete(self) -> None:
        del self.names[self.name]


class _CustomXMLParts:
    """`Workbook.CustomXMLParts` (MS office/vba/api/office.customxmlparts): Add(xml), a
    selection by the root element's namespace (Count, Item from 1), a part's XML and Delete."""

    def __init__(self) -> None:
        self.parts: list[_CustomXMLPart] = []

    def Add(self, xml: str) -> _CustomXMLPart:  # noqa: N802 - Office's names
        part = _CustomXMLPart(self, xml)
        self.parts.append(part)
        return part

    def SelectByNamespace(self, namespace: str) -> _Selection:  # noqa: N802
        from xml.etree import ElementTree

        return _Selection([p for p in self.parts
                           if ElementTree.fromstring(p.XML).tag.startswith("{" + namespace + "}")])


class _Selection(list):
    @property
    def Count(self) -> int:  # noqa: N802
        return len(self)

    def Item(self, index: int) -> Any:  # noqa: N802 - from 1, as COM collections
        return self[index - 1]


@dataclass(eq=False)
class _CustomXMLPart:
    owner: _CustomXMLParts
    XML: str  # noqa: N815 - Office's name

    def Delete(self) -> None:  # noqa: N802
        self.owner.parts.remove(self)


class _BookApi:
    """The COM Workbook's members the add-in reads: CustomXMLParts, and Date1904 (Microsoft's
    Workbook.Date1904 property: True in a book counting dates from 1904). The stand-in's
    formulas compute 1900 serials whatever it holds; a test gives a 1904 book's serials itself."""

    def __init__(self) -> None:
        self.CustomXMLParts = _CustomXMLParts()
        self.Date1904 = False


class Book:
    #: Window > Hide: its windows are not Visible (Live mode skips its cells).
    hidden = False

    def __init__(self, app: App, name: str) -> None:
        self.app, self.name = app, name
        self.sheets = Sheets()
        self.selection: Range | None = None
        self.names: Names = Names()
        self.api = _BookApi()

    def add_sheet(self, name: str) -> Sheet:
        sheet = Sheet(self, name)
        self.sheets.append(sheet)
        if self.sheets.active is None:
            self.sheets.active = sheet
        return sheet

    def select(self, sheet: str | int, address: str) -> Range:
        target = self.sheets[sheet]
        self.sheets.active = target
        self.selection = target.range(address)
        return self.selection

    def sheet_named(self, name: str) -> Sheet | None:
        try:
            return self.sheets[name]
        except KeyError:
            return None

    def compile(self) -> None:
        from tests.support import serial_excel_engine as engine

        engine.compile_book(self)

    @classmethod
    def from_file(cls, app: App, path: Path, name: str | None = None) -> Book:
        import openpyxl
        from openpyxl.worksheet.formula import ArrayFormula

        book = cls(app, name or path.name)
        with_formulas = openpyxl.load_workbook(path)
        saved = openpyxl.load_workbook(path, data_only=True)
        for ws in with_formulas.worksheets:
            sheet = book.add_sheet(ws.title)
            shown = saved[ws.title]
            # Cells inside an array formula's range (not its anchor) hold its saved result only.
            spilled = set()
            for row in ws.iter_rows():
                for cell in row:
                    if isinstance(cell.value, ArrayFormula) and cell.value.ref:
                        area = scope.parse_address(cell.value.ref)[0]
                        spilled |= {(r, c) for r in range(area.top, area.bottom + 1)
                                    for c in range(area.left, area.right + 1)} - {(cell.row, cell.column)}
            for row in ws.iter_rows():
                for cell in row:
                    value = cell.value
                    if value is None or (cell.row, cell.column) in spilled:
                        continue
                    where = Area(cell.row, cell.column, cell.row, cell.column)
                    if isinstance(value, ArrayFormula):
                        ref = scope.parse_address(value.ref)[0] if value.ref else None
                        sheet.put(where, value.text, stored_ref=ref)
                        # Excel knows a saved spill: the next result replaces all of it.
                        if ref is not None and (ref.top, ref.left) != (ref.bottom, ref.right):
                            sheet.formulas[(cell.row, cell.column)].spill = ref
                    else:
                        sheet.put(where, value)
                    if cell.data_type == "f" or isinstance(value, ArrayFormula):
                        sheet.values[(cell.row, cell.column)] = shown.cell(cell.row, cell.column).value
                        if isinstance(value, ArrayFormula) and ref is not None:
                            sheet.touch(ref.bottom, ref.right)
            sheet.merged = [Area(m.min_row, m.min_col, m.max_row, m.max_col) for m in ws.merged_cells.ranges]
            # Saved results of spilled cells (no formula of their own) show too.
            for row in shown.iter_rows():
                for cell in row:
                    if cell.value is not None and (cell.row, cell.column) not in sheet.contents:
                        sheet.values[(cell.row, cell.column)] = cell.value
                        sheet.touch(cell.row, cell.column)
        for defined, item in with_formulas.defined_names.items():
            for sheet_name, ref in item.destinations:
                target = book.sheet_named(sheet_name)
                if target is not None:
                    book.names[defined.upper()] = (target, scope.parse_address(ref)[0])
        book.compile()
        return book


class Sheet:
    def __init__(self, book: Book, name: str) -> None:
        self.book, self.name = book, name
        self.contents: dict[tuple[int, int], Any] = {}  # what was typed: constants and formulas
        self.formulas: dict[tuple[int, int], Formula] = {}
        self.values: dict[tuple[int, int], Any] = {}  # what each cell shows
        self.dirty: set[tuple[int, int]] = set()
        self.max_row = self.max_col = 1  # the extent ever used (grows only, like Excel's)
        self.version = 0  # bumped by every change of a value (cached input blocks compare it)
        self.blocks: dict[tuple[int, int, int, int], tuple[int, Any]] = {}
        #: Merged ranges (Range.merge): a spill that meets one is #SPILL!, as in Excel
        #: ("Spill into merged cells", calc/merged_spills.py).
        self.merged: list[Area] = []

    def touch(self, row: int, col: int) -> None:
        if row > self.max_row:
            self.max_row = row
        if col > self.max_col:
            self.max_col = col

    @property
    def app(self) -> App:
        return self.book.app

    def put(self, where: Area, content: Any, stored_ref: Area | None = None) -> None:
        cell = (where.top, where.left)
        self.touch(*cell)
        self.version += 1
        self.contents[cell] = content
        replaced = self.formulas.get(cell)
        if replaced is not None and self.book.app.rtd is not None:
            self.book.app.rtd.release(replaced)
        if isinstance(content, str) and content.startswith("="):
            self.formulas[cell] = Formula(self, cell, content, stored_ref)
        else:
            self.formulas.pop(cell, None)
            self.values[cell] = content

    def paste(self, cells: dict[str, Any]) -> None:
        """One paste of many cells ({"A1": value or "=formula"}): every new formula and the
        readers of every new value dirty, then one recalculation in automatic mode."""
        for address, content in cells.items():
            self.put(scope.parse_address(address)[0], content)
        self.book.compile()
        app = self.app
        app._graph = None
        for address in cells:
            cell = scope.parse_address(address)[0]
            at = (cell.top, cell.left)
            if at in self.formulas:
                self.dirty.add(at)
            for f in app.graph().readers(self, at):
                f.sheet.dirty.add(f.cell)
        if app.calculation == "automatic":
            app.calculate()

    def show(self, cell: tuple[int, int], value: Any) -> None:
        """Make a cell show `value` without calculating (what a file was saved with)."""
        self.values[cell] = value
        self.touch(*cell)
        self.version += 1

    def dirty_mark(self, f: Formula) -> bool:
        return f.cell in self.dirty

    def grow_down(self, rect: Area, rows: int) -> Area:
        """`rect` extended down over empty cells, to `rows` rows at most."""
        bottom, last = rect.bottom, rect.top + rows - 1
        while bottom < last and all((bottom + 1, c) not in self.contents
                                    for c in range(rect.left, rect.right + 1)):
            bottom += 1
        return Area(rect.top, rect.left, bottom, rect.right)

    @property
    def used_range(self) -> Range:
        cells = [c for c, v in self.values.items() if v is not None] + list(self.contents)
        if not cells:
            return Range(self, Area(1, 1, 1, 1))
        return Range(self, Area(min(r for r, _ in cells), min(c for _, c in cells),
                                max(r for r, _ in cells), max(c for _, c in cells)))

    def range(self, where: Any) -> Range:
        if isinstance(where, tuple):
            return Range(self, Area(*where, *where))
        rects = scope.parse_address(where)
        return Range(self, *rects)

    def calculate(self) -> None:
        """Worksheet.Calculate: this sheet's dirty and volatile cells and their dependents on it."""
        self.app._calculate(lambda f: f.cell in self.dirty or f.volatile, only=self)

    def write_result(self, f: Formula, result: Any) -> None:
        """Put a formula's result in the grid: one value, or a block spilled from the anchor."""
        from tests.support.serial_excel_engine import SPILL_ERROR

        self.version += 1
        if f.array is not None:  # a legacy array formula: fitted into its block
            from tests.support import serial_excel_legacy
            from tests.support.serial_excel_engine import NA_ERROR

            serial_excel_legacy.fit(self, f, result, NA_ERROR())
            return

        previous = f.spill
        if previous is not None:  # clear the old spill first
            for r in range(previous.top, previous.bottom + 1):
                for c in range(previous.left, previous.right + 1):
                    if (r, c) != f.cell and (r, c) not in self.contents:
                        self.values.pop((r, c), None)
        f.spill = None
        if not isinstance(result, list):
            self.values[f.cell] = result
            return
        rows, cols = len(result), max((len(row) for row in result), default=1)
        if rows == 1 and cols == 1:
            self.values[f.cell] = result[0][0]
            return
        block = Area(f.cell[0], f.cell[1], f.cell[0] + rows - 1, f.cell[1] + cols - 1)
        # Only typed content blocks a spill here (what a spill left behind, or the file saved
        # there as this formula's last result, is overwritten).
        blocked = any((r, c) in self.contents
                      for r in range(block.top, block.bottom + 1)
                      for c in range(block.left, block.right + 1) if (r, c) != f.cell)
        blocked = blocked or any(merged.intersects(block) for merged in self.merged)
        if blocked:
            self.values[f.cell] = SPILL_ERROR
            return
        for i, row in enumerate(result):
            for j, value in enumerate(row):
                self.values[(block.top + i, block.left + j)] = value
        self.touch(block.bottom, block.right)
        f.spill = block

    def value_at(self, cell: tuple[int, int]) -> Any:
        return self.values.get(cell)


class Range:
    """A block (or several areas) of one sheet, as xlwings' Range."""

    def __init__(self, sheet: Sheet, *rects: Area) -> None:
        self.sheet = sheet
        self.rects = list(rects)
        self.address = ",".join(r.a1(absolute=True) for r in self.rects)

    @property
    def _rect(self) -> Area:
        return self.rects[0]

    def _grid(self, pick: Any) -> Any:
        rect = self._rect
        rows = [[pick((r, c)) for c in range(rect.left, rect.right + 1)]
                for r in range(rect.top, rect.bottom + 1)]
        if len(rows) == 1 and len(rows[0]) == 1:
            return rows[0][0]
        if len(rows) == 1:
            return rows[0]  # xlwings: a single row is a flat list
        if all(len(row) == 1 for row in rows):
            return [row[0] for row in rows]  # and so is a single column
        return rows

    @property
    def formula(self) -> Any:
        def text(cell: tuple[int, int]) -> Any:
            content = self.sheet.contents.get(cell)
            return "" if content is None else (content if isinstance(content, str) else str(content))
        return self._grid(text)

    @formula.setter
    def formula(self, text: Any) -> None:
        self._type(text)

    @property
    def value(self) -> Any:
        return self._grid(self.sheet.value_at)

    @value.setter
    def value(self, value: Any) -> None:
        self._type(value)

    def _type(self, content: Any) -> None:
        """Typing into one cell: it and its dependents become dirty; automatic mode recalculates."""
        book = self.sheet.book
        for rect in self.rects:
            for r in range(rect.top, rect.bottom + 1):
                for c in range(rect.left, rect.right + 1):
                    self.sheet.put(Area(r, c, r, c), content)
                    if (r, c) in self.sheet.formulas:
                        book.compile()
                        self.sheet.dirty.add((r, c))
                    else:
                        app = book.app
                        app._graph = None
                        for f in app.graph().readers(self.sheet, (r, c)):
                            f.sheet.dirty.add(f.cell)
        book.app._graph = None
        if book.app.calculation == "automatic":
            book.app.calculate()

    def merge(self) -> None:
        """xlwings' Range.merge(): one merged cell; as Excel, only the upper-left content is
        kept, and a spill the range meets is recalculated (it is #SPILL! now)."""
        sheet, rect = self.sheet, self._rect
        for r in range(rect.top, rect.bottom + 1):
            for c in range(rect.left, rect.right + 1):
                if (r, c) != (rect.top, rect.left):
                    sheet.contents.pop((r, c), None)
                    sheet.formulas.pop((r, c), None)
                    sheet.values.pop((r, c), None)
        sheet.merged.append(rect)
        sheet.book.compile()
        sheet.book.app._graph = None
        sheet.dirty |= {f.cell for f in sheet.formulas.values() if f.spill is not None and f.spill.intersects(rect)}
        if sheet.book.app.calculation == "automatic":
            sheet.book.app.calculate()

    @property
    def api(self) -> _RangeApi:
        return _RangeApi(self)


class _RangeApi:
    """Range's COM members the handlers call."""

    def __init__(self, rng: Range) -> None:
        self._rng = rng

    @property
    def Application(self) -> _AppApi:  # noqa: N802 - Range.Application
        return self._rng.sheet.app.api

    def Dirty(self) -> None:  # noqa: N802 - Excel's name
        sheet = self._rng.sheet
        for rect in self._rng.rects:
            for cell in sheet.formulas:
                if cell in rect:
                    sheet.dirty.add(cell)

    def Calculate(self) -> None:  # noqa: N802
        """Range.Calculate: the range's formulas, dirty or not, and not their dependents
        outside it ("Calculates a specified range of cells", MS excel.range.calculate; the
        dependents are left to the next recalculation: C. Williams, "Exploring Range.Calculate",
        fastexcel 2013)."""
        for rect in self._rng.rects:
            for cell in list(self._rng.sheet.formulas):
                if cell in rect:
                    self._rng.sheet.app._evaluate(self._rng.sheet.formulas[cell])
                    self._rng.sheet.dirty.discard(cell)

    @property
    def HasSpill(self) -> bool:  # noqa: N802
        f = self._rng.sheet.formulas.get((self._rng._rect.top, self._rng._rect.left))
        return f is not None and f.spill is not None

    @property
    def SpillingToRange(self) -> _RangeApi:  # noqa: N802
        f = self._rng.sheet.formulas[(self._rng._rect.top, self._rng._rect.left)]
        return Range(self._rng.sheet, f.spill).api

    @property
    def SpillParent(self) -> _RangeApi:  # noqa: N802
        """The anchor whose spill covers this cell (Excel raises when none does)."""
        sheet, rect = self._rng.sheet, self._rng._rect
        for f in sheet.formulas.values():
            if f.spill is not None and f.spill.top <= rect.top <= f.spill.bottom \
                    and f.spill.left <= rect.left <= f.spill.right:
                return Range(sheet, Area(*f.cell, *f.cell)).api
        raise AttributeError("SpillParent: the cell is not in a spill")  # Excel: run-time error 1004

    @property
    def Formula2(self) -> Any:  # noqa: N802
        return self._rng.formula

    @property
    def Address(self) -> str:  # noqa: N802
        return self._rng.address
