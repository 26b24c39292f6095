"""The `rates-xl` console script, and the rule every command follows.

Each area of the project owns its subcommands in its own `cli` module, which exposes
`register(subparsers)`; this file only lists those modules and applies the rule, once,
for all of them:

- a failure the user can fix prints ONE clear line on stderr (`rates-xl CMD: what is wrong
  and what to do`), never a traceback, never the API key, and exits 1 (a handler raises
  `CommandError`, or any other `RatesXlError` reaches here: the tree in rates_xl/errors.py);
  a bug prints one line too (`internal error (TypeError)`), its traceback only with
  RATES_XL_TRACEBACK=1;
- a module an optional extra provides (QuantLib, FastAPI, redis) that is not installed is
  such a failure too: the line names the extra and the command that installs it;
- a usage error (an unknown option, a malformed NAME=VALUE, a value an argument cannot
  take) exits 2, as argparse does (a handler raises `UsageError`);
- Ctrl+C (SIGINT) or SIGTERM stops the command within a second with `rates-xl CMD:
  interrupted` and exit 130, and leaves no partial file: files are written through
  `rates_xl.atomic` (a temporary file renamed into place) and the temporary files still
  being written are removed.

Commands whose job is a report (`doctor`, `calc`, `diff`) print the report and then exit 1
(or calc's 3) when it found problems (`diff`: 4 when something moved). Keep the listed modules cheap to import: heavy libraries
(QuantLib, formulas) are imported inside the handlers.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

from rates_xl.errors import CommandError, Internal, RatesXlError, UsageError  # noqa: F401 - CommandError: calc's commands still import it from here

#: Each command module and the commands it registers. `rates-xl COMMAND ...` imports only
#: COMMAND's module (the others' imports cost a third of a small book's `calc`: the client's
#: pydantic models for `call`, calc/diff.py for `diff`); help and an unknown word, all of them.
COMMAND_MODULES = {
    "rates_xl.functions.cli": ("call",),
    "rates_xl.client.cli": ("cache",),  # cache info|clear
    "rates_xl.sandbox.cli": ("sandbox",),
    "rates_xl.addin.cli": ("addin", "key", "doctor"),  # addin build|install|uninstall, key set|status|clear
    "rates_xl.calc.cli": ("calc",),
    "rates_xl.calc.diff_cli": ("diff",),
    "rates_xl.scenario.cli": ("risk",),
    "rates_xl.templates.cli": ("demo", "templates"),  # templates build|list
    "rates_xl.addin.officejs.cli": ("serve", "officejs", "respell"),  # officejs install|uninstall|manifest|certs
}

#: Exit codes: a failure the user can fix, a usage error, an interrupt (128 + SIGINT).
EXIT_FAILURE, EXIT_USAGE, EXIT_INTERRUPTED = 1, 2, 130
#: Seconds an interrupted command has to unwind (close files, stop the progress bar) before
#: it is ended regardless: threads still waiting on the network must not hold it up.
INTERRUPT_GRACE_S = 0.5


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The console script's parser: every command's, or only `command`'s (its module alone
    imported) when `command` is one of COMMAND_MODULES'."""
    parser = argparse.ArgumentParser(
        prog="rates-xl",
        description="Interest-rate market data in Excel: client, sandbox, add-in, templates.",
    )
    parser.add_argument("--version", action=_Version, version="rates-xl")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = [name for name, commands in COMMAND_MODULES.items() if command in commands] or list(COMMAND_MODULES)
    for name in chosen:
        importlib.import_module(name).register(subparsers)
    return parser


