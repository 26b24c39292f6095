"""The fast engine's prepared copy of every book, written out to compare two trees.

    python bench/prepared_dump.py OUT_DIR [BOOK_OR_FOLDER ...]

For each book (default: ../shared/corpus/excel, ../shared/corpus/models, the test corpus
tests/calc/corpus and templates/), in default mode and with --full, writes OUT_DIR/<book>.<mode>.txt:
every field of each `Prepared` the preparation answers (calc/engines/formualizer/prepare.py),
sorted, and every part of its saved copy but the file's save time. Run it under each tree's
interpreter (it imports the tree installed there, and is run by path so that the other tree
needs no copy of it), then `diff -r` the two folders: a change that must not change the
engine's copy (a faster preparation) leaves them identical. Nothing is computed past the
preparation, and no service is asked.
"""

from __future__ import annotations

import dataclasses
import io
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = [ROOT.parent / "shared" / "corpus" / "excel", ROOT.parent / "shared" / "corpus" / "models",
           ROOT / "tests" / "calc" / "corpus", ROOT / "templates"]


class _Prepared(SystemExit):
    """Raised past the preparation (the engine lets an exit through): nothing more is needed."""


def _zip_lines(name: str, data: bytes) -> list[str]:
    lines = []
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in sorted(archive.infolist(), key=lambda i: i.filename):
            if info.filename == "docProps/core.xml":
                continue  # (the save time)
            lines.append(f"{name} {info.filename} {archive.read(info.filename)!r}")
    return lines


def _lines(prepared: object) -> list[str]:
    out = []
    for item in dataclasses.fields(prepared):  # type: ignore[arg-type]
        value = getattr(prepared, item.name)
        if item.name in ("data", "probe"):
            out += _zip_lines(item.name, value) if value else [f"{item.name} {value!r}"]
        elif isinstance(value, dict):
            out += [f"{item.name} {k!r} = {v!r}" for k, v in sorted(value.items(), key=repr)]
        elif isinstance(value, set | frozenset | list):
            out += [f"{item.name} {v!r}" for v in sorted(value, key=repr)]
        else:
            out.append(f"{item.name} {value!r}")
    return out


def main(argv: list[str]) -> int:
    from rates_xl.calc import workbook
    from rates_xl.calc.engines.formualizer import prepare

    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    books = []
    for place in [Path(p) for p in argv[1:]] or DEFAULT:
        books += sorted(place.rglob("*.xls[xm]")) if place.is_dir() else [place]
    original = prepare.prepare
    seen: list[list[str]] = []

    def recorded(*args: object, **kwargs: object) -> object:
        seen.append(_lines(original(*args, **kwargs)))
        raise _Prepared(0)

    prepare.prepare = recorded  # type: ignore[assignment]
    for path in books:
        for full in (False, True):
            seen.clear()
            try:
                workbook.WorkbookCalculation(path, full=full)
                ending = "computed without the fast engine's preparation"
            except _Prepared:
                ending = "prepared"
            except Exception as exc:  # noqa: BLE001 - the book's own failure is part of its answer
                ending = f"failed: {type(exc).__name__}: {exc}"
            name = f"{path.parent.name}_{path.name}.{'full' if full else 'default'}.txt"
            text = "\n".join([ending, *(line for lines in seen for line in lines)]) + "\n"
            (out / name).write_text(text, encoding="utf-8")
            print(name, ending, len(text), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
