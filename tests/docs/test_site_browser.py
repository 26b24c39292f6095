"""The documentation site as a reader sees it, at 1280 px in Chromium, opened from the file
system (site/index.html, no server) - issue 31, point 10:

- no code block scrolls sideways (a function's signature, a command and its comment, a
  command's help wrap in the column);
- no identifier in a table breaks inside a word ("maturity_da te");
- the search box is there and finds a function, with no server (material's offline plugin);
- nothing is loaded from another origin (the iframe-worker shim is ours, not unpkg.com's).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("material") is None, reason="mkdocs-material is not installed"),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (Debian: apt-get install chromium)"),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(REPO / "mkdocs.yml"),
                           "-d", str(out)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    return out


@pytest.fixture(scope="module")
def page():
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        tab = browser.new_page(viewport={"width": 1280, "height": 900})
        origins: list[str] = []
        tab.on("request", lambda request: origins.append(request.url))
        tab.origins = origins
        yield tab
        browser.close()


#: What a reader of the site opens; the reference pages of every function among them.
def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_no_code_block_scrolls_sideways_and_no_identifier_breaks_inside_a_word(site, page):
    problems = []
    pages = [p for p in _pages(site) if p.name != "404.html"]
    assert len(pages) > 30
    for path in pages:
        page.goto(path.as_uri())
        found = page.evaluate("""() => {
            const out = [];
            for (const pre of document.querySelectorAll('.md-content pre')) {
                if (pre.scrollWidth > pre.clientWidth + 1)
                    out.push('scrolls sideways: ' + pre.textContent.trim().slice(0, 60));
            }
            for (const code of document.querySelectorAll('.md-content td code')) {
                const words = code.textContent.trim();
                const line = parseFloat(getComputedStyle(code).lineHeight);
                const lines = code.getClientRects().length > 1 ? 2 : code.getBoundingClientRect().height / line;
                if (/^[-\\w.]+$/.test(words) && lines > 1.5)  // an identifier, an option, a file
                    out.push('broken inside a word: ' + words);
            }
            return out;
        }""")
        problems += [f"{path.relative_to(site)}: {p}" for p in found]
    assert not problems, "\n".join(problems)


def test_the_search_box_finds_a_function_from_the_file_system(site, page):
    page.origins.clear()
    page.goto((site / "index.html").as_uri())
    page.wait_for_load_state("load")
    box = page.locator("input.md-search__input")
    assert box.is_visible()  # material hides it where its worker cannot start
    box.click()
    box.press_sequentially("RATES_SWAPCURVE", delay=30)  # typed: material searches on key input
    results = page.locator(".md-search-result__item a")
    results.first.wait_for(timeout=15000)
    links = [results.nth(i).get_attribute("href") for i in range(results.count())]
    assert any("reference/RATES_SWAPCURVE.html" in link for link in links), links
    # Everything came from the site's own folder: no CDN, no font service.
    assert all(url.startswith(("file://", "about:", "data:", "blob:")) for url in page.origins), page.origins


def test_the_signature_fits_and_the_service_parameters_read_whole(site, page, tmp_path):
    page.goto((site / "reference" / "RATES_SWAP.html").as_uri())
    signature = page.locator(".md-content pre").first
    assert "valuation_time" in signature.inner_text()
    assert signature.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
    cell = page.locator(".md-content td code", has_text="maturity_date").first
    assert cell.evaluate("e => e.getBoundingClientRect().height < 1.5 * parseFloat(getComputedStyle(e).lineHeight)")
    page.screenshot(path=str(tmp_path / "RATES_SWAP.png"))  # kept with the test's files, to look at
