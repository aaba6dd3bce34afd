"""Numbers that the introduction, the glossary, chapter 2 and the claims appendix state in their
prose, read from the page and recomputed by an independent route (issues 13 and 26).

Each number is read with a regular expression that tolerates rewording around it (a copy-edit
passes; a changed number, or a sentence that no longer states it, fails), then recomputed with
the library and checked by a second route (the defining sum, exact column comparison, the
proof's own argument at many instances). Two rules about the wording of every page stay:
sources are named as a reader can place them, and no page promises a complete list.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import posenc_lib as pe

ROOT = Path(__file__).resolve().parents[2]
PAGES = {
    "intro": ROOT / "book" / "intro.md",
    "notation": ROOT / "book" / "notation.md",
    "glossary": ROOT / "book" / "glossary.md",
    "chapter 1": ROOT / "notebooks" / "01_why_position.ipynb",
    "chapter 2": ROOT / "notebooks" / "02_sinusoidal_encoding.ipynb",
    "appendix": ROOT / "notebooks" / "90_claims_checked.ipynb",
}
NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}


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


def stated(pattern: str, page: str) -> re.Match[str]:
    """The match of ``pattern`` on ``page``; fails naming both when the page no longer says it."""
    found = re.search(pattern, prose(PAGES[page]))
    assert found, f"{page} no longer states /{pattern}/"
    return found


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


def test_glossary_first_negative_kernel_value() -> None:
    found = stated(r"d\s*=\s*(\d+)\$?\D{0,40}?first negative\D{0,30}?(\d+)", "glossary")
    dim, delta = int(found[1]), int(found[2])
    kappa = pe.kernel(np.arange(0, 4 * delta), dim)
    assert int(np.flatnonzero(kappa < 0)[0]) == delta
    # an independent route: the defining sum, term by term, on both sides of the sign change
    theta = 10_000.0 ** (-2 * np.arange(dim // 2) / dim)
    assert np.cos(delta * theta).mean() < 0 < np.cos((delta - 1) * theta).mean()


def test_glossary_kernel_does_not_tend_to_zero() -> None:
    dim = int(stated(r"for \$d = (\d+)\$ it is first negative", "glossary")[1])
    stated(r"does not tend to zero", "glossary")
    far = pe.kernel(np.arange(10**6, 10**6 + 20_000), dim)
    assert np.abs(far).max() > 0.1  # still fluctuating a million tokens out


def test_glossary_longest_wavelength_as_a_fraction_of_2_pi_b() -> None:
    text = prose(PAGES["glossary"])
    pairs = re.findall(r"\$(0\.\d+) \\times 2\\pi b\$\D{0,20}?d\s*=\s*(\d+)", text)
    assert len(pairs) >= 2, (
        "the glossary's wavelength entry no longer states the ratios"
    )
    for value, dim in pairs:
        longest = pe.wavelengths(int(dim))[-1] / (2 * np.pi * 10_000.0)
        decimals = len(value.split(".")[1])
        assert round(longest, decimals) == float(value), (dim, value)
        assert longest == pytest.approx(10_000.0 ** (-2 / int(dim)), rel=1e-12)


def test_chapter_2_wavelength_ranges() -> None:
    found = stated(
        r"\$d = (\d+)\$\D{0,40}?wavelengths\D{0,20}?\$([\d.]+)\$\D{0,20}?\$(\d+)\$"
        r"\D{0,20}?\$d = (\d+)\$\D{0,30}?\$(\d+)\$",
        "chapter 2",
    )
    for dim, first, last in [
        (found[1], found[2], found[3]),
        (found[4], None, found[5]),
    ]:
        wavelength = pe.wavelengths(int(dim))
        if first is not None:
            assert round(wavelength[0], 2) == float(first) == round(2 * np.pi, 2)
        assert round(wavelength[-1]) == int(last), (dim, last)
        assert round(2 * np.pi * 10_000.0 ** ((int(dim) - 2) / int(dim))) == int(last)


def test_glossary_layouts_are_exact_permutations_of_one_another() -> None:
    count = stated(r"all (\w+) are exact permutations", "glossary")[1]
    assert NUMBER_WORDS[count] == len(pe.LAYOUTS)
    tables = {
        layout: pe.sinusoidal(np.arange(50), 16, layout=layout) for layout in pe.LAYOUTS
    }
    for a in pe.LAYOUTS:
        for b in pe.LAYOUTS:
            # every column of b is, bit for bit, exactly one column of a
            matches = [
                [np.array_equal(tables[b][:, j], tables[a][:, i]) for i in range(16)]
                for j in range(16)
            ]
            assert [sum(row) for row in matches] == [1] * 16, (a, b)
            assert sorted(row.index(True) for row in matches) == list(range(16))


def _min_gap(table: np.ndarray) -> float:
    """The smallest distance between two rows of ``table``."""
    norms = (table * table).sum(axis=1)
    squared = norms[:, None] + norms[None] - 2 * table @ table.T
    np.fill_diagonal(squared, np.inf)
    return float(np.sqrt(max(squared.min(), 0.0)))


def test_chapter_2_uniqueness_theorem_at_its_stated_bounds() -> None:
    found = stated(
        r"For any even \$d \\ge (\d+)\$ and any base \$b > (\d+)\$, distinct integers",
        "chapter 2",
    )
    d_min, b_min = int(found[1]), float(found[2])
    rng = np.random.default_rng(26)
    positions = np.arange(800)
    # 710 - 0 is the integer closest to a multiple of 2 pi below 800: a gap of about 6e-5
    for dim in (d_min, d_min + 2, 8):
        for base in [b_min + 0.01, b_min + 0.5, *(1 + 10 ** rng.uniform(0, 4, size=3))]:
            # the definition, for every base (the library takes b > 1 only)
            theta = base ** (-2.0 * np.arange(dim // 2) / dim)
            phases = positions[:, None] * theta
            assert _min_gap(np.hstack([np.sin(phases), np.cos(phases)])) > 1e-5
            if base <= 1:
                continue
            for layout in pe.LAYOUTS:
                for spacing in pe.SPACINGS:
                    table = pe.sinusoidal(
                        positions, dim, base=base, layout=layout, spacing=spacing
                    )
                    assert _min_gap(table) > 1e-5, (dim, base, layout, spacing)


def test_chapter_2_the_two_spacings_share_only_theta_0() -> None:
    d_min = int(stated(r"\*Proof\* \(for \$d \\ge (\d+)\$", "chapter 2")[1])
    stated(
        r"apart from \$\\theta_0 = 1\$, no frequency of one set occurs in the other",
        "chapter 2",
    )
    for dim in range(d_min, 514, 2):
        for base in (1.5, 10_000.0):
            ours = pe.frequencies(dim, base=base)
            theirs = pe.frequencies(dim, base=base, spacing="i/(d/2-1)")
            shared = np.isclose(ours[:, None], theirs[None], rtol=1e-9, atol=0)
            assert list(zip(*np.nonzero(shared), strict=True)) == [(0, 0)], (dim, base)


def test_appendix_counts_its_source_texts() -> None:
    cells = json.loads(PAGES["appendix"].read_text(encoding="utf-8"))["cells"]
    first = "".join(cells[1]["source"])
    count = re.search(r"\b(\w+) source texts", first)
    assert count, "the appendix's first cell no longer says how many source texts"
    assert NUMBER_WORDS[count[1]] == len(re.findall(r"^- ", first, flags=re.M))
