"""The sandbox's market history: the bundled snapshot moved by a deterministic walk.

Every business day from 2000-01-01 to today has a close. A day's quotes are the snapshot
(data/snapshot.json, the close of its `snapshot_date`) plus the day's value of a few
mean-reverting factors per currency family:

- a policy rate that moves in 25 bp steps on meeting days (every six weeks) and is flat
  in between, so overnight fixings step like a central-bank rate plus ~1 bp of noise;
- a long-end level and a curvature factor (Ornstein-Uhlenbeck walks);
- per index, a small basis walk (EURIBOR over ESTR, SAIBOR over SOFR, a bond over swaps).

Each factor is anchored at zero on the snapshot date and walks backwards to 2000 and
forwards to today. The shock of a factor on a day is a pure function of (seed, factor
name, date): a counter-based hash, not a stateful generator, so no answer ever depends on
what else was asked, or in what order, or in which process. A soft floor keeps USD, GBP,
SAR, CAD and AUD rates positive and euro, franc and yen rates above realistic lows.
"""

from __future__ import annotations

import json
import math
import threading
from datetime import date, timedelta
from functools import lru_cache
from importlib import resources

from rates_xl.sandbox import conventions as cv

FIRST_DATE = date(2000, 1, 1)
MEETING_EVERY_DAYS = 42
POLICY_STEP = 0.25  # percent
CURVE_DECAY_YEARS = 2.0  # where the short-end factor hands over to the long-end one

# name: (stationary standard deviation in percent (log units for FX), half-life in days)
FACTORS = {
    "short": (1.3, 730),
    "level": (0.9, 1100),
    "curvature": (0.35, 365),
    "ibor_basis": (0.06, 180),
    "saibor_basis": (0.35, 365),
    "gov_spread": (0.25, 365),
    "fx": (0.10, 700),
}
SHORT_LEVEL_CORRELATION = 0.7
FIXING_NOISE = 0.01  # percent, iid per day: the overnight fixing's wobble around policy


@lru_cache(maxsize=1)
def snapshot() -> dict:
    text = resources.files("rates_xl.sandbox").joinpath("data/snapshot.json").read_text()
    data = json.loads(text)
    data["snapshot_date"] = date.fromisoformat(data["snapshot_date"])
    return data


def snapshot_date() -> date:
    return snapshot()["snapshot_date"]


# --- deterministic shocks -----------------------------------------------------------

_MASK = (1 << 64) - 1


def _splitmix64(x: int) -> int:
    # A counter-based hash (Steele et al., SplitMix64): the standard way to turn
    # (key, counter) into independent uniforms without a stateful generator.
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def _key(seed: int, name: str) -> int:
    k = _splitmix64(seed & _MASK)
    for byte in name.encode():
        k = _splitmix64(k ^ byte)
    return k


def _normal(key: int, day: date) -> float:
    """Standard normal shock of the factor `key` on `day` (Box-Muller on two hashes)."""
    n = day.toordinal()
    u1 = (_splitmix64(key ^ (2 * n)) >> 11) * (1.0 / (1 << 53))
    u2 = (_splitmix64(key ^ (2 * n + 1)) >> 11) * (1.0 / (1 << 53))
    return math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2)


class _Walk:
    """An Ornstein-Uhlenbeck path, zero on the snapshot date, one value per calendar day."""

    def __init__(self, seed: int, name: str, std: float, half_life_days: float,
                 correlated_with: _Walk | None = None, rho: float = 0.0):
        self.key = _key(seed, name)
        self.phi = 0.5 ** (1.0 / half_life_days)
        self.sigma = std * math.sqrt(1.0 - self.phi**2)
        self.other, self.rho = correlated_with, rho
        self.anchor = snapshot_date()
        self.values: dict[int, float] = {self.anchor.toordinal(): 0.0}
        self.lo = self.hi = self.anchor.toordinal()
        self.lock = threading.Lock()

    def shock(self, day: date) -> float:
        eps = _normal(self.key, day)
        if self.other is not None:
            eps = self.rho * _normal(self.other.key, day) + math.sqrt(1 - self.rho**2) * eps
        return self.sigma * eps

    def __call__(self, day: date) -> float:
        n = day.toordinal()
        with self.lock:
            while n > self.hi:  # walk forwards from the snapshot
                self.hi += 1
                self.values[self.hi] = self.phi * self.values[self.hi - 1] + self.shock(date.fromordinal(self.hi))
            while n < self.lo:  # and backwards: X[d-1] = phi X[d] + shock(d-1)
                self.lo -= 1
                self.values[self.lo] = self.phi * self.values[self.lo + 1] + self.shock(date.fromordinal(self.lo))
            return self.values[n]


_walks: dict[tuple[int, str], _Walk] = {}
_walks_lock = threading.RLock()


def _walk(seed: int, name: str, factor: str) -> _Walk:
    with _walks_lock:
        walk = _walks.get((seed, name))
        if walk is None:
            std, half_life = FACTORS[factor]
            if factor == "short":  # the policy factor leans on the family's long-end level
                level = _walk(seed, name.replace("/short", "/level"), "level")
                walk = _Walk(seed, name, std, half_life, level, SHORT_LEVEL_CORRELATION)
            else:
                walk = _Walk(seed, name, std, half_life)
            _walks[(seed, name)] = walk
        return walk