class _Version(argparse._VersionAction):
    """argparse's --version, the version read only when asked (rates_xl's `__getattr__`)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        from rates_xl import __version__

        self.version = f"rates-xl {__version__}"
        super().__call__(parser, namespace, values, option_string)


def main(argv: list[str] | None = None) -> int:
    interrupt = _Interrupt()
    # Until the arguments are parsed (the command modules import), the first word names it.
    given = sys.argv[1:] if argv is None else argv
    interrupt.command = _first_word(given)
    try:
        with _interrupts(interrupt):
            return _command(argv, given, interrupt)
    except KeyboardInterrupt:
        # A signal in the instant our handler is installed (before the command's own `try`) or
        # put back after it: a Ctrl+C at once after Enter printed Python's traceback.
        return interrupt.stop()


def _command(argv: list[str] | None, given: list[str], interrupt: _Interrupt) -> int:
    """The command run, each way it can end made one line (the handlers installed: `main`)."""
    try:
        # The command's own parser only when the command comes first (`--help calc` wants all).
        parser = build_parser(given[0]) if given and given[0] == interrupt.command else build_parser()
        args = parser.parse_args(argv)  # usage errors: argparse prints them, exits 2
        interrupt.command = _command_words(args)
        handler = getattr(args, "handler", None)
        if handler is None:
            parser.print_help()
            return EXIT_USAGE
        code = int(handler(args) or 0)
    except KeyboardInterrupt:
        return interrupt.stop()
    except BrokenPipeError:  # `rates-xl calc ... | head`: the reader left; nothing to say
        return _reader_gone()
    except Exception as exc:  # noqa: BLE001 - every failure becomes one line
        if interrupt.signalled:  # a library turned the KeyboardInterrupt into its own error
            return interrupt.stop()  # (`demo` interrupted at 1 s in CI said "internal error (SchemaError)")
        line = _one_line(exc, interrupt.command)
        if line is None:  # a bug: still one line; the traceback on request
            if os.environ.get("RATES_XL_TRACEBACK"):
                raise
            line = (f"internal error ({type(exc).__name__}); this is a bug: please report it "
                    "with the output of the same command run with RATES_XL_TRACEBACK=1")
        print(f"rates-xl {interrupt.command}: {line}", file=sys.stderr)
        return EXIT_USAGE if isinstance(exc, UsageError) else EXIT_FAILURE
    if interrupt.signalled:  # a library swallowed the KeyboardInterrupt: still an interrupt
        return interrupt.stop()
    return code


#: Commands after which the console script ends the process at once (`run`): a computed
#: book leaves millions of objects (openpyxl's cells, the engine's workbook, the
#: preparation's tables) that Python's exit frees one by one after a last full collection
#: over them all, 0.5 of formulas_test.xlsx's 4.7 CPU seconds, for nothing.
LEAVE_AT_ONCE = frozenset({"calc"})


#: Commands for which the console script imports openpyxl with Pillow left for a book with a
#: picture and without numpy, which they set in no cell (rates_xl/lazy_imports.py): a book
#: needing neither is spared their import. "": no command (--help, --version), which sets no
#: cell either and imports every command's module (calc/diff.py's openpyxl among them).
LAZY_IMPORTS = frozenset({"calc", ""})


def run() -> NoReturn:
    """The console script: `main`, then exit; after a command in LEAVE_AT_ONCE without
    tearing the heap down (tests and other callers use `main`, which returns). Before a
    command in LAZY_IMPORTS, openpyxl imported without Pillow's core and numpy."""
    if _first_word(sys.argv[1:]) in LEAVE_AT_ONCE:
        # No cyclic collection in a command that ends the process at once: from its first book
        # on, calc holds the collector off itself (calc/collector.py `until_exit`); before, the
        # collector would only walk the objects of the modules being imported, which live to the
        # end (45 collections of the youngest generation and 4 of the middle one before the
        # first book: 0.01 of formulas_excel.xlsx's 0.22 CPU s).
        import gc

        gc.disable()
    if _first_word(sys.argv[1:]) in LAZY_IMPORTS:
        from rates_xl import lazy_imports

        lazy_imports.defer_pillow()
        lazy_imports.openpyxl_without_numpy()
        # numpy's and scipy's OpenBLAS start a thread per core at import, which spin after it and
        # after each call: 0.05 of formulas_test.xlsx's 2.0 CPU s, for a book's small matrices.
        # (A setting of the user's stays.)
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        code = main()
        # (Under a profiler or a tracer, `python -m cProfile`, coverage: the ordinary exit, whose
        # SystemExit lets it write what it measured.)
        if _first_word(sys.argv[1:]) in LEAVE_AT_ONCE and sys.getprofile() is None and sys.gettrace() is None:
            _leave(code)
    except KeyboardInterrupt:  # after `main` put Python's handler back: still the one line
        print(_interrupted(_first_word(sys.argv[1:])), file=sys.stderr, flush=True)
        os._exit(EXIT_INTERRUPTED)
    sys.exit(code)


