"""A text longer than a cell holds (32,767 characters) is #VALUE! inside a formula too, not only
as a cell's final value: Microsoft's CONCAT page, "If the resulting string exceeds 32767
characters (cell limit), CONCAT returns the #VALUE! error", holds for every join. formualizer
computes `&` and CONCATENATE itself and knows no limit: `=LEN(REPT("x",20000)&REPT("y",20000))`
was 40000 (Excel: #VALUE!), and a cell holding such a join handed its whole text to the cells
reading it. The engine's operator cannot be replaced, so the pass `text_limit` wraps each join
in RATESXL.TEXTLIMIT (calc/xlfuncs/limits.py `text_limit`), which answers #VALUE! for a text
past the limit (each element of an array) and hands everything else back as it came.

A join is a side of a comparison (within one argument, at one level of parentheses) holding
`&` at its own level: `&` binds more loosely than arithmetic and more tightly than the
comparisons, so such a side is the join. A CONCATENATE call is one too. A join that cannot
pass the limit is left alone (no call per evaluation): one whose every operand is a text,
number or logical literal, or a number-answering call (ROW, LEN ...), their lengths summed
(`INDIRECT("A"&ROW(...))`, 3,798 cells of poi_StructuredRefs-lots-with-lookups.xlsx), or
a cell holding a constant that is no number (`BookFacts.joined_length`: formulas_test.xlsx
EXTRA's 3,106 `CONVERT(1,AO$1&$T11,"g")`).
"""

from __future__ import annotations

from rates_xl.calc.formula.site import Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.calc.xlfuncs.limits import TEXT_LIMIT_NAME as NAME
from rates_xl.functions.tokens import Token
from rates_xl.functions.values import TEXT_LIMIT

_COMPARISONS = frozenset({"=", "<>", "<", ">", "<=", ">="})
#: The most characters a number is written with in a join (Excel: 15 significant digits, a
#: sign, a point and an exponent, "-1.23456789012345E-307"; the engine's 17 digits fit too).
_NUMBER_TEXT = 30
#: Functions answering a number (or an error, or an array of them) whatever their arguments:
#: a join of one writes at most `_NUMBER_TEXT` characters of it; a SUMPRODUCT argument made by
#: one holds no logical value (calls.py `sumproduct_logicals`).
NUMBER_ANSWERS = frozenset("""
ROW COLUMN ROWS COLUMNS LEN LENB COUNT COUNTA COUNTBLANK COUNTIF COUNTIFS SUM SUMIF SUMIFS
MAX MIN AVERAGE ROUND ROUNDUP ROUNDDOWN INT ABS MOD MATCH XMATCH YEAR MONTH DAY HOUR MINUTE
SECOND WEEKDAY WEEKNUM DATE TODAY NOW RATESXL.NUMTEXT
TRUNC SIGN SQRT EXP LN LOG LOG10 POWER N VALUE SEQUENCE FLOOR CEILING MMULT PRODUCT SUMPRODUCT
""".split())


def may_join(text: str, upper: str) -> bool:
    """`&` or a CONCATENATE call: the cheap test (asked of every formula written)."""
    return "&" in text or "CONCATENATE(" in upper


