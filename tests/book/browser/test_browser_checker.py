"""The checker itself: it finds each kind of defect on the broken fixture, nothing on the good one.

A checker that never fails proves nothing about the book, so every check in ``html_checker`` has
a fixture page below carrying exactly that defect (and the good fixture carries the constructs
the book uses, each of which must pass).
"""

from __future__ import annotations

import shutil
import socket
import struct
from pathlib import Path
from urllib.parse import urlsplit

import html_checker
import pytest

REPOSITORY_URL = "https://github.com/posenc-course/sinusoidal-positional-encoding"

# page of the broken fixture -> the kind of problem the checker must report on it
EXPECTED = {
    "index.html": "broken-link",  # a redirect to a page that does not exist
    "book/mathjax_error.html": "mathjax-error",
    "book/undefined_macro.html": "mathjax-error",
    "book/mathjax_missing.html": "mathjax-missing",
    "book/raw_latex.html": "raw-latex",
    "book/unclosed_math.html": "raw-latex",
    "book/stray_dollar.html": "raw-latex",
    "book/missing_image.html": "missing-image",
    "book/broken_link.html": "broken-link",
    "book/broken_anchor.html": "broken-anchor",
    "book/console_error.html": "console-error",
    "book/page_error.html": "page-error",
    "book/external_request.html": "external-request",
    "book/http_error.html": "http-error",
    "notebooks/01_no_colab.html": "missing-colab-link",
    "book/overflow_equation.html": "overflow",
    "book/overflow_table.html": "overflow",
    "book/overflow_code.html": "overflow",
    "book/scroll_affordance.html": "scroll-affordance",
    "book/stray_fade.html": "stray-fade",
    "book/equation_number.html": "equation-number",
    "book/equation_width.html": "equation-width",
    "book/equation_share.html": "equation-width",
    "book/heading_break.html": "heading-break",
    "book/figure_alt.html": "figure-alt",
    "book/figure_shape.html": "figure-shape",
    "book/nav_menu.html": "nav-menu",
    "book/nav_contents.html": "nav-contents",
    "book/sidebar_title.html": "sidebar-title",
    "book/top_bar.html": "top-bar",
    "book/figure_caption.html": "figure-caption",
    "book/figure_text.html": "figure-text",
    "book/figure_raster.html": "figure-text",
    "book/figure_png_text.html": "figure-text",
    "book/page_weight.html": "page-weight",
    "book/missing_glyph.html": "missing-glyph",
    "book/missing_font_data.html": "missing-glyph",
}

# Problems a defect brings with it, besides its own kind (the browser logs a failed load).
ALSO_ALLOWED = {
    "book/missing_image.html": {"http-error", "console-error"},
    "book/mathjax_missing.html": {"raw-latex"},  # math that was never typeset
    # MathJax not told to break lines: the equation that spills over is also too wide to read.
    "book/overflow_equation.html": {"equation-width"},
    "book/external_request.html": {"console-error"},
    "book/http_error.html": {"console-error"},
}


@pytest.fixture(scope="module")
def broken_report(chromium: str, broken_site: Path) -> html_checker.Report:
    return html_checker.check_site(
        broken_site, repository_url=REPOSITORY_URL, chromium=chromium
    )


@pytest.fixture(scope="module")
def good_report(
    chromium: str, good_site: Path, tmp_path_factory: pytest.TempPathFactory
) -> html_checker.Report:
    return html_checker.check_site(
        good_site,
        repository_url=REPOSITORY_URL,
        chromium=chromium,
        screenshots=tmp_path_factory.mktemp("shots"),
    )


def test_broken_fixture_has_a_page_for_every_kind() -> None:
    # Every kind the checker reports is exercised by the broken fixture (load-failed aside:
    # it needs a server that stops answering).
    assert set(EXPECTED.values()) == set(html_checker.KINDS) - {"load-failed"}


@pytest.mark.parametrize("page", sorted(EXPECTED))
def test_checker_reports_each_defect(
    broken_report: html_checker.Report, page: str
) -> None:
    kinds = broken_report.kinds(page)
    assert EXPECTED[page] in kinds, broken_report.summary()
    # ... and nothing unrelated: each page carries one defect.
    assert kinds <= {EXPECTED[page]} | ALSO_ALLOWED.get(page, set()), (
        broken_report.summary()
    )


