"""A recorded answer under a scenario: which of its numbers the local model moves, and how.

For each endpoint whose numbers come from index curves, `numbers` lists where each number
sits in the answer's JSON and what the local model (a `LocalMarket`) gives for it; the answer
under a scenario is the recorded number plus (model shifted - model base), so where the
scenario does not move a curve the recorded text is kept exactly. What the model cannot move
consistently keeps its recorded value and says why (`FIXED`): never a silent zero.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import date
from typing import Any

from rates_xl.client.endpoints import TENOR_RE
from rates_xl.sandbox import conventions as cv
from rates_xl.scenario.model import NotModelled, canonical, needed, valuation_date

#: Endpoints whose numbers never move under a curve scenario, and why (said for each answer).
FIXED = {
    "fx_spot": "FX spot: a scenario shifts rate curves; the spot rate does not move with them",
    "gov_yield": "a government yield: a scenario shifts index curves, and government curves are not modelled",
    "fixing": "a published fixing: it is in the past and does not move with the curve",
    "historical_swap_rates": "history: past closes do not move with today's curve",
}
#: Endpoints the model moves.
MOVABLE = frozenset({"swap_rate", "swap_curve", "forward_rate", "forward_curve", "discount_factor",
                     "discount_curve", "fx_forward"})
#: How far the model's base number may be from the service's before its change is not trusted
#: (the model then does not price what the service priced: other conventions).
TOLERANCE = {"rate": 0.01, "discount": 1e-4, "fx": 1e-4}  # percent (1 bp); relative; relative


@dataclass(frozen=True)
class Number:
    """One number of an answer: where it sits (JSON path), its kind, how to compute it."""

    path: tuple[Any, ...]
    kind: str  # "rate" (percent), "discount", "fx"
    compute: Any  # (market, base market) -> float


def indexes_of(endpoint: str, params: dict[str, str], data: dict[str, Any]) -> list[str]:
    """The curves an answer is computed from (canonical names, innermost first); NotModelled
    for an index the conventions table does not have."""
    if endpoint == "fx_forward":
        pair = str(data.get("currency_pair") or params.get("currency_pair", "")).upper()
        found = []
        for currency in (pair[:3], pair[3:]):
            index = cv.FX_DISCOUNT_INDEX.get(currency)
            if index is None:
                raise NotModelled(f"no overnight curve for {currency} in rates-xl's conventions table")
            found += needed(index)
        return list(dict.fromkeys(found))
    return needed(canonical(data.get("index") or data.get("index_name") or params.get("index", "")))


def numbers(endpoint: str, params: dict[str, str], data: dict[str, Any], moment: str) -> list[Number]:
    """The numbers of one answer the model computes; NotModelled when it cannot."""
    day = valuation_date(moment)
    try:
        return _NUMBERS[endpoint](params, data, day)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise NotModelled(f"the answer does not have the shape the model reads ({type(exc).__name__}: {exc})") from None


def _d(text: Any) -> date:
    return date.fromisoformat(str(text)[:10])


def _table(name: str, table: dict[str, Any], what: str) -> str:
    if name not in table:
        raise NotModelled(f"its {what} {name!r} is not in rates-xl's conventions table")
    return name


def _swap_rate(params, data, day) -> list[Number]:
    index = canonical(data["index"])
    conv = cv.INDEXES[index]
    start = _d(data["start_date"])
    asked = params.get("maturity_date", "")
    if TENOR_RE.match(asked):
        maturity: Any = asked
    else:
        from rates_xl.sandbox.market import Market

        maturity = Market.roll(conv.calendar, _d(asked or data["maturity_date"]), conv.business_day)
    fixed = _table(params.get("fixed_leg_frequency") or data["fixed_leg_frequency"], cv.FREQUENCIES, "frequency")
    floating = _table(data["floating_leg_frequency"], cv.FREQUENCIES, "frequency")
    fixed_dc = _table(data["fixed_leg_day_count"], cv.DAY_COUNTS, "day count")
    floating_dc = _table(data["floating_leg_day_count"], cv.DAY_COUNTS, "day count")
    return [Number(("swap_rate",), "rate", lambda m, _b: m.swap_rate(index, day, start, maturity, fixed, floating,
                                                                  fixed_dc, floating_dc).rate)]


def _swap_curve(params, data, day) -> list[Number]:
    index = canonical(data["index_name"])
    start = _d(data["start_date"])
    fixed = _table(data["fixed_leg_frequency"], cv.FREQUENCIES, "frequency")
    floating = _table(data["floating_leg_frequency"], cv.FREQUENCIES, "frequency")
    fixed_dc = _table(data["fixed_leg_day_count"], cv.DAY_COUNTS, "day count")
    floating_dc = _table(data["floating_leg_day_count"], cv.DAY_COUNTS, "day count")
    out = []
    for i, point in enumerate(data["swap_rates"]):
        tenor = str(point["tenor"])
        out.append(Number(("swap_rates", i, "swap_rate"), "rate",
                          lambda m, _b, t=tenor: m.swap_rate(index, day, start, t, fixed, floating, fixed_dc,
                                                         floating_dc).rate))
    return out


def _forward(index: str, day: date, start: date, end: date) -> Any:
    return lambda m, _b: m.forward_rate(index, day, start, end)


def _discount(index: str, day: date, when: date) -> Any:
    return lambda m, _b: m.discount(index, day, when)


def _forward_rate(params, data, day) -> list[Number]:
    index = canonical(data["index"])
    return [Number(("forward_rate",), "rate", _forward(index, day, _d(data["start_date"]), _d(data["end_date"])))]


def _forward_curve(params, data, day) -> list[Number]:
    index = canonical(data["index"])
    return [Number(("curve", i, "forward_rate"), "rate", _forward(index, day, _d(p["start_date"]), _d(p["end_date"])))
            for i, p in enumerate(data["curve"])]


def _discount_factor(params, data, day) -> list[Number]:
    return [Number(("discount_factor",), "discount", _discount(canonical(data["index"]), day, _d(data["date"])))]


def _discount_curve(params, data, day) -> list[Number]:
    index = canonical(data["index"])
    return [Number(("curve", i, "discount_factor"), "discount", _discount(index, day, _d(p["date"])))
            for i, p in enumerate(data["curve"])]


def _fx_forward(params, data, day) -> list[Number]:
    """Covered interest parity on the two currencies' overnight curves, the spot held: the
    forward is spot x (base growth / quote growth) from the spot date to the forward's date."""
    pair = str(data["currency_pair"]).upper()
    base, quote = cv.FX_DISCOUNT_INDEX[pair[:3]], cv.FX_DISCOUNT_INDEX[pair[3:]]
    when = _d(data["date"])
    spot_date = _d(data["spot_date"]) if data.get("spot_date") else None
    spot = data.get("spot_rate")

    def growth(m: Any) -> float:
        start = spot_date or m.fx_spot_date(pair[:3], pair[3:], day)
        return ((m.discount(base, day, when) / m.discount(base, day, start))
                / (m.discount(quote, day, when) / m.discount(quote, day, start)))

    def forward(m: Any, base_market: Any) -> float:
        # The spot is held: the answer's own, else the one its recorded rate implies.
        held = float(spot) if isinstance(spot, int | float) else float(data["rate"]) / growth(base_market)
        return held * growth(m)

    return [Number(("rate",), "fx", forward)]


