"""What the `formulas` engine keeps at the value the file holds, each cell listed with why: a
formula calling a function it lacks (`foreign_calls`), one its parser cannot read
(`unreadable`), and what reads a value it cannot hold (`readers_of_unheld_values`). The
engine (engine.py) holds the first two as constants, so what reads them computes from Excel's
values; the last keep the file's value in the answer.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from rates_xl.calc.book import Book
from rates_xl.calc.formula.hazards import builds_reference
from rates_xl.calc.formula.tree import Formula
from rates_xl.calc.rich_values import and_others
from rates_xl.functions.sheet import (
    Area,
    Key,
    address,
    cell_address,
    is_rates_name,
    split_reference,
)
from rates_xl.functions.tokens import function_names
from rates_xl.functions.values import CLASSIC_ERRORS, CellValue


def foreign_calls(book: Book, unknown_functions: dict[str, list[str]], written: dict[str, str],
                  unsupported: dict[Key, str]) -> dict[Key, CellValue]:
    """A formula calling an Excel function this engine lacks (OFFSET, INDIRECT of a computed
    text, FORECAST.ETS, a LAMBDA kept in a name ...) keeps Excel's value and is listed, as
    the fast engine keeps one calling a function it lacks: this engine answered #NAME?
    where Excel computes, and what read it #NAME? too, or failed the whole book (INDIRECT
    under the LET the pass `near_zero` writes). Each cell of it is held at the file's value,
    so what reads it computes from Excel's; the call is no longer named as becoming #NAME?.
    An unknown RATES_* name stays #NAME?, as in Excel (ours is the add-in). The cells held:
    {key: the file's value}; the names are taken out of `unknown_functions`. `written`:
    the engine's copy of a cell's formula by its address, where it differs."""
    foreign = {name for name in unknown_functions if not is_rates_name(name)}
    if not foreign:
        return {}
    cached = book.cached()
    kept: dict[Key, CellValue] = {}
    for (sheet, anchor), (text, area) in book.cells.items():
        called = function_names(written.get(address(sheet, anchor), text)) & foreign
        if not called or (sheet, anchor) in book.data_tables:
            continue
        unsupported.setdefault((sheet, anchor), f"calls {', '.join(sorted(called))}, which the formulas engine "
                                                "does not know")
        kept.update(_file_values(sheet, area, cached))
    for name in foreign:
        unknown_functions.pop(name, None)
    return kept


def linked_reads(book: Book, written: dict[str, str], unsupported: dict[Key, str]) -> dict[Key, CellValue]:
    """A formula reading another workbook (`[1]Rates!B2`, or a defined name standing for such a
    reference) keeps Excel's value, listed: this engine does not read the values the file
    caches for a link, it opens the linked file from disk (relative to the working folder),
    and answered #REF! where the file was not there, the summary saying the link's cached values
    were used; where it was, its values as they are now. Each cell of it is held at the file's
    value, so the engine opens no other file and what reads it computes from Excel's value.
    (`[0]!`, the book itself, is no other workbook.) The cells held: {key: the file's value}."""
    from rates_xl.calc.formula import defined_names

    names = {name for name, text in defined_names.texts(book.book) if _reads_link(text)}
    cached = book.cached()
    kept: dict[Key, CellValue] = {}
    for (sheet, anchor), (text, area) in book.cells.items():
        given = written.get(address(sheet, anchor), text)
        if "[" not in given and not (names and any(name in given.upper() for name in names)):
            continue  # (the cheap test first: most formulas name neither)
        if (sheet, anchor) in book.data_tables or not _reads_link(given, names):
            continue
        unsupported.setdefault((sheet, anchor), "it reads another workbook, whose values the formulas engine would "
                                                "open the linked file for instead of the values this file caches")
        kept.update(_file_values(sheet, area, cached))
    return kept


def _reads_link(text: str, names: frozenset[str] | set[str] = frozenset()) -> bool:
    """Whether a formula's text (or a defined name's) reads another workbook, directly or
    through one of `names`."""
    for token in Formula(text if text.startswith("=") else f"={text}").tokens:
        if not token.is_range:
            continue
        prefix, ref = split_reference(token.text)
        if ("[" in prefix and not _OWN_BOOK.fullmatch(prefix)) or (not prefix and ref.upper() in names):
            return True
    return False


#: `[0]!`: the workbook itself (calc/formula/defined_names.py `own_book_names`).
_OWN_BOOK = re.compile(r"'?\[0\]'?!")


def unreadable(book: Book, written: dict[str, dict[str, str]], held: Collection[Key]) -> dict[Key, CellValue]:
    """The cells whose formula, as this engine is given it, its parser cannot read (each
    distinct text read once), every cell of each at the file's value. `written`: the engine's
    copy of a formula (sheet -> anchor -> text), where it differs."""
    import formulas
    from formulas.errors import FormulaError

    parser = formulas.Parser()
    readable: dict[str, bool] = {}
    cached = book.cached()
    found: dict[Key, CellValue] = {}
    for (sheet, anchor), (text, area) in book.cells.items():
        if (sheet, anchor) in held:
            continue
        given = written.get(sheet, {}).get(anchor, text)
        given = given if given.startswith("=") else f"={given}"
        if given not in readable:
            try:
                parser.ast(given)
                readable[given] = True
            except FormulaError:
                readable[given] = False
        if not readable[given]:
            found.update(_file_values(sheet, area, cached))
    return found


def _file_values(sheet: str, area: Area, cached: Mapping[Key, CellValue]) -> dict[Key, CellValue]:
    """Every cell of a formula's area at the value the file holds for it."""
    return {(sheet, cell_address(r, c)): cached.get((sheet, cell_address(r, c))) for r, c in area.cells()}


def readers_of_unheld_values(book: Book, unsupported: dict[Key, str]) -> None:
    """This engine reads the file itself, where a picture placed in a cell, a linked data
    type or an error past the classic seven (#CALC!, #FIELD!, #BUSY! ...) is stored as
    #VALUE! (calc/rich_values.py) or as an error it has no kind for: a formula reading one,
    directly, through other formulas or through a reference INDIRECT or OFFSET builds as it
    computes, keeps Excel's value and is listed, as the fast engine lists it
    (calc/engines/formualizer/engine.py `_list_readers_of_unheld_values`). A formula holding
    such a value computes its own."""
    unheld = {key: what for key, what in book.package.rich_value_cells().items() if key not in book.cells}
    for ws in book.book.worksheets:
        for cell in ws._cells.values():
            if cell.data_type == "e" and cell.value not in CLASSIC_ERRORS and (ws.title, cell.coordinate) not in book.cells:
                unheld[(ws.title, cell.coordinate)] = f"{cell.value}, an error"
    if not unheld:
        return
    from rates_xl.calc.dependencies import Graph

    graph = Graph(book)
    seeds = {reader for key in unheld for reader in graph.readers_of_value(key)}
    seeds |= {key for key, (text, _area) in book.cells.items() if builds_reference(text)}
    sheet, coordinate = min(unheld)  # (the first such cell of the book, named as an example)
    what = unheld[(sheet, coordinate)]
    why = (f"it may read {address(sheet, coordinate)}{and_others(len(unheld) - 1)}, directly, through other formulas or through a "
           f"reference built as it computes, which holds {what} the formulas engine cannot hold")
    for key in sorted(graph.downstream(seeds) if seeds else ()):
        if key in book.cells and key not in book.data_tables:
            unsupported.setdefault(key, why)
