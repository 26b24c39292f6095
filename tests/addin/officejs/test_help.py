"""Each function's helpUrl (functions.json) opens its reference page, served by `rates-xl serve`."""

from __future__ import annotations

from html.parser import HTMLParser

from rates_xl.addin.officejs.metadata import officejs_name
from rates_xl.functions import FUNCTIONS


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append(tag)


def test_every_helpurl_in_the_metadata_is_the_functions_reference_page(serve):
    served = serve()
    entries = served.file("functions.json").json()["functions"]
    assert [e["id"] for e in entries] == [officejs_name(s) for s in FUNCTIONS.values()]
    for entry, spec in zip(entries, FUNCTIONS.values(), strict=True):
        url = entry["helpUrl"]
        assert url == f"{served.url}/help/{spec.name}.html"
        page = served.http.get(url, timeout=30)
        assert page.status_code == 200, url
        assert page.headers["content-type"].startswith("text/html")
        assert f"<h1>{spec.name}</h1>" in page.text
        for arg in spec.args:
            assert f"<code>{arg.name}</code>" in page.text, (spec.name, arg.name)
            if arg.param:
                assert f"<code>{arg.param}</code>" in page.text, (spec.name, arg.param)
        # Self-contained: nothing to load from anywhere, nothing that runs.
        tags = _Tags()
        tags.feed(page.text)
        assert not {"script", "link", "img", "iframe"} & set(tags.tags)


def test_help_pages_answer_either_spelling_and_refuse_unknown_names(serve):
    served = serve()
    dotted = served.http.get(served.url + "/help/RATES.SWAPCURVE.html", timeout=30)
    assert dotted.status_code == 200 and "<h1>RATES_SWAPCURVE</h1>" in dotted.text
    for name in ("RATES_NOPE", "x" * 200, "..%2F..%2Fetc%2Fpasswd"):
        assert served.http.get(f"{served.url}/help/{name}.html", timeout=30).status_code == 404
