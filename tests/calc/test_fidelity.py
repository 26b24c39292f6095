"""Measured fidelity: the calculator against values another engine computed.

- The corpus (`corpus/reference/`, recalculated by LibreOffice; `corpus/build.py` rebuilds
  it): the share of formula cells equal to LibreOffice's, floor `FIDELITY_FLOOR`, every cell
  not computed listed with its reason, no traceback on any file.
- The five templates: the fast engine against the `formulas` engine (the one the templates
  were built and checked with), cell for cell, on the same service answers.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from rates_xl.calc.fidelity import measure, same
from rates_xl.calc.workbook import WorkbookCalculation  # noqa: F401 - used below
from rates_xl.client import RatesClient
from rates_xl.templates import TEMPLATES, template_path
from tests.calc.corpus import build

CORPUS = Path(__file__).parent / "corpus"
REFERENCES = sorted((CORPUS / "reference").glob("*.xlsx"))

#: The corpus sets it: the README quotes the measured figure (3 known differences are
#: LibreOffice's own: CONCATENATE(TRUE), COUNT over booleans; and HLOOKUP on unsorted data).
FIDELITY_FLOOR = 0.99


@pytest.fixture(scope="module")
def corpus_fidelity():
    return {path.name: measure(path) for path in REFERENCES}


def test_corpus_is_there():
    assert {p.stem for p in REFERENCES} >= set(build.BUILDERS)


def test_fidelity_on_the_corpus(corpus_fidelity):
    compared = sum(f.compared for f in corpus_fidelity.values())
    equal = sum(f.equal for f in corpus_fidelity.values())
    assert compared > 12700
    share = equal / compared
    differences = [d for f in corpus_fidelity.values() for d in f.differences]
    assert share >= FIDELITY_FLOOR, f"{equal}/{compared} = {share:.4f}; differences: {differences[:20]}"


def test_every_cell_not_computed_is_listed_with_its_reason(corpus_fidelity):
    listed = 0
    for fidelity in corpus_fidelity.values():
        for cell in fidelity.result.skipped:
            assert cell.reason.startswith("not computed (") and (cell.sheet, cell.cell) in fidelity.formulas
            assert cell.reason.endswith("the file's cached value is kept")
            listed += 1
        assert fidelity.skipped == len(fidelity.result.skipped)
    # (arrays.xlsx I6, SUMPRODUCT(LEN(A:A)), was the one listed: computed over all of the
    # column's rows since calc/formula/column_products.py, LibreOffice's 11)
    assert listed == 0


def test_volatile_and_external_cells_are_counted_apart(corpus_fidelity):
    assert corpus_fidelity["edge_cases.xlsx"].volatile == 3
    assert corpus_fidelity["external_link.xlsx"].external == 2


def test_same_compares_as_the_issue_says():
    assert same(1.0, 1.0 + 1e-12) and not same(1.0, 1.0 + 1e-6)
    assert same("", None) and same(True, True) and not same(True, 1)
    assert same("#N/A", "#N/A") and not same("#N/A", "#VALUE!")


@pytest.fixture(scope="module")
def paid_client(sandbox):
    from rates_xl.sandbox import PAID_KEY

    with RatesClient(sandbox.base_url, api_key=PAID_KEY, rate_limit=1000, burst=1000) as client:
        yield client


@pytest.mark.slow
@pytest.mark.parametrize("name", list(TEMPLATES))
def test_fast_engine_matches_the_exact_engine_on_every_template(name, paid_client):
    pinned = "2026-11-20T16:00:00Z"
    fast = WorkbookCalculation(template_path(name))
    assert fast.engine_name == "fast", fast.engine_reason
    ours = fast.compute(paid_client, valuation_time=pinned)
    exact = WorkbookCalculation(template_path(name), engine_name="formulas").compute(
        paid_client, valuation_time=pinned)
    assert ours.errors == [] and exact.errors == []
    cells = set(ours.values) | set(exact.values)
    assert len(cells) >= ours.formula_cells
    different = [(c, ours.values.get(c), exact.values.get(c)) for c in sorted(cells)
                 if not same(_serial(ours.values.get(c)), _serial(exact.values.get(c)))]
    assert different == []


def _serial(value):
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice (soffice) is not installed")
def test_reference_corpus_is_what_libreoffice_computes(tmp_path):
    """The committed references are reproducible: rebuild one with LibreOffice and compare."""
    import openpyxl

    source = tmp_path / "circular_iterative.xlsx"
    build.circular(source, True)
    made = build.recalculate(source, tmp_path / "out")
    fresh = openpyxl.load_workbook(made, data_only=True)["Loop"]
    committed = openpyxl.load_workbook(CORPUS / "reference" / source.name, data_only=True)["Loop"]
    for r in range(1, 5):
        assert fresh[f"B{r}"].value == pytest.approx(committed[f"B{r}"].value)
    assert fresh["B1"].value == pytest.approx(50 / 0.975, rel=1e-6)  # computed, not XlsxWriter's 0
