"""A formula's tokens: the one tokenizer every reader of a formula's text uses (calc's formula
front end, its reference graph, the RATES_SOURCE and `rates-xl diff` links).

It is formualizer's (Rust), the tokenizer of the engine that computes the books: what a
rewriting reads is what the engine will read. Two readers take less than every token: the
functions a formula calls (`function_names`) and the operands its references are read from
(`range_operands`, calc/dependencies.py), each read from the tokenizer's own tokens without a
`Token` built for each. Its offsets count UTF-8 bytes; here they count
characters, so a formula holding "ß" or "€" is never cut in the wrong place.

Chosen over openpyxl's `Tokenizer` (which pycel uses) on the 34,081 distinct formulas of the
Excel-made corpus, the real models, the templates and the test books: both read every one,
formualizer's in 0.07 s against 0.51 s, and openpyxl's misreads what Excel 365 writes: it
refuses a spill reference (`=A1#`: TokenizerError, so a rewriting built on it left every such
formula alone), reads `A1 :B2` as the operand `:B2`, `=true+1`'s `true` as a range and
`@Tbl[Col]` as one operand. The kinds and subtypes are formualizer's names:

- kind: Func, Paren, Array (their sub Open or Close), Operand (sub Range, Number, Text,
  Logical, Error), OpPrefix, OpInfix, OpPostfix, Sep (sub Arg or Row), Whitespace;
- Excel's intersection operator is an OpInfix " " (other white space is Whitespace), the
  union comma inside parentheses an OpInfix ","; a range built of more than two corners
  (`A1:B2:C3`) is two Range operands joined by an OpInfix ":".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from operator import attrgetter
from typing import Any, NamedTuple

from rates_xl.errors import InputError

FUNC, PAREN, ARRAY, OPERAND, SEP, WHITESPACE = "Func", "Paren", "Array", "Operand", "Sep", "Whitespace"
PREFIX, INFIX, POSTFIX = "OpPrefix", "OpInfix", "OpPostfix"
OPEN, CLOSE, RANGE, NUMBER, TEXT, LOGICAL, ERROR, ARG, ROW = (
    "Open", "Close", "Range", "Number", "Text", "Logical", "Error", "Arg", "Row")

#: The prefixes Excel stores before a function's name (`_xlfn.XLOOKUP`, an add-in's `_xludf.`).
_PREFIX = re.compile(r"^(?:_XLFN\._XLWS\.|_XLFN\.|_XLWS\.|_XLUDF\.|_XLDUDF_)", re.IGNORECASE)


class FormulaError(InputError):
    """A formula the tokenizer cannot read (the message is its complaint)."""


class Token(NamedTuple):
    kind: str
    sub: str
    text: str
    start: int  # offsets in characters
    end: int

    @property
    def opens(self) -> bool:
        """A call's, a parenthesis' or an array constant's opening token."""
        return self.sub == OPEN and self.kind in (FUNC, PAREN, ARRAY)

    @property
    def closes(self) -> bool:
        return self.sub == CLOSE and self.kind in (FUNC, PAREN, ARRAY)

    @property
    def is_call(self) -> bool:
        return self.kind == FUNC and self.sub == OPEN

    @property
    def is_range(self) -> bool:
        """An operand that names cells: a reference, a defined name, a table reference."""
        return self.kind == OPERAND and self.sub == RANGE

    @property
    def is_space(self) -> bool:
        return self.kind == WHITESPACE

    @property
    def name(self) -> str:
        """A call's function, upper case, without Excel's stored prefix ('_xlfn.XLOOKUP(' ->
        'XLOOKUP'); "" for any other token."""
        return bare_name(self.text) if self.is_call else ""


@lru_cache(maxsize=4096)
def bare_name(text: str) -> str:
    """'_xlfn.XLOOKUP(' -> 'XLOOKUP', '_xludf.RATES_SWAP' -> 'RATES_SWAP'. (Cached: asked of
    every call token of every formula read, of a few names.)"""
    return _PREFIX.sub("", text.rstrip("(").strip()).upper()


class _Names(dict[object, str]):
    """formualizer's enum -> its bare name (TokenType.Func -> 'Func'), found once per member:
    a plain dict's lookup for every token read after that."""

    def __missing__(self, value: object) -> str:
        name = self[value] = str(value).rpartition(".")[2]
        return name


