"""The values calc/xlfuncs' functions take and answer, named once (formualizer's values,
calc/engines/formualizer/values.py: what it hands a Python function and stores back).

- `EngineScalar`: one Excel value (a number, text, a boolean, None for an empty cell, a date
  for a date-formatted number, formualizer's error value);
- `Rows`: a range's or an array's values, rows of scalars;
- `EngineValue`: an argument, a scalar or rows;
- `Answer`: what a function answers, an argument's kind of value or rows of such answers
  (where a function of single values is lifted over an array); read-only rows, so rows of
  numbers or of text are rows of answers too (values.to_engine stores it);
- `SortKey`: a value's place in Excel's order (its type's rank, then the value).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

from rates_xl.calc.engines.formualizer.values import EngineScalar, EngineValue

__all__ = ["Answer", "EngineScalar", "EngineValue", "Rows", "SortKey"]

Rows: TypeAlias = list[list[EngineScalar]]
Answer: TypeAlias = "EngineValue | Sequence[Sequence[Answer]]"
SortKey: TypeAlias = tuple[int, float | str]
