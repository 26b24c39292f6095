"""Whether a computed copy can be trusted as a record: the sealed pack it carries
(client/pack_seal.py) and the cells it holds, as `rates-xl calc` writes, `--replay` reuses
and `rates-xl diff` compares them.

- **Writing a copy**: the pack goes in with the digest of the copy's cells as written
  (`values`, read back the way `diff` reads a copy), then sealed and signed: a pack moved to
  another copy, or a cell edited after the copy was written, no longer matches.
- **Replaying**: the pack is checked first; an edited one is refused unless
  `--allow-edited-pack`, and then every cell computed from an edited answer is noted in the
  copy and listed in the summary. The replayed copy's cells are compared with the digest the
  pack recorded: "reproduced" is said only when they are the same.
- **Diffing**: each copy's pack is checked and each copy's cells are compared with its pack's
  digest; anything edited is named, and the diff never reads as a clean comparison.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rates_xl.calc.book import Key
from rates_xl.client.pack_seal import (
    Verdict,
    check,
    named,
    seal,
    signer_from_settings,
    values_digest,
)

if TYPE_CHECKING:
    from rates_xl.calc.results import CalcResult
    from rates_xl.calc.workbook import WorkbookCalculation
    from rates_xl.client.pack import Pack
    from rates_xl.client.pack_seal import Signer


def seal_copy(copy: Path, pack: Pack, signer: Signer | None) -> Pack:
    """`pack` bound to the copy just written (the digest of its cells) and sealed."""
    from rates_xl.calc.diff import copy_values

    return seal(pack.model_copy(update={"values": values_digest(copy_values(copy), pack)}), signer)


@dataclass(frozen=True)
class CopyCheck:
    """A copy's pack checked, and its cells against the digest the pack recorded."""

    verdict: Verdict | None  # None: the copy carries no pack
    cells: bool | None  # True: the cells are those the pack was written with; None: no digest

    @property
    def trusted(self) -> bool:
        return self.verdict is not None and not self.verdict.is_edited and self.cells is not False

    def lines(self, name: str) -> list[str]:
        if self.verdict is None:
            return [f"{name} carries no market-data pack: where its values came from cannot be checked"]
        out = [f"{name}'s market-data pack: {self.verdict.headline()}"]
        if self.cells is False:
            out.append(f"{name}'s cells are not those its pack was written with (a cell changed after "
                       "rates-xl calc wrote the copy, a program saved it again, or the pack was taken from "
                       "another copy)")
        return out


def check_copy(copy: Path, pack: Pack | None, values: Mapping[Key, object], signer: Signer | None) -> CopyCheck:
    """Check `pack` (read from `copy`) and the copy's `values` (`diff.copy_values`) against it."""
    if pack is None:
        return CopyCheck(None, None)
    cells = None if pack.values is None else values_digest(values, pack) == pack.values
    return CopyCheck(check(pack, signer), cells)


def this_machine() -> Signer | None:
    """The signer of the key set here (RATES_API_KEY, the keychain), to check signatures."""
    return signer_from_settings()


# -- replay --------------------------------------------------------------------------------------
def refusal(book: Path, verdict: Verdict) -> str:
    """The line that refuses to replay an edited pack."""
    return (f"{book.name}: its market-data pack was {verdict.headline()}: not replayed, since the "
            "result could not be called a reproduction; rates-xl calc --allow-edited-pack replays it anyway, "
            "marked as such in the summary and the copy")


def untrusted_cells(calc: WorkbookCalculation, result: CalcResult, edited: tuple[str, ...]) -> list[tuple[str, str, str]]:
    """(sheet, cell, why) of every cell computed from an edited answer: the RATES_* cells that
    asked for it and everything downstream (`attribution.cells_reading`)."""
    from rates_xl.calc.attribution import cells_reading

    if not edited:
        return []
    values = dict(calc.source.cached())
    values.update(result.values)
    found = cells_reading(calc.source, values, result.valuation_time, set(edited))
    return [(sheet, cell, "computed from a market-data answer edited after it was recorded ("
             + named(list(requests), 2) + "): replayed with --allow-edited-pack, not a reproduction")
            for (sheet, cell), requests in sorted(found.items())]


def reproduced(copy: Path, source: Pack) -> str:
    """One line: whether a replayed copy's cells are those the pack was recorded with."""
    from rates_xl.calc.diff import copy_values

    if source.values is None:
        return ("Not compared with the recorded run: the pack carries no digest of its copy's cells "
                "(recorded in Excel, or by a rates-xl from before packs were sealed).")
    if values_digest(copy_values(copy), source) == source.values:
        return "Reproduced: every cell of the copy equals the recorded run's (the digest of its cells matches)."
    return ("NOT reproduced: the copy's cells differ from the recorded run's (the book or its inputs changed "
            "since, another --valuation-time, or a request the pack lacks); rates-xl diff of the two copies "
            "names them.")