_KINDS = _Names()
#: A token's five fields in one call (formualizer offers no accessor that returns them all at
#: once: each is a property of its own, and five attribute reads a token were a third of the
#: conversion's time).
_FIELDS = attrgetter("token_type", "subtype", "value", "start", "end")


@lru_cache(maxsize=2048)
def tokenize(formula: str) -> tuple[Token, ...]:
    """The tokens of `formula` (with its '='), offsets in characters. FormulaError when the
    tokenizer refuses it. (Cached: the same text is read by the passes, the fit and the
    passes over what each cell finally holds.)"""
    import formualizer

    try:
        raw = formualizer.tokenize(formula)
    except Exception as exc:  # noqa: BLE001 - the tokenizer's own error, kept as its reason
        raise FormulaError(str(exc)) from None
    fields: Iterable[tuple[Any, Any, str, int, int]] = map(_FIELDS, raw.tokens())
    if not formula.isascii():
        at = _characters(formula)
        fields = [(kind, sub, text, at[start], at[stop]) for kind, sub, text, start, stop in fields]
    # The tokens cover the formula: the tokenizer leaves out the sheet of a dead reference
    # (`'Model'!#REF!` is the Error token `#REF!`), which then belongs to that token, starting
    # where the one before it ends. (Read for every formula of a book: names bound locally, the
    # kinds' names from a table, the Token built without NamedTuple's Python-level __new__.)
    kinds, new = _KINDS, tuple.__new__
    end = 1 if formula.startswith("=") else 0
    tokens = []
    for kind, sub, text, start, stop in fields:
        tokens.append(new(Token, (kinds[kind], kinds[sub], text, start if start < end else end, stop)))
        end = stop
    return tuple(tokens)


def _characters(formula: str) -> dict[int, int]:
    """UTF-8 byte offset -> character offset, for a formula beyond ASCII."""
    at, offset = {}, 0
    for index, char in enumerate(formula):
        at[offset] = index
        offset += len(char.encode("utf-8"))
    at[offset] = len(formula)
    return at


def function_names(formula: str) -> frozenset[str]:
    """The functions a formula calls (upper case, without Excel's stored prefixes); none for
    a formula the tokenizer refuses, nor for one without a "(" (no call is written without
    one: `=A1+1` is answered without reading its tokens, and takes no room in the cache)."""
    return _calls(formula) if "(" in formula else _NO_CALLS


_NO_CALLS: frozenset[str] = frozenset()


@lru_cache(maxsize=65536)
def _calls(formula: str) -> frozenset[str]:
    """`function_names` of a formula holding a "(". (Cached: a calculation asks it of every
    formula several times: RATES_* calls, volatile functions, unknown names, spills.)"""
    import formualizer

    try:  # the tokenizer's own tokens: only the calls are read ("NAME(", a Func Open)
        tokens: Any = formualizer.tokenize(formula)  # (its stubs: a None may come; none does)
        # (A token's kind first: most are no function, and its text is a new str each read.)
        return frozenset(bare_name(text) for t in tokens
                         if _KINDS[t.token_type] == FUNC and (text := t.value).endswith("(") and len(text) > 1)
    except Exception:  # noqa: BLE001 - unreadable: no call read
        return _NO_CALLS


#: `range_operands`' item standing for a run of tokens that are neither a Range operand nor the
#: range operator ":".
OTHER = None


def range_operands(formula: str) -> list[str | None] | None:
    """What a reader of `formula`'s references needs of its tokens, in order: each Range
    operand's text, each range operator ":" (an OpInfix) as ":", and `OTHER` for each run of
    other tokens between them (so two items are side by side exactly where their tokens are).
    None when the tokenizer refuses it. (Only two of a token's five fields are read, and no
    `Token` is built: `tokenize` takes five times as long, and the dependency reader asks this
    of every formula of a book, most of them read nowhere else.)"""
    import formualizer

    try:
        raw = formualizer.tokenize(formula)
    except Exception:  # noqa: BLE001 - refused: `tokenize`'s FormulaError
        return None
    kinds = _KINDS
    out: list[str | None] = []
    for token in raw.tokens():
        kind = kinds[token.token_type]
        if kind == OPERAND and kinds[token.subtype] == RANGE:
            out.append(token.value)
        elif kind == INFIX and (text := token.value) == ":":
            out.append(text)
        elif not out or out[-1] is not OTHER:
            out.append(OTHER)
    return out
