"""Fixtures for the browser checks: Chromium, MathJax, and sites assembled from the fixtures.

These tests need Debian's Chromium (``apt-get install chromium``) and Playwright's Python
package (``requirements/browser.txt``); without either they are skipped with the reason.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="session")
def chromium() -> str:
    """The Chromium executable; skip when it or Playwright is missing."""
    pytest.importorskip("playwright", reason="playwright not installed (requirements/browser.txt)")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} not installed (apt-get install chromium)")
    return CHROMIUM


@pytest.fixture(scope="session")
def mathjax_dir() -> Path:
    """MathJax's es5 folder, as ``make`` copies it into the book (``_extra/mathjax``)."""
    for candidate in (REPO / "_extra" / "mathjax", REPO / "node_modules" / "mathjax"):
        if (candidate / "es5" / "tex-mml-chtml.js").is_file():
            return candidate
    pytest.skip("MathJax not found: run `make _extra/mathjax/es5/tex-mml-chtml.js`")


def _assemble(name: str, destination: Path, mathjax: Path) -> Path:
    site = destination / name
    shutil.copytree(FIXTURES / name, site)
    (site / "mathjax").symlink_to(mathjax, target_is_directory=True)
    return site


@pytest.fixture(scope="session")
def good_site(tmp_path_factory: pytest.TempPathFactory, mathjax_dir: Path) -> Path:
    """A small site that renders correctly: the checker must find nothing on it."""
    return _assemble("good", tmp_path_factory.mktemp("sites"), mathjax_dir)


@pytest.fixture(scope="session")
def broken_site(tmp_path_factory: pytest.TempPathFactory, mathjax_dir: Path) -> Path:
    """A site whose pages each carry one defect, named by the file."""
    return _assemble("broken", tmp_path_factory.mktemp("sites"), mathjax_dir)
