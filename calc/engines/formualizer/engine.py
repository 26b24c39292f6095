"""The fast engine's adapter: formualizer, fed the copy `prepare.py` makes (each formula
through calc/formula's passes and fit; what it would get wrong reported instead of computed)
and loaded by `model.py` (the RATES_* functions and calc/xlfuncs registered).

This module: it loads that copy and reads each round's values back the way
Excel shows them (spills to their extent, legacy arrays to their stored range, loops by the
file's own iteration settings).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from rates_xl.calc import data_tables, merged_spills, rich_values
from rates_xl.calc.book import Book, reraise_interrupts
from rates_xl.calc.engines import EngineError
from rates_xl.calc.engines.formualizer import model, prepare
from rates_xl.calc.engines.formualizer.cells import fit_legacy, spill_literal
from rates_xl.calc.engines.formualizer.values import held_exactly
from rates_xl.functions.sheet import (
    Area,
    Key,
    address,
    cell_address,
    column_letters,
    is_rates_name,
    parse_cell,
)
from rates_xl.functions.values import CellValue

#: formualizer's own first sheet. A book whose first sheet has this name in another case
#: (apache/poi's Excel-made 59132.xlsx, "sheet1") is read beside it: every formula of that sheet
#: answered blank (`=B1` too), and the `formulas` engine computes such a book.
_DEFAULT_SHEET = "Sheet1"


class FormualizerEngine:
    name = "fast"

    def __init__(self, book: Book, *, constants: dict[Key, CellValue], threads: int) -> None:
        self.book = book
        self._loops: list[str] | None = None
        self.extents: dict[Key, Area] = {}
        self.cut: dict[Key, str] = {}
        self.blocked: dict[Key, Area] = {}
        first = book.book.worksheets[0].title if book.book.worksheets else "Sheet1"
        if first.upper() == _DEFAULT_SHEET.upper() and first != _DEFAULT_SHEET:
            raise EngineError(f"its first sheet is named {first!r}: formualizer 0.13 keeps a sheet of its own "
                              f"named {_DEFAULT_SHEET!r} beside it and computes every formula there as blank")
        try:
            from rates_xl.calc.formula.lambdas import lambda_names

            named = lambda_names(book.book)  # (calls of these are the LAMBDA they stand for)
            self.unknown_functions = {name: cells for name, cells in model.unknown_functions(book.formulas).items()
                                      if name not in named}
            # An unknown RATES_* name is #NAME? in Excel too (ours is the add-in); any other
            # unknown name may be an Excel function this engine lacks: keep Excel's value.
            foreign = frozenset(n for n in self.unknown_functions if not is_rates_name(n))
            from rates_xl.calc.formula import defined_names

            # A name calling one (an Excel 4 macro function kept in a name): its readers are listed.
            in_names = model.unknown_functions([(name, "=" + text) for name, text in defined_names.texts(book.book)
                                                if name not in named])
            unknown_names = {name: function for function, names in sorted(in_names.items())
                             if not is_rates_name(function) and function not in named for name in names}
            from rates_xl.calc.formula import cell_info
            from rates_xl.calc.formula.site import FormulaCells
            from rates_xl.calc.sources import Targets

            prepared = prepare.prepare(book.engine_copy(), book.range_size, book.cached, foreign,
                                    book.name_range, book.legacy_arrays, constants=constants,
                                    formula_cells=FormulaCells(book.cells, book.legacy_arrays,
                                                               book.sheet_titles),
                                    sources=Targets(book.cells, book.sheet_titles),
                                    trusted=not book.values_out_of_date, steady=not book.data_tables,
                                    file_name=cell_info.file_name(book.path), unknown_names=unknown_names)
            from rates_xl.calc import xlfuncs

            # What the Excel-exact functions need of the book (CHAR/CODE: the saving Excel's code page).
            prepared.facts = xlfuncs.book_facts(book.package, book.book)
        except BaseException as exc:  # never a traceback: say it, use the other engine
            reraise_interrupts(exc)
            raise EngineError(f"the fast engine could not read it ({type(exc).__name__}: {exc})") from None
        rich = book.package.rich_value_cells()
        _kept_rich_errors(prepared, rich)
        try:
            self.model = model.FastModel(prepared, threads)
        except BaseException as exc:  # never a traceback
            reraise_interrupts(exc)
            raise EngineError(f"the fast engine could not load it ({type(exc).__name__}: {exc})") from None
        self.prepared = prepared
        self.unsupported = dict(prepared.unsupported)
        self._list_readers_of_unheld_values(rich)
        # `@` (_xlfn.SINGLE) written out by the preparation (the pass at_sign, calc/formula/implicit.py) is no unknown call.
        data_tables.drop_calls(self.unknown_functions, book.data_tables)
        if "SINGLE" in self.unknown_functions:
            left = {address(*key) for key in self.unsupported}
            cells = [cell for cell in self.unknown_functions.pop("SINGLE") if cell in left]
            if cells:
                self.unknown_functions["SINGLE"] = cells

    def _list_readers_of_unheld_values(self, rich: dict[Key, str]) -> None:
        """The formulas reading, directly or through others, a cell whose value the engine
        cannot hold are listed, Excel's values kept:
        - an error it has no kind for (#FIELD!, #BUSY!, #CONNECT!, #BLOCKED!, #UNKNOWN!,
          #GETTING_DATA: it holds #VALUE!, cells.py `FILE_ERRORS`): a reader would show #VALUE!
          where Excel shows the error read, and ERROR.TYPE 3 (IFERROR, ISERROR alone right);
          #SPILL! and #CALC! it holds as they are;
        - a rich value (`rich`, calc/rich_values.py) that is such an error, or a picture in a
          cell or a linked data type, which the file stores as #VALUE!: `ISERROR` of a picture
          was TRUE, `IFERROR(A1,"none")` "none"."""
        unheld = {cell: f"{text}, an error the engine cannot hold"
                  for cell, text in self.prepared.late_errors.items() if not held_exactly(text)}
        for (sheet, coordinate), what in rich.items():
            if not held_exactly(what):  # (a picture's description is no error it holds)
                unheld[(sheet, *parse_cell(coordinate))] = (
                    f"{what}, which the engine cannot hold" if what == rich_values.PICTURE_OR_DATA_TYPE
                    else f"{what}, an error the engine cannot hold")
        if not unheld:
            return
        readers = self._readers(unheld)
        for (sheet, row, col), (title, r, c) in sorted(readers.items()):
            key = (sheet, cell_address(row, col))
            if key in self.prepared.areas and key not in self.unsupported:
                self.unsupported[key] = f"it reads {address(title, cell_address(r, c))}, which holds {unheld[(title, r, c)]}"
        self._list_reference_builders(unheld, set(readers))

    def _list_reference_builders(self, unheld: dict[tuple[str, int, int], str],
                                 found: set[tuple[str, int, int]]) -> None:
        """A formula building its reference as it computes (INDIRECT of a computed text, OFFSET,
        a name defined by one) may read a cell whose value the engine cannot hold without the
        dependency graph knowing it: `=ISERROR(OFFSET(A2,-1,0))` over a picture in A1 was TRUE
        where Excel has FALSE, silently. In a book holding such a cell, each such formula, and
        what reads it, keeps Excel's value and is listed (a formula of one whose reference could
        be followed is listed too: which cell it reads is known only as it computes)."""
        builders = [key for key in self.model.reference_builders() if key not in found]
        if not builders:
            return
        title, r, c = min(unheld)  # (the first such cell of the book, named as an example)
        held = f"{address(title, cell_address(r, c))}, which holds {unheld[(title, r, c)]}{rich_values.and_others(len(unheld) - 1)}"
        for sheet, row, col in builders:
            key = (sheet, cell_address(row, col))
            if key in self.prepared.areas and key not in self.unsupported:
                self.unsupported[key] = f"its reference is built as it computes (INDIRECT or OFFSET) and may be {held}"
        for (sheet, row, col), (bt, br, bc) in sorted(self._readers(builders).items()):
            key = (sheet, cell_address(row, col))
            if key in self.prepared.areas and key not in self.unsupported:
                self.unsupported[key] = (f"it reads {address(bt, cell_address(br, bc))}, whose reference is built as "
                                         f"it computes and may be {held}")

    def _readers(self, cells: Iterable[tuple[str, int, int]]) -> dict[tuple[str, int, int], tuple[str, int, int]]:
        """`FastModel.readers`; should the engine's report fail, the book goes to the other engine."""
        try:
            return self.model.readers(cells)
        except BaseException as exc:  # never a traceback: without its readers, use the other engine
            reraise_interrupts(exc)
            raise EngineError(f"the fast engine could not find what reads a value it cannot hold "
                              f"({type(exc).__name__}: {exc})") from None

    def service_cells(self) -> set[Key]:
        return {(sheet, cell_address(r, c)) for sheet, r, c, _formula in self.prepared.rates_cells}

    def hold(self, values: dict[Key, CellValue]) -> None:
        self.model.hold({(sheet, *parse_cell(cell)): value for (sheet, cell), value in values.items()},
                        self._held_spills(values))

    def _held_spills(self, values: dict[Key, CellValue]) -> dict[tuple[str, int, int], tuple[str, Area]]:
        """The dynamic arrays among the held anchors whose stored range is held whole, each as a
        formula spilling those values (`spill_literal`), so that a cell reading one through
        `A1#` reads them: held cell by cell, the anchor spilled nowhere, and `INDEX(A1#,2,2)`
        over a RATES_* curve was #REF! at the check, and kept stale at Excel's older value."""
        spills = {}
        for key in values:
            area = self.prepared.areas.get(key)
            if area is None or self.prepared.rewritten.get(key) != "spill" or key in self.book.legacy_arrays:
                continue
            sheet = key[0]
            r1, c1, r2, c2 = area
            rows = [[values.get((sheet, cell_address(r, c))) for c in range(c1, c2 + 1)] for r in range(r1, r2 + 1)]
            if (formula := spill_literal(rows)) is not None:
                spills[(sheet, r1, c1)] = (formula, area)
        return spills

    def release(self, cells: set[Key]) -> None:
        # The spills held at #SPILL! are computed again too: their inputs may change the size.
        cells = cells | set(self.blocked)
        self.blocked = {}
        self.model.release({(sheet, *parse_cell(cell)) for sheet, cell in cells})

    def area(self, key: Key) -> Area | None:
        return self.prepared.areas.get(key)

    def evaluate(self) -> dict[Key, CellValue]:
        from rates_xl.calc import budget
        from rates_xl.calc.book import CalcError

        try:
            with budget.cancelling(self.model.workbook.cancel, self.model.first_not_computed):
                self.model.recalculate()
                extents = self._block_merged()
        except BaseException as exc:  # never a traceback
            reraise_interrupts(exc)
            raise CalcError(f"{self.book.path}: calculation failed: {type(exc).__name__}: {exc}") from None
        self.extents = {}
        self.cut = {}
        keys, sheets, rows, cols, others = self._reading()
        # One-cell formulas (most): read in one pass, by their anchors' keys (no address made per cell).
        single = self.model.values(sheets, rows, cols)
        values = self._in_order(keys, single, others, extents) if others else dict(zip(keys, single, strict=True))
        self._settle_loops(values)
        return values

    def _in_order(self, keys: list[Key], single: list[CellValue], others: list[tuple[int, Key, Area, str | None]],
                  extents: dict[Key, Area | None]) -> dict[Key, CellValue]:
        """Every computed cell's value, anchor by anchor in the prepared copy's order: the
        one-cell formulas' (`single`, by `keys`) put in by runs between the other areas, read
        back the way Excel shows them (`extents`: the spills' as `_block_merged` read them last)."""
        loaded = self.model
        values: dict[Key, CellValue] = {}
        done = 0
        for at, key, area, kind in others:
            if at > done:  # the one-cell formulas before this anchor
                values.update(zip(keys[done:at], single[done:at], strict=True))
                done = at
            sheet, anchor = key
            r1, c1, r2, c2 = area
            if kind == "spill" and key in self.book.legacy_arrays:
                # A legacy array: exactly its stored range, filled from the (cut) result.
                read = loaded.legacy_read.get(key)  # (read by the fill of its range, most)
                if read is not None:
                    result = read[1]
                else:
                    h2, w2 = r1, c1
                    # (A one-cell range shows the result's first value, the anchor's: its extent
                    # is not asked, an inspection each round for 185 of formulas_test's 527.)
                    extent = loaded.spill_extent(sheet, anchor) if (r1, c1) != (r2, c2) else None
                    if extent:
                        h2, w2 = extent.bottom, extent.right
                    result = loaded.block(sheet, r1, c1, h2, w2)
                self._note_cut_table(key, r2 - r1 + 1, c2 - c1 + 1)
                fitted = fit_legacy(result, r2 - r1 + 1, c2 - c1 + 1)
                values.update(zip(self._cells(sheet, area), itertools.chain.from_iterable(fitted), strict=True))
                continue
            if kind == "spill":
                extent = extents[key] if key in extents else loaded.spill_extent(sheet, anchor)
                spilled = Area.cell(r1, c1)
                if extent:
                    spilled = extent
                    self.extents[key] = spilled  # wider or longer than the file's range too
                # Report the range a RATES_* spill may grow into (blank where it did not).
                values.update(self._blanks(sheet, anchor, Area(r1, c1, r2, c2), spilled))
                if not extent:
                    values[key] = loaded.value(sheet, r1, c1)
                    continue
                area = spilled
            block = loaded.block(sheet, *area)
            values.update(zip(self._cells(sheet, area), itertools.chain.from_iterable(block), strict=True))
        values.update(zip(keys[done:], single[done:], strict=True))
        return values

    def _reading(self) -> tuple[list[Key], list[str], list[int], list[int], list[tuple[int, Key, Area, str | None]]]:
        """What `evaluate` reads back (built once: the cells computed do not change between
        rounds): the one-cell formulas that do not spill (most), their keys, sheets, rows and
        columns side by side; and every other anchor, in the prepared copy's order, as (how
        many one-cell formulas come before it, the anchor, its area, how it was rewritten)."""
        found = self.__dict__.get("_read")
        if found is None:
            keys: list[Key] = []
            sheets: list[str] = []
            rows: list[int] = []
            cols: list[int] = []
            others: list[tuple[int, Key, Area, str | None]] = []
            rewritten = self.prepared.rewritten
            letters: dict[int, str] = {}  # a column's letters, found once (`cell_address` of each anchor)
            for key, area in self.prepared.areas.items():
                if key in self.unsupported:
                    continue
                kind = rewritten.get(key)
                if kind != "spill" and area[0] == area[2] and area[1] == area[3] and \
                        key[1] == f"{letters.get(area[1]) or letters.setdefault(area[1], column_letters(area[1]))}{area[0]}":
                    keys.append(key)
                    sheets.append(key[0])
                    rows.append(area[0])
                    cols.append(area[1])
                else:
                    others.append((len(keys), key, area, kind))
            found = self._read = (keys, sheets, rows, cols, others)
        return found

    def _cells(self, sheet: str, area: Area) -> list[Key]:
        """The keys of an area's cells, by row (made once per area: a spill's every round)."""
        cache: dict[tuple[str, Area], list[Key]] = self.__dict__.setdefault("_cell_keys", {})
        found = cache.get((sheet, area))
        if found is None:
            r1, c1, r2, c2 = area
            if r1 <= r2 and c1 <= c2:  # (their ValueError for an area off the sheet, as each cell's)
                cell_address(r1, c1), cell_address(r2, c2)
            columns = [column_letters(c) for c in range(c1, c2 + 1)]  # (`cell_address` of each cell)
            found = cache[(sheet, area)] = [(sheet, f"{letters}{r}") for r in range(r1, r2 + 1) for letters in columns]
        return found

    def _block_merged(self) -> dict[Key, Area | None]:
        """A spill over merged cells is #SPILL! in Excel (calc/merged_spills.py): the engine's copy
        holds those cells empty and spills over them, so each such anchor is held at the error
        and the book computed again (what read the spill then reads the merged cells' own
        content), until no spill covers merged cells. Answers the extents read last (the
        spills on sheets with merged cells, as the book stands now)."""
        merged = self.book.merged
        if not merged:
            return {}
        while True:
            found = {}
            extents = {}
            for key, kind in self.prepared.rewritten.items():
                sheet, anchor = key
                if kind != "spill" or sheet not in merged or key in self.book.legacy_arrays or key in self.blocked:
                    continue
                extent = extents[key] = self.model.spill_extent(sheet, anchor)
                hit = merged_spills.in_the_way(merged[sheet], extent) if extent is not None else None
                if hit is not None:
                    found[key] = hit
            if not found:
                return extents
            self.blocked.update(found)
            self.model.hold({(sheet, *parse_cell(anchor)): "#SPILL!" for sheet, anchor in found})
            self.model.recalculate()

    def _blanks(self, sheet: str, anchor: str, area: Area, spilled: Area) -> dict[Key, None]:
        """The cells of a spill's stored range (a RATES_* one: the range it may grow into)
        that its result (`spilled`: r1, c1, r2, c2) did not cover, blank: the same every round
        while the extent stays (thousands of cells for a range grown to MAX_SPILL_ROWS), so
        built once per extent."""
        cache = self.__dict__.setdefault("_blank_cells", {})
        if (sheet, anchor, spilled) not in cache:
            g1, h1, g2, h2 = self.book.spills.get((sheet, anchor), area)
            r1, c1, r2, c2 = area
            f1, e1, f2, e2 = spilled
            cells = {(r, c) for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)}
            cells |= {(r, c) for r in range(g1, g2 + 1) for c in range(h1, h2 + 1)}
            cache[(sheet, anchor, spilled)] = {
                (sheet, cell_address(r, c)): None for r, c in cells
                if not (f1 <= r <= f2 and e1 <= c <= e2)}
        return cache[(sheet, anchor, spilled)]

    def _note_cut_table(self, key: Key, rows: int, cols: int) -> None:
        """A legacy array range smaller than the RATES_* table it holds shows part of it, as
        Excel does; never without a word."""
        spot = self.prepared.table_sizes.get(key)
        size = self.model.value(*spot) if spot else None
        if not isinstance(size, int | float) or isinstance(size, bool) or size <= 0:
            return
        height, width = divmod(int(size), 100000)
        if height > rows or width > cols:
            self.cut[key] = (f"the table is {height} x {width}; this legacy (Ctrl+Shift+Enter) array range "
                             f"shows only its first {rows} x {cols}, as Excel does; enter it as a dynamic "
                             "array (or over a larger range) to see all of it")

    def loops(self) -> list[str]:
        return list(self._loops or [])

    def _settle_loops(self, values: dict[Key, CellValue]) -> None:
        """Excel's rule for circular references, by the file's own settings: iteration on,
        the iterated values (listed as a loop); off, 0 in every cell of the loop (and a warning)."""
        if self.book.iteration[0]:
            if self._loops is None:
                self._loops = [address(s, cell_address(r, c)) for s, r, c in self.model.loops()] \
                    if self.model.has_loops() else []
            return
        # (most rounds hold none: looked for first by a scan in C, not a comparison per cell here)
        loops = [key for key, value in values.items() if value == "#CIRC!"] if "#CIRC!" in values.values() else []
        for key in loops:
            values[key] = 0
        self._loops = [address(*key) for key in sorted(loops, key=lambda k: (k[0], *parse_cell(k[1])))]


def _kept_rich_errors(prepared: prepare.Prepared, rich: dict[Key, str]) -> None:
    """A cell the engine does not compute (a constant, a formula kept at Excel's value) whose
    rich value is an error the engine holds (#CALC!, #SPILL!) other than the #VALUE! the file
    stores for it is given that error once loaded (`Prepared.late_errors`): an empty FILTER's
    #CALC! kept is ERROR.TYPE 14 to what reads it, not 3. A cell of an array the engine
    computes is left to it."""
    wanted = {(sheet, *parse_cell(coordinate)): what for (sheet, coordinate), what in rich.items()
              if what != "#VALUE!" and held_exactly(what)}
    wanted = {cell: what for cell, what in wanted.items() if cell not in prepared.written}
    if not wanted:
        return
    computed = [(key[0], area) for key, area in prepared.areas.items() if key not in prepared.unsupported]
    for (sheet, row, col), what in wanted.items():
        if not any(title == sheet and r1 <= row <= r2 and c1 <= col <= c2 for title, (r1, c1, r2, c2) in computed):
            prepared.late_errors.setdefault((sheet, row, col), what)
