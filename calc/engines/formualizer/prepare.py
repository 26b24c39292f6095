"""The fast engine's copy of a workbook: prepared for formualizer (Rust; MIT) so that it
computes every formula the way Excel does.

The preparation (`prepare`) walks the book cell by cell: each formula through the passes
(calc/formula/passes.py), then the fit (calc/formula/fit.py: implicit intersection, arrays
lifted cell by cell, helper cells, sheet-qualified names; an ordinary cell's in `fitting.py`,
an array formula's here); what cannot be rewritten is
reported back (with functions the engine does not know and what-if data tables) and given the
file's cached value. Spill ranges are emptied of the values the file stored for them (stored
values block a spill). What a cell holds where it holds no formula is `cells.py`'s; how far a
sheet's formulas reach (whole rows, the last row a whole column reads to) `reach.py`'s. The
prepared copy is loaded and computed by `model.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from operator import itemgetter
from typing import TYPE_CHECKING, Any, TypeVar, cast

from rates_xl.calc import (
    budget,
    collector,
    data_tables,
    displayed_precision,
    feed_links,
    xlsx_writer,
)
from rates_xl.calc.engines.formualizer import displayed, links, lookups
from rates_xl.calc.engines.formualizer.cells import (
    FILE_ERRORS,
    emptied,
    empty_text,
    kept_subtotal,
    plain_numbers,
    set_constant,
    set_formula,
)
from rates_xl.calc.engines.formualizer.fitting import (
    fit_ordinary,
    not_computable,
    qualified,
    settled,
)
from rates_xl.calc.engines.formualizer.reach import LastRows, reads_whole_rows
from rates_xl.calc.formula import (
    comparisons,
    defined_names,
    hidden_rows,
    lotus_rules,
    number_arguments,
    passes,
    terms,
)
from rates_xl.calc.formula.fit import cut_to_range, lift
from rates_xl.calc.formula.hazards import analyse, rates_tables
from rates_xl.calc.formula.lambdas import lambda_names
from rates_xl.calc.formula.memo import Memo, Watch
from rates_xl.calc.formula.shapes import Shape
from rates_xl.calc.formula.site import BookFacts, FormulaCells, NotComputed, Site
from rates_xl.calc.formula.tables import tables
from rates_xl.calc.xlfuncs.coercion import Facts
from rates_xl.calc.xlfuncs.text import number_text
from rates_xl.functions.sheet import (
    Area,
    Key,
    cell_address,
    is_rates_name,
    parse_area,
    read_area,
    split_reference,
    unquote_sheet,
)
from rates_xl.functions.tokens import function_names

if TYPE_CHECKING:
    from openpyxl import Workbook
    from openpyxl.cell.cell import Cell, MergedCell

    from rates_xl.functions.values import CellValue

T = TypeVar("T")

#: The preparation looks at the book's time (calc/budget.py) at every 64th ordinary formula
#: (`counted & _EVERY_FEW` is 0), the first included: asked of each, the clock and the context
#: cost as much as fitting a copy whose shape's answer is known; 64 take a few milliseconds.
_EVERY_FEW = 63
_COLUMN = itemgetter(1)  # a (row, column) key's column


@dataclass
class Prepared:
    """What `prepare` did to the engine's copy of the workbook."""

    data: bytes
    #: (sheet, anchor coordinate) -> "lifted" | "intersected" | "spill" for rewritten cells.
    rewritten: dict[Key, str] = field(default_factory=dict)
    #: (sheet, coordinate) -> why the fast engine cannot compute it (kept as cached).
    unsupported: dict[Key, str] = field(default_factory=dict)
    #: Those of them it would compute wrongly (not merely a function it does not know).
    wrong: set[Key] = field(default_factory=set)
    #: Cells whose formula calls a RATES_* function: re-set in every later planning round.
    rates_cells: list[tuple[str, int, int, str]] = field(default_factory=list)
    #: (sheet, row, col) -> the formula written there (to put one back after holding a value).
    written: dict[tuple[str, int, int], str] = field(default_factory=dict)
    #: Those of them that compute an array formula (its anchor, or a cell of a lifted one).
    elements: set[tuple[str, int, int]] = field(default_factory=set)
    #: (sheet, anchor) -> the formula cell's own area (array formulas: their stored range).
    areas: dict[Key, Area] = field(default_factory=dict)
    #: Legacy array anchors calling a RATES_* table -> the helper cell (sheet, row, col) that
    #: holds the table's full size (rows * 100000 + columns): a range smaller than the table
    #: shows part of it, as in Excel, and the summary says so.
    table_sizes: dict[Key, tuple[str, int, int]] = field(default_factory=dict)
    #: The same workbook with iterative calculation off, to find the loops (iterating books).
    probe: bytes | None = None
    #: What the Excel-exact functions need to know of the book (calc/xlfuncs: `book_facts`).
    facts: Facts = field(default_factory=Facts)
    #: Legacy array anchors written as one (cut) spill -> their stored range (r1, c1, r2, c2):
    #: the cells past a smaller result are filled after each evaluation (model.py).
    legacy_spills: dict[Key, Area] = field(default_factory=dict)
    #: The copy holds the file's links to other workbooks: a formula of it can read them
    #: (links.py; model.py `_indirect_again`).
    links: bool = False
    #: What-if data tables by their first cell, computed by substitution after each evaluation.
    data_tables: dict[Key, data_tables.DataTable] = field(default_factory=dict)
    #: Sums whose adjustment to 0 the values decide, with their last operand (calc/formula/
    #: terms.py): after each evaluation the model writes the rule into those it lands near 0.
    sums: dict[tuple[str, int, int], terms.Operand] = field(default_factory=dict)
    #: (sheet, row, col) -> an error value the copy cannot hold (cells.py `FILE_ERRORS`): a
    #: constant, or the value kept for a formula not computed; set once the copy is loaded.
    late_errors: dict[tuple[str, int, int], str] = field(default_factory=dict)


