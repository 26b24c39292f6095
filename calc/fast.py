"""The fast engine's copy of a workbook: prepared for formualizer (Rust; MIT) so that it
computes every formula the way Excel does.

The preparation (`prepare`) is where its known faults are worked around, and the only place:
formulas it would compute wrongly are rewritten (`calc/analysis.py`: per cell, implicit
intersection, helper cells, sheet-qualified names) or, where that is impossible, reported back
(with functions it does not know and what-if data tables) and given the file's cached value;
spill ranges are emptied of the values the file stored for them (stored values block a
spill); omitted RATES_* arguments become "" (not 0). The prepared copy is loaded and computed
by `calc/fast_model.py`.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rates_xl.calc import analysis, columns, engine, single, structured
from rates_xl.calc.book import sheet_rows
from rates_xl.calc.xlfuncs import isformula
from rates_xl.functions.sheet import Area, Key, cell_address, parse_area


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
    #: (sheet, anchor) -> the formula cell's own area (array formulas: their stored range).
    areas: dict[Key, Area] = field(default_factory=dict)
    #: Legacy array anchors calling a RATES_* table -> the helper cell (sheet, row, col) that
    #: holds the table's full size (rows * 100000 + columns): a range smaller than the table
    #: shows part of it, as in Excel, and the summary says so.
    table_sizes: dict[Key, tuple[str, int, int]] = field(default_factory=dict)
    #: The same workbook with iterative calculation off, to find the loops (iterating books).
    probe: bytes | None = None
    #: What the Excel-exact functions need to know of the book (calc/xlfuncs: `book_facts`).
    facts: dict[str, Any] = field(default_factory=dict)
    #: Legacy array anchors written as one (cut) spill -> their stored range (r1, c1, r2, c2):
    #: the cells past a smaller result are filled after each evaluation (calc/fast_model.py).
    legacy_spills: dict[Key, Area] = field(default_factory=dict)


#: A formula that is one array constant (`={1,2;3,4}`).
_BARE_ARRAY = re.compile(r'^=\s*\{[^{}"]*\}\s*$')


def array_functions() -> frozenset[str]:
    """RATES_* functions that answer a table (they spill), under every spelling."""
    names = set()
    for excel_name, spec in engine.function_table().items():
        if spec.result != "number":
            names.update(engine.engine_names(excel_name))
    return frozenset(n.upper() for n in names)


def prepare(book: Any, range_size: Callable[[str, str], int | None],
            cached: Callable[[], dict[Key, Any]] = dict,
            unknown: frozenset[str] = frozenset(),
            resolve: Callable[[str, str], str | None] | None = None,
            legacy: frozenset[Key] = frozenset(),
            constants: dict[Key, Any] | None = None,
            formula_cells: Any = None) -> Prepared:
    """Rewrite `book` (openpyxl, formulas kept; changed in place) for the fast engine and
    serialise it. `range_size(sheet, text)` gives an operand's cell count; `cached()` the
    values the file cached, which replace the formulas the engine would compute wrongly (so
    what depends on them starts from Excel's value, not from a wrong one), as they do for
    formulas calling a function in `unknown` (GETPIVOTDATA, a misspelt name ...). Array
    formulas anchored at a (sheet, cell) in `legacy` (Ctrl+Shift+Enter) are cut to their stored
    range (`fit_legacy`); the others spill as dynamic arrays do. `constants` (sheet, cell) ->
    value: formula cells the engine must not compute (every cell of an array formula's range
    given), written in as plain values before anything else. `formula_cells`
    (calc/xlfuncs/isformula.py): which cells the file holds formulas in, for ISFORMULA."""
    from openpyxl.worksheet.formula import ArrayFormula

    arrays = array_functions()
    prepared = Prepared(b"")
    tables = structured.tables(book)  # the engine reads none: their references become ranges
    for (title, coordinate), value in (constants or {}).items():
        set_constant(book[title][coordinate], value)
    _resolve_definitions(book)
    # Helper cells go to the right of each sheet's used range; a whole-row reference would
    # read them, so a book with one gets none (its formulas that need them are not computed).
    helpers_allowed = not _has_whole_rows(book)
    last_rows = _LastRows(book)
    for ws in book.worksheets:
        title = ws.title
        size = _sized(range_size, title)
        place = _placer(ws, prepared) if helpers_allowed else (lambda cells: None)
        names = _sized(resolve, title) if resolve is not None else None

        def settle(formula: str, found: analysis.Analysis, place: Any = place,
                   size: Any = size, names: Any = names) -> tuple[str, analysis.Analysis]:
            """Materialise what an argument that takes a range needs, until nothing does."""
            for _ in range(4):
                if not found.helpers or found.error:
                    break
                rewritten = analysis.materialise(found, place, size, arrays, names)
                if rewritten is None:
                    break
                formula, found = rewritten, analysis.analyse(rewritten, size, arrays, names)
            return formula, found

        def qualified(formula: str, found: analysis.Analysis, size: Any = size,
                      names: Any = names) -> tuple[str, analysis.Analysis]:
            """Sheet-qualified names (`S1!local_k`) become the range they stand for."""
            if found.qualified_names and names is not None:
                rewritten = analysis.qualify_names(found, names)
                if rewritten is not None:
                    return rewritten, analysis.analyse(rewritten, size, arrays, names)
            return formula, found

        anchors = [(cell.row, cell.column, cell.value) for row in sheet_rows(ws) for cell in row
                   if isinstance(cell.value, ArrayFormula)]
        for row in sheet_rows(ws):
            for cell in row:
                value = cell.value
                key = (title, cell.coordinate)
                if cell.data_type == "f" and not isinstance(value, str | ArrayFormula):
                    # A What-If data table (TABLE(...)): no engine here computes one.
                    prepared.areas[key] = Area.cell(cell.row, cell.column)
                    prepared.unsupported[key] = f"a what-if data table ({type(value).__name__})"
                    continue
                if not (isinstance(value, str) and value.startswith("=") and cell.data_type == "f"):
                    if value == "":
                        cell.value = empty_text()
                    continue
                prepared.areas[key] = Area.cell(cell.row, cell.column)
                try:
                    formula = value  # (kept: the cell is written only where its text changed)
                    if formula_cells is not None:
                        formula = isformula.rewrite(formula, title, formula_cells)
                    formula = structured.rewrite(_engine_formula(formula), cell.row, tables)
                    formula = single.intersect(formula, cell.row, cell.column)  # Excel's @ in an ordinary cell
                    formula = columns.even(formula, last_rows.of(title))
                except structured.UnknownReference as exc:
                    prepared.unsupported[key] = f"a structured reference it cannot resolve: {exc}"
                    continue
                found = analysis.analyse(formula, size, arrays, names)
                if (why := _not_computable(found, unknown)) is not None:
                    prepared.unsupported[key] = why
                    continue
                formula, found = settle(*qualified(formula, found))
                if found.needs_rewrite:
                    rewritten = analysis.intersect(found, cell.row, cell.column)
                    if rewritten is None:
                        prepared.unsupported[key] = "; ".join(found.hazards) or "an array in an ordinary cell"
                        prepared.wrong.add(key)
                        continue
                    formula = rewritten
                    prepared.rewritten[key] = "intersected"
                if found.answers_array or _BARE_ARRAY.match(formula):
                    # An ordinary cell shows an array answer's top-left value (formulas_test.xlsx
                    # CORE!K6: `={1,2;1,2}` saved as an ordinary formula is 1 in Excel).
                    formula = cut_to_range(formula, 1, 1)
                if formula != value:
                    cell.value = formula  # (openpyxl's setter costs: only where it changed)
                prepared.written[(title, cell.row, cell.column)] = formula
                if found.functions & arrays or any(analysis.is_rates(f) for f in found.functions):
                    prepared.rates_cells.append((title, cell.row, cell.column, formula))
        for r, c, array in anchors:
            key = (title, cell_address(r, c))
            prepared.areas[key] = area = parse_area(array.ref or key[1])
            r1, c1, r2, c2 = area
            formula = array.text if array.text.startswith("=") else "=" + array.text
            if formula_cells is not None:
                formula = isformula.rewrite(formula, title, formula_cells, array=True)
            formula = _engine_formula(formula, array=True)
            try:
                formula = columns.even(structured.rewrite(formula, r, tables), last_rows.of(title))
            except structured.UnknownReference as exc:
                prepared.unsupported[key] = f"a structured reference it cannot resolve: {exc}"
                continue
            found = analysis.analyse(formula, size, arrays, names)
            rates = any(analysis.is_rates(f) for f in found.functions)
            for rr in range(r1, r2 + 1):  # stored values of a spill block it: empty the range
                for cc in range(c1, c2 + 1):
                    if (rr, cc) in ws._cells:
                        ws._cells[(rr, cc)].value = None
            if (why := _not_computable(found, unknown)) is not None:
                prepared.unsupported[key] = why
                continue
            formula, found = settle(*qualified(formula, found))
            if found.needs_rewrite and not found.computed_whole:
                cells = analysis.lift(found, r2 - r1 + 1, c2 - c1 + 1)
                if cells is None:
                    prepared.unsupported[key] = "; ".join(found.hazards) or "an array of ranges"
                    prepared.wrong.add(key)
                    continue
                for i, line in enumerate(cells):
                    for j, text in enumerate(line):
                        if found.answers_array:  # each cell of a legacy array: the top-left value
                            text = cut_to_range(text, 1, 1)
                        ws.cell(row=r1 + i, column=c1 + j).value = text
                        prepared.written[(title, r1 + i, c1 + j)] = text
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
                ws.cell(row=r, column=c).value = formula
                prepared.written[(title, r, c)] = formula
                prepared.rewritten[key] = "spill"
                if rates:
                    prepared.rates_cells.append((title, r, c, formula))
    _fix_spills(book, prepared)
    _numbers_as_text(book, prepared)
    if prepared.unsupported:
        values = cached()
        for (title, coordinate) in prepared.unsupported:
            r1, c1, r2, c2 = prepared.areas[(title, coordinate)]
            for r in range(r1, r2 + 1):
                for c in range(c1, c2 + 1):
                    key = (title, cell_address(r, c))
                    set_constant(book[title].cell(row=r, column=c), values.get(key))
    _plain_numbers(book)
    prepared.data = _save(book)
    calculation = getattr(book, "calculation", None)
    if calculation is not None and calculation.iterate:
        calculation.iterate = False
        try:
            prepared.probe = _save(book)
        finally:
            calculation.iterate = True
    return prepared


def _fix_spills(book: Any, prepared: Prepared) -> None:
    """A spill reference (`A1#`) to an array formula written out cell by cell ("lifted")
    reads the range it was written over (calc/xlfuncs/references.py `fixed_spills`)."""
    from rates_xl.calc.xlfuncs.references import fixed_spills

    lifted = {}
    for (title, anchor), kind in prepared.rewritten.items():
        if kind == "lifted":
            lifted[(title, anchor)] = prepared.areas[(title, anchor)].a1()
    if not lifted:
        return
    for (title, row, col), formula in list(prepared.written.items()):
        fixed = fixed_spills(formula, title, lifted)
        if fixed != formula:
            book[title].cell(row=row, column=col).value = fixed
            prepared.written[(title, row, col)] = fixed
            prepared.rates_cells = [(t, r, c, fixed if (t, r, c) == (title, row, col) else f)
                                    for t, r, c, f in prepared.rates_cells]


def _plain_numbers(book: Any) -> None:
    """The engine's copy holds no date or time format. formualizer reads a number in a cell so
    formatted as a date value, and hands it over (to `plain`, to our functions) as a Python
    date, in which serial 60 (Excel's 29 February 1900) is 28 February like 59: `=A1` over 60
    gave 59, EDATE of it a month from the 28th. Excel keeps only the number (the format shows
    it); the values-frozen copy keeps each cell's own format."""
    from openpyxl.styles.numbers import BUILTIN_FORMATS, is_date_format

    dated = {i for i, code in BUILTIN_FORMATS.items() if is_date_format(code)}
    dated |= {164 + i for i, code in enumerate(getattr(book, "_number_formats", [])) if is_date_format(code)}
    for ws in book.worksheets:
        for cell in ws._cells.values():
            style = cell._style  # each cell's own StyleArray (openpyxl copies it per cell)
            if style is not None and style.numFmtId in dated:
                style.numFmtId = 0


def _numbers_as_text(book: Any, prepared: Prepared) -> None:
    """Numbers joined into text (`&`, CONCATENATE) or read as text (LEN, EXACT ...) in every
    formula written, as Excel writes them (calc/xlfuncs/concatenation.py). Done last, on what
    each cell finally holds (lifted, intersected): the analysis reads the formulas as written."""
    from rates_xl.calc.xlfuncs.concatenation import rewrite

    changed = {}
    for (title, row, col), formula in prepared.written.items():
        if (joined := rewrite(formula)) != formula:
            changed[(title, row, col)] = joined
            book[title].cell(row=row, column=col).value = joined
    if changed:
        prepared.written.update(changed)
        prepared.rates_cells = [(t, r, c, changed.get((t, r, c), f)) for t, r, c, f in prepared.rates_cells]


def set_constant(cell: Any, value: Any) -> None:
    """A formula cell of the engine's copy becomes the plain value the file cached for it."""
    if isinstance(value, str):
        from rates_xl.calc.package import escaped

        # Control characters (CHAR(1)'s answer) and literal `_x0001_` go through openpyxl's
        # writer as Excel stores them, escaped (it writes a cell's text as it is).
        value = escaped(value)
    cell.value = empty_text() if value == "" else value
    if isinstance(value, str) and cell.data_type == "f":
        cell.data_type = "s"  # cached text that starts with "=" is text, not a formula


def empty_text() -> Any:
    """A cell value openpyxl writes as empty text. It writes a plain "" as a bare
    `<c t="inlineStr"/>`, which formualizer reads as a blank cell (COUNTA skips it, ISBLANK is
    TRUE, `=A1` is 0); Excel's empty text (an empty shared string, a formula's "") is text."""
    from openpyxl.cell.rich_text import CellRichText

    return CellRichText([""])  # written <is><r><t/></r></is>: read back as ""


def cut_to_range(formula: str, rows: int, cols: int) -> str:
    """A legacy array formula's text for the engine, whose every array formula spills: its
    result cut to the first `rows` x `cols` of the stored range, so it never spills past the
    range (where Excel shows nothing of it, and a formula there must not read it). The cells
    of the range beyond a smaller result are filled in by `fit_legacy` (Excel's broadcasting).

    LET evaluates the formula once; TAKE would answer #VALUE! in this engine for counts past
    the result's own size (Excel clamps them), hence the MIN."""
    body = formula[1:] if formula.startswith("=") else formula
    return (f"=LET(_rates_xl_cse,({body}),TAKE(_rates_xl_cse,MIN(ROWS(_rates_xl_cse),{rows}),"
            f"MIN(COLUMNS(_rates_xl_cse),{cols})))")


def fit_legacy(result: list[list[Any]], rows: int, cols: int) -> list[list[Any]]:
    """A legacy array formula's `rows` x `cols` range filled from its result as Excel does: a
    1-row result repeats down every row, a 1-column one across every column (a single value
    fills the range), and cells beyond the result's other dimensions show #N/A."""
    height = len(result)
    width = max((len(line) for line in result), default=0)
    out = []
    for i in range(rows):
        line = []
        for j in range(cols):
            ri = 0 if height == 1 else i
            ci = 0 if width == 1 else j
            inside = ri < height and ci < len(result[ri])
            line.append(result[ri][ci] if inside else "#N/A")
        out.append(line)
    return out


def _placer(ws: Any, prepared: Prepared) -> Callable[[list[list[str]]], str | None]:
    """Where helper cells go on `ws`: blocks side by side, two columns right of its used range
    (those calling a RATES_* function are re-set in later rounds like any other)."""
    state = {"col": ws.max_column + 2}

    def place(cells: list[list[str]]) -> str | None:
        rows, cols = len(cells), len(cells[0]) if cells else 0
        c1 = state["col"]
        if not rows or c1 + cols > 16384 or rows > 1048576:
            return None
        for i, line in enumerate(cells):
            for j, text in enumerate(line):
                ws.cell(row=1 + i, column=c1 + j).value = text
                prepared.written[(ws.title, 1 + i, c1 + j)] = text
                if "RATES" in text.upper() and any(analysis.is_rates(name) for name in engine.function_names(text)):
                    prepared.rates_cells.append((ws.title, 1 + i, c1 + j, text))
        state["col"] = c1 + cols
        return Area(1, c1, rows, c1 + cols - 1).a1(absolute=True)

    return place


_WHOLE_ROWS = re.compile(r"(?<![\w.$:])\$?\d+:\$?\d+(?![\w.])")


def _has_whole_rows(book: Any) -> bool:
    from openpyxl.worksheet.formula import ArrayFormula

    for ws in book.worksheets:
        for row in sheet_rows(ws):
            for cell in row:
                value = cell.value
                text = value.text if isinstance(value, ArrayFormula) else value
                if isinstance(text, str) and text.startswith("=") and \
                        _WHOLE_ROWS.search(engine._STRING_LITERAL.sub('""', text)):
                    return True
    return False


def _resolve_definitions(book: Any) -> None:
    """Defined names whose text intersects ranges hold the resolved range in the engine's
    copy (calc/xlfuncs/references.py `resolve_definition`)."""
    from rates_xl.calc.xlfuncs.references import resolve_definition

    scopes = [book.defined_names, *(getattr(ws, "defined_names", {}) for ws in book.worksheets)]
    for names in scopes:
        for defined in names.values():
            text = defined.attr_text
            if isinstance(text, str) and " " in text:
                defined.attr_text = resolve_definition(text)


class _LastRows:
    """The last row each sheet may hold a value in once computed (read once, when a formula
    first needs it: `calc/columns.py`): the last row holding a value in the file, or further
    where an array formula or a RATES_* call may spill past what the file stored (a curve
    that grew; `=SEQUENCE(A1)` with A1 raised), so a bounded whole column still reads it."""

    def __init__(self, book: Any) -> None:
        self._book = book
        self._rows: dict[str, int] | None = None

    def of(self, own: str) -> Callable[[str | None], int]:
        def last_row(sheet: str | None) -> int:
            if self._rows is None:
                self._rows = {ws.title: _last_row(ws) for ws in self._book.worksheets}
            return self._rows.get(own if sheet is None else sheet, 0)
        return last_row


def _last_row(ws: Any) -> int:
    from openpyxl.worksheet.formula import ArrayFormula

    from rates_xl.calc.book import MAX_SPILL_ROWS

    last = 0
    for (r, _c), cell in ws._cells.items():
        value = cell.value
        if value is None:
            continue
        if isinstance(value, ArrayFormula) or (isinstance(value, str) and value.startswith("=")
                                               and "RATES" in value.upper()):
            last = max(last, r + MAX_SPILL_ROWS)  # may spill down this far (calc/book.py)
        last = max(last, r)
    return last


def _unknown(names: set[str]) -> str:
    listed = ", ".join(sorted(names))
    return f"calls {listed}, which the engine does not know"


def _save(book: Any) -> bytes:
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _engine_formula(formula: str, array: bool = False) -> str:
    from rates_xl.calc import xlfuncs

    if "RATES" in formula.upper():
        formula = engine.fill_omitted_arguments(formula)
    return xlfuncs.engine_formula(formula, array)


def _sized(range_size: Callable[[str, str], int | None], sheet: str) -> Callable[[str], int | None]:
    def size(text: str) -> int | None:
        return range_size(sheet, text)
    return size


def _not_computable(found: Any, unknown: frozenset[str] | set[str]) -> str | None:
    """Why the engine cannot compute a formula at all (unreadable, or calls a function it
    does not know), or None."""
    if found.error:
        return found.error
    if found.functions & unknown:
        return _unknown(found.functions & unknown)
    from rates_xl.calc import routing, xlfuncs

    return routing.not_computed(found.functions) or xlfuncs.not_computed(found.formula)
