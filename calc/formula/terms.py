"""Excel's last step on a + or -: a result within a few units of its operands' 15th
significant digit is 0, and every cell that reads it reads 0.

Microsoft documents it ("Floating-point arithmetic may give inaccurate results in Excel",
learn.microsoft.com/office/troubleshoot/excel/floating-point-arithmetic-inaccurate-result,
KB 78113, "Example when a value reaches zero"): "Should an addition or subtraction operation
result in a value at or very close to zero, Excel 97 and later will compensate for any error
introduced as a result of converting an operand to and from binary" (`=1.333+1.225-1.333-1.225`
shows 0, not -2.22E-16). It applies to the formula's last operation only: `=0.5-0.4-0.1` is 0,
`=(0.5-0.4-0.1)` and `=1*(0.5-0.4-0.1)` are -2.78E-17 (IronCalc's notes on numbers, Apache
POI's ExcelArithmetic say the same). "Close to zero" is read as LibreOffice's `approxSub` reads
it: the result is no more than 2^-49 of the last operand (the operands agree to about 15
significant digits): `=100.1-100-0.1` keeps its -5.7E-15 (0.0999999999999943 and 0.1 differ at
the 15th digit), a model's `=X26-AF25` over two numbers near 5E7 one binary unit apart is 0
where IEEE arithmetic gives -7.45E-09 (tests/calc/test_near_zero.py).

formualizer computes + and - in Rust, where no hook reaches: the pass `near_zero` writes the
rule into the engine's copy of the formula (`=X26-AF25` becomes
`=IF(ABS(X26-AF25)<=ABS(AF25)*2^-49,0,X26-AF25)`), so the cells downstream read Excel's 0 in
every round; an operand holding a call is bound once by LET (a call is never evaluated twice).

Written out, the rule costs every sum its evaluation twice, and it changes a cell's value only
where the result lands within 2^-49 of the last operand, which the values decide, not the
text. So where the last operand is one number or one cell (`=A1+1`, `=X26-AF25`: its value
can be read after an evaluation), the sum is left as it is and noted (`BookFacts.sums`);
after each evaluation the engine asks `to_snap` which of them Excel would have set to 0 at the
values computed, writes the rule into those (`written_out`) and computes again, until none is
left (the model's `_snap_to_zero`). The values then solve the same equations as with every
sum written out: a sum not written out is one whose test says "not zero" at its own inputs.
A book with what-if data tables, legacy arrays filled past their result or iteration has
every sum written out (their substitutions and fills compute values no evaluation shows).
"""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import TypeGuard

from rates_xl.calc.formula.site import Operand, Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.sheet import (
    is_rates_name,
    read_area,
    sheet_of,
    split_reference,
)
from rates_xl.functions.tokens import INFIX, NUMBER, POSTFIX

#: Operators of lower precedence than + and - (and the reference operators): one of them last
#: means the formula's last operation is not a sum.
_LOWER = frozenset({"&", "=", "<", ">", "<=", ">=", "<>", ":", " ", ","})
#: 2^-49, as Excel's text writes it: the result's largest size, relative to the last operand,
#: that Excel takes for zero.
NEAR = "1.7763568394002505E-15"
#: Calls never bound into a LET here: their answer is new at each call (RAND), or they are the
#: service's, whose planning reads the cell's own formula.
_NEW_EACH_TIME = frozenset({"NOW", "TODAY", "RAND", "RANDBETWEEN", "RANDARRAY", "CELL", "INFO"})


def final_sum(formula: Formula) -> int | None:
    """Where the formula's last + or - is when its last operation is one (`=0.5-0.4-0.1`: the
    second -); None for any other (`=1*(...)`: a product; `=A1-B1>0`: a comparison; `=-A1`: a
    negation; `=A1#-1`: a spill's elements)."""
    if formula.error:
        return None
    depth, last = 0, None
    for index, token in enumerate(formula.tokens):
        if token.opens:
            depth += 1
        elif token.closes:
            depth -= 1
        elif depth == 0 and token.kind == INFIX:
            if token.text in ("+", "-"):
                last = index
            elif token.text in _LOWER:
                return None  # a lower precedence operation comes last (or a reference operator)
        elif depth == 0 and token.kind == POSTFIX and token.text == "#":
            return None
    return last


def may_sum(formula: Formula, site: Site) -> bool:
    """An ordinary cell (an array's elements are left alone: whether Excel adjusts each is not
    documented) ending in a sum, whose value may be Excel's 0 (`BookFacts.may_be_zero`; asked
    last: its answer is the cell's own, and a copy of the formula is asked it again,
    calc/formula/memo.py)."""
    return not site.array and final_sum(formula) is not None and site.book.may_be_zero(site.sheet, site.address)


