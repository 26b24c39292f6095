"""Excel's comparison operators read their operands rounded to 15 significant digits
(calc/xlfuncs/logical/comparison.py): the pass `excel_comparisons` writes an operand that may
hold binary noise through RATESXL.CMPROUND, and leaves the comparisons rounding cannot change.

An operand is what lies between two comparison operators (or an argument's edge) at one level
of parentheses: they bind more loosely than every other operator. A comparison is left alone
when one side is a text, boolean or error literal (or a cell holding such a constant: the
fast engine's preparation knows them, `BookFacts.constant_kind`), a join (`&`), a call answering text or a
boolean, or the number 0: a number's rounding cannot change its order against those (Excel
orders numbers before text before booleans; rounding keeps a number's sign and never makes it
0). Of the others, each side is wrapped unless it is a number written with at most 15
significant digits (already what rounding gives). So `=IF(A1>0,...)` and `=A1="x"` cost
nothing; `=A1=0.3` costs one call of the function per evaluation.

A side that is one reference to several cells (a column, a name standing for one) in an
ordinary cell, outside any function but IF, IFERROR, IFNA and NOT, is read by Excel through
implicit intersection: the cell in the formula's row (or column) is what goes through the
function (`=IF(Sched_Pmt<Beginning_Bal,...)` over 520-row names: one value, not 520, at each
call); one with no such cell is left as it was, unrounded. Elsewhere (SUMPRODUCT, an array
formula) the range goes through whole, element by element.
"""

from __future__ import annotations

import re

from rates_xl.calc.formula.implicit import _named, _picked
from rates_xl.calc.formula.site import Site
from rates_xl.calc.formula.tree import Edits, Formula
from rates_xl.calc.xlfuncs.logical.comparison import NAME, SNAP, rounded
from rates_xl.functions.sheet import read_area, split_reference
from rates_xl.functions.tokens import (
    ERROR,
    INFIX,
    LOGICAL,
    NUMBER,
    OPERAND,
    PAREN,
    SEP,
    TEXT,
    WHITESPACE,
    Token,
)

_COMPARISONS = frozenset({"=", "<>", "<", ">", "<=", ">="})
#: Calls answering text or a boolean, never a number: a comparison with one is left alone.
_NOT_NUMBERS = frozenset("""
TEXT LEFT RIGHT MID LEFTB RIGHTB MIDB UPPER LOWER PROPER TRIM CLEAN SUBSTITUTE REPLACE REPT
CHAR UNICHAR FIXED DOLLAR CONCAT CONCATENATE TEXTJOIN T ADDRESS TEXTBEFORE TEXTAFTER
AND OR XOR NOT TRUE FALSE ISBLANK ISERR ISERROR ISNA ISNUMBER ISTEXT ISNONTEXT ISLOGICAL ISREF
ISFORMULA ISEVEN ISODD EXACT
""".split())
#: Functions through which a comparison in an ordinary cell still reads one cell of a range.
_SCALAR_CONTEXT = frozenset({"IF", "IFERROR", "IFNA", "NOT"})
#: A side that needs no rounding, of what `_side` says.
_EXACT, _INERT, _ZERO, _NOISY = "exact", "inert", "zero", "noisy"


#: A text literal (made `""` before the test below), and a comparison with one whole operand a
#: text, boolean or 0 literal (which the pass leaves as it is).
_TEXTS = re.compile(r'"(?:[^"]|"")*"')
_LEFT_ALONE = re.compile(r'(?:<>|<=|>=|[<>=])\s*(?:""|TRUE|FALSE|0)\s*(?=[,)]|$)'
                         r'|(?<=[(,])\s*(?:""|TRUE|FALSE|0)\s*(?:<>|<=|>=|[<>=])', re.IGNORECASE)


def may_compare(formula: Formula, _site: object = None) -> bool:
    """A comparison the pass may rewrite: `<`, `>` or an `=` past the leading one, once the
    comparisons with a text literal, TRUE, FALSE or 0 (`Pmt_Nbr=""`, `A1>0`) are set aside (the
    cheap test, a few microseconds: most models compare with those only)."""
    text = formula.text
    if not ("<" in text or ">" in text or "=" in text[1:]):
        return False
    rest = _LEFT_ALONE.sub("", _TEXTS.sub('""', text[1:]) if '"' in text else text[1:])
    return "<" in rest or ">" in rest or "=" in rest


