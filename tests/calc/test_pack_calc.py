"""`rates-xl calc` records the market-data pack into the copy, `--replay` recomputes a book
from a pack with no key and no network, and `rates-xl diff` names what moved and why."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import openpyxl
import pytest

from rates_xl.calc.book import cached_values
from rates_xl.calc.cli_summary import market_data
from rates_xl.cli import main
from rates_xl.client import RatesClient
from rates_xl.client.pack import Pack, read
from rates_xl.client.pack_workbook import read_pack
from rates_xl.functions import FUNCTIONS, using_client
from rates_xl.templates import template_path
from tests.support.faultserver import FaultServer, Reply
from tests.support.packs import resealed

SECRET = "sk-test-6f1c2e9a-DO-NOT-PRINT"
TEN_YEARS = "swap_rate?fixed_leg_frequency=1Y&index=SOFR&maturity_date=10Y&start_date=0D"


@pytest.fixture
def offline(monkeypatch):
    """A service that must see nothing: the configured URL and key point at it."""
    server = FaultServer()
    monkeypatch.setenv("RATES_BASE_URL", server.base_url)
    monkeypatch.setenv("RATES_API_KEY", SECRET)
    yield server
    server.stop()


def _small_book(path: Path, *, name: str | None = None) -> Path:
    """Two swap rates, what each feeds, and an FX spot nothing reads."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Rates"
    sheet["A1"] = '=RATES_SWAP("SOFR","0D","10Y","1Y")'
    sheet["A2"] = '=RATES_SWAP("SOFR","0D","5Y","1Y")'
    sheet["A3"] = "=A1*2"
    sheet["A4"] = "=A2+1"
    sheet["A5"] = "=A4*3"
    sheet["B1"] = '=RATES_FXSPOT("EURUSD")'
    sheet["C1"] = "plain text"
    if name is not None:
        from openpyxl.workbook.defined_name import DefinedName

        book.defined_names["RATES_VALUATION_TIME"] = DefinedName("RATES_VALUATION_TIME", attr_text=name)
    book.save(path)
    return path


def _every_cell(path: Path) -> dict:
    values = cached_values(path)
    assert values
    return values


@pytest.mark.parametrize("name", ["swap_pricer", "history"])
def test_a_template_replayed_with_the_sandbox_stopped_gives_identical_values(tmp_path, offline, name):
    """The history template's date-by-tenor grid replays too: its four tenors' answers are in
    the pack, and the grid and its chart's cells come back bit for bit."""
    book = tmp_path / f"{name}.xlsx"
    book.write_bytes(template_path(name).read_bytes())
    # --sandbox starts a sandbox for the run and stops it when the run ends.
    assert main(["calc", str(book), "--sandbox", "--no-progress", "--pack-out", str(tmp_path / "p.json")]) == 0
    computed = tmp_path / f"{name}.values.xlsx"
    pack = read_pack(computed)
    assert pack is not None and len(pack.answers) > (10 if name == "swap_pricer" else 4)
    if name == "history":
        grid = [a for a in pack.answers if a.endpoint == "historical_swap_rates"]
        assert sorted(dict(a.params)["tenor"] for a in grid) == ["10Y", "10Y", "2Y", "30Y", "5Y"]
        assert cached_values(computed)[("Curve history", "C24")] == "2Y"
    assert read(tmp_path / "p.json") == pack  # the one beside it is the same pack
    replayed = tmp_path / "replayed.xlsx"
    assert main(["calc", str(book), "--replay", str(computed), "-o", str(replayed), "--no-progress"]) == 0
    assert offline.count() == 0  # no key, no network: the configured service saw nothing
    before, after = _every_cell(computed), _every_cell(replayed)
    assert before.keys() == after.keys()
    for key, value in before.items():
        assert repr(after[key]) == repr(value), key  # bit for bit
    again = read_pack(replayed)  # the replayed copy carries the answers it was replayed from
    assert (again.answers, again.base_url) == (pack.answers, pack.base_url)


