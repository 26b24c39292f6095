"""Which RATES_* calls a formula makes when its cell computes, with the values of their
arguments: what `functions/link.py` turns into requests (RATES_SOURCE, `rates-xl diff`).

The formula is parsed once (formualizer's tree) and walked as Excel evaluates it, as far as
the calls need it:

- only the branch that is taken makes its calls: IF, IFS, IFERROR, IFNA, CHOOSE and SWITCH
  evaluate their condition (or index) first; `IF(kind="overnight", RATES_FORWARD(...),
  RATES_FIXING(...))` made one request, not two;
- an argument, or a condition, is evaluated when it is built from literals, cells, defined
  names and a few functions whose Excel rules are short (arithmetic, `&`, comparisons,
  AND/OR/NOT, IS* tests, CHOOSE...), with Excel's coercions and type order;
- anything else (a lookup, a range, a name this host cannot read, another RATES_* answer)
  is not guessed: the walk says what it could not evaluate, and the link says so.

Written here rather than asking a calculation engine: the values a diff reads are a frozen
copy's, one cell at a time, and the subset a RATES_* argument uses in practice is small.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from rates_xl.errors import Internal
from rates_xl.functions.values import is_error_text

if TYPE_CHECKING:
    # formualizer ships its types: its parsed formula is read as they say.
    from formualizer import ASTNode


class XLError(str):
    """An Excel error value (`#N/A`), apart from text that reads the same."""


class NotFollowed(Internal):
    """A value the walk cannot compute; the message names what (`VLOOKUP`, `the name rate`)."""


#: A call made: its name and its arguments' values (a cell's value: anything a reader gives).
Call = tuple[str, list[object]]


def calls_made(formula: str, sheet: str, value_of: Callable[[str, str], object],
               name_value: Callable[[str, str], object] | None = None) -> list[Call] | None:
    """The RATES_* calls (with an endpoint) the cell makes, each as (name, argument values),
    in the order Excel evaluates them; None when the formula holds no such call at all.

    `value_of(sheet, "B7")` reads a cell (None when empty); `name_value(sheet, name)` a defined
    name's value (LookupError when it has none this host can read). Raises
    `link.Unlinked` when a call that is made, or the choice of a branch holding calls,
    depends on something not followed here."""
    import formualizer

    from rates_xl.functions.link import Unlinked

    text = formula if formula.startswith("=") else "=" + formula
    try:
        tree = formualizer.parse(text)
    except Exception as exc:  # noqa: BLE001 - the parser's own error: one line, never a traceback
        raise Unlinked(f"cannot read the formula {formula}: {exc}") from None
    walk = _Walk(sheet, value_of, name_value)
    if not walk.has_call(tree):
        return None
    walk.visit(tree)
    return walk.calls


def _function_name(node: ASTNode) -> str:
    """`_xlfn.IFS` -> IFS, `RATES.SWAP` and `_xludf.RATES_SWAP` -> RATES_SWAP, former names mapped."""
    from rates_xl.functions.table import FORMER_NAMES

    name = (node.get_function_name() or "").upper().rsplit("!", 1)[-1]
    for prefix in ("_XLFN.", "_XLWS.", "_XLUDF."):
        name = name.removeprefix(prefix)
    if name.startswith("RATES."):
        name = name.replace(".", "_", 1)
    return FORMER_NAMES.get(name, name)


def _asks_service(name: str) -> bool:
    from rates_xl.functions.table import FUNCTIONS

    return name in FUNCTIONS and FUNCTIONS[name].endpoint is not None


class _Walk:
    def __init__(self, sheet: str, value_of: Callable[[str, str], object],
                 name_value: Callable[[str, str], object] | None) -> None:
        self.sheet, self.value_of, self.name_value = sheet, value_of, name_value
        self.calls: list[Call] = []

    # -- the calls ---------------------------------------------------------------------------
    def has_call(self, node: ASTNode) -> bool:
        if node.node_type() == "Function" and _asks_service(_function_name(node)):
            return True
        return any(self.has_call(child) for child in node.children())

    def visit(self, node: ASTNode) -> None:
        """Evaluate `node` for the calls it makes (its value is not needed)."""
        from rates_xl.functions.link import Unlinked

        if not self.has_call(node):
            return
        if node.node_type() != "Function":
            for child in node.children():
                self.visit(child)
            return
        name, args = _function_name(node), node.children()
        if _asks_service(name):
            self._call(name, args)
            return
        if name not in _BRANCHES:
            for arg in args:
                self.visit(arg)
            return
        try:
            rest = _BRANCHES[name](self, args)  # evaluates the condition, with its calls
        except NotFollowed as exc:
            raise Unlinked(f"which part of {_text(node)} it evaluates depends on {exc}, "
                           "not followed here") from None
        for arg in rest:
            self.visit(arg)

    def _call(self, name: str, args: list[ASTNode]) -> None:
        from rates_xl.functions.link import Unlinked

        values: list[object] = []
        for arg in args:
            try:
                values.append(self.value(arg))
            except NotFollowed as exc:
                raise Unlinked(f"its argument {_text(arg)} uses {exc}, not followed here") from None
        self.calls.append((name, values))

    # -- values ------------------------------------------------------------------------------
    def value(self, node: ASTNode) -> object:
        kind = node.node_type()
        if kind == "Literal":
            value, token = node.get_literal_value(), node.get_source_token()
            return XLError(value) if token is not None and str(token.subtype) == "Error" else value
        if kind == "Omitted":
            return None
        if kind == "Reference":
            return self._reference(node.get_reference_string() or "")
        if kind == "UnaryOp":
            return _unary(node.get_operator() or "", self.value(node.children()[0]))
        if kind == "BinaryOp":
            left, right = node.children()
            return _binary(node.get_operator() or "", self.value(left), self.value(right))
        if kind == "Function":
            name, args = _function_name(node), node.children()
            if _asks_service(name):
                self._call(name, args)
                raise NotFollowed(f"the answer of {name}")
            if name in _BRANCHES:
                return _branch_value(self, name, args)
            if name in _FUNCTIONS:
                return _FUNCTIONS[name]([self.value(a) for a in args])
            raise NotFollowed(name)
        raise NotFollowed(f"an {kind.lower()}")

    def _reference(self, text: str) -> object:
        from rates_xl.functions.sheet import cell_reference

        found = cell_reference(text)
        if found is not None:
            where, cell = found
            return _cell(self.value_of(where or self.sheet, cell))
        bare = text.rsplit("!", 1)[-1]
        if not bare.replace(".", "_").isidentifier():
            raise NotFollowed(f"the range {text}")
        if self.name_value is None:
            raise NotFollowed(f"the name {text}")
        try:
            return _cell(self.name_value(self.sheet, text))
        except LookupError:
            raise NotFollowed(f"the name {text}") from None


def _text(node: ASTNode) -> str:
    return node.to_formula().lstrip("=")


def _cell(value: object) -> object:
    return XLError(value) if is_error_text(value) else value


# -- Excel's coercions --------------------------------------------------------------------------
def _number(value: object) -> float | XLError:
    """A value as arithmetic reads it: #VALUE! for text that is not a number."""
    if isinstance(value, XLError):
        return value
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value).strip())
    except ValueError:
        return XLError("#VALUE!")


