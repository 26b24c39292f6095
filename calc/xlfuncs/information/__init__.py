"""Excel's information functions computed here (Insert Function: Information).

- `reference.py`: N, and T (a text function kept beside it): a multi-cell reference reads its
  first cell.
- `errors.py`: ERROR.TYPE of #CALC!, #SPILL! ... (the bridged `formulas` ERROR.TYPE numbers
  only its own eight).
"""
