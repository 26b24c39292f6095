"""Market-data packs for tests: another valuation made from a recorded pack, sealed as a
rates-xl that recorded those answers would seal it (client/pack_seal.py), so a test of what
a diff or a replay does with different answers is not a test of an edited pack."""

from __future__ import annotations

from typing import Any

from rates_xl.client.pack_seal import seal, seal_answer, signer_for


def resealed(pack: Any, answers: Any = None, *, api_key: str | None = None) -> Any:
    """`pack` with `answers` (default its own), every answer and the pack sealed afresh
    (signed with `api_key`'s key when given); `values` is dropped: no copy holds these."""
    signer = signer_for(api_key)
    answers = pack.answers if answers is None else answers
    fresh = pack.model_copy(update={"answers": tuple(seal_answer(a, signer) for a in answers), "values": None})
    return seal(fresh, signer)