def _truth(value: object) -> bool | XLError:
    """A condition's value: TRUE/FALSE, or the error Excel gives."""
    if isinstance(value, XLError):
        return value
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    if str(value).upper() in ("TRUE", "FALSE"):
        return str(value).upper() == "TRUE"
    return XLError("#VALUE!")


def as_text(value: object) -> str:
    """A value as `&` writes it: 10 -> "10", 0.1 -> "0.1", TRUE -> "TRUE", empty -> ""."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return f"{value:.15g}".replace("e+", "E+").replace("e-", "E-")
    return str(value)


def _rank(value: object) -> tuple[int, bool | float | str]:
    """Excel's order for comparisons: numbers < text (case-insensitive) < logical values."""
    if isinstance(value, bool):
        return 2, value
    if isinstance(value, int | float):
        return 0, float(value)
    return 1, str(value).lower()


def _compare(op: str, left: object, right: object) -> bool:
    if left is None:  # an empty cell compares as the other side's empty value
        left = "" if isinstance(right, str) else False if isinstance(right, bool) else 0.0
    if right is None:
        right = "" if isinstance(left, str) else False if isinstance(left, bool) else 0.0
    a, b = _rank(left), _rank(right)
    return {"=": a == b, "<>": a != b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]


def _unary(op: str, operand: object) -> float | XLError:
    number = _number(operand)
    if isinstance(number, XLError):
        return number
    if op == "-":
        return -number
    if op == "+":
        return number
    if op == "%":
        return number / 100
    raise NotFollowed(f"the operator {op!r}")


def _binary(op: str, left: object, right: object) -> bool | float | str:
    for side in (left, right):
        if isinstance(side, XLError):
            return side
    if op in ("=", "<>", "<", ">", "<=", ">="):
        return _compare(op, left, right)
    if op == "&":
        return as_text(left) + as_text(right)
    if op not in ("+", "-", "*", "/", "^"):
        raise NotFollowed(f"the operator {op!r}")
    a, b = _number(left), _number(right)
    if isinstance(a, XLError):
        return a
    if isinstance(b, XLError):
        return b
    if op == "/" and b == 0:
        return XLError("#DIV/0!")
    try:
        result = a + b if op == "+" else a - b if op == "-" else a * b if op == "*" else a / b if op == "/" \
            else a ** b
    except (OverflowError, ZeroDivisionError, ValueError):
        return XLError("#NUM!")
    if isinstance(result, complex) or not math.isfinite(result):
        return XLError("#NUM!")
    return result


# -- the functions that evaluate only some arguments ------------------------------------------------
# Each takes the walk and the arguments, evaluates what decides (recording the calls made
# there) and returns the arguments it then evaluates: for IF, the branch taken.
def _if(walk: _Walk, args: list[ASTNode]) -> list[ASTNode]:
    condition = _truth(walk.value(args[0]))
    if isinstance(condition, XLError):
        return []
    return args[1:2] if condition else args[2:3]


