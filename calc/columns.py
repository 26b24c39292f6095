"""Whole-column references read to one length. formualizer cuts each whole-column reference
to that column's own last used row (for speed), so `XLOOKUP(,L:L,M:M,,1,2)` sees 5 lookup
values and 6 results and answers #VALUE! where Excel, reading both to row 1048576, answers
(ironcalc_XLOOKUP.xlsx Errors!N1). `even` bounds the whole-column arguments of a call that
has two or more of them to the same rows: 1 to the last row holding a value on any sheet
they read, so the engine still reads only the used rows."""

from __future__ import annotations

import re
from collections.abc import Callable

_WHOLE_COLUMN = re.compile(r"^(\$?[A-Za-z]{1,3}):(\$?[A-Za-z]{1,3})$")
_MAYBE_WHOLE = re.compile(r"\$?[A-Za-z]{1,3}:\$?[A-Za-z]{1,3}(?![\w$])")


def even(formula: str, last_row: Callable[[str | None], int]) -> str:
    """`formula` with the whole-column arguments of each call that has two or more written
    as ranges over the same rows; `last_row(sheet)` (None: the formula's own sheet) is the
    last row holding a value there. Unchanged when there is nothing to even."""
    if len(_MAYBE_WHOLE.findall(formula)) < 2:
        return formula  # the cheap test first (no tokenizing of most formulas)
    from rates_xl.calc.analysis import split_reference, tokenize

    try:
        tokens = tokenize(formula)
    except Exception:  # noqa: BLE001 - unreadable here: the engine's analysis reports it
        return formula
    calls: list[list[tuple[int, object]]] = []  # per open call: its whole-column arguments
    previous: object = None
    chosen: list[list[tuple[int, object]]] = []
    for i, token in enumerate(tokens):
        kind, sub = str(token.token_type), str(token.subtype)
        if kind.endswith("Func") and sub.endswith("Open"):
            calls.append([])
        elif kind.endswith("Func") and sub.endswith("Close"):
            if calls:
                found = calls.pop()
                if len(found) > 1:
                    chosen.append(found)
        elif kind.endswith("Operand") and sub.endswith("Range") and calls:
            after = next((t for t in tokens[i + 1:] if not str(t.token_type).endswith("Whitespace")), None)
            alone_before = previous is not None and (str(previous.subtype).endswith("Arg")
                                                     or str(previous.subtype).endswith("Open"))
            alone_after = after is not None and (str(after.subtype).endswith("Arg")
                                                 or str(after.subtype).endswith("Close"))
            if alone_before and alone_after and _WHOLE_COLUMN.match(split_reference(token.value)[1]):
                calls[-1].append((i, token))
        if not kind.endswith("Whitespace"):
            previous = token
    edits = {}
    for found in chosen:
        if any("[" in t.value for _, t in found):
            continue  # another workbook's columns: left as they are
        sheets = {_sheet(split_reference(t.value)[0]) for _, t in found}
        rows = max(max(last_row(s) for s in sheets), 1)
        for _, token in found:
            prefix, ref = split_reference(token.value)
            first, last = _WHOLE_COLUMN.match(ref).groups()
            edits[token.start] = (token.end, f"{prefix}{first}1:{last}{rows}")
    if not edits:
        return formula
    out, at = [], 0
    for start in sorted(edits):
        end, text = edits[start]
        out += [formula[at:start], text]
        at = end
    return "".join(out) + formula[at:]


def _sheet(prefix: str) -> str | None:
    """"'S 2'!" -> "S 2"; "" -> None (the formula's own sheet)."""
    if not prefix:
        return None
    name = prefix[:-1]
    if name.startswith("'") and name.endswith("'"):
        name = name[1:-1].replace("''", "'")
    return name
