"""The fast engine: formualizer (Rust; MIT), computing a copy of the book prepared so that it
computes every formula the way Excel does.

- `engine.py`: `FormualizerEngine`, the adapter (loads the copy, reads each round's values back
  the way Excel shows them: spills, legacy arrays, loops, Excel's zero after a + or -);
- `prepare.py`: the engine's copy of the book (each formula through calc/formula's passes and
  fit; what it would compute wrongly reported instead, with the file's cached value);
- `fitting.py`: one ordinary cell's formula fitted (the passes, the analysis, the fit, or its
  shape's answer moved to it), and why the engine cannot compute a formula at all;
- `cells.py`: what a cell of the copy holds besides a formula (the file's cached value, Excel's
  empty text, a legacy array's range filled, numbers without a date format); the copy's
  bytes are openpyxl's save (calc/xlsx_writer.py, each sheet's cells written as text);
- `reach.py`: how far a sheet's formulas reach (whole rows read; the last row a sheet may hold
  a value in, which a whole column is read down to);
- `links.py`: whether the copy keeps the file's links to other workbooks (only where a formula
  can read them: formualizer's INDIRECT of a computed text is #REF! in a file holding one);
- `displayed.py`: a book set to precision as displayed: each formula's number rounded as its
  cell's format shows it (calc/displayed_precision.py), or listed;
- `lookups.py`: a table many VLOOKUP/HLOOKUP calls read, handed to Python once per evaluation
  (a helper cell on a sheet of its own, RATESXL.TABLE) instead of once per call;
- `model.py`: the copy loaded in formualizer with the RATES_* functions and calc/xlfuncs
  registered, computed again cheaply in later planning rounds;
- `values.py`: formualizer's values and Excel's, both ways.
- `legacy_fills.py`: a legacy array's range filled past its result, kept across planning rounds;
- `callbacks.py`: our functions as the engine calls them from its worker thread (that thread's
  Python state kept between calls, not made and thrown away on each).
"""
