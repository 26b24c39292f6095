"""Headless calculation: compute any workbook without Excel (`rates-xl calc`).

- `workbook`: `WorkbookCalculation` (load, choose the engine, plan / fetch / compute, the
  summary: errors, cells not computed and why, loops, notes; the values-frozen copy),
  `calculate(path, out)` and `calculate_many(paths)` (several books, one fetch);
- `analysis`: reads a formula's tokens: the calls the fast engine would get wrong, and their
  rewriting the way Excel evaluates them (per cell, implicit intersection);
- `fast`: the fast engine (formualizer) with the RATES_* functions and the prepared copy;
- `engine`: the RATES_* functions in the `formulas` engine (the exact fallback) and the
  conversions and fixes both engines share;
- `fidelity`: compare computed values with the ones another engine cached in a file;
- `cli`: the `calc` command.
"""
