"""docs/history.md's worked examples are what the cells show: each formula followed by a
table is computed again against the sandbox and compared, cell by cell (numbers to the four
places the page shows)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from rates_xl.functions import FUNCTIONS
from rates_xl.functions.history import OPTIONS

PAGE = Path(__file__).resolve().parents[2] / "docs" / "history.md"
_EXAMPLE = re.compile(r"```text\n(=RATES_SWAPHISTORY\((.*)\))\n```\n\n((?:\|.*\|\n)+)")


def _arguments(text: str) -> list[str | None]:
    """`"SOFR", "2Y,10Y", , "Per=M"` -> ["SOFR", "2Y,10Y", None, "Per=M"] (quoted or empty)."""
    out = []
    for part in re.findall(r'\s*("(?:[^"]|"")*"|)\s*(?:,|$)', text)[:-1]:
        out.append(part[1:-1].replace('""', '"') if part else None)
    return out


def _shown(value) -> str:
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, float):
        return f"{value:.4f}"
    return "(blank)" if value == "" else str(value)


def _examples() -> list[tuple[str, list[str | None], list[list[str]]]]:
    found = []
    for formula, args, table in _EXAMPLE.findall(PAGE.read_text(encoding="utf-8")):
        rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in table.strip().splitlines()]
        found.append((formula, _arguments(args), [rows[0], *rows[2:]]))  # without the |---| line
    return found


def test_the_page_has_a_worked_example_for_every_option():
    formulas = " ".join(f for f, _, _ in _examples())
    assert len(_examples()) >= 10
    for name in [*OPTIONS, "CDR"]:
        assert f'{name}=' in formulas, name


@pytest.mark.parametrize("formula, args, table", _examples(), ids=[f for f, _, _ in _examples()])
def test_each_worked_example_is_what_the_cell_shows(client, formula, args, table):
    spill = FUNCTIONS["RATES_SWAPHISTORY"].core(*args)
    assert isinstance(spill, list), spill
    assert [[_shown(v) for v in row] for row in spill] == table
