"""A market-data pack that shows it was edited: digests written with its answers, a signature
where a secret is at hand, and the check `calc --replay`, `diff` and `sandbox --pack` make.

What is sealed, and why so:

- **Each answer** carries `digest`, SHA-256 over its canonical form (every field replay uses:
  the request, the answer's text as sent or the refusal, when it was valued and fetched,
  `verbatim`), and, when signed, `mac`, HMAC-SHA256 over the same with the signing key. A
  check names the answers that fail, even where an editor recomputed the pack's own digest.
- **The pack** carries `seal`: a digest (and a signature) over its own fields (the base URL,
  the pinned moment, when it was made, the digest of the copy's cells, `values`) and every
  answer's digest and MAC (an answer without a digest, whole). So nothing replay reads is
  left out, and an answer added, removed or re-digested shows too, while an answer edited
  in place is named by its own check.
- **Canonical form**: compact JSON with sorted keys and every character outside ASCII
  escaped, made from the parsed pack (never from the file's bytes): what is checked is what
  replay uses, whatever the spelling in the file (whitespace, escapes, key order). Text is
  compared code point for code point: never normalised, as a normalising reader would merge
  two requests the pack keeps apart.

The signing key is derived from the API key with scrypt (one-way and memory-hard, so neither
the key nor a guess at a weak one can be worked back from it or from a signature in any
useful time), under its own label: a different key from the team cache's (team.py), and the
API key never enters a pack. `key id` (16 hex digits, an HMAC under the signing key of a
fixed text) tells whose key signed, so a pack signed elsewhere is "not checked here" rather
than "edited". The sandbox's built-in keys are public: a pack signed with one is said so.

Anyone can recompute a digest: an unsigned pack shows accidental edits and edits by a tool
that does not know the format, and says it is unsigned; only a signature stops a deliberate
forger, and only where the key is set can it be checked (HMAC: the key that checks is the
key that signs, as in the team cache).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from rates_xl.client.json_types import JSON
    from rates_xl.client.pack import Pack, PackAnswer

DIGEST = "sha256:"
MAC = "hmac-sha256:"
_ANSWER_LABEL = b"rates-xl market-data pack answer v2\n"
_PACK_LABEL = b"rates-xl market-data pack v2\n"
_VALUES_LABEL = b"rates-xl values-frozen copy v2\n"
_KDF_SALT = b"rates-xl market-data pack signing key v1"


@dataclass(frozen=True, repr=False)
class Signer:
    """A signing key (derived from an API key, never the key itself) and its public id."""

    key: bytes
    key_id: str

    def tag(self, data: bytes) -> str:
        return f"{MAC}{self.key_id}:{hmac.new(self.key, data, hashlib.sha256).hexdigest()}"

    def __repr__(self) -> str:
        return f"Signer(key_id={self.key_id!r})"


@functools.lru_cache(maxsize=8)
def _derived(api_key: str) -> Signer:
    # scrypt (n=2**14, r=8: 16 MiB and about 60 ms once per key and process): one-way, and
    # costly to try guesses against.
    key = hashlib.scrypt(api_key.encode(), salt=_KDF_SALT, n=2**14, r=8, p=1, dklen=32)
    return Signer(key, hmac.new(key, b"rates-xl pack key id", hashlib.sha256).hexdigest()[:16])


def signer_for(api_key: str | None) -> Signer | None:
    """The signer for an API key (None without one)."""
    return _derived(api_key) if api_key else None


def signer_from_settings() -> Signer | None:
    """The signer of this machine's API key (RATES_API_KEY, the keychain), or None. The key is
    read only to derive the signing key: nothing is sent anywhere."""
    from rates_xl.client.settings import load_settings

    try:
        key = load_settings().api_key
    except Exception:  # noqa: BLE001 - bad settings: nothing to sign or check with, said as such
        return None
    return signer_for(key.get_secret_value()) if key is not None else None


#: Key ids of the sandbox's built-in keys (client/api_key.py SANDBOX_KEYS: paid, trial,
#: expired), which are published: their signature proves nothing. Written out, not derived
#: here: deriving them is three scrypts (0.2 s of every run that writes or reads a signed pack);
#: tests/client/test_pack_seal.py derives them and compares.
PUBLIC_KEY_IDS = frozenset({"410ef7b9a8412bcb", "693238b989980881", "33f7b37c747dbb32"})


def _canonical(label: bytes, data: object) -> bytes:
    return label + json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def answer_bytes(answer: PackAnswer) -> bytes:
    return _canonical(_ANSWER_LABEL, answer.model_dump(mode="json", exclude={"digest", "mac"}))


def pack_bytes(pack: Pack) -> bytes:
    """The pack's own fields and, for each answer, its digest and MAC (its digest stands for
    its content; an answer with none is covered whole): an edited answer fails its own check
    only, an answer added, removed or re-digested fails this one. The answers' order is not
    covered (replay finds an answer by its request, and two writers sort differently)."""
    return fields_bytes(own_fields(pack), [(a.digest or a.model_dump(mode="json"), a.mac) for a in pack.answers])


def own_fields(pack: Pack) -> JSON:
    """The pack's own fields the seal covers: all but its answers and the seal (a market
    pack's without the scenario record it does not have, as before scenario packs existed)."""
    fields = pack.model_dump(mode="json", exclude={"seal", "answers"})
    if fields.get("scenario", 0) is None:
        del fields["scenario"]
    return fields


