"""The numbers the notation page states about the two exponent spacings and the longest
wavelength, recomputed with the library (issue 13).

The page once said the spacings "differ by less than one part in d/2 in the exponent" (the
maximum is exactly 2/d, so "less than" is false) and that the longest wavelength is "just
under 2 pi b" (it is 0.1 x 2 pi b at d = 8). The numbers are read from the page and recomputed;
the gap's bound is checked at several d, and its wording ("at most exactly") on the page.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

import posenc_lib as pe

NOTATION = Path(__file__).resolve().parents[2] / "book" / "notation.md"
BASE = 10_000.0


def exponents(dim: int, spacing: str) -> np.ndarray:
    """e_i with theta_i = b^(-e_i), read back from the library's frequencies."""
    return -np.log(pe.frequencies(dim, base=BASE, spacing=spacing)) / math.log(BASE)


@pytest.mark.parametrize("dim", [4, 8, 64, 512, 4096])
def test_the_spacings_exponents_differ_by_at_most_exactly_2_over_d(dim: int) -> None:
    gap = np.abs(exponents(dim, "2i/d") - exponents(dim, "i/(d/2-1)"))
    i = np.arange(dim // 2)
    # independent route: the closed form 4i/(d(d-2)) of the difference
    assert np.allclose(gap, 4 * i / (dim * (dim - 2)), rtol=0, atol=1e-13)
    assert math.isclose(gap.max(), 2 / dim, rel_tol=1e-12)
    assert int(np.argmax(gap)) == dim // 2 - 1  # at the last pair
    # the old wording, "less than one part in d/2" (< 2/d), fails: the maximum is 2/d itself
    assert not gap.max() < 2 / dim - 1e-12


def test_longest_wavelength_as_a_fraction_of_2_pi_b() -> None:
    text = " ".join(NOTATION.read_text(encoding="utf-8").split())
    factors = re.findall(r"\$(0\.\d+)\$ for \$d = (\d+)\$", text)
    assert len(factors) >= 3, "the notation page no longer states the factors b^(-2/d)"
    for factor, dim in factors:
        longest = pe.wavelengths(int(dim), base=BASE)[-1]
        ratio = longest / (2 * math.pi * BASE)
        assert math.isclose(ratio, BASE ** (-2 / int(dim)), rel_tol=1e-12)
        assert round(ratio, len(factor.split(".")[1])) == float(factor), (dim, factor)
        # tensor2tensor's spacing reaches 2 pi b exactly
        t2t = pe.wavelengths(int(dim), base=BASE, spacing="i/(d/2-1)")[-1]
        assert math.isclose(t2t, 2 * math.pi * BASE, rel_tol=1e-12)


def test_the_notation_page_states_the_largest_exponent_gap() -> None:
    # the bound checked at several d by the test above
    text = " ".join(NOTATION.read_text(encoding="utf-8").split())
    assert re.search(r"at most exactly \$2/d\$", text)


def test_every_call_in_the_notation_table_runs() -> None:
    # base is keyword-only in the library: the page once showed frequencies(dim, base)
    text = NOTATION.read_text(encoding="utf-8")
    calls = re.findall(r"`([a-z_]+\([^`]*\)(?:\[m\])?)`", text)
    assert len(calls) == 6
    names = {"m": 3, "n": 1, "dim": 8, "base": BASE, "delta": 2, "k": 2, "phi": 0.5}
    names["positions"] = np.arange(5)
    for call in calls:
        eval(call, {"__builtins__": {}}, {**names, **vars(pe)})


def test_the_layout_table_lists_every_layout_of_the_library() -> None:
    text = NOTATION.read_text(encoding="utf-8")
    rows = re.findall(r'^\| `"([a-z_]+)"` \|', text, flags=re.M)
    assert tuple(rows) == pe.LAYOUTS
