"""Controls of chapter 9 (notebooks/09_experiments.ipynb): planted slips its checks reject.

The comparison of retrained runs with their stored records carries its own control in the
chapter (each rerun must differ from another seed's record); the slips here target the checks
that run before any training, so each call takes a few seconds.
"""

from __future__ import annotations

from tests.book.chapters.runner import expect_check_fails


def test_a_wrong_rotation_direction_is_caught() -> None:
    expect_check_fails(
        "09_experiments",
        check="rotary applies R_m",
        old="R[a, a], R[a, c] = np.cos(angle), -np.sin(angle)",
        new="R[a, a], R[a, c] = np.cos(angle), np.sin(angle)",
    )


def test_a_wrong_multinomial_scale_is_caught() -> None:
    expect_check_fails(
        "09_experiments",
        check="the exact E[max count]",
        old="log_scale = lgamma(t + 1) - t * np.log(vocab)",
        new="log_scale = lgamma(t) - t * np.log(vocab)",
    )