def prepare(book: Any, range_size: Callable[[str, str], int | None],
            cached: Callable[[], dict[Key, Any]] = dict, *args: Any, **kwargs: Any) -> Prepared:
    """`_prepare` with the cyclic collector paused (calc/collector.py): the preparation
    allocates a few objects per token of every formula (the tokens, the formulas read, their
    sites) over an openpyxl workbook of about as many long-lived objects, which each full
    collection walked again (0.09 s of the 0.9 s the 12,000-formula book's preparation took)."""
    with collector.paused():
        return _prepare(book, range_size, cached, *args, **kwargs)


def _prepare(book: Any, range_size: Callable[[str, str], int | None],
             cached: Callable[[], dict[Key, Any]] = dict,
             unknown: frozenset[str] = frozenset(),
             resolve: Callable[[str, str], str | None] | None = None,
             legacy: frozenset[Key] = frozenset(),
             constants: dict[Key, Any] | None = None,
             formula_cells: Any = None, sources: Any = None, trusted: bool = False,
             steady: bool = False, file_name: str = "", unknown_names: dict[str, str] | None = None) -> Prepared:
    """Rewrite `book` (openpyxl, formulas kept; changed in place) for the fast engine and
    serialise it. Every formula goes through the passes (calc/formula/passes.py) and the fit
    (calc/formula/fit.py). `range_size(sheet, text)` gives an operand's cell count; `cached()`
    the values the file cached, which replace the formulas the engine would compute wrongly
    (so what depends on them starts from Excel's value, not from a wrong one), as they do for
    formulas calling a function in `unknown` (GETPIVOTDATA, a misspelt name ...). Array
    formulas anchored at a (sheet, cell) in `legacy` (Ctrl+Shift+Enter) are cut to their stored
    range (`fit_legacy`); the others spill as dynamic arrays do. `constants` (sheet, cell) ->
    value: formula cells the engine must not compute (every cell of an array formula's range
    given), written in as plain values before anything else. `formula_cells`
    (calc/formula/site.py `FormulaCells`): which cells the file holds formulas in, for ISFORMULA;
    `sources` (calc/sources.py `Targets`): the referenced cells' formulas, for RATES_SOURCE;
    `trusted`: the file's cached values are Excel's answers to its inputs (which of its sums
    Excel set to 0: calc/formula/terms.py); `steady`: no constant cell changes during the
    calculation (no what-if data table substitutes its input), so a comparison may read one
    (calc/formula/comparisons.py)."""
    from openpyxl.worksheet.formula import ArrayFormula

    arrays = rates_tables()
    from openpyxl.utils.datetime import CALENDAR_MAC_1904

    prepared = Prepared(b"")
    held_arrays: dict[Key, str] = {}  # the dynamic arrays held: anchor -> their stored range
    for (title, coordinate), value in (constants or {}).items():
        cell = book[title][coordinate]
        if isinstance(cell.value, ArrayFormula) and (title, coordinate) not in legacy:
            held_arrays[(title, coordinate)] = parse_area(cell.value.ref or coordinate).a1()
        _keep(cell, value, cell.value, prepared)
    last_rows = LastRows(book)
    feeds = feed_links.feeds(book)  # (links to a DDE or OLE feed: no cells cached to read)
    facts = BookFacts(tables=tables(book), formula_cells=formula_cells, last_row=last_rows.of,
                      sources=sources,  # the engine reads no table: their references become ranges
                      links=frozenset(range(1, len(getattr(book, "_external_links", ()) or ()) + 1)) - feeds.keys(),
                      feeds=feeds,
                      range_size=range_size, sheets=tuple(ws.title for ws in book.worksheets), file_name=file_name,
                      date1904=getattr(book, "epoch", None) == CALENDAR_MAC_1904, hidden_rows=hidden_rows.of_book(book),
                      unknown_names=unknown_names or {}, lotus_sheets=lotus_rules.lotus_sheets(book))
    if resolve is not None:
        facts.name_range = resolve
    facts.lambda_names = lambda_names(book)
    if steady and formula_cells is not None:
        facts.constant_kind = kinds = _ConstantKinds(book, formula_cells)
        facts.text_reading = kinds.text_reading
        facts.joined_length = kinds.joined_length
        facts.unsure_texts = kinds.any_unsure()
    if trusted:
        facts.may_be_zero = _zero_or_none(cached)
    calculation = getattr(book, "calculation", None)
    if calculation is None or not calculation.iterate:
        facts.sums = {}  # (an iterating book has every sum written out: calc/formula/terms.py)
    _name_passes(book, facts)
    facts.defined_names = defined_names.of_book(book, facts.lambda_names)  # (their text after the NAMES passes)
    waiting: set[tuple[str, int, int]] = set()  # ordinary cells whose last passes wait (`_written_passes`)
    dynamic: set[Key] = set()  # the dynamic arrays' anchors
    counted = 0  # ordinary formulas fitted: the book's time is looked at every few (`_EVERY_FEW`)
    areas, written = prepared.areas, prepared.written
    new = tuple.__new__  # (an ordinary formula's one-cell Area without NamedTuple's Python __new__)
    # Every sheet's cells are read before any is fitted: each formula's shape counted (`Memo.note`)
    # and whether any text reads whole rows (`reads_whole_rows`, as `has_whole_rows` reads the book).
    whole_rows = False
    sheets = []
    for ws in book.worksheets:
        title = ws.title
        size = _sized(range_size, title)
        names = _sized(resolve, title) if resolve is not None else None
        memo = Memo(facts, {"size": (size, (0,))} if names is None else
                    {"size": (size, (0,)), "names": (names, (0,))})
        anchors = []  # (row, col, ArrayFormula): fitted once every ordinary cell is
        todo = []  # (cell, value, an ordinary formula?, its shape) of every other cell holding a formula or ""
        stored = ws._cells  # (row, column) -> cell: openpyxl's store, read row by row (`sheet_rows`' order)
        for cell in map(stored.__getitem__, sorted(stored)):
            value = cell._value  # (`value` reads it: no Python call for each cell of the book)
            if isinstance(value, ArrayFormula):
                anchors.append((cell.row, cell.column, value))
                whole_rows = whole_rows or reads_whole_rows(value.text)
            elif cell.data_type == "f" or value == "":  # (else a constant: most cells, passed at once)
                if isinstance(value, str) and value.startswith("=") and cell.data_type == "f":
                    todo.append((cell, value, True, memo.note(title, value, cell.row, cell.column)))
                    if ":" in value and not whole_rows:
                        whole_rows = reads_whole_rows(value)
                else:
                    todo.append((cell, value, False, None))
            elif not whole_rows and isinstance(value, str) and ":" in value:
                whole_rows = reads_whole_rows(value)  # (text starting with "=": `has_whole_rows` reads it too)
            elif cell.data_type == "e" and value not in FILE_ERRORS:  # (a pasted #CALC!: given once loaded)
                prepared.late_errors[(title, cell.row, cell.column)] = str(value)
                cell._value, cell.data_type = None, "n"
        sheets.append((ws, title, size, names, memo, anchors, todo))
    # Helper cells go to the right of each sheet's used range; a whole-row reference would
    # read them, so a book with one gets none (its formulas that need them are not computed).
    helpers_allowed = not whole_rows
    for ws, title, size, names, memo, anchors, todo in sheets:
        place = _placer(ws, prepared) if helpers_allowed else (lambda cells: None)
        for cell, value, ordinary, noted in todo:
            r, c = cell.row, cell.column
            key = (title, cell.coordinate)
            if not ordinary:
                if cell.data_type == "f" and not isinstance(value, str):
                    # A what-if data table (TABLE(...)): its cells hold values in the engine's
                    # copy; the model computes them by substitution (calc/data_tables.py).
                    table = data_tables.read(title, value)
                    prepared.areas[key] = table.area if table is not None else Area(r, c, r, c)
                    if table is None:
                        prepared.unsupported[key] = f"an unknown kind of formula ({type(value).__name__})"
                    elif title in facts.lotus_sheets:
                        prepared.unsupported[key] = lotus_rules.REASON
                    else:
                        prepared.data_tables[key] = table
                elif value == "":
                    cell.value = empty_text()
                continue
            areas[key] = new(Area, (r, c, r, c))
            if not counted & _EVERY_FEW:
                budget.at(key)  # past the book's time: stop here, naming the cell
            counted += 1
            handle, shared = memo.find(title, value, r, c, noted)
            if shared is not None:  # (most: its shape's answer moved to it, calc/formula/memo.py)
                formula, extra = shared
                intersected, waits, rates = cast(tuple[bool, bool, bool], extra)
            else:
                done = fit_ordinary(memo, handle, value, title, r, c, facts, size, names, place, arrays, unknown)
                if done.formula is None:
                    prepared.unsupported[key] = done.reason
                    if done.wrong:
                        prepared.wrong.add(key)
                    continue
                formula, intersected, waits, rates = done.formula, done.intersected, done.waiting, done.rates
            if intersected:
                prepared.rewritten[key] = "intersected"
            at = (title, r, c)
            if waits:
                waiting.add(at)  # may read a spill: its last passes wait for every array's fit
            if formula != value:
                set_formula(cell, formula)  # (only where it changed)
            written[at] = formula
            if rates:
                prepared.rates_cells.append((title, r, c, formula))
        for r, c, array in anchors:
            key = (title, cell_address(r, c))
            if key not in legacy:
                dynamic.add(key)
            prepared.areas[key] = area = parse_area(array.ref or key[1])
            r1, c1, r2, c2 = area
            text = str(array.text)
            text = text if text.startswith("=") else "=" + text
            try:
                read = passes.rewrite(text, Site(title, r, c, True, facts))
            except NotComputed as exc:
                prepared.unsupported[key] = exc.reason
                continue
            found = analyse(read, size, arrays, names)
            rates = any(is_rates_name(f) for f in found.functions)
            emptied(ws, r1, c1, r2, c2)  # stored values of a spill block it
            if (why := not_computable(found, unknown)) is not None:
                prepared.unsupported[key] = why
                continue
            found = settled(qualified(found, size, arrays, names), place, size, arrays, names)
            formula = found.formula.text
            lifting = found.needs_rewrite and not found.computed_whole
            cells = lift(found, r2 - r1 + 1, c2 - c1 + 1) if lifting else None
            if cells is None and lifting and not found.hazards and found.spills:
                # Only operators over ranges and computed arrays, no function given an array
                # (`{=$Z$120:$Z$184+MMULT(MMULT(...),...)}`, which `lift` cannot write out cell
                # by cell): the engine's array arithmetic is Excel's, so it is computed whole
                # like any array formula and cut to its range (tests/calc/test_model_classes.py).
                lifting = False
            if lifting:
                if cells is None:
                    prepared.unsupported[key] = "; ".join(dict.fromkeys(found.hazards)) or "an array of ranges"
                    prepared.wrong.add(key)
                    continue
                for i, line in enumerate(cells):
                    for j, text in enumerate(line):
                        if found.answers_array:  # each cell of a legacy array: the top-left value
                            text = cut_to_range(text, 1, 1)
                        set_formula(ws.cell(row=r1 + i, column=c1 + j), text)
                        prepared.written[(title, r1 + i, c1 + j)] = text
                        prepared.elements.add((title, r1 + i, c1 + j))
                        if rates:
                            prepared.rates_cells.append((title, r1 + i, c1 + j, text))
                prepared.rewritten[key] = "lifted"
            else:
                if key in legacy:
                    if rates and found.functions & arrays:
                        body = formula[1:]
                        spot = place([[f"=LET(_rates_xl_t,({body}),ROWS(_rates_xl_t)*100000+COLUMNS(_rates_xl_t))"]])
                        if spot is not None:
                            sr1, sc1, _sr2, _sc2 = parse_area(spot)
                            prepared.table_sizes[key] = (title, sr1, sc1)
                    formula = cut_to_range(formula, r2 - r1 + 1, c2 - c1 + 1)
                    if (r1, c1) != (r2, c2) and not rates:  # (a RATES_* table's planning
                        prepared.legacy_spills[key] = area  # rounds change its size)
                set_formula(ws.cell(row=r, column=c), formula)
                prepared.written[(title, r, c)] = formula
                prepared.elements.add((title, r, c))
                prepared.rewritten[key] = "spill"
                if rates:
                    prepared.rates_cells.append((title, r, c, formula))
    _tables_fitted(book, prepared, cached)
    facts.lifted = {key: prepared.areas[key].a1() for key, kind in prepared.rewritten.items() if kind == "lifted"}
    # A dynamic array not computed, or held at Excel's values (default mode), holds them over its
    # stored range, spilling nowhere in the engine's copy: `A1#` reads that range as it does a
    # lifted array's (`=SUM(A1#)` was #REF!, where Excel has the sum of the values kept).
    facts.lifted.update(held_arrays)
    facts.lifted.update((key, prepared.areas[key].a1()) for key in prepared.unsupported if key in dynamic)
    _written_passes(book, prepared, facts, waiting)
    lookups.share_tables(book, prepared)
    if displayed_precision.applies(book):
        displayed.as_displayed(book, prepared, dynamic)  # (Excel's "Set precision as displayed")
    if prepared.unsupported:
        values = cached()
        for (title, coordinate) in prepared.unsupported:
            ws = book[title]
            formula = ws[coordinate].value  # (the file's: a cell not computed keeps it until here)
            for r, c in prepared.areas[(title, coordinate)].cells():
                _keep(ws.cell(row=r, column=c), values.get((title, cell_address(r, c))), formula, prepared)
    plain_numbers(book)
    # The links only where a formula can read them (links.py: formualizer's INDIRECT is #REF!
    # in a file holding one).
    prepared.links = bool(facts.links) and links.needed(book, prepared.written.values())
    with nullcontext() if prepared.links or not facts.links else links.left_out(book):
        prepared.data = _save(book)
        calculation = getattr(book, "calculation", None)
        if calculation is not None and calculation.iterate:
            calculation.iterate = False
            try:
                prepared.probe = _save(book)
            finally:
                calculation.iterate = True
    return prepared


