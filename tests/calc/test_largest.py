"""LARGE and SMALL computed here on a range of plain values and a number k
(calc/xlfuncs/statistical/largest.py), as the bridged `formulas` implementation computes them:
Excel's values on formulas_test.xlsx (read at test time), the bridged answers on random ranges,
and a book calling LARGE computed without importing `formulas` (a fresh process)."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from tests.calc.excel_cases import assert_cell_as_excel, corpus_book

CELLS = ["S57", "T57", "V57", "W57", "Y57", "AA57", "AG57", "S95", "T95", "V95", "W95", "Y95", "AB95"]


@pytest.mark.parametrize("cell", CELLS)
def test_as_excel_on_the_function_grid(cell, tmp_path):
    assert_cell_as_excel(f"LARGE/SMALL {cell}", "formulas_test.xlsx", f"STATISTICAL!{cell}", tmp_path, strict=True)


def test_as_the_bridged_implementation_on_random_ranges():
    from rates_xl.calc.xlfuncs import callbacks
    from rates_xl.calc.xlfuncs.bridge import bridged

    computed = callbacks()
    rnd = random.Random(30)
    for name in ("LARGE", "SMALL"):
        ours, theirs = computed[name], bridged(name)
        for _ in range(400):
            width = rnd.randint(1, 4)
            cells = [[rnd.choice([rnd.uniform(-5, 5), float(rnd.randint(-3, 3)), None, "x", True, False, 2])
                      for _ in range(width)] for _ in range(rnd.randint(1, 4))]
            k = rnd.choice([0.0, 1.0, 2.0, 2.5, 3.7, -1.0, 7.0, 1.2, 0.5, 5.0, 3, 1.0000001, 0.9999])
            assert ours(cells, k) == theirs(cells, k), (name, cells, k)


_CHILD = r"""
import json, sys
from rates_xl.calc.workbook import WorkbookCalculation

result = WorkbookCalculation(sys.argv[1], full=True).compute()
print(json.dumps({"modules": sorted(m for m in ("formulas", "scipy") if m in sys.modules),
                  "stale": len(result.stale), "skipped": len(result.skipped)}))
"""


def test_a_book_calling_large_is_computed_without_formulas():
    book = corpus_book("ironcalc_travel_expenses_tracker.xlsx")
    done = subprocess.run([sys.executable, "-c", _CHILD, str(book)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got == {"modules": [], "stale": 0, "skipped": 0}
