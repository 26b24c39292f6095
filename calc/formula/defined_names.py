"""Defined names the engine does not read, written into each formula using them: a name with
relative references (`RowT` = `S!$T1`), a formula answering a reference (the dynamic range
`Data` = `OFFSET(S!$T$1,0,0,COUNTA(S!$T:$T),1)`, `INDEX(S!$T:$T,1):INDEX(S!$T:$T,3)`), any other
formula, an array constant (`{1,2,3}`), a 3-D reference (`Jan:Mar!$A$1`).

formualizer drops such names on loading ("Unevaluable or cyclic defined name omitted from
calculation"): every cell using one was #NAME?, silently where Excel has a value, and worse
beside a reference operator (`SUM(S!$T$1:Dyn)` summed nothing). Excel evaluates a defined
name's formula in the cell using it, as if written there, so the name's text in its place (in
parentheses) is what Excel computes. A name standing for one range, or for a constant, is the
engine's own, and so is a LAMBDA (calc/formula/lambdas.py), another workbook's name or one over
a table (the NAMES passes), and a union of ranges (calc/formula/unions.py reads it).

A name's relative reference is relative to the cell using it (Microsoft's Names.Add: with A10
selected, a name given "=sheet1!A1:B1" refers to A10:B10); the file holds it as if written in
A1, and LibreOffice reads it so (`RowT` = `S!$T1` in Y2 is $T2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rates_xl.calc.formula.shapes import Corner, Shape, shape, text_at
from rates_xl.calc.formula.site import NotComputed, Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.sheet import read_area, split_reference, unquote_sheet
from rates_xl.functions.tokens import ARG, SEP

if TYPE_CHECKING:
    from openpyxl import Workbook

#: How deep names inside names are written out (a name's text naming another).
_DEPTH = 6


@dataclass(frozen=True)
class Written:
    """A defined name as it is written into a formula: its text, one reference or not, and,
    with relative references, its shape as written in A1 (moved to each cell using it)."""

    text: str
    single: bool
    relative: Shape | None = None


@dataclass
class Names:
    """The book's names to write out: (a local name's sheet, "" for the book's; the name in
    upper case) -> how, and one search for any of them in a formula's text."""

    found: dict[tuple[str, str], Written] = field(default_factory=dict)
    search: re.Pattern[str] | None = None
    local: frozenset[tuple[str, str]] = frozenset()  # every sheet's own names (a book's name of theirs is hidden)
    #: The names standing for one range, whole columns and rows too, left to the engine: their text.
    ranges: dict[tuple[str, str], str] = field(default_factory=dict)
    book: frozenset[str] = frozenset()  # every name of the book's own scope (upper case)

    def scoped(self, sheet: str, name: str, qualified: bool = False) -> tuple[str, str]:
        """The key `name` stands under in a formula on `sheet`: the sheet's own name where it
        has one (or the name is written with a sheet, `S!Name`), else the book's."""
        key = (sheet, name.upper())
        return key if qualified or key in self.local else ("", key[1])

    def range_text(self, sheet: str, name: str) -> str | None:
        """The text of the name `name` standing for one range, as a formula on `sheet` sees it."""
        return self.ranges.get(self.scoped(sheet, name))


def of_book(book: Workbook, lambdas: dict[str, str]) -> Names:
    """The defined names of openpyxl's `book` (their text after the NAMES passes) that the
    engine does not read; `lambdas`: the LAMBDA names (left to calc/formula/lambdas.py)."""
    found: dict[tuple[str, str], Written] = {}
    ranges: dict[tuple[str, str], str] = {}
    local, own = set(), set()
    for sheet, name, text in _defined(book):
        if sheet:
            local.add((sheet, name))
        else:
            own.add(name)
        if not text or "[" in text or name in lambdas or name.startswith("_XLNM."):
            continue  # (another workbook's, a table's, a LAMBDA, Excel's own: left as they are)
        written = _written(text)
        if written is not None:
            found[(sheet, name)] = written
        elif read_area(split_reference(text)[1]) is not None:
            ranges[(sheet, name)] = text
    search = None
    if found:
        words = sorted({re.escape(name) for _sheet, name in found}, key=len, reverse=True)
        search = re.compile(rf"(?<![\w.\\])(?:{'|'.join(words)})(?![\w(.])", re.IGNORECASE)
    return Names(found, search, frozenset(local), ranges, frozenset(own))


