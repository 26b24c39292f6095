"""Reference operators on plain cell ranges, resolved in the formula's text before the engine
reads it: formualizer answers #REF! for an intersection (`C12:E13 D13:F13`, the space
operator) and for a range built of more than two corners (`C14:E14:G13:I14`), and knows
neither AREAS nor ANCHORARRAY (formulas_test.xlsx).

- `A1:B2:D4` is the smallest range holding all of its parts (Excel's range operator);
- `A1:C3 B2:D4` is their common cells (`B2:C3`), or #NULL! when there are none; one of
  several areas, as a whole argument of SUM, COUNT, MAX ... (which read each argument's
  cells alike), becomes that many arguments (`SUM(E3:G4 (B2:E5,G2:H5))` is
  `SUM(E3:E4,G3:G4)`: the engine knows no union);
- `AREAS(...)` of such an expression, unions `(A1,B2:C3)` included, is its count of areas;
- `ANCHORARRAY(A1)` is `A1#`, the spill operator the engine knows;
- `ROWS(...)` or `COLUMNS(...)` of such an expression is its count, #NULL! when it is empty,
  #REF! for a union of several areas (the engine: #VALUE!, or 1);
- `ROW(...)` or `COLUMN(...)` of an empty intersection is #NULL! (the engine: #REF!); in an
  array formula, `ROW(A2:B4)` is the column {2;3;4} and `COLUMN(A2:B4)` the row {1,2} as in
  Excel (the engine: the first one only), written as SEQUENCE.

Only operands that are plain ranges of the formula's own sheet are resolved (a name, another
sheet or a function's result is left as written, for the engine to judge).
"""

from __future__ import annotations

import re
from typing import Any

from rates_xl.functions.sheet import Area, read_area


def _is_cell(text: str) -> bool:
    area = read_area(text, whole_lines=False)
    return area is not None and area.is_cell


def _area(text: str) -> Area | None:
    """'C14:E14:G13:I14' -> its bounding box; None for anything but plain corners."""
    if "!" in text:
        return None
    corners = [read_area(p, whole_lines=False) for p in text.split(":")]
    if any(c is None or not c.is_cell for c in corners):
        return None
    box = corners[0]
    for corner in corners[1:]:
        box = box.span(corner)  # type: ignore[union-attr, arg-type]
    return box


class _Unreadable(Exception):
    pass


class _Parser:
    """union := inter (',' inter)*; inter := prim (' ' prim)*; prim := RANGE | '(' union ')'.
    Values are lists of areas (an empty list: #NULL!)."""

    def __init__(self, tokens: list[Any]) -> None:
        self.tokens = [t for t in tokens]
        self.i = 0

    def _peek(self) -> Any:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def union(self) -> list[Area]:
        areas = self.inter()
        while (t := self._peek()) is not None and t.type == "OPERATOR-INFIX" and t.value == ",":
            self.i += 1
            areas = areas + self.inter()
        return areas

    def inter(self) -> list[Area]:
        areas = self.prim()
        while (t := self._peek()) is not None and t.type == "WHITE-SPACE":
            self.i += 1
            other = self.prim()
            areas = [x for a in areas for b in other if (x := a.intersection(b)) is not None]
        return areas

    def prim(self) -> list[Area]:
        t = self._peek()
        if t is None:
            raise _Unreadable
        if t.type == "OPERAND" and t.subtype == "RANGE":
            area = _area(t.value)
            if area is None:
                raise _Unreadable
            self.i += 1
            return [area]
        if t.type == "PAREN" and t.subtype == "OPEN":
            self.i += 1
            areas = self.union()
            close = self._peek()
            if close is None or close.type != "PAREN" or close.subtype != "CLOSE":
                raise _Unreadable
            self.i += 1
            return areas
        raise _Unreadable


def _evaluate(tokens: list[Any]) -> list[Area] | None:
    tokens = _trimmed(tokens)
    parser = _Parser(tokens)
    try:
        areas = parser.union()
    except _Unreadable:
        return None
    return areas if parser.i == len(tokens) else None


def _trimmed(tokens: list[Any]) -> list[Any]:
    start, end = 0, len(tokens)
    while start < end and tokens[start].type == "WHITE-SPACE":
        start += 1
    while end > start and tokens[end - 1].type == "WHITE-SPACE":
        end -= 1
    return tokens[start:end]


def resolve(formula: str, array: bool = False) -> str:
    """`formula` with the reference operators above resolved (unchanged when it has none);
    `array`: it is an array formula's."""
    upper = formula.upper()
    if " " not in formula and "AREAS" not in upper and "ANCHORARRAY" not in upper \
            and formula.count(":") < 2 and not (array and ("ROW(" in upper or "COLUMN(" in upper)) \
            and not (("ROWS((" in upper or "COLUMNS((" in upper) and "," in formula):
        return formula
    from openpyxl.formula.tokenizer import Tokenizer

    try:
        tokens = Tokenizer(formula).items
    except Exception:  # noqa: BLE001 - unreadable here: the engine reports it
        return formula
    out = _rewrite(tokens, array)
    return formula if out is None else "=" + out