# --- the market of a day ------------------------------------------------------------

def pillar_years(pillar: str) -> float:
    if pillar == "ON":
        return 1 / 365
    if pillar.startswith("FRA "):
        start, end = pillar[4:].split("x")
        return (int(start) + int(end)) / 24
    n, unit = int(pillar[:-1]), pillar[-1]
    return n * {"D": 1 / 365, "W": 7 / 365, "M": 1 / 12, "Y": 1.0}[unit]


def last_meeting(day: date) -> date:
    offset = (day - snapshot_date()).days % MEETING_EVERY_DAYS
    return day - timedelta(days=offset)


def policy_move(seed: int, family: str, day: date) -> float:
    """The family's policy rate on `day` minus the snapshot's, a multiple of 25 bp."""
    short = _walk(seed, f"{family}/short", "short")(last_meeting(day))
    return POLICY_STEP * round(short / POLICY_STEP)


def _floor(rate: float, currency: str) -> float:
    # Continuous, slope 1 at the joint: rates above floor + k are untouched.
    floor, k = cv.RATE_FLOOR.get(currency, cv.RATE_FLOOR_DEFAULT), 0.15
    if rate >= floor + k:
        return rate
    return floor + k * math.exp((rate - floor - k) / k)


def _factors(seed: int, family: str, day: date) -> tuple[float, float, float]:
    """The family's policy move, long-end level and curvature on `day` (read once per day)."""
    return (policy_move(seed, family, day), _walk(seed, f"{family}/level", "level")(day),
            _walk(seed, f"{family}/curvature", "curvature")(day))


def _move(seed: int, family: str, day: date, years: float,
          factors: tuple[float, float, float] | None = None) -> float:
    x = years / CURVE_DECAY_YEARS
    short_loading = (1.0 - math.exp(-x)) / x
    curvature_loading = short_loading - math.exp(-x)
    policy, level, curvature = factors if factors is not None else _factors(seed, family, day)
    return policy * short_loading + level * (1 - short_loading) + curvature * curvature_loading


def market_date(calendar, day: date) -> date:
    """The close a request for `day` sees: the latest business day on or before it."""
    import QuantLib as ql

    d = ql.Date(day.day, day.month, day.year)
    while not calendar.isBusinessDay(d):
        d -= 1
    return date(d.year(), d.month(), d.dayOfMonth())


_history_locks: dict[tuple[int, str], threading.Lock] = {}


def history_lock(seed: int, index: str) -> threading.Lock:
    """The lock a history of `index` is computed under (routes_market_data)."""
    with _walks_lock:
        return _history_locks.setdefault((seed, index), threading.Lock())


@lru_cache(maxsize=20000)
def index_quotes(seed: int, index: str, day: date) -> dict[str, float]:
    """The closing quotes (percent) of every curve pillar of `index` on business day `day`."""
    conv = cv.INDEXES[index]
    base = snapshot()["indexes"][index]
    basis = 0.0
    if conv.kind == "ibor":
        factor = "saibor_basis" if conv.family != conv.currency else "ibor_basis"
        basis = _walk(seed, f"{index}/basis", factor)(day)
    quotes = {}
    factors = _factors(seed, conv.family, day)
    for pillar in conv.pillars:
        rate = base[pillar] + _move(seed, conv.family, day, pillar_years(pillar), factors) + basis
        if pillar == "ON":
            rate += FIXING_NOISE * _normal(_key(seed, f"{index}/fixing"), day)
        quotes[pillar] = _floor(rate, conv.currency)
    return quotes


def fixing_pillar(index: str) -> str:
    """The curve pillar that is the index's fixing: the overnight rate, or the IBOR deposit."""
    conv = cv.INDEXES[index]
    return "ON" if conv.kind == "overnight" else conv.float_frequency


def fixing(seed: int, index: str, day: date) -> float:
    return index_quotes(seed, index, day)[fixing_pillar(index)]


@lru_cache(maxsize=20000)
def government_yields(seed: int, country: str, day: date) -> dict[str, float]:
    """Zero yields (percent, semi-annual) of the country's curve on `day`."""
    gov = cv.GOVERNMENTS[country]
    spread = _walk(seed, f"{country}/gov_spread", "gov_spread")(day)
    factors = _factors(seed, gov.currency, day)
    return {
        tenor: _floor(rate + _move(seed, gov.currency, day, pillar_years(tenor), factors) + spread, gov.currency)
        for tenor, rate in snapshot()["government"][country].items()
    }


@lru_cache(maxsize=20000)
def usd_per_unit(seed: int, currency: str, day: date) -> float:
    if currency == "USD":
        return 1.0
    base = snapshot()["fx_usd_per_unit"][currency]
    if currency == "SAR":  # pegged at 3.75 with a tiny wobble
        return base * math.exp(0.0005 * _normal(_key(seed, "SAR/fx"), day))
    return base * math.exp(_walk(seed, f"{currency}/fx", "fx")(day))


def fx_rate(seed: int, base: str, quote: str, day: date) -> float:
    """Units of `quote` per one `base`; crosses go through USD, so triangles close."""
    return usd_per_unit(seed, base, day) / usd_per_unit(seed, quote, day)
