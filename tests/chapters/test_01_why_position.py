"""Controls of chapter 1's check cells: a planted slip in the chapter's code must be rejected."""

from __future__ import annotations

from tests.chapters.runner import expect_check_fails


def test_a_perturbed_permuted_input_is_caught_by_the_equivariance_check() -> None:
    expect_check_fails(
        "01_why_position",
        check="MultiheadAttention, random P",
        old="self_attend(attn, X[:, perm])\n",
        new="self_attend(attn, X[:, perm] + 1e-6)\n",
    )


def test_a_wrong_denominator_in_the_causal_count_is_caught() -> None:
    expect_check_fails(
        "01_why_position",
        check="the causal outputs equal",
        old="(v_bos + m * v_tok) / (m + 1)",
        new="(v_bos + m * v_tok) / (m + 2)",
    )


def test_a_dropped_half_angle_in_the_neighbour_distance_is_caught() -> None:
    # the closed form is compared with 2 - 2 cos(theta_i) and with measured steps
    expect_check_fails(
        "01_why_position",
        check="measured steps at m < 10⁴",
        old="np.sin(theta / 2) ** 2",
        new="np.sin(theta) ** 2",
    )
