"""Checks of the built HTML book (run by `make check-book` after `make book`)."""

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PAGES = sorted(HTML.rglob("*.html"))
CDN = re.compile(r"(cdn\.jsdelivr\.net|cdnjs\.cloudflare\.com|unpkg\.com)[^\"']*mathjax", re.I)

pytestmark = pytest.mark.skipif(not HTML.is_dir(), reason="no built book: run `make book` first")


def test_a_page_per_chapter():
    for notebook in NOTEBOOKS:
        assert (HTML / "notebooks" / f"{notebook.stem}.html").is_file(), notebook.name


def test_no_page_loads_mathjax_from_a_cdn():
    assert PAGES
    offenders = [str(p.relative_to(HTML)) for p in PAGES if CDN.search(p.read_text())]
    assert offenders == []


def test_mathjax_is_loaded_from_the_book_and_present():
    script = re.compile(r'<script[^>]+src="([^"]*mathjax/es5/tex-mml-chtml\.js)[^"]*"')
    for page in (HTML / "notebooks").glob("*.html"):
        match = script.search(page.read_text())
        assert match, f"{page.name} does not load the local MathJax"
        target = (page.parent / match.group(1).split("?")[0]).resolve()
        assert target.is_file(), target
    assert (HTML / "mathjax/es5/output/chtml/fonts/woff-v2").is_dir()


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_each_chapter_links_to_colab(notebook):
    repo = CONFIG["repository"]["url"].removeprefix("https://github.com/")
    page = (HTML / "notebooks" / f"{notebook.stem}.html").read_text()
    link = f"https://colab.research.google.com/github/{repo}/blob/main/notebooks/{notebook.name}"
    assert link in page
