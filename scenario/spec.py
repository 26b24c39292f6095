"""The scenario grammar: what `--scenario`, `sandbox --shift`, `risk` and the Excel control take.

    SPEC   := SHIFT ("," SHIFT)*
    SHIFT  := TARGET SIGN NUMBER "bp"          SOFR+1bp   *-25bp   3M EURIBOR:10Y+0.5bp
    TARGET := "*" | INDEX | INDEX ":" BUCKET | "*:" BUCKET
    SIGN   := "+" | "-"

- `SOFR+1bp`: every par quote SOFR's curve is built from rises 1 bp (parallel).
- `*+25bp`: every index's curve, 25 bp.
- `SOFR:10Y+1bp`: a key-rate shift: a quote of maturity t (years) rises 1 bp times the
  triangle of the 10Y bucket on the bucket grid (default 1Y, 2Y, 5Y, 10Y, 30Y): 1 at 10Y,
  falling linearly to 0 at the neighbouring buckets (5Y and 30Y); the first bucket's
  triangle is 1 below it, the last's 1 above it, so the buckets' shifts add up to the
  parallel one at every maturity.
- A combination adds its shifts: a twist is two buckets with opposite signs,
  `SOFR:2Y-5bp,SOFR:10Y+5bp`.

The same target twice (`SOFR+1bp,SOFR+2bp`) is refused: say it once. Every refusal is one
line (`SpecError`) that names what is wrong and shows a spec that works. Host-free, no
QuantLib: the add-ins and the sandbox read the same rules. Which quotes a curve is built from,
and their maturities, are the model's (scenario/model.py: the sandbox's conventions table).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from rates_xl.errors import InputError

#: The key-rate buckets when none are given (the `risk` ladder's default too).
DEFAULT_BUCKETS = ("1Y", "2Y", "5Y", "10Y", "30Y")
#: The largest shift a spec may hold, in bp: beyond it a curve is no longer the market moved.
MAX_BP = 1000.0
EXAMPLES = "e.g. SOFR+1bp, *+25bp, SOFR:10Y+1bp or SOFR:2Y-5bp,SOFR:10Y+5bp"

_TENOR = re.compile(r"^([0-9]{1,3})([DWMY])$")
_SHIFT = re.compile(r"^(?P<target>.*?)\s*(?P<sign>[+-])\s*(?P<number>[0-9]+(?:\.[0-9]+)?)\s*(?P<unit>[A-Za-z%]*)$")
#: What an index name may hold (the service's names: letters, digits, spaces, a few signs).
_INDEX = re.compile(r"^[A-Za-z0-9€][A-Za-z0-9€ ._/&-]{0,63}$")


class SpecError(InputError):
    """A scenario spec that cannot be read: the message is one line."""


def tenor_years(tenor: str) -> float:
    """A tenor's length in years (D 1/365, W 7/365, M 1/12, Y 1): the axis the triangles are on."""
    found = _TENOR.match(tenor.strip().upper())
    if found is None:
        raise SpecError(f"{tenor!r} is not a tenor such as 2Y, 18M or 10Y")
    n, unit = int(found.group(1)), found.group(2)
    return n * {"D": 1 / 365, "W": 7 / 365, "M": 1 / 12, "Y": 1.0}[unit]


