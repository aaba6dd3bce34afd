"""Controls of chapter 2's check cells: a planted slip in the chapter's code must be rejected."""

from __future__ import annotations

import pytest

from tests.book.chapters.runner import expect_check_fails

SLIPS = {
    # R(+k theta) in place of R(-k theta) on (sin, cos) pairs: the slip the chapter warns of
    "transposed block": (
        "SymPy: block residuals zero",
        "return sp.Matrix([[c, s], [-s, c]])",
        "return sp.Matrix([[c, -s], [s, c]])",
    ),
    # "cos only" built from the whole table: the check that each half alone fails must fail
    "sines left in": (
        "halves alone",
        '"cos only": full[:, 1::2]',
        '"cos only": full',
    ),
}


@pytest.mark.parametrize("slip", SLIPS)
def test_a_planted_slip_is_caught(slip: str) -> None:
    check, old, new = SLIPS[slip]
    expect_check_fails("02_sinusoidal_encoding", check=check, old=old, new=new)
