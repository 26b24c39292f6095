"""A formula read once: its tokens (functions/tokens.py, the one tokenizer) and their nesting,
the tree every pass walks, and the edits a pass makes to it.

- `Formula.groups`: every call, parenthesis and array constant, in the order they open, each
  a `Group` with its arguments as token spans ([first, last), white space at either end left
  out) and the group holding it (`parent`, `position`: which of the parent's arguments);
- `Formula.owner(i)`: the innermost group holding token i;
- `Edits`: a pass replaces spans of tokens (or puts text before or after a token) and gets the
  new formula; the characters between tokens are kept as written. No pass cuts the text at
  offsets of its own.
"""

from __future__ import annotations

from collections.abc import Container, Iterator
from dataclasses import dataclass, field

from rates_xl.functions.tokens import (
    ARG,
    ARRAY,
    CLOSE,
    FUNC,
    INFIX,
    NUMBER,
    OPEN,
    OPERAND,
    PAREN,
    PREFIX,
    ROW,
    SEP,
    WHITESPACE,
    FormulaError,
    Token,
    tokenize,
)

Span = tuple[int, int]  # [first, last) token indices


@dataclass(slots=True)
class Group:
    """A call (`kind` "call", `name` its bare function name), a parenthesis ("paren") or an
    array constant ("array"): its opening and closing tokens and its arguments. A
    parenthesis' arguments are the parts of a union (`(A1,B2:C3)`), an array's its elements."""

    kind: str
    open: int
    close: int = -1  # -1: never closed (an unbalanced formula)
    name: str = ""
    parent: Group | None = None
    position: int = 0  # which argument of the parent holds it
    arguments: list[Span] = field(default_factory=list)
    separators: list[int] = field(default_factory=list)  # its commas (an array's semicolons too)

    def within(self, opens: Container[int]) -> bool:
        """Whether the group sits inside one of the groups opening at these tokens (a pass that
        writes a group out writes those inside it with it)."""
        parent = self.parent
        while parent is not None:
            if parent.open in opens:
                return True
            parent = parent.parent
        return False


class Formula:
    """One formula's text, tokens and groups (tokenized on first use; `error` is the
    tokenizer's complaint, the tokens then empty)."""

    # (Slots, read on first use: one is made for every formula of a book, twice.)
    __slots__ = ("text", "_upper", "_tokens", "_error", "_groups", "_owners")

    def __init__(self, text: str) -> None:
        self.text = text
        self._upper: str | None = None
        self._tokens: tuple[Token, ...] | None = None
        self._error: str | None = None
        self._groups: list[Group] | None = None
        self._owners: list[Group | None] = []

    @classmethod
    def read(cls, text: str, tokens: tuple[Token, ...]) -> Formula:
        """A formula whose tokens are already read."""
        formula = cls(text)
        formula._tokens = tokens
        return formula

    @property
    def upper(self) -> str:
        """The text in upper case (the passes' triggers read it)."""
        if self._upper is None:
            self._upper = self.text.upper()
        return self._upper

    @property
    def tokens(self) -> tuple[Token, ...]:
        if self._tokens is None:
            try:
                self._tokens = tokenize(self.text)
            except FormulaError as exc:
                self._error = f"cannot read the formula: {exc}"
                self._tokens = ()
        return self._tokens

    @property
    def error(self) -> str | None:
        self.tokens  # noqa: B018 - reading the tokens sets the error
        return self._error

    @property
    def groups(self) -> list[Group]:
        self._nest()
        return self._groups  # type: ignore[return-value]

    def owner(self, index: int) -> Group | None:
        """The innermost call, parenthesis or array holding token `index` (not one it opens
        or closes)."""
        self._nest()
        return self._owners[index]

    def _nest(self) -> None:
        if self._groups is not None:
            return
        groups: list[Group] = []
        owners: list[Group | None] = []
        stack: list[Group] = []
        starts: list[int] = []  # where each open group's current argument starts
        inner: Group | None = None  # (stack[-1]: read for every token of every formula, kept here)
        tokens = self.tokens

        def trimmed(first: int, last: int) -> Span:  # (`_trimmed` over the tokens read once)
            while first < last and tokens[first].kind == WHITESPACE:
                first += 1
            while last > first and tokens[last - 1].kind == WHITESPACE:
                last -= 1
            return first, last

        for index, token in enumerate(tokens):
            kind, sub = token.kind, token.sub
            if sub == OPEN and kind in _GROUPS:  # (Token.opens)
                owners.append(inner)
                group = Group(_GROUPS[kind], index, name=token.name, parent=inner,
                              position=len(inner.arguments) if inner is not None else 0)
                groups.append(group)
                stack.append(group)
                starts.append(index + 1)
                inner = group
            elif sub == CLOSE and kind in _GROUPS and stack:  # (Token.closes)
                group = stack.pop()
                group.close = index
                group.arguments.append(trimmed(starts.pop(), index))
                inner = stack[-1] if stack else None
                owners.append(inner)
            elif inner is not None and _separates(token, inner):
                inner.arguments.append(trimmed(starts[-1], index))
                inner.separators.append(index)
                starts[-1] = index + 1
                owners.append(inner)
            else:
                owners.append(inner)
        self._groups = groups
        self._owners = owners

    def trimmed(self, span: Span) -> Span:
        """A span without the white space at either end."""
        return self._trimmed(*span)

    def swapped(self, swaps: dict[int, str]) -> str:
        """The whole formula with these tokens (index -> text) written otherwise."""
        edits = self.edits()
        for index, text in swaps.items():
            edits.replace(index, index + 1, text)
        return edits.text()

    def _trimmed(self, first: int, last: int) -> Span:
        tokens = self.tokens
        while first < last and tokens[first].is_space:
            first += 1
        while last > first and tokens[last - 1].is_space:
            last -= 1
        return first, last

    # -- reading --------------------------------------------------------------------------------
    def calls(self, *names: str) -> Iterator[Group]:
        """The calls of these functions (bare names; every call when none is given)."""
        wanted = set(names)
        return (g for g in self.groups if g.kind == "call" and (not wanted or g.name in wanted))

    def group_at(self, index: int) -> Group | None:
        """The group token `index` opens, if it opens one."""
        return next((g for g in self.groups if g.open == index), None)

    def span_text(self, span: Span, swaps: dict[int, str] | None = None) -> str:
        """The formula's text of a span of tokens, as written (`swaps`: token index -> the text
        written in its place; those outside the span are not written)."""
        first, last = span
        if first >= last:
            return ""
        tokens, text = self.tokens, self.text
        if not swaps:
            return text[tokens[first].start:tokens[last - 1].end]
        out, at = [], tokens[first].start
        for index in sorted(i for i in swaps if first <= i < last):
            out += [text[at:tokens[index].start], swaps[index]]
            at = tokens[index].end
        return "".join(out) + text[at:tokens[last - 1].end]

    def solid(self, span: Span) -> list[Token]:
        """A span's tokens without white space."""
        return [t for t in self.tokens[span[0]:span[1]] if not t.is_space]

    def number(self, span: Span) -> float | None:
        """The number a span types, signs before it read (`-12`, `--3`, `+0.5`); None for
        anything else (OFFSET's sizes, a power's operands)."""
        solid = self.solid(span)
        sign = 1.0
        while solid and solid[0].kind == PREFIX and solid[0].text in "+-":
            sign = -sign if solid[0].text == "-" else sign
            solid = solid[1:]
        if len(solid) != 1 or solid[0].kind != OPERAND or solid[0].sub != NUMBER:
            return None
        try:
            return sign * float(solid[0].text)
        except ValueError:
            return None

    def single(self, span: Span) -> Token | None:
        """The one token a span holds (white space aside), or None."""
        at = self.single_index(span)
        return None if at is None else self.tokens[at]

    def single_index(self, span: Span) -> int | None:
        """Where the one token a span holds (white space aside) is, or None."""
        found = [k for k in range(*span) if not self.tokens[k].is_space]
        return found[0] if len(found) == 1 else None

    def previous(self, index: int) -> Token | None:
        """The token before `index`, white space skipped."""
        return next((self.tokens[k] for k in range(index - 1, -1, -1) if not self.tokens[k].is_space), None)

    def following(self, index: int) -> Token | None:
        """The token after `index`, white space skipped."""
        return next((self.tokens[k] for k in range(index + 1, len(self.tokens)) if not self.tokens[k].is_space), None)

    def edits(self) -> Edits:
        return Edits(self)


