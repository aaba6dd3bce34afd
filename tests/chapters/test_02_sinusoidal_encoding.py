"""Controls of chapter 2's check cells: a planted slip in the chapter's code must be rejected."""

from __future__ import annotations

from tests.chapters.runner import expect_check_fails

CHAPTER = "02_sinusoidal_encoding"


def test_a_transposed_shift_block_is_caught_by_the_symbolic_check() -> None:
    # R(+k theta) in place of R(-k theta) on (sin, cos) pairs: the slip the chapter warns of
    expect_check_fails(
        CHAPTER,
        check="SymPy: block residuals zero",
        old="return sp.Matrix([[c, s], [-s, c]])",
        new="return sp.Matrix([[c, -s], [s, c]])",
    )


def test_the_cosine_half_with_the_sines_left_in_is_caught() -> None:
    # "cos only" built from the whole table: the check that each half alone fails must fail
    expect_check_fails(
        CHAPTER,
        check="halves alone",
        old='"cos only": full[:, 1::2]',
        new='"cos only": full',
    )