def excel_comparisons(formula: Formula, site: Site | None = None) -> str:
    """Each operand of a comparison whose rounding may change its answer goes through
    RATESXL.CMPROUND (15 significant digits, as Excel compares): `=0.1+0.2=0.3` becomes
    `=RATESXL.CMPROUND(0.1+0.2)=0.3`, TRUE as in Excel (the engine: FALSE), `=A1<>B1`
    `=RATESXL.CMPROUND(A1)<>RATESXL.CMPROUND(B1)`; an array (`(A1:A10=0.3)` in SUMPRODUCT)
    element by element. Done on what each cell finally holds (after the fit). Proved against
    LibreOffice by tests/calc/test_comparisons.py on both engines."""
    if formula.error:
        return formula.text
    tokens = formula.tokens
    # One walk over the tokens (no groups built: this is asked of most formulas): a frame per
    # open call or parenthesis holds its current argument's sides; an argument is judged when
    # it ends, its nested groups closed by then.
    closing: dict[int, int] = {}
    frames: list[_Frame] = [_Frame(-1, True)]
    edits = formula.edits()
    judge = _Judge(tokens, closing, edits, site)
    for index, token in enumerate(tokens):
        kind = token.kind
        if token.opens:
            frames[-1].sides[-1].append(index)
            scalar = frames[-1].scalar and (kind == PAREN or (token.is_call and token.name in _SCALAR_CONTEXT))
            frames.append(_Frame(index, scalar))
        elif token.closes and len(frames) > 1:
            frame = frames.pop()
            closing[frame.open] = index
            judge(frame)
        elif kind == SEP or (kind == INFIX and token.text == ","):
            judge(frames[-1])
            frames[-1].sides = [[]]
        elif kind == INFIX and token.text in _COMPARISONS:
            frames[-1].sides.append([])
            frames[-1].compared = True
        elif kind != WHITESPACE:
            frames[-1].sides[-1].append(index)
    if len(frames) != 1:
        return formula.text  # unbalanced: left to the engine's own complaint
    judge(frames[0])
    return edits.text()


class _Frame:
    """One level of the formula being walked: the sides of its current argument (each the
    indexes of its tokens, a nested group standing as its opening token)."""

    __slots__ = ("open", "scalar", "sides", "compared")

    def __init__(self, opened: int, scalar: bool) -> None:
        self.open = opened
        self.scalar = scalar  # read as one value in an ordinary cell (`_SCALAR_CONTEXT`)
        self.sides: list[list[int]] = [[]]
        self.compared = False


class _Judge:
    """Wraps the sides of one argument's comparisons that rounding may change."""

    def __init__(self, tokens: tuple[Token, ...], closing: dict[int, int], edits: Edits, site: Site | None) -> None:
        self.tokens, self.closing, self.edits, self.site = tokens, closing, edits, site
        self.formula_text = edits.formula.text
        self.intersected = site is not None and not site.array

    def __call__(self, frame: _Frame) -> None:
        sides = frame.sides
        if not frame.compared or len(sides) < 2 or any(not side for side in sides):
            return
        tokens, closing, edits, site = self.tokens, self.closing, self.edits, self.site
        kinds = [_side(tokens, side, closing, site) for side in sides]
        wrap: set[int] = set()
        for left in range(len(sides) - 1):
            pair = (kinds[left], kinds[left + 1])
            if _INERT in pair or _ZERO in pair:
                continue
            wrap |= {at for at in (left, left + 1) if kinds[at] == _NOISY}
        wrapped: dict[int, str | None] = {}  # side -> its text where it is one cell or a number
        for at in sorted(wrap):
            side = sides[at]
            token = tokens[side[0]]
            if len(side) == 1 and token.is_range and self.intersected and frame.scalar and site is not None \
                    and site.book.range_size(site.sheet, token.text) != 1:
                cell = _picked(_named(token.text, site), site)
                if cell is None or cell == "#VALUE!":
                    continue  # no cell to pick: the engine's own answer, unrounded
                edits.replace(side[0], side[0] + 1, cell)
                wrapped[at] = cell
            else:
                wrapped[at] = _one_value(tokens, side, self.formula_text, site)
        if len(sides) == 2 and len(wrapped) == 2 and (wrapped[0] or wrapped[1]):
            # Both noisy, one a cell or a number: `a<b` as `a<RATESXL.CMPSNAP(b,a)`, one call.
            other = 1 if wrapped[0] else 0
            side = sides[other]
            edits.before(side[0], f"{SNAP}(")
            edits.after(closing.get(side[-1], side[-1]), f",{wrapped[1 - other]})")
            return
        for at in wrapped:
            side = sides[at]
            edits.before(side[0], f"{NAME}(")
            edits.after(closing.get(side[-1], side[-1]), ")")


