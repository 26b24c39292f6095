"""The fast engine's evaluation order after an edit: a formula reading, through another, a
cell of a spill that changes in the same evaluation is computed after it (calc/engines/
formualizer/model.py's `evaluation_config`: why the engine keeps formualizer's parallel
evaluation). tests/calc/test_calc.py has the same through the planning rounds and the sandbox."""

from __future__ import annotations

import formualizer
import pytest

from rates_xl.calc.engines.formualizer.model import evaluation_config


def _book(parallel: bool, threads: int = 1):
    config = evaluation_config(threads)
    config.enable_parallel = parallel
    workbook = formualizer.Workbook(config=formualizer.WorkbookConfig(eval_config=config))
    workbook.add_sheet("S")
    workbook.set_value("S", 1, 6, 0)  # F1: how many rows A1 spills (none at first)
    workbook.set_value("S", 1, 5, 1)  # E1
    workbook.set_formula("S", 1, 1, '=IF(F1>0,SEQUENCE(F1,1,10,10),"none")')
    workbook.set_formula("S", 1, 2, '=IF(ISNUMBER(A2),A2,"")')  # a cell of A1's spill
    workbook.set_formula("S", 1, 3, '=IF(ISNUMBER(B1),B1+1,"")')
    workbook.set_formula("S", 1, 4, '=IF(ISNUMBER(C1),C1*E1,"")')
    workbook.evaluate_all()
    assert [workbook.get_value("S", 1, c) for c in (1, 2, 3, 4)] == ["none", "", "", ""]
    return workbook


def test_the_engine_evaluates_in_parallel_on_the_threads_set():
    assert evaluation_config().enable_parallel is True
    assert evaluation_config().max_threads == 1  # calc_threads' default
    assert evaluation_config(3).max_threads == 3
    assert evaluation_config(0).max_threads is None  # formualizer's own: one per core


@pytest.mark.parametrize("threads", [1, 0])
@pytest.mark.parametrize("edit", ["value", "formula"])
@pytest.mark.parametrize("parallel", [True, pytest.param(False, marks=pytest.mark.xfail(
    strict=True, reason="formualizer 0.13.0's sequential evaluation computes D1 before the "
                        "spill's readers and never again (D1 stays \"\"); fixed, it may be used"))])
def test_a_dirty_formula_behind_a_changed_spill_is_computed_after_it(parallel, edit, threads):
    workbook = _book(parallel, threads)
    workbook.set_value("S", 1, 6, 3)  # A1 now spills 10, 20, 30
    if edit == "value":
        workbook.set_value("S", 1, 5, 2)  # D1 dirty through its own precedent
    else:
        workbook.set_formula("S", 1, 4, '=IF(ISNUMBER(C1),C1*E1,"")')  # D1 set again (a RATES_* round)
    workbook.evaluate_all()
    assert [workbook.get_value("S", r, 1) for r in (1, 2, 3)] == [10.0, 20.0, 30.0]
    assert workbook.get_value("S", 1, 3) == 21.0
    assert workbook.get_value("S", 1, 4) == (42.0 if edit == "value" else 21.0)
