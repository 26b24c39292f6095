"""One valuation moment per book, and the book's market-data pack, in the classic add-in.

The moment: the workbook-level defined name `RATES_VALUATION_TIME` (the same name `rates-xl
calc` reads: calc/valuation.py), holding the moment (`="2026-01-02T16:00:00Z"`, what the
ribbon's Valuation Time button writes) or pointing at a cell that holds one. A Refresh
reads it once (one COM call) and pins the book: every RATES_* cell of that book that leaves
`valuation_time` empty then values at that moment, whichever path computes it (the
synchronous one, the RTD wait, a Refresh): `refresh.context_for` puts it in the call's
context (functions/context.py, whose `pin` writes it into the call; a dict lookup per cell).
An empty name: "now", the key's default.

The pack: every Refresh records the answers its cells used (`refresh.RefreshPass.recorder`)
and `store_pack` puts the pack into the open workbook as a custom XML part through Excel's
own `Workbook.CustomXMLParts` (learn.microsoft.com/office/vba/api/excel.workbook.customxmlparts):
Excel then saves it with the book, where `rates-xl calc --replay` finds it. A refresh of a
part of the book adds its answers to the pack the book carries (one per request, the newest).
"""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime  # noqa: F401 - datetime in annotations
from typing import Any

log = logging.getLogger("rates_xl.addin")

NAME = "RATES_VALUATION_TIME"
_lock = threading.Lock()
_pins: dict[str, datetime] = {}  # folded book name -> the moment its cells value at


def _fold(book_name: str) -> str:
    return book_name.strip().casefold()


def pin(book_name: str, moment: datetime | None) -> None:
    with _lock:
        if moment is None:
            _pins.pop(_fold(book_name), None)
        else:
            _pins[_fold(book_name)] = moment


def any_pinned() -> bool:
    return bool(_pins)


def pinned(book_name: str) -> datetime | None:
    if not _pins:  # the common case: no book pins a moment
        return None
    return _pins.get(_fold(book_name))


def parse(value: Any) -> datetime | None:
    """A moment from what the name or its cell holds; None when empty; ValueError otherwise."""
    from rates_xl.functions import args

    if isinstance(value, str):
        value = value.strip().removeprefix("=").strip().strip('"')
    try:
        value = args.scalar(value)
        return None if value is None else args.timestamp(value).astimezone(UTC)
    except args.ArgProblem as problem:
        raise ValueError(f"the defined name {NAME}: {problem}") from None


def read_name(book: Any) -> datetime | None:
    """The moment the book's defined name holds (xlwings `Book.names`), or None."""
    try:
        name = book.names[NAME]
    except Exception:  # no such name (xlwings raises KeyError; COM may raise its own)
        return None
    refers = str(getattr(name, "refers_to", "") or "")
    if refers.lstrip("=").startswith('"') or not refers:
        return parse(refers)
    try:
        return parse(_on_1900(book, name.refers_to_range.value))  # =Inputs!$B$2
    except ValueError:
        raise
    except Exception:  # a name that is a formula, not a cell: read as text
        return parse(refers)


def _on_1900(book: Any, value: Any) -> Any:
    """A cell's moment as the function table reads it: a serial (a cell not formatted as a
    date: xlwings hands a date cell over as the day itself) moved onto the 1900 system in a
    book counting dates from 1904 (Workbook.Date1904; functions/date_system.py)."""
    from rates_xl.functions import date_system

    if not date_system.has_serial((value,), (0,)):
        return value
    try:
        in_1904 = bool(book.api.Date1904)
    except Exception as exc:  # noqa: BLE001 - a COM failure of any kind: said, never guessed
        raise ValueError(f"the defined name {NAME}: a moment given as a number, and the workbook's date "
                         f"system (1900 or 1904) could not be read ({type(exc).__name__})") from None
    return date_system.moved(value, date_system.SHIFT) if in_1904 else value


def write_name(book: Any, moment: datetime | None) -> None:
    """Set (or, with None, remove) the book's valuation moment."""
    if moment is None:
        try:
            book.names[NAME].delete()
        except Exception:  # there was none
            pass
        return
    book.names.add(NAME, f'="{moment:%Y-%m-%dT%H:%M:%SZ}"')


# -- the pack in the open workbook ------------------------------------------------------------
def stored_pack(book: Any) -> Any:
    """The pack the open workbook carries (its custom XML part), or None; read as
    `rates-xl calc` reads it (client/pack_workbook.py): a part it would refuse, or two packs,
    raise `PackError`."""
    from rates_xl.client.pack import PackError, loads
    from rates_xl.client.pack_workbook import NAMESPACE, pack_text

    parts = book.api.CustomXMLParts.SelectByNamespace(NAMESPACE)
    if parts.Count > 1:
        raise PackError(f"the book carries {parts.Count} market-data packs")
    for index in range(1, parts.Count + 1):  # COM collections count from 1
        found = pack_text(parts.Item(index).XML.encode("utf-8"), "the book's custom XML part")
        return loads(found[0]) if found is not None else None
    return None


def store_pack(book: Any, pack: Any, *, merge: bool, signer: Any = None) -> Any:
    """Put `pack` into the open workbook (replacing the part it had); with `merge`, the
    answers the book already carried for other requests stay, each with its own digest and
    signature as it was (an edited one stays edited: merging never launders it), and the
    pack is sealed again with `signer` (client/pack_seal.py). Returns the pack stored."""
    from rates_xl.client.pack import PackError
    from rates_xl.client.pack_seal import seal
    from rates_xl.client.pack_workbook import NAMESPACE, item_xml

    if merge:
        try:
            old = stored_pack(book)
        except PackError as exc:  # unreadable: replaced by this refresh's pack, said in the log
            log.warning("the market-data pack the book carried is not kept: %s", exc)
            old = None
        if old is not None:
            fresh = {(a.endpoint, a.params) for a in pack.answers}
            kept = [a for a in old.answers if (a.endpoint, a.params) not in fresh]
            answers = sorted([*kept, *pack.answers], key=lambda a: (a.endpoint, a.params))
            pack = seal(pack.model_copy(update={"answers": tuple(answers)}), signer)
    parts = book.api.CustomXMLParts.SelectByNamespace(NAMESPACE)
    for index in range(parts.Count, 0, -1):
        parts.Item(index).Delete()
    book.api.CustomXMLParts.Add(item_xml(pack).decode("utf-8"))
    return pack
