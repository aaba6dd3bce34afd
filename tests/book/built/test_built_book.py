"""Checks of the built HTML book (run by `make check-book` after `make book`)."""

import json
import os
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
HTML = Path(os.environ.get("BOOK_HTML_DIR") or ROOT / "_build" / "html").resolve()
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PAGES = sorted(HTML.rglob("*.html"))
CDN = re.compile(
    r"(cdn\.jsdelivr\.net|cdnjs\.cloudflare\.com|unpkg\.com)[^\"']*mathjax", re.I
)

pytestmark = pytest.mark.skipif(
    not HTML.is_dir(), reason="no built book: run `make book` first"
)


def test_a_page_per_chapter():
    for notebook in NOTEBOOKS:
        assert (HTML / "notebooks" / f"{notebook.stem}.html").is_file(), notebook.name


def test_no_page_loads_mathjax_from_a_cdn():
    assert PAGES
    offenders = [str(p.relative_to(HTML)) for p in PAGES if CDN.search(p.read_text())]
    assert offenders == []


def test_mathjax_is_loaded_from_the_book_and_present():
    script = re.compile(r'<script[^>]+src="([^"]*mathjax/startup\.js)[^"]*"')
    for page in (HTML / "notebooks").glob("*.html"):
        match = script.search(page.read_text())
        assert match, f"{page.name} does not load the local MathJax"
        target = (page.parent / match.group(1).split("?")[0]).resolve()
        assert target.is_file(), target
    loader = CONFIG["sphinx"]["config"]["mathjax3_config"]["loader"]
    for name in [*loader["load"], "core"]:
        # "[tex]/ams": MathJax's path for its TeX extensions
        name = name.replace("[tex]/", "input/tex/extensions/")
        assert (HTML / "mathjax" / f"{name}.js").is_file(), name
    # The font, where the loader's [fonts] path points (not the CDN, MathJax 4's default).
    assert loader["paths"]["fonts"] == "[mathjax]/fonts"
    font = HTML / "mathjax/fonts/mathjax-newcm-font"
    assert (font / "chtml.js").is_file() and any((font / "chtml/woff2").glob("*.woff2"))


def test_display_equations_break_lines_rather_than_scroll():
    output = CONFIG["sphinx"]["config"]["mathjax3_config"]["output"]
    assert output["displayOverflow"] == "linebreak"
    version = json.loads((ROOT / "package.json").read_text())["dependencies"]["mathjax"]
    assert version.split(".")[0] == "4", version  # displayOverflow is MathJax 4's


def test_only_the_mathjax_the_pages_use_is_shipped():
    # Not the 70 MB of packages: the loaded components, TeX extensions its autoloader may
    # fetch, and the one CommonHTML font (4 MB of woff2 files and glyph ranges, each page
    # fetching the few it shows).
    shipped = sum(
        p.stat().st_size for p in (HTML / "mathjax").rglob("*") if p.is_file()
    )
    assert shipped < 5_000_000, shipped
    assert not (HTML / "mathjax/tex-mml-chtml.js").exists()
    assert not (HTML / "mathjax/ui/menu.js").exists()
    assert not (HTML / "mathjax/fonts/mathjax-newcm-font/svg").exists()


def test_no_page_loads_fontawesome_js_or_a_search_index_it_does_not_use():
    for page in PAGES:
        if "_static" in page.relative_to(HTML).parts:
            continue  # a theme template copied with the static files
        text = page.read_text()
        assert "fontawesome.js" not in text, page
        if page.name != "search.html":
            assert "searchindex.js" not in text, page
    assert not (HTML / "_static/scripts/fontawesome.js").exists()
    assert not list((HTML / "_static").rglob("*.woff2")), (
        "full Font Awesome fonts shipped"
    )