def _keep(cell: Cell | MergedCell, value: CellValue, formula: object, prepared: Prepared) -> None:
    """A formula cell the engine does not compute (`formula`, the file's) holds `value`: a
    plain value, or one that is still a subtotal to a SUBTOTAL reading it (`kept_subtotal`);
    an error the copy cannot hold is given once it is loaded (`Prepared.late_errors`)."""
    if (nested := kept_subtotal(formula, value)) is not None:
        set_formula(cell, nested)
    elif (late := set_constant(cell, value)) is not None:
        prepared.late_errors[(cell.parent.title, cast(int, cell.row), cast(int, cell.column))] = late


def _tables_fitted(book: Any, prepared: Prepared, cached: Callable[[], dict[Key, Any]]) -> None:
    """Each what-if data table's first cell holds the file's value like the rest of the table
    (the model computes them all); a table that cannot be computed is listed instead."""
    if not prepared.data_tables:
        return
    formulas = {(sheet, cell_address(r, c)) for sheet, r, c in prepared.written}
    values = cached()
    for key, table in list(prepared.data_tables.items()):
        why = data_tables.not_computed(table, formulas, prepared.unsupported)
        if why is not None:
            prepared.unsupported[key] = why
            del prepared.data_tables[key]
            continue
        _keep(book[key[0]][key[1]], values.get(key), None, prepared)


