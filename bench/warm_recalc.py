"""(c) Warm recalculation of 10,000 cells: every answer already cached, the workbook
computed again through the worksheet functions, one cell after another as Excel's
calculation chain calls them. Median microseconds per cell call; target 30.

Two workbooks of 10,000 cells over the same 2,000 distinct requests:
  same-args  each request in 5 cells with identical arguments (filled down from one input);
  respelled  each request in 5 cells spelled differently, so 10,000 distinct argument sets.
The second is there because the functions memoise validation per argument set in an LRU of
bounded size: a workbook with more distinct argument sets than that revalidates every call.
"""

from __future__ import annotations

import gc

from bench.common import figure, main_for, result, timed
from tests.support.cells import distinct_cells, duplicated, evaluate, is_message
from tests.support.sandbox import sandbox_process

CELLS, DISTINCT = 10_000, 2_000


def workbooks() -> dict[str, list]:
    distinct = distinct_cells(DISTINCT)
    copies = CELLS // DISTINCT
    return {
        "same-args": [cell for cell in distinct for _ in range(copies)],
        "respelled": duplicated(distinct, copies),
    }


def run(runs: int = 7) -> dict:
    from rates_xl.client import RatesClient
    from rates_xl.functions import set_client
    from rates_xl.sandbox import PAID_KEY

    books = workbooks()
    per_call: dict[str, list[float]] = {name: [] for name in books}
    setup: dict = {"cells": CELLS, "distinct_requests": DISTINCT}
    with sandbox_process(rate_limit=10_000, burst=10_000) as sandbox:
        client = RatesClient(base_url=sandbox.base_url, api_key=PAID_KEY, rate_limit=10_000, burst=10_000)
        set_client(client)
        try:
            fill_seconds, values = timed(lambda: evaluate(books["respelled"], threads=16))
            setup["fill_seconds"] = round(fill_seconds, 2)
            setup["fill_messages"] = sum(is_message(v) for v in values)
            sent_before = client.stats()["requests_sent"]
            for name, cells in books.items():
                evaluate(cells)  # once untimed: the memo holds what it can
                for _ in range(runs):
                    gc.collect()
                    seconds, values = timed(lambda cells=cells: evaluate(cells))
                    per_call[name].append(seconds / len(cells) * 1e6)
                bad = [v for v in values if is_message(v)]
                setup[f"{name}_messages"] = len(bad)
            setup["requests_sent_while_warm"] = client.stats()["requests_sent"] - sent_before
        finally:
            set_client(None)
            client.close()
    from rates_xl.functions.core import _prepare_memo

    memo = _prepare_memo.cache_info()
    setup["validation_memo_size"] = memo.maxsize
    return result(
        "warm_recalc", f"(c) Warm recalculation of {CELLS:,} cells ({DISTINCT:,} distinct requests)",
        [
            figure("same-args: per cell call", per_call["same-args"], "us", target=30),
            figure("respelled: per cell call", per_call["respelled"], "us", target=30),
            figure("requests sent while warm", [setup["requests_sent_while_warm"]], "", target=0, digits=0),
        ],
        runs=runs, setup=setup,
        notes=[f"respelled: {CELLS:,} distinct argument sets vs the validation memo's "
               f"{memo.maxsize} entries", "one thread, Python side only (Excel's COM call "
               "into xlwings is not included)"],
    )


if __name__ == "__main__":
    main_for(run, 7)
