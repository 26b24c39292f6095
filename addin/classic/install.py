r"""`rates-xl addin install / uninstall`: the add-in's own settings file and the add-in in XLSTART.

What install does, and uninstall reverses exactly:
1. In the add-in's own settings file, `%USERPROFILE%\.rates_xl\rates_xl.conf` (the file its
   VBA reads: PROJECT_NAME "rates_xl"; never xlwings' own xlwings.conf, which stays as the
   user had it), set
   - `INTERPRETER_WIN` (macOS: `INTERPRETER_MAC`) = this Python,
   - `USE UDF SERVER` = `True`, so the ribbon's RunPython calls run inside the process that
     evaluates the RATES_* cells: Refresh and Clear Cache act on the cells' own client.
   Other lines of the file (a user may add xlwings settings such as `SHOW CONSOLE`) are kept
   byte for byte; the file is rewritten atomically (temporary file + rename).
2. Build `rates_xl.xlam` from source (`build.build_checked`: no Excel needed; or take the
   file given with --xlam) and write it into Excel's per-user XLSTART folder (any file it
   replaces is kept as `rates_xl-replaced.xlam` next to the settings: Excel opens every file
   in XLSTART).
3. On Windows, register the RTD server for this user (rtd_registry.py: keys under
   HKCU\Software\Classes, no administrator rights), what each key held before recorded.
4. Record all of it in `rates_xl-install.json` next to the settings: each key's previous
   values (or that it was absent), whether the file and its folder existed, the placed
   file's SHA-256 and the xlwings version it was built for (doctor compares them).

Uninstall puts back every key we changed unless the user changed it since (then it is left
and reported), deletes the settings file and its folder if install created them and nothing
else is left in them, removes the add-in only if it is still the file we placed, restores a
file we replaced, and deletes the record.

The file format is xlwings' own: one `"KEY","VALUE"` line per entry, keys compared without
regard to case (the add-in's VBA takes the first match). Values cannot contain a double quote.
"""

from __future__ import annotations

import hashlib
import json
import locale
import os
import re
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rates_xl.errors import TaskError

ADDIN_NAME = "rates_xl.xlam"
RECORD_NAME = "rates_xl-install.json"
#: Where the add-in's VBA looks (GetConfigFilePath with PROJECT_NAME "rates_xl").
CONFIG_DIR = ".rates_xl"
CONFIG_NAME = "rates_xl.conf"

#: Environment overrides, for tests and unusual set-ups (options win over these).
ENV_CONFIG = "RATES_XL_CONF"
ENV_XLSTART = "RATES_XL_XLSTART"

_LINE = re.compile(r'^\s*"([^"]*)"\s*,\s*"([^"]*)"\s*$|^\s*([^",]+?)\s*,\s*(.*?)\s*$')


class InstallError(TaskError):
    """A failure the user can fix; the message says how."""


# -- where things live ---------------------------------------------------------------------------
def interpreter_key(platform: str = sys.platform) -> str:
    return "INTERPRETER_MAC" if platform == "darwin" else "INTERPRETER_WIN"


def desired_settings(python: str | None = None, platform: str = sys.platform) -> dict[str, str]:
    return {
        interpreter_key(platform): python or sys.executable,
        "USE UDF SERVER": "True",
    }


def config_path(option: str | None = None, environ: Mapping[str, str] | None = None,
                platform: str = sys.platform) -> Path:
    """The add-in's settings file, where its VBA reads it (GetConfigFilePath)."""
    environ = os.environ if environ is None else environ
    if option:
        return Path(option).expanduser()
    if environ.get(ENV_CONFIG):
        return Path(environ[ENV_CONFIG]).expanduser()
    if platform == "darwin":  # the VBA's GetMacDir("$HOME"): Excel's sandbox container
        return (Path.home() / "Library" / "Containers" / "com.microsoft.Excel" / "Data"
                / CONFIG_NAME)
    home = environ.get("USERPROFILE") if platform.startswith("win") else None
    return Path(home or Path.home()) / CONFIG_DIR / CONFIG_NAME


