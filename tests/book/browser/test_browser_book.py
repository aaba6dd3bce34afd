"""The built book, opened page by page in headless Chromium (``make check-html``).

The HTML folder is ``$BOOK_HTML_DIR`` (default ``_build/html``); screenshots go to
``$SCREENSHOTS_DIR`` (default ``screenshots`` beside the HTML folder: ``_build/screenshots``),
every chapter at 390 px and 1400 px. Each page is checked at both widths in the light and the
dark colour scheme (``html_checker.VIEWPORTS``).
"""

from __future__ import annotations

import os
from pathlib import Path

import html_checker
import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]

#: Pages allowed more than html_checker.MAX_PAGE_BYTES (the target set for chapter pages) on a
#: first visit: none (the API reference is a page per module since issue 22).
WEIGHT_LIMITS: dict[str, int] = {}

#: The longest an API page may be on a phone, in screens of 844 px (issue 22: the single API
#: page was 167 screens).
MAX_API_SCREENS = 40


def _chapters() -> list[str]:
    """The notebooks listed in _toc.yml, as the book's page paths (notebooks/NN_slug.html)."""
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            name = node.get("file")
            if isinstance(name, str) and name.startswith("notebooks/"):
                found.append(name.removesuffix(".ipynb") + ".html")
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(yaml.safe_load((REPO / "_toc.yml").read_text(encoding="utf-8")))
    return found


@pytest.fixture(scope="module")
def book_report(chromium: str, built_book: Path) -> html_checker.Report:
    screenshots = Path(
        os.environ.get("SCREENSHOTS_DIR", built_book.parent / "screenshots")
    )
    report = html_checker.check_site(
        built_book,
        screenshots=screenshots,
        repository_url=html_checker.repository_url_from_config(REPO / "_config.yml"),
        chromium=chromium,
        weight_limits=WEIGHT_LIMITS,
    )
    print(report.summary())
    for page, weight in sorted(report.weights.items()):
        print(f"first visit {weight / 1e6:5.2f} MB before figures: {page}")
    print(html_checker.equation_table(report))
    return report


def test_every_page_renders(book_report: html_checker.Report) -> None:
    assert not book_report.problems, book_report.summary()


def test_every_chapter_was_opened_and_photographed(
    book_report: html_checker.Report,
) -> None:
    chapters = _chapters()
    assert chapters, "_toc.yml lists no notebooks"
    not_opened = sorted(set(chapters) - set(book_report.pages))
    assert not not_opened, (
        f"chapters in _toc.yml with no page in the build: {not_opened}"
    )
    shots = {path.name for path in book_report.screenshots if path.stat().st_size > 0}
    no_shot = [
        f"{chapter} at {width} px"
        for chapter in chapters
        for width in (viewport.width for viewport in html_checker.VIEWPORTS)
        if f"{chapter.removesuffix('.html').replace('/', '-')}-{width}.png" not in shots
    ]
    assert not no_shot, f"chapters with no screenshot: {no_shot}"


def test_every_page_has_the_chapter_list(book_report: html_checker.Report) -> None:
    # The navigation checks (☰, contents) ran wherever the chapter list was found: everywhere.
    assert set(book_report.with_nav) == set(book_report.pages)


def test_chapter_pages_are_under_the_weight_target(
    book_report: html_checker.Report,
) -> None:
    weights = {page: book_report.weights.get(page) for page in _chapters()}
    assert all(weights.values()), f"no weight measured for {weights}"
    heavy = {p: w for p, w in weights.items() if w > html_checker.MAX_PAGE_BYTES}  # type: ignore[operator]
    assert not heavy, f"first visit over {html_checker.MAX_PAGE_BYTES} bytes: {heavy}"


def test_api_pages_are_at_most_40_phone_screens(
    book_report: html_checker.Report,
) -> None:
    heights = {
        page: height
        for (page, width), height in book_report.heights.items()
        if page.startswith("book/api") and width == html_checker.PHONE.width
    }
    assert len(heights) > 10, heights  # the index and a page per module
    screens = {page: h / html_checker.PHONE.height for page, h in heights.items()}
    tall = {page: round(n, 1) for page, n in screens.items() if n > MAX_API_SCREENS}
    assert not tall, f"API pages taller than {MAX_API_SCREENS} phone screens: {tall}"


# ---- search


@pytest.mark.parametrize("query", ["正弦", "位置编码", "编码"])
def test_search_finds_chinese_glossary_terms(
    chromium: str, built_book: Path, query: str
) -> None:
    results = html_checker.search_book(built_book, query, chromium=chromium)
    assert "book/glossary.html" in [r["page"] for r in results], results


def _sphinx_excerpt(text: str, term: str) -> str:
    """The 240 characters Sphinx's makeSearchSummary cuts around the term."""
    position = text.lower().find(term.lower())
    start = max(position - 120, 0) if position >= 0 else 0
    return text[start : start + 240]


def test_search_excerpts_show_no_raw_tex(chromium: str, built_book: Path) -> None:
    results = html_checker.search_book(built_book, "rotation", chromium=chromium)
    assert len(results) >= 3, results
    for result in results:
        assert not html_checker.RAW_LATEX.search(result["excerpt"] or ""), result
    # ... where Sphinx's own excerpts of the same pages would show TeX: the check can fail.
    originals = [_sphinx_excerpt(r["original"] or "", "rotation") for r in results]
    assert any(html_checker.RAW_LATEX.search(text) for text in originals)


def _matches(excerpt: str, query: str) -> bool:
    """Whether the excerpt holds the query: a word with the query's Porter stem (Sphinx's
    English stemmer, here snowballstemmer's, not the page's JavaScript), or a Chinese term's
    characters."""
    import re

    import snowballstemmer

    if not query.isascii():
        return query in excerpt
    stemmer = snowballstemmer.stemmer("porter")
    stem = stemmer.stemWord(query.lower())
    words = re.findall(r"[^\W_]+", excerpt.lower())  # code names too
    return any(stemmer.stemWord(word) == stem for word in words)


@pytest.mark.parametrize("query", ["decay", "rotary", "study", "Hessian", "位置编码"])
def test_search_excerpts_show_the_match(
    chromium: str, built_book: Path, query: str
) -> None:
    results = html_checker.search_book(built_book, query, chromium=chromium)
    assert results, f"no result for {query!r}"
    # A page shows the sentence with the match; an API object (Sphinx shows no excerpt for
    # those) is listed by its name, which holds it.
    missing = [
        r
        for r in results
        if not _matches(r["excerpt"] or "", query)
        and (r["excerpt"] or query.lower() not in r["title"].lower())
    ]
    assert not missing, missing
    assert any(r["excerpt"] for r in results)
    # Sphinx's own excerpt of the same pages, cut around the stemmed term it looks for, misses
    # the match (the page's buttons show instead) for a word whose stem is not itself
    # ("decai"): the check can fail.
    import snowballstemmer

    stem = snowballstemmer.stemmer("porter").stemWord(query.lower())
    if query.isascii() and stem != query.lower():
        originals = [_sphinx_excerpt(r["original"] or "", stem) for r in results]
        assert any(not _matches(text, query) for text in originals), originals
