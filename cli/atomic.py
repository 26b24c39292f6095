"""Writing a file in one rename, so an interrupted command never leaves half a file.

Every command that writes a file the user asked for writes it beside the target under a
hidden temporary name and renames it into place (`os.replace`, atomic on one volume). The
temporary names in flight are remembered here, so the console script's Ctrl+C and SIGTERM
handling (rates_xl.cli) can remove them even when it has to exit without unwinding.

A file created here gets the mode any file the user creates gets (0666 less the umask:
0644 under the usual 022), as `open()` gives it: copies, add-ins and packs are documents
to share. `tempfile.mkstemp` is not used for them: it makes every file 0600 (calc's copies
were readable by their owner only, issue 31). Files holding a secret (the team server's
users file, certificate keys) create themselves 0600 where they are written.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path

_pending: set[Path] = set()
_lock = threading.Lock()
#: Set by the console script's forced exit (`remove_pending(for_good=True)`): the process is
#: ending, so no new temporary file may be started (one started after the pending ones were
#: removed would be left behind by os._exit).
_closed = False


@contextlib.contextmanager
def replacing(out: str | os.PathLike[str]) -> Iterator[Path]:
    """`with replacing(out) as tmp:` write `tmp`; on a clean exit it becomes `out`, on any
    failure or interrupt it is removed and `out` is left as it was."""
    out = Path(out)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    with _lock:
        if _closed:
            raise KeyboardInterrupt  # the process is exiting (rates_xl.cli's forced exit)
        _pending.add(tmp)
    try:
        yield tmp
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
        with _lock:
            _pending.discard(tmp)


def write_bytes(out: str | os.PathLike[str], data: bytes) -> Path:
    with replacing(out) as tmp:
        tmp.write_bytes(data)
    return Path(out)


def write_text(out: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> Path:
    with replacing(out) as tmp:
        tmp.write_text(text, encoding=encoding)
    return Path(out)


def remove_pending(*, for_good: bool = False) -> None:
    """Remove every temporary file still being written (called on interrupt); `for_good`
    (the forced exit, from another thread than the writer's): start no new one after."""
    global _closed
    with _lock:
        _closed = _closed or for_good
        pending = list(_pending)
    for tmp in pending:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
