"""`rates-xl ...` as a user types it: the installed console script in a child process, in a
world of its own (a fresh HOME, no keychain, no key, every folder rates-xl writes to inside
the test's folder); and what a newcomer starts from: a copy of the clone, a fresh venv."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


def console_script() -> str:
    """The `rates-xl` that `pip install` put beside this Python (the venv's bin/Scripts)."""
    here = Path(sys.executable).parent
    for candidate in (here / "rates-xl", here / "rates-xl.exe"):
        if candidate.exists():
            return str(candidate)
    found = shutil.which("rates-xl")
    if found is None:
        raise RuntimeError("no rates-xl console script beside this Python: pip install -e . first")
    return found


def fresh_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a user who has just installed rates-xl: HOME (and the XDG folders)
    in `home`, no RATES_* setting, the OS keychain unavailable (`keyring`'s fail backend),
    the add-in's, the data and the cache folders under `home`."""
    home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RATES_", "XDG_"))}
    env.update(HOME=str(home), USERPROFILE=str(home), PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
               RATES_CACHE_DIR=str(home / ".cache" / "rates-xl"),
               RATES_XL_CONF=str(home / ".config" / "rates-xl" / "rates_xl.conf"),
               RATES_XL_XLSTART=str(home / "XLSTART"), RATES_XL_DATA_DIR=str(home / ".local" / "rates-xl"),
               PYTHONUNBUFFERED="1", COLUMNS="120")
    env.update(extra)
    return env


def handlers_installed(pid: int) -> bool:
    """Has the process installed the console script's SIGTERM handler (so its command runs)?
    Read from /proc (Linux): the signals it catches."""
    import signal

    status = Path(f"/proc/{pid}/status").read_text()
    caught = int(next(line for line in status.splitlines() if line.startswith("SigCgt:")).split()[1], 16)
    return bool(caught & (1 << (signal.SIGTERM - 1)))


def copy_of_the_clone(target: Path) -> Path:
    """This working tree's files as a clone holds them (tracked and new, nothing ignored), in
    `target`: what a newcomer installs from, without the developer's build artefacts."""
    root = Path(__file__).resolve().parents[2]
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = root / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            (target / name).write_bytes(source.read_bytes())
    return target


def new_venv(where: Path, with_pip: bool = True) -> Path:
    """A fresh virtual environment with pip (or, `with_pip=False`, nothing: 6 CPU s less, for
    `pip --python`) and nothing else; its bin (Scripts) folder."""
    import venv

    venv.EnvBuilder(with_pip=with_pip, clear=True).create(where)
    return where / ("Scripts" if os.name == "nt" else "bin")


def rates_xl(*argv: str, cwd: Path, env: dict[str, str], timeout: float = 300,
             stdin: str | None = None) -> subprocess.CompletedProcess:
    """Run `rates-xl ARGV...` and wait for it (stdout and stderr captured as text)."""
    feed = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    return subprocess.run([console_script(), *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False, **feed)
