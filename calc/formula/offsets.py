"""OFFSET given a negative height or width, as Excel answers it: the range reaches up (or left)
from the cell the offset lands on, `OFFSET(T5,0,0,-3,1)` being T3:T5.

Microsoft's page says the height and width must be positive; Excel has taken negative ones
since the early 1990s (Exceljet's OFFSET page: "negative values appear to have worked fine"),
IronCalc's OFFSET says so in its source ("Excel documentation says that negative values of
width and height are not valid but in practice they are valid") and Apache POI's OFFSET,
written against Excel, reads a height of -4 from row 6 as rows 3 to 6 (`LinearOffsetRange
.normaliseAndTranslate`). formualizer answers #REF!, a wrong value in any sum over it: the
pass `negative_sizes` writes such a call the way round the engine reads it.
"""

from __future__ import annotations

import math

from rates_xl.calc.formula.site import Site
from rates_xl.calc.formula.tree import Formula, Group, Span

#: A height or width answered by one call of these is never below 0: left as written (the
#: dynamic range's `OFFSET($A$1,0,0,COUNTA($A:$A),1)` is not made to count its column thrice).
_NEVER_NEGATIVE = frozenset({"ABS", "AREAS", "COLUMN", "COLUMNS", "COUNT", "COUNTA", "COUNTBLANK",
                             "COUNTIF", "COUNTIFS", "LEN", "MATCH", "ROW", "ROWS", "XMATCH"})


def negative_sizes(formula: Formula, _site: Site) -> str:
    """OFFSET with a negative height or width (`SUM(OFFSET(C14,0,0,-12,1))`, the twelve months
    to C14), as Excel reads it (above; tests/calc/test_offsets.py): the range ends at the cell
    the offset lands on, |height| rows tall (width: columns, to the left), the size truncated
    toward 0 as Excel truncates its other arguments (IronCalc's ROW_COLUM.xlsx, made by Excel:
    OFFSET!K37, `OFFSET(K33,-2.3,-2.8)`, is K33's -2, -2 cell). A size written as a negative
    number is written the other way round (`OFFSET(C14,-11,0,12,1)`); one computed in the cell
    is tested there (`OFFSET(C14,IF((h)<0,TRUNC(0)+TRUNC((h))+1,0),0,IF((h)<0,-TRUNC((h)),...),1)`),
    a positive one reaching the engine as written. A size between 0 and 1 is one cell in Excel
    (ROW_COLUM.xlsx OFFSET!K48, `SUM(OFFSET(W39,2,2,3,0.9))`, is 50, the one column's sum; IronCalc
    rounds it up), 0 cells (#REF!) in the engine: written 1."""
    tokens = formula.tokens
    if not tokens:
        return formula.text
    chosen = {call.open: call for call in formula.calls("OFFSET") if call.close >= 0 and _turns(formula, call)}
    if not chosen:
        return formula.text
    edits = formula.edits()
    for call in chosen.values():
        if not call.within(chosen):
            edits.replace(call.open, call.close + 1, _written(formula, call, chosen))
    return edits.text()


_KEPT, _NEGATIVE, _FRACTION, _COMPUTED = "kept", "negative", "fraction", "computed"


def _turns(formula: Formula, call: Group) -> bool:
    """Whether a call's height or width may be negative or below 1."""
    return any(_size(formula, call.arguments[k]) != _KEPT for k in (3, 4) if k < len(call.arguments))


def _size(formula: Formula, span: Span) -> str:
    """What a height or width is: _KEPT (none, 0, a number from 1, a never-negative call),
    _NEGATIVE (a negative number), _FRACTION (a number between 0 and 1) or _COMPUTED."""
    value = formula.number(span)
    if value is not None:
        return _NEGATIVE if value < 0 else _FRACTION if 0 < value < 1 else _KEPT
    solid = formula.solid(span)
    if not solid:
        return _KEPT
    first = formula.group_at(span[0]) if solid[0].is_call else None
    whole_call = first is not None and first.close == span[1] - 1 and first.name in _NEVER_NEGATIVE
    return _KEPT if whole_call else _COMPUTED


def _text(formula: Formula, span: Span, chosen: dict[int, Group]) -> str:
    """A span's text with the calls being written inside it written so."""
    first, last = span
    if first >= last:
        return ""
    tokens, text = formula.tokens, formula.text
    out, at = [], tokens[first].start
    for index in range(first, last):
        call = chosen.get(index)
        if call is None or call.close >= last or _within_span(call, first, chosen):
            continue
        out += [text[at:tokens[index].start], _written(formula, call, chosen)]
        at = tokens[call.close].end
    return "".join(out) + text[at:tokens[last - 1].end]


def _within_span(call: Group, first: int, chosen: dict[int, Group]) -> bool:
    """Whether a call being written sits inside another one that starts in the span."""
    parent = call.parent
    while parent is not None and parent.open >= first:
        if parent.open in chosen:
            return True
        parent = parent.parent
    return False


def _written(formula: Formula, call: Group, chosen: dict[int, Group]) -> str:
    """One OFFSET call with its sizes the engine's way round."""
    texts = [_text(formula, span, chosen) for span in call.arguments]
    for size, offset in ((3, 1), (4, 2)):
        if size >= len(texts) or offset >= len(texts):
            continue
        kind = _size(formula, call.arguments[size])
        if kind == _NEGATIVE:
            texts[offset], texts[size] = _turned(formula, call.arguments[offset], texts[offset],
                                                 formula.number(call.arguments[size]) or 0.0, texts[size])
        elif kind == _FRACTION:
            texts[size] = "1"
        elif kind == _COMPUTED:
            moved, h = texts[offset] or "0", f"({texts[size]})"
            texts[offset] = f"IF({h}<0,TRUNC({moved})+TRUNC({h})+1,{moved})"
            texts[size] = f"IF({h}<0,-TRUNC({h}),IF({h}<1,ROUNDUP({h},0),{texts[size]}))"
    return formula.tokens[call.open].text + ",".join(texts) + ")"


def _turned(formula: Formula, offset_span: Span, offset: str, size: float, written: str) -> tuple[str, str]:
    """A negative size written as a number: (the offset, the size) reaching the same cells
    downward. A size truncated to 0 is left as written (the engine's #REF!, as Excel's)."""
    cells = math.trunc(-size)
    if cells == 0:
        return offset, written
    back = cells - 1
    if back == 0:
        return offset, str(cells)
    number = formula.number(offset_span)
    if number is not None or not offset:
        return str(math.trunc(number or 0.0) - back), str(cells)
    return f"TRUNC({offset})-{back}", str(cells)
