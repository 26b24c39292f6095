"""Sideloading the manifest for the current user, and the exact reverse.

- Windows (Microsoft 365): Office reads developer add-ins from the registry key
  HKCU\\Software\\Microsoft\\Office\\16.0\\WEF\\Developer, one string value per add-in whose
  data is the manifest's full path. We write the rendered manifest to our data folder and
  add one value named after the add-in's id.
- macOS: Excel reads manifests placed in ~/Library/Containers/com.microsoft.Excel/Data/
  Documents/wef/. We copy ours there.
- Excel on the web has no per-user folder: we write the manifest and print the upload
  steps (Insert > Add-ins > Upload My Add-in).

Each platform is installed on its own (a Mac user may also upload the manifest to Excel on
the web): its manifest (`manifest-mac.xml`, ...) and what install did (`sideload-mac.json`)
sit in our data folder, so installing one never forgets another (the record was one file:
installing for the web after the Mac overwrote it, and `uninstall --platform mac` then undid
the web's and left the Mac's manifest in Excel's folder, issue 31). A record written before
(`sideload.json`, `manifest.xml`) is still read for its platform. Uninstall undoes exactly
what the record says: the registry value is put back as it was (or removed if it was absent)
unless someone changed it since, the wef copy is removed only if it is still ours (a file
it replaced is restored), and the folder is removed only if install created it and it is
empty. The OS-specific operations sit behind a small seam (`Registry`, `wef_dir`) so the
logic runs on any OS in the tests.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Protocol

from rates_xl.addin.officejs import manifest
from rates_xl.errors import CommandError

WEF_KEY = r"Software\Microsoft\Office\16.0\WEF\Developer"
VALUE_NAME = manifest.ADDIN_ID
WEF_FILE = "rates-xl.manifest.xml"
KINDS = ("windows", "mac", "web")
#: The single record and manifest of releases before each platform had its own.
LEGACY_MANIFEST, LEGACY_RECORD = "manifest.xml", "sideload.json"
WEB_STEPS = [
    "Excel on the web: open a workbook, then Insert > Add-ins (or Home > Add-ins) > More Add-ins >",
    "  My Add-ins > Upload My Add-in, choose {manifest}, Upload.",
    "  The browser must trust the server's certificate and may ask to allow access to local",
    "  network devices (localhost): allow it. Sideloaded add-ins stay until the browser's",
    "  cache is cleared; remove it under My Add-ins > (...) > Remove.",
]


class Registry(Protocol):
    """The string values of one registry key."""

    def get(self, name: str) -> str | None: ...

    def set(self, name: str, value: str) -> None: ...

    def delete(self, name: str) -> None: ...


class WindowsRegistry:
    """HKEY_CURRENT_USER\\<key> through winreg (Windows only)."""

    def __init__(self, key: str = WEF_KEY) -> None:
        import winreg  # noqa: F401 (fails early off Windows)

        self.key = key

    def get(self, name: str) -> str | None:
        import winreg

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, self.key) as handle:
                return str(winreg.QueryValueEx(handle, name)[0])
        except FileNotFoundError:
            return None

    def set(self, name: str, value: str) -> None:
        import winreg

        with winreg.CreateKeyEx(winreg.HKEY_CURRENT_USER, self.key, 0, winreg.KEY_SET_VALUE) as handle:
            winreg.SetValueEx(handle, name, 0, winreg.REG_SZ, value)

    def delete(self, name: str) -> None:
        import winreg

        try:
            with winreg.OpenKey(winreg.HKEY_CURRENT_USER, self.key, 0, winreg.KEY_SET_VALUE) as handle:
                winreg.DeleteValue(handle, name)
        except FileNotFoundError:
            pass


def installed(data_dir: Path) -> list[str]:
    """The platforms rates-xl's manifest is installed for (their records in `data_dir`)."""
    return [kind for kind in KINDS if Sideload(data_dir, _PLATFORMS[kind]).record() is not None]


#: A platform kind -> the sys.platform value that means it.
_PLATFORMS = {"windows": "win32", "mac": "darwin", "web": "linux"}


def platform_kind(platform: str | None = None) -> str:
    platform = platform or sys.platform
    if platform.startswith("win"):
        return "windows"
    if platform == "darwin":
        return "mac"
    return "web"


def mac_wef_dir() -> Path:
    return Path.home() / "Library" / "Containers" / "com.microsoft.Excel" / "Data" / "Documents" / "wef"


def _write_atomic(path: Path, text: str) -> None:
    from rates_xl import atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(path, text)