def fields_bytes(fields: JSON, answers: list[tuple[object, str | None]]) -> bytes:
    """`pack_bytes` from the pack's own fields and its answers' (digest, MAC): what a server
    that seals a pack its page assembled needs (addin/officejs/packs.py)."""
    items = sorted(json.dumps([digest, mac], sort_keys=True, ensure_ascii=True) for digest, mac in answers)
    return _canonical(_PACK_LABEL, {**fields, "answers": items})


def _sha(data: bytes) -> str:
    return DIGEST + hashlib.sha256(data).hexdigest()


def values_digest(values: Mapping[tuple[str, str], object], pack: Pack | None = None) -> str:
    """The digest of a copy's cell values ((sheet, cell) -> value, as `calc.copyvalues` reads
    them): binds a pack to the copy written with it. A scenario copy's digest is made under
    its scenario's own label, so its cells never match a pack that is not that scenario's (a
    scenario record stripped from the pack leaves cells that no longer match it)."""
    # (Text that reads "#N/A", functions/values.py `ErrorLikeText`, is a str here as in the
    # copies written before it had a type of its own: their digests still match.)
    rows = sorted([sheet, cell, "str" if isinstance(value, str) else type(value).__name__, repr(value)]
                  for (sheet, cell), value in values.items())
    scenario = getattr(pack, "scenario", None)
    label = _VALUES_LABEL if scenario is None else _VALUES_LABEL + f"scenario {scenario.described}\n".encode()
    return _sha(_canonical(label, rows))


def seal_answer(answer: PackAnswer, signer: Signer | None) -> PackAnswer:
    """`answer` with its digest (and MAC) written."""
    data = answer_bytes(answer)
    return answer.model_copy(update={"digest": _sha(data), "mac": signer.tag(data) if signer else None})


def seal(pack: Pack, signer: Signer | None) -> Pack:
    """`pack` with its seal written over everything else in it (its answers keep their own)."""
    from rates_xl.client.pack import Seal

    return pack.model_copy(update={"seal": Seal(**seal_over(pack_bytes(pack), signer))})


class SealFields(TypedDict):
    """A seal's fields (client.pack.Seal's)."""

    digest: str
    signature: str | None


def seal_over(data: bytes, signer: Signer | None) -> SealFields:
    """The seal's fields over a pack's canonical bytes (digest, signature or None)."""
    return {"digest": _sha(data), "signature": signer.tag(data) if signer else None}


