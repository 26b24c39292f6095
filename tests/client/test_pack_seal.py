"""The sealed market-data pack (client/pack_seal.py) as an attacker tries it: an edit is named
by its answer, a recomputed digest does not pass a signature, everything replay reads is
covered, and anything two readers could read differently (a key or an answer given twice, a
type, text that is not Unicode, a part given twice in the package, a comment or a DOCTYPE in
the part) is refused in one line rather than read one way here and another elsewhere."""

from __future__ import annotations

import hashlib
import json
import shutil
import unicodedata
import zipfile
from pathlib import Path

import pytest

from rates_xl.client.client import RequestKey
from rates_xl.client.pack import Pack, PackError, PackRecorder, loads
from rates_xl.client.pack_seal import (
    answer_bytes,
    check,
    pack_bytes,
    seal,
    seal_answer,
    seal_over,
    signer_for,
)
from rates_xl.client.pack_workbook import item_xml, read_pack, write_pack
from rates_xl.client.team import entry_key

KEY = "rk-live-4e8b2f19c07d6a35e1b9-DO-NOT-PRINT"
OTHER_KEY = "rk-live-91aa02c3d4e5f60718-ANOTHER"
TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
SWAP = RequestKey("swap_rate", (("fixed_leg_frequency", "1Y"), ("index", "SOFR"), ("maturity_date", "10Y"),
                                ("start_date", "0D")))
FX = RequestKey("fx_spot", (("currency_pair", "EURUSD"),))


def _recorded(key: str | None = KEY) -> Pack:
    recorder = PackRecorder("https://api.example.com", signer=signer_for(key))
    recorder.record(SWAP, None, 1_775_059_200.0, raw='{"index":"SOFR","start_date":"2026-04-03",'
                    '"maturity_date":"2036-04-03","valuation_time":"2026-04-01T16:00:00Z","swap_rate":3.6412}')
    recorder.record(FX, None, 1_775_059_201.0, raw='{"currency_pair":"EURUSD","rate":1.17732}')
    return recorder.pack()


def _edit(pack: Pack, change, *, request: str = "swap_rate") -> Pack:
    answers = tuple(change(a) if a.endpoint == request else a for a in pack.answers)
    return pack.model_copy(update={"answers": answers})


def _bump(answer):
    return answer.model_copy(update={"answer": answer.answer.replace("3.6412", "4.6412")})


def test_a_recorded_pack_is_sealed_signed_and_checks_here_and_says_so_elsewhere():
    pack = _recorded()
    assert all(a.digest and a.mac for a in pack.answers) and pack.seal.signature
    assert check(pack, signer_for(KEY)).verified
    elsewhere = check(pack, signer_for(OTHER_KEY))
    assert not elsewhere.is_edited and not elsewhere.verified and elsewhere.signed == "elsewhere"
    assert "signed with another API key" in elsewhere.headline() and "not checked" in elsewhere.headline()
    nokey = check(pack, None)
    assert nokey.signed == "elsewhere" and not nokey.verified
    unsigned = check(_recorded(None), signer_for(KEY))
    assert not unsigned.is_edited and unsigned.signed is None and "unsigned" in unsigned.headline()
    assert "cannot be ruled out" in unsigned.headline()  # never "checked"
    assert loads(pack.dumps()) == pack  # the file form keeps every digest and MAC


def test_an_edit_names_its_answer_and_a_recomputed_digest_does_not_pass_a_signature():
    pack = _recorded()
    here = signer_for(KEY)
    edited = _edit(pack, _bump)
    verdict = check(edited, here)
    assert verdict.edited == (SWAP.endpoint + "?" + "&".join(f"{k}={v}" for k, v in SWAP.params),)
    assert not verdict.fields  # the seal covers answers by their digests: the edit is named, only it
    assert "the answer to swap_rate?" in verdict.headline() and "fx_spot" not in verdict.headline()

    # The editor recomputes the answer's digest and the pack's (the format is public), not the MACs.
    redigested = _edit(pack, lambda a: seal_answer(_bump(a), None).model_copy(update={"mac": a.mac}))
    redigested = redigested.model_copy(update={"seal": redigested.seal.model_copy(
        update={"digest": seal_over(pack_bytes(redigested), None)["digest"]})})
    verdict = check(redigested, here)
    assert verdict.is_edited and verdict.edited and verdict.fields
    # ...or strips the signatures: the pack then says it is unsigned, never that it was checked.
    stripped = seal(_edit(pack.model_copy(update={"answers": tuple(a.model_copy(update={"mac": None})
                                                                  for a in pack.answers)}),
                          lambda a: seal_answer(_bump(a), None)), None)
    verdict = check(stripped, here)
    assert not verdict.is_edited and not verdict.verified and verdict.signed is None
    # An unsigned pack cannot tell a recomputed digest: that is what "unsigned" says.
    assert "unsigned" in verdict.headline()