class Sideload:
    """Install and uninstall for one user. `registry` and `wef_dir` default to the real ones."""

    def __init__(self, data_dir: Path, platform: str | None = None, *, registry: Registry | None = None,
                 wef_dir: Path | None = None) -> None:
        self.data_dir = Path(data_dir)
        self.kind = platform_kind(platform)
        self._registry = registry
        self.wef_dir = wef_dir if wef_dir is not None else (mac_wef_dir() if self.kind == "mac" else None)

    @property
    def manifest_path(self) -> Path:
        legacy = self._legacy()
        return Path(legacy["manifest"]) if legacy else self.data_dir / f"manifest-{self.kind}.xml"

    @property
    def record_path(self) -> Path:
        return self.data_dir / LEGACY_RECORD if self._legacy() else self.data_dir / f"sideload-{self.kind}.json"

    def _legacy(self) -> dict | None:
        """The one-file record of an earlier release, when it is this platform's."""
        if (self.data_dir / f"sideload-{self.kind}.json").exists():
            return None
        try:
            record = json.loads((self.data_dir / LEGACY_RECORD).read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return None
        return record if isinstance(record, dict) and record.get("platform") == self.kind else None

    @property
    def registry(self) -> Registry:
        if self._registry is None:
            if not sys.platform.startswith("win"):
                raise CommandError("--platform windows registers the manifest in the Windows registry: "
                                   "run it on the Windows computer")
            self._registry = WindowsRegistry()
        return self._registry

    def record(self) -> dict | None:
        try:
            return json.loads(self.record_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None

    def install(self, base_url: str) -> list[str]:
        text = manifest.render(base_url)
        problems = manifest.check(text, base_url)
        if problems:
            raise CommandError(f"the manifest for {base_url} is not valid: {problems[0]}")
        earlier = self.record() or {}
        if self._legacy():  # from now on this platform's own files (the record moves with it)
            self._move_legacy(earlier)
        _write_atomic(self.manifest_path, text)
        said = [f"wrote the manifest for {base_url}: {self.manifest_path}"]
        record = {"platform": self.kind, "base_url": base_url, "manifest": str(self.manifest_path)}
        if self.kind == "windows":
            # A second install keeps what the first one found, so uninstall restores that.
            previous = earlier["previous"] if "previous" in earlier else self.registry.get(VALUE_NAME)
            self.registry.set(VALUE_NAME, str(self.manifest_path))
            record.update(registry_key=WEF_KEY, value_name=VALUE_NAME, previous=previous)
            said.append(f"registered it for Office: HKCU\\{WEF_KEY} {VALUE_NAME}")
        elif self.kind == "mac":
            assert self.wef_dir is not None
            created = earlier.get("created_dir", not self.wef_dir.exists())
            self.wef_dir.mkdir(parents=True, exist_ok=True)
            target = self.wef_dir / WEF_FILE
            replaced = earlier.get("replaced")
            if replaced is None and target.exists() and not earlier:
                backup = self.data_dir / "replaced-wef-manifest.xml"
                backup.write_bytes(target.read_bytes())
                replaced = str(backup)
            _write_atomic(target, text)
            record.update(wef_file=str(target), created_dir=created, replaced=replaced)
            said.append(f"placed it where Excel for Mac reads add-ins: {target}")
        else:
            said += [line.format(manifest=self.manifest_path) for line in WEB_STEPS]
        _write_atomic(self.record_path, json.dumps(record, indent=2) + "\n")
        if self.kind != "web":
            said.append("Restart Excel, then Home > Add-ins (or Insert > My Add-ins) shows rates-xl; "
                        "keep `rates-xl serve` running while you use it.")
        return said

    def uninstall(self) -> list[str]:
        record = self.record()
        if record is None:
            return [f"nothing to undo: rates-xl's manifest is not installed for this user ({self.kind})"]
        said: list[str] = []
        ours = record.get("manifest")
        if record["platform"] == "windows":
            name = record["value_name"]
            current = self.registry.get(name)
            if current == ours:
                if record.get("previous") is None:
                    self.registry.delete(name)
                    said.append(f"removed HKCU\\{record['registry_key']} {name}")
                else:
                    self.registry.set(name, record["previous"])
                    said.append(f"restored HKCU\\{record['registry_key']} {name} to {record['previous']}")
            else:
                said.append(f"left HKCU\\{record['registry_key']} {name}: it was changed since install "
                            f"(now {current!r})")
        elif record["platform"] == "mac":
            target = Path(record["wef_file"])
            mine = self.manifest_path.read_bytes() if self.manifest_path.exists() else None
            if target.exists() and target.read_bytes() == mine:
                target.unlink()
                said.append(f"removed {target}")
                if record.get("replaced"):
                    backup = Path(record["replaced"])
                    target.write_bytes(backup.read_bytes())
                    backup.unlink()
                    said.append(f"restored the file it had replaced: {target}")
            elif target.exists():
                said.append(f"left {target}: it was changed since install")
            if record.get("created_dir") and target.parent.exists() and not any(target.parent.iterdir()):
                target.parent.rmdir()
                said.append(f"removed the folder install created: {target.parent}")
        else:
            said.append("Excel on the web: remove it under Add-ins > My Add-ins > (...) > Remove.")
        if self.manifest_path.exists():
            self.manifest_path.unlink()
        self.record_path.unlink()
        said.append(f"removed {self.manifest_path}")
        return said

    def _move_legacy(self, record: dict) -> None:
        old_manifest, old_record = self.manifest_path, self.record_path
        new_manifest = self.data_dir / f"manifest-{self.kind}.xml"
        if old_manifest.exists():
            old_manifest.replace(new_manifest)
        record["manifest"] = str(new_manifest)
        _write_atomic(self.data_dir / f"sideload-{self.kind}.json", json.dumps(record, indent=2) + "\n")
        old_record.unlink(missing_ok=True)

    def refresh(self, base_url: str) -> list[str]:
        """Re-render an installed manifest for `base_url` if this release changed it (new
        versioned URLs): same files, same registry value, so Excel picks it up on restart."""
        record = self.record()
        if not record:
            return []
        if record.get("base_url") != base_url:
            return [f"warning: the installed manifest points at {record.get('base_url')}, not {base_url}: "
                    f"Excel will not reach this server (`rates-xl officejs install --url {base_url}`)"]
        text = manifest.render(base_url)
        if self.manifest_path.exists() and self.manifest_path.read_text(encoding="utf-8") == text:
            return []
        _write_atomic(self.manifest_path, text)
        if record["platform"] == "mac" and Path(record["wef_file"]).parent.exists():
            _write_atomic(Path(record["wef_file"]), text)
        return [f"updated the installed manifest for this release ({self.manifest_path}); restart Excel"]