def test_a_request_the_pack_lacks_is_a_cell_message_never_a_live_request(tmp_path, offline, sandbox, capsys):
    book = _small_book(tmp_path / "book.xlsx")
    with RatesClient(sandbox.base_url, api_key="sandbox-paid", persistent=False) as client, using_client(client):
        assert main(["calc", str(book), "--no-progress"]) == 0
    pack = read_pack(tmp_path / "book.values.xlsx")
    lacking = resealed(pack, tuple(a for a in pack.answers if "5Y" not in a.request))
    lacking.write(tmp_path / "book.pack.json")  # beside the book: what --replay alone reads
    capsys.readouterr()
    assert main(["calc", str(book), "--replay", "-o", str(tmp_path / "r.xlsx"), "--no-progress"]) == 3
    out = capsys.readouterr().out
    assert offline.count() == 0
    values = cached_values(tmp_path / "r.xlsx")
    # An error value in the copy, as in Excel (issue 28); the summary names the message.
    assert values[("Rates", "A2")] == "#N/A"
    assert "Rates!A2: #N/A (not in the market-data pack: swap_rate SOFR 0D 5Y 1Y" in out
    assert values[("Rates", "A1")] == cached_values(tmp_path / "book.values.xlsx")[("Rates", "A1")]
    assert "replayed from the market-data pack (no service asked)" in out


