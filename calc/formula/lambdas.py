"""Passes for the functions that take a function: the LAMBDA family (MAP, BYROW, BYCOL, SCAN,
REDUCE, MAKEARRAY, a LAMBDA called in place) and GROUPBY/PIVOTBY's function argument.

formualizer 0.13 computes LET but not LAMBDA: every function that takes one answers #NAME?,
and a Python function registered with it cannot receive a function. A LAMBDA left after these
passes (kept in a LET, stored in a defined name) is not computed: the cell is listed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from rates_xl.calc.formula.site import NotComputed
from rates_xl.calc.formula.tree import Formula, Group, Span
from rates_xl.calc.xlfuncs.logical.lambdas import CALLBACK, TAKING_LAMBDA, placeholder
from rates_xl.calc.xlfuncs.lookup.aggregations import AGGREGATIONS, is_lambda
from rates_xl.functions.sheet import cell_reference
from rates_xl.functions.tokens import (
    INFIX,
    OPERAND,
    PAREN,
    PREFIX,
    RANGE,
    WHITESPACE,
    Token,
    function_names,
)

if TYPE_CHECKING:
    from openpyxl import Workbook

    from rates_xl.calc.formula.site import Site

_MENTIONS = re.compile(r"LAMBDA|(?:" + "|".join(sorted(TAKING_LAMBDA)) + r")\s*\(", re.IGNORECASE)
#: Words one of which a formula calling the family holds (the passes' first test).
TAKING_WORDS = ("LAMBDA", *sorted(TAKING_LAMBDA))


def named_lambdas(formula: Formula, site: Site) -> str:
    """A call of a defined name that stands for a LAMBDA (`=Temperature(A5)`, the name
    `Temperature` = `LAMBDA(temp, (5/9)*(temp-32))`: Excel's own functions written in Name
    Manager) is that LAMBDA called where it is written, `LAMBDA(temp, ...)(A5)`, which `lambdas`
    then makes a LET (IronCalc's Excel-made LOGICAL__LAMBDA.xlsx, B5 to B8 and F2; it was listed,
    "calls TEMPERATURE, which the engine does not know"). A name called inside the LAMBDA is
    written out too, `_NESTED` deep at most: one calling itself (a recursive LAMBDA) is not
    computed, and the cell listed (tests/calc/test_named_lambdas.py)."""
    names = site.book.lambda_names
    for _ in range(_NESTED):
        edits = formula.edits()
        called = False
        for index, token in enumerate(formula.tokens):
            if token.is_call and (body := names.get(token.text[:-1].strip().upper())) is not None:
                edits.replace(index, index + 1, f"{body}(")
                called = True
        if not called:
            return formula.text
        formula = Formula(edits.text())
    raise NotComputed("calls a LAMBDA name that calls itself (a recursive LAMBDA)")


_NESTED = 8  # names written out inside names, at most


def may_call_named_lambda(formula: Formula, site: Site) -> bool:
    names = site.book.lambda_names
    return bool(names) and not names.keys().isdisjoint(function_names(formula.text))


def lambda_names(book: Workbook) -> dict[str, str]:
    """Upper-case name -> its text, of the workbook's defined names that stand for one LAMBDA
    (openpyxl's `book`)."""
    found = {}
    for name, defined in book.defined_names.items():
        text = defined.attr_text
        if not isinstance(text, str) or "LAMBDA" not in text.upper():
            continue
        read = Formula("=" + text.strip())
        groups = read.groups
        if read.error is None and groups and groups[0].kind == "call" and groups[0].name == "LAMBDA" \
                and not read.solid((0, groups[0].open)) and not read.solid((groups[0].close + 1, len(read.tokens))):
            found[str(name).upper()] = text.strip()
    return found


def may_take_lambda(text: str) -> bool:
    return _MENTIONS.search(text) is not None


def lambdas(formula: Formula, _site: object = None) -> str:
    """The LAMBDA family as Excel computes it, one call at a time from the left:

    - `LAMBDA(x, y, body)(1, 2)` (called where it is written) becomes `LET(x, 1, y, 2, body)`,
      what Excel's call means and formualizer computes itself;
    - a call of a function taking a LAMBDA (`MAP(C18:E19, LAMBDA(a, a^2))`, `BYROW(r,
      _xleta.SUM)`) becomes `RATESXL.LAMBDA("=MAP(RXL_REF_A, LAMBDA(a, a^2))", C18:E19)`: the
      engine computes every argument but the function, and every reference the LAMBDA's body
      reads, and hands their values to the callback (calc/xlfuncs/logical/lambdas.py, the `formulas`
      package's implementation), so what the call depends on stays a dependency of the cell.

    Proved by formulas_test.xlsx's LAMBDA cells (SCAN 48, MAKEARRAY 33, BYROW 30, BYCOL 15,
    REDUCE 15, MAP 11, LAMBDA 2: not computed before, equal to Excel's since)."""
    for _ in range(len(formula.text)):  # one rewriting at a time, until none is left
        changed = _once(formula)
        if changed is None:
            break
        formula = Formula(changed)
    return formula.text


def _once(formula: Formula) -> str | None:
    tokens = formula.tokens
    for call in formula.calls():
        if call.close < 0:
            return None  # unbalanced: the engine reports it
        if call.name == "LAMBDA":
            after = call.close + 1
            if after < len(tokens) and tokens[after].kind == PAREN and tokens[after].opens:
                given = formula.group_at(after)
                if given is None or given.close < 0:
                    return None
                return _lambda_as_let(formula, call, given)
            continue  # a LAMBDA given to a function: handled with that call
        if call.name in TAKING_LAMBDA:
            return _as_callback(formula, call)
    return None


def _texts(formula: Formula, group: Group) -> list[str]:
    return [formula.span_text(span) for span in group.arguments]


def _lambda_as_let(formula: Formula, definition: Group, call: Group) -> str | None:
    """`LAMBDA(x, y, body)(1, 2)` -> `LET(x, 1, y, 2, body)`; `LAMBDA(body)()` -> `(body)`."""
    texts = _texts(formula, definition)
    params, body = texts[:-1], texts[-1]
    given = _texts(formula, call)
    if given == [""]:
        given = []
    if len(given) != len(params) or not body:
        return None  # Excel: #VALUE! for a wrong count; left for the engine to refuse
    if params:
        pairs = ",".join(f"{p},{a}" for p, a in zip(params, given, strict=True))
        replacement = f"_xlfn.LET({pairs},{body})"
    else:
        replacement = f"({body})"
    edits = formula.edits()
    edits.replace(definition.open, call.close + 1, replacement)
    return edits.text()


def _as_callback(formula: Formula, call: Group) -> str:
    """The call as `RATESXL.LAMBDA("<its text with placeholders>", value1, value2 ...)`.

    Every argument but the function is computed by the engine and handed over (a range, an
    array constant, a RATES_* table: the engine calls the service and knows the dependency);
    the LAMBDA stays text, the references its body reads handed over too. Calls that differ
    only in what they are handed (a column of SCANs) share one text, so the `formulas`
    package compiles it once (a compilation costs 20-50 ms)."""
    handed: list[str] = []

    def hand(text: str) -> str:
        if text not in handed:
            handed.append(text)
        return placeholder(handed.index(text))

    texts = []
    for span in call.arguments:
        first, last = span
        if first == last or _is_function(formula, span):
            swaps = {j: hand(formula.tokens[j].text) for j in range(first, last)
                     if formula.tokens[j].is_range and not is_parameter(formula.tokens[j].text)}
            texts.append(formula.span_text(span, swaps))
        else:
            texts.append(hand(formula.span_text(span)))
    written = formula.tokens[call.open].text + ",".join(texts) + ")"
    quoted = written.replace('"', '""')
    arguments = "".join(f",{h}" for h in handed)
    edits = formula.edits()
    edits.replace(call.open, call.close + 1, f'{CALLBACK}("={quoted}"{arguments})')
    return edits.text()


def _is_function(formula: Formula, span: Span) -> bool:
    """Whether an argument is a function: a LAMBDA (`LAMBDA(x, x + 1)`, not called in place)
    or an eta-reduced name (`_xleta.SUM`)."""
    first, last = span
    token = formula.tokens[first]
    if token.is_call and token.name == "LAMBDA":
        group = formula.group_at(first)
        return group is not None and group.close == last - 1
    return last - first == 1 and token.text.lower().startswith("_xleta.")


def is_parameter(text: str) -> bool:
    """A LAMBDA's parameter (`_xlpm.x`) or an eta-reduced function (`_xleta.SUM`): not a
    reference. A parameter written without Excel's prefix (a hand-written book) is a short
    name that is neither a cell nor a range; a defined name read so only costs a "not
    computed" answer (#NAME? inside the callback), never a wrong number."""
    lowered = text.lower()
    if lowered.startswith(("_xlpm.", "_xleta.")):
        return True
    return "!" not in text and re.fullmatch(r"[A-Za-z_][\w.]*", text) is not None and cell_reference(text) is None


def let_names(formula: Formula, range_size: Callable[[str], int | None]) -> tuple[set[int], set[str]]:
    """For the hazards' reading (calc/formula/hazards.py): the token indices of the names LET
    declares (no ranges), and the names (upper case) bound to a single value: a literal, a
    one-cell reference, another such name, with operators between (`LET(x, 1, y, E10, x +
    y)`: x and y). A name bound to anything else (a range, a function's answer) stays an
    array of unknown size, so a formula using it where a single value is expected is not
    computed."""
    declared: set[int] = set()
    scalars: set[str] = set()
    arrays: set[str] = set()  # a name bound to a single value in one LET and not in another
    tokens = formula.tokens
    for call in formula.calls("LET"):
        if call.close < 0:
            continue
        spans = call.arguments
        for k in range(0, len(spans) - 1, 2):  # (name, value) pairs; the last is the result
            (n1, n2), (v1, v2) = spans[k], spans[k + 1]
            if n2 - n1 != 1:
                continue
            declared.add(n1)
            if v2 > v1 and all(_scalar_token(t, range_size, scalars) for t in tokens[v1:v2]):
                scalars.add(tokens[n1].text.upper())
            else:
                arrays.add(tokens[n1].text.upper())
    return declared, scalars - arrays


def _scalar_token(token: Token, range_size: Callable[[str], int | None], scalars: set[str]) -> bool:
    if token.kind == OPERAND and token.sub == RANGE:
        return token.text.upper() in scalars or range_size(token.text) == 1
    return token.kind in (OPERAND, INFIX, PREFIX, PAREN, WHITESPACE) and token.text != ":"


# -- GROUPBY and PIVOTBY -------------------------------------------------------------------------
_ETA = re.compile(r"_xleta\.([A-Za-z][\w.]*)", re.IGNORECASE)
_GROUPING = (("GROUPBY", 2), ("PIVOTBY", 3))  # the function argument's position


def may_group(text: str) -> bool:
    upper = text.upper()
    return "GROUPBY(" in upper or "PIVOTBY(" in upper


def grouping_function(formula: Formula, _site: object = None) -> str:
    """GROUPBY's and PIVOTBY's function argument as text the callback takes (calc/xlfuncs/
    groupby.py computes them): `GROUPBY(a, b, _xleta.SUM)` -> `GROUPBY(a, b, "SUM")` (an
    eta-reduced name is #NAME? to formualizer), and a LAMBDA reading nothing but its
    parameter -> its text (`"=_xlfn.LAMBDA(_xlpm.x,SUM(_xlpm.x)/2)"`), applied to each group
    through the LAMBDA callback. Any other function argument (a LAMBDA reading cells,
    `_xleta.IF`, a cell) is listed not computed (`grouping_not_computed`). Proved by
    formulas_test.xlsx's GROUPBY (272 cells) and PIVOTBY (571 of 588) cells."""
    edits = formula.edits()
    tokens = formula.tokens
    quoted: list[Group] = []
    for call in formula.calls("LAMBDA"):
        parent = call.parent
        if call.close < 0 or parent is None or parent.kind != "call" or (parent.name, call.position) not in _GROUPING:
            continue
        after = call.close + 1
        if after < len(tokens) and tokens[after].kind == PAREN and tokens[after].opens:
            continue  # called in place: not a function argument
        if any(t.is_range and not is_parameter(t.text) for t in tokens[call.open + 1:call.close]):
            continue  # it reads cells: left as it is, and listed
        text = "=" + formula.span_text((call.open, call.close + 1))
        edits.replace(call.open, call.close + 1, '"' + text.replace('"', '""') + '"')
        quoted.append(call)
    for index, token in enumerate(tokens):
        if token.is_range and (match := _ETA.match(token.text)) is not None and \
                not any(g.open < index < g.close for g in quoted):
            edits.replace(index, index + 1, f'"{match.group(1).upper()}"' + token.text[match.end():])
    return edits.text()


def grouping_not_computed(formula: Formula) -> str | None:
    """Why a GROUPBY or PIVOTBY call in the engine's copy of a formula is not computed: its
    function argument is not one of the aggregations written eta-reduced or a LAMBDA reading
    nothing but its parameter (a reference, `_xleta.IF` ...), or it asks for generated
    headers. None when every call is computed."""
    if not may_group(formula.text) or formula.error:
        return None
    for call in formula.calls("GROUPBY", "PIVOTBY"):
        arguments = _texts(formula, call) if call.close >= 0 else []
        position = 2 if call.name == "GROUPBY" else 3
        given = arguments[position] if len(arguments) > position else ""
        literal = given[1:-1] if given.startswith('"') and given.endswith('"') else None
        known = literal is not None and (literal in (*AGGREGATIONS, "PERCENTOF") or is_lambda(literal))
        if not known:
            return (f"{call.name}'s function argument {given or '(none)'} is not computed (only "
                    f"eta-reduced {', '.join(AGGREGATIONS)}, PERCENTOF, or a LAMBDA reading "
                    "nothing but its parameter)")
        headers = arguments[position + 1] if len(arguments) > position + 1 else ""
        if headers.strip() == "2":
            # Headers Excel generates: their wording is not in the corpus to check ours against.
            return f"{call.name} with field_headers 2 (generated headers) is not computed"
    return None

