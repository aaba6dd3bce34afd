"""Controls of chapter 7 (``notebooks/07_hessian.ipynb``): planted slips its checks reject.

Each test runs the chapter in-process up to one check cell with a plausible slip planted
(``tests/book/chapters/runner.py``) and asserts that this check cell rejects it.
"""

from __future__ import annotations

from tests.book.chapters.runner import expect_check_fails

CHAPTER = "07_hessian"


def test_sine_term_of_the_wrong_sign_is_rejected() -> None:
    # (ch7-relative) is a cos - b sin; a + b sin is the classic sign slip
    expect_check_fails(
        CHAPTER,
        check="(ch7-relative), sign included",
        old="rhs = np.sum(a_i * np.cos(lag) - b_i * np.sin(lag), axis=-1)",
        new="rhs = np.sum(a_i * np.cos(lag) + b_i * np.sin(lag), axis=-1)",
    )


def test_projection_with_b_of_the_wrong_sign_is_rejected() -> None:
    # aI - bJ in place of aI + bJ is still relative and idempotent: only the
    # orthogonality of the residual can catch it
    expect_check_fails(
        CHAPTER,
        check="relative_projection: relative, idempotent",
        old="proj = si.relative_projection(h_gen)\n",
        new=(
            "proj = si.relative_projection(h_gen)\n"
            "proj = proj - sum(np.sum(proj * e) * e for e in spanning[1::2])\n"
        ),
    )
