"""The FORECAST.ETS family (FORECAST.ETS, .CONFINT, .SEASONALITY, .STAT) where Excel's answer
is known exactly; everything else is answered "not computed".

Excel fits an additive (AAA) exponential triple smoothing model whose parameter search and
seasonality detection are undocumented: a forecast we computed another way would be close to
Excel's but not equal, the worst kind of answer. So this module computes:

- Excel's argument checks (formulas_test.xlsx, STATISTICAL rows 38-41; Microsoft's
  documentation): values and timeline of different sizes #N/A; seasonality outside 0..8760,
  data_completion other than 0/1, aggregation outside 1..7, a confidence level outside
  [0, 1), a statistic type outside 1..8, a target at or before both 0 and the step before
  the timeline's start: #NUM!; an error in a single-value argument passed on, first first;
- the duplicates aggregated and missing points completed (interpolated, or 0) as Excel does;
- answers that do not depend on the fitted parameters: a series that repeats exactly with the
  given seasonality (small integers, so no rounding anywhere) is fitted without error by any
  smoothing parameters, so its forecast on the timeline's grid is the value one season back,
  its confidence interval and error statistics (MASE, SMAPE, MAE, RMSE) 0; the step (STAT 8).

Anything else (auto-detected seasonality, alpha/beta/gamma, a real fit, a target between
grid points) answers #NAME? here: the check against Excel's cached values then lists the
cell as stale with its formula, and it is never recomputed to a near miss.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from typing import TypeGuard

from rates_xl.calc.engines.formualizer.values import error
from rates_xl.calc.xlfuncs.coercion import Callback, Factory, Facts
from rates_xl.calc.xlfuncs.lookup.arrays import number
from rates_xl.calc.xlfuncs.omitted import OMITTED, reads_omitted
from rates_xl.calc.xlfuncs.types import Answer, EngineScalar, EngineValue
from rates_xl.errors import Internal

#: What a case we cannot reproduce exactly answers: an error no Excel ETS call answers for a
#: valid call, so the stale check lists the cell (see the module docstring).
_NOT_COMPUTED = "#NAME?"

_AGGREGATE: dict[int, Callable[[list[float]], float]] = {
    1: statistics.fmean, 2: len, 3: len, 4: max, 5: statistics.median, 6: min, 7: math.fsum,
}


class _Answer(Internal):
    def __init__(self, value: EngineValue) -> None:
        super().__init__("answer")
        self.value = value


def _fail(text: str) -> _Answer:
    return _Answer(error(text))


def _not_computed() -> _Answer:
    return _fail(_NOT_COMPUTED)


def _flat(value: EngineValue) -> list[EngineScalar]:
    if not isinstance(value, list):
        return [value]
    return [cell for row in value for cell in (row if isinstance(row, list) else [row])]


def _scalar(value: EngineValue) -> float:
    """A single-value argument as Excel reads it (an error passed on, date text a serial)."""
    try:
        return number(value)
    except Exception as answer:  # arrays' _Answer: an error argument, or #VALUE!
        found = getattr(answer, "value", None)
        raise _Answer(found if found is not None else error("#VALUE!")) from None


def _option(value: EngineValue, default: float) -> float:
    if value == OMITTED:
        return default
    return _scalar(value)


def _whole(value: float, low: int, high: int) -> int:
    """An integer option in low..high; outside #NUM!; a fraction not computed (Excel's
    truncation of these is not measured)."""
    if not low <= value <= high:
        raise _fail("#NUM!")
    if value != int(value):
        raise _not_computed()
    return int(value)


class _Series:
    """The values on an equally spaced timeline: duplicates aggregated, gaps completed."""

    def __init__(self, values: EngineValue, timeline: EngineValue, completion: EngineValue, aggregation: EngineValue) -> None:
        ys, xs = _flat(values), _flat(timeline)
        if len(ys) != len(xs):
            raise _fail("#N/A")
        fill = _whole(_option(completion, 1.0), 0, 1)  # an empty cell is valid (SEASONALITY(...,H40))
        if aggregation is None:
            raise _not_computed()  # an empty cell: 0 (#NUM!) or the default? Not measured
        how = _whole(_option(aggregation, 1.0), 1, 7)
        numbers = [(x, y) for x, y in zip(xs, ys, strict=True) if _is_number(x) and _is_number(y)]
        if len(numbers) < len(xs):
            raise _not_computed()  # errors, text or empty cells in the data: not measured
        if len(xs) < 3:
            raise _not_computed()
        grouped: dict[float, list[float]] = {}
        for x, y in numbers:
            grouped.setdefault(float(x), []).append(float(y))
        times = sorted(grouped)
        gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
        if not gaps:
            raise _not_computed()
        self.step = min(gaps)
        counts = [gap / self.step for gap in gaps]
        if any(c != round(c) for c in counts):
            # No one step (Microsoft: #NUM!), but Excel may read month-based date steps:
            # not measured, so not computed.
            raise _not_computed()
        if sum(round(c) - 1 for c in counts) > 0.3 * (len(times) + sum(round(c) - 1 for c in counts)):
            raise _not_computed()  # Microsoft: up to 30 % of the points may be missing
        self.start = times[0]
        points = [float(_AGGREGATE[how](grouped[t])) for t in times]
        self.values = [points[0]]
        for count, value in zip(counts, points[1:], strict=True):
            missing = int(round(count)) - 1
            if missing and completion is None:
                raise _not_computed()  # an empty cell: zeros or the default interpolation? Not measured
            last = self.values[-1]
            if missing and fill == 0:
                self.values += [0.0] * missing
            else:
                self.values += [last + (value - last) * k / (missing + 1) for k in range(1, missing + 1)]
            self.values.append(value)

    def exactly_seasonal(self, seasonality: int) -> bool:
        """Whether the series repeats exactly every `seasonality` points (0: is constant), over
        at least two seasons, in small integers (no rounding in any order of arithmetic)."""
        period = seasonality or 1
        values = self.values
        if len(values) < 2 * period or any(v != int(v) or abs(v) > 2**31 for v in values):
            return False
        return all(values[i] == values[i - period] for i in range(period, len(values)))

    def index(self, target: float) -> int:
        """The target's place on the grid (0: the start); before the start #NUM! where Excel
        says so, not computed where it extrapolates backwards or between points."""
        if target <= 0 and target <= self.start - self.step:
            raise _fail("#NUM!")
        place = (target - self.start) / self.step
        if place < 0 or place != int(place):
            raise _not_computed()
        return int(place)


def _is_number(value: EngineValue) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _seasonality(value: EngineValue) -> int:
    found = _whole(1.0 if value == OMITTED else _scalar(value), 0, 8760)
    if found == 1:
        raise _not_computed()  # auto-detected: Excel's detection is not documented
    return found


def _lifted(position: int, compute: Callback) -> Callback:
    """`compute` applied to each element of an array given at `position` (a legacy array
    formula over a range of targets), as Excel does; its _Answer as the cell's value."""
    def one(args: list[EngineValue]) -> Answer:
        try:
            return compute(*args)
        except _Answer as answer:
            return answer.value

    def call(*args: EngineValue) -> Answer:
        args_ = list(args)
        given = args_[position] if position < len(args_) else None
        if isinstance(given, list) and len(_flat(given)) > 1:
            rows = [row if isinstance(row, list) else [row] for row in given]
            return [[one(args_[:position] + [cell] + args_[position + 1:]) for cell in row] for row in rows]
        if isinstance(given, list):
            args_[position] = _flat(given)[0]
        return one(args_)

    reads_omitted(call)
    return call