def _first_word(given: list[str]) -> str:
    """The command, before the arguments are parsed: the first word that is no option."""
    return next((w for w in given if not w.startswith("-")), "")


def _leave(code: int) -> NoReturn:
    """End the process as Python's exit would, less the freeing: what depends on the exit
    is done first, in its order (Py_FinalizeEx: wait_for_thread_shutdown, then the atexit
    callbacks): threads that are not daemons joined (threading._shutdown, which also runs
    concurrent.futures' exit), the atexit functions run (logging's flush, weakref.finalize's
    such as temporary folders), the output flushed; then os._exit. Both are private
    functions of CPython's: where one is missing, the ordinary exit."""
    import atexit

    shutdown = getattr(threading, "_shutdown", None)
    exit_functions = getattr(atexit, "_run_exitfuncs", None)
    if shutdown is None or exit_functions is None:
        sys.exit(code)
    shutdown()
    exit_functions()
    if not _flushed():
        code = code or 120  # what Python's exit answers when it cannot flush its output
    os._exit(code)


def _flushed() -> bool:
    """stdout and stderr flushed; False when one could not be (its reader gone, closed)."""
    done = True
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):  # (AttributeError: a stream set to None)
            done = False
    return done


#: Exit code when the reader of our output went away (128 + SIGPIPE, as a shell reports it).
EXIT_PIPE_CLOSED = 141


def _reader_gone() -> int:
    """Python's advice for a closed pipe: point stdout at devnull, so the flush at exit
    does not fail again (and print "Exception ignored ... BrokenPipeError")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    return EXIT_PIPE_CLOSED


def _command_words(args: argparse.Namespace) -> str:
    """'cache clear', 'addin install', 'call': the command as typed, for its messages."""
    actions = [value for name, value in vars(args).items()
               if (name.endswith("_command") or name == "action") and isinstance(value, str)]
    return " ".join([args.command or "", *actions]).strip()


def _one_line(exc: Exception, command: str = "") -> str | None:
    """The line to print for a failure the user can fix; None for a bug (whose message may
    hold anything, so only its type is printed). A module an extra provides, missing, is
    the user's to fix: which extra, and how (`rates_xl.extras`)."""
    from rates_xl.client.errors import AuthError

    if isinstance(exc, ImportError):
        from rates_xl.extras import missing_module_line

        return missing_module_line(exc, command)
    if isinstance(exc, AuthError):  # the cells' words: how to set a key on THIS machine
        from rates_xl.functions.messages import PREFIX, message_for

        return message_for(exc).removeprefix(PREFIX).strip()
    if isinstance(exc, RatesXlError) and not isinstance(exc, Internal):  # rates_xl/errors.py's tree
        return str(exc)
    if type(exc).__name__ == "ValidationError" and "Settings" in str(getattr(exc, "title", "")):
        from rates_xl.functions.messages import settings_problem

        return f"the client's settings are invalid: {settings_problem(exc)}"
    return None


