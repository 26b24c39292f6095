"""Whether the bridged `formulas` functions called without `np.vectorize` (calc/xlfuncs/unvectorized.py)
answer as the whole `formulas` wrapper on every call the corpus books make: each book computed
with --full in this process, every call reaching a replaced function computed both ways and
the two answers compared (type, shape, each element's type and digits).

    python -m bench.bridged_calls [BOOK ...]

Without BOOK: every book of ../shared/corpus/excel and ../shared/corpus/models. Prints each
book's calls, those taken directly, those that differ, and the time both ways; exits 1 when
any differs.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.outcomes import outcome

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"


class _Compared:
    """Counts and differences of the calls made through `compared` functions."""

    def __init__(self) -> None:
        self.calls = self.direct = 0
        self.seconds = {"direct": 0.0, "whole": 0.0}
        self.differ: list[tuple[str, tuple[Any, ...], object, object]] = []

    def compared(self, whole: Callable[..., Any], direct: Callable[..., Any],
                 bare: Callable[..., Any] | None = None) -> Callable[..., Any]:
        """`direct` compared with `whole` as they answer; `bare` (the bridge's call, which may answer a
        0-d array's element itself) by what the bridge hands the engine of each (from_formulas)."""
        from rates_xl.calc.xlfuncs.bridge import from_formulas

        def call(*args: Any) -> Any:
            started = time.perf_counter()
            ours = outcome(direct, args)
            middle = time.perf_counter()
            theirs = outcome(whole, args)
            self.seconds["direct"] += middle - started
            self.seconds["whole"] += time.perf_counter() - middle
            self.calls += 1
            if ours != theirs:
                self.differ.append((getattr(whole, "__name__", "?"), args, ours, theirs))
            if bare is None:
                return direct(*args)
            if (ours := outcome(lambda *a: from_formulas(bare(*a)), args)) != (
                    theirs := outcome(lambda *a: from_formulas(whole(*a)), args)):
                self.differ.append((getattr(whole, "__name__", "?") + " (bare)", args, ours, theirs))
            return bare(*args)
        return call


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("books", nargs="*", type=Path)
    args = parser.parse_args(argv)
    books = args.books or sorted((CORPUS / "excel").glob("*.xlsx")) + sorted((CORPUS / "models").glob("*.xlsx"))

    from rates_xl.calc.workbook import WorkbookCalculation
    from rates_xl.calc.xlfuncs import unvectorized

    replace = unvectorized.direct
    failed = False
    print(f"{'book':58} {'calls':>7} {'differ':>6} {'direct s':>9} {'whole s':>8}")
    for book in books:
        compared = _Compared()

        def checking(implementation: Callable[..., Any], *, bare: bool = False,
                     compared: _Compared = compared) -> Callable[..., Any]:
            direct = replace(implementation)
            if direct is implementation:
                return implementation
            return compared.compared(implementation, direct, replace(implementation, bare=True) if bare else None)

        unvectorized.direct = checking
        try:
            WorkbookCalculation(book, full=True).compute()
        finally:
            unvectorized.direct = replace
        failed = failed or bool(compared.differ)
        print(f"{book.name[:58]:58} {compared.calls:7} {len(compared.differ):6} "
              f"{compared.seconds['direct']:9.4f} {compared.seconds['whole']:8.4f}")
        for name, given, ours, theirs in compared.differ[:5]:
            print(f"  {name}{given!r}: direct {ours!r}, whole {theirs!r}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
