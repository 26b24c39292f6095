"""Headless calculation: compute any workbook without Excel (`rates-xl calc`).

- `engine`: the RATES_* functions registered in the `formulas` engine (both spellings);
- `workbook`: `WorkbookCalculation` (load, plan / fetch / compute, error summary,
  values-frozen copy) and `calculate(path, out)`;
- `cli`: the `calc` command.
"""
