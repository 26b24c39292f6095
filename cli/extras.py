"""The optional parts of rates-xl (pyproject's extras) and how to install one.

rates-xl is installed from a clone of its repository (there is no package on PyPI), so the
command that adds an extra names the clone: its folder when this install is an editable one
made from it (`pip install -e`), else "in your rates-xl clone". A command that imports a
module an extra provides and finds it missing says which extra and that command, never
"internal error" (`rates_xl.cli` asks `missing_module_line`).
"""

from __future__ import annotations

from pathlib import Path

#: Modules only an extra installs -> the extras that provide them (pyproject.toml).
MODULE_EXTRAS: dict[str, tuple[str, ...]] = {
    "QuantLib": ("sandbox",),
    "fastapi": ("sandbox", "officejs"),
    "uvicorn": ("sandbox", "officejs"),
    "starlette": ("sandbox", "officejs"),
    "cryptography": ("officejs",),
    "jwt": ("officejs",),
    "redis": ("team",),
}
#: The extra a command's own job needs, where a module comes with several.
COMMAND_EXTRAS = {"sandbox": "sandbox", "demo": "sandbox", "templates": "sandbox", "calc": "sandbox", "risk": "sandbox",
                  "serve": "officejs", "officejs": "officejs", "cache": "team"}


def clone() -> Path | None:
    """The clone this rates-xl runs from (an editable install), else None."""
    root = Path(__file__).resolve().parent.parent
    project = root / "pyproject.toml"
    try:
        return root if 'name = "rates-xl"' in project.read_text(encoding="utf-8") else None
    except OSError:
        return None


def install_hint(extra: str | None = None) -> str:
    """`pip install -e "/path/to/clone[sandbox]"`, or the same from "." in the user's clone
    (without `extra`: rates-xl itself)."""
    root = clone()
    wanted = f"[{extra}]" if extra else ""
    if root is not None:
        return f'pip install -e "{root}{wanted}"'
    return f'pip install ".{wanted}" in your rates-xl clone'


def missing_extra(exc: ImportError, extra: str) -> str:
    """"QuantLib is not installed: this needs the [sandbox] extra (pip install ...)"."""
    return f"{exc.name or 'a module it needs'} is not installed: this needs the [{extra}] extra ({install_hint(extra)})"


def missing_module_line(exc: ImportError, command: str = "") -> str | None:
    """The one line for a module an extra provides that is not installed; None otherwise."""
    name = (getattr(exc, "name", None) or "").split(".")[0]
    extras = MODULE_EXTRAS.get(name)
    if not extras:
        return None
    wanted = COMMAND_EXTRAS.get(command.split(" ")[0])
    extra = wanted if wanted in extras else extras[0]
    return missing_extra(exc, extra)
