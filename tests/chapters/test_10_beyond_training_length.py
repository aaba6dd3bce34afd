"""Controls of chapter 10 (``notebooks/10_beyond_training_length.ipynb``): planted slips its
checks reject.

Each test runs the chapter in-process up to one check cell with a plausible slip planted
(``tests/chapters/runner.py``) and asserts that this check cell rejects it. The slips target the
checks before the retrained run, so each call takes a few seconds.
"""

from __future__ import annotations

import pytest

from tests.chapters.runner import expect_check_fails

CHAPTER = "10_beyond_training_length"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # NTK-aware base from interpolating pair d/2 (exponent 1) instead of the last pair
        ("last = d / 2 - 1", "last = d / 2"),
        # YaRN's blend with the kept and interpolated shares swapped
        (
            "blend = (1 - gamma) * theta_i / s + gamma * theta_i",
            "blend = gamma * theta_i / s + (1 - gamma) * theta_i",
        ),
        # Llama 3's ramp between 1 and 4 turns written over 1 to 3
        ("(turns - 1) / 3", "(turns - 1) / 2"),
    ],
    ids=["ntk-exponent", "yarn-blend-swapped", "llama3-ramp-width"],
)
def test_a_wrong_derived_map_is_rejected(old: str, new: str) -> None:
    expect_check_fails(CHAPTER, check="5 SymPy maps = rope_scaling", old=old, new=new)


def test_a_wrong_critical_pair_is_rejected() -> None:
    # wavelength = L solved with the frequency 2 pi / L mistaken for 1 / L
    expect_check_fails(
        CHAPTER,
        check="i_c: SymPy = typed form",
        old="wavelength_eq = sp.Eq(2 * sp.pi / theta_i, L)",
        new="wavelength_eq = sp.Eq(1 / theta_i, L)",
    )


def test_a_trained_range_without_the_full_turn_rule_is_rejected() -> None:
    # counting every pair as out of range, not only those that never completed a turn
    expect_check_fails(
        CHAPTER,
        check="NTK excess = s^(1-2i/(d-2))",
        old="out = (ratio > 1 + 1e-9) & (seen < 2 * math.pi)",
        new="out = ratio > 1 + 1e-9",
    )


def test_a_table_that_forgets_the_map_is_rejected() -> None:
    # the resolution table computed with the unscaled frequencies for every method
    expect_check_fails(
        CHAPTER,
        check="PI: κ' = κ(Δ/s)",
        old='new = theta if method == "none" else scaled(method, b_)',
        new="new = theta",
    )