def text_limit(formula: Formula, site: Site | None = None) -> str:
    """Each join that may pass a cell's 32,767 characters, and each CONCATENATE call, goes
    through RATESXL.TEXTLIMIT: `=LEN(A1&B1)` becomes `=LEN(RATESXL.TEXTLIMIT(A1&B1))`, #VALUE!
    when the two hold 20,000 characters each, as in Excel (the engine: 40000). Done on what
    each cell finally holds (after the fit), last. Proved by tests/calc/test_limits.py."""
    if formula.error:
        return formula.text
    tokens = formula.tokens
    closing: dict[int, int] = {}
    levels: list[list[int]] = [[]]  # each open level's items (a nested group: its opening token)
    wraps: list[tuple[int, int]] = []
    for index, token in enumerate(tokens):
        if token.opens:
            levels[-1].append(index)
            levels.append([])
        elif token.closes and len(levels) > 1:
            items = levels.pop()
            opened = levels[-1][-1]
            closing[opened] = index
            if token.kind != "Array":
                wraps += _joins(items, tokens, closing, site)
            if tokens[opened].is_call and tokens[opened].name == "CONCATENATE":
                wraps.append((opened, index))
        else:
            levels[-1].append(index)
    if len(levels) != 1:
        return formula.text  # unbalanced: left to the engine's own complaint
    wraps += _joins(levels[0], tokens, closing, site)
    if not wraps:
        return formula.text
    edits = formula.edits()
    for first, last in wraps:
        edits.before(first, f"{NAME}(")
        edits.after(last, ")")
    return edits.text()


def _joins(items: list[int], tokens: tuple[Token, ...], closing: dict[int, int],
           site: Site | None) -> list[tuple[int, int]]:
    """The token spans (first, last) of one level's joins that may pass the limit."""
    found: list[tuple[int, int]] = []
    side: list[int] = []
    operands: list[list[int]] = [[]]

    def judged() -> None:  # the side read so far: a join that may pass the limit is wrapped
        if len(operands) > 1 and _longest(operands, tokens, closing, site) > TEXT_LIMIT:
            found.append((side[0], closing.get(side[-1], side[-1])))

    for index in items:
        token = tokens[index]
        if token.kind == "Sep" or (token.kind == "OpInfix" and token.text in _COMPARISONS):
            judged()
            side, operands = [], [[]]
        elif token.kind != "Whitespace":
            side.append(index)
            if token.kind == "OpInfix" and token.text == "&":
                operands.append([])
            else:
                operands[-1].append(index)
    judged()
    return found


def _longest(operands: list[list[int]], tokens: tuple[Token, ...], closing: dict[int, int],
             site: Site | None) -> int:
    """The most characters the join of `operands` may have (past the limit: unknown)."""
    total = 0
    for operand in operands:
        total += _operand_length(operand, tokens, closing, site)
        if total > TEXT_LIMIT:
            break
    return total


def _operand_length(operand: list[int], tokens: tuple[Token, ...], closing: dict[int, int],
                    site: Site | None) -> int:
    if len(operand) != 1:
        return TEXT_LIMIT + 1  # an expression (a prefix sign, arithmetic ...): not judged
    token = tokens[operand[0]]
    if token.is_range and site is not None:
        known = site.book.joined_length(site.sheet, token.text)  # a cell holding a constant
        return TEXT_LIMIT + 1 if known is None else known
    if token.kind == "Operand" and token.sub == "Text":
        return len(token.text)
    if token.kind == "Operand" and token.sub in ("Number", "Logical", "Error"):
        return _NUMBER_TEXT
    if token.is_call and token.name in NUMBER_ANSWERS:
        if token.name != "RATESXL.NUMTEXT":
            return _NUMBER_TEXT
        # RATESXL.NUMTEXT(x) (the pass numbers_as_text) writes a number x as text: bounded
        # when x is one number-answering call, or a cell holding a constant (a number: a
        # constant that is no number is joined as it is).
        inner = operand[0] + 1
        end = closing.get(operand[0])
        if inner < len(tokens) and tokens[inner].is_call and tokens[inner].name in NUMBER_ANSWERS \
                and end is not None and closing.get(inner) == end - 1:
            return _NUMBER_TEXT
        if end == inner + 1 and tokens[inner].is_range and site is not None:
            reference = tokens[inner].text
            known = site.book.joined_length(site.sheet, reference)
            if known is not None:
                return known
            if site.book.constant_kind(site.sheet, reference) is not None:
                return _NUMBER_TEXT  # a cell holding a constant number
    return TEXT_LIMIT + 1
