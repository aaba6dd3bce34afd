"""Statements of the introduction, the glossary, chapters 1-2 and the appendix about the paper and
the source texts (issue 13). Each test fails on the wording the referee found wrong."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = {
    "intro": ROOT / "book" / "intro.md",
    "notation": ROOT / "book" / "notation.md",
    "glossary": ROOT / "book" / "glossary.md",
    "chapter 1": ROOT / "notebooks" / "01_why_position.ipynb",
    "chapter 2": ROOT / "notebooks" / "02_sinusoidal_encoding.ipynb",
    "appendix": ROOT / "notebooks" / "90_claims_checked.ipynb",
}


def prose(path: Path) -> str:
    """The page's text, markdown cells only for a notebook, with line breaks folded."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = "\n".join(
            "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
        )
    else:
        text = path.read_text(encoding="utf-8")
    return " ".join(text.split())


@pytest.mark.parametrize("page", list(PAGES))
def test_sources_have_reader_facing_names(page: str) -> None:
    # "seed 000", "seeds 002 and 004", "Seed 004's": file numbers mean nothing to a reader
    assert not re.search(r"\b[Ss]eeds? \d{3}", prose(PAGES[page]))
    assert "shared/seeds" not in prose(PAGES[page])


@pytest.mark.parametrize("page", ["intro", "chapter 1", "chapter 2", "appendix"])
def test_no_page_promises_that_the_appendix_lists_every_correction(page: str) -> None:
    text = prose(PAGES[page])
    assert not re.search(
        r"(collects|lists) every (source-text )?(claim|correction)", text
    )
    assert "collects them all" not in text


def test_intro_quotes_both_of_the_papers_reasons() -> None:
    text = prose(PAGES["intro"])
    assert "one sentence of motivation" not in text
    assert "extrapolate to sequence lengths longer than the ones encountered" in text
    assert "Table 3, row E" in text
    assert "https://spaces.ac.cn/archives/8231" in text


def test_appendix_credits_the_paper_with_the_extrapolation_idea() -> None:
    text = prose(PAGES["appendix"])
    assert "The idea is not theirs" in text
    assert "extrapolate to sequence lengths longer than the ones encountered" in text
    # the invented measurements: the old reason ("the papers evaluate other tasks") was false
    assert "none appears in the papers it names" not in text
    assert "no paper it names reports these numbers or this comparison" in text


def test_chapter_2_does_not_call_the_papers_range_a_slip() -> None:
    text = prose(PAGES["chapter 2"])
    assert 'A common slip: "wavelengths from' not in text
    assert "exact for the released code" in text


def test_glossary_terms() -> None:
    text = prose(PAGES["glossary"])
    assert "use the term for both" not in text
    entry = text[text.index("half precision 半精度") :]
    entry = entry[: entry.index("{ref}")]
    # 混合精度 is mixed precision, named as the contrast, not as a synonym of half precision
    assert "*mixed precision* (混合精度)" in entry
    assert not entry.startswith("half precision 半精度, 混合精度")