def near_zero(formula: Formula, site: Site) -> str:
    """Excel's adjustment of a last + or - to 0 (the module's docstring): `=L-R` becomes
    `=IF(ABS(L-R)<=ABS(R)*2^-49,0,L-R)` when L and R hold references, names and constants
    only, `=LET(...)` binding them once when they hold a call; a formula calling RATES_* or a
    function answering anew each time (RAND, NOW) is left as it is. Where R is one number or
    one cell and the book lets the values decide (`BookFacts.sums` is not None), the sum is
    noted there instead and written out only if an evaluation lands it near 0 (`to_snap`).
    Proved by tests/calc/test_near_zero.py (a model's `=X26-AF25` over sums near 4E7: 0, and
    the check column reading it) and formulas_test.xlsx's cells ending in a sum, still Excel's."""
    cut = final_sum(formula)
    if cut is None:
        return formula.text
    tokens = formula.tokens
    left, right = formula.trimmed((0, cut)), formula.trimmed((cut + 1, len(tokens)))
    if left[0] >= left[1] or right[0] >= right[1]:
        return formula.text
    calls = {t.name for t in tokens if t.is_call}
    if any(is_rates_name(name) or name in _NEW_EACH_TIME for name in calls):
        return formula.text
    sums = site.book.sums
    if sums is not None and right[1] - right[0] == 1:
        operand = _one_value(formula, right[0], site)
        if operand is not None:
            sums[(site.sheet, site.row, site.col)] = operand
            return formula.text
    return _rule(formula, cut, left, right, bool(calls))


def written_out(text: str) -> str:
    """`text` with Excel's adjustment written in (`near_zero`'s rewriting, whatever its last
    operand): for a sum noted in `BookFacts.sums` that an evaluation landed near 0."""
    formula = Formula(text)
    cut = final_sum(formula)
    if cut is None:
        return text
    tokens = formula.tokens
    left, right = formula.trimmed((0, cut)), formula.trimmed((cut + 1, len(tokens)))
    return _rule(formula, cut, left, right, any(t.is_call for t in tokens))


def _rule(formula: Formula, cut: int, left: tuple[int, int], right: tuple[int, int], calls: bool) -> str:
    op = formula.tokens[cut].text
    lhs, rhs = formula.span_text(left), formula.span_text(right)
    # The last operand's size read as the sum reads it, `(...)*1`: text the sum reads as a
    # number ("2024-01-10", "12:30" in a cell) is one to the engines' arithmetic but #VALUE! to
    # their ABS, which made `=5+A1` over such a cell #VALUE! once written out
    # (test_near_zero.py). (Not `--`: the `formulas` engine drops a double negation.)
    if not calls:
        total = f"{lhs}{op}{rhs}"
        return f"=IF(ABS({total})<=ABS(({rhs})*1)*{NEAR},0,{total})"
    # No binding reads another (the `formulas` engine's LET cannot): the sum of the two bound
    # values is written twice.
    total = f"_rxl_left{op}_rxl_right"
    return (f"=LET(_rxl_left,{lhs},_rxl_right,{rhs},"
            f"IF(ABS({total})<=ABS(_rxl_right*1)*{NEAR},0,{total}))")


_NUMBERS: dict[str, float] = {}  # one float object per literal (a chain's `+1` 200,000 times)


def _one_value(formula: Formula, index: int, site: Site) -> Operand | None:
    """The last operand when it is one number or one cell of this workbook (its sheet's title
    as the book spells it); None otherwise."""
    token = formula.tokens[index]
    if token.kind == "Operand" and token.sub == NUMBER:
        number = _NUMBERS.get(token.text)
        if number is None:
            try:
                number = _NUMBERS.setdefault(token.text, float(token.text))
            except ValueError:
                return None
        return number
    if not token.is_range:
        return None
    prefix, ref = split_reference(token.text)
    area = read_area(ref, whole_lines=False)
    if area is None or not area.is_cell:
        return None
    if not prefix:
        return (site.sheet, area.top, area.left)
    titles: dict[str, str] = getattr(site.book.formula_cells, "titles", None) or {}
    sheet = titles.get((sheet_of(prefix) or "").upper())  # None: another workbook's, or no sheet
    return None if sheet is None else (sheet, area.top, area.left)


def to_snap(sums: dict[tuple[str, int, int], Operand], value: Callable[[str, int, int], object],
            done: Container[tuple[str, int, int]] = frozenset()) -> list[tuple[str, int, int]]:
    """The noted sums (not in `done`) that Excel would set to 0 at the values an evaluation
    computed (`value(sheet, row, col)`: the engine's raw value): a number other than 0 no
    larger than 2^-49 of the last operand. An operand that is no number (text, an error, a
    cell that cannot be read) is taken to allow it: the rule, written out, decides."""
    found = []
    limit = float(NEAR)
    for key, operand in sums.items():
        if key in done:
            continue
        result = value(*key)
        if not _is_number(result) or result == 0:
            continue
        if isinstance(operand, tuple):
            try:
                read = value(*operand)
            except Exception:  # noqa: BLE001 - not readable: the rule decides
                read = ""
            if read is None:
                read = 0.0  # an empty cell: 0
            if not _is_number(read):
                found.append(key)
                continue
            operand = read
        if abs(result) <= abs(operand) * limit:
            found.append(key)
    return found


def _is_number(value: object) -> TypeGuard[float]:
    """A number as the engine answers one (a float, or an int it was given; not a boolean)."""
    return type(value) is float or type(value) is int