def _side(tokens: tuple[Token, ...], side: list[int], closing: dict[int, int], site: Site | None) -> str:
    """What one side of a comparison is: _INERT (text, a boolean, an error: its order against
    a number does not depend on the number), _ZERO (the literal 0), _EXACT (a number written
    with 15 significant digits or fewer) or _NOISY (anything else: wrapped)."""
    if any(tokens[k].kind == INFIX and tokens[k].text == "&" for k in side):
        return _INERT
    if len(side) == 2 and tokens[side[0]].kind == "OpPrefix" and tokens[side[1]].sub == NUMBER:
        return _number(tokens[side[1]].text)  # -0.5
    if len(side) == 1:
        token = tokens[side[0]]
        if token.is_range and site is not None:
            known = site.book.constant_kind(site.sheet, token.text)
            if known is not None:
                return known  # a cell holding a constant: its value says
        if token.kind == OPERAND and token.sub in (TEXT, LOGICAL, ERROR):
            return _INERT
        if token.kind == OPERAND and token.sub == NUMBER:
            return _number(token.text)
        if token.is_call and token.name in _NOT_NUMBERS and closing.get(side[0]) is not None:
            return _INERT
    return _NOISY


def _one_value(tokens: tuple[Token, ...], side: list[int], text: str, site: Site | None) -> str | None:
    """The side's text where it is one cell (a reference, a name of one) or a number literal,
    which RATESXL.CMPSNAP may be given a second time at no cost and no change; else None."""
    first = tokens[side[0]]
    if len(side) == 2 and first.kind == "OpPrefix" and tokens[side[1]].sub == NUMBER:
        return text[first.start:tokens[side[1]].end]  # -0.30000000000000004
    if len(side) != 1:
        return None
    if first.kind == OPERAND and first.sub == NUMBER:
        return first.text
    if not first.is_range or site is None:
        return None
    prefix, ref = split_reference(first.text)
    if "[" in prefix or "[" in ref:
        return None  # another workbook, a table
    area = read_area(ref)
    if area is None:  # a defined name: one whose range is one cell
        named = site.book.name_range(site.sheet, first.text)
        area = read_area(split_reference(named)[1]) if named else None
    return first.text if area is not None and area.is_cell else None


def constant_kind(value: object) -> str:
    """What a constant cell's value is to a comparison: _INERT (text, a boolean, an error),
    _ZERO (0 or empty: rounding keeps a number 0 or not), _EXACT (15 significant digits hold
    it: a number typed in) or _NOISY (a number pasted with binary noise, a date or time)."""
    if value is None:
        return _ZERO
    if isinstance(value, bool | str):
        return _INERT  # (an error constant is read as its text: it passes through either way)
    if not isinstance(value, int | float):
        return _NOISY  # a date or a time (openpyxl's reading of a number): its serial may have noise
    if value == 0:
        return _ZERO
    return _EXACT if rounded(value) == value else _NOISY


def _number(text: str) -> str:
    """A number literal: _ZERO, _EXACT (15 significant digits hold it) or _NOISY."""
    try:
        value = float(text)
    except ValueError:
        return _NOISY
    if value == 0:
        return _ZERO
    return _EXACT if rounded(value) == value else _NOISY