def test_replay_of_a_book_with_no_pack_is_one_line(tmp_path, offline, capsys):
    book = _small_book(tmp_path / "book.xlsx")
    assert main(["calc", str(book), "--replay", "--no-progress"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "carries no market-data pack" in err[0]
    assert offline.count() == 0


def test_another_valuation_the_diff_names_that_cell_and_that_request_only(tmp_path, offline, sandbox, capsys):
    """A pack of other answers (one moved), as a rates-xl that recorded them seals it: the diff
    names the cells that read it and that request, nothing else (an edited pack is refused:
    tests/calc/test_pack_seal_calc.py)."""
    book = _small_book(tmp_path / "book.xlsx")
    with RatesClient(sandbox.base_url, api_key="sandbox-paid", persistent=False) as client, using_client(client):
        assert main(["calc", str(book), "--no-progress"]) == 0
    computed = tmp_path / "book.values.xlsx"
    pack = read_pack(computed)
    edited = []
    for answer in pack.answers:
        if answer.request == TEN_YEARS:
            body = json.loads(answer.answer)
            body["swap_rate"] += 0.25
            answer = answer.model_copy(update={"answer": json.dumps(body)})
        edited.append(answer)
    assert len(edited) == 3
    resealed(pack, edited).write(tmp_path / "e.json")
    moved = tmp_path / "moved.xlsx"
    assert main(["calc", str(book), "--replay", str(tmp_path / "e.json"), "-o", str(moved), "--no-progress"]) == 0
    capsys.readouterr()
    # The book is found beside A by calc's naming (book.values.xlsx -> book.xlsx).
    assert main(["diff", str(computed), str(moved), "-o", str(tmp_path / "report.xlsx")]) == 4
    out = capsys.readouterr().out
    assert offline.count() == 0
    from rates_xl.calc.diff import diff

    result = diff(computed, moved)
    # A3 first: nothing reads it (an output); A1 feeds it.
    assert [(c.address, c.output) for c in result.cells] == [("Rates!A3", True), ("Rates!A1", False)]
    assert all(c.requests == (TEN_YEARS,) for c in result.cells)
    assert [r.request for r in result.requests] == [TEN_YEARS]
    assert result.cells[1].change == pytest.approx(0.25) and result.cells[0].change == pytest.approx(0.5)
    assert "2 cells moved (1 of them output), 1 service answer moved" in out and "Rates!A4" not in out
    report = openpyxl.load_workbook(tmp_path / "report.xlsx")
    filled = {(ws.title, c.coordinate) for ws in report.worksheets[1:] for row in ws.iter_rows() for c in row
              if c.fill.fgColor.rgb not in (None, "00000000")}
    assert filled == {("Rates", "A1"), ("Rates", "A3")}
    assert "swap_rate" in report["Rates"]["A1"].comment.text
    assert report.sheetnames[0] == "rates-xl diff"
    # The same copies: nothing moved.
    assert main(["diff", str(computed), str(computed)]) == 0


def test_the_books_valuation_name_pins_every_call_and_the_option_overrides_it(tmp_path, sandbox, capsys):
    book = _small_book(tmp_path / "book.xlsx", name='"2026-01-02T16:00:00Z"')
    with RatesClient(sandbox.base_url, api_key="sandbox-paid", persistent=False) as client, using_client(client):
        assert main(["calc", str(book), "--no-progress"]) == 0
        out = capsys.readouterr().out
        pack = read_pack(tmp_path / "book.values.xlsx")
        assert {dict(a.params)["valuation_time"] for a in pack.answers} == {"2026-01-02T16:00:00Z"}
        assert "valuation time pinned at 2026-01-02 16:00:00 UTC" in out
        assert "every answer valued at 2026-01-02 16:00:00 UTC" in out
        assert main(["calc", str(book), "--no-progress", "--force", "--valuation-time", "2026-01-05"]) == 0
        pack = read_pack(tmp_path / "book.values.xlsx")
        assert {dict(a.params)["valuation_time"] for a in pack.answers} == {"2026-01-05T00:00:00Z"}


def test_the_valuation_name_may_point_at_a_cell_and_a_bad_one_is_one_line(tmp_path, sandbox, capsys):
    from datetime import datetime

    from rates_xl.calc.valuation import book_moment
    from rates_xl.calc.workbook import Book, CalcError

    path = _small_book(tmp_path / "cell.xlsx", name="Rates!$D$1")
    book = openpyxl.load_workbook(path)
    book["Rates"]["D1"] = datetime(2026, 2, 3, 16, 30)
    book.save(path)
    assert book_moment(Book(path)).isoformat() == "2026-02-03T16:30:00+00:00"
    bad = _small_book(tmp_path / "bad.xlsx", name='"next tuesday"')
    with pytest.raises(CalcError, match="RATES_VALUATION_TIME: expected a date-time"):
        book_moment(Book(bad))
    assert main(["calc", str(bad), "--sandbox", "--no-progress"]) == 1
    assert "RATES_VALUATION_TIME" in capsys.readouterr().err


def test_a_trial_keys_book_shows_the_spread_of_its_moments(tmp_path, sandbox):
    import time

    from rates_xl.calc.workbook import WorkbookCalculation

    book = _small_book(tmp_path / "book.xlsx")
    with RatesClient(sandbox.base_url, api_key="sandbox-trial", persistent=False) as client, using_client(client):
        client.swap_rate("SOFR", "0D", "10Y", "1Y")  # valued now; the rest a second or more later
        time.sleep(1.2)
        result = WorkbookCalculation(book).compute(client)
        status = dict((row[0], row[1]) for row in FUNCTIONS["RATES_STATUS"].core())
    moments = sorted({a.valuation_time for a in result.pack.answers})
    # A trial key cannot pin: each answer says when it was valued. The first call's second and
    # at least one later one (the book's calls may themselves span seconds on a loaded machine:
    # 3 were seen at load 25); the summary names the first and the last.
    assert len(moments) >= 2
    first, last = (m[11:19] for m in (moments[0], moments[-1]))
    phrase = f"answers valued between {first} and {last} UTC"
    assert phrase in market_data(result)
    assert status["Answers valued"].startswith(phrase)


def test_neither_the_copy_nor_the_pack_beside_it_holds_the_key(tmp_path, capsys, monkeypatch):
    """The service echoes the key into an answer and a refusal; the copy, every part of it,
    and the pack written beside it hold neither the key nor either half of it."""
    server = FaultServer()

    def echoing(arrival):
        key = arrival.headers.get("x-api-key", "")
        if arrival.path == "/v1/fixing":
            return Reply(status=404, body={"detail": f"no fixing for key {key}"})
        return Reply(body={"currency_pair": "EURUSD", "valuation_time": "2026-04-01T16:00:00Z",
                           "rate": 1.17732, "served_to": key, "half": key[: len(key) // 2]})

    server.responder = echoing
    try:
        path = tmp_path / "book.xlsx"
        book = openpyxl.Workbook()
        book.active["A1"] = '=RATES_FXSPOT("EURUSD")'
        book.active["A2"] = '=RATES_FIXING("SOFR","2025-12-01")'
        book.save(path)
        with RatesClient(server.base_url, api_key=SECRET, persistent=False) as client, using_client(client):
            main(["calc", str(path), "--no-progress", "--pack-out", str(tmp_path / "p.json")])
        assert server.count() >= 2
    finally:
        server.stop()
    pack = read(tmp_path / "p.json")
    assert {a.endpoint for a in pack.answers} == {"fx_spot", "fixing"}
    halves = [SECRET, SECRET[: len(SECRET) // 2], SECRET[len(SECRET) // 2:]]
    blobs = {"p.json": (tmp_path / "p.json").read_bytes()}
    with zipfile.ZipFile(tmp_path / "book.values.xlsx") as archive:
        blobs.update({name: archive.read(name) for name in archive.namelist()})
    assert any(name.startswith("customXml/") for name in blobs)
    for name, data in blobs.items():
        for piece in halves:
            assert piece.encode() not in data, f"{name} holds {len(piece)} characters of the key"


def test_a_book_of_500_distinct_requests_grows_by_less_than_1_mb(tmp_path, rates_client):
    from dataclasses import replace

    from rates_xl.calc.workbook import WorkbookCalculation

    path = tmp_path / "many.xlsx"
    book = openpyxl.Workbook()
    for i in range(500):
        book.active.cell(row=i + 1, column=1, value=f'=RATES_SWAP("SOFR","0D","{i % 50 + 1}Y","1Y",,,,'
                                                    f'"2026-0{i // 50 % 9 + 1}-0{i // 450 + 1}T16:00:00Z")')
    book.save(path)
    calc = WorkbookCalculation(path)
    result = calc.compute(rates_client)
    assert len(result.pack.answers) == 500
    with_pack = calc.freeze(result, tmp_path / "with.xlsx")
    without = calc.freeze(replace(result, pack=None), tmp_path / "without.xlsx")
    added = with_pack.stat().st_size - without.stat().st_size
    assert 0 < added < 1 << 20
    print(f"500 requests: the pack adds {added} bytes")


def test_rates_source_names_the_request_and_its_moments_in_a_computed_and_a_replayed_book(tmp_path, sandbox, offline):
    import xlsxwriter

    path = tmp_path / "book.xlsx"
    with xlsxwriter.Workbook(path) as book:  # as Excel 365 saves a spill (openpyxl cannot)
        sheet = book.add_worksheet("Rates")
        sheet.write_formula("A1", '=RATES_SWAP("SOFR","0D","10Y","1Y")')
        sheet.write_formula("A3", "=A1*2")
        sheet.write_dynamic_array_formula("D1:E4", "=RATES_SOURCE(A1)")
        sheet.write_formula("D10", "=RATES_SOURCE(A3)")  # A1*2: no answer has that value
        book.define_name("RATES_VALUATION_TIME", '="2026-01-02T16:00:00Z"')
    with RatesClient(sandbox.base_url, api_key="sandbox-paid", persistent=False) as client, using_client(client):
        assert main(["calc", str(path), "--no-progress"]) == 3  # D10 is a #RATES! line
    computed = cached_values(tmp_path / "book.values.xlsx")
    rows = {computed[("Rates", f"D{r}")]: computed[("Rates", f"E{r}")] for r in range(1, 5)}
    assert rows["Request"] == TEN_YEARS + "&valuation_time=2026-01-02T16:00:00Z"
    assert rows["Valued at"] == "2026-01-02 16:00:00 UTC"
    fetched = next(a.fetched_at for a in read_pack(tmp_path / "book.values.xlsx").answers
                   if a.request == rows["Request"])
    assert rows["Fetched at"] == fetched[:10] + " " + fetched[11:23] + " UTC"
    assert rows["Service"] == sandbox.base_url
    # A1*2 is no RATES_* call: named, never matched by value.
    assert computed[("Rates", "D10")] == ("#RATES! cell: Rates!A3: =A1*2 calls no RATES_* function "
                                          "that asks the service")
    # Replayed: the same rows, the original fetch time included.
    replayed = tmp_path / "r.xlsx"
    assert main(["calc", str(path), "--replay", str(tmp_path / "book.values.xlsx"), "-o", str(replayed),
                 "--no-progress"]) == 3
    again = cached_values(replayed)
    assert [again[("Rates", f"E{r}")] for r in range(1, 4)] == [rows["Request"], rows["Valued at"], rows["Fetched at"]]
    assert offline.count() == 0


def test_each_book_of_a_batch_records_its_own_pack_and_a_shared_request_is_fetched_once(tmp_path, sandbox):
    first = _small_book(tmp_path / "first.xlsx")
    second = tmp_path / "second.xlsx"
    book = openpyxl.Workbook()
    book.active["A1"] = '=RATES_SWAP("SOFR","0D","10Y","1Y")'  # also in the first book
    book.active["A2"] = '=RATES_DISCOUNT("SOFR","5Y")'
    book.save(second)
    packs = tmp_path / "packs"
    packs.mkdir()
    with RatesClient(sandbox.base_url, api_key="sandbox-paid", persistent=False) as client, using_client(client):
        assert main(["calc", str(first), str(second), "--no-progress", "--pack-out", str(packs)]) == 0
        assert client.stats()["requests_sent"] == 4  # 10Y, 5Y, EURUSD, the discount factor
    one, two = read(packs / "first.pack.json"), read(packs / "second.pack.json")
    assert {a.endpoint for a in one.answers} == {"swap_rate", "fx_spot"} and len(one.answers) == 3
    assert [a.request for a in two.answers] == ["discount_factor?date=5Y&index=SOFR", TEN_YEARS]
    assert two == read_pack(tmp_path / "second.values.xlsx")
    shared = next(a for a in one.answers if a.request == TEN_YEARS)
    assert shared == two.answers[1]  # the one answer both books used, with its one fetch time


def test_a_run_pinned_by_the_option_replays_with_no_option_to_the_same_values(tmp_path, sandbox, offline, capsys):
    book = _small_book(tmp_path / "book.xlsx")  # no RATES_VALUATION_TIME name: only the option pins
    with RatesClient(sandbox.base_url, api_key="sandbox-paid", persistent=False) as client, using_client(client):
        assert main(["calc", str(book), "--no-progress", "--valuation-time", "2026-01-05T10:30:00Z"]) == 0
    computed = tmp_path / "book.values.xlsx"
    assert read_pack(computed).valuation_time == "2026-01-05T10:30:00Z"
    replayed = tmp_path / "r.xlsx"
    assert main(["calc", str(book), "--replay", str(computed), "-o", str(replayed), "--no-progress"]) == 0
    assert offline.count() == 0
    before, after = _every_cell(computed), _every_cell(replayed)
    assert before.keys() == after.keys()
    for key, value in before.items():
        assert repr(after[key]) == repr(value), key
    assert "valuation time pinned at 2026-01-05 10:30:00 UTC" in capsys.readouterr().out
    assert read_pack(replayed).valuation_time == "2026-01-05T10:30:00Z"


def test_an_unpinned_pack_is_written_without_the_field():
    pack = Pack(base_url="http://127.0.0.1:1", created="2026-01-01T00:00:00.000000Z")
    assert "valuation_time" not in pack.dumps()
    from rates_xl.client.pack import loads

    assert loads(pack.model_copy(update={"valuation_time": "2026-01-05T10:30:00Z"}).dumps()).valuation_time \
        == "2026-01-05T10:30:00Z"


def test_rates_source_follows_the_cells_own_request_not_its_value(tmp_path, sandbox):
    """Two requests whose answers hold the same number (one swap valued a second apart): the
    value alone is two answers; the cell's formula, its arguments read from the cells it
    references on its own sheet, is one."""
    import xlsxwriter

    path = tmp_path / "book.xlsx"
    with xlsxwriter.Workbook(path) as book:
        rates = book.add_worksheet("Rates")
        rates.write("B1", "SOFR")
        rates.write("B2", "10Y")
        rates.write("B3", "2026-01-02T16:00:01Z")
        rates.write_formula("A1", '=RATES_SWAP(B1,"0D",B2,"1Y",,,,"2026-01-02T16:00:00Z")')
        rates.write_formula("A2", '=RATES_SWAP(B1,"0D",B2,"1Y",,,,B3)')
        rates.write_dynamic_array_formula("D1:E2", '=RATES_SWAPCURVE("SOFR",B3,FALSE)')
        audit = book.add_worksheet("Audit")
        audit.write("B1", "ESTR")  # what B1 and B2 would read on the wrong sheet
        audit.write("B2", "2Y")
        audit.write_dynamic_array_formula("A1:B4", "=RATES_SOURCE(Rates!A2)")
        audit.write_dynamic_array_formula("A10:B13", "=RATES_SOURCE(Rates!E2)")  # inside the curve's spill
    with RatesClient(sandbox.base_url, api_key="sandbox-paid", persistent=False) as client, using_client(client):
        assert main(["calc", str(path), "--no-progress"]) == 0
    values = cached_values(tmp_path / "book.values.xlsx")
    assert values[("Rates", "A1")] == values[("Rates", "A2")]  # the value alone cannot tell them apart
    assert [values[("Audit", f"A{r}")] for r in range(1, 5)] == ["Request", "Valued at", "Fetched at", "Service"]
    assert values[("Audit", "B1")] == TEN_YEARS + "&valuation_time=2026-01-02T16:00:01Z"
    assert values.get(("Audit", "A5")) is None  # one answer, not a list of candidates
    assert values[("Audit", "B10")] == "swap_curve?index=SOFR&valuation_time=2026-01-02T16:00:01Z"


def test_the_diff_links_each_cell_to_its_own_request_when_two_moved_answers_agree(tmp_path, offline, sandbox):
    """Two swaps valued a second apart, both edited to the same new rate: by value each cell
    would match both moved answers; through the book's formulas each names its own."""
    path = tmp_path / "book.xlsx"
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Rates"
    sheet["B1"], sheet["B2"], sheet["B3"] = "SOFR", "10Y", "2026-01-02T16:00:01Z"
    sheet["A1"] = '=RATES_SWAP(B1,"0D",B2,"1Y",,,,"2026-01-02T16:00:00Z")'
    sheet["A2"] = '=RATES_SWAP(B1,"0D",B2,"1Y",,,,B3)'
    sheet["A3"] = "=A2*2"
    book.save(path)
    with RatesClient(sandbox.base_url, api_key="sandbox-paid", persistent=False) as client, using_client(client):
        assert main(["calc", str(path), "--no-progress"]) == 0
    computed = tmp_path / "book.values.xlsx"
    pack = read_pack(computed)
    edited = []
    for answer in pack.answers:
        body = json.loads(answer.answer)
        body["swap_rate"] = 4.5
        edited.append(answer.model_copy(update={"answer": json.dumps(body)}))
    resealed(pack, edited).write(tmp_path / "e.json")
    moved = tmp_path / "moved.xlsx"
    assert main(["calc", str(path), "--replay", str(tmp_path / "e.json"), "-o", str(moved), "--no-progress"]) == 0
    assert offline.count() == 0
    from rates_xl.calc.diff import diff

    result = diff(computed, moved, book=path)
    by_cell = {c.address: c.requests for c in result.cells}
    at = TEN_YEARS + "&valuation_time=2026-01-02T16:00:0"
    assert by_cell == {"Rates!A1": (at + "0Z",), "Rates!A2": (at + "1Z",), "Rates!A3": (at + "1Z",)}


def test_replay_of_a_book_whose_copy_beside_it_carries_the_pack_points_at_it(tmp_path, sandbox):
    """`calc BOOK --replay` on the book with formulas (which carries no pack) names the copy
    calc wrote beside it, which does, and the command that replays from it (issue 31)."""
    from tests.support.commands import fresh_env, rates_xl

    _small_book(tmp_path / "book.xlsx")
    env = fresh_env(tmp_path / "home", RATES_BASE_URL=sandbox.base_url, RATES_API_KEY="sandbox-paid")
    assert rates_xl("calc", "book.xlsx", "--no-progress", cwd=tmp_path, env=env).returncode == 0
    done = rates_xl("calc", "book.xlsx", "--replay", "--no-progress", "-o", "r.xlsx", cwd=tmp_path, env=env)
    assert done.returncode == 1
    assert done.stderr.strip() == ("rates-xl calc: book.xlsx carries no market-data pack, but book.values.xlsx "
                                   "beside it does (the copy rates-xl calc wrote): rates-xl calc book.xlsx "
                                   "--replay book.values.xlsx")
    followed = rates_xl("calc", "book.xlsx", "--replay", "book.values.xlsx", "--no-progress", "-o", "r.xlsx",
                        cwd=tmp_path, env=env)
    assert followed.returncode == 0, followed.stderr
