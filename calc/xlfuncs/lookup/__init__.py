"""Excel's lookup and reference functions computed here (Insert Function: Lookup & Reference,
dynamic arrays included).

- `lookups.py`: XLOOKUP, XMATCH (every match and search mode, lifted over arrays), LOOKUP, MATCH,
  VLOOKUP, HLOOKUP (Excel's bisection);
- `tables.py`: a VLOOKUP/HLOOKUP table many calls search, its first values and an exact-match
  index built once;
- `indexing.py`: INDEX of an array constant, a union or a 2-D range;
- `address.py`: ADDRESS (R1C1 style, sheet names);
- `reference_text.py`: RATESXL.REFTEXT, INDIRECT's text checked (#REF! for one naming nothing);
- `unions.py`: RATESXL.UNION, a union of ranges' cells as one column (RANK's reference);
- `arrays.py`: VSTACK, HSTACK, TAKE, DROP, TOCOL, TOROW, EXPAND, WRAPROWS, WRAPCOLS,
  CHOOSEROWS, CHOOSECOLS (array shaping, spilled);
- `ordering.py`: SORT, SORTBY, UNIQUE, FILTER;
- `groupby.py`: GROUPBY and PIVOTBY; `aggregations.py`: the functions they apply to each group.
"""
