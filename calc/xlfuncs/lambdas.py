"""The LAMBDA family (MAP, BYROW, BYCOL, SCAN, REDUCE, MAKEARRAY, LAMBDA called in place) as
Excel computes them, in the fast engine's copy of a formula.

formualizer 0.13 computes LET but not LAMBDA: every function that takes one answers #NAME?,
and a Python function registered with it cannot receive a function. Two rewritings of the
formula text, each documented here, make the engine compute them:

- `LAMBDA(x, y, body)(1, 2)` (a LAMBDA called where it is written) becomes
  `LET(x, 1, y, 2, body)`, which is what Excel's call means and formualizer computes itself;
- a call of a function taking a LAMBDA (`MAP(C18:E19, LAMBDA(a, a^2))`, `BYROW(r, _xleta.SUM)`)
  becomes `RATESXL.LAMBDA("=MAP(RXL_REF_A, LAMBDA(a, a^2))", C18:E19)`: the engine computes
  every argument but the function, and every reference the LAMBDA's body reads, and hands
  their values to the callback (so what the call depends on, a RATES_* table included, stays
  the engine's to compute and a dependency of the cell); the callback computes the call with
  the `formulas` package's implementation of these functions (measured equal to Excel's on
  the corpus; its MAP and SCAN corrected to keep each value's type, `_exact_map_and_scan`),
  compiled once per text. The callback's answer is an array, which spills. The first
  compilation imports all of `formulas`' functions (scipy included: 3-4 s on a quiet
  machine, paid once per process, and already paid by a book calling a bridged statistical
  function). What the LAMBDA's body calls is `formulas`' too: where that differs from Excel
  (COLUMNS of a LAMBDA's row answers #VALUE!), a book Excel calculated has the cell listed
  as stale by the check against its cached value; a book never calculated gets the error.

A LAMBDA left after the rewriting (kept in a LET, stored in a defined name) is not computed:
the cell is listed.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from rates_xl.functions.sheet import cell_reference

#: Functions that take a LAMBDA (or an eta-reduced function such as `_xleta.SUM`).
TAKING_LAMBDA = frozenset({"MAP", "BYROW", "BYCOL", "SCAN", "REDUCE", "MAKEARRAY"})

#: The callback's name in the engine's copy of a formula.
CALLBACK = "RATESXL.LAMBDA"

_PREFIXES = ("_XLFN._XLWS.", "_XLFN.", "_XLWS.")
_MENTIONS = re.compile(r"LAMBDA|(?:" + "|".join(sorted(TAKING_LAMBDA)) + r")\s*\(", re.IGNORECASE)


def _bare(text: str) -> str:
    name = text.rstrip("(").strip().upper()
    for prefix in _PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def rewrite(formula: str) -> str:
    """`formula` with LAMBDA calls written as LET and calls of the LAMBDA family as the
    callback (see the module's note); unchanged when it has neither."""
    if _MENTIONS.search(formula) is None:
        return formula
    for _ in range(len(formula)):  # one rewriting at a time, from the left, until none is left
        changed = _rewrite_once(formula)
        if changed is None:
            return formula
        formula = changed
    return formula


def _tokens(formula: str) -> list[Any] | None:
    import formualizer

    try:
        return list(formualizer.tokenize(formula))
    except Exception:  # noqa: BLE001 - unreadable: the engine reports it
        return None


def _kind(token: Any) -> tuple[str, str]:
    return str(token.token_type), str(token.subtype)


def _rewrite_once(formula: str) -> str | None:
    tokens = _tokens(formula)
    if tokens is None:
        return None
    for i, token in enumerate(tokens):
        kind, sub = _kind(token)
        if not (kind == "Func" and sub == "Open"):
            continue
        name = _bare(token.value)
        close = _matching(tokens, i)
        if close is None:
            return None
        if name == "LAMBDA":
            after = close + 1
            if after < len(tokens) and _kind(tokens[after]) == ("Paren", "Open"):
                end = _matching(tokens, after)
                if end is None:
                    return None
                return _lambda_as_let(formula, tokens, i, close, after, end)
            continue  # a LAMBDA given to a function: handled with that call
        if name in TAKING_LAMBDA:
            return _as_callback(formula, tokens, i, close)
    return None


def _matching(tokens: list[Any], start: int) -> int | None:
    depth = 0
    for j in range(start, len(tokens)):
        kind, sub = _kind(tokens[j])
        if kind in ("Func", "Paren") and sub == "Open":
            depth += 1
        elif kind in ("Func", "Paren") and sub == "Close":
            depth -= 1
            if depth == 0:
                return j
    return None


def _arguments(formula: str, tokens: list[Any], open_index: int, close_index: int) -> list[str]:
    """The text of each top-level argument between an opening and its closing token."""
    pieces, start, depth = [], tokens[open_index].end, 0
    for j in range(open_index + 1, close_index):
        kind, sub = _kind(tokens[j])
        if kind in ("Func", "Paren", "Array") and sub == "Open":
            depth += 1
        elif kind in ("Func", "Paren", "Array") and sub == "Close":
            depth -= 1
        elif depth == 0 and ((kind == "Sep" and sub == "Arg") or (kind == "OpInfix" and tokens[j].value == ",")):
            pieces.append(formula[start:tokens[j].start])
            start = tokens[j].end
    pieces.append(formula[start:tokens[close_index].start])
    return [p.strip() for p in pieces]


def let_names(tokens: list[Any], range_size: Any) -> tuple[set[int], set[str]]:
    """For calc/analysis.py: the token indices of the names LET declares (no ranges), and the
    names (upper case) bound to a single value: a literal, a one-cell reference, another such
    name, with operators between (`LET(x, 1, y, E10, x + y)`: x and y). A name bound to
    anything else (a range, a function's answer) stays an array of unknown size, so a formula
    using it where a single value is expected is not computed, as before."""
    declared: set[int] = set()
    scalars: set[str] = set()
    arrays: set[str] = set()  # a name bound to a single value in one LET and not in another
    for i, token in enumerate(tokens):
        if _kind(token) != ("Func", "Open") or _bare(token.value) != "LET":
            continue
        close = _matching(tokens, i)
        if close is None:
            continue
        spans = _argument_tokens(tokens, i, close)
        for k in range(0, len(spans) - 1, 2):  # (name, value) pairs; the last is the result
            (n1, n2), (v1, v2) = spans[k], spans[k + 1]
            if n2 - n1 != 1:
                continue
            declared.add(n1)
            if v2 > v1 and all(_scalar_token(t, range_size, scalars) for t in tokens[v1:v2]):
                scalars.add(tokens[n1].value.upper())
            else:
                arrays.add(tokens[n1].value.upper())
    return declared, scalars - arrays


def _scalar_token(token: Any, range_size: Any, scalars: set[str]) -> bool:
    kind, sub = _kind(token)
    if kind == "Operand" and sub == "Range":
        return token.value.upper() in scalars or range_size(token.value) == 1
    return kind in ("Operand", "OpInfix", "OpPrefix", "Paren", "Whitespace") and token.value != ":"


def _lambda_as_let(formula: str, tokens: list[Any], open_index: int, close_index: int,
                   call_open: int, call_close: int) -> str | None:
    """`LAMBDA(x, y, body)(1, 2)` -> `LET(x, 1, y, 2, body)`; `LAMBDA(body)()` -> `(body)`."""
    definition = _arguments(formula, tokens, open_index, close_index)
    given = _arguments(formula, tokens, call_open, call_close)
    params, body = definition[:-1], definition[-1]
    if given == [""]:
        given = []
    if len(given) != len(params) or not body:
        return None  # Excel: #VALUE! for a wrong count; left for the engine to refuse
    if params:
        pairs = ",".join(f"{p},{a}" for p, a in zip(params, given, strict=True))
        replacement = f"_xlfn.LET({pairs},{body})"
    else:
        replacement = f"({body})"
    return formula[:tokens[open_index].start] + replacement + formula[tokens[call_close].end:]


def _as_callback(formula: str, tokens: list[Any], open_index: int, close_index: int) -> str:
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
    for first, last in _argument_tokens(tokens, open_index, close_index):
        text = formula[tokens[first].start:tokens[last - 1].end] if first < last else ""
        if first == last or _is_function(tokens, first, last):
            pieces, at = [], tokens[first].start if first < last else 0
            for j in range(first, last):
                kind, sub = _kind(tokens[j])
                if kind == "Operand" and sub == "Range" and not _is_parameter(tokens[j].value):
                    pieces += [formula[at:tokens[j].start], hand(tokens[j].value)]
                    at = tokens[j].end
            texts.append("".join(pieces) + (formula[at:tokens[last - 1].end] if first < last else ""))
        else:
            texts.append(hand(text))
    call = formula[tokens[open_index].start:tokens[open_index].end] + ",".join(texts) + ")"
    quoted = call.replace('"', '""')
    arguments = "".join(f",{h}" for h in handed)
    replacement = f'{CALLBACK}("={quoted}"{arguments})'
    return formula[:tokens[open_index].start] + replacement + formula[tokens[close_index].end:]


def _argument_tokens(tokens: list[Any], open_index: int, close_index: int) -> list[tuple[int, int]]:
    """[first, last) token indices of each top-level argument of a call."""
    spans, first, depth = [], open_index + 1, 0
    for j in range(open_index + 1, close_index):
        kind, sub = _kind(tokens[j])
        if kind in ("Func", "Paren", "Array") and sub == "Open":
            depth += 1
        elif kind in ("Func", "Paren", "Array") and sub == "Close":
            depth -= 1
        elif depth == 0 and kind == "Sep" and sub == "Arg":
            spans.append(_trimmed(tokens, first, j))
            first = j + 1
    spans.append(_trimmed(tokens, first, close_index))
    return spans


def _trimmed(tokens: list[Any], first: int, last: int) -> tuple[int, int]:
    """[first, last) without the whitespace tokens at either end."""
    while first < last and _kind(tokens[first])[0] == "Whitespace":
        first += 1
    while last > first and _kind(tokens[last - 1])[0] == "Whitespace":
        last -= 1
    return first, last


def _is_function(tokens: list[Any], first: int, last: int) -> bool:
    """Whether an argument is a function: a LAMBDA (`LAMBDA(x, x + 1)`, not called in place)
    or an eta-reduced name (`_xleta.SUM`)."""
    kind, sub = _kind(tokens[first])
    if kind == "Func" and sub == "Open" and _bare(tokens[first].value) == "LAMBDA":
        return _matching(tokens, first) == last - 1
    return last - first == 1 and tokens[first].value.lower().startswith("_xleta.")


def placeholder(index: int) -> str:
    """The name standing for the call's `index`-th reference: RXL_REF_A, RXL_REF_B ... (letters
    only, so it never reads as a cell)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return f"RXL_REF_{letters}"


def _placeholder_index(name: str) -> int | None:
    if not name.upper().startswith("RXL_REF_"):
        return None
    index = 0
    for ch in name[8:].upper():
        index = index * 26 + ord(ch) - 64
    return index - 1


def _is_parameter(text: str) -> bool:
    """A LAMBDA's parameter (`_xlpm.x`) or an eta-reduced function (`_xleta.SUM`): not a reference."""
    lowered = text.lower()
    return lowered.startswith(("_xlpm.", "_xleta.")) or "!" not in text and _bare_parameter(text)


def _bare_parameter(text: str) -> bool:
    # A parameter written without Excel's prefix (a hand-written book): a short name that is
    # neither a cell nor a range. Defined names are references too, but then formulas names
    # them as inputs and the engine resolves them, so treating one as a parameter only costs
    # a "not computed" answer (#NAME? inside the callback), never a wrong number.
    return re.fullmatch(r"[A-Za-z_][\w.]*", text) is not None and cell_reference(text) is None


@lru_cache(maxsize=512)
def _compiled(formula: str) -> Any:
    import formulas

    _exact_map_and_scan()
    return formulas.Parser().ast(formula)[1].compile()


@lru_cache(maxsize=1)
def _exact_map_and_scan() -> None:
    """formulas' MAP and SCAN build their answer with `np.asarray(out)`: an answer of text and
    numbers (a RATES_* table's header row over its figures) becomes all text ('46350.0').
    The same two functions keeping each value as it is (dtype object), put in formulas'
    function table the way it takes custom functions (`formulas.functions.FUNCTIONS`, which
    overrides its submodules')."""
    import numpy as np
    from formulas import functions
    from formulas.functions import Array, Error, flatten, replace_empty, wrap_func
    from formulas.functions.logic import _get_first

    def xscan(initial_value: Any, array: Any, func: Any) -> Any:
        array = np.atleast_2d(array)
        out, acc = [], replace_empty(initial_value)
        for x in flatten(array, None):
            acc = func(acc, x)
            out.append(_get_first(acc))
        return np.asarray(out, object).reshape(array.shape).view(Array)

    def xmap(array: Any, func: Any, *arrays: Any) -> Any:
        if arrays:  # MAP(a, b, ..., LAMBDA): the function comes last
            arrays = (func,) + arrays
            func, arrays = arrays[-1], arrays[:-1]
        array = np.atleast_2d(array)
        every = [array] + [np.atleast_2d(v) for v in arrays]
        if not all(array.shape == v.shape for v in every):
            return np.asarray([[Error.errors["#VALUE!"]]], object).view(Array)
        out = [_get_first(func(*args)) for args in zip(*(flatten(v, None) for v in every), strict=True)]
        return np.asarray(out, object).reshape(array.shape).view(Array)

    # formulas reads its table through `get_functions()`, an lru_cache: once anything has
    # compiled a formula (the `formulas` engine, the bridge) the cached dict is what counts,
    # so the two go into it as well as into FUNCTIONS.
    table = functions.get_functions()
    for name, function in (("MAP", xmap), ("SCAN", xscan)):
        wrapped = wrap_func(function)
        for key in (name, f"_XLFN.{name}"):
            functions.FUNCTIONS[key] = table[key] = wrapped


def evaluate(formula: str, *values: Any) -> Any:
    """The callback: `formula` computed with the `formulas` package, the values the engine
    handed over standing for its placeholders, in order."""
    from rates_xl.calc.xlfuncs.bridge import error, from_formulas, to_formulas

    try:
        compiled = _compiled(formula)
        positions = [_placeholder_index(name) for name in compiled.inputs]
        if any(p is None or p >= len(values) for p in positions):
            return error("#NAME?")  # it reads a name we did not hand over
        result = compiled(*[to_formulas(values[p]) for p in positions])
    except Exception:  # noqa: BLE001 - formulas' own failure: an error value, never a traceback
        return error("#VALUE!")
    return from_formulas(result)


def callback(_facts: dict[str, Any]) -> Any:
    return evaluate
