"""The `formulas` engine's copy of a book's formulas: each one-cell formula rewritten where this
engine would otherwise read it differently from Excel (`rewritten`), through the passes the
fast engine uses (calc/formula/passes.py, one at a time) and a few of this engine's own.
"""

from __future__ import annotations

from collections.abc import Callable

from rates_xl.calc.book import Book
from rates_xl.calc.engines.formualizer.reach import LastRows
from rates_xl.calc.formula import hidden_rows, positions, powers
from rates_xl.calc.formula.fit import intersect
from rates_xl.calc.formula.hazards import analyse, rates_tables
from rates_xl.calc.formula.passes import one
from rates_xl.calc.formula.ranges import used_rows_only
from rates_xl.calc.formula.site import BookFacts, FormulaCells, Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.sheet import Key, parse_cell, read_area, split_reference


def rewritten(book: Book, unsupported: dict[Key, str]) -> dict[str, dict[str, str]]:
    """The engine's copy of each one-cell formula as the fast engine's reads it, where this
    engine would otherwise differ from Excel (calc/formula's passes, one at a time; the
    last two in ordinary cells only):

    - a range with its corners the other way round (`A3:A1`) is the range between them (the
      pass `reversed_ranges`): this engine answered #VALUE!, formualizer failed the book;
    - the range operator over defined names is the range between them (the pass
      `named_range_operands`): this engine read `SUM(A1:Block)` as A1:A4's, silently;
    - INDIRECT of a literal A1 reference is that reference (the pass `literal_indirect`),
      and a formula that is one reference of several cells is the cell implicit
      intersection picks (the pass `at_sign`): `=H47:H48` in row 48 is H48 in Excel, this
      engine answered #VALUE! for every such cell;
    - SWITCH with a case that is not a constant reads its cases in order, an error met
      before the match the answer, as Excel's; #NAME? where a match comes before an
      error case (the pass `switch_errors`: Excel's answer there is not known);
    - Excel's 0 after the formula's last + or - (the pass `near_zero`, calc/formula/terms.py):
      `formulas` computes + and - in numpy, where no hook tells the last operation from an
      inner one (`=1*(0.5-0.4-0.1)` keeps its -2.78E-17); rewritten where Excel may have
      answered 0 (`may_be_zero`);
    - each operand of a comparison rounded to 15 significant digits, as Excel compares (the
      pass `excel_comparisons`, calc/formula/comparisons.py): `=0.1+0.2=0.3` TRUE;
    - a signed base of `^` in parentheses (calc/formula/powers.py `signed_bases`): this
      engine read `=1--A1^2` as `1-(-(A1^2))`, 5 where Excel's is -3.

    Sheet -> anchor -> text, made once (every hold and release loads the book again); what
    cannot be written out goes into `unsupported`, with why."""
    from openpyxl.worksheet.formula import ArrayFormula

    written: dict[str, dict[str, str]] = {}
    tables = rates_tables()
    facts = BookFacts(may_be_zero=_cached_zero(book),
                      formula_cells=FormulaCells(book.cells, frozenset(), book.sheet_titles),
                      name_range=book.name_range, range_size=book.range_size,
                      hidden_rows=hidden_rows.of_book(book.book), last_row=LastRows(book.book).of,
                      sheets=tuple(book.book.sheetnames))
    for (sheet, anchor), (text, area) in book.cells.items():
        if area.top != area.bottom or area.left != area.right or (sheet, anchor) in book.data_tables:
            continue  # an array's elements are left alone, as the fast engine does
        row, col = parse_cell(anchor)
        array = isinstance(book.book[sheet][anchor].value, ArrayFormula)  # one cell's {=...}
        site = Site(sheet, row, col, array=array, book=facts)
        formula = text if text.startswith("=") else f"={text}"
        changed = used_rows_only(Formula(formula), site) if ":" in formula else formula
        if "ROW" in changed.upper() or "COLUMN" in changed.upper():  # (no self-dependency: positions.py)
            changed = one("reference_sizes", positions.row_column(Formula(changed), site), site)
        changed = one("named_range_operands", changed, site)  # (`formulas` read `A1:Block` as A1:A4)
        changed = one("switch_errors", one("literal_indirect", changed, site), site)
        changed = one("reversed_ranges", changed, site)  # (`A3:A1`: `formulas` answered #VALUE!)
        if not array:
            changed = _intersected(changed, site)
            changed, why = _ranges_intersected(changed, site, tables)
            if why is not None:
                unsupported[(sheet, anchor)] = why
            if "RATES" in changed.upper():
                changed = _top_left_of_table(changed, tables)
            if "+" in changed or "-" in changed:
                changed = one("near_zero", changed, site)
        if "^" in changed:
            changed = powers.signed_bases(changed)
        changed = one("excel_comparisons", changed, site)
        if changed != formula:
            written.setdefault(sheet, {})[anchor] = changed
    return written


def _top_left_of_table(text: str, tables: frozenset[str]) -> str:
    """A RATES_* table as an ordinary cell's value (`=RATES_SWAPCURVE("SOFR")` written by a
    script, or a book from before dynamic arrays): Excel opens it as `=@RATES_SWAPCURVE(...)`
    and shows the table's top-left value, nothing spilled; this engine fitted the table to the
    one cell and answered #SPILL! (tests/calc/test_spill_errors.py)."""
    found = analyse(Formula(text), lambda _reference: None, tables)
    if not (found.answers_computed_array and found.top_arrays & tables):
        return text
    return f"=INDEX(({text[1:]}),1,1)"


def _intersected(text: str, site: Site) -> str:
    """A formula that is one A1 reference of several cells (`=H47:H48`): Excel's implicit
    intersection of it in an ordinary cell (the pass `at_sign`), the cell or #VALUE!."""
    read = Formula(text)
    if read.error or len(read.tokens) != 1 or not read.tokens[0].is_range:
        return text
    prefix, ref = split_reference(read.tokens[0].text)
    area = read_area(ref, whole_lines=False)
    if area is None or area.is_cell or "[" in prefix:
        return text
    return one("at_sign", f"=_xlfn.SINGLE({read.tokens[0].text})", site)


def _ranges_intersected(text: str, site: Site, tables: frozenset[str]) -> tuple[str, str | None]:
    """A range given where one value is wanted, in an ordinary cell: Excel's implicit
    intersection written out (calc/formula/fit.py `intersect`, the fast engine's), whole
    columns and rows too. `formulas` took the range's first cell: `=FLOOR($AM$1:$AM$40,1)` in
    row 36 answered 1 where Excel's is 36, silently. What cannot be written out is listed
    (the reason), never computed on that reading; an argument computed as an array over the
    range (`SUM(LEN(A1:A8))`) is left to `formulas`, which computes it so."""
    found = analyse(Formula(text), lambda reference: site.book.range_size(site.sheet, reference), tables,
                    whole_lines=True)
    if not found.needs_rewrite or found.helpers:
        return text, None
    rewritten = intersect(found, site)
    if rewritten is None:
        return text, "; ".join(found.hazards)
    return rewritten, None


def _cached_zero(book: Book) -> Callable[[str, str], bool]:
    """Whether Excel may have answered 0 at a cell (BookFacts.may_be_zero): the file cached 0
    or nothing there, or its values are not Excel's answers to its inputs."""
    if book.values_out_of_date:
        return lambda _sheet, _cell: True
    cached = book.cached()

    def may_be_zero(sheet: str, coordinate: str) -> bool:
        value = cached.get((sheet, coordinate))
        return value is None or (isinstance(value, int | float) and not isinstance(value, bool) and value == 0)
    return may_be_zero
