"""Controls of chapter 8 (``notebooks/08_rotary.ipynb``): planted slips its checks reject.

Each test runs the chapter in-process up to one check cell with a plausible slip planted
(``tests/book/chapters/runner.py``) and asserts that this check cell rejects it.
"""

from __future__ import annotations

import pytest

from tests.book.chapters.runner import expect_check_fails

CHAPTER = "08_rotary"


def test_long_run_mean_square_without_its_half_is_rejected() -> None:
    expect_check_fails(
        CHAPTER,
        check="theorem (a), d = 64",
        old="limit_ms = np.sum(amp**2) / 2",
        new="limit_ms = np.sum(amp**2)",
    )


def test_abel_identity_with_shifted_partial_sums_is_rejected() -> None:
    # S_j in place of S_{j+1}: an off-by-one in the summation by parts
    expect_check_fails(
        CHAPTER,
        check="(ch7-abel): identity",
        old="abel = np.real(-s_parts @ steps)",
        new="abel = np.real(-np.hstack([np.zeros((sample.size, 1)), s_parts[:, :-1]]) @ steps)",
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # a wrong constant: the 0-based sum 0 + 1 + ... + (d/2 - 1) gives d/4 - 1/2 = 15.5
        (
            "sp.summation(j_sym, (j_sym, 1, half))",
            "sp.summation(j_sym, (j_sym, 0, half - 1))",
        ),
        # a wrong normalization of the computed quantity: 1/d in place of 1/(d/2)
        ("theta64)).mean(axis=1)", "theta64)).sum(axis=1) / d_r"),
    ],
    ids=["closed-form-index-range", "level-normalization"],
)
def test_value_at_zero_offset_catches_a_wrong_constant(old: str, new: str) -> None:
    # the value at Delta = 0 is compared three ways (float64 scan, 30-digit definition,
    # SymPy's closed form): a slip in either the constant or the scan is rejected
    expect_check_fails(CHAPTER, check="level at Δ = 0", old=old, new=new)


def test_phase_relation_with_the_wrong_partner_is_rejected() -> None:
    # theta_7 is not theta_0 / 10: the time average is then near 0, not 1
    expect_check_fails(
        CHAPTER,
        check="θ_{j+8}/θ_j = 1/10",
        old="10 * deltas_b * theta64[8]",
        new="10 * deltas_b * theta64[7]",
    )
