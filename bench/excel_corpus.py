"""Fidelity on Excel-made books (../shared/corpus/excel): `python -m bench excel_corpus`.

The measuring code lives in tests/support/excel_corpus.py, shared with
tests/calc/test_excel_corpus.py; this module is the benchmark's entry (and each book's child
process: `python -m bench.excel_corpus --child BOOK`)."""

from __future__ import annotations

from tests.support.excel_corpus import main, run  # noqa: F401  (run: bench/__main__.py)

if __name__ == "__main__":
    raise SystemExit(main())
