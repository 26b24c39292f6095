"""CHOOSE with a logical index, as Excel reads it: TRUE is 1 (formulas_test.xlsx LOOKUP!Y5,
`CHOOSE(J5,1,2,3)` with J5 TRUE, is 1; FALSE is 0, #VALUE!). formualizer answers #VALUE!
for a logical index. CHOOSE stays formualizer's own (it hands back references, which a Python
function could not); its copy of the formula reads a one-cell index as a number when it
holds a logical value (`IF(ISLOGICAL(J5),--J5,J5)`), and a typed TRUE/FALSE as 1/0. Any
other index (numeric text, a range, an expression) is left as written."""

from __future__ import annotations

import re

from rates_xl.functions.sheet import cell_reference

_MAY_HAVE = re.compile(r"CHOOSE\s*\(", re.IGNORECASE)


def rewrite(formula: str) -> str:
    """`formula` with each CHOOSE's one-cell or logical index read as Excel reads it."""
    if not _MAY_HAVE.search(formula):
        return formula  # the cheap test first
    from openpyxl.formula.tokenizer import Token, Tokenizer

    try:
        tokens = Tokenizer(formula).items
    except Exception:  # noqa: BLE001 - unreadable here: the engine reports it
        return formula
    out: list[str] = []
    changed = False
    for index, token in enumerate(tokens):
        previous = tokens[index - 1] if index else None
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        is_index = (token.type == Token.OPERAND and previous is not None
                    and previous.type == Token.FUNC and previous.subtype == Token.OPEN
                    and previous.value[:-1].strip().upper().split(".")[-1] == "CHOOSE"
                    and following is not None and following.type == Token.SEP)
        if is_index and token.subtype == Token.LOGICAL:
            out.append("1" if token.value.upper() == "TRUE" else "0")
            changed = True
        elif is_index and token.subtype == Token.RANGE and cell_reference(token.value) is not None:
            out.append(f"IF(ISLOGICAL({token.value}),--{token.value},{token.value})")
            changed = True
        else:
            out.append(token.value)
    return "=" + "".join(out) if changed else formula
