"""The function table's examples, which the reference shows as formulas, compute against the
sandbox: a documented example never shows a #RATES! message."""

from __future__ import annotations

from rates_xl.functions import FUNCTIONS
from rates_xl.functions.core import Call
from rates_xl.functions.messages import PREFIX


def test_the_documented_examples_compute_against_the_sandbox(client):
    for name, spec in FUNCTIONS.items():
        for example in spec.examples:
            # A nested call (RATES_SOURCE(RATES_SWAP(...))) is computed first, as Excel does.
            value = spec.core(*(v.value() if isinstance(v, Call) else v for v in example))
            assert not (isinstance(value, str) and value.startswith(PREFIX)), (name, example, value)
            assert isinstance(value, (float, list)), (name, example, value)