_NUMBERS = {"swap_rate": _swap_rate, "swap_curve": _swap_curve, "forward_rate": _forward_rate,
            "forward_curve": _forward_curve, "discount_factor": _discount_factor,
            "discount_curve": _discount_curve, "fx_forward": _fx_forward}


def values(found: list[Number], market: Any, base: Any) -> list[float]:
    """The model's numbers in `market` (`base`: the unshifted one)."""
    return [float(n.compute(market, base)) for n in found]


def check_base(found: list[Number], data: dict[str, Any], base: list[float]) -> None:
    """NotModelled when the model's base numbers are not the service's (other conventions)."""
    for number, value in zip(found, base, strict=True):
        recorded = float(_get(data, number.path))
        if not math.isfinite(value):
            raise NotModelled("the local model gives no finite number for it")
        gap = abs(value - recorded) if number.kind == "rate" else abs(value / recorded - 1) if recorded else math.inf
        if gap > TOLERANCE[number.kind]:
            shown = f"{gap * 100:.2f} bp" if number.kind == "rate" else f"{gap:.2e} relative"
            raise NotModelled(f"the local model prices it {shown} away from the service's answer ({value:.10g} "
                              f"against {recorded:.10g}): not the same instrument or conventions, so its "
                              "change would not be the service's")


def shifted_text(found: list[Number], data: dict[str, Any], base: list[float], shifted: list[float]) -> str | None:
    """The answer's JSON with each number moved by (shifted - base); None when nothing moved."""
    changed = False
    out = json.loads(json.dumps(data))
    for number, b, s in zip(found, base, shifted, strict=True):
        if not math.isfinite(s):
            raise NotModelled("the local model gives no finite number for it under the scenario")
        delta = s - b
        if delta == 0.0:
            continue
        changed = True
        _set(out, number.path, float(_get(data, number.path)) + delta)
    if not changed:
        return None
    if "forward_diff" in out and isinstance(out.get("spot_rate"), int | float):
        out["forward_diff"] = out["rate"] - out["spot_rate"]  # the extra field says the same as the rate
    return json.dumps(out, separators=(",", ":"), ensure_ascii=False)


def _get(data: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        data = data[step]
    return data


def _set(data: Any, path: tuple[Any, ...], value: float) -> None:
    for step in path[:-1]:
        data = data[step]
    data[path[-1]] = value


__all__ = ["FIXED", "MOVABLE", "Number", "values", "check_base", "indexes_of", "numbers", "shifted_text"]
