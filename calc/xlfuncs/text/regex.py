r"""REGEXTEST, REGEXEXTRACT and REGEXREPLACE (Excel 365), unknown to formualizer.

Excel's patterns are PCRE2; the `regex` package (Apache-2.0; `formulas` needs it too), in its
`re`-compatible VERSION0, reads the same syntax for everything the corpus uses (classes,
groups, anchors, quantifiers, alternation) and more of PCRE2's (`\p{L}`, `(?<name>...)`); a
pattern it cannot compile is #VALUE!, as Excel answers for an invalid one. A replacement's `$1`
is group 1.

A match is stopped after `MATCH_SECONDS` (#VALUE!): PCRE2 stops at a match limit of its own,
but Python's `re` had none and holds the interpreter while it backtracks, so a hostile book's
`REGEXTEST(REPT("a",40),"(a+)+$")` ran for hours and nothing (the book's time budget, Ctrl+C)
could stop it. `regex` answers that one at once (it backtracks less), and a match it cannot
finish in time (`(x|xx)+y` over 40 x's) ends with its `timeout`. Excel's own answer past its
limit is not known: the cell shows #VALUE!, listed with the book's other error cells.
Each text argument is read as Excel reads text (1.9 -> "1.9", TRUE -> "TRUE"), an error
passed on; the case argument is 0 (sensitive) or 1 (not), truncated, else #VALUE!.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Protocol

from rates_xl.calc.engines.formualizer.values import error
from rates_xl.calc.xlfuncs.coercion import Callback, ExcelError, Factory, elementwise, number, text
from rates_xl.calc.xlfuncs.limits import TEXT_LIMIT
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted
from rates_xl.calc.xlfuncs.types import Answer, EngineValue


class Match(Protocol):
    """What is read of a `regex` match (the package ships no types)."""

    def group(self, index: int = ..., /) -> str: ...
    def groups(self) -> tuple[str | None, ...]: ...
    def start(self) -> int: ...
    def end(self) -> int: ...
    def expand(self, template: str, /) -> str: ...


class Pattern(Protocol):
    """What is asked of a compiled `regex` pattern."""

    groups: int

    def search(self, string: str, *, timeout: float) -> Match | None: ...
    def finditer(self, string: str, *, timeout: float) -> Iterator[Match]: ...
    def sub(self, repl: Callable[[Match], str], string: str, *, timeout: float) -> str: ...

#: The longest one match may take (each call of a REGEX function matches once, or once per
#: occurrence for all of them): what a pattern Excel computes at once needs is milliseconds.
MATCH_SECONDS = 1.0


def _given(value: EngineValue) -> bool:
    return not (isinstance(value, str) and value == OMITTED)


def _flags(case: EngineValue) -> int:
    import regex

    mode = int(number(case)) if _given(case) else 0
    if mode not in (0, 1):
        raise ExcelError("#VALUE!")
    return regex.VERSION0 | (regex.IGNORECASE if mode == 1 else 0)


def _compiled(pattern: EngineValue, case: EngineValue) -> Pattern:
    import regex

    flags = _flags(case)
    try:
        return regex.compile(text(pattern), flags)
    except regex.error:
        raise ExcelError("#VALUE!") from None


def _regextest(value: EngineValue, pattern: EngineValue, case: EngineValue = OMITTED) -> EngineValue:
    subject = text(value)
    compiled = _compiled(pattern, case)
    try:
        return compiled.search(subject, timeout=MATCH_SECONDS) is not None
    except TimeoutError:
        raise ExcelError("#VALUE!") from None


def _regexextract(value: EngineValue, pattern: EngineValue, mode: EngineValue = OMITTED, case: EngineValue = OMITTED) -> Answer:
    subject = text(value)
    how = int(number(mode)) if _given(mode) else 0
    if how not in (0, 1, 2):
        raise ExcelError("#VALUE!")
    compiled = _compiled(pattern, case)
    try:
        if how == 1:
            matches = [m.group(0) for m in compiled.finditer(subject, timeout=MATCH_SECONDS)]
            if not matches:
                raise ExcelError("#N/A")
            return matches[0] if len(matches) == 1 else [matches]  # a row, as Excel spills them
        if how == 2 and compiled.groups == 0:
            raise ExcelError("#VALUE!")
        found = compiled.search(subject, timeout=MATCH_SECONDS)
    except TimeoutError:
        raise ExcelError("#VALUE!") from None
    if how == 0:
        if found is None:
            raise ExcelError("#N/A")
        return found.group(0)
    if found is None:
        raise ExcelError("#N/A")
    groups = [g if g is not None else error("#N/A") for g in found.groups()]  # a group not taken
    return groups[0] if len(groups) == 1 else [groups]


def _regexreplace(value: EngineValue, pattern: EngineValue, replacement: EngineValue, occurrence: EngineValue = OMITTED,
                  case: EngineValue = OMITTED) -> EngineValue:
    subject = text(value)
    compiled = _compiled(pattern, case)
    template = re.sub(r"\$(\d+)|\$\{(\d+)\}|\\", _template_part, text(replacement))
    which = int(number(occurrence)) if _given(occurrence) else 0
    if which:
        try:
            matches = list(compiled.finditer(subject, timeout=MATCH_SECONDS))
        except TimeoutError:
            raise ExcelError("#VALUE!") from None
        index = which - 1 if which > 0 else len(matches) + which
        if not 0 <= index < len(matches):
            return subject
        chosen = matches[index]
        return subject[:chosen.start()] + chosen.expand(template) + subject[chosen.end():]
    built = [0, 0]  # characters of replacements, and of the text they replace, so far

    def each(found: Match) -> str:
        # What `compiled.sub(template, subject)` puts in: stopped once the text built so far (a
        # part of the answer) is longer than a cell holds, before a billion characters are
        # (REGEXREPLACE(REPT("x",32767),"x",REPT("y",32767))). limits.capped checks the whole.
        part = found.expand(template)
        built[0] += len(part)
        built[1] += found.end() - found.start()
        if found.end() - built[1] + built[0] > TEXT_LIMIT:
            raise ExcelError("#VALUE!")
        return part

    import regex

    try:
        return compiled.sub(each, subject, timeout=MATCH_SECONDS)
    except (regex.error, IndexError, TimeoutError):
        raise ExcelError("#VALUE!") from None


def _template_part(found: re.Match[str]) -> str:
    if found.group(0) == "\\":
        return "\\\\"  # a backslash in Excel's replacement is itself
    return rf"\g<{found.group(1) or found.group(2)}>"


def _function(name: str, func: Callback) -> Callback:
    lifted = elementwise(func)

    def call(*args: EngineValue) -> Answer:
        result = lifted(*args)
        return _one_array(result)

    call.__name__ = name
    reads_omitted(call)
    return call


def _one_array(result: Answer) -> Answer:
    """An array of one element's results: each element shows its own first value (Excel
    lifts a function returning an array to one value per element)."""
    if isinstance(result, list) and any(isinstance(v, list) for row in result for v in row):
        return [[v[0][0] if isinstance(v, list) else v for v in row] for row in result]
    return result


FUNCTIONS: dict[str, Factory] = {
    "REGEXTEST": lambda _facts: _function("REGEXTEST", _regextest),
    "REGEXEXTRACT": lambda _facts: _function("REGEXEXTRACT", _regexextract),
    "REGEXREPLACE": lambda _facts: _function("REGEXREPLACE", _regexreplace),
}
