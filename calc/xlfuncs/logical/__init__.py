"""Excel's logical functions computed here (Insert Function: Logical).

- `lambdas.py`: the LAMBDA family (MAP, BYROW, BYCOL, SCAN, REDUCE, MAKEARRAY), which the pass
  `lambdas` (calc/formula/lambdas.py) routes to RATESXL.LAMBDA.
"""