#: The tokens that open and close a group -> the group's kind.
_GROUPS = {FUNC: "call", PAREN: "paren", ARRAY: "array"}


def _separates(token: Token, group: Group) -> bool:
    """Whether `token` ends an argument of `group` (a comma of a call or an array, a row of an
    array, the union comma of a parenthesis)."""
    if group.kind == "paren":
        return token.kind == INFIX and token.text == ","
    return token.kind == SEP and (token.sub == ARG or (group.kind == "array" and token.sub == ROW))


class Edits:
    """Changes to one formula's tokens, applied together (`text`)."""

    def __init__(self, formula: Formula) -> None:
        self.formula = formula
        self._changes: list[tuple[int, int, str]] = []  # (start, end) in characters, new text

    def __bool__(self) -> bool:
        return bool(self._changes)

    def replace(self, first: int, last: int, text: str) -> None:
        """Tokens [first, last) become `text` (with the white space between them)."""
        tokens = self.formula.tokens
        self._changes.append((tokens[first].start, tokens[last - 1].end, text))

    def before(self, index: int, text: str) -> None:
        at = self.formula.tokens[index].start
        self._changes.append((at, at, text))

    def after(self, index: int, text: str) -> None:
        at = self.formula.tokens[index].end
        self._changes.append((at, at, text))

    def text(self) -> str:
        """The formula with every change made (the same text when there is none)."""
        if not self._changes:
            return self.formula.text
        source, out, at = self.formula.text, [], 0
        for start, end, text in sorted(self._changes, key=lambda c: (c[0], c[1])):
            if start < at:
                raise ValueError("overlapping edits of one formula")
            out += [source[at:start], text]
            at = end
        return "".join(out) + source[at:]


def is_array_group(formula: Formula, span: Span) -> bool:
    """Whether a span is exactly one array constant (`{1,2;3,4}`)."""
    first, last = span
    tokens = formula.tokens
    if last - first < 2 or tokens[first].kind != ARRAY or not tokens[first].opens:
        return False
    group = formula.group_at(first)
    return group is not None and group.close == last - 1
