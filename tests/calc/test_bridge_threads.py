"""formualizer calls Python functions from several threads, and the bridged `formulas`
functions import modules lazily inside their calls: computed at once from a fresh process,
two of them could meet a partly imported module (schedula's `EMPTY`), an error cell that
varied from run to run (poi_MatrixFormulaEvalTestData.xlsx: MMULT, MINVERSE, MDETERM).
Every fresh computation must list the same cells as stale (the ones the engine really gets
wrong), never a varying few more."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.calc.excel_cases import corpus_book

_CHILD = r"""
import json, sys
from rates_xl.calc.workbook import WorkbookCalculation

result = WorkbookCalculation(sys.argv[1], full=True).compute()
print(json.dumps(sorted(f"{s.sheet}!{s.cell} {s.reason}" for s in result.stale)))
"""


@pytest.mark.slow
def test_bridged_functions_never_fail_on_a_race_between_threads():
    book = corpus_book("poi_MatrixFormulaEvalTestData.xlsx")
    runs = []
    for _ in range(4):  # a race: fresh processes
        done = subprocess.run([sys.executable, "-c", _CHILD, str(book)], capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    varying = set().union(*runs) - set.intersection(*map(set, runs))
    assert not varying, sorted(varying)[:5]