def _rewrite(tokens: list[Any], array: bool = False) -> str | None:
    pieces: list[str] = []
    changed = False
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type == "FUNC" and t.subtype == "OPEN" and t.value.upper().rstrip("(").split(".")[-1] in ("AREAS", "ANCHORARRAY"):
            end = _matching(tokens, i)
            name = t.value.upper().rstrip("(").split(".")[-1]
            inner = tokens[i + 1:end] if end is not None else []
            if name == "AREAS" and end is not None and (areas := _evaluate(inner)) is not None:
                pieces.append(str(len(areas)) if areas else "#NULL!")
                changed, i = True, end + 1
                continue
            if name == "ANCHORARRAY" and end is not None and len(_trimmed(inner)) == 1 and \
                    _trimmed(inner)[0].subtype == "RANGE" and _is_cell(_trimmed(inner)[0].value.split("!")[-1]):
                pieces.append(_trimmed(inner)[0].value + "#")
                changed, i = True, end + 1
                continue
        if t.type == "FUNC" and t.subtype == "OPEN" and t.value.upper() in ("ROW(", "COLUMN("):
            end = _matching(tokens, i)
            areas = _evaluate(tokens[i + 1:end]) if end is not None else None
            if areas is not None and len(areas) <= 1:
                pieces.append(_position(t.value.upper() == "ROW(", areas[0] if areas else None, array))
                changed, i = True, end + 1  # type: ignore[operator]
                continue
        if t.type == "FUNC" and t.subtype == "OPEN" and t.value.upper() in ("ROWS(", "COLUMNS("):
            end = _matching(tokens, i)
            inner = _trimmed(tokens[i + 1:end]) if end is not None else []
            areas = _evaluate(inner) if len(inner) > 1 else None  # one range: the engine's
            if areas is not None:
                pieces.append(_size(t.value.upper() == "ROWS(", areas))
                changed, i = True, end + 1  # type: ignore[operator]
                continue
        if t.type == "OPERAND" and t.subtype == "RANGE":
            # A run of ranges joined by spaces (intersection), or one with 3+ corners; a
            # parenthesised union may take part (`E3:G4 (B2:E5,G2:H5)`).
            j = i + 1
            while j + 1 < len(tokens) and tokens[j].type == "WHITE-SPACE":
                following = tokens[j + 1]
                if following.type == "OPERAND" and following.subtype == "RANGE":
                    j += 2
                elif following.type == "PAREN" and following.subtype == "OPEN" and \
                        (close := _matching(tokens, j + 1)) is not None:
                    j = close + 1
                else:
                    break
            run = tokens[i:j]
            if (len(run) > 1 or t.value.count(":") > 1) and (areas := _evaluate(run)) is not None:
                if len(areas) <= 1:
                    pieces.append(areas[0].a1() if areas else "#NULL!")
                    changed, i = True, j
                    continue
                if _whole_argument_of_union_safe(tokens, i, j):
                    # Several areas: the engine knows no union, but these functions read
                    # each argument's cells alike, so the areas become their arguments.
                    pieces.append(",".join(a.a1() for a in areas))
                    changed, i = True, j
                    continue
        pieces.append(t.value)
        i += 1
    return "".join(pieces) if changed else None


#: Functions over all their arguments' cells alike: SUM((A1,B2)) is SUM(A1,B2).
_UNION_SAFE = frozenset("SUM SUMSQ PRODUCT COUNT COUNTA AVERAGE AVERAGEA MIN MINA MAX MAXA".split())


def _whole_argument_of_union_safe(tokens: list[Any], start: int, end: int) -> bool:
    """Whether tokens[start:end] are one whole argument of a call to a _UNION_SAFE function."""
    before = next((k for k in range(start - 1, -1, -1) if tokens[k].type != "WHITE-SPACE"), None)
    after = next((k for k in range(end, len(tokens)) if tokens[k].type != "WHITE-SPACE"), None)
    if before is None or after is None:
        return False
    opening, closing = tokens[before], tokens[after]
    if not (opening.type == "SEP" and opening.subtype == "ARG" or
            opening.type == "FUNC" and opening.subtype == "OPEN"):
        return False
    if not (closing.type == "SEP" and closing.subtype == "ARG" or
            closing.type == "FUNC" and closing.subtype == "CLOSE"):
        return False
    depth = 0  # find the call this argument belongs to
    for k in range(before, -1, -1):
        token = tokens[k]
        if token.subtype == "CLOSE" and token.type in ("FUNC", "PAREN"):
            depth += 1
        elif token.subtype == "OPEN" and token.type in ("FUNC", "PAREN"):
            if depth == 0:
                return token.type == "FUNC" and token.value.upper().rstrip("(").split(".")[-1] in _UNION_SAFE
            depth -= 1
    return False


