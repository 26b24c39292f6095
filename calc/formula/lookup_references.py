"""XLOOKUP's answer as a reference: one end of a range built with ':', or where a function
takes a reference (ROW, COLUMN, OFFSET, CELL, ISREF).

Excel's XLOOKUP answers a reference where its return array is one, so
`SUM(XLOOKUP(B3,B6:B10,E6:E10):XLOOKUP(C3,B6:B10,E6:E10))` adds the cells between the two it
finds (Microsoft's XLOOKUP page, example 6: "XLOOKUP ... to return a range ... sum"), and
`ROW(XLOOKUP(8,B6:B10,E6:E10))` is the row of the cell found, `OFFSET(XLOOKUP(...),1,0)` the
cell below it, `ISREF(XLOOKUP(...))` TRUE. The engine's XLOOKUP answers a value, so each of
these was #REF!, #VALUE! or FALSE, silently. INDEX with XMATCH answers the same cell as a
reference, which the engine reads as one (and builds a range from: the pass `built_ranges`
after this one): for a lookup array down a column, `INDEX(return,XMATCH(value,lookup,
match_mode,search_mode),0)`, the row of the return array; across a row,
`INDEX(return,0,XMATCH(...))`, its column. XMATCH's match and search modes are XLOOKUP's, with
the same defaults (exact, first to last). Where XLOOKUP's value is read (SUM, COUNTIF, MATCH
of it), the engine's reading is already Excel's: left as written.

Not written, so listed (the cell keeps its cached value, `NotComputed`): an XLOOKUP given
`if_not_found` (its answer where nothing matches is that value, not a reference: no INDEX
answers it), and one whose lookup array is not a range written in the formula (its direction
unknown, or two-dimensional, which XLOOKUP refuses).

LET, SWITCH, IFERROR and IFNA in those places are listed too: the engine answers them as a value
there (`ROW(LET(x,E8,x))`, `SUM(E6:SWITCH(1,1,E8))` #REF!, `ISREF(IFERROR(E8,1))` FALSE), and
whether Excel answers the reference their argument is, or an error, is not known here.
"""

from __future__ import annotations

from rates_xl.calc.formula.ranges import operand_after, operand_before
from rates_xl.calc.formula.site import NotComputed, Site
from rates_xl.calc.formula.tree import Formula, Group, Span
from rates_xl.calc.xlfuncs.omitted import OMITTED
from rates_xl.functions.sheet import Area, read_area
from rates_xl.functions.tokens import INFIX

NEEDS = ("XLOOKUP(", "LET(", "SWITCH(", "IFERROR(", "IFNA(")
#: Calls whose answer taken as a reference is not known here (listed: the module's docstring).
_UNKNOWN_AS_REFERENCE = frozenset({"LET", "SWITCH", "IFERROR", "IFNA"})
#: The functions -> the positions where they take a reference (a value there is an error).
_TAKING_REFERENCES = {"ROW": 0, "COLUMN": 0, "OFFSET": 0, "CELL": 1, "ISREF": 0}


def may_build(text: str) -> bool:
    """The pass' trigger: a call beside a ':' or given to a function taking a reference."""
    compact = text.replace(" ", "").upper()
    return "):" in compact or any(f":{name}(" in compact or f":_XLFN.{name}(" in compact
                                  for name in ("XLOOKUP", *_UNKNOWN_AS_REFERENCE)) \
        or any(f"{name}(" in compact for name in _TAKING_REFERENCES)


def lookup_references(formula: Formula, _site: Site) -> str:
    """An XLOOKUP on either side of ':', or given where ROW, COLUMN, OFFSET, CELL or ISREF
    takes a reference, is written as INDEX over XMATCH, which answers the reference XLOOKUP
    does in Excel (the module's docstring; tests/calc/test_lookup_references.py). LET, SWITCH,
    IFERROR or IFNA there: NotComputed."""
    taken: list[Group] = []  # the calls whose answer is taken as a reference
    for index, token in enumerate(formula.tokens):
        if token.kind == INFIX and token.text == ":":
            for operand in (operand_before(formula, index), operand_after(formula, index)):
                group = None if operand is None else formula.group_at(operand[0])
                if group is not None:
                    taken.append(group)
    for group in formula.groups:
        parent = group.parent
        if parent is not None and parent.kind == "call" and _TAKING_REFERENCES.get(parent.name) == group.position \
                and formula.trimmed(parent.arguments[group.position]) == (group.open, group.close + 1):
            taken.append(group)
    chosen: dict[int, Group] = {}
    for group in taken:
        if group.kind != "call":
            continue
        if group.name in _UNKNOWN_AS_REFERENCE:
            raise NotComputed(f"{group.name}'s answer taken as a reference (beside ':', or given to ROW, COLUMN, "
                              "OFFSET, CELL or ISREF): Excel's reading of it is not known here")
        if group.name == "XLOOKUP":
            chosen[group.open] = group
    edits = formula.edits()
    for group in chosen.values():
        if not group.within(chosen):  # an outer one is written with its text (and refused)
            edits.replace(group.open, group.close + 1, _as_index(formula, group))
    return edits.text()


def _as_index(formula: Formula, call: Group) -> str:
    texts = [formula.span_text(span).strip() for span in call.arguments]
    given = [None if text in ("", f'"{OMITTED}"') else text for text in texts]
    given += [None] * (6 - len(given))
    value, lookup, answers, if_not_found, match_mode, search_mode = given[:6]
    if value is None or lookup is None or answers is None:
        raise NotComputed("XLOOKUP as a reference is missing an argument")
    if if_not_found is not None:
        raise NotComputed("XLOOKUP with if_not_found as a reference (its answer may be a value, not a reference)")
    area = _area(formula, call.arguments[1])
    if area is None or (area.rows > 1 and area.columns > 1):
        raise NotComputed("XLOOKUP as a reference over a lookup array that is not one row or column written in the formula")
    match = f"_xlfn.XMATCH({value},{lookup},{match_mode or 0},{search_mode or 1})"
    across = area.rows == 1 and area.columns > 1
    return f"INDEX({answers},0,{match})" if across else f"INDEX({answers},{match},0)"


def _area(formula: Formula, span: Span) -> Area | None:
    """The block a lookup array written as one range covers (its sheet aside)."""
    token = formula.single(span)
    if token is None or not token.is_range:
        return None
    return read_area(token.text.rsplit("!", 1)[-1])
