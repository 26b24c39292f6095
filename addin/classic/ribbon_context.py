"""What a Rates tab handler works in: `Context` (the calling book, Excel, the two dialogs
xlwings lacks, the cancel question), the dialogs themselves, and Esc read while Excel is busy.

Handlers (`ribbon_refresh.py`, `ribbon_buttons.py`) take a `Context` and return a one-line
summary; `ribbon.on_action` builds it for each button press.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rates_xl.addin.classic.excel_surface import App, Book
from rates_xl.errors import TaskError

log = logging.getLogger("rates_xl.addin")


TITLE = "Rates"


# -- the context handlers work in --------------------------------------------------------------
class DialogUnavailable(TaskError):
    """A dialog cannot be shown in this Python (no Tk, no COM); the message says what to do."""


@dataclass
class Context:
    """What a handler may touch: the calling workbook (an xlwings Book) and two dialogs."""

    book: Book
    prompt_secret: Callable[[str, str], str | None]
    choose: Callable[[App, str, str, list[str]], int | None]
    #: Asked while a refresh fetches: True stops it. Default: Esc pressed in Excel (Windows).
    cancel_requested: Callable[[], bool] | None = None

    @property
    def app(self) -> App:
        return self.book.app

    def should_cancel(self) -> bool:
        if self.cancel_requested is not None:
            return bool(self.cancel_requested())
        return escape_pressed(self.app)

    def alert(self, text: str, title: str = TITLE) -> None:
        self.app.alert(text, title=title)

    def notify(self, text: str) -> None:
        """A short note in Excel's status bar (no dialog to dismiss)."""
        try:
            self.app.status_bar = text
        except Exception:  # some hosts have no status bar: the note is optional
            log.debug("no status bar for: %s", text)


def escape_pressed(app: App) -> bool:
    """Esc pressed (since the last poll, or held) while Excel's window is in front. Windows only.

    Excel is busy in RunPython meanwhile, so it never sees the key itself; `quiet_excel` sets
    `EnableCancelKey` to xlDisabled so Esc cannot interrupt the VBA callback instead.
    """
    if sys.platform != "win32":
        return False
    import ctypes

    user32 = ctypes.windll.user32  # type: ignore[attr-defined]
    if not user32.GetAsyncKeyState(0x1B) & 0x8001:  # VK_ESCAPE: down now, or pressed since
        return False
    try:
        return int(user32.GetForegroundWindow()) == int(app.hwnd)
    except Exception:  # no window handle to compare: trust the key
        return True


def numbered_menu(prompt: str, options: list[str]) -> str:
    lines = [prompt, ""] + [f"{n}. {option}" for n, option in enumerate(options, 1)]
    return "\n".join(lines + ["", "Type a number:"])


def parse_choice(answer: Any, count: int) -> int | None:
    """What InputBox returned -> a 0-based index, or None (cancelled or out of range)."""
    if answer is False or answer is None:
        return None
    try:
        number = int(float(answer))
    except (TypeError, ValueError):
        return None
    return number - 1 if 1 <= number <= count else None


# -- the real dialogs (Windows Excel) -------------------------------------------------------------
def tk_prompt_secret(prompt: str, title: str) -> str | None:
    """A masked input box; the key is never shown, typed into a cell or logged."""
    try:
        import tkinter
        from tkinter import simpledialog
    except ImportError:
        raise DialogUnavailable(
            "this Python has no Tk to ask for the key safely; run `rates-xl key set` in a "
            "terminal instead"
        ) from None
    try:
        root = tkinter.Tk()
    except tkinter.TclError:
        raise DialogUnavailable(
            "cannot open a window to ask for the key; run `rates-xl key set` in a terminal"
        ) from None
    try:
        root.withdraw()
        root.attributes("-topmost", True)
        return simpledialog.askstring(title, prompt, show="\u2022", parent=root)
    finally:
        root.destroy()


def inputbox_choose(app: App, prompt: str, title: str, options: list[str]) -> int | None:
    """Excel's own InputBox (Type 1 = a number) over a numbered list."""
    answer = app.api.InputBox(numbered_menu(prompt, options), title, "1", Type=1)
    return parse_choice(answer, len(options))