def _size(rows: bool, areas: list[Area]) -> str:
    """ROWS(...) or COLUMNS(...) of a reference expression as Excel gives it: #NULL! for no
    area (an empty intersection), #REF! for several (a union), else the count."""
    if not areas:
        return "#NULL!"
    if len(areas) > 1:
        return "#REF!"
    return str(areas[0].rows if rows else areas[0].columns)


def _position(row: bool, area: Area | None, array: bool) -> str:
    """ROW(area) or COLUMN(area) as Excel gives it: #NULL! for no area; in an array formula
    every row (column) of the area; elsewhere the first."""
    if area is None:
        return "#NULL!"
    first, count = (area.top, area.rows) if row else (area.left, area.columns)
    if not array or count == 1:
        return str(first)
    return f"SEQUENCE({count},1,{first})" if row else f"SEQUENCE(1,{count},{first})"


def _matching(tokens: list[Any], start: int) -> int | None:
    depth = 0
    for k in range(start, len(tokens)):
        t = tokens[k]
        if t.subtype == "OPEN" and t.type in ("FUNC", "PAREN"):
            depth += 1
        elif t.subtype == "CLOSE" and t.type in ("FUNC", "PAREN"):
            depth -= 1
            if depth == 0:
                return k
    return None


_SPILL = re.compile(r"(?<![\w.$'!])(?:(?P<sheet>'(?:[^']|'')+'|[A-Za-z_][\w.]*)!)?"
                    r"(?P<cell>\$?[A-Za-z]{1,3}\$?\d+)#")
_STRING = re.compile(r'"(?:[^"]|"")*"')


def fixed_spills(formula: str, sheet: str, areas: dict[tuple[str, str], str]) -> str:
    """`formula` (on `sheet`) with each spill reference `A1#` (`ANCHORARRAY(A1)`, resolved
    above) to a dynamic array the engine computes cell by cell, over its stored range (lifted,
    calc/analysis.py), written as that range: `areas` (sheet, anchor) -> "A1:A5". Such an
    anchor no longer spills in the engine's copy, where `A1#` is #REF! (formulas_test.xlsx
    CORE!AD4, `=ANCHORARRAY(AC4)+3` over `{=AB4:AB5+1}`)."""
    if "#" not in formula:
        return formula
    from rates_xl.functions.sheet import unquote_sheet

    def spill(found: re.Match[str]) -> str:
        target = unquote_sheet(found["sheet"]) if found["sheet"] else sheet
        area = areas.get((target, found["cell"].replace("$", "").upper()))
        if area is None:
            return found[0]
        return f"{found['sheet']}!{area}" if found["sheet"] else area

    pieces, last = [], 0
    for literal in _STRING.finditer(formula):  # never inside a string
        pieces.append(_SPILL.sub(spill, formula[last:literal.start()]) + literal[0])
        last = literal.end()
    pieces.append(_SPILL.sub(spill, formula[last:]))
    return "".join(pieces)


_SHEET_PREFIX = re.compile(r"(?:'(?:[^']|'')+'|[A-Za-z_][\w.]*)!")


def resolve_definition(text: str) -> str:
    """A defined name's text with its reference operators resolved where every reference is
    on one sheet (formulas_test.xlsx's `h`: `CORE!$K$4:$K$6 CORE!$J$5:$L$5` is CORE!K5; the
    engine answered #VALUE! for `=h` and #NAME? for the names built on it); unchanged
    otherwise."""
    from rates_xl.calc.sources import qualify
    from rates_xl.functions.sheet import unquote_sheet

    if not isinstance(text, str) or " " not in text.strip():
        return text  # no intersection: nothing here to resolve
    prefixes = set(_SHEET_PREFIX.findall(text))
    if len(prefixes) != 1:
        return text
    prefix = prefixes.pop()
    bare = "=" + text.replace(prefix, "")
    out = resolve(bare)
    if out == bare:
        return text
    # A name's references are absolute (the engine reads a relative one in a name as #NAME?).
    out = _CELL.sub(lambda m: f"${m['col'].lstrip('$')}${m['row'].lstrip('$')}", out)
    return qualify(out, unquote_sheet(prefix[:-1]))[1:]


_CELL = re.compile(r"(?<![\w.$'!])(?P<col>\$?[A-Za-z]{1,3})(?P<row>\$?\d+)(?![\w(])")