_LABEL = re.compile(
    r'<div class="citation" id="([^"]+)"[^>]*>\s*<span class="label"><span class="fn-bracket">\['
    r"</span>(.*?)<span"
)
_CITATION = re.compile(
    r'<a class="reference internal" href="[^"]*references\.html#(cite-[\w-]+)"[^>]*>(.*?)</a>'
)


def test_citations_print_the_label_of_the_reference_they_link_to():
    labels = dict(_LABEL.findall((HTML / "book/references.html").read_text()))
    assert len(labels) >= 30, labels
    assert len(set(labels.values())) == len(labels), "two references share a label"
    assert all(re.search(r", (\d{4}|n\.d\.)", label) for label in labels.values()), (
        labels
    )
    cited = 0
    for page in PAGES:
        for target, text in _CITATION.findall(page.read_text()):
            cited += 1
            assert re.sub(r"<[^>]+>", "", text) == labels[target], (
                page.name,
                target,
                text,
            )
    assert cited > 100


def test_api_signatures_name_numpy_aliases():
    api = "".join(p.read_text() for p in sorted((HTML / "book/api").rglob("*.html")))
    assert "_SupportsArray" not in api and "_NestedSequence" not in api
    assert api.count("ArrayLike") > 40


def test_api_reference_has_a_page_per_module():
    # One page per module of posenc_lib (book/api/<module>.md), each linked from the index's
    # chapter table or listed in its contents; the course's on their own index
    # (book/api/course/<module>.md, book/api_course.md).
    import posenc_lib

    package = Path(posenc_lib.__file__).parent
    for folder, index_page, prefix, extra in [
        (package, "book/api.html", "api/", {"core"}),
        (package / "course", "book/api_course.html", "api/course/", set()),
    ]:
        modules = {p.stem for p in folder.glob("*.py") if not p.stem.startswith("_")}
        pages = {p.stem for p in (HTML / "book" / prefix).glob("*.html")}
        assert pages == modules | extra, pages ^ (modules | extra)
        index = (HTML / index_page).read_text()
        for page in pages:
            assert f'href="{prefix}{page}.html' in index, page


def test_search_index_holds_chinese_terms():
    index = (HTML / "searchindex.js").read_text(encoding="utf-8")
    terms = json.loads(index[index.index("(") + 1 : index.rindex(")")])["terms"]
    for term in ("正弦", "位置", "编码"):
        assert term in terms, term


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_each_chapter_links_to_its_colab_edition(notebook):
    # The Colab edition (colab/, `make colab`), not the MyST source that Colab shows raw.
    repo = CONFIG["repository"]["url"].removeprefix("https://github.com/")
    branch = CONFIG["repository"]["branch"]
    page = (HTML / "notebooks" / f"{notebook.stem}.html").read_text()
    links = re.findall(r'href="(https://colab\.research\.google\.com/[^"]+)"', page)
    assert links == [
        f"https://colab.research.google.com/github/{repo}/blob/{branch}/colab/{notebook.name}"
    ]
    assert (ROOT / "colab" / notebook.name).is_file()


def test_colab_citations_link_to_entries_of_the_reference_list():
    # Each citation of a Colab edition opens its entry (#cite-key), not the top of the page.
    ids = set(
        re.findall(r'id="(cite-[\w-]+)"', (HTML / "book/references.html").read_text())
    )
    assert len(ids) >= 30, ids
    linked = set()
    for edition in sorted((ROOT / "colab").glob("*.ipynb")):
        linked |= set(
            re.findall(r"references\.html#(cite-[\w-]+)\)", edition.read_text())
        )
    assert linked and linked <= ids, sorted(linked - ids)


def test_no_page_shows_the_build_machine_s_paths():
    # autodoc prints module constants' values: a Path(__file__) shows the builder's folder
    # (posenc_lib.course.pretrained.DATA_FILE did, until it hid its value).
    assert PAGES
    offenders = [str(p.relative_to(HTML)) for p in PAGES if str(ROOT) in p.read_text()]
    assert offenders == []
