"""Excel's date and time functions computed here (Insert Function: Date & Time).

- `daycount.py`: YEARFRAC (every basis, by Wheeler's reading of Excel), DATEDIF's "MD", EDATE and
  EOMONTH on plain dates;
- `clock.py`: TIME (a negative total is #NUM!, not the day before);
- `calendar.py`: DATE before March 1900 (Excel's 29 February 1900);
- `days360.py`: DAYS360 (Excel's day 0, dates to the second, the method's readings);
- `system1904.py`: a book counting dates from 1904 (date1904): each date function on its system;
- `text_dates.py`: date text as Excel reads it, in every `formulas` function reading one, and DATEVALUE.
"""