# -- the check -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Verdict:
    """What a check of a pack found. `edited`: requests whose answer is not as sealed; `fields`:
    the pack's own seal fails (its list of answers or its own fields changed)."""

    edited: tuple[str, ...] = ()
    fields: bool = False
    unverified: tuple[str, ...] = ()  # answers with no digest (a pack from before seals)
    sealed: bool = False
    #: who signed: "here" (this machine's key, checked), "elsewhere" (another key: not
    #: checked), "public" (a sandbox key anyone may use), None (unsigned)
    signed: str | None = None
    key_id: str | None = None
    unsigned_answers: tuple[str, ...] = field(default=())  # sealed answers without a MAC we checked

    @property
    def is_edited(self) -> bool:
        return bool(self.edited) or self.fields

    @property
    def verified(self) -> bool:
        return (not self.is_edited and self.sealed and not self.unverified and self.signed == "here"
                and not self.unsigned_answers)

    def headline(self) -> str:
        """One phrase for a summary line: edited, unverified, signed and checked, or intact."""
        if self.is_edited:
            parts = []
            if len(self.edited) == 1:
                parts.append(f"the answer to {self.edited[0]} no longer matches its digest")
            elif self.edited:
                parts.append(f"{len(self.edited)} answers no longer match their digests ({named(self.edited)})")
            if self.fields:
                parts.append("its list of answers or its own fields (base URL, moments, the digest of the "
                             "copy's cells) changed")
            return "EDITED since it was recorded: " + "; ".join(parts)
        if not self.sealed or self.unverified:
            if self.sealed:
                n = len(self.unverified)
                return (f"unverified: {n} answer{'s' if n != 1 else ''} carry no digest (recorded by a rates-xl "
                        "from before packs were sealed), so an edit to them cannot be seen")
            return ("unverified: it carries no digest (written by a rates-xl from before packs were sealed), "
                    "so an edit cannot be seen")
        if self.verified:
            return f"signed and checked (key id {self.key_id}, derived from this machine's API key): as recorded"
        if self.signed == "elsewhere":
            how = (f"signed with another API key (key id {self.key_id}) that is not set here: its digests "
                   "match, its signature is not checked")
        elif self.signed == "public":
            how = "signed with a sandbox key, which is public: its digests match, the signature proves nothing"
        elif self.signed == "here":
            how = "its digests match, but some answers are not signed"
        else:
            how = "unsigned (no API key was set where it was written): its digests match"
        return how + ", so an edit whose maker recomputed them cannot be ruled out"


def named(requests: tuple[str, ...] | list[str], limit: int = 3) -> str:
    shown = ", ".join(requests[:limit])
    return shown + (f" and {len(requests) - limit} more" if len(requests) > limit else "")


def check(pack: Pack, signer: Signer | None) -> Verdict:
    """Check every answer's digest and MAC and the pack's seal; `signer`: this machine's."""
    edited, unverified, unsigned = [], [], []
    ours = signer.key_id if signer is not None else None
    for answer in pack.answers:
        if answer.digest is None:
            unverified.append(answer.request)
            continue
        data = answer_bytes(answer)
        if not hmac.compare_digest(answer.digest, _sha(data)):
            edited.append(answer.request)
        elif answer.mac is not None and signer is not None and _key_id(answer.mac) == ours:
            if not hmac.compare_digest(answer.mac, signer.tag(data)):
                edited.append(answer.request)
        else:
            unsigned.append(answer.request)
    seal_ = pack.seal
    if seal_ is None:
        return Verdict(tuple(edited), False, tuple(unverified), sealed=False)
    data = pack_bytes(pack)
    fields = not hmac.compare_digest(seal_.digest, _sha(data))
    signed, key_id = None, None
    if seal_.signature is not None:
        key_id = _key_id(seal_.signature)
        if key_id in PUBLIC_KEY_IDS:
            signed = "public"
        elif key_id == ours and signer is not None:
            signed = "here"
            fields = fields or not hmac.compare_digest(seal_.signature, signer.tag(data))
        else:
            signed = "elsewhere"
    if signed != "here":
        unsigned = []  # said by the pack's own signer state
    return Verdict(tuple(edited), fields, tuple(unverified), sealed=True, signed=signed, key_id=key_id,
                   unsigned_answers=tuple(unsigned))


def sealed_phrase(pack: Pack) -> str:
    """How a pack just written is sealed, for the summary of the run that wrote it."""
    if pack.seal is None:
        return "not sealed"
    if pack.seal.signature is None:
        return "sealed with digests, unsigned (no API key was set to sign with)"
    key_id = _key_id(pack.seal.signature)
    if key_id in PUBLIC_KEY_IDS:
        return "sealed with digests, signed with a sandbox key (public: the signature proves nothing)"
    return f"sealed with digests and signed with a key derived from the API key (key id {key_id})"


def _key_id(tag: str) -> str | None:
    if not tag.startswith(MAC):
        return None
    return tag[len(MAC):].split(":", 1)[0]


__all__ = ["Signer", "Verdict", "answer_bytes", "check", "fields_bytes", "named", "own_fields", "pack_bytes", "seal", "seal_answer", "seal_over", "sealed_phrase",
           "signer_for", "signer_from_settings", "values_digest"]
