"""Sealing the pack the task pane writes into the book (POST /api/pack/seal).

While "Record market data" is on, every batch returns the answers it used, each already
carrying its digest and, where this server has an API key (the local server's, or a team
server's own settings), its MAC (client/pack_seal.py). The page merges them by request and
asks here for the seal over the whole: it sends each answer's digest and MAC and the pinned
moment, never the answers (a pack of thousands of answers stays far under the body cap), and
gets back the pack's own fields and seal, with which it writes the part.

Why this cannot launder an edit: the seal covers each answer only through its digest and
MAC, which the page cannot make for an answer this server did not serve; an answer the page
altered fails its own check wherever the pack is read, sealed or not. So the endpoint signs
nothing but "these answers, as they vouch for themselves", under this server's base URL and
a creation time it sets itself.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from rates_xl.errors import InputError

_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_MAC = re.compile(r"hmac-sha256:[0-9a-f]{16}:[0-9a-f]{64}")
_MOMENT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")
#: Answers one seal covers: far more than a book records (its body stays under the cap).
MAX_ANSWERS = 20_000


class SealRequestRefused(InputError):
    """A seal request that is not one: the message is the 400's detail."""


def seal_fields(payload: Any, client: Any) -> dict[str, Any]:
    """The pack's own fields and seal for the answers the page holds (`payload`: {"answers":
    [[digest, mac], ...], "valuation_time": "...Z" or null}); `SealRequestRefused` for anything else."""
    from rates_xl.client.pack import Pack, public_url, utc_text
    from rates_xl.client.pack_seal import fields_bytes, own_fields, seal_over

    if not isinstance(payload, dict) or set(payload) - {"answers", "valuation_time"}:
        raise SealRequestRefused('expected {"answers": [[digest, mac], ...], "valuation_time": ...}')
    answers = payload.get("answers")
    if not isinstance(answers, list) or not 0 < len(answers) <= MAX_ANSWERS:
        raise SealRequestRefused(f"answers: a list of 1 to {MAX_ANSWERS} [digest, mac] pairs")
    signer = client.pack_signer
    pairs = []
    for number, item in enumerate(answers, start=1):
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
                and _DIGEST.fullmatch(item[0]) and (item[1] is None or isinstance(item[1], str)
                                                    and _MAC.fullmatch(item[1]))):
            raise SealRequestRefused(f"answer {number}: not a [digest, mac] pair this server wrote")
        if signer is not None and (item[1] is None or item[1].split(":")[1] != signer.key_id):
            raise SealRequestRefused(f"answer {number}: not signed by this server")
        pairs.append((item[0], item[1]))
    if len(set(pairs)) != len(pairs):
        raise SealRequestRefused("an answer is given twice")
    moment = payload.get("valuation_time")
    if moment is not None and not (isinstance(moment, str) and _MOMENT.fullmatch(moment)):
        raise SealRequestRefused("valuation_time: a moment such as 2026-01-02T16:00:00Z, or null")
    pack = Pack(base_url=public_url(client.base_url), created=utc_text(datetime.now(UTC).timestamp()),
                valuation_time=moment)
    fields = own_fields(pack)
    seal = seal_over(fields_bytes(fields, pairs), signer)
    return {**{k: v for k, v in fields.items() if v is not None}, "seal": seal}
