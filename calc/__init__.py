"""Headless calculation: compute any workbook without Excel (`rates-xl calc`).
docs/architecture.md draws the path, from a book's cells to its values-frozen copy.

- `workbook.py`: `WorkbookCalculation` coordinates (plan / fetch / compute, the summary: errors,
  cells not computed and why, loops, notes), `calculate(path, out)` and
  `calculate_many(paths)` (several books, one fetch);
- `package.py`: the file read once (its bytes, for every reader) and what openpyxl drops;
  `safezip.py`: a zip bomb refused before anything inflates it; `strict.py`: a Strict Open
  XML book read as the Transitional one it maps to;
- `book.py`: the workbook as read once (formulas, cached values, array formulas, names);
  `merged_read.py`: its merged ranges read without their border formatting until a copy is written;
  `openpyxl_read.py`: openpyxl's reading of it, read again with less where openpyxl fails (never lost whole);
  `pivot_read.py`: its pivot tables read where openpyxl fails on one (the book never lost for it);
  `style_read.py`: its stylesheet kept to its number formats where openpyxl cannot read it;
  `feed_links.py`: its links to a DDE or OLE feed read, and written back as the file held them;
  `rich_values.py`: what a cell holding a rich value holds (an error past the classic seven, a
  picture in a cell, a linked data type), which the file stores as #VALUE!;
  `stored_cells.py`: openpyxl's parse of its sheets, faster, keeping each cell's stored value and array mark;
  `sheet_xml.py`: a sheet's rows and cells, written as Excel writes them, read by regular expressions;
  `shared_formulas.py`: a shared formula's copies written as openpyxl's Translator writes them, faster;
  `merged_spills.py`: a spill over merged cells is #SPILL!, as in Excel;
  `undo.py`: that one openpyxl workbook lent to the fast engine's preparation and put back as
  read, for the values-frozen copy;
- `collector.py`: the cyclic garbage collector held off while a book's structures are built;
- `budget.py`: every book's budget (cells its formulas may read, seconds it may compute);
- `valuation.py`: the book's valuation moment (RATES_VALUATION_TIME);
- `displayed_precision.py`: a book set to precision as displayed: the decimals each format
  shows, to which each formula's number is rounded (`engines/formualizer/displayed.py`);
- `recalc.py`: what is recomputed (default: only what changed; `--full`: everything) and the
  check against Excel's cached values (stale cells); `dependencies.py`: the reference graph;
  `check.py`: when a computed value agrees with Excel's;
- `formula/`: the formula front end: a formula read once (one tokenizer, one tree) and the
  engine's copy of it made by one ordered list of passes (calc/formula/passes.py), then fitted
  the way Excel evaluates it (per cell, implicit intersection, helper cells);
- `engines/`: the `Engine` interface and the one place that picks an engine
  (`engines/formualizer/`: the fast one; `engines/formulas/`: the `formulas` package);
  `routing.py`: which engine computes which Excel function;
- `xlfuncs/`: Excel-exact functions the fast engine gets wrong, grouped by Excel's categories;
- `sources.py`: RATES_SOURCE in calc (the engine passes the referenced cell's own call);
- `data_tables.py`: what-if data tables, computed as Excel's what-if analysis computes them;
- `results.py`: what a calculation answers (`CalcResult`, `BatchResult`, the summary's cells);
  `error_cells.py`: its error cells, each with why (a blocked spill, a RATES_ call's message);
- `frozen.py`: the values-frozen copy; `copy_losses.py`: what the copy lacks of the original
  (openpyxl does not carry shapes, embedded objects ... over), named in the summary;
  `xlsx_writer.py`: openpyxl's save, the same bytes, with the sheets' cells written faster
  (the engine's copy and the values-frozen copy);
  `provenance.py`: whether a computed copy can be
  trusted as a record (its sealed pack);
- `diff.py`: two computed copies of one book, cell by cell, and the answers behind each change;
- `attribution.py`: which requests a cell was computed from, read from its book's formulas;
- `fidelity.py`: compare computed values with the ones another engine cached in a file;
- `cli.py`: the `calc` command, `cli_summary.py`: what it shows (each book's summary, its
  progress); `diff_cli.py`: the `diff` command.
"""
