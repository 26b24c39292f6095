"""The engine's copy of a GROUPBY or PIVOTBY formula (calc/xlfuncs/groupby.py computes them):
the function argument as text the callback can take, and why a call is not computed.

The function argument is eta-reduced in the file (`_xleta.SUM`), a name formualizer cannot
evaluate: `rewrite` turns it into its text ("SUM"). A LAMBDA that reads nothing but its
parameter becomes its text too ("=_xlfn.LAMBDA(_xlpm.x,SUM(_xlpm.x)/2)"); any other function
argument (a LAMBDA reading cells, `_xleta.IF`, a cell) is listed not computed.
"""

from __future__ import annotations

import re
from typing import Any

from rates_xl.calc.xlfuncs.aggregations import AGGREGATIONS, is_lambda

_ETA = re.compile(r"(?<![\w.])_xleta\.([A-Za-z][\w.]*)", re.IGNORECASE)


def rewrite(formula: str) -> str:
    """`GROUPBY(a, b, _xleta.SUM)` -> `GROUPBY(a, b, "SUM")`, and a LAMBDA that reads nothing
    but its parameter -> its text (`"=_xlfn.LAMBDA(_xlpm.x,SUM(_xlpm.x)/2)"`), which the
    callback applies to each group through `lambdas.evaluate`; only inside GROUPBY/PIVOTBY."""
    upper = formula.upper()
    if "GROUPBY(" not in upper and "PIVOTBY(" not in upper:
        return formula
    formula = _lambdas_as_text(formula)
    # Outside string literals only (a LAMBDA family call inside is already text there).
    pieces = re.split(r'("(?:[^"]|"")*")', formula)
    return "".join(p if p.startswith('"') else _ETA.sub(lambda m: f'"{m.group(1).upper()}"', p)
                   for p in pieces)


def _lambdas_as_text(formula: str) -> str:
    from rates_xl.calc.xlfuncs.lambdas import _bare, _is_parameter, _kind, _matching, _tokens

    tokens = _tokens(formula)
    if tokens is None:
        return formula
    spans = []
    for i, token in enumerate(tokens):
        if _kind(token) != ("Func", "Open") or _bare(token.value) != "LAMBDA":
            continue
        close = _matching(tokens, i)
        if close is None or not _function_argument_of_groupby(tokens, i):
            continue
        if close + 1 < len(tokens) and _kind(tokens[close + 1]) == ("Paren", "Open"):
            continue  # called in place: not a function argument
        inner = tokens[i + 1:close]
        if any(_kind(t) == ("Operand", "Range") and not _is_parameter(t.value) for t in inner):
            continue  # it reads cells: left as it is, and listed (`not_computed`)
        spans.append((token.start, tokens[close].end))
    for start, end in reversed(spans):
        text = "=" + formula[start:end]
        formula = formula[:start] + '"' + text.replace('"', '""') + '"' + formula[end:]
    return formula


def _function_argument_of_groupby(tokens: list[Any], index: int) -> bool:
    """Whether the call opened at tokens[index] is the function argument of a GROUPBY
    (third) or PIVOTBY (fourth) call directly enclosing it."""
    from rates_xl.calc.xlfuncs.lambdas import _bare, _kind

    depth, position = 0, 0
    for j in range(index - 1, -1, -1):
        kind, sub = _kind(tokens[j])
        if kind in ("Func", "Paren", "Array") and sub == "Close":
            depth += 1
        elif kind in ("Func", "Paren", "Array") and sub == "Open":
            if depth == 0:
                name = _bare(tokens[j].value) if kind == "Func" else ""
                return (name, position) in (("GROUPBY", 2), ("PIVOTBY", 3))
            depth -= 1
        elif depth == 0 and kind == "Sep" and sub == "Arg":
            position += 1
    return False


def not_computed(formula: str) -> str | None:
    """Why a GROUPBY or PIVOTBY call in the engine's copy of `formula` is not computed: its
    function argument is not one of `AGGREGATIONS` written eta-reduced or a LAMBDA reading
    nothing but its parameter (a reference, `_xleta.IF` ...), or it asks for generated
    headers. None when every call is computed."""
    upper = formula.upper()
    if "GROUPBY(" not in upper and "PIVOTBY(" not in upper:
        return None
    from rates_xl.calc.xlfuncs.lambdas import _arguments, _bare, _kind, _matching, _tokens

    tokens = _tokens(formula)
    if tokens is None:
        return None  # unreadable: the analysis says so
    for i, token in enumerate(tokens):
        if _kind(token) != ("Func", "Open"):
            continue
        name = _bare(token.value)
        if name not in ("GROUPBY", "PIVOTBY"):
            continue
        close = _matching(tokens, i)
        arguments = _arguments(formula, tokens, i, close) if close is not None else []
        position = 2 if name == "GROUPBY" else 3
        given = arguments[position] if len(arguments) > position else ""
        literal = given[1:-1] if given.startswith('"') and given.endswith('"') else None
        known = literal is not None and (literal in (*AGGREGATIONS, "PERCENTOF") or is_lambda(literal))
        if not known:
            return (f"{name}'s function argument {given or '(none)'} is not computed (only "
                    f"eta-reduced {', '.join(AGGREGATIONS)}, PERCENTOF, or a LAMBDA reading "
                    "nothing but its parameter)")
        headers = arguments[position + 1] if len(arguments) > position + 1 else ""
        if headers.strip() == "2":
            # Headers Excel generates: their wording is not in the corpus to check ours against.
            return f"{name} with field_headers 2 (generated headers) is not computed"
    return None