def parse_buckets(text: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """`1Y,2Y,5Y,10Y,30Y` -> the bucket grid, shortest first (one line for a bad one)."""
    items = [t.strip().upper() for t in (text.split(",") if isinstance(text, str) else text)]
    if not items or any(not t for t in items):
        raise SpecError(f"buckets {text!r}: give tenors separated by commas, e.g. 1Y,2Y,5Y,10Y,30Y")
    seen: dict[float, str] = {}
    for tenor in items:
        years = tenor_years(tenor)
        if years <= 0:
            raise SpecError(f"buckets: {tenor} is no length of time")
        if years in seen:
            raise SpecError(f"buckets: {seen[years]} and {tenor} are the same bucket")
        seen[years] = tenor
    return tuple(seen[y] for y in sorted(seen))


def triangle(grid: tuple[float, ...], k: int, years: float) -> float:
    """The weight of bucket `k` of `grid` (years, ascending) at maturity `years`."""
    at = grid[k]
    if years <= at:
        if k == 0:
            return 1.0
        low = grid[k - 1]
        return max(0.0, (years - low) / (at - low))
    if k == len(grid) - 1:
        return 1.0
    high = grid[k + 1]
    return max(0.0, (high - years) / (high - at))


@dataclass(frozen=True)
class Shift:
    """One term of a spec: `index` None is every index (`*`); `bucket` None is parallel."""

    index: str | None
    bucket: str | None
    bp: float

    @property
    def text(self) -> str:
        target = (self.index or "*") + (f":{self.bucket}" if self.bucket else "")
        return f"{target}{'-' if self.bp < 0 else '+'}{abs(self.bp):g}bp"


@dataclass(frozen=True)
class Scenario:
    """A parsed spec and the bucket grid its key-rate shifts are triangles on."""

    shifts: tuple[Shift, ...]
    buckets: tuple[str, ...] = DEFAULT_BUCKETS

    @property
    def text(self) -> str:
        """The canonical spec: what the pack records and every mark shows."""
        return ",".join(s.text for s in self.shifts)

    @property
    def key_rate(self) -> bool:
        return any(s.bucket for s in self.shifts)

    def described(self) -> str:
        """The spec and, for key-rate shifts, the grid its triangles are on."""
        grid = f" (key-rate buckets {' '.join(self.buckets)})" if self.key_rate else ""
        return self.text + grid

    def indexes(self) -> set[str | None]:
        """The indexes named (None for `*`)."""
        return {s.index for s in self.shifts}

    def touches(self, index: str) -> bool:
        return any(s.index is None or s.index == index for s in self.shifts)

    def shift_bp(self, index: str, years: float) -> float:
        """How many bp a quote of `index` of maturity `years` moves."""
        grid = tuple(tenor_years(b) for b in self.buckets)
        total = 0.0
        for shift in self.shifts:
            if shift.index is not None and shift.index != index:
                continue
            if shift.bucket is None:
                total += shift.bp
            else:
                total += shift.bp * triangle(grid, self.buckets.index(shift.bucket), years)
        return total

    def renamed(self, canonical: dict[str, str]) -> Scenario:
        """The same scenario with each index named as `canonical` names it (aliases: €STR ->
        ESTR); an index not in it stays as written."""
        return Scenario(tuple(Shift(canonical.get(s.index, s.index) if s.index else None, s.bucket, s.bp)
                              for s in self.shifts), self.buckets)


def parse(spec: str, buckets: str | tuple[str, ...] | list[str] | None = None) -> Scenario:
    """A spec as the user typed it -> `Scenario`; `SpecError` (one line) when malformed."""
    grid = DEFAULT_BUCKETS if buckets is None else parse_buckets(buckets)
    if not isinstance(spec, str) or not spec.strip():
        raise SpecError(f"empty scenario: give a shift, {EXAMPLES}")
    if len(spec) > 400:
        raise SpecError("scenario longer than 400 characters: give fewer shifts")
    shifts: list[Shift] = []
    seen: dict[tuple[str | None, str | None], str] = {}
    for part in spec.split(","):
        shift = _shift(part.strip(), spec, grid)
        target = (shift.index, shift.bucket)
        if target in seen:
            raise SpecError(f"scenario {spec!r}: {seen[target]} and {part.strip()} shift the same "
                            f"{'bucket' if shift.bucket else 'curve'}: give it once, with the sum")
        seen[target] = part.strip()
        shifts.append(shift)
    return Scenario(tuple(shifts), grid)


def _shift(part: str, spec: str, grid: tuple[str, ...]) -> Shift:
    where = f"scenario {spec!r}" if part == spec else f"scenario {spec!r}: {part!r}"
    if not part:
        raise SpecError(f"scenario {spec!r}: an empty shift between commas; {EXAMPLES}")
    found = _SHIFT.match(part)
    if found is None:
        raise SpecError(f"{where}: expected an index (or *), a sign and an amount in bp, {EXAMPLES}")
    unit = found.group("unit").lower()
    if unit != "bp":
        said = f"'{found.group('unit')}'" if unit else "no unit"
        raise SpecError(f"{where}: the amount is in bp ({said} given), e.g. +25bp")
    bp = float(found.group("number")) * (-1 if found.group("sign") == "-" else 1)
    if not math.isfinite(bp) or abs(bp) > MAX_BP:
        raise SpecError(f"{where}: {abs(bp):g} bp is more than the {MAX_BP:g} bp a scenario may shift")
    target = found.group("target").strip()
    if not target:
        raise SpecError(f"{where}: name the index before the amount (SOFR+1bp), or * for every index")
    index, _, bucket = target.partition(":")
    index = " ".join(index.split())
    if ":" in bucket:
        raise SpecError(f"{where}: one bucket per shift (a twist is two shifts: SOFR:2Y-5bp,SOFR:10Y+5bp)")
    if index != "*" and not _INDEX.match(index):
        raise SpecError(f"{where}: {index!r} is not an index name such as SOFR or 3M EURIBOR")
    if _ and not bucket.strip():
        raise SpecError(f"{where}: a bucket after ':' such as 10Y")
    chosen = None
    if bucket.strip():
        chosen = bucket.strip().upper()
        try:
            years = tenor_years(chosen)
        except SpecError:
            raise SpecError(f"{where}: the bucket {bucket.strip()!r} is not a tenor such as 10Y") from None
        on_grid = {tenor_years(b): b for b in grid}
        if years not in on_grid:
            raise SpecError(f"{where}: {chosen} is not one of the buckets ({', '.join(grid)}); "
                            "choose one, or give the buckets (--buckets) with it")
        chosen = on_grid[years]
    return Shift(None if index == "*" else index, chosen, bp)


__all__ = ["DEFAULT_BUCKETS", "EXAMPLES", "MAX_BP", "Scenario", "Shift", "SpecError", "parse", "parse_buckets",
           "tenor_years", "triangle"]
