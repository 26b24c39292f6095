"""Excel's logical functions computed here (Insert Function: Logical).

- `lambdas.py`: the LAMBDA family (MAP, BYROW, BYCOL, SCAN, REDUCE, MAKEARRAY), which the pass
  `lambdas` (calc/formula/lambdas.py) routes to RATESXL.LAMBDA;
- `pipes.py`: the formulas RATESXL.LAMBDA compiles (and their LAMBDA bodies) run without
  schedula's dispatch per call;
- `comparison.py`: RATESXL.CMPROUND, an operand of a comparison rounded to 15 significant
  digits as Excel compares (the pass `excel_comparisons`, calc/formula/comparisons.py).
"""
