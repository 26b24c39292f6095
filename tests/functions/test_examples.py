"""The function table's examples, which the reference shows as formulas, compute against the
sandbox: a documented example never shows a #RATES! message."""

from __future__ import annotations

from rates_xl.functions import FUNCTIONS
from rates_xl.functions.messages import PREFIX


def test_the_documented_examples_compute_against_the_sandbox(client):
    for name, spec in FUNCTIONS.items():
        for example in spec.examples:
            value = spec.core(*example)
            assert not (isinstance(value, str) and value.startswith(PREFIX)), (name, example, value)
            assert isinstance(value, (float, list)), (name, example, value)
