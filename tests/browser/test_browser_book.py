"""The built book, opened page by page in headless Chromium (``make check-html``).

The HTML folder is ``$BOOK_HTML_DIR`` (default ``_build/html``); screenshots go to
``$SCREENSHOTS_DIR`` (default ``screenshots`` beside the HTML folder: ``_build/screenshots``).
"""

from __future__ import annotations

import os
from pathlib import Path

import html_checker
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]


def _html_dir() -> Path:
    return Path(os.environ.get("BOOK_HTML_DIR", REPO / "_build" / "html")).resolve()


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
def book_report(chromium: str) -> html_checker.Report:
    html_dir = _html_dir()
    if not (html_dir / "index.html").is_file():
        pytest.skip(f"no built book at {html_dir}: run `make book` first")
    screenshots = Path(os.environ.get("SCREENSHOTS_DIR", html_dir.parent / "screenshots"))
    report = html_checker.check_site(
        html_dir,
        screenshots=screenshots,
        repository_url=html_checker.repository_url_from_config(REPO / "_config.yml"),
        chromium=chromium,
    )
    print(report.summary())
    return report


def test_every_page_renders(book_report: html_checker.Report) -> None:
    assert book_report.ok, book_report.summary()


def test_every_chapter_was_opened_and_photographed(book_report: html_checker.Report) -> None:
    chapters = _chapters()
    assert chapters, "_toc.yml lists no notebooks"
    not_opened = sorted(set(chapters) - set(book_report.pages))
    assert not not_opened, f"chapters in _toc.yml with no page in the build: {not_opened}"
    shots = {path.name for path in book_report.screenshots if path.stat().st_size > 0}
    no_shot = [
        c for c in chapters if c.removesuffix(".html").replace("/", "-") + ".png" not in shots
    ]
    assert not no_shot, f"chapters with no screenshot: {no_shot}"
