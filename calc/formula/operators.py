"""Excel's reference operators on plain cell ranges, resolved in the formula before the engine
reads it: formualizer answers #REF! for an intersection (`C12:E13 D13:F13`, the space
operator) and for a range built of more than two corners (`C14:E14:G13:I14`), and knows
neither AREAS nor ANCHORARRAY (formulas_test.xlsx LOOKUP and CORE).

Only operands that are plain ranges of the formula's own sheet are resolved (a name, another
sheet or a function's result is left as written, for the engine to judge).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rates_xl.calc.formula.reference_areas import (
    corners,
    evaluate,
    is_cell,
    is_intersection,
    joins,
    operand_reader,
    trimmed,
)
from rates_xl.calc.formula.site import NotComputed
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.sheet import (
    Area,
    column_letters,
    parse_cell,
    quote_sheet,
    read_area,
    split_reference,
    unquote_sheet,
)
from rates_xl.functions.tokens import FUNC, INFIX, PAREN, Token

if TYPE_CHECKING:
    from rates_xl.calc.formula.site import Site


#: A space after a character a Range operand can end with (not an operator, a separator, a
#: parenthesis, a quote or white space): only there can the tokenizer read an intersection
#: after a reference (`A1:B2 C3`), which most spaces in formulas are not (`IF(A1, B1)`, `A1 + 1`).
_AFTER_OPERAND = re.compile(r'[^\s,;(){}=+\-*/^&<>%"] ')
_AFTER_CLOSE = re.compile(r"\)\s+[\w$'(]")  # (`(OFFSET(...)) Hdr`: an intersection after a call)


def may_operate(text: str, array: bool = False, upper: str | None = None) -> bool:
    """A space that may be an intersection (or one anywhere in a formula naming ROW, ROWS, COLUMN
    or COLUMNS, whose reference the pass reads then), AREAS, ANCHORARRAY, a range of three
    corners or more, an array formula's ROW or COLUMN, or ROWS/COLUMNS of a parenthesised
    expression, ROW or COLUMN in SUMPRODUCT or INDEX (which read them as arrays, `_array_evaluated`):
    the cheap test first (`upper`: the text in upper case, when the caller has it)."""
    upper = text.upper() if upper is None else upper
    if " " in text and (_AFTER_OPERAND.search(text) is not None or _AFTER_CLOSE.search(text) is not None
                        or "ROW" in upper or "COLUMN" in upper):
        return True
    return ("AREAS" in upper or "ANCHORARRAY" in upper or text.count(":") >= 2
            or ((array or "SUMPRODUCT(" in upper or "INDEX(" in upper) and ("ROW(" in upper or "COLUMN(" in upper))
            or (("ROWS((" in upper or "COLUMNS((" in upper) and "," in text))


def reference_operators(formula: Formula, site: Site | None = None) -> str:
    """The reference operators on plain ranges, as Excel resolves them:

    - `A1:B2:D4` is the smallest range holding all of its parts (Excel's range operator);
    - `A1:C3 B2:D4` is their common cells (`B2:C3`), or #NULL! when there are none; several
      areas, as a whole argument of SUM, COUNT, MAX ... (which read each argument's cells
      alike), become that many arguments (`SUM(E3:G4 (B2:E5,G2:H5))` is `SUM(E3:E4,G3:G4)`:
      the engine knows no union);
    - `AREAS(...)` of such an expression, unions included, is its count of areas;
    - `ANCHORARRAY(A1)` is `A1#`, the spill operator the engine knows;
    - `ROWS(...)` or `COLUMNS(...)` of such an expression is its count, #NULL! when it is
      empty, #REF! for a union of several areas (the engine: #VALUE!, or 1);
    - `ROW(...)` or `COLUMN(...)` of an empty intersection is #NULL! (the engine: #REF!); in
      an array formula `ROW(A2:B4)` is the column {2;3;4} and `COLUMN(A2:B4)` the row {1,2},
      as in Excel (the engine: the first one only), written as SEQUENCE.

    Proved by formulas_test.xlsx LOOKUP!AQ12 (`COLUMN(AC12:AE14 AD13:AF14)`), LOOKUP!AG12 (a
    range of four corners), LOOKUP!R4:U4 (AREAS), LOOKUP!S115 (ROWS of a union) and CORE!AD4
    (ANCHORARRAY)."""
    array = bool(getattr(site, "array", False))
    tokens = formula.tokens
    edits = formula.edits()
    handled: set[int] = set()  # the tokens of the runs written out
    i = 0
    while i < len(tokens):
        t = tokens[i]
        name = t.text.upper().rstrip("(").split(".")[-1] if t.is_call else ""
        if name in ("AREAS", "ANCHORARRAY"):
            end = _matching(tokens, i)
            inner = list(range(i + 1, end)) if end is not None else []
            if name == "AREAS" and end is not None and (areas := evaluate(tokens, inner)) is not None:
                edits.replace(i, end + 1, str(len(areas)) if areas else "#NULL!")
                handled.update(range(i, end + 1))
                i = end + 1
                continue
            inside = trimmed(tokens, inner)
            if name == "ANCHORARRAY" and end is not None and len(inside) == 1 and tokens[inside[0]].is_range \
                    and is_cell(tokens[inside[0]].text.split("!")[-1]):
                edits.replace(i, end + 1, tokens[inside[0]].text + "#")
                i = end + 1
                continue
        if t.is_call and t.text.upper() in ("ROW(", "COLUMN("):
            end = _matching(tokens, i)
            areas = evaluate(tokens, list(range(i + 1, end))) if end is not None else None
            if end is not None and areas is not None and len(areas) <= 1:
                whole = array or _array_evaluated(formula, i)
                edits.replace(i, end + 1, _position(t.text.upper() == "ROW(", areas[0] if areas else None, whole))
                handled.update(range(i, end + 1))
                i = end + 1
                continue
        if t.is_call and t.text.upper() in ("ROWS(", "COLUMNS("):
            end = _matching(tokens, i)
            inner = trimmed(tokens, list(range(i + 1, end))) if end is not None else []
            areas = evaluate(tokens, inner) if len(inner) > 1 else None  # one range: the engine's
            if end is not None and areas is not None:
                edits.replace(i, end + 1, _size(t.text.upper() == "ROWS(", areas))
                handled.update(range(i, end + 1))
                i = end + 1
                continue
        if t.is_range:
            # A run of ranges joined by spaces (intersection) or colons (three corners or more);
            # a parenthesised union may take part (`E3:G4 (B2:E5,G2:H5)`).
            j = i + 1
            while j + 1 < len(tokens) and joins(tokens[j], tokens[j - 1], tokens[j + 1]):
                following = tokens[j + 1]
                if following.is_range:
                    j += 2
                elif tokens[j].text.isspace() and following.kind == PAREN and following.opens and \
                        (close := _matching(tokens, j + 1)) is not None:
                    j = close + 1
                else:
                    break
            run = list(range(i, j))
            sheets: set[str] = set()
            if len(run) > 1 and (areas := evaluate(tokens, run, operand_reader(site, sheets))) is not None \
                    and len(sheets) <= 1:
                prefix = "" if not sheets or site is None or sheets == {site.sheet} else quote_sheet(sheets.pop()) + "!"
                if len(areas) <= 1:
                    edits.replace(i, j, prefix + areas[0].a1() if areas else "#NULL!")
                    handled.update(run)
                    i = j
                    continue
                if _whole_argument_of_union_safe(formula, i, j):
                    # Several areas: the engine knows no union, but these functions read each
                    # argument's cells alike, so the areas become their arguments.
                    edits.replace(i, j, ",".join(prefix + a.a1() for a in areas))
                    handled.update(run)
                    i = j
                    continue
        i += 1
    for k in range(1, len(tokens) - 1):
        if k not in handled and is_intersection(tokens[k - 1], tokens[k], tokens[k + 1]):
            # The engine's own intersection answers #VALUE! or 0 (`(OFFSET(...)) Hdr`, another
            # sheet's `Data!A:A Data!3:3`): listed, not guessed.
            raise NotComputed("an intersection of references (a space between them) the engine does not compute")
    return edits.text()


#: Functions over all their arguments' cells alike: SUM((A1,B2)) is SUM(A1,B2).
_UNION_SAFE = frozenset("SUM SUMSQ PRODUCT COUNT COUNTA AVERAGE AVERAGEA MIN MINA MAX MAXA".split())


def _whole_argument_of_union_safe(formula: Formula, start: int, end: int) -> bool:
    """Whether tokens [start, end) are one whole argument of a call to a _UNION_SAFE function."""
    call = formula.owner(start)
    if call is None or call.kind != "call" or call.name.split(".")[-1] not in _UNION_SAFE:
        return False
    first = start
    while first > call.open + 1 and formula.tokens[first - 1].is_space:
        first -= 1
    last = end
    while last < call.close and formula.tokens[last].is_space:
        last += 1
    edges = {call.open, *call.separators, call.close}
    return first - 1 in edges and last in edges


def _size(rows: bool, areas: list[Area]) -> str:
    """ROWS(...) or COLUMNS(...) of a reference expression as Excel gives it: #NULL! for no
    area (an empty intersection), #REF! for several (a union), else the count."""
    if not areas:
        return "#NULL!"
    if len(areas) > 1:
        return "#REF!"
    return str(areas[0].rows if rows else areas[0].columns)


#: Calls that evaluate their arguments as arrays in any formula (SUMPRODUCT, and our names
#: for it), and those that do not pass that on to their own arguments.
_ARRAY_EVALUATING = frozenset({"SUMPRODUCT", "RATESXL.SUMPRODUCT", "RATESXL.MISSHAPEN"})
#: Arguments Excel evaluates as arrays in any cell, by position: INDEX's array (pycel's
#: Excel-made excelcompiler.xlsx: `=INDEX(ROW(A1:A3),2)` is 2 in an ordinary cell; the
#: engine's ROW gave 1 and INDEX #REF!).
_ARRAY_ARGUMENT = {"INDEX": 0}
_NOT_PASSED_ON = frozenset({"IF", "IFS", "CHOOSE"})


def _array_evaluated(formula: Formula, index: int) -> bool:
    """Whether token `index` is read as an array where the formula itself is not an array
    formula: inside INDEX's array (`_ARRAY_ARGUMENT`) or SUMPRODUCT's arguments, which Excel evaluates as arrays (the non-array
    `=SUMPRODUCT(--(MOD(ROW(A1:A10),2)=0),A1:A10)` sums every other row; Gnumeric and
    LibreOffice do the same), but not under IF, which evaluates its condition as one value
    unless the formula is entered as an array."""
    around = sorted((g for g in formula.groups if g.kind == "call" and g.open < index
                     and (g.close > index or g.close < 0)), key=lambda g: g.open, reverse=True)
    for group in around:  # innermost first
        name = formula.tokens[group.open].text.upper().rstrip("(")
        if group.name in _NOT_PASSED_ON:
            return False
        if group.name in _ARRAY_EVALUATING or name in _ARRAY_EVALUATING:
            return True
        if group.name in _ARRAY_ARGUMENT:
            at = _ARRAY_ARGUMENT[group.name]
            return at < len(group.arguments) and group.arguments[at][0] <= index < group.arguments[at][1]
    return False


def _position(row: bool, area: Area | None, array: bool) -> str:
    """ROW(area) or COLUMN(area) as Excel gives it: #NULL! for no area; in an array formula
    every row (column) of the area; elsewhere the first."""
    if area is None:
        return "#NULL!"
    first, count = (area.top, area.rows) if row else (area.left, area.columns)
    if not array or count == 1:
        return str(first)
    return f"SEQUENCE({count},1,{first})" if row else f"SEQUENCE(1,{count},{first})"


def _matching(tokens: tuple[Token, ...], start: int) -> int | None:
    """The call's or parenthesis' closing token (array constants are not counted)."""
    depth = 0
    for k in range(start, len(tokens)):
        t = tokens[k]
        if t.opens and t.kind in (FUNC, PAREN):
            depth += 1
        elif t.closes and t.kind in (FUNC, PAREN):
            depth -= 1
            if depth == 0:
                return k
    return None


# -- spill references to what the engine computes cell by cell -------------------------------------


def spills_of_lifted(formula: Formula, site: Site) -> str:
    """A spill reference `A1#` (`ANCHORARRAY(A1)`) to a dynamic array the engine computes cell
    by cell over its stored range (lifted, calc/formula/fit.py) reads that range: such an
    anchor no longer spills in the engine's copy, where `A1#` is #REF! (formulas_test.xlsx
    CORE!AD4, `=ANCHORARRAY(AC4)+3` over `{=AB4:AB5+1}`)."""
    from rates_xl.functions.sheet import split_reference
    from rates_xl.functions.tokens import POSTFIX

    lifted = site.book.lifted
    tokens = formula.tokens
    edits = formula.edits()
    for index, token in enumerate(tokens[:-1]):
        following = tokens[index + 1]
        if not (token.is_range and following.kind == POSTFIX and following.text == "#"):
            continue
        prefix, ref = split_reference(token.text)
        if "[" in prefix or not is_cell(ref):
            continue
        target = unquote_sheet(prefix[:-1]) if prefix else site.sheet
        area = lifted.get((target, ref.replace("$", "").upper()))
        if area is not None:
            edits.replace(index, index + 2, f"{prefix}{area}")
    return edits.text()


# -- defined names ---------------------------------------------------------------------------------


def name_operators(text: str) -> str:
    """A defined name's text with its reference operators resolved where every reference is on
    one sheet (formulas_test.xlsx's `h`: `CORE!$K$4:$K$6 CORE!$J$5:$L$5` is CORE!K5; the
    engine answered #VALUE! for `=h` and #NAME? for the names built on it); unchanged
    otherwise. The name's references are absolute (the engine reads a relative one in a name
    as #NAME?)."""
    from rates_xl.calc.formula.calls import qualify

    if not isinstance(text, str) or " " not in text.strip():
        return text  # no intersection: nothing here to resolve
    prefixes = {t.text.rpartition("!")[0] + "!" for t in Formula("=" + text).tokens if t.is_range and "!" in t.text}
    if len(prefixes) != 1:
        return text
    prefix = prefixes.pop()
    bare = "=" + text.replace(prefix, "")
    out = reference_operators(Formula(bare))
    if out == bare:
        return text
    absolute = Formula(out)
    edits = absolute.edits()
    for index, token in enumerate(absolute.tokens):
        if token.is_range and "!" not in token.text and corners(token):
            edits.replace(index, index + 1, ":".join(_absolute(p) for p in token.text.split(":")))
    return qualify(Formula(edits.text()), unquote_sheet(prefix[:-1]))[1:]


def _absolute(cell: str) -> str:
    row, col = parse_cell(cell)
    return f"${column_letters(col)}${row}"


# -- the range operator over defined names ---------------------------------------------------------

#: A defined name's syntax (a letter, `_` or `\` first; letters, digits, `_`, `.` and `\` after).
_NAME = re.compile(r"[A-Za-z_\\][\w.\\]*$")
#: A word beside a range operator: before it (not after a sheet's `!`), or after it.
_NAME_BESIDE_COLON = re.compile(r"(?:^|[^\w.$!\\'\]])([A-Za-z_\\][\w.\\]*)\s*(?=:)|:\s*([A-Za-z_\\][\w.\\]*)(?![\w.(!\\])")


def may_join_names(formula: Formula, _site: object = None) -> bool:
    """A range operator with a word beside it that is no reference (`Start:End`, `A1:Block`):
    the cheap test, on the text (most formulas with a colon join two cells)."""
    for found in _NAME_BESIDE_COLON.finditer(formula.text):
        if read_area(found.group(1) or found.group(2), whole_lines=False) is None:
            return True
    return False


def named_range_operands(formula: Formula, site: Site) -> str:
    """The range operator over defined names standing for ranges (`SUM(Start:Finish)`, `A1:Block`,
    formulas_test.xlsx CORE!D9's `B2:E5:f`) is the smallest range holding them all, as over
    plain ranges: written so where every part is on one sheet. The engine read such a name as
    #VALUE! (`SUM(Start:Finish)`), a circular reference (`SUM(A1:Block)`) or one cell
    (`ROWS(Start:Finish)` 1, silently); tests/calc/test_named_ranges.py."""
    tokens = formula.tokens
    edits = formula.edits()
    i = 0
    while i < len(tokens):
        end = i
        while end + 2 < len(tokens) and tokens[end + 1].kind == INFIX and tokens[end + 1].text == ":" \
                and tokens[end + 2].is_range:
            end += 2
        if tokens[i].is_range and (end > i or ":" in tokens[i].text):
            joined = _joined([tokens[k].text for k in range(i, end + 1, 2)], site)
            if joined is not None:
                edits.replace(i, end + 1, joined)
        i = end + 1
    return edits.text()


def _joined(operands: list[str], site: Site) -> str | None:
    """The one range a chain of range operands joined by `:` covers, or None (no name among
    them, a part that is no reference, parts on more than one sheet)."""
    sheets, areas, named = set(), [], False
    for operand in operands:
        prefix, ref = split_reference(operand)
        parts = ref.split(":")
        for part in parts if not prefix or len(parts) == 1 else [ref]:
            area = read_area(part, whole_lines=False)
            if area is not None:
                sheets.add(unquote_sheet(prefix[:-1]) if prefix else site.sheet)
                areas.append(area)
                continue
            if prefix or not _NAME.match(part):
                return None
            target = site.book.name_range(site.sheet, part)
            if target is None:
                return None
            where, text = split_reference(target)
            area = read_area(text, whole_lines=False)
            if area is None:
                return None
            sheets.add(unquote_sheet(where[:-1]) if where else site.sheet)
            areas.append(area)
            named = True
    if not named or len(sheets) != 1:
        return None
    sheet = sheets.pop()
    box = Area(min(a.top for a in areas), min(a.left for a in areas),
               max(a.bottom for a in areas), max(a.right for a in areas))
    prefix = "" if sheet == site.sheet else quote_sheet(sheet) + "!"
    return prefix + box.a1(absolute=True)