def _written_passes(book: Any, prepared: Prepared, facts: BookFacts, waiting: set[tuple[str, int, int]]) -> None:
    """The passes over what each cell finally holds (calc/formula/passes.py, WRITTEN: spill
    references to lifted arrays, numbers joined into text, Excel's zero after a last + or -),
    for the cells that waited for every array's fit: an array's cells (`elements`, as an array
    formula's) and ordinary cells that may read a spill (`waiting`); every other ordinary cell
    went through them right after its own fit. A book whose values cannot decide Excel's zero
    (what-if data tables, legacy arrays filled past their result) has every sum written out."""
    changed = {}
    elements = prepared.elements
    passed = elements | waiting if waiting else elements
    sheets = {ws.title: ws for ws in book.worksheets}  # (openpyxl's book[title] searches them all)
    # An array's elements are mostly copies of one formula (a lifted array's, calc/formula/fit.py:
    # the swap pricer's 1,696 elements are 14 shapes, some of 1,800 characters): each shape's
    # passes run once and the answer moves to its copies, as the ordinary cells' do
    # (calc/formula/memo.py, which checks that it moves). One memo per kind of site.
    memos = {True: Memo(facts), False: Memo(facts)}
    cells = [(at, formula, at in elements) for at, formula in prepared.written.items() if at in passed]
    noted = [memos[array].note(at[0], formula, at[1], at[2]) for at, formula, array in cells]  # (`Memo.note`)
    for (at, formula, array), shape in zip(cells, noted, strict=True):  # (in the order written, as fitted)
        title, row, col = at
        done = _last_passes(memos[array], formula, title, row, col, array, facts, shape)
        if done != formula:
            changed[at] = done
            set_formula(sheets[title].cell(row=row, column=col), done)
    sums = facts.sums or {}
    if sums and (prepared.data_tables or prepared.legacy_spills):
        for (title, row, col) in sums:
            done = terms.written_out(changed.get((title, row, col), prepared.written[(title, row, col)]))
            changed[(title, row, col)] = done
            book[title].cell(row=row, column=col).value = done
        sums = {}
    prepared.sums = sums
    if changed:
        prepared.written.update(changed)
        prepared.rates_cells = [(t, r, c, changed.get((t, r, c), f)) for t, r, c, f in prepared.rates_cells]