def test_checker_fails_on_the_broken_fixture(
    broken_report: html_checker.Report,
) -> None:
    assert not broken_report.ok
    assert broken_report.redirects == ["index.html"]
    assert len(broken_report.pages) == len(EXPECTED) - 1


def test_details_name_the_culprit(broken_report: html_checker.Report) -> None:
    details = "\n".join(str(p) for p in broken_report.problems)
    named = [
        "no-such-page.html",
        "equation-no-such-label",
        "no-such-section",
        "\\notamacro",
        "https://cdn.example.org/theme.css",
        "no-such-figure.png",
        "BRANCH/colab/01_no_colab.ipynb",
        "cut off by div (overflow-x: hidden, no scrolling)",  # the table
        "no scroll box of its own",  # the equation and the code
        "(1.1) covers",
        "smallest text 5.0 px",  # the SVG
        "smallest text 8.8 px as shown (7 pt at 180 dpi",  # the PNG
        "PNG figure (320x160 px shown at 1.00x) without the book style's record",
        "_static/heavy.js 1600 kB",
        "#equation-too-wide",
        "(numbered)",
        "2 of 3 display equations scroll; at most 10% may",
        "the word 'posenc_lib.shift_invariance_and_more' is broken",
        'has alt text "../_images/readable.svg"',
        "% of its own height for its width (240x120 px)",
    ]
    assert [text for text in named if text not in details] == []


def test_equation_share_rule_is_for_phones(broken_report: html_checker.Report) -> None:
    # The unnumbered equations of equation_share.html fit a desktop's column: only the phone
    # (more than a tenth of them scroll there) reports them.
    found = [
        p.detail for p in broken_report.problems if p.page == "book/equation_share.html"
    ]
    assert found and all("390 px" in detail for detail in found), found
    counts = broken_report.equations
    assert counts[("book/equation_share.html", 390)] == (3, 2)
    assert counts[("book/equation_share.html", 1400)] == (3, 0)
    assert counts[("book/equation_width.html", 1400)] == (1, 1)


def test_checker_passes_the_good_fixture(good_report: html_checker.Report) -> None:
    assert good_report.ok, good_report.summary()
    assert good_report.pages == ["book/intro.html", "notebooks/01_good.html"]
    assert (
        good_report.with_nav == good_report.pages
    )  # the navigation checks ran on both


def _copy(site: Path, destination: Path) -> Path:
    shutil.copytree(site, destination, symlinks=True)
    return destination


def _check_intro_on_a_phone(site: Path, chromium: str) -> html_checker.Report:
    """The checker's report on the site's intro page, at the phone's width only."""
    return html_checker.check_site(
        site,
        repository_url=REPOSITORY_URL,
        chromium=chromium,
        pages=["book/intro.html"],
        viewports=(html_checker.PHONE,),
    )


def test_the_book_css_is_what_makes_the_good_fixture_pass(
    chromium: str, good_site: Path, tmp_path: Path
) -> None:
    # The good fixture's wide table and code lines are wider than a phone's column: they pass
    # because _static/posenc.css gives them scroll boxes (posenc.js the fade).
    bare = _copy(good_site, tmp_path / "bare")
    (bare / "_static" / "posenc.css").write_text("")
    report = _check_intro_on_a_phone(bare, chromium)
    details = "\n".join(p.detail for p in report.problems if p.kind == "overflow")
    for culprit in ("table", "code block"):
        assert culprit in details, report.summary()
    # ... and the figure that myst-nb sizes inline (width and height) is squashed.
    assert "figure-shape" in report.kinds("book/intro.html"), report.summary()


