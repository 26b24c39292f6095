"""The formula front end: a formula read once into tokens and groups, and the engine's copy of
it made by one ordered list of passes (`passes.PASSES`), each reproducing one Excel behaviour
formualizer lacks.

- `tree`: `Formula` (its tokens, from functions/tokens.py, the one tokenizer, and their
  nesting: calls, parentheses, array constants and their arguments) and `Edits`;
- `site`: where a formula stands (`Site`) and what the passes read of its book (`BookFacts`),
  `NotComputed`;
- `passes`: the ordered list, its stages (NAMES, EVERY, ORDINARY, ARRAY, WRITTEN) and `rewrite`;
- the passes, by what they handle: `arguments` (omitted ones, typed literals, AND/OR/XOR's
  text, CHOOSE's index), `calls` (SUMPRODUCT, INDEX, TYPE, ISFORMULA, RATES_SOURCE),
  `operators` (reference operators, AREAS, ANCHORARRAY, spill references, defined names),
  `ranges` (`@`, whole columns), `tables` (structured references), `lambdas` (the LAMBDA
  family, GROUPBY's function), `text` (numbers joined into text);
- `hazards`: what formualizer would compute wrongly as written (`analyse`), and `fit`: the
  rewriting of it as Excel evaluates it (lifting, implicit intersection, helper cells);
- `terms`: the terms of a final + or - (Excel's rounding to 0).
"""