def _iferror(walk: _Walk, args: list[ASTNode], only_na: bool = False) -> list[ASTNode]:
    if len(args) < 2 or not walk.has_call(args[1]):
        return args[:1]  # the fallback makes no call: whether it is taken does not matter
    first = walk.value(args[0])
    failed = isinstance(first, XLError) and (not only_na or first == "#N/A")
    return args[1:2] if failed else []


def _ifs(walk: _Walk, args: list[ASTNode]) -> list[ASTNode]:
    for condition, result in zip(args[::2], args[1::2], strict=False):
        truth = _truth(walk.value(condition))
        if isinstance(truth, XLError):
            return []
        if truth:
            return [result]
    return []


def _choose(walk: _Walk, args: list[ASTNode]) -> list[ASTNode]:
    index = _number(walk.value(args[0]))
    if isinstance(index, XLError) or not 1 <= int(index) < len(args):
        return []
    return [args[int(index)]]


def _switch(walk: _Walk, args: list[ASTNode]) -> list[ASTNode]:
    subject, pairs = walk.value(args[0]), args[1:]
    for i in range(0, len(pairs) - 1, 2):
        if _compare("=", subject, walk.value(pairs[i])) is True:
            return [pairs[i + 1]]
    return pairs[-1:] if len(pairs) % 2 else []


_BRANCHES: dict[str, Callable[[_Walk, list[ASTNode]], list[ASTNode]]] = {
    "IF": _if, "IFS": _ifs, "IFERROR": _iferror, "IFNA": lambda w, a: _iferror(w, a, only_na=True),
    "CHOOSE": _choose, "SWITCH": _switch,
}


def _branch_value(walk: _Walk, name: str, args: list[ASTNode]) -> object:
    """The value of IF, IFS, IFERROR, IFNA, CHOOSE or SWITCH."""
    if name in ("IFERROR", "IFNA"):
        first = walk.value(args[0])
        failed = isinstance(first, XLError) and (name == "IFERROR" or first == "#N/A")
        return walk.value(args[1]) if failed and len(args) > 1 else first
    if name == "IF":
        condition = _truth(walk.value(args[0]))
        if isinstance(condition, XLError):
            return condition
        picked = args[1:2] if condition else args[2:3]
        return walk.value(picked[0]) if picked else condition
    if name == "CHOOSE":
        index = _number(walk.value(args[0]))
        if isinstance(index, XLError):
            return index
        return walk.value(args[int(index)]) if 1 <= int(index) < len(args) else XLError("#VALUE!")
    if name == "IFS":
        for test, result in zip(args[::2], args[1::2], strict=False):
            truth = _truth(walk.value(test))
            if isinstance(truth, XLError) or truth:
                return truth if isinstance(truth, XLError) else walk.value(result)
        return XLError("#N/A")
    picked = _switch(walk, args)
    return walk.value(picked[0]) if picked else XLError("#N/A")


def _all(values: list[object], combine: Callable[[list[bool]], bool]) -> bool | XLError:
    truths = [_truth(v) for v in values if v is not None]
    errors = [t for t in truths if isinstance(t, XLError)]
    if errors:
        return errors[0]
    checked = [t for t in truths if isinstance(t, bool)]  # every one, once no error is among them
    return combine(checked) if checked else XLError("#VALUE!")


def _is(test: Callable[[object], bool]) -> Callable[[list[object]], bool]:
    return lambda values: test(values[0] if values else None)


_FUNCTIONS: dict[str, Callable[[list[object]], object]] = {
    "AND": lambda v: _all(v, all),
    "OR": lambda v: _all(v, any),
    "XOR": lambda v: _all(v, lambda t: sum(t) % 2 == 1),
    "NOT": lambda v: (lambda t: t if isinstance(t, XLError) else not t)(_truth(v[0])),
    "TRUE": lambda v: True,
    "FALSE": lambda v: False,
    "NA": lambda v: XLError("#N/A"),
    "ISNUMBER": _is(lambda x: isinstance(x, int | float) and not isinstance(x, bool)),
    "ISTEXT": _is(lambda x: isinstance(x, str) and not isinstance(x, XLError)),
    "ISNONTEXT": _is(lambda x: not isinstance(x, str) or isinstance(x, XLError)),
    "ISLOGICAL": _is(lambda x: isinstance(x, bool)),
    "ISBLANK": _is(lambda x: x is None),
    "ISERROR": _is(lambda x: isinstance(x, XLError)),
    "ISERR": _is(lambda x: isinstance(x, XLError) and x != "#N/A"),
    "ISNA": _is(lambda x: x == "#N/A" and isinstance(x, XLError)),
    "UPPER": lambda v: as_text(v[0]).upper(),
    "LOWER": lambda v: as_text(v[0]).lower(),
    "TRIM": lambda v: " ".join(part for part in as_text(v[0]).split(" ") if part),
}