def test_mathjax_line_breaking_is_what_makes_the_wide_equation_fit(
    chromium: str, good_site: Path, tmp_path: Path
) -> None:
    # The good fixture's numbered equation (1.2) is wider than a phone's column: it fits
    # because MathJax 4 breaks it into lines (displayOverflow: linebreak, as _config.yml has).
    bare = _copy(good_site, tmp_path / "nobreak")
    page = bare / "book" / "intro.html"
    page.write_text(
        page.read_text().replace(
            '"output": {"displayOverflow": "linebreak", ', '"output": {'
        )
    )
    report = _check_intro_on_a_phone(bare, chromium)
    details = "\n".join(p.detail for p in report.problems if p.kind == "equation-width")
    assert "#equation-good-wide" in details, report.summary()


def test_screenshots_at_both_widths(good_report: html_checker.Report) -> None:
    names = sorted(path.name for path in good_report.screenshots)
    assert names == sorted(
        f"{page}-{width}{dark}.png"
        for page in ("book-intro", "notebooks-01_good")
        for width in (390, 1400)
        for dark in ("", "-dark")
    )
    for path in good_report.screenshots:
        header = path.read_bytes()[:24]
        assert header[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", header[16:24])
        assert width in (390, 1400) and height >= 100
        assert str(width) in path.name


def test_colab_link_must_name_the_configured_repository(
    chromium: str, good_site: Path
) -> None:
    report = html_checker.check_site(
        good_site,
        repository_url="https://github.com/someone-else/fork",
        chromium=chromium,
        pages=["notebooks/01_good.html"],
    )
    assert report.kinds("notebooks/01_good.html") == {"missing-colab-link"}
    assert "someone-else/fork" in report.problems[0].detail


def test_command_line_exit_status(
    chromium: str, good_site: Path, broken_site: Path
) -> None:
    common = ["--repository-url", REPOSITORY_URL, "--chromium", chromium]
    assert (
        html_checker.main([str(good_site), *common, "--page", "book/intro.html"]) == 0
    )
    assert (
        html_checker.main([str(broken_site), *common, "--page", "book/raw_latex.html"])
        == 1
    )


# ---- figure text, measured from the SVG (no browser)

MATPLOTLIB_TEXT = """<svg xmlns="http://www.w3.org/2000/svg" width="432pt" height="216pt"
 viewBox="0 0 432 216"><g id="axes"><text style="font-size: 11px; font-family: 'DejaVu Sans'"
 x="1" y="2">position</text><text style="font: 8px 'DejaVu Sans'" x="1" y="2">0</text>
 <text style="font-size: 4px"> </text></g></svg>"""
MATPLOTLIB_PATHS = """<svg xmlns="http://www.w3.org/2000/svg"
 xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 200 100"><defs><path id="g30" d=""/>
 </defs><g transform="translate(23.4 142.7) scale(0.1 -0.1)"><use xlink:href="#g30"/></g>
 <g transform="translate(73.8 159.8) scale(0.14 -0.14)"><use xlink:href="#g30"/></g></svg>"""


def test_svg_text_sizes_read_both_matplotlib_text_modes() -> None:
    assert html_checker.svg_text_sizes(MATPLOTLIB_TEXT) == (
        432.0,
        [11.0, 8.0],
    )  # blank skipped
    width, sizes = html_checker.svg_text_sizes(MATPLOTLIB_PATHS)
    assert width == 200.0 and sizes == pytest.approx([10.0, 14.0])


def test_figure_text_threshold(tmp_path: Path) -> None:
    (tmp_path / "f.svg").write_text(MATPLOTLIB_TEXT)
    figure = {
        "src": "http://127.0.0.1:1/f.svg",
        "naturalWidth": 576,
        "naturalHeight": 288,
    }
    figure["where"] = "img 'f.svg'"
    # 8 user units shown at 432 px of 432 units: 8 px, below 9.
    found = html_checker.figure_text_problem(tmp_path, {**figure, "shownWidth": 432})
    assert found is not None and "smallest text 8.0 px" in found
    # Shown at 576 px: 8 * 576 / 432 = 10.7 px.
    assert (
        html_checker.figure_text_problem(tmp_path, {**figure, "shownWidth": 576})
        is None
    )
    (tmp_path / "f.jpg").write_bytes(b"")
    raster = html_checker.figure_text_problem(
        tmp_path, {**figure, "src": "http://127.0.0.1:1/f.jpg", "shownWidth": 288}
    )
    assert raster is not None and "raster figure (576x288 px shown at 0.50x)" in raster


def test_figure_text_of_the_books_png_format(tmp_path: Path) -> None:
    from conftest import png

    figure = {
        "src": "http://127.0.0.1:1/f.png",
        "naturalWidth": 936,
        "naturalHeight": 576,
    }
    figure["where"] = "img 'f.png'"
    (tmp_path / "f.png").write_bytes(png(936, 576, dpi=180, min_text_pt="10"))
    # 10 pt at 180 dpi = 25 image px; shown at 468 of 936 px: 12.5 px; at 342 px: 9.1 px.
    assert (
        html_checker.figure_text_problem(tmp_path, {**figure, "shownWidth": 342})
        is None
    )
    found = html_checker.figure_text_problem(tmp_path, {**figure, "shownWidth": 300})
    assert found is not None and "smallest text 8.0 px" in found
    (tmp_path / "f.png").write_bytes(png(936, 576, dpi=180))
    found = html_checker.figure_text_problem(tmp_path, {**figure, "shownWidth": 468})
    assert found is not None and "without the book style's record" in found


# ---- the parts that need no browser


def test_find_pages_skips_assets(tmp_path: Path) -> None:
    for name in [
        "a.html",
        "book/b.html",
        "_static/t.html",
        "_sources/c.html",
        "mathjax/x.html",
    ]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("<p>x</p>")
    found = [
        p.relative_to(tmp_path).as_posix() for p in html_checker.find_pages(tmp_path)
    ]
    assert found == ["a.html", "book/b.html"]


def test_check_links_static(tmp_path: Path) -> None:
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "index.html").write_text(
        '<h1 id="start">x</h1><a name="old">y</a>'
    )
    (tmp_path / "book" / "page.html").write_text('<p id="here">x</p>')
    base = "http://127.0.0.1:1/"
    page = base + "book/page.html"
    hrefs = [
        base + "book/",  # a folder with index.html
        base + "book/index.html#start",
        base + "book/index.html#old",  # <a name=...>
        base + "book/page%2Ehtml#here",  # percent-encoded
        page + "#live",  # an id only the rendered page has
        "https://example.org/x#nothing",  # external: not followed
        base + "book/missing.html",
        base + "book/index.html#nope",
        base + "../../etc/passwd",  # outside the served folder
    ]
    problems = html_checker.check_links(
        tmp_path, "book/page.html", page, hrefs, {"live"}
    )
    found = sorted((p.kind, p.detail) for p in problems)
    assert found == [
        ("broken-anchor", "/book/index.html#nope: no id 'nope'"),
        ("broken-link", "/../../etc/passwd: no such file"),
        ("broken-link", "/book/missing.html: no such file"),
    ]


def test_serve_binds_loopback_and_stops(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text("hello")
    with html_checker.serve(tmp_path) as base_url:
        host, port = urlsplit(base_url).hostname, urlsplit(base_url).port
        assert host == "127.0.0.1" and port
        with socket.create_connection((host, port), timeout=5) as connection:
            connection.sendall(b"GET /a.html HTTP/1.0\r\n\r\n")
            received = b""
            while chunk := connection.recv(4096):
                received += chunk
            assert received.endswith(b"hello")
    with pytest.raises(OSError), socket.create_connection((host, port), timeout=5):
        pass


def test_missing_chromium_is_a_clear_error(good_site: Path) -> None:
    pytest.importorskip("playwright")
    with pytest.raises(FileNotFoundError, match="apt-get install chromium"):
        html_checker.check_site(good_site, chromium="/nonexistent/chromium")


def test_old_book_screenshots_go_and_other_tests_screenshots_stay(
    tmp_path: Path,
) -> None:
    """The explorer and Colab tests write to the same folder, maybe at the same time."""
    names = ("intro-390.png", "explorer-kernel-390-light.png", "colab-01_why.png")
    for name in names:
        (tmp_path / name).write_bytes(b"png")
    html_checker.clear_old_screenshots(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names[1:])
