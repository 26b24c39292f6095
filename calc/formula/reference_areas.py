"""The areas a reference expression covers, read from its tokens as Excel's reference
operators combine them: the range operator (`A1:B2:D4`, the smallest range holding its parts),
the intersection (a space: `A1:C3 B2:D4`, `T:T 3:3`, two names), the union (`(A1,B2:C3)`).
calc/formula/operators.py writes what they cover into a formula; an expression this cannot read
(a call among the operands, another book) is None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rates_xl.errors import Internal
from rates_xl.functions.sheet import Area, read_area, split_reference, unquote_sheet
from rates_xl.functions.tokens import FUNC, INFIX, PAREN, Token

if TYPE_CHECKING:
    from rates_xl.calc.formula.site import Site


def operand_reader(site: Site | None, sheets: set[str]) -> Callable[[Token], Area | None]:
    """An operand of the reference operators as Excel reads it: a range, whole columns and rows
    too (`T:T 3:3` is T3: the engine answered #VALUE!, or 0 with `$`; poi's Excel-made
    Intersection-52111-xssf.xlsx, `=Tabelle2!E:E Tabelle2!11:11`, is 5), and a defined name
    standing for one such range (`ColT Hdr`, Excel's "natural language" intersection of a
    column's name and a row's). The sheet of each is added to `sheets`."""
    own = site.sheet if site is not None else ""

    def read(token: Token) -> Area | None:
        text = token.text
        if site is None and not corners(token):
            return None  # (no site: plain cells of the formula's sheet only, as before)
        prefix, ref = split_reference(text)
        if "[" in prefix:
            return None
        area = read_area(ref)
        if area is None and site is not None and not prefix:
            named = site.book.defined_names.range_text(site.sheet, text)
            if named is None:
                return None
            prefix, ref = split_reference(named)
            area = read_area(ref)
        if area is not None:
            sheets.add(unquote_sheet(prefix[:-1]) if prefix else own)
        return area
    return read


def joins(token: Token, before: Token, after: Token) -> bool:
    """Excel's intersection (a space) or range operator (a colon) between references."""
    return (token.kind == INFIX and token.text in (" ", ":")) or (token.is_space and _intersects(before, after))


def _intersects(before: Token, after: Token) -> bool:
    """Whether white space between these tokens is Excel's intersection: between two
    references (the tokenizer reads the space in `T:T 3:3` or between two names, `ColT Hdr`,
    as white space; Excel has no other meaning for it there)."""
    return _between_references(before, after, (PAREN,))


def is_intersection(before: Token, token: Token, after: Token) -> bool:
    """Excel's intersection operator, between any two references (calls and parentheses too)."""
    if not (token.kind == INFIX and token.text == " ") and not token.is_space:
        return False
    return _between_references(before, after, (PAREN, FUNC))


def _between_references(before: Token, after: Token, groups: tuple[str, ...]) -> bool:
    """Whether two tokens end and begin a reference: a range, or one of these groups."""
    return (before.is_range or (before.closes and before.kind in groups)) and \
        (after.is_range or (after.opens and after.kind in groups))


def is_cell(text: str) -> bool:
    area = read_area(text, whole_lines=False)
    return area is not None and area.is_cell


def plain(text: str) -> Area | None:
    """A plain range of this sheet (`B2:C3`, `B2`), None for anything else."""
    if "!" in text:
        return None
    return read_area(text, whole_lines=False)


class _Unreadable(Internal):
    pass


class _Parser:
    """union := inter (',' inter)*; inter := span (' ' span)*; span := prim (':' prim)*;
    prim := RANGE | '(' union ')'. Values are lists of areas (an empty list: #NULL!)."""

    def __init__(self, tokens: list[Token], read: Callable[[Token], Area | None]) -> None:
        self.tokens, self.read = tokens, read
        self.i = 0

    def _peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _operator(self, text: str) -> bool:
        t = self._peek()
        return t is not None and t.kind == INFIX and t.text == text

    def union(self) -> list[Area]:
        areas = self.inter()
        while self._operator(","):
            self.i += 1
            areas = areas + self.inter()
        return areas

    def inter(self) -> list[Area]:
        areas = self.span()
        while self._operator(" "):
            self.i += 1
            other = self.span()
            areas = [x for a in areas for b in other if (x := a.intersection(b)) is not None]
        return areas

    def span(self) -> list[Area]:
        first = self._peek()
        areas = self.prim()
        while self._operator(":"):
            self.i += 1
            before = self._peek()
            other = self.prim()
            if len(areas) != 1 or len(other) != 1 or not corners(first) or not corners(before):
                raise _Unreadable
            areas = [areas[0].span(other[0])]
        return areas

    def prim(self) -> list[Area]:
        t = self._peek()
        if t is None:
            raise _Unreadable
        if t.is_range:
            area = self.read(t)
            if area is None:
                raise _Unreadable
            self.i += 1
            return [area]
        if t.kind == PAREN and t.opens:
            self.i += 1
            areas = self.union()
            close = self._peek()
            if close is None or close.kind != PAREN or not close.closes:
                raise _Unreadable
            self.i += 1
            return areas
        raise _Unreadable


def corners(token: Token | None) -> bool:
    """A range operand written as cells (not whole columns or rows)."""
    return token is not None and token.is_range and all(is_cell(p) for p in token.text.split(":"))


def evaluate(tokens: tuple[Token, ...], indexes: list[int],
              read: Callable[[Token], Area | None] | None = None) -> list[Area] | None:
    """The areas a reference expression covers (`read`: a range token's area, None when it
    cannot be read: by default a plain range of the formula's sheet)."""
    picked = [tokens[k] for k in trimmed(tokens, indexes)]
    for k, t in enumerate(picked):
        if t.is_space:
            if not (_intersects(picked[k - 1], picked[k + 1])):
                return None
            picked[k] = t._replace(kind=INFIX, text=" ")
    parser = _Parser(picked, read or (lambda t: plain(t.text) if corners(t) else None))
    try:
        areas = parser.union()
    except _Unreadable:
        return None
    return areas if parser.i == len(picked) else None


def trimmed(tokens: tuple[Token, ...], indexes: list[int]) -> list[int]:
    start, end = 0, len(indexes)
    while start < end and tokens[indexes[start]].is_space:
        start += 1
    while end > start and tokens[indexes[end - 1]].is_space:
        end -= 1
    return indexes[start:end]
