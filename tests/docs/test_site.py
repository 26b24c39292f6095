"""The documentation site: the strict build passes, and a broken link or anchor fails it."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None,
    reason="mkdocs and mkdocs-material are not installed (pip install -e '.[dev]')",
)


def _build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


def _copy_of_the_site_sources(tmp_path: Path) -> Path:
    """mkdocs.yml, docs/ and the READMEs the hooks read, as a tree of their own."""
    root = tmp_path / "repo"
    shutil.copytree(REPO / "docs", root / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copy(REPO / "README.md", root / "README.md")
    (root / "addin").mkdir()
    shutil.copy(REPO / "addin" / "README.md", root / "addin" / "README.md")
    return root


@pytest.mark.slow
def test_the_strict_build_passes_and_writes_every_generated_page(tmp_path):
    from rates_xl.functions.table import FUNCTIONS

    site = tmp_path / "site"
    done = _build(REPO / "mkdocs.yml", site)
    assert done.returncode == 0, done.stdout + done.stderr
    # page.html, not page/index.html: the offline plugin's links, which file:// can follow.
    for page in ("index.html", "addin-guide.html", "commands.html", "settings.html",
                 "troubleshooting.html", "architecture.html", "reference/index.html",
                 *(f"reference/{name}.html" for name in FUNCTIONS)):
        assert (site / page).is_file(), page
    assert (site / "search" / "search_index.js").is_file()  # the index a page reads without a server
    # The README is the home page, its picture included.
    assert (site / "img" / "spilled-curve.png").is_file()
    assert 'src="img/spilled-curve.png"' in (site / "index.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_broken_link_or_anchor_fails_the_strict_build(tmp_path):
    root = _copy_of_the_site_sources(tmp_path)
    page = root / "docs" / "start" / "windows.md"
    page.write_text(page.read_text(encoding="utf-8")
                    + "\n[gone](../no-such-page.md) and [nowhere](../client.md#no-such-heading)\n",
                    encoding="utf-8")
    done = _build(root / "mkdocs.yml", tmp_path / "site")
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    # The failure is the two links and nothing else: mkdocs ran to the end (a hook's error
    # would abort it otherwise) and warned of them alone (rather than a second build of the
    # copy without them, 4.5 CPU s).
    warnings = [line for line in output.splitlines() if line.startswith("WARNING")]
    assert "Aborted with 2 warnings in strict mode!" in output, output
    assert len(warnings) == 2 and "'../no-such-page.md'" in warnings[0] and "'#no-such-heading'" in warnings[1], output


def test_links_written_for_github_map_to_the_site():
    sys.path.insert(0, str(REPO / "docs"))
    try:
        import hooks
    finally:
        sys.path.remove(str(REPO / "docs"))
    assert hooks.site_link("docs/client.md", "README.md", "index.md") == "client.md"
    assert hooks.site_link("docs/img/spilled-curve.png", "README.md", "index.md") == "img/spilled-curve.png"
    assert hooks.site_link("addin/README.md", "README.md", "index.md") == "addin-guide.md"
    assert (hooks.site_link("../../addin/README.md#for-users", "docs/start/windows.md", "start/windows.md")
            == "../addin-guide.md#for-users")
    assert hooks.site_link("../client.md#corporate-networks", "docs/start/windows.md",
                           "start/windows.md") == "../client.md#corporate-networks"
    # Anything else stays as written, so the strict build reports it.
    assert hooks.site_link("../functions/table.py", "docs/functions.md", "functions.md") == "../functions/table.py"
    assert hooks.site_link("https://example.com/x.md", "README.md", "index.md") == "https://example.com/x.md"
