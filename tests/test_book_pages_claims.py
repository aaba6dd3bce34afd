"""Statements of the introduction, the glossary, chapters 1-2 and the appendix about the paper and
the source texts (issue 13). Each test fails on the wording the referee found wrong."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import posenc_lib as pe

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
    # the old "reports these numbers" contradicted the 88.5 the appendix finds in BERT
    assert "no paper it names reports these numbers or this comparison" not in text
    assert "no paper it names reports this comparison" in text
    assert "BERT-style baselines, on other benchmarks" not in text
    assert "reports per-task GLUE results (MRPC, SST-2, QNLI, STS-B, QQP, MNLI)" in text


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


def test_glossary_long_range_decay_does_not_claim_a_nonzero_kernel() -> None:
    text = prose(PAGES["glossary"])
    assert "never reaches zero" not in text
    assert "does not tend to zero" in text
    kappa = pe.kernel(np.arange(0, 2001), 64)
    first_negative = int(np.flatnonzero(kappa < 0)[0])
    assert first_negative == 725
    # an independent route: the defining sum, term by term
    theta = 10_000.0 ** (-2 * np.arange(32) / 64)
    assert np.cos(first_negative * theta).mean() < 0 < np.cos(724 * theta).mean()
    assert f"first negative at $\\Delta = {first_negative}$" in text


def test_glossary_entries_named_by_the_referee() -> None:
    text = prose(PAGES["glossary"])
    assert "just below" not in text  # 0.1 x 2 pi b at d = 8
    assert "$0.1 \\times 2\\pi b$ for $d = 8$" in text
    learned = text[text.index("learned position embedding") :]
    assert "devlin2019bert" in learned[: learned.index("{ref}")]
    nope = text[text.index("NoPE") :]
    nope = nope[: nope.index("self-attention")]
    assert "{ref}`ch1`" in nope and "{ref}`ch9`" in nope
    layout = text[text.index("layout 排列方式") :]
    assert "all four are exact permutations" in layout[: layout.index("shift matrix")]


def test_intro_does_not_say_sympy_does_every_step() -> None:
    text = prose(PAGES["intro"])
    assert "each symbolic manipulation is carried out by SymPy" not in text
    assert "proved by hand or with SymPy" in text


def test_appendix_fixes_of_the_second_referee() -> None:
    text = prose(PAGES["appendix"])
    cells = json.loads(PAGES["appendix"].read_text(encoding="utf-8"))["cells"]
    first = "".join(cells[1]["source"])
    assert "five source texts" in first
    assert len(re.findall(r"^- \*\*", first, flags=re.M)) == 5
    # the textbook has no shift block; "monotonically" is said by neither source
    assert "the shift block written in the wrong coordinate order" not in text
    assert "falls monotonically" not in text
    # the textbook's "decreasing overall" is in its §6.1.2; its §6.1.3 is the four-term score
    assert "with similarity decreasing overall with distance" in text
    assert "the four-term score, eq. (6.1.13)" in text
    # the textbook's second argument does mention 2k pi
    assert "the proof drops the $2k\\pi$ solutions" not in text
    assert "不等于2kπ" in text
    # the expansion's eq. 5 as it is written
    assert "(x_i+p_i)^\\top W_Q^\\top W_K\\,(x_j+p_j)" in text
    assert "factor of about 30" not in text


def test_chapters_1_and_2_fixes_of_the_second_referee() -> None:
    ch1, ch2 = prose(PAGES["chapter 1"]), prose(PAGES["chapter 2"])
    assert "checks both in the Hugging Face implementations" not in ch1
    assert "not the released weights" in ch1
    # the uniqueness theorem holds for every base b > 0 (the shared-frequency claim needs b > 1)
    assert "For any even $d \\ge 2$ and any base $b > 0$, distinct integers" in ch2
    assert "(defined for $d \\ge 4$)" in ch2
    assert "\\gcd(r, r-1) = 1" in ch2
