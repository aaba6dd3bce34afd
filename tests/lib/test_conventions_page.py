"""book/conventions.md as a whole: every row tested, every source pinned, the page reachable."""

from __future__ import annotations

import importlib
import os
import re
from pathlib import Path

import pytest
from conventions_page import COLUMNS, PAGE, cited, page_rows

ROOT = Path(__file__).resolve().parents[2]
TESTS = sorted(ROOT.glob("tests/lib/test_conventions_*.py"))


def test_every_row_on_the_page_is_checked_by_a_test():
    sources = "\n".join(path.read_text(encoding="utf-8") for path in TESTS)
    rows = page_rows()
    assert len(rows) >= 20
    for name in rows:
        assert f'"{name}"' in sources, (
            f"no conventions test checks the page's row {name!r}"
        )


def test_every_number_on_the_page_is_in_a_checked_column():
    # numbers in the prose are parameters of the tests (sizes, versions, heads), never results;
    # results appear only in the "max abs difference" column, which the row tests compare
    for name, row in page_rows().items():
        assert re.fullmatch(r"< 1e-07|\d\.\de[-+]\d\d", row["max abs difference"]), name


def test_published_sources_are_permalinks_at_a_commit():
    for name, row in page_rows().items():
        links = re.findall(r"\]\((https://github\.com/[^)]+)\)", row["source"])
        if not links:  # an installed package: its pinned version is named
            assert re.search(
                r"`(transformers|diffusers)` \d+\.\d+\.\d+", row["source"]
            ), name
            continue
        assert all(cited(link) for link in links), (
            f"{name}: {links} not pinned to a commit"
        )


def test_pinned_versions_match_the_page():
    pins = (ROOT / "requirements" / "conventions.txt").read_text(encoding="utf-8")
    text = PAGE.read_text(encoding="utf-8")
    for package in ("transformers", "diffusers"):
        version = re.search(rf"^{package}==(\S+)$", pins, re.MULTILINE).group(1)
        assert f"`{package}` {version}" in text, (
            f"the page must name the pinned {package}"
        )


def test_the_page_is_in_the_book_and_linked_from_chapter_2():
    assert "file: book/conventions" in (ROOT / "_toc.yml").read_text(encoding="utf-8")
    chapter2 = (ROOT / "notebooks" / "02_sinusoidal_encoding.ipynb").read_text(
        encoding="utf-8"
    )
    assert "<../book/conventions>" in chapter2
    assert tuple(COLUMNS) == ("implementation", "source", "posenc_lib call",
                              "max abs difference", "cause")  # fmt: skip


@pytest.mark.skipif(
    not os.environ.get("CI"), reason="only CI must have the test-only group"
)
def test_ci_runs_the_conventions_tests_instead_of_skipping_them():
    for package in ("transformers", "diffusers"):
        try:
            importlib.import_module(package)
        except ImportError as exc:
            pytest.fail(
                f"{package}: {exc}; CI must install requirements/conventions.txt"
            )