def _last_passes(memo: Memo, formula: str, title: str, row: int, col: int, array: bool, facts: BookFacts,
                 noted: Shape | None) -> str:
    """One cell's formula through the WRITTEN passes, or its shape's answer moved to it
    (`noted`: its shape, as `memo.note` read it)."""
    handle, shared = memo.find(title, formula, row, col, noted)
    if shared is not None:
        return shared[0]
    if handle is None:
        return passes.rewrite(formula, Site(title, row, col, array, facts), passes.WRITTEN).text
    watch = Watch()
    done = passes.rewrite(memo.read(formula), watch.site(title, row, col, facts, array), passes.WRITTEN).text
    memo.learn(handle, watch, row, col, done, None, formula)
    return done


def _zero_or_none(cached: Callable[[], dict[Key, Any]]) -> Callable[[str, str], bool]:
    """Whether the file cached 0 (or nothing) for a cell: where Excel's adjustment of a last
    + or - may have given its answer."""
    def may_be_zero(sheet: str, coordinate: str) -> bool:
        value = cached().get((sheet, coordinate))
        return value is None or (isinstance(value, int | float) and not isinstance(value, bool) and value == 0)
    return may_be_zero


def _placer(ws: Any, prepared: Prepared) -> Callable[[list[list[str]]], str | None]:
    """Where helper cells go on `ws`: blocks side by side, two columns right of its used range
    (those calling a RATES_* function are re-set in later rounds like any other)."""
    # (openpyxl's max_column, read off its store of cells without a generator: the largest
    # column holding a cell, 1 with none)
    state = {"col": max(map(_COLUMN, ws._cells), default=1) + 2}

    def place(cells: list[list[str]]) -> str | None:
        rows, cols = len(cells), len(cells[0]) if cells else 0
        c1 = state["col"]
        if not rows or c1 + cols > 16384 or rows > 1048576:
            return None
        for i, line in enumerate(cells):
            for j, text in enumerate(line):
                set_formula(ws.cell(row=1 + i, column=c1 + j), text)
                prepared.written[(ws.title, 1 + i, c1 + j)] = text
                prepared.elements.add((ws.title, 1 + i, c1 + j))  # an element of an array
                if "RATES" in text.upper() and any(is_rates_name(name) for name in function_names(text)):
                    prepared.rates_cells.append((ws.title, 1 + i, c1 + j, text))
        state["col"] = c1 + cols
        return Area(1, c1, rows, c1 + cols - 1).a1(absolute=True)

    return place


