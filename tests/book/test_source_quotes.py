"""What the book says about its source texts, checked against the texts themselves (issue 13).

- Chapter 1 quotes four source texts calling attention permutation-invariant (置换不变); each
  quotation must occur verbatim in its source, and the fifth source must not use the word.
- The claims appendix quotes the source texts where only the text can settle a claim; each
  quotation must occur verbatim in its source.
- The appendix's coverage tables must list every section heading of every source text.

The source texts are not shipped with the book. The tests look for them in ``$POSENC_SEEDS``,
then in ``shared/seeds`` beside or above the repository, and skip when none is found. The part
that needs only the book (the appendix has one coverage table per source) always runs.
"""

from __future__ import annotations

import ast
import json
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTER1 = ROOT / "notebooks" / "01_why_position.ipynb"
APPENDIX = ROOT / "notebooks" / "90_claims_checked.ipynb"
# bibliography key -> file-name prefix of the source text in the course's seed folder
SOURCE_FILES = {
    "seed_extension": "000",  # Su's post with the anonymous expansion
    "seed_explainer2024": "001",
    "seed_notes": "002",
    "seed_qa": "003",
    "seed_textbook": "004",
}


def _seed_dir() -> Path | None:
    candidates = [os.environ.get("POSENC_SEEDS")]
    candidates += [str(parent / "shared" / "seeds") for parent in (ROOT, *ROOT.parents)]
    for candidate in candidates:
        if (
            candidate
            and Path(candidate).is_dir()
            and any(Path(candidate).glob("00*.txt"))
        ):
            return Path(candidate)
    return None


SEEDS = _seed_dir()
needs_seeds = pytest.mark.skipif(
    SEEDS is None, reason="the source texts (shared/seeds) are not available here"
)


def _source(key: str) -> str:
    assert SEEDS is not None
    (path,) = sorted(SEEDS.glob(f"{SOURCE_FILES[key]}_*.txt"))
    return path.read_text(encoding="utf-8")


def _cells(path: Path, kind: str) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == kind]


def _quotes(path: Path) -> dict[str, str]:
    """The ``SOURCE_QUOTES`` dictionary of a notebook's code cell."""
    (cell,) = [c for c in _cells(path, "code") if "SOURCE_QUOTES = {" in c]
    for node in ast.parse(cell).body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "SOURCE_QUOTES":
            return ast.literal_eval(node.value)
    raise AssertionError(f"SOURCE_QUOTES not found in {path.name}")


def _chapter1_quotes() -> dict[str, str]:
    return _quotes(CHAPTER1)


def headings(text: str, numbered: bool) -> list[str]:
    """Section headings of a source text: markdown headings outside code fences, or, for the
    question-and-answer post (plain text), its numbered sections "N. title" and
    sub-sections "N.M title"."""
    found, fence = [], False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        if numbered:
            match = re.match(r"^(\d+\.\d* \S.*)$", line)
        else:
            match = re.match(r"^#{1,6}\s*(.*?)\s*#?\s*$", line)
        if match:
            found.append(match.group(1).replace("**", "").strip())
    return found


def _coverage_rows() -> set[str]:
    text = "\n".join(_cells(APPENDIX, "markdown"))
    start = text.index("(claims-coverage)=")
    rows = set()
    for line in text[start:].splitlines():
        if line.startswith("| ") and not line.startswith("| section"):
            rows.add(line.split(" | ")[0][2:].strip())
    return rows


def test_the_appendix_has_one_coverage_table_per_source() -> None:
    text = "\n".join(_cells(APPENDIX, "markdown"))
    coverage = text[text.index("(claims-coverage)=") :]
    assert (
        coverage.count("| section | what it claims | where the book checks it |")
        == 4 + 1
    )
    for key in SOURCE_FILES:
        assert f"{{cite}}`{key}" in coverage or key in coverage, key


@needs_seeds
def test_each_quotation_occurs_verbatim_in_its_source() -> None:
    quotes = _chapter1_quotes()
    assert len(quotes) == 4
    for key, quote in quotes.items():
        assert quote in _source(key).replace("**", ""), key


@needs_seeds
def test_the_appendix_quotations_occur_verbatim_in_their_sources() -> None:
    # the appendix's claims that only the source text can settle (BERT's "typical output",
    # the printed format, eq. (45), ...): quotation -> source key
    quotes = _quotes(APPENDIX)
    assert len(quotes) >= 10
    for quote, key in quotes.items():
        assert quote in _source(key), (key, quote)
    # control: the same quotation with one digit changed is not in the source
    assert "- Word embedding norm: 8.3" not in _source("seed_extension")


@needs_seeds
def test_four_of_five_sources_say_permutation_invariant() -> None:
    says = {key for key in SOURCE_FILES if "置换不变" in _source(key)}
    assert says == set(_chapter1_quotes())
    assert says == {
        "seed_extension",
        "seed_explainer2024",
        "seed_notes",
        "seed_textbook",
    }


@needs_seeds
@pytest.mark.parametrize("key", list(SOURCE_FILES))
def test_every_section_of_every_source_is_in_the_coverage_tables(key: str) -> None:
    sections = headings(_source(key), numbered=key == "seed_qa")
    assert len(sections) >= 6
    missing = [s for s in sections if s not in _coverage_rows()]
    assert not missing, (
        f"sections of {key} missing from the appendix's coverage: {missing}"
    )


GLOSSARY = ROOT / "book" / "glossary.md"
_CHINESE_TERM = re.compile(r"[A-Za-z]*[\u4e00-\u9fff][A-Za-z\u4e00-\u9fff]*†?")


def glossary_terms() -> dict[str, bool]:
    """Chinese term -> marked with † (the book's own translation), from the first
    sentence of every glossary definition."""
    text = GLOSSARY.read_text(encoding="utf-8")
    body = text[text.index("```{glossary}") :]
    terms: dict[str, bool] = {}
    for line in body.splitlines():
        if line.startswith("  ") and not line.startswith("   "):
            head = re.split(r"\.\s", line.strip(), maxsplit=1)[0]
            for term in _CHINESE_TERM.findall(head):
                terms[term.rstrip("†")] = term.endswith("†")
    return terms


def test_the_glossary_marks_its_own_translations() -> None:
    terms = glossary_terms()
    assert len(terms) >= 40
    assert sum(terms.values()) == 18
    assert terms["半精度"] and not terms["位置编码"]
    # the page says what the mark means
    assert re.search(
        r"except\s+those\s+marked\s+†", GLOSSARY.read_text(encoding="utf-8")
    )


@needs_seeds
def test_glossary_terms_occur_in_the_sources_unless_marked() -> None:
    corpus = "".join(_source(key) for key in SOURCE_FILES).replace("**", "")
    wrong = {
        term: marked
        for term, marked in glossary_terms().items()
        if marked == (term in corpus)
    }
    assert not wrong, f"marked terms found, or unmarked terms missing: {wrong}"
