"""The market-data pack's round trip: `swap_pricer.xlsx` computed against the sandbox vs
replayed from its pack, and `rates-xl diff` of two valuations of the 12,000-formula book.

    python -m bench.market_data_pack [--runs 3]

1. compute: the template against a sandbox on loopback (30 ms latency per answer, the paid
   key, an empty cache: what `rates-xl calc` does), then write the values-frozen copy with
   its pack; 2. replay: the same book from that copy's pack (`RatesClient(replay=...)`: no
   transport to any network exists in the client); the requests the sandbox saw during the
   replay are counted. Both times are the compute alone (plan, fetch or read the pack,
   evaluate: 4 rounds); loading the book, the same for both, is reported apart.
3. seal: what sealing costs (client/pack_seal.py, calc/provenance.py) on a book of 500
   distinct swap rates and on the 12,000-formula book's 14,000 cells: deriving the signing
   key from the API key (scrypt, once per process), sealing a copy (its cells read back and
   digested), reading the pack back (the strict parser) and checking it; and the issue's
   edit (1.00 added to one rate in the copy's part) named on check.
4. diff: the 12,000-formula book computed once, a second copy with every number moved by
   one part in a billion (every cell moved: the worst case for the table and the highlighted
   workbook), then `diff(A, B, book=...)` with the attribution graph, and the report
   workbook (-o). Median of the runs.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIG = ROOT / "tests" / "calc" / "corpus" / "source" / "generated_12000.xlsx"
LATENCY_MS = 30


def replay_vs_compute(runs: int, folder: Path) -> dict:
    from rates_xl.calc.workbook import WorkbookCalculation
    from rates_xl.client import RatesClient
    from rates_xl.client.pack_workbook import read_pack
    from rates_xl.sandbox import PAID_KEY
    from rates_xl.sandbox.server import start_in_thread
    from rates_xl.templates import template_path

    book = template_path("swap_pricer")
    computed, replayed, seen, loads = [], [], [], []
    with start_in_thread(latency_ms=LATENCY_MS, rate_limit=1000, burst=1000) as sandbox:
        copy = folder / "swap_pricer.values.xlsx"
        for _ in range(runs):
            with RatesClient(sandbox.base_url, api_key=PAID_KEY, persistent=False) as client:
                began = time.perf_counter()
                calc = WorkbookCalculation(book)
                loads.append(time.perf_counter() - began)
                began = time.perf_counter()
                result = calc.compute(client)
                computed.append(time.perf_counter() - began)
                sent = client.stats()["requests_sent"]
            calc.freeze(result, copy, force=True)
        pack = read_pack(copy)
        for _ in range(runs):
            before = len(sandbox.arrivals)
            calc = WorkbookCalculation(book)
            with RatesClient(replay=pack) as offline:
                began = time.perf_counter()
                again = calc.compute(offline)
                replayed.append(time.perf_counter() - began)
            seen.append(len(sandbox.arrivals) - before)
        assert _same(again.values, result.values), "the replay differs from the computation"
    return {"load_s": statistics.median(loads), "compute_s": statistics.median(computed),
            "replay_s": statistics.median(replayed),
            "requests_computing": sent, "answers_in_pack": len(pack.answers), "sandbox_requests_replaying": seen}


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(repr(a[k]) == repr(b[k]) for k in a)


def seal_cost(runs: int, folder: Path) -> dict:
    import json
    import zipfile

    import openpyxl

    from rates_xl.calc.provenance import seal_copy
    from rates_xl.calc.workbook import WorkbookCalculation
    from rates_xl.client import RatesClient
    from rates_xl.client.pack_seal import _derived, check, signer_for
    from rates_xl.client.pack_workbook import read_pack
    from rates_xl.sandbox import PAID_KEY
    from rates_xl.sandbox.server import start_in_thread

    path = folder / "many.xlsx"
    book = openpyxl.Workbook()
    for i in range(500):
        book.active.cell(row=i + 1, column=1, value=f'=RATES_SWAP("SOFR","0D","{i % 50 + 1}Y","1Y",,,,'
                                                    f'"2026-0{i // 50 % 9 + 1}-0{i // 450 + 1}T16:00:00Z")')
    book.save(path)
    derive, sealing, sealing_12k, reading, checking = [], [], [], [], []
    with start_in_thread(rate_limit=1000, burst=1000) as sandbox, \
            RatesClient(sandbox.base_url, api_key=PAID_KEY, persistent=False) as client:
        calc = WorkbookCalculation(path)
        result = calc.compute(client)
        copy = calc.freeze(result, folder / "many.values.xlsx", force=True)
    big = WorkbookCalculation(BIG)
    big_copy = big.freeze(big.compute(), folder / "big.values.xlsx", force=True)
    signer = signer_for(PAID_KEY)
    for run in range(runs):
        _derived.cache_clear()
        began = time.perf_counter()
        signer = signer_for(f"rk-bench-{run}-0123456789abcdef")
        derive.append(time.perf_counter() - began)
        began = time.perf_counter()
        seal_copy(copy, result.pack, signer)
        sealing.append(time.perf_counter() - began)
        began = time.perf_counter()
        seal_copy(big_copy, result.pack, signer)
        sealing_12k.append(time.perf_counter() - began)
        began = time.perf_counter()
        pack = read_pack(copy)
        reading.append(time.perf_counter() - began)
        began = time.perf_counter()
        check(pack, signer)
        checking.append(time.perf_counter() - began)
    # The edit, in the copy's part as text: 1.00 added to the first swap rate.
    with zipfile.ZipFile(copy) as archive:
        parts = [(info, archive.read(info)) for info in archive.infolist()]
    forged = folder / "forged.xlsx"
    with zipfile.ZipFile(forged, "w") as out:
        for info, data in parts:
            if info.filename == "customXml/item1.xml":
                text = data.decode()
                at = text.index('\\"swap_rate\\":') + len('\\"swap_rate\\":')
                end = at + next(i for i, c in enumerate(text[at:]) if c not in "0123456789.")
                data = (text[:at] + json.dumps(float(text[at:end]) + 1.0) + text[end:]).encode()
            out.writestr(info, data)
    named = check(read_pack(forged), signer_for(PAID_KEY)).edited
    return {"answers": len(result.pack.answers), "derive_key_s": statistics.median(derive),
            "seal_copy_500_s": statistics.median(sealing), "seal_copy_12k_cells_s": statistics.median(sealing_12k),
            "read_pack_500_s": statistics.median(reading), "check_500_s": statistics.median(checking),
            "edited_answers_named": len(named)}


def diff_12k(runs: int, folder: Path) -> dict:
    import openpyxl

    from rates_xl.calc.diff import diff, write_report
    from rates_xl.calc.workbook import WorkbookCalculation

    calc = WorkbookCalculation(BIG)
    a = calc.freeze(calc.compute(), folder / "a.values.xlsx", force=True)
    book = openpyxl.load_workbook(a)
    moved = 0
    for ws in book.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if isinstance(cell.value, float | int) and not isinstance(cell.value, bool) and cell.value:
                    cell.value = cell.value * (1 + 1e-9)
                    moved += 1
    b = folder / "b.values.xlsx"
    book.save(b)
    seconds, report_seconds, cells = [], [], 0
    for _ in range(runs):
        began = time.perf_counter()
        result = diff(a, b, book=BIG)
        seconds.append(time.perf_counter() - began)
        cells = len(result.cells)
        began = time.perf_counter()
        write_report(result, folder / "report.xlsx", force=True)
        report_seconds.append(time.perf_counter() - began)
    return {"diff_s": statistics.median(seconds), "report_s": statistics.median(report_seconds),
            "cells_moved": cells, "numbers_moved": moved}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print("swap_pricer:", replay_vs_compute(args.runs, folder))
        print("sealing:", seal_cost(args.runs, folder))
        print("12,000-formula diff:", diff_12k(args.runs, folder))


if __name__ == "__main__":
    main()
