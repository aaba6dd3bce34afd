"""posenc_lib.high_precision: mpmath reference values and the sampled error of a table."""

from __future__ import annotations

import math

import numpy as np
import pytest

import posenc_lib as pe
from posenc_lib.high_precision import reference_entries, sampled_error

pytest.importorskip("mpmath")


def test_reference_entries_known_values():
    # dim = 4, base = 10000: theta_1 = 10000**(-1/2) = 0.01 exactly, so m = 100 gives angle 1.
    s, c = reference_entries(np.array([0.0, 100.0, 1.0]), np.array([1, 1, 0]), 4)
    np.testing.assert_allclose(
        s, [0.0, math.sin(1.0), math.sin(1.0)], rtol=0, atol=2e-16
    )
    np.testing.assert_allclose(
        c, [1.0, math.cos(1.0), math.cos(1.0)], rtol=0, atol=2e-16
    )
    # tensor2tensor spacing with dim = 6: theta_2 = 10000**(-2/2) = 1e-4; m = 2e4 gives angle 2.
    s2, c2 = reference_entries(2e4, 2, 6, spacing="i/(d/2-1)")
    assert abs(float(s2) - math.sin(2.0)) < 2e-16
    assert abs(float(c2) - math.cos(2.0)) < 2e-16


def test_reference_entries_at_large_positions_match_libm():
    # dim = 4: theta_1 = 10000**(-1/2) = 0.01 exactly, so m = 10**6 and 10**7 give the exactly
    # representable angles 10**4 and 10**5, whose float64 sin/cos from libm are within 1 ulp.
    s, c = reference_entries(np.array([1e6, 1e7]), np.array([1, 1]), 4)
    for got_s, got_c, angle in zip(s, c, (1e4, 1e5), strict=True):
        assert abs(got_s - math.sin(angle)) <= 2.3e-16
        assert abs(got_c - math.cos(angle)) <= 2.3e-16


def test_sampled_error_finds_a_planted_error():
    table = pe.sinusoidal(50, 8)
    table[17, 5] += 3e-9  # row 17, column 5: the cosine of pair 2 (interleaved)
    assert sampled_error(table, 50, [17, 3], [2, 0]) == pytest.approx(3e-9, rel=1e-3)
    assert sampled_error(table, 50, [17, 3], [1, 0]) < 1e-15  # not sampled: not seen
    halves = pe.convert_layout(table, "interleaved", "concatenated")
    assert sampled_error(halves, 50, [17], [2], layout="concatenated") == pytest.approx(
        3e-9, rel=1e-3
    )


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: reference_entries([1.0], [2], 4), ValueError, r"^pairs\b"),
        (lambda: reference_entries([1.0], [0.5], 4), TypeError, r"^pairs\b"),
        (lambda: reference_entries([1.0], [0], 4, dps=5), ValueError, r"^dps\b"),
        (lambda: reference_entries([np.nan], [0], 4), ValueError, "positions must be"),
        (lambda: reference_entries([1.0], [0], 4, 500.0), TypeError, "positional"),
        (
            lambda: sampled_error(pe.sinusoidal(4, 4), 4, [0, 1], [0]),
            ValueError,
            r"^rows and pairs\b",
        ),
        (
            lambda: sampled_error(pe.sinusoidal(4, 4)[0], 4, [0], [0]),
            ValueError,
            r"^table\b",
        ),
        (
            lambda: sampled_error(pe.sinusoidal(4, 4), 5, [0], [0]),
            ValueError,
            "one position per",
        ),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()