def _name_passes(book: Any, facts: BookFacts) -> None:
    """Defined names' text through the NAMES passes (calc/formula/passes.py: reference
    operators resolved, other workbooks' names made #REF!, the names noted in `facts`)."""
    from rates_xl.calc.formula.ranges import reads_other_workbook_name

    scopes = [book.defined_names, *(getattr(ws, "defined_names", {}) for ws in book.worksheets)]
    foreign = set()
    for names in scopes:
        for key, defined in names.items():
            text = defined.attr_text
            if isinstance(text, str) and reads_other_workbook_name(text):
                foreign.add(str(key).upper())
    facts.foreign_names = frozenset(foreign)
    site = Site("", 0, 0, book=facts)  # (a name is no cell: `[#This Row]` in one is not resolved)
    for names in scopes:
        for defined in names.values():
            text = defined.attr_text
            if isinstance(text, str):
                try:
                    done = passes.rewrite("=" + text, site, passes.NAMES).text[1:]
                except NotComputed:
                    continue  # left as it is: a cell reading it answers the engine's #NAME?, checked
                if done != text:
                    defined.attr_text = done


def _save(book: Any) -> bytes:
    # openpyxl's save, the same parts, faster; stored, not deflated: formualizer reads it at once
    return xlsx_writer.to_bytes(book, compress=False)


