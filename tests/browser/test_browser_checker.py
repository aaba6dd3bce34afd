"""The checker itself: it finds each kind of defect on the broken fixture, nothing on the good one.

A checker that never fails proves nothing about the book, so every check in ``html_checker`` has
a fixture page below carrying exactly that defect (and the good fixture carries the constructs
the book uses, each of which must pass).
"""

from __future__ import annotations

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
}

# Problems a defect brings with it, besides its own kind (the browser logs a failed load).
ALSO_ALLOWED = {
    "book/missing_image.html": {"http-error", "console-error"},
    "book/mathjax_missing.html": {"raw-latex"},  # math that was never typeset
    "book/external_request.html": {"console-error"},
    "book/http_error.html": {"console-error"},
}


@pytest.fixture(scope="module")
def broken_report(chromium: str, broken_site: Path) -> html_checker.Report:
    return html_checker.check_site(broken_site, repository_url=REPOSITORY_URL, chromium=chromium)


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
def test_checker_reports_each_defect(broken_report: html_checker.Report, page: str) -> None:
    kinds = broken_report.kinds(page)
    assert EXPECTED[page] in kinds, broken_report.summary()
    # ... and nothing unrelated: each page carries one defect.
    assert kinds <= {EXPECTED[page]} | ALSO_ALLOWED.get(page, set()), broken_report.summary()


def test_checker_fails_on_the_broken_fixture(broken_report: html_checker.Report) -> None:
    assert not broken_report.ok
    assert broken_report.redirects == ["index.html"]
    assert len(broken_report.pages) == len(EXPECTED) - 1


def test_details_name_the_culprit(broken_report: html_checker.Report) -> None:
    details = "\n".join(str(p) for p in broken_report.problems)
    assert "no-such-page.html" in details
    assert "equation-no-such-label" in details and "no-such-section" in details
    assert "\\notamacro" in details
    assert "https://cdn.example.org/theme.css" in details
    assert "no-such-figure.png" in details
    assert "notebooks/01_no_colab.ipynb" in details


def test_checker_passes_the_good_fixture(good_report: html_checker.Report) -> None:
    assert good_report.ok, good_report.summary()
    assert good_report.pages == ["book/intro.html", "notebooks/01_good.html"]


def test_screenshots_are_full_page_pngs(good_report: html_checker.Report) -> None:
    names = sorted(path.name for path in good_report.screenshots)
    assert names == ["book-intro.png", "notebooks-01_good.png"]
    for path in good_report.screenshots:
        header = path.read_bytes()[:24]
        assert header[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", header[16:24])
        assert width == 1280 and height >= 100


def test_colab_link_must_name_the_configured_repository(chromium: str, good_site: Path) -> None:
    report = html_checker.check_site(
        good_site,
        repository_url="https://github.com/someone-else/fork",
        chromium=chromium,
        pages=["notebooks/01_good.html"],
    )
    assert report.kinds("notebooks/01_good.html") == {"missing-colab-link"}
    assert "someone-else/fork" in report.problems[0].detail


def test_command_line_exit_status(chromium: str, good_site: Path, broken_site: Path) -> None:
    common = ["--repository-url", REPOSITORY_URL, "--chromium", chromium]
    assert html_checker.main([str(good_site), *common]) == 0
    assert html_checker.main([str(broken_site), *common]) == 1


# ---- the parts that need no browser


def test_find_pages_skips_assets(tmp_path: Path) -> None:
    for name in ["a.html", "book/b.html", "_static/t.html", "_sources/c.html", "mathjax/x.html"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("<p>x</p>")
    found = [p.relative_to(tmp_path).as_posix() for p in html_checker.find_pages(tmp_path)]
    assert found == ["a.html", "book/b.html"]


def test_check_links_static(tmp_path: Path) -> None:
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "index.html").write_text('<h1 id="start">x</h1><a name="old">y</a>')
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
    problems = html_checker.check_links(tmp_path, "book/page.html", page, hrefs, {"live"})
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
