"""The fast engine: formualizer (Rust; MIT), computing a copy of the book prepared so that it
computes every formula the way Excel does.

- `engine.py`: `FormualizerEngine`, the adapter (loads the copy, reads each round's values back
  the way Excel shows them: spills, legacy arrays, loops, Excel's zero after a + or -);
- `prepare.py`: the engine's copy of the book (each formula through calc/formula's passes and
  fit; what it would compute wrongly reported instead, with the file's cached value);
- `model.py`: the copy loaded in formualizer with the RATES_* functions and calc/xlfuncs
  registered, computed again cheaply in later planning rounds;
- `values.py`: formualizer's values and Excel's, both ways.
"""
