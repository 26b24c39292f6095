"""REGEX functions on hostile patterns (calc/xlfuncs/text/regex.py): a pattern Python's `re`
backtracked on for hours answers at once, and a match that cannot end in time stops at
`MATCH_SECONDS` with #VALUE!, so a book cannot hold the calculation (and Ctrl+C) forever."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

#: Run in a child process: if a change brought the unbounded backtracking back, the test fails
#: after this long instead of holding the suite (a guard against a hang, not a speed figure:
#: each call ends within a few seconds).
HANG_GUARD_S = 120


def _answers(calls: list[str]) -> list[object]:
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
    return done.stdout.splitlines()


@pytest.mark.parametrize(("name", "args", "expected"), [
    # Exponential for `re` (0.9 s at 22 characters, doubling with each one more): at once here.
    ("REGEXTEST", '("a" * 40 + "!", "(a+)+$")', "False"),
    ("REGEXEXTRACT", '("a" * 40 + "!", "(a+)+!")', repr("a" * 40 + "!")),
    ("REGEXREPLACE", '("a" * 40 + "!", "(a+)+$", "z")', repr("a" * 40 + "!")),
    ("REGEXTEST", '("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "^(a|a?)+$")', "False"),
])
def test_a_pattern_re_backtracked_on_answers(name, args, expected):
    assert _answers([(name, args)]) == [expected]


@pytest.mark.parametrize(("name", "args"), [
    ("REGEXTEST", '("x" * 40, "(x|xx)+y")'),
    ("REGEXEXTRACT", '("x" * 40, "(x|xx)+y", 1)'),
    ("REGEXREPLACE", '("x" * 40, "(x|xx)+y", "z")'),
    ("REGEXREPLACE", '("x" * 40, "(x|xx)+y", "z", 1)'),
])
def test_a_match_that_cannot_end_in_time_is_value_error(name, args):
    from rates_xl.calc.xlfuncs.text.regex import MATCH_SECONDS

    assert MATCH_SECONDS <= 5
    assert _answers([(name, args)]) == ["#VALUE!"]


def test_pcre2_syntax_re_refused_is_read():
    """Unicode properties and `(?<name>...)` groups are PCRE2's (Excel's engine); `re` refused
    both (#VALUE!)."""
    assert _answers([("REGEXEXTRACT", '("abc123", "\\\\p{L}+")'),
                     ("REGEXEXTRACT", '("abc123", "(?<d>\\\\d+)", 2)')]) == ["'abc'", "'123'"]
