"""One formula of the fast engine's copy fitted: an ordinary cell's formula through the passes
(calc/formula/passes.py), the analysis (calc/formula/hazards.py) and the fit (calc/formula/fit.py:
implicit intersection, helper cells, sheet-qualified names) where its shape's answer cannot be
moved to it (calc/formula/memo.py; `prepare.py` moves one), and why the engine cannot compute a
formula at all. The walk over the book that calls these, and the arrays' fit, are `prepare.py`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from rates_xl.calc import routing
from rates_xl.calc.formula import passes
from rates_xl.calc.formula.fit import (
    cut_to_range,
    intersect,
    is_one_array,
    materialise,
    qualify_names,
)
from rates_xl.calc.formula.hazards import Analysis, analyse
from rates_xl.calc.formula.lambdas import grouping_not_computed
from rates_xl.calc.formula.memo import Memo, Watch
from rates_xl.calc.formula.shapes import Shape
from rates_xl.calc.formula.site import BookFacts, NotComputed, Site
from rates_xl.calc.formula.tree import Formula
from rates_xl.functions.sheet import is_rates_name


class Fitted(NamedTuple):
    """What an ordinary cell's formula became: the formula it holds in the engine's copy, or
    None and why (`wrong`: the engine would compute it wrongly). (A named tuple: one is made
    for each formula cell of a book, and a frozen dataclass' fields cost twice as much to set.)"""

    formula: str | None
    reason: str = ""
    wrong: bool = False
    intersected: bool = False  # implicit intersection written out (fit.py `intersect`)
    waiting: bool = False  # may read a spill: its last passes wait for every array's fit
    rates: bool = False  # calls a RATES_* function


def fit_ordinary(memo: Memo, key: tuple[str, Shape] | None, value: str, title: str, row: int, col: int,
                 facts: BookFacts, size: Callable[[str], int | None], names: Callable[[str], str | None] | None,
                 place: Callable[[list[list[str]]], str | None], arrays: frozenset[str],
                 unknown: frozenset[str]) -> Fitted:
    """An ordinary cell's formula through the passes and the fit, for a cell `memo.find` gave
    no shared answer (the preparation moves a shared one to the cell itself: calc/formula/memo.py,
    a copy down a column is rewritten once, when that is shown to move with the cell). `key`:
    `find`'s handle, None to rewrite it unwatched; the answer is learnt under it. The shared
    answer's extra is (intersected, waiting, rates)."""
    formula = memo.read(value)  # (a first copy's shape was read from the tokens its passes read)
    if key is None:
        return _fitted(formula, lambda: Site(title, row, col, False, facts), size, names, place, arrays, unknown)
    watch = Watch()
    done = _fitted(formula, lambda: watch.site(title, row, col, facts), watch.asking("size", size),
                   None if names is None else watch.asking("names", names),
                   watch.placing(place), arrays, unknown)
    memo.learn(key, watch, row, col, done.formula, (done.intersected, done.waiting, done.rates), value)
    return done


def _fitted(value: Formula, site: Callable[[], Site], size: Callable[[str], int | None],
            names: Callable[[str], str | None] | None, place: Callable[[list[list[str]]], str | None],
            arrays: frozenset[str], unknown: frozenset[str]) -> Fitted:
    """`fit_ordinary`'s rewriting in full: the passes, the analysis, the fit, the last passes."""
    at = site()
    try:
        read = passes.rewrite(value, at)
    except NotComputed as exc:
        return Fitted(None, exc.reason)
    found = analyse(read, size, arrays, names, whole_lines=True)
    if (why := not_computable(found, unknown)) is not None:
        return Fitted(None, why)
    found = settled(qualified(found, size, arrays, names), place, size, arrays, names)
    formula = found.formula.text
    intersected = False
    if found.needs_rewrite:
        rewritten = intersect(found, at)
        if rewritten is None:
            return Fitted(None, "; ".join(dict.fromkeys(found.hazards)) or "an array in an ordinary cell", wrong=True)
        formula, intersected = rewritten, True
    if found.answers_array or found.answers_computed_array or is_one_array(found.formula):
        # An ordinary cell shows an array answer's top-left value (formulas_test.xlsx
        # CORE!K6: `={1,2;1,2}` saved as an ordinary formula is 1 in Excel), and
        # the rest does not spill where another formula could read it.
        formula = cut_to_range(formula, 1, 1)
    waiting = "#" in formula
    if not waiting:  # its last passes now, on the formula read (its tokens are not read again)
        same = formula == found.formula.text
        formula = passes.rewrite(found.formula if same else formula, site(), passes.WRITTEN).text
    rates = bool(found.functions & arrays) or any(is_rates_name(f) for f in found.functions)
    return Fitted(formula, intersected=intersected, waiting=waiting, rates=rates)


def settled(found: Analysis, place: Callable[[list[list[str]]], str | None], size: Callable[[str], int | None],
            arrays: frozenset[str], names: Callable[[str], str | None] | None) -> Analysis:
    """Materialise what an argument that takes a range needs, until nothing does."""
    for _ in range(4):
        if not found.helpers or found.error:
            break
        rewritten = materialise(found, place, size, arrays, names)
        if rewritten is None:
            break
        found = analyse(Formula(rewritten), size, arrays, names)
    return found


def qualified(found: Analysis, size: Callable[[str], int | None], arrays: frozenset[str],
              names: Callable[[str], str | None] | None) -> Analysis:
    """Sheet-qualified names (`S1!local_k`) become the range they stand for."""
    if found.qualified_names and names is not None:
        rewritten = qualify_names(found, names)
        if rewritten is not None:
            return analyse(Formula(rewritten), size, arrays, names)
    return found


def not_computable(found: Analysis, unknown: frozenset[str] | set[str]) -> str | None:
    """Why the engine cannot compute a formula at all (unreadable, or calls a function it
    does not know), or None."""
    if found.error:
        return found.error
    if found.functions & unknown:
        return _unknown(found.functions & unknown)
    return routing.not_computed(found.functions) or grouping_not_computed(found.formula)


def _unknown(names: set[str]) -> str:
    listed = ", ".join(sorted(names))
    return f"calls {listed}, which the engine does not know"