@pytest.mark.parametrize("change, field", [
    (lambda p: p.model_copy(update={"valuation_time": "2026-01-02T16:00:00Z"}), "the pinned moment"),
    (lambda p: p.model_copy(update={"base_url": "https://elsewhere.example"}), "the base URL"),
    (lambda p: p.model_copy(update={"values": "sha256:" + "0" * 64}), "the copy's cells"),
    (lambda p: p.model_copy(update={"created": "2020-01-01T00:00:00.000000Z"}), "when it was made"),
    (lambda p: p.model_copy(update={"answers": p.answers[:1]}), "an answer removed"),
    (lambda p: p.model_copy(update={"answers": p.answers + (p.answers[0].model_copy(update={
        "params": (("currency_pair", "GBPUSD"),), "endpoint": "fx_spot"}),)}), "an answer added"),
])
def test_everything_replay_reads_is_covered(change, field):
    pack = _recorded(None)  # unsigned: the digest alone shows each of these
    assert check(change(pack), None).is_edited, field


def test_the_order_of_answers_and_the_files_spelling_do_not_matter_but_code_points_do():
    pack = _recorded()
    reordered = pack.model_copy(update={"answers": tuple(reversed(pack.answers))})
    assert not check(reordered, signer_for(KEY)).is_edited
    spaced = json.dumps(json.loads(pack.dumps()), indent=2, ensure_ascii=True)  # another spelling
    assert check(loads(spaced), signer_for(KEY)).verified
    # An index spelled with another normal form is another request, and another digest.
    nfd = unicodedata.normalize("NFD", "CAFÉ")
    composed = seal_answer(pack.answers[0].model_copy(update={"params": (("currency_pair", "CAFÉ"),)}), None)
    decomposed = seal_answer(pack.answers[0].model_copy(update={"params": (("currency_pair", nfd),)}), None)
    assert composed.digest != decomposed.digest
    assert answer_bytes(decomposed).isascii()  # hashed as escapes: no reader's normalisation applies


def _text(pack: Pack) -> str:
    return pack.dumps()


def _answer_twice(text: str) -> str:
    data = json.loads(text)
    data["answers"].append(dict(data["answers"][0]))
    return json.dumps(data)


