"""REGEX functions on hostile patterns (calc/xlfuncs/text/regex.py): a pattern Python's `re`
backtracked on for hours answers at once, and a match that cannot end in time stops at
`MATCH_SECONDS` with #VALUE!, so a book cannot hold the calculation (and Ctrl+C) forever."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

#: The calls are made in one child process: if a change brought the unbounded backtracking
#: back, the tests fail after this long instead of holding the suite (a guard against a hang,
#: not a speed figure: each call ends within a few seconds).
HANG_GUARD_S = 180

#: Exponential for `re` (0.9 s at 22 characters, doubling with each one more): at once here.
BACKTRACKED = [
    ("REGEXTEST", '("a" * 40 + "!", "(a+)+$")', "False"),
    ("REGEXEXTRACT", '("a" * 40 + "!", "(a+)+!")', repr("a" * 40 + "!")),
    ("REGEXREPLACE", '("a" * 40 + "!", "(a+)+$", "z")', repr("a" * 40 + "!")),
    ("REGEXTEST", '("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "^(a|a?)+$")', "False"),
]
#: Slow for `regex` too: each stopped at its timeout.
STOPPED = [
    ("REGEXTEST", '("x" * 40, "(x|xx)+y")'),
    ("REGEXEXTRACT", '("x" * 40, "(x|xx)+y", 1)'),
    ("REGEXREPLACE", '("x" * 40, "(x|xx)+y", "z")'),
    ("REGEXREPLACE", '("x" * 40, "(x|xx)+y", "z", 1)'),
]
#: PCRE2's syntax (Excel's engine) that `re` refused (#VALUE!): Unicode properties, `(?<name>...)`.
PCRE2 = [
    ("REGEXEXTRACT", '("abc123", r"\\p{L}+")', "'abc'"),
    ("REGEXEXTRACT", '("abc123", "(?<d>\\\\d+)", 2)', "'123'"),
]


@pytest.fixture(scope="module")
def answers() -> dict[tuple[str, str], str]:
    calls = [(name, args) for name, args, *_ in BACKTRACKED + STOPPED + PCRE2]
    code = textwrap.dedent(f"""
        from rates_xl.calc.engines.formualizer.values import error_text, is_error
        from rates_xl.calc.xlfuncs import callbacks
        found = callbacks()
        for name, args in {calls!r}:
            answer = found[name](*eval(args))
            print(error_text(answer) if is_error(answer) else repr(answer))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_GUARD_S,
                          check=True)
    return dict(zip(calls, done.stdout.splitlines(), strict=True))


@pytest.mark.parametrize(("name", "args", "expected"), BACKTRACKED + PCRE2)
def test_a_pattern_re_backtracked_on_or_refused_answers(answers, name, args, expected):
    assert answers[(name, args)] == expected


@pytest.mark.parametrize(("name", "args"), STOPPED)
def test_a_match_that_cannot_end_in_time_is_value_error(answers, name, args):
    from rates_xl.calc.xlfuncs.text.regex import MATCH_SECONDS

    assert MATCH_SECONDS <= 5
    assert answers[(name, args)] == "#VALUE!"
