"""INDIRECT over a list of texts, the "3-D SUMIF" of consolidation books:
`SUMPRODUCT(SUMIF(INDIRECT("'"&Sheets&"'!A:A"),"x",INDIRECT("'"&Sheets&"'!B:B")))`, Sheets a
column of sheet names, adds up each sheet's SUMIF.

In Excel the text is an array (one per name), INDIRECT of it an array of references, and SUMIF
(COUNTIF and the rest of the family) is computed once per reference, giving an array of the
list's shape, which SUMPRODUCT adds up (Exceljet's "3D SUMIF for multiple worksheets";
Microsoft's SUMPRODUCT evaluates its arguments as arrays). formualizer's INDIRECT takes one text:
such a cell was listed, not computed. N, T and SUBTOTAL are computed once per reference likewise
(`SUMPRODUCT(N(INDIRECT("'"&Sheets&"'!B2")))`, B2 of each sheet). The pass `indirect_lists` writes the call once per cell of
the list, `VSTACK(SUMIF(INDIRECT("'"&B1&"'!A:A"),...),SUMIF(INDIRECT("'"&B2&"'!A:A"),...),...)`
(HSTACK for a row), which is the same array.

Only inside SUMPRODUCT or an array formula: elsewhere, a legacy ordinary cell intersects the list
with its row (one name), which no Excel-made cell here shows; such a cell stays listed.
"""

from __future__ import annotations

from rates_xl.calc.formula.error_ranges import range_positions
from rates_xl.calc.formula.site import Site
from rates_xl.calc.formula.tree import Formula, Group
from rates_xl.functions.sheet import Area, cell_address, read_area, split_reference
from rates_xl.functions.tokens import ARRAY

#: The longest list written out (one call per name: a list is a few sheets or months).
_MOST = 200
#: The functions computed once per reference of an array of them: the COUNTIF family (their
#: ranges: calc/formula/error_ranges.py), N and T (the `SUMPRODUCT(N(INDIRECT(...)))` of a cell
#: on each sheet), SUBTOTAL (its references).
_FAMILY = frozenset({"COUNTIF", "SUMIF", "AVERAGEIF", "COUNTIFS", "SUMIFS", "AVERAGEIFS", "MAXIFS", "MINIFS"})
_OTHERS = {"N": (0,), "T": (0,), "SUBTOTAL": tuple(range(1, 255))}


def may_list(formula: Formula, site: Site) -> bool:
    """The trigger: INDIRECT in an array formula or with SUMPRODUCT, and a range (a colon)."""
    upper = formula.upper
    return ":" in upper and (site.array or "SUMPRODUCT(" in upper)


def indirect_lists(formula: Formula, site: Site) -> str:
    """COUNTIF, SUMIF and their family given INDIRECT of a text joined to a list of cells, within
    SUMPRODUCT or an array formula: one call per cell of the list (the module's docstring;
    tests/calc/test_indirect_lists.py)."""
    edits = formula.edits()
    done: list[tuple[int, int]] = []
    for call in formula.calls():
        if call.close < 0 or any(a < call.open < b for a, b in done) or not (site.array or _in_sumproduct(call)):
            continue
        found = _list_of(formula, call)
        if found is None:
            continue
        indexes, area = found
        texts = []
        for row, column in area.cells():
            written = formula.span_text((call.open, call.close + 1),
                                        {k: _cell(formula.tokens[k].text, row, column) for k in indexes})
            texts.append(written)
        stack = "_xlfn.VSTACK(" if area.columns == 1 else "_xlfn.HSTACK("
        edits.replace(call.open, call.close + 1, stack + ",".join(texts) + ")")
        done.append((call.open, call.close))
    return edits.text()


def _in_sumproduct(call: Group) -> bool:
    parent = call.parent
    while parent is not None:
        if parent.kind == "call" and parent.name in ("SUMPRODUCT", "RATESXL.SUMPRODUCT"):  # (calls.py's SUMPRODUCT)
            return True
        parent = parent.parent
    return False


def _list_of(formula: Formula, call: Group) -> tuple[list[int], Area] | None:
    """The tokens of the one list a call's INDIRECT texts are joined to, and its area; None
    when the call is not one to write out (a range argument not INDIRECT of such a text, or
    another range or array among its arguments)."""
    positions = range_positions(call.name, len(call.arguments)) if call.name in _FAMILY else \
        [p for p in _OTHERS.get(call.name, ()) if p < len(call.arguments)]
    if not positions:
        return None
    tokens = formula.tokens
    indexes: list[int] = []
    areas: set[Area] = set()
    for position, (first, last) in enumerate(call.arguments):
        inner = formula.group_at(first) if first < last and tokens[first].is_call else None
        indirect = inner is not None and inner.name == "INDIRECT" and inner.close == last - 1 and \
            position in positions and len(inner.arguments) == 1
        for k in range(first, last):
            token = tokens[k]
            if token.opens and token.kind == ARRAY:
                return None  # an array constant: Excel pairs it with the list, not written here
            if not token.is_range:
                continue
            prefix, ref = split_reference(token.text)
            area = read_area(ref, whole_lines=False)
            if area is None or area.is_cell:
                continue  # a cell, a whole column, a name: one reference each time
            inside = indirect and inner is not None and inner.arguments[0][0] <= k < inner.arguments[0][1]
            if not inside or prefix or (area.rows != 1 and area.columns != 1):
                return None  # another range read with the list, or a list on another sheet or of two dimensions
            indexes.append(k)
            areas.add(area)
    if len(areas) != 1:
        return None
    area = areas.pop()
    return (indexes, area) if area.rows * area.columns <= _MOST else None


def _cell(text: str, row: int, column: int) -> str:
    """The list's cell at (row, column), written with the list's first corner's `$` signs."""
    corner = text.split(":")[0]
    column_fixed, row_fixed = corner.startswith("$"), "$" in corner[1:]
    address = cell_address(row, column)
    letters = address.rstrip("0123456789")
    return ("$" if column_fixed else "") + letters + ("$" if row_fixed else "") + address[len(letters):]
