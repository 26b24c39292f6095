"""The shipped templates open showing their stored values: Excel is not asked to recalculate.

Excel recalculates a workbook on open when (a) workbook.xml's calcPr says fullCalcOnLoad,
(b) calcPr's calcId is older than Excel's own calculation engine, or (c) for the cells that
depend on a volatile function (TODAY, NOW, OFFSET, ...), which are dirty at every open.
Each RATES_ cell recalculated on open is a service call made one at a time on Excel's main
thread before the user asked for anything.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import openpyxl
import pytest
from openpyxl.utils import get_column_letter, range_boundaries

from rates_xl.templates import layout

TEMPLATES = sorted((Path(layout.__file__).parent).glob("*.xlsx"))
VOLATILE = ("TODAY(", "NOW(", "OFFSET(", "INDIRECT(", "RAND(", "RANDBETWEEN(", "CELL(", "INFO(",
            "RATES_STATUS(")
_REF = re.compile(r"(?:'([^']+)'!|([A-Za-z_][\w ]*)!)?\$?([A-Z]{1,3})\$?(\d+)(?::\$?([A-Z]{1,3})\$?(\d+))?")


def _calc_pr(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        return re.search(r"<calcPr[^>]*/>", package.read("xl/workbook.xml").decode()).group(0)


def test_every_template_is_shipped():
    assert [p.name for p in TEMPLATES] == sorted(
        ["swap_pricer.xlsx", "curve_dashboard.xlsx", "fx_hedging.xlsx", "swap_spreads.xlsx", "history.xlsx"])


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: p.name)
def test_no_recalculation_on_load(path):
    calc = _calc_pr(path.read_bytes())
    assert "fullCalcOnLoad" not in calc
    assert f'calcId="{layout.CALC_ENGINE_ID}"' in calc


def test_a_freshly_written_book_asks_for_no_recalculation():
    buffer = io.BytesIO()
    book = layout.Book(buffer)
    book.wb.add_worksheet("S").write_formula("A1", "=1+1", None, 2)
    book.close()
    calc = _calc_pr(buffer.getvalue())
    assert "fullCalcOnLoad" not in calc and f'calcId="{layout.CALC_ENGINE_ID}"' in calc


def _rates_cells_dirty_on_open(path: Path) -> list[str]:
    """RATES_ cells that depend, directly or through other cells, on a volatile function."""
    book = openpyxl.load_workbook(path)
    formulas = {}
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                value = getattr(cell.value, "text", cell.value)
                if isinstance(value, str) and value.startswith("="):
                    formulas[(sheet.title, cell.coordinate)] = value.upper()
    precedents = {}
    for key, formula in formulas.items():
        refs = set()
        for m in _REF.finditer(re.sub(r'"[^"]*"', '""', formula)):
            sheet = m.group(1) or (m.group(2) or "").strip() or key[0]
            last = (m.group(5) or m.group(3), m.group(6) or m.group(4))
            c1, r1, c2, r2 = range_boundaries(f"{m.group(3)}{m.group(4)}:{last[0]}{last[1]}")
            refs |= {(sheet, f"{get_column_letter(c)}{r}")
                     for c in range(c1, c2 + 1) for r in range(r1, min(r2, r1 + 2000) + 1)}
        precedents[key] = {(s.upper(), c) for s, c in refs}
    dirty = {k for k, f in formulas.items() if any(v in f for v in VOLATILE)}
    dirty_upper = {(s.upper(), c) for s, c in dirty}
    grew = True
    while grew:
        grew = False
        for key, refs in precedents.items():
            if key not in dirty and refs & dirty_upper:
                dirty.add(key)
                dirty_upper.add((key[0].upper(), key[1]))
                grew = True
    return sorted(f"{s}!{c}" for s, c in dirty if "RATES_" in formulas[(s, c)] or "RATES." in formulas[(s, c)])


# The templates take their dates from the service (the start of a discount curve at 0D, 1D,
# 2D), never from TODAY(): no RATES_ cell is dirty when a template opens.
@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: p.name)
def test_no_rates_cell_recalculates_on_open(path):
    assert _rates_cells_dirty_on_open(path) == []
