"""Excel's statistical functions computed here (Insert Function: Statistical).

- `stats`: SKEW.P, MODE.MULT, STDEVA/VARA (a cell's text);
- `conditional`: the criteria functions: COUNTIF(S), AVERAGEIF(S), MAXIFS, MINIFS, and SUMIF(S)
  (Math & Trig in Excel's dialog; the same criteria);
- `ets`: the FORECAST.ETS family's argument checks and exact cases;
- `trend`: TREND and GROWTH on one x variable;
- `percentiles`: PERCENTILE and QUARTILE (.INC, .EXC) over the numbers of their array.
"""
