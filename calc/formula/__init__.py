"""The formula front end: a formula read once into tokens and groups, and the engine's copy of
it made by one ordered list of passes (`passes.PASSES`), each reproducing one Excel behaviour
formualizer lacks.

- `tree.py`: `Formula` (its tokens, from functions/tokens.py, the one tokenizer, and their
  nesting: calls, parentheses, array constants and their arguments) and `Edits`;
- `site.py`: where a formula stands (`Site`) and what the passes read of its book (`BookFacts`),
  `NotComputed`;
- `passes.py`: the ordered list, its stages (NAMES, EVERY, ORDINARY, ARRAY, WRITTEN) and `rewrite`;
- the passes, by what they handle: `arguments.py` (omitted ones, typed literals, AND/OR/XOR's
  text, CHOOSE's index), `calls.py` (SUMPRODUCT, INDEX, TYPE, ISFORMULA, RATES_SOURCE), `cell_info.py` (CELL("filename"): the book's path and a sheet's name),
  `lotus_rules.py` (a sheet evaluating by Lotus 1-2-3's rules: its formulas listed), `formula_text.py`
  (FORMULATEXT from the book's own formulas),
  `operators.py` (reference operators, AREAS, ANCHORARRAY, spill references, defined names;
  `reference_areas.py` reads the areas a reference expression covers),
  `implicit.py` (implicit intersection written out: `@`, and a reference a call answers where one
  value is wanted), `ranges.py` (whole columns and INDEX of them, INDIRECT's text, R1C1 text), `offsets.py`
  (OFFSET's negative heights and widths), `defined_names.py`
  (the defined names the engine drops: dynamic ranges, formulas, array constants, relative
  references, written into the formulas using them), `criteria_ranges.py` (SUMIF's
  sum range at its range's size, the IFS functions' ranges of different sizes), `error_ranges.py`
  (a range given as an error to COUNTIF, SUMIF, MATCH ...: the error), `indirect_lists.py` (SUMIF of INDIRECT
  over a list of sheets, once per sheet), `lookup_references.py` (XLOOKUP beside ':' or given
  to ROW, OFFSET ... as the reference it answers),
  `column_products.py` (SUMPRODUCT, FILTER and array formulas over whole columns over all
  their rows), `databases.py` (the database functions' whole columns), `hidden_rows.py` (SUBTOTAL
  over rows a sheet hides), `tables.py` (structured references), `three_d.py` (3-D references), `lambdas.py` (the LAMBDA
  family, named LAMBDAs, GROUPBY's function), `text.py` (numbers joined into text), `text_limit.py` (a join
  past a cell's 32,767 characters is #VALUE!), `caught_errors.py` (UPPER, TRIM, CONCAT ... of
  an error read by ISERROR, ISNA, IFNA ...), `number_arguments.py` (a date or a time as text
  where a function wants a number);
- `hazards.py`: what formualizer would compute wrongly as written (`analyse`), and `fit.py`: the
  rewriting of it as Excel evaluates it (lifting, implicit intersection, helper cells);
- `terms.py`: the terms of a final + or - (Excel's rounding to 0); `powers.py`: `^` as Excel's
  (0^0 #NUM!), written as POWER where it matters; `reversed_ranges.py`: a range written with its
  corners the other way round (`A3:A1`) as the range between them; `unions.py`: a union of
  ranges given to a function (`SUM((B1,B3))`, RANK's reference), which the engine knows not;
  `positions.py`: ROWS and COLUMNS of a reference written out (ROW and COLUMN of one cell for the
  `formulas` engine) as the numbers they are, no circular reference through the formula's cell;
- `comparisons.py`: the operands of a comparison rounded to 15 significant digits, as Excel
  compares (the pass `excel_comparisons`);
- `shapes.py`: a formula's shape (its references relative to its cell, as R1C1 writes them),
  and `memo.py`: each shape rewritten once, the answer moved to its copies where it is shown
  to move with the cell.
"""
