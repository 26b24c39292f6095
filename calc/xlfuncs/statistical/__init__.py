"""Excel's statistical functions computed here (Insert Function: Statistical).

- `stats.py`: SKEW.P, MODE.MULT, STDEVA/VARA (a cell's text);
- `conditional.py`: the criteria functions: COUNTIF(S), AVERAGEIF(S), MAXIFS, MINIFS, and SUMIF(S)
  (Math & Trig in Excel's dialog; the same criteria);
- `ets.py`: the FORECAST.ETS family's argument checks and exact cases;
- `trend.py`: TREND and GROWTH on one x variable;
- `percentiles.py`: PERCENTILE and QUARTILE (.INC, .EXC) over the numbers of their array;
- `largest.py`: LARGE and SMALL over a range of plain values;
- `binomial.py`: BINOM.DIST.RANGE, BINOM.INV's and NEGBINOM.DIST's probability checks;
- `tails.py`: the cumulative normal's lower tail, POISSON.DIST's whole events, T.TEST's tails;
- `frequency.py`: FREQUENCY over bins not in ascending order.
"""
