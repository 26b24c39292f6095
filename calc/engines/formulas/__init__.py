"""The `formulas` engine (the `formulas` package, EUPL): slow, exact on some classes; used when
formualizer cannot read a book at all, or when asked for (`--engine formulas`).

- `engine.py`: `FormulasEngine`, the adapter (loads the file, reads its values back as Excel
  shows them);
- `functions.py`: the RATES_* functions registered in it, and the fixes it needs (INDEX, WORKDAY);
- `rewriting.py`: its copy of the book's formulas, rewritten where it would read them otherwise
  than Excel;
- `kept.py`: the cells it keeps at the file's value, listed (a function it lacks, a formula it
  cannot parse, what reads a value it cannot hold).
"""
