"""rates_xl.scenario: a book's numbers under a stated move of the curves, and their sensitivities.

- `spec.py`: the grammar (`SOFR+1bp`, `*+25bp`, `SOFR:10Y+1bp`, combinations), host-free;
- `model.py`: each index's curve rebuilt locally with QuantLib on the sandbox's conventions
  table, calibrated to the pack's answers, and shifted;
- `answers.py`: a recorded answer moved by the local model's change (shifted minus base), and
  what cannot be moved consistently, listed with why;
- `apply.py`: a market-data pack under a scenario (the scenario pack replay serves);
- `replay.py`: `rates-xl calc --replay --scenario`: a book replayed under a scenario, its
  copy marked as one;
- `risk.py`, `report.py`, `cli.py`: `rates-xl risk`, the DV01 and key-rate ladder of a book.

Import-light: QuantLib loads with model.py, on first use.
"""