def _sized(read: Callable[[str, str], T], sheet: str) -> Callable[[str], T]:
    """`read(sheet, text)` for this sheet: `read(text)`."""
    def size(text: str) -> T:
        return read(sheet, text)
    return size


class _ConstantKinds:
    """`BookFacts.constant_kind`: of a one-cell reference to a cell the file holds no formula
    in, what its constant is to a comparison (calc/formula/comparisons.py `constant_kind`).
    Asked for most comparisons' operands: each answer is kept. `text_reading`: of a constant
    text, how the engine reads it against Excel (calc/xlfuncs/text/number_text.py `reading`),
    NO_TEXT for any other constant (a number, a logical, nothing) and a formula answering no text.
    `joined_length`: of a constant that is no number, how long it is joined."""

    _NO_CONSTANT, _ERROR = object(), object()
    _SHORT = 255  # (`joined_length`: 128 such joined before a cell's 32,767 characters are in doubt)

    def __init__(self, book: Workbook, formula_cells: FormulaCells) -> None:
        self.book, self.formula_cells = book, formula_cells
        self.known: dict[tuple[str, str], str | None] = {}
        self.readings: dict[tuple[str, str], str | None] = {}
        self.lengths: dict[tuple[str, str], int | None] = {}
        self.sheets: dict[str, Any] = {}  # title -> worksheet (openpyxl's book[title] searches them all)

    def __call__(self, sheet: str, reference: str) -> str | None:
        key = (sheet, reference)
        if key not in self.known:
            value = self._value(sheet, reference)
            self.known[key] = (None if value is self._NO_CONSTANT
                               else comparisons.constant_kind("#" if value is self._ERROR else value))
        return self.known[key]

    def text_reading(self, sheet: str, reference: str) -> str | None:
        key = (sheet, reference)
        if key not in self.readings:
            value = self._value(sheet, reference)
            if value is self._ERROR:
                self.readings[key] = number_text.NO_TEXT
            elif value is self._NO_CONSTANT:
                formula = self._formula(sheet, reference)
                self.readings[key] = (number_text.NO_TEXT if formula is not None
                                      and number_arguments.answers_no_text(formula) else None)
            else:
                self.readings[key] = number_text.reading(value) if isinstance(value, str) else number_text.NO_TEXT
        return self.readings[key]

    def joined_length(self, sheet: str, reference: str) -> int | None:
        """Of a constant that is no number, the most characters it writes when joined: a
        text's length, past `_SHORT` characters; `_SHORT` for any shorter one, a logical value,
        an error or nothing. (One answer for most: the copies of a formula joining different
        short texts share its rewriting, calc/formula/memo.py.)"""
        key = (sheet, reference)
        if key not in self.lengths:
            value = self._value(sheet, reference)
            self.lengths[key] = (max(len(value), self._SHORT) if isinstance(value, str) else
                                 self._SHORT if value is None or value is self._ERROR or isinstance(value, bool)
                                 else None)  # (a number, a date, a formula)
        return self.lengths[key]

    def any_unsure(self) -> bool:
        """Whether any constant text of the book is one whose reading is not settled."""
        reading, unsure = number_text.reading, number_text.UNSURE
        return any(cell.data_type == "s" and isinstance(cell.value, str) and reading(cell.value) == unsure
                   for ws in self.book.worksheets for cell in getattr(ws, "_cells", {}).values())

    def _formula(self, sheet: str, reference: str) -> str | None:
        """The formula of the one cell `reference`, where it holds one alone."""
        place = self._place(sheet, reference)
        return None if place is None else self.formula_cells.formula(*place)

    def _place(self, sheet: str, reference: str) -> tuple[str, int, int] | None:
        """The sheet, row and column of the one cell `reference` (of this book), or None."""
        prefix, ref = split_reference(reference)
        area = read_area(ref, whole_lines=False) if "[" not in prefix else None
        if area is None or not area.is_cell:
            return None
        title = self.formula_cells.titles.get(unquote_sheet(prefix[:-1]).upper()) if prefix else sheet
        return None if title is None else (title, area.top, area.left)

    def _value(self, sheet: str, reference: str) -> object:
        """The constant the one cell `reference` holds (None: nothing; _ERROR: an error, which
        openpyxl reads as its text), or _NO_CONSTANT."""
        place = self._place(sheet, reference)
        if place is None or self.formula_cells.answer(*place) is not False:
            return self._NO_CONSTANT
        title, row, col = place
        if not self.sheets:
            self.sheets = {ws.title: ws for ws in self.book.worksheets}
        cell = self.sheets[title]._cells.get((row, col))  # (not ws.cell: that makes one)
        if cell is None:
            return None
        return cell.value if cell.data_type != "e" else self._ERROR
