"""FREQUENCY with bins not in ascending order, as Excel answers it: each count in its bin's
place. `formulas` sorts the bins and answers the counts in that order: FREQUENCY(data, {10;20;
15;5}) had 10's count in 5's place (IronCalc's Excel-made STATISTICAL__FREQUENCY.xlsx D17:D21,
MIT or Apache-2.0, not committed, is 5, 1, 2, 3, 4); a bin repeated counts at its first place,
0 at the others (formulas_test.xlsx EXTRA!H50:H62).
"""

from __future__ import annotations

from rates_xl.calc.engines.formualizer.values import EngineValue
from rates_xl.calc.xlfuncs.coercion import Callback, is_number
from rates_xl.calc.xlfuncs.types import Answer


def bins_in_place(call: Callback) -> Callback:
    """FREQUENCY (the bridged function), its counts moved from the bins' ascending order back to
    the order they were given in, where every bin is a plain number (else its answer as it is)."""

    def frequency(data: EngineValue, bins: EngineValue) -> Answer:
        cells = [value for row in bins for value in (row if isinstance(row, list) else [row])] \
            if isinstance(bins, list) else [bins]
        plain = [float(value) for value in cells if is_number(value)]
        if len(plain) != len(cells):
            return call(data, bins)  # (a bin of text, a logical value, an empty cell: as it is)
        distinct = sorted(set(plain))
        # `formulas`' counts over the distinct bins in ascending order, the count past the last
        # after them; each goes to its bin's first place as given, a repeat's place is 0
        # (formulas_test.xlsx EXTRA!H50:H54, FREQUENCY(..., {1,3;5,3}) is 4, 5, 2, 0, 1).
        answer = call(data, [[value] for value in distinct])
        if not isinstance(answer, list) or len(answer) != len(distinct) + 1:
            return answer
        counts = [row[0] if isinstance(row, list) else row for row in answer]
        rank = {value: index for index, value in enumerate(distinct)}
        placed = [counts[rank[value]] if plain.index(value) == index else 0.0 for index, value in enumerate(plain)]
        return [[count] for count in placed] + [[counts[-1]]]

    frequency.__name__ = "FREQUENCY"
    return frequency
