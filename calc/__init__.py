"""Headless calculation: compute any workbook without Excel (`rates-xl calc`).

- `workbook`: `WorkbookCalculation` coordinates (plan / fetch / compute, the summary: errors,
  cells not computed and why, loops, notes), `calculate(path, out)` and
  `calculate_many(paths)` (several books, one fetch);
- `book`: the workbook as read once (formulas, cached values, array formulas, names);
- `engines`: the `Engine` interface and the one place that picks an engine
  (`engines/formualizer/`: the fast one; `engines/formulas/`: the `formulas` package);
- `results`: what a calculation answers (`CalcResult`, `BatchResult`, the summary's cells);
- `recalc`: what is recomputed (default: only what changed; `--full`: everything) and the
  check against Excel's cached values (stale cells); `dependencies`: the reference graph;
  `check`: when a computed value agrees with Excel's;
- `frozen`: the values-frozen copy;
- `formula`: the formula front end: a formula read once (one tokenizer, one tree) and the
  engine's copy of it made by one ordered list of passes (calc/formula/passes.py), then fitted
  the way Excel evaluates it (per cell, implicit intersection, helper cells);
- `fidelity`: compare computed values with the ones another engine cached in a file;
- `cli`: the `calc` command.
"""
