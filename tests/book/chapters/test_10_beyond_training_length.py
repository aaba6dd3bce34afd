"""Controls of chapter 10 (``notebooks/10_beyond_training_length.ipynb``): planted slips its
checks reject.

Each test runs the chapter in-process up to one check cell with a plausible slip planted
(``tests/book/chapters/runner.py``) and asserts that this check cell rejects it. The slips
target the checks before the retrained run, so each call takes a few seconds.
"""

from __future__ import annotations

import pytest

from tests.book.chapters.runner import expect_check_fails

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


def test_a_critical_pair_helper_without_its_factor_two_is_rejected() -> None:
    # the figures' critical_pair with d ln(L/2pi)/ln b, i.e. the factor 2 of d/2 dropped
    expect_check_fails(
        CHAPTER,
        check="i_c: SymPy = typed form = wavelengths = critical_pair",
        old="return d * math.log(L / (2 * math.pi)) / (2 * math.log(b))",
        new="return d * math.log(L / (2 * math.pi)) / math.log(b)",
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # the onset computed from the second gap instead of the first (fastest) one
        ("2 * math.pi / (new[0] - new[1])", "2 * math.pi / (new[1] - new[2])"),
        # the resolution column taken at offset 0.9 instead of 1
        (
            "drop = 1 - float(kernel_from_frequencies(1.0, new))",
            "drop = 1 - float(kernel_from_frequencies(0.9, new))",
        ),
        # the check's NTK base typed with exponent 1 (ln(bs)) instead of d/(d-2)
        (
            '"ntk": B * s_ ** (mpmath.mpf(D) / (D - 2))',
            '"ntk": B * s_',
        ),
    ],
    ids=["onset-second-gap", "drop-at-0.9", "ntk-exponent-one"],
)
def test_a_wrong_resolution_or_onset_column_is_rejected(old: str, new: str) -> None:
    expect_check_fails(
        CHAPTER, check="1 − κ(1), Δ* of every map = 30-digit mpmath", old=old, new=new
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # the population std (ddof = 0) instead of the sample std over three seeds
        (
            "out[method, when, length] = (v.mean(), v.std(ddof=1))",
            "out[method, when, length] = (v.mean(), v.std(ddof=0))",
        ),
        # the length columns printed in reverse order
        ('for n in ("32", "64", "128")', 'for n in ("128", "64", "32")'),
        # the as-is and fine-tuned halves swapped
        (
            'for w in ("as_is", "finetuned")\n            for n',
            'for w in ("finetuned", "as_is")\n            for n',
        ),
    ],
    ids=["std-ddof0", "lengths-reversed", "halves-swapped"],
)
def test_a_wrong_experiment_table_is_rejected(old: str, new: str) -> None:
    expect_check_fails(
        CHAPTER, check="table = statistics.mean/stdev of the JSON", old=old, new=new
    )


def test_a_wrong_small_scale_map_is_rejected() -> None:
    # the small model's maps computed with 2L as the original length: Llama 3 keeps pair 0
    expect_check_fails(
        CHAPTER,
        check="small model: i_c; YaRN keeps pair 0",
        old="factor=s_, train_length=L_SMALL)",
        new="factor=s_, train_length=2 * L_SMALL)",
    )
