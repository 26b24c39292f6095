"""AND, OR and XOR given text typed in the formula, as Excel reads it.

Excel ignores text in AND/OR/XOR's arguments, a cell's or typed (`AND(TRUE,"0")` is TRUE:
formulas_test.xlsx LOGICAL!AT3), except typed "TRUE" or "FALSE", which count as that value;
with nothing left to read the answer is #VALUE!. Errors anywhere still win (`AND(TRUE,"0",
#REF!)` is #REF!). formualizer ignores a cell's text but answers #VALUE! for typed text;
its copy of the formula gets the typed text rewritten, so its own AND/OR/XOR compute it
(the booleans as TRUE/FALSE, other text dropped).

Excel versions disagree here: Excel 2013 (AppVersion 15, poi_FormulaEvalTestData_Copy.xlsx
EverythingTests!J136) answers `AND("1",1)` with #VALUE!, which this rewriting gives as TRUE.
Typed text is constant, so such a book shows the difference at its stored inputs and the
cell is listed stale (checked: J136 is flagged, not wrong); formualizer's own reading had
the mirror risk against Excel 16 (8 cells of formulas_test.xlsx)."""

from __future__ import annotations

import re

NAMES = frozenset({"AND", "OR", "XOR"})
_MAY_HAVE = re.compile(r"(?:AND|OR)\s*\([^\"]*\"", re.IGNORECASE)  # XOR( contains OR(


def rewrite(formula: str) -> str:
    """`formula` with each typed text argument of AND/OR/XOR as Excel reads it; unchanged
    when it has none (or when dropping them would leave a call with no argument written)."""
    if '"' not in formula or not _MAY_HAVE.search(formula):
        return formula  # the cheap test first: no call followed by text
    for _ in range(formula.count('"')):  # one call per pass, innermost first
        changed = _rewrite_one(formula)
        if changed is None:
            break
        formula = changed
    return formula


def _rewrite_one(formula: str) -> str | None:
    from openpyxl.formula.tokenizer import Token, Tokenizer

    try:
        tokens = Tokenizer(formula).items
    except Exception:  # noqa: BLE001 - unreadable here: the engine reports it
        return None
    # Per open call, parenthesis or array: [is AND/OR/XOR, its opening token, argument start indexes].
    stack: list[tuple[bool, int, list[int]]] = []
    for index, token in enumerate(tokens):
        opens = token.subtype == Token.OPEN and token.type in (Token.FUNC, Token.PAREN, "ARRAY")
        closes = token.subtype == Token.CLOSE and token.type in (Token.FUNC, Token.PAREN, "ARRAY")
        if opens:
            ours = token.type == Token.FUNC and _bare(token.value[:-1]) in NAMES
            stack.append((ours, index, [index + 1]))
        elif token.type == Token.SEP and token.subtype == Token.ARG and stack and stack[-1][0]:
            stack[-1][2].append(index + 1)
        elif closes and stack:
            ours, start, begins = stack.pop()
            if not ours:
                continue
            ends = [b - 1 for b in begins[1:]] + [index]
            arguments = [tokens[b:e] for b, e in zip(begins, ends, strict=True)]
            kept, changed = [], False
            for argument in arguments:
                solid = [t for t in argument if t.type != Token.WSPACE]
                if len(solid) == 1 and solid[0].type == Token.OPERAND and solid[0].subtype == Token.TEXT:
                    changed = True
                    typed = solid[0].value[1:-1].replace('""', '"').upper()
                    if typed in ("TRUE", "FALSE"):
                        kept.append(typed)
                    continue  # other typed text: Excel ignores it
                kept.append("".join(t.value for t in argument))
            if not changed:
                continue
            if not kept:
                call = "#VALUE!"  # nothing but text: no logical value to read
            elif not any(k.strip() for k in kept):
                return None  # only omitted arguments left: the formula stays as written
            else:
                call = tokens[start].value + ",".join(kept) + ")"
            before = "".join(t.value for t in tokens[:start])
            after = "".join(t.value for t in tokens[index + 1:])
            return "=" + before + call + after
    return None


def _bare(name: str) -> str:
    name = name.upper()
    for prefix in ("_XLFN._XLWS.", "_XLFN.", "_XLWS."):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name
