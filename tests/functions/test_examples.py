"""The function table's examples, which the reference shows as formulas, compute against the
sandbox: a documented example never shows a #RATES! message."""

from __future__ import annotations

from rates_xl.functions import FUNCTIONS
from rates_xl.functions.core import Call
from rates_xl.functions.messages import PREFIX


def test_the_documented_examples_compute_against_the_sandbox(client):
    for name, spec in FUNCTIONS.items():
        if name in ("RATES_SOURCE", "RATES_ERROR"):
            continue  # they need the cell itself, which only a host passes: computed below
            # (RATES_ERROR in tests/addin/test_error_values.py)
        for example in spec.examples:
            # A nested call (RATES_SOURCE(RATES_SWAP(...))) is computed first, as Excel does.
            value = spec.core(*(v.value() if isinstance(v, Call) else v for v in example))
            assert not (isinstance(value, str) and value.startswith(PREFIX)), (name, example, value)
            assert isinstance(value, (float, list)), (name, example, value)


def test_rates_source_example_computes_in_a_book_and_a_value_alone_is_refused(client, tmp_path):
    """RATES_SOURCE reads the cell's formula (a host passes it: calc, the classic add-in); the
    function table's own core, given a value alone, says so rather than guess."""
    import openpyxl

    from rates_xl.calc.workbook import calculate
    from rates_xl.functions import using_client
    from rates_xl.functions.reference import formula
    from rates_xl.functions.source import NEEDS_CELL

    spec = FUNCTIONS["RATES_SOURCE"]
    assert spec.core(3.61) == NEEDS_CELL
    book = openpyxl.Workbook()
    book.active.title = "S"
    for row, example in enumerate(spec.examples, start=1):
        book.active[f"A{row * 10}"] = formula(spec, example)
    book.save(tmp_path / "examples.xlsx")
    with using_client(client):
        result = calculate(tmp_path / "examples.xlsx", client=client)
    for row, _example in enumerate(spec.examples, start=1):
        assert result.values[("S", f"A{row * 10}")] == "Request", result.values[("S", f"A{row * 10}")]
