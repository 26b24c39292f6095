"""MkDocs hooks (mkdocs.yml `hooks:`): the pages generated from the code, and the repository's
READMEs, join the site at build time.

- `on_config`: each function's reference page is listed in the nav under the "Functions"
  entry, in the table's order (a new function appears without editing mkdocs.yml).
- `on_files`: the generated pages (rates_xl.docgen.generated_pages: function reference,
  commands, settings, troubleshooting), README.md as the home page and addin/README.md as
  addin-guide.md are added as files that exist only in the build.
- `on_page_markdown`: links are written for GitHub, relative to where a file sits in the
  repository (README.md links `docs/client.md`, docs/officejs.md links
  `../addin/README.md`); each is rewritten to the page's place in the site. A link to
  anything else is left as it is, so the strict build reports it.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

REPO = Path(__file__).resolve().parents[1]
DOCS = "docs/"
#: Repository files outside docs/ that are pages of the site: repository path -> site path.
EXTERNAL = {"README.md": "index.md", "addin/README.md": "addin-guide.md"}
_SITE_TO_REPO = {site: repo for repo, site in EXTERNAL.items()}
FUNCTIONS_NAV = "reference/index.md"

# [text](target) and ![alt](target); the target has no spaces (ours never do).
_LINK = re.compile(r"(\]\()([^)\s]+)(\))")


def on_config(config: Any) -> Any:
    from rates_xl.functions.table import FUNCTIONS

    pages = [{name: f"reference/{name}.md"} for name in FUNCTIONS]

    def expand(items: list[Any]) -> list[Any]:
        out = []
        for item in items:
            if isinstance(item, dict):
                (title, value), = item.items()
                if value == FUNCTIONS_NAV:
                    item = {title: [FUNCTIONS_NAV, *pages]}
                elif isinstance(value, list):
                    item = {title: expand(value)}
            out.append(item)
        return out

    config["nav"] = expand(config["nav"] or [])
    return config


def on_files(files: Files, config: Any) -> Files:
    from rates_xl.docgen import generated_pages

    for path, text in generated_pages().items():
        files.append(File.generated(config, path, content=text))
    for repo_path, site_path in EXTERNAL.items():
        text = (REPO / repo_path).read_text(encoding="utf-8")
        files.append(File.generated(config, site_path, content=text))
    return files


def site_link(target: str, repo_source: str, site_page: str) -> str:
    """A link as written in `repo_source` (a repository path) -> the link from `site_page`."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
        return target  # a URL, an anchor on this page, or absolute: nothing to map
    path, _, anchor = target.partition("#")
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(repo_source), path))
    if resolved.startswith(DOCS):
        site_target = resolved[len(DOCS):]
    elif resolved in EXTERNAL:
        site_target = EXTERNAL[resolved]
    else:
        return target
    link = posixpath.relpath(site_target, posixpath.dirname(site_page) or ".")
    return link + (f"#{anchor}" if anchor else "")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    site_page = page.file.src_uri
    repo_source = _SITE_TO_REPO.get(site_page, DOCS + site_page)
    return _LINK.sub(lambda m: m[1] + site_link(m[2], repo_source, site_page) + m[3], markdown)