class _Interrupt:
    """What the signal handlers know: whether a signal came, and how to end the command."""

    def __init__(self) -> None:
        self.command = ""
        self.signalled = False
        self._reported = threading.Lock()
        self._timed = threading.Lock()

    def handle(self, signum: int, frame: object) -> None:
        if self.signalled:  # a second Ctrl+C: stop now
            self._exit()
        self.signalled = True
        # Half-written files are being abandoned: their finalizers' complaints (zipfile's
        # "Exception ignored in ZipFile.__del__") are noise, not news.
        sys.unraisablehook = lambda unraisable: None
        self.grace()
        raise KeyboardInterrupt

    def grace(self) -> None:
        """End the command INTERRUPT_GRACE_S from now, whatever it is doing then (once: the
        handler and `_SignalWatch` both start it)."""
        if self._timed.acquire(blocking=False):
            timer = threading.Timer(INTERRUPT_GRACE_S, self._exit)
            timer.daemon = True
            timer.start()

    def stop(self) -> int:
        """After the interrupt unwound to main: report it; exit at once when a signal caused
        it (worker threads may still wait on the network; Python would join them)."""
        from rates_xl import atomic

        atomic.remove_pending()
        self._report()
        if self.signalled:
            self._exit()
        return EXIT_INTERRUPTED

    def _report(self) -> None:
        if self._reported.acquire(blocking=False):
            print(_interrupted(self.command), file=sys.stderr, flush=True)

    def _exit(self) -> None:
        from rates_xl import atomic

        # Often called from the grace timer's thread while the main thread still writes (a
        # library swallowed the KeyboardInterrupt): no new file is started from here on, and
        # the pending ones are removed again last, in case one was created while this
        # thread printed (calc writes its copy, then the pack into it, under one temporary name).
        atomic.remove_pending(for_good=True)
        self._report()
        if sys.stderr is not None and sys.stderr.isatty():
            sys.stderr.write("\x1b[?25h")  # a progress bar cut short hides the cursor
        _flushed()
        atomic.remove_pending()
        os._exit(EXIT_INTERRUPTED)


def _interrupted(command: str) -> str:
    """The one line an interrupted command prints."""
    return f"{f'rates-xl {command}'.rstrip()}: interrupted"


@contextmanager
def _interrupts(interrupt: _Interrupt) -> Iterator[None]:
    """SIGINT and SIGTERM raise KeyboardInterrupt in the main thread for the command's
    duration (signals can only be handled there; elsewhere, e.g. a test calling main from
    a thread, nothing is installed). The watch first, the handlers last: a signal from the
    moment they are installed finds the watch ready (its thread's start waits on a lock a
    handler could interrupt)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    watch = _SignalWatch(interrupt)
    previous = {}
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, interrupt.handle)
        yield
    finally:
        watch.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class _SignalWatch:
    """The grace timer started by a thread of its own when a signal arrives, not only by the
    handler. Python runs a signal's handler in the main thread only, between two bytecodes
    (https://docs.python.org/3/library/signal.html#execution-of-python-signal-handlers): while
    the main thread waits in native code, the handler waits with it. formualizer evaluates a
    book in native code, giving Python's lock back: `rates-xl calc` on 40 cells of
    `=SUM(SEQUENCE(1500,1500)*2)` ended 19-21 s after a Ctrl+C, when the evaluation did. Python's
    C-level handler also writes the signal's number to the wakeup fd (`signal.set_wakeup_fd`);
    this thread reads it there and starts the timer while our handler is the one installed (a
    command that installs its own, such as a server's, keeps its own way of stopping)."""

    def __init__(self, interrupt: _Interrupt) -> None:
        self._interrupt = interrupt
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)  # (the wakeup fd must not block the C handler)
        self._previous = signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)
        threading.Thread(target=self._watch, name="rates-xl signals", daemon=True).start()

    def _watch(self) -> None:
        try:
            while data := os.read(self._read, 64):  # (b"": the write end closed, `close`)
                for signum in data:
                    if signum in (signal.SIGINT, signal.SIGTERM) and signal.getsignal(signum) == self._interrupt.handle:
                        self._interrupt.grace()
        finally:
            os.close(self._read)

    def close(self) -> None:
        signal.set_wakeup_fd(self._previous)
        os.close(self._write)


if __name__ == "__main__":
    # `python -m rates_xl.cli`: run the imported module's main, so the CommandError the
    # handlers raise (rates_xl.cli.CommandError) is the class caught there, not __main__'s.
    from rates_xl.cli import run as _run

    _run()