def xlstart_dir(option: str | None = None, environ: Mapping[str, str] | None = None,
                platform: str = sys.platform) -> Path:
    """Excel's per-user startup folder: files in it open when Excel starts."""
    environ = os.environ if environ is None else environ
    if option:
        return Path(option).expanduser()
    if environ.get(ENV_XLSTART):
        return Path(environ[ENV_XLSTART]).expanduser()
    if platform.startswith("win"):
        appdata = environ.get("APPDATA")
        if not appdata:
            raise InstallError("APPDATA is not set, so XLSTART cannot be found; pass --xlstart DIR")
        return Path(appdata) / "Microsoft" / "Excel" / "XLSTART"
    if platform == "darwin":
        return (Path.home() / "Library" / "Group Containers" / "UBF8T346G9.Office"
                / "User Content" / "Startup" / "Excel")
    raise InstallError(
        f"Excel does not run on {platform}, so there is no XLSTART folder here; pass "
        f"--xlstart DIR (or set {ENV_XLSTART}) to place the add-in somewhere, or --no-addin "
        "to write only the settings file"
    )


# -- the config file -----------------------------------------------------------------------------
@dataclass
class ConfigFile:
    """A settings file as lines; only the lines we set are rewritten."""

    lines: list[str] = field(default_factory=list)  # without line endings
    newline: str = os.linesep
    trailing_newline: bool = True

    @classmethod
    def parse(cls, text: str) -> ConfigFile:
        newline = "\r\n" if "\r\n" in text else "\n"
        trailing = text.endswith(("\n", "\r"))
        lines = text.splitlines()
        return cls(lines, newline, trailing or not lines)

    def render(self) -> str:
        body = self.newline.join(self.lines)
        return body + (self.newline if self.lines and self.trailing_newline else "")

    @staticmethod
    def entry(line: str) -> tuple[str, str] | None:
        match = _LINE.match(line)
        if not match:
            return None
        if match.group(1) is not None:
            return match.group(1), match.group(2)
        return match.group(3).strip().strip('"'), match.group(4).strip().strip('"')

    def _indices(self, key: str) -> list[int]:
        wanted = key.casefold()
        found = []
        for i, line in enumerate(self.lines):
            parsed = self.entry(line)
            if parsed and parsed[0].strip().casefold() == wanted:
                found.append(i)
        return found

    def get(self, key: str) -> str | None:
        """The value the add-in's VBA reads: the first matching line."""
        indices = self._indices(key)
        return self.entry(self.lines[indices[0]])[1] if indices else None  # type: ignore[index]

    def values(self, key: str) -> list[str]:
        return [self.entry(self.lines[i])[1] for i in self._indices(key)]  # type: ignore[index]

    def set(self, key: str, value: str) -> list[str] | None:
        """Set every matching line (append one if none); returns the previous values or None."""
        if '"' in value or '"' in key:
            raise InstallError(f"the settings file cannot hold a double quote; {key} = {value!r}")
        indices = self._indices(key)
        if not indices:
            self.lines.append(_format(key, value))
            return None
        previous = []
        for i in indices:
            old_key, old_value = self.entry(self.lines[i])  # type: ignore[misc]
            previous.append(old_value)
            self.lines[i] = _format(old_key.strip(), value)
        return previous

    def restore(self, key: str, previous: list[str] | None) -> None:
        indices = self._indices(key)
        if previous is None:
            for i in reversed(indices):
                del self.lines[i]
            return
        for n, i in enumerate(indices):
            old_key, _ = self.entry(self.lines[i])  # type: ignore[misc]
            self.lines[i] = _format(old_key.strip(), previous[min(n, len(previous) - 1)])


def _format(key: str, value: str) -> str:
    return f'"{key}","{value}"'


# Like xlwings and the VBA reading it, the file is in the locale's encoding; bytes that do
# not decode survive the round trip through surrogateescape, so nothing is lost.
_ENCODING = locale.getpreferredencoding(False)


def read_config(path: Path) -> ConfigFile:
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):  # nothing there yet
        return ConfigFile()
    except OSError as exc:
        raise InstallError(f"cannot read {path}: {exc.strerror or exc}") from None
    return ConfigFile.parse(data.decode(_ENCODING, errors="surrogateescape"))


