"""Whether the engine's copy keeps the file's links to other workbooks.

A formula reading another workbook (`=[1]Rates!B2`, or a defined name standing for such a
reference) is computed from the values the link part caches, which formualizer reads as Excel
does until the links are updated. But formualizer 0.13 loading a file that holds a link (an
`xl/externalLinks/` part or workbook.xml's `<externalReferences>`: either is enough) answers
#REF! for every INDIRECT of a computed text (`INDIRECT("A"&1)`, `INDIRECT(B1)`; a literal
`INDIRECT("A1")` is right) in the formulas it read, and right in the same formulas set again
after loading (model.py `_indirect_again`, which cost poi_StructuredRefs-lots-with-lookups.xlsx
0.07 CPU s for its 3,798 running counts `INDIRECT("A"&ROW(...)-1)+1`). So the copy leaves its
links out (`left_out`) where no formula of it can read them (`needed`): its values are the
same, and INDIRECT is right at load (tests/calc/test_links_copy.py).

A formula can read a link by a reference to another workbook, by a name standing for one
(directly or through another name: `linked_names`), or by INDIRECT of a text naming such a
name (formualizer resolves `INDIRECT("year")` to the link's cached cells). The last is ruled
out only for an INDIRECT whose text starts with a literal no such name (bare or after a sheet
of the book) starts with: `INDIRECT("A"&ROW(B2)-1)` cannot name `year`. An INDIRECT of a text
naming another workbook's cells (`INDIRECT("[1]Rates!B2")`) is #REF! with or without the links
(as in Excel while that workbook is closed), so it needs none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.sheet import split_reference
from rates_xl.functions.tokens import INFIX, OPERAND, TEXT

if TYPE_CHECKING:
    from openpyxl import Workbook
    from openpyxl.workbook.defined_name import DefinedName


def needed(book: Workbook, formulas: Iterable[str]) -> bool:
    """Whether any of `formulas` (every formula the copy of `book` holds) can read the file's
    links to other workbooks (the module's docstring says how one can)."""
    names = linked_names(book)
    titles = [ws.title.upper() for ws in book.worksheets]
    mentions = _mentions(names)
    return any(_reads(text, names, titles, mentions) for text in formulas)


def linked_names(book: Workbook) -> set[str]:
    """The defined names (upper case, any scope) that can read another workbook's cells: by a
    reference to them, or to another such name, or by INDIRECT (`_reads`)."""
    texts: list[tuple[str, str]] = []
    for scope in _scopes(book):
        texts += [(str(key).upper(), "=" + d.attr_text) for key, d in scope.items() if isinstance(d.attr_text, str)]
    titles = [ws.title.upper() for ws in book.worksheets]
    found: set[str] = set()
    while True:
        mentions = _mentions(found)
        more = {name for name, text in texts if name not in found and _reads(text, found, titles, mentions)}
        if not more:
            return found
        found |= more


def _mentions(names: set[str]) -> re.Pattern[str] | None:
    """A search for `names` (upper case) in a formula's upper-case text, each where a name's
    token can stand: not inside a longer name or a call's name (formulas_test.xlsx's linked name
    `M` is in each SUM and MATCH). The tokenizer never starts a Range operand after a letter,
    a digit, "_", "." or "\\", nor ends one before them or "(" (those continue a name, a
    reference or a call's name: tests/calc/test_links_copy.py), so a formula this finds no name
    in has no Range operand naming one; one it finds a name in is read token by token."""
    if not names:
        return None
    words = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![\w.\\])(?:{words})(?![\w.\\(])")


def _reads(text: str, names: set[str], titles: list[str], mentions: re.Pattern[str] | None) -> bool:
    """Whether the formula `text` can read another workbook's cells, `names` being the names
    that can (`mentions`: `_mentions(names)`)."""
    upper = text.upper()
    indirect = bool(names) and "INDIRECT" in upper
    if "[" not in text and not indirect and (mentions is None or mentions.search(upper) is None):
        return False  # (the cheap test first: most formulas)
    formula = Formula(text)
    if any(_reads_link(token.text, names) for token in formula.tokens if token.is_range):
        return True
    return indirect and not all(_names_none(formula, call.arguments[0], names, titles)
                                for call in formula.calls("INDIRECT") if call.arguments)


def _scopes(book: Workbook) -> list[dict[str, DefinedName]]:
    """The workbook's names, then each sheet's."""
    return [book.defined_names, *(ws.defined_names for ws in book.worksheets)]


def _reads_link(reference: str, names: set[str]) -> bool:
    prefix, ref = split_reference(reference)
    return "[" in prefix or ref.upper() in names


def _names_none(formula: Formula, argument: tuple[int, int], names: set[str], titles: list[str]) -> bool:
    """INDIRECT's text (`argument`) starts with a literal that no linked name starts with,
    bare or after a sheet's name (so the text is none of them)."""
    tokens = formula.solid(argument)
    if not tokens or tokens[0].kind != OPERAND or tokens[0].sub != TEXT:
        return False
    if len(tokens) > 1 and not (tokens[1].kind == INFIX and tokens[1].text == "&"):
        return False  # (only a literal joined to with & is known to start the text)
    start = tokens[0].text[1:-1].replace('""', '"').lstrip().upper()
    if not start:
        return False
    written = [*names, *(f"{title}!{name}" for title in titles for name in names),
               *(f"'{title}'!{name}" for title in titles for name in names)]
    return not any(text.startswith(start) for text in written)


@contextmanager
def left_out(book: Workbook) -> Iterator[None]:
    """`book` without its links and the names standing for another workbook's cells (whose
    reference means nothing without them) while the block saves it; put back after."""
    state = vars(book)  # (openpyxl's `_external_links`, which its stubs do not declare)
    links = state["_external_links"]
    names = linked_names(book)
    scopes = [(scope, list(scope.items())) for scope in _scopes(book)]
    state["_external_links"] = []
    for scope, items in scopes:
        for key, _defined in items:
            if str(key).upper() in names:
                del scope[key]
    try:
        yield
    finally:
        state["_external_links"] = links
        for scope, items in scopes:  # (in their order)
            scope.clear()
            scope.update(items)