def texts(book: Workbook) -> list[tuple[str, str]]:
    """Every defined name of the book and of its sheets with a text: (its name in upper case,
    its text), a LAMBDA's too."""
    return [(name, text) for _sheet, name, text in _defined(book) if text]


def _defined(book: Workbook) -> list[tuple[str, str, str]]:
    """Every defined name of the book ("" for its sheet) and of its sheets (the sheet's title):
    (sheet, its name in upper case, its text stripped, "" for none)."""
    scopes = [("", book.defined_names)] + [(ws.title, getattr(ws, "defined_names", {})) for ws in book.worksheets]
    return [(sheet, str(name).upper(), defined.attr_text.strip() if isinstance(defined.attr_text, str) else "")
            for sheet, names in scopes for name, defined in names.items()]


#: `[0]!`: the external reference to the workbook itself (link index 0), as a name of the book is
#: written through the book's own file name (`=Book1.xlsx!Rate`).
_OWN_BOOK = re.compile(r"'?\[0\]'?!")


def own_book_names(formula: Formula, site: Site) -> str:
    """`[0]!Rate`, the book's own name `Rate` through its own file: `Rate`, where the formula's
    sheet has no name `Rate` of its own (that would stand first for a bare `Rate`: such a
    reference is left to `other_workbooks`, which lists it). It was listed as reading another
    workbook, not computed; formualizer reads `[0]!Rate` as the book's `Rate` too, but the
    passes that write a name's text into a formula (`defined_names`) read a bare name only
    (tests/calc/test_defined_names.py)."""
    names = site.book.defined_names
    edits = formula.edits()
    for index, token in enumerate(formula.tokens):
        if not (token.is_range and "[" in token.text):
            continue
        prefix, name = split_reference(token.text)
        if (_OWN_BOOK.fullmatch(prefix) and read_area(name) is None and name.upper() in names.book
                and (site.sheet, name.upper()) not in names.local):
            edits.replace(index, index + 1, name)
    return edits.text()


def calling_unknown(formula: Formula, site: Site) -> str:
    """A cell reading a defined name whose formula calls a function the engine does not know,
    listed as a cell calling it is (calc/engines/formualizer/engine.py `unknown_functions`): an
    Excel 4 macro function kept in a name (`SheetNames` = `GET.WORKBOOK(1)`, `GET.CELL(63,A1)`,
    which Excel computes in a name alone) was #NAME? in the engine, silently
    (tests/calc/test_defined_names.py)."""
    unknown = site.book.unknown_names
    for token in formula.tokens:
        if token.is_range and (called := unknown.get(split_reference(token.text)[1].upper())) is not None:
            raise NotComputed(f"it reads the name {token.text}, which calls {called}, which the engine does not know")
    return formula.text


def may_call_unknown(formula: Formula, site: Site) -> bool:
    return any(name in formula.upper for name in site.book.unknown_names)


def _written(text: str) -> Written | None:
    """How a name's text is written into a formula; None: the engine reads the name itself."""
    read = Formula("=" + text)
    tokens = read.tokens
    if read.error is not None or not tokens:
        return None
    single = len(tokens) == 1 and tokens[0].is_range
    if is_relative(text):
        return Written(text, single, shape("=" + text, 1, 1))
    if single and ":" in split_reference(tokens[0].text)[0]:
        return Written(text, single)  # a 3-D reference (`Jan:Mar!$A$1`): the pass `three_d` reads it in place
    if single and read_area(split_reference(tokens[0].text)[1]) is not None:
        return None  # one range: the engine's own
    if len(tokens) == 1 and tokens[0].kind == "Operand" and not tokens[0].is_range:
        return None  # a number, a text, a logical, an error
    if any(token.kind == SEP and token.sub == ARG and read.owner(index) is None for index, token in enumerate(tokens)):
        return None  # a union of ranges (`S!$A$1:$A$2,S!$A$3`): calc/formula/unions.py
    return Written(text, single)


