"""Excel's lookup and reference functions computed here (Insert Function: Lookup & Reference,
dynamic arrays included).

- `lookups`: XLOOKUP, XMATCH (every match and search mode, lifted over arrays), LOOKUP, MATCH,
  VLOOKUP, HLOOKUP (Excel's bisection);
- `indexing`: INDEX of an array constant, a union or a 2-D range;
- `address`: ADDRESS (R1C1 style, sheet names);
- `arrays`: VSTACK, HSTACK, TAKE, DROP, TOCOL, TOROW, EXPAND, WRAPROWS, WRAPCOLS,
  CHOOSEROWS, CHOOSECOLS (array shaping, spilled);
- `ordering`: SORT, SORTBY, UNIQUE, FILTER;
- `groupby`: GROUPBY and PIVOTBY; `aggregations`: the functions they apply to each group.
"""