def _forecast(target: EngineValue, values: EngineValue, timeline: EngineValue, seasonality: EngineValue = OMITTED,
              completion: EngineValue = OMITTED, aggregation: EngineValue = OMITTED) -> EngineValue:
    at = _scalar(target)
    season = _seasonality(seasonality)
    series = _Series(values, timeline, completion, aggregation)
    place = series.index(at)
    if not series.exactly_seasonal(season):
        raise _not_computed()
    period = season or 1
    return series.values[place % period]  # the series repeats from its start


def _confint(target: EngineValue, values: EngineValue, timeline: EngineValue, level: EngineValue = OMITTED, seasonality: EngineValue = OMITTED,
             completion: EngineValue = OMITTED, aggregation: EngineValue = OMITTED) -> EngineValue:
    at = _scalar(target)
    confidence = 0.95 if level in (OMITTED, None) else _scalar(level)
    if not 0 <= confidence < 1:
        raise _fail("#NUM!")
    if confidence == 0:
        raise _not_computed()  # a typed 0 (an empty cell is the default 95 %): not measured
    season = _seasonality(seasonality)
    series = _Series(values, timeline, completion, aggregation)
    series.index(at)
    if not series.exactly_seasonal(season):
        raise _not_computed()
    return 0  # no fitting error: a zero-width interval


def _seasonality_of(values: EngineValue, timeline: EngineValue, completion: EngineValue = OMITTED, aggregation: EngineValue = OMITTED) -> EngineValue:
    _Series(values, timeline, completion, aggregation)
    raise _not_computed()  # Excel's detection is not documented


def _stat(values: EngineValue, timeline: EngineValue, statistic: EngineValue, seasonality: EngineValue = OMITTED,
          completion: EngineValue = OMITTED, aggregation: EngineValue = OMITTED) -> EngineValue:
    kind = _whole(_scalar(statistic), 1, 8)
    season = _seasonality(seasonality)
    series = _Series(values, timeline, completion, aggregation)
    if kind == 8:
        return series.step
    if kind in (4, 5, 6, 7) and series.exactly_seasonal(season):
        return 0  # MASE, SMAPE, MAE, RMSE of an exact fit
    raise _not_computed()  # alpha, beta, gamma: Excel's fitted parameters


def _factory(position: int, compute: Callback) -> Factory:
    def factory(_facts: Facts) -> Callback:
        return _lifted(position, compute)
    return factory


FUNCTIONS: dict[str, Factory] = {
    "FORECAST.ETS": _factory(0, _forecast),
    "FORECAST.ETS.CONFINT": _factory(3, _confint),
    "FORECAST.ETS.SEASONALITY": _factory(2, _seasonality_of),
    "FORECAST.ETS.STAT": _factory(2, _stat),
}

#: Measured on formulas_test.xlsx (bench/excel_corpus.py): flagged -> equal.
_GAINED = {"FORECAST.ETS": 7, "FORECAST.ETS.CONFINT": 25, "FORECAST.ETS.SEASONALITY": 0, "FORECAST.ETS.STAT": 25}
WHY = {name: f"Excel's argument checks and the answers that do not depend on its undocumented fit "
             f"(an exactly seasonal series), the rest not computed, never a near miss (formulas' "
             f"needs statsmodels: #VALUE!): +{_GAINED[name]}" for name in FUNCTIONS}