def is_reference(text: object) -> bool:
    """Whether INDIRECT may read a defined name of this text, the engine reading it as a
    reference: one range (a table's too) or a union of ranges. Microsoft's INDIRECT page:
    ref_text may be "a name defined as a reference"; a name of a constant (`0.05`), an array
    constant or a formula (the dynamic range `OFFSET(S!$T$1,0,0,COUNTA(S!$T:$T),1)`) is not one,
    nor one the engine drops (relative, 3-D: written into the formulas using them instead)."""
    if not isinstance(text, str) or not text.strip():
        return False
    text = text.strip()
    if "[" in text:
        return True  # (a table's column, another workbook's: the engine's own, as before)
    tokens = Formula("=" + text).tokens
    if not tokens or (len(tokens) == 1 and not tokens[0].is_range):
        return False  # unreadable, or a number, a text, a logical, an error
    return _written(text) is None


def is_relative(text: str) -> bool:
    """Whether a defined name's text holds a relative reference (`S!$T1`): read from the cell
    using it."""
    moving = shape("=" + text, 1, 1)
    return moving is not None and any(isinstance(corner, tuple) and not _absolute(corner) for corner in moving)


def _absolute(corner: Corner) -> bool:
    absolute_c, c, absolute_r, r = corner
    return (c is None or absolute_c) and (r is None or absolute_r)


def may_use(formula: Formula, site: Site) -> bool:
    search = site.book.defined_names.search
    return search is not None and search.search(formula.text) is not None


def defined_names(formula: Formula, site: Site) -> str:
    """A defined name the engine drops on loading is its text in the formula using it, in
    parentheses unless it is one reference, as Excel evaluates a name's formula in the cell
    using it: the dynamic range `Data` = `OFFSET(S!$T$1,0,0,COUNTA(S!$T:$T),1)` in `=SUM(Data)`
    is `=SUM((OFFSET(...)))`, and `=ROWS(Data)` counts its rows (it was #NAME?, and ROWS 1);
    `Arr` = `{1,2,3}` in `=INDEX(Arr,2)` is 2 (it was #REF!). A name with relative references
    (`RowT` = `S!$T1`, `RowTotal` = `SUM(S!$B1:$M1)`) is its text moved from A1 to the formula's
    cell (`=RowT+1` in Y2 is `S!$T2+1`, LibreOffice's 41 too); one whose reference would come
    round the sheet's edge (`Left` = `S!XFD1`, the cell to the left as a name made in B1 holds
    it) is listed: Excel's reading of it is not shown here (LibreOffice answers 0). A local
    name of the formula's sheet comes before the book's; names inside names are written out
    too (tests/calc/test_defined_names.py)."""
    for _ in range(_DEPTH):
        done = _once(formula, site)
        if done == formula.text:
            return done
        formula = Formula(done)
    raise NotComputed("a defined name standing for itself, through other names")


def _once(formula: Formula, site: Site) -> str:
    names = site.book.defined_names.found
    edits = formula.edits()
    for index, token in enumerate(formula.tokens):
        if not token.is_range:
            continue
        prefix, name = split_reference(token.text)
        if "[" in prefix or read_area(name) is not None:
            continue
        sheet = unquote_sheet(prefix[:-1]) if prefix else site.sheet
        found = names.get(site.book.defined_names.scoped(sheet, name, bool(prefix)))
        if found is None:
            continue
        text = found.text
        if found.relative is not None:
            moved = text_at(found.relative, site.row, site.col)
            if moved is None:
                raise NotComputed(f"the defined name {name}, whose relative reference would come round the "
                                  "sheet's edge from this cell (Excel's reading of that is not known here)")
            text = moved[1:]
        edits.replace(index, index + 1, text if found.single else f"({text})")
    return edits.text()