@pytest.mark.parametrize("damage, says", [
    (lambda t: t.replace('{"answers"', '{"base_url":"https://elsewhere.example","answers"', 1), "given twice"),
    (lambda t: t.replace('"seal":{', '"seal":{"digest":"sha256:00",', 1), "given twice"),
    (lambda t: _answer_twice(t), "given twice (which one would replay use?)"),
    (lambda t: t.replace('"version":2', '"version":2.0'), "not supported"),
    (lambda t: t.replace('"version":2', '"version":true'), "not supported"),
    (lambda t: t.replace('"verbatim":true', '"verbatim":"true"', 1), "valid boolean"),
    (lambda t: t.replace('["currency_pair","EURUSD"]', '["currency_pair",1]', 1), "valid string"),
    (lambda t: t.replace('"created":"', '"created":"\\ud800', 1), "not Unicode"),
    (lambda t: t.replace('"kind"', '"x":NaN,"kind"', 1), "not JSON"),
    (lambda t: "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    (lambda t: t.replace('"fetched_at":"', '"fetched_at":"not a time', 1), "is not a moment"),
    (lambda t: t.replace('"answer":"{', '"answer":"[1,{', 1).replace('1.17732}', '1.17732}]', 1), "not a JSON object"),
    (lambda t: t.replace('["currency_pair","EURUSD"]', '["currency_pair","EURUSD"],["currency_pair","GBPUSD"]', 1),
     "once each, sorted"),
    (lambda t: t.replace('"type"', '"type"', 1).replace('"endpoint":"fx_spot"', '"endpoint":"nope"', 1),
     "unknown endpoint"),
])
def test_anything_two_readers_could_read_differently_is_refused_in_one_line(damage, says):
    text = damage(_text(_recorded()))
    with pytest.raises(PackError) as refused:
        loads(text)
    message = str(refused.value)
    assert says in message and "\n" not in message and len(message) < 400, message


def test_a_pack_over_the_cap_is_refused_before_it_is_parsed(tmp_path):
    from rates_xl.client.pack import MAX_PACK_BYTES, read

    path = tmp_path / "huge.pack.json"
    with open(path, "wb") as handle:
        handle.seek(MAX_PACK_BYTES + 10)
        handle.write(b"}")
    with pytest.raises(PackError, match="larger than 64 MB"):
        read(path)


@pytest.fixture
def book(tmp_path):
    target = tmp_path / "swap_pricer.xlsx"
    shutil.copy(TEMPLATES / "swap_pricer.xlsx", target)
    write_pack(target, _recorded())
    return target


def _repack(src: Path, dst: Path, extra: list[tuple[str, bytes]]) -> None:
    with zipfile.ZipFile(src) as archive, zipfile.ZipFile(dst, "w") as out:
        for info in archive.infolist():
            out.writestr(info, archive.read(info))
        for name, data in extra:
            out.writestr(name, data)


@pytest.mark.parametrize("extra, says", [
    # The same part twice: zipfile reads the last entry, other readers the first.
    ([("customXml/item1.xml", item_xml(_recorded(OTHER_KEY)))], "two parts named"),
    # OPC part names are case-insensitive: to Excel, this is the same part again.
    ([("CUSTOMXML/Item1.xml", item_xml(_recorded(OTHER_KEY)))], "two parts named"),
    # A second pack in another part: which one is the book's?
    ([("customXml/item7.xml", item_xml(_recorded(OTHER_KEY)))], "carries 2 market-data packs"),
])
def test_a_package_two_readers_read_differently_is_refused(book, tmp_path, extra, says):
    forged = tmp_path / "forged.xlsx"
    with pytest.warns(UserWarning) if extra[0][0] == "customXml/item1.xml" else _nothing():
        _repack(book, forged, extra)
    with pytest.raises(PackError, match=says):
        read_pack(forged)
    with pytest.raises(PackError):
        write_pack(forged, _recorded())  # nor written into: which part would it replace?


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_another_programs_custom_xml_naming_the_namespace_in_a_comment_is_not_taken_for_the_pack(book, tmp_path):
    """The part is recognised by its root element, as Excel's SelectByNamespace does, not by
    words in its first bytes."""
    other = (b'<?xml version="1.0"?><!-- urn:rates-xl:market-data-pack marketDataPack -->'
             b'<props xmlns="urn:example">{}</props>')
    forged = tmp_path / "forged.xlsx"
    _repack(book, forged, [("customXml/item9.xml", other)])
    assert check(read_pack(forged), signer_for(KEY)).verified


def test_the_signing_key_is_derived_one_way_and_never_travels():
    signer = signer_for(KEY)
    assert signer.key != entry_key(KEY)  # not the team cache's key
    assert signer.key != hashlib.sha256(KEY.encode()).digest()
    assert KEY not in repr(signer) and signer.key.hex() not in repr(signer)
    text = _recorded().dumps() + item_xml(_recorded()).decode()
    for piece in (KEY, KEY[:len(KEY) // 2], KEY[len(KEY) // 2:], signer.key.hex(), entry_key(KEY).hex()):
        assert piece not in text


def test_the_sandbox_keys_written_out_as_public_are_the_ones_derived_from_them():
    """PUBLIC_KEY_IDS is written out (deriving it is three scrypts a run): it must be the ids
    the sandbox's published keys derive, and a pack one of them signs is said to prove nothing."""
    from rates_xl.client.api_key import SANDBOX_KEYS
    from rates_xl.client.pack_seal import PUBLIC_KEY_IDS, sealed_phrase

    assert PUBLIC_KEY_IDS == {signer_for(key).key_id for key in SANDBOX_KEYS}
    for key in SANDBOX_KEYS:
        assert "public: the signature proves nothing" in sealed_phrase(_recorded(key))
    assert "key id" in sealed_phrase(_recorded(KEY)) and "public" not in sealed_phrase(_recorded(KEY))
