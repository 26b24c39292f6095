"""Excel's date and time functions computed here (Insert Function: Date & Time).

- `daycount`: YEARFRAC (every basis, by Wheeler's reading of Excel), DATEDIF's "MD", EDATE and
  EOMONTH on plain dates;
- `clock`: TIME (a negative total is #NUM!, not the day before);
- `calendar`: DATE before March 1900 (Excel's 29 February 1900).
"""
