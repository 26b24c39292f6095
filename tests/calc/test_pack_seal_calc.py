"""A market-data pack shows it was edited (issue 27, point 6), through the real `rates-xl`
command as a user runs it: the issue's attack (1.00 added to a swap rate inside the copy's
custom XML part made `calc --replay` exit 0 with "No error cells", and a diff of the forged
copy against its replay "0 cells moved"), a signed pack whose editor recomputed the digests,
a pack moved to another copy, a cell edited in a copy, an older pack (no digest), and
malformed packs: each is named in one line, never "internal error"."""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from pathlib import Path

import openpyxl
import pytest

from rates_xl.calc.book import cached_values
from rates_xl.client.pack_seal import check, pack_bytes, seal_over, signer_for
from rates_xl.client.pack_workbook import read_pack
from tests.support.commands import fresh_env, rates_xl

#: A desk's key, as the service knows it (the sandbox's own keys are public, so a pack they
#: sign proves nothing); it signs the packs recorded here.
DESK_KEY = "rk-desk-7c41e09b55d2f6a8-NEVER-PRINTED"
TEN_YEARS = "swap_rate?fixed_leg_frequency=1Y&index=SOFR&maturity_date=10Y&start_date=0D"
ITEM = "customXml/item1.xml"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """book.xlsx computed against a sandbox with the desk's key: book.values.xlsx carries the
    sealed pack, signed with the key derived from DESK_KEY."""
    from rates_xl.sandbox.server import start_in_thread

    folder = tmp_path_factory.mktemp("recorded")
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Rates"
    sheet["A1"] = '=RATES_SWAP("SOFR","0D","10Y","1Y")'
    sheet["A2"] = '=RATES_SWAP("SOFR","0D","5Y","1Y")'
    sheet["A3"] = "=A1*2"
    sheet["B1"] = "=A2+1"
    book.save(folder / "book.xlsx")
    with start_in_thread(rate_limit=1000, burst=1000, extra_keys={DESK_KEY: "paid"}) as service:
        env = fresh_env(folder / "home", RATES_BASE_URL=service.base_url, RATES_API_KEY=DESK_KEY)
        done = rates_xl("calc", "book.xlsx", "--no-progress", cwd=folder, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "signed with a key derived from the API key" in done.stdout
    assert DESK_KEY not in done.stdout + done.stderr
    return folder


@pytest.fixture
def desk(tmp_path, recorded):
    """A copy of the recorded folder, and the environment of a desk that holds the key (no
    service: a replay asks none)."""
    for name in ("book.xlsx", "book.values.xlsx"):
        shutil.copyfile(recorded / name, tmp_path / name)
    env = fresh_env(tmp_path / "home", RATES_BASE_URL="http://127.0.0.1:9", RATES_API_KEY=DESK_KEY)
    return tmp_path, env


def _rewrite(src: Path, dst: Path, change) -> None:
    """Copy a workbook, with its pack part's text passed through `change` (the parts' order,
    names and compression kept)."""
    with zipfile.ZipFile(src) as archive:
        parts = [(info, archive.read(info)) for info in archive.infolist()]
    with zipfile.ZipFile(dst, "w") as out:
        for info, data in parts:
            out.writestr(info, change(data.decode()).encode() if info.filename == ITEM else data)


def _add_one_to_the_ten_year(xml: str) -> str:
    """The issue's edit: 1.00 added to the 10Y swap rate inside the custom XML part, as text."""
    entry = xml.rindex('{"answer":', 0, xml.index('["maturity_date","10Y"]'))  # the answer comes first
    match = re.compile(r'\\"swap_rate\\":([0-9.]+)').search(xml, entry)
    assert match is not None
    edited = repr(float(match.group(1)) + 1.0)
    return xml[:match.start(1)] + edited + xml[match.end(1):]


def test_the_issues_edit_is_named_and_refused_and_marked_when_allowed(desk):
    folder, env = desk
    _rewrite(folder / "book.values.xlsx", folder / "forged.values.xlsx", _add_one_to_the_ten_year)

    refused = rates_xl("calc", "book.xlsx", "--replay", "forged.values.xlsx", "-o", "r.xlsx", "--no-progress",
                       cwd=folder, env=env)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and "EDITED since it was recorded" in lines[0] and TEN_YEARS in lines[0], lines
    assert "5Y" not in lines[0] and "internal error" not in lines[0]
    assert "No error cells" not in refused.stdout and not (folder / "r.xlsx").exists()

    allowed = rates_xl("calc", "book.xlsx", "--replay", "forged.values.xlsx", "-o", "r.xlsx", "--no-progress",
                       "--allow-edited-pack", cwd=folder, env=env)
    assert allowed.returncode == 3, allowed.stdout + allowed.stderr
    out = allowed.stdout
    assert "Pack check: EDITED since it was recorded: the answer to " + TEN_YEARS in out
    assert "NOT a reproduction" in out and "Reproduced" not in out
    assert "2 cells computed from an edited answer (noted in the copy): Rates!A1, Rates!A3" in out
    copy = openpyxl.load_workbook(folder / "r.xlsx")
    assert "edited after it was recorded" in copy["Rates"]["A1"].comment.text
    assert copy["Rates"]["A3"].comment is not None and copy["Rates"]["A2"].comment is None
    # The copy's own pack keeps the edited answer as it was: it is named again wherever read.
    assert check(read_pack(folder / "r.xlsx"), signer_for(DESK_KEY)).edited == (TEN_YEARS,)

    # The issue's second symptom: the forged copy against its replay was "0 cells moved".
    compared = rates_xl("diff", "forged.values.xlsx", "r.xlsx", "--book", "book.xlsx", cwd=folder, env=env)
    assert compared.returncode == 5, compared.stdout + compared.stderr
    assert compared.stdout.startswith("NOT TRUSTED: A (forged.values.xlsx)'s market-data pack: EDITED")
    assert TEN_YEARS in compared.stdout.splitlines()[0]
    # The honest copy replays, signed and checked, and is called reproduced.
    honest = rates_xl("calc", "book.xlsx", "--replay", "book.values.xlsx", "-o", "h.xlsx", "--no-progress",
                      cwd=folder, env=env)
    assert honest.returncode == 0, honest.stdout + honest.stderr
    assert "Pack check: signed and checked" in honest.stdout and "Reproduced: every cell" in honest.stdout
    assert rates_xl("diff", "book.values.xlsx", "h.xlsx", cwd=folder, env=env).returncode == 0
    everything = refused.stdout + refused.stderr + allowed.stdout + allowed.stderr + compared.stdout + honest.stdout
    assert DESK_KEY not in everything and DESK_KEY[3:19] not in everything


def test_a_signed_pack_whose_editor_recomputed_every_digest_does_not_pass(desk):
    """The editor knows the format (pack_seal.py is public) but not the key: the digests are
    right, the MACs are not. Stripping the signatures leaves a pack that says it is unsigned."""
    from rates_xl.client.pack_seal import seal_answer

    folder, env = desk
    pack = read_pack(folder / "book.values.xlsx")

    def forged(strip: bool):
        answers = []
        for answer in pack.answers:
            if answer.request == TEN_YEARS:
                body = json.loads(answer.answer)
                body["swap_rate"] += 1.0
                answer = answer.model_copy(update={"answer": json.dumps(body)})
            resealed = seal_answer(answer, None)
            answers.append(resealed if strip else resealed.model_copy(update={"mac": answer.mac}))
        out = pack.model_copy(update={"answers": tuple(answers)})
        fields = seal_over(pack_bytes(out), None)
        if not strip:  # keep the old signature: it no longer matches
            fields["signature"] = pack.seal.signature
        return out.model_copy(update={"seal": pack.seal.model_copy(update=fields)})

    forged(strip=False).write(folder / "kept.pack.json")
    kept = rates_xl("calc", "book.xlsx", "--replay", "kept.pack.json", "-o", "k.xlsx", "--no-progress",
                    cwd=folder, env=env)
    assert kept.returncode == 1 and TEN_YEARS in kept.stderr and "EDITED" in kept.stderr, kept.stderr

    forged(strip=True).write(folder / "stripped.pack.json")
    stripped = rates_xl("calc", "book.xlsx", "--replay", "stripped.pack.json", "-o", "s.xlsx", "--no-progress",
                        cwd=folder, env=env)
    assert stripped.returncode == 0, stripped.stdout + stripped.stderr
    assert "Pack check: unsigned" in stripped.stdout and "cannot be ruled out" in stripped.stdout
    assert "signed and checked" not in stripped.stdout
    assert "NOT reproduced" in stripped.stdout  # and its cells are not the recorded run's


def test_a_pack_moved_to_another_copy_and_a_cell_edited_in_a_copy_are_named_by_diff(desk, tmp_path):
    folder, env = desk
    # Another copy of the book, with other cells: the pack of the recorded copy moved into it.
    other = openpyxl.load_workbook(folder / "book.xlsx")
    other["Rates"]["C1"] = "another day"
    other.save(folder / "other.xlsx")
    done = rates_xl("calc", "other.xlsx", "--replay", "book.values.xlsx", "--no-progress", cwd=folder, env=env)
    assert done.returncode == 0 and "NOT reproduced" in done.stdout, done.stdout + done.stderr
    with zipfile.ZipFile(folder / "book.values.xlsx") as archive:
        recorded_part = archive.read(ITEM).decode()
    _rewrite(folder / "other.values.xlsx", folder / "moved.values.xlsx", lambda xml: recorded_part)
    moved = rates_xl("diff", "book.values.xlsx", "moved.values.xlsx", "--book", "book.xlsx", cwd=folder, env=env)
    assert moved.returncode == 5, moved.stdout
    assert "NOT TRUSTED: B (moved.values.xlsx)'s cells are not those its pack was written with" in moved.stdout

    # A cell typed over in the copy, its pack untouched.
    with zipfile.ZipFile(folder / "book.values.xlsx") as archive:
        parts = [(info, archive.read(info)) for info in archive.infolist()]
    a1 = cached_values(folder / "book.values.xlsx")[("Rates", "A1")]
    with zipfile.ZipFile(folder / "typed.values.xlsx", "w") as out:
        for info, data in parts:
            if info.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(f"<v>{a1!r}</v>".encode(), b"<v>9.99</v>", 1)
                assert b"<v>9.99</v>" in data
            out.writestr(info, data)
    typed = rates_xl("diff", "book.values.xlsx", "typed.values.xlsx", "--book", "book.xlsx", cwd=folder, env=env)
    assert typed.returncode == 5 and "B (typed.values.xlsx)'s cells are not those" in typed.stdout, typed.stdout


def test_an_older_pack_without_a_digest_replays_marked_unverified(desk):
    folder, env = desk
    pack = read_pack(folder / "book.values.xlsx")
    old = {"kind": "rates-xl market-data pack", "version": 1, "base_url": pack.base_url, "created": pack.created,
           "answers": [a.model_dump(mode="json", exclude={"digest", "mac"}, exclude_none=True) for a in pack.answers]}
    (folder / "old.pack.json").write_text(json.dumps(old), encoding="utf-8")
    done = rates_xl("calc", "book.xlsx", "--replay", "old.pack.json", "-o", "o.xlsx", "--no-progress",
                    cwd=folder, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Pack check: unverified: it carries no digest" in done.stdout
    assert "Not compared with the recorded run" in done.stdout
    assert cached_values(folder / "o.xlsx")[("Rates", "A1")] == cached_values(folder / "book.values.xlsx")[
        ("Rates", "A1")]


MALFORMED = {
    "bad XML": lambda xml: xml.replace("</marketDataPack>", "</marketDataPak>"),
    "bad JSON": lambda xml: xml.replace('{"answers"', '{"answers":,'),
    "wrong type": lambda xml: xml.replace('"version":2', '"version":"2"'),
    "a key given twice": lambda xml: xml.replace('{"answers"', '{"base_url":"https://elsewhere.example","answers"'),
    "a DOCTYPE": lambda xml: xml.replace("<marketDataPack", '<!DOCTYPE x [<!ENTITY e "1">]><marketDataPack', 1),
    "a comment splitting the text": lambda xml: xml.replace('{"answers"', '{<!-- -->"answers"'),
    "a version outside that is not the one inside": lambda xml: xml.replace('version="2"', 'version="1"'),
    "huge": lambda xml: xml.replace('{"answers"', '{"pad":"' + "x" * (65 << 20) + '","answers"'),
}


@pytest.mark.parametrize("damage", list(MALFORMED))
def test_a_malformed_pack_is_one_line_from_calc_and_diff(damage, desk):
    folder, env = desk
    _rewrite(folder / "book.values.xlsx", folder / "bad.values.xlsx", MALFORMED[damage])
    for argv in (("calc", "book.xlsx", "--replay", "bad.values.xlsx", "-o", "r.xlsx", "--no-progress"),
                 ("diff", "book.values.xlsx", "bad.values.xlsx")):
        done = rates_xl(*argv, cwd=folder, env=env)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 1 and len(lines) == 1, (argv, done.stdout, done.stderr)
        assert "internal error" not in lines[0] and "Traceback" not in done.stderr and "pack" in lines[0], lines