def write_atomic(path: Path, data: bytes, *, backup: bool = True) -> Path | None:
    """Replace `path` by `data` in one rename; first copy the old file to `<name>.bak`.

    Returns the backup path (None when there was no old file or no backup was asked).
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        backup_path = None
        if backup and path.exists():
            backup_path = path.with_name(path.name + ".bak")
            shutil.copy2(path, backup_path)
        from rates_xl import atomic

        with atomic.replacing(path) as tmp:  # 0666 less the umask (mkstemp's 0600 is for secrets)
            with open(tmp, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            if path.exists():
                shutil.copymode(path, tmp)
    except PermissionError as exc:
        raise InstallError(
            f"cannot write {exc.filename or path}: permission denied"
            + (" (is Excel running? quit it and try again)" if path.suffix == ".xlam" else "")
        ) from None
    except OSError as exc:
        raise InstallError(f"cannot write {exc.filename or path}: {exc.strerror or exc}") from None
    return backup_path


def write_config(path: Path, config: ConfigFile) -> None:
    write_atomic(path, config.render().encode(_ENCODING, errors="surrogateescape"), backup=False)


# -- install / uninstall -------------------------------------------------------------------------
@dataclass
class Report:
    """What a command did, line by line, for the console."""

    lines: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def add(self, text: str) -> None:
        self.lines.append(text)

    def warn(self, text: str) -> None:
        self.warnings.append(text)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _record_path(config: Path) -> Path:
    return config.with_name(RECORD_NAME)


def _load_record(config: Path) -> dict | None:
    path = _record_path(config)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError) as exc:
        raise InstallError(f"cannot read the install record {path}: {exc}; "
                           "fix or delete it and run the command again") from None


def install(config: Path, xlstart: Path | None, xlam: bytes | None, settings: Mapping[str, str],
            xlwings_version: str | None = None, registry: Any = None) -> Report:
    """Write the settings and place the add-in's bytes `xlam`; see the module docstring.
    `registry` (Windows: rtd_registry.windows_registry()): where the RTD server is registered."""
    report = Report()
    # Recorded as absolute paths: uninstall may run from any folder.
    config = Path(os.path.abspath(config))
    xlstart = Path(os.path.abspath(xlstart)) if xlstart is not None else None
    for key, value in settings.items():  # validate everything before writing anything
        if '"' in value:
            raise InstallError(f"the settings file cannot hold a double quote; {key} = {value!r}")
    if xlstart is not None and xlam is None:
        raise InstallError("no add-in to place")
    record = _load_record(config) or {
        "changes": {}, "addin": None,
        "config_existed": config.exists(), "config_dir_existed": config.parent.exists(),
    }

    conf = read_config(config)
    changed = not config.exists()
    for key, value in settings.items():
        current = conf.values(key)
        if current and all(v == value for v in current):
            report.add(f"settings: {key} already = {value}")
            record["changes"].setdefault(key, {"value": value, "previous": None, "untouched": True})
            continue
        previous = conf.set(key, value)
        changed = True
        # On a second install keep what was there before the first one.
        original = record["changes"].get(key)
        if original is None or original.get("untouched"):
            record["changes"][key] = {"value": value, "previous": previous}
        else:
            original["value"] = value
        report.add(f"settings: {key} = {value}" + (f" (was {previous[0]})" if previous else ""))
    if changed:
        write_config(config, conf)
        report.add(f"wrote {config}")

    if xlstart is not None and xlam is not None:
        target = xlstart / ADDIN_NAME
        digest = hashlib.sha256(xlam).hexdigest()
        previous_install = record.get("addin")
        replaced = previous_install.get("replaced_backup") if previous_install else None
        ours = bool(previous_install) and target.exists() and \
            sha256(target) == previous_install.get("sha256")
        if target.exists() and not ours:
            # Someone else's file (or an older copy installed by hand): keep it to put back,
            # outside XLSTART, since Excel tries to open every file in that folder.
            backup = config.with_name("rates_xl-replaced.xlam")
            try:
                shutil.copy2(target, backup)
            except OSError as exc:
                raise InstallError(f"cannot back up {target}: {exc.strerror or exc}") from None
            replaced = str(backup)
            report.add(f"kept the file it replaces as {backup}")
        write_atomic(target, xlam, backup=False)
        record["addin"] = {"path": str(target), "sha256": digest, "replaced_backup": replaced,
                           "xlwings_version": xlwings_version}
        report.add(f"placed {target} (Excel opens it at start-up)")
    if registry is not None:
        from rates_xl.addin.classic import rtd_registry

        python = settings.get(interpreter_key("win32"))
        written = rtd_registry.register(registry, python)
        record["rtd"] = rtd_registry.merge(record.get("rtd"), written)
        report.add(f"registered the RTD server {rtd_registry.rtd.PROGID} for this user "
                   f"(HKCU\\{rtd_registry.CLASSES}, {len(written)} keys)")
    record["installed_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    record["config"] = str(config)
    write_atomic(_record_path(config), json.dumps(record, indent=2).encode("utf-8"), backup=False)
    return report


def load_record(config: Path) -> dict | None:
    """What install did (for doctor), or None."""
    return _load_record(config)


def uninstall(config: Path, registry: Any = None) -> Report:
    report = Report()
    config = Path(os.path.abspath(config))
    record = _load_record(config)
    if record is None:
        raise InstallError(
            f"nothing to uninstall: no install record at {_record_path(config)} "
            "(rates-xl addin install was not run with these settings)"
        )
    addin = record.get("addin")
    if addin and not Path(addin["path"]).is_absolute() and not Path(addin["path"]).exists():
        # An older install recorded the folder as typed: say so, change nothing.
        raise InstallError(
            f"the add-in was recorded as {addin['path']}, relative to the folder install ran in, "
            f"and is not at {Path(os.path.abspath(addin['path']))}: run uninstall from that "
            "folder, or delete the file yourself; nothing was changed")
    conf = read_config(config)
    changed = False
    for key, change in record.get("changes", {}).items():
        if change.get("untouched"):
            continue
        current = conf.values(key)
        if current and any(v != change["value"] for v in current):
            report.warn(f"settings: left {key} = {current[0]}: it was changed after install")
            continue
        conf.restore(key, change["previous"])
        changed = True
        previous = change["previous"]
        report.add(f"settings: {key} restored to {previous[0]}" if previous
                   else f"settings: removed {key}")
    created = record.get("config_existed") is False
    if created and not any(line.strip() for line in conf.lines):
        if config.exists():
            config.unlink()
            report.add(f"removed {config}")
    elif changed:
        write_config(config, conf)
        report.add(f"wrote {config}")

    if addin:
        target = Path(os.path.abspath(addin["path"]))
        if not target.exists():
            report.warn(f"the add-in is no longer at {target}: nothing to remove there")
        elif sha256(target) != addin["sha256"]:
            report.warn(f"left {target}: it is not the file install placed")
        else:
            try:
                target.unlink(missing_ok=True)
                report.add(f"removed {target}")
                if addin.get("replaced_backup") and Path(addin["replaced_backup"]).exists():
                    shutil.move(addin["replaced_backup"], target)  # may cross drives
                    report.add(f"restored the add-in it had replaced at {target}")
            except PermissionError:
                raise InstallError(
                    f"cannot remove {target}: permission denied (is Excel running? quit it "
                    "and run the command again)"
                ) from None
    if record.get("rtd"):
        if registry is None:
            report.warn("the RTD server's registry keys can only be removed on Windows: run "
                        "uninstall there")
        else:
            from rates_xl.addin.classic import rtd_registry

            done, warnings = rtd_registry.unregister(registry, record["rtd"])
            for line in done:
                report.add(line)
            for line in warnings:
                report.warn(line)
    try:
        _record_path(config).unlink()
    except OSError as exc:
        raise InstallError(f"cannot delete the install record: {exc.strerror or exc}") from None
    if record.get("config_dir_existed") is False:
        try:
            config.parent.rmdir()  # only if empty: anything the user put there stays
            report.add(f"removed {config.parent}")
        except OSError:
            pass
    return report


def config_status(config: Path, settings: Mapping[str, str]) -> list[tuple[str, str | None, bool]]:
    """For doctor: (key, value the add-in reads, as install would set it?)."""
    conf = read_config(config)
    return [(key, conf.get(key), conf.get(key) == value) for key, value in settings.items()]
