"""posenc_lib.course.naive: known values worked out by hand, identities, and every input error."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posenc_lib import sinusoidal
from posenc_lib.course.naive import (
    affine_shift_residual,
    binary_code,
    integer_positions,
    scaled_positions,
)

# --- integer_positions -----------------------------------------------------------------------


def test_integer_positions_known_values():
    np.testing.assert_array_equal(integer_positions(3), [[0.0], [1.0], [2.0]])
    np.testing.assert_array_equal(
        integer_positions([7, 2], dim=3), [[7, 7, 7], [2, 2, 2]]
    )
    assert integer_positions(4, dim=5).dtype == np.float64
    assert integer_positions(0, dim=2).shape == (0, 2)


def test_integer_positions_norm_is_m_sqrt_d():
    # ||(m, ..., m)|| = m sqrt(d): for d = 64, sqrt(d) = 8.
    norms = np.linalg.norm(integer_positions([10, 100, 1000], dim=64), axis=1)
    np.testing.assert_allclose(norms, [80.0, 800.0, 8000.0], rtol=1e-15)


def test_integer_positions_accepts_integral_floats_and_big_ints():
    np.testing.assert_array_equal(
        integer_positions(np.array([3.0, 0.0])), [[3.0], [0.0]]
    )
    big = 2**60
    assert integer_positions(np.array([big], dtype=np.int64))[0, 0] == float(big)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"positions": 3, "dim": 0}, ValueError, "dim"),
        ({"positions": 3, "dim": 2.0}, TypeError, "dim"),
        ({"positions": 3, "dim": True}, TypeError, "dim"),
        ({"positions": -1}, ValueError, "positions"),
        ({"positions": [1, -2]}, ValueError, "whole numbers >= 0, got the position -2"),
        (
            {"positions": [0.5, 1.0]},
            ValueError,
            "whole numbers >= 0, got the position 0.5",
        ),
        ({"positions": [0.0, np.nan]}, ValueError, "finite"),
        ({"positions": [[0, 1]]}, ValueError, "1-D"),
        ({"positions": ["a"]}, TypeError, "positions"),
        ({"positions": 2.5}, TypeError, "positions must be an int length .*, got 2.5"),
        (
            {"positions": None},
            TypeError,
            "positions must be an int length .*, got None",
        ),
        ({"positions": np.array([2.0**60])}, ValueError, "integer array"),
    ],
)
def test_integer_positions_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        integer_positions(**kwargs)


# --- scaled_positions ------------------------------------------------------------------------


def test_scaled_positions_known_values():
    # Four tokens: 0, 1/3, 2/3, 1 (the 0.69 of one source text is a slip for 0.67).
    np.testing.assert_allclose(
        scaled_positions(4)[:, 0], [0.0, 1 / 3, 2 / 3, 1.0], rtol=1e-15
    )
    np.testing.assert_allclose(scaled_positions(3, dim=2), [[0, 0], [0.5, 0.5], [1, 1]])
    np.testing.assert_array_equal(scaled_positions(1), [[0.0]])


@given(st.integers(min_value=2, max_value=5000))
def test_scaled_positions_span_and_step(length):
    code = scaled_positions(length)[:, 0]
    assert code[0] == 0.0
    assert code[-1] == 1.0
    np.testing.assert_allclose(np.diff(code), 1.0 / (length - 1), rtol=1e-12)


@given(
    st.integers(min_value=6, max_value=2000), st.integers(min_value=6, max_value=2000)
)
def test_scaled_code_of_position_5_depends_on_length(a, b):
    same = scaled_positions(a)[5, 0] == scaled_positions(b)[5, 0]
    assert same == (a == b)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"length": 0}, ValueError, "length"),
        ({"length": 3.0}, TypeError, "length"),
        ({"length": np.array([3])}, TypeError, "length"),
        ({"length": 3, "dim": 0}, ValueError, "dim"),
        ({"length": 3, "dim": "2"}, TypeError, "dim"),
    ],
)
def test_scaled_positions_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        scaled_positions(**kwargs)


# --- binary_code -----------------------------------------------------------------------------


def test_binary_code_known_values_least_significant_bit_first():
    # 5 = 1*1 + 0*2 + 1*4 + 0*8; 8 = 0001 (LSB first); 6 = 0110.
    np.testing.assert_array_equal(binary_code([5], 4), [[1, 0, 1, 0]])
    np.testing.assert_array_equal(binary_code([8, 6], 4), [[0, 0, 0, 1], [0, 1, 1, 0]])
    np.testing.assert_array_equal(
        binary_code(4, 2), [[0, 0], [1, 0], [0, 1], [1, 1]]
    )  # int L: positions 0..L-1


def test_binary_code_7_to_8_flips_four_bits_8_to_9_one():
    code = binary_code(10, 4)
    assert np.sum(code[7] != code[8]) == 4
    assert np.sum(code[8] != code[9]) == 1


def test_binary_code_wide_and_high_bits():
    m = 2**62 + 5
    row = binary_code(np.array([m], dtype=np.int64), 64)[0]
    assert row[0] == 1 and row[2] == 1 and row[62] == 1
    assert row.sum() == 3 and row[63] == 0
    assert binary_code([1], 100)[0].sum() == 1


@given(
    st.integers(min_value=0, max_value=2**40), st.integers(min_value=41, max_value=70)
)
def test_binary_code_reconstructs_the_number(m, n_bits):
    bits = binary_code(np.array([m], dtype=np.int64), n_bits)[0]
    assert sum(int(b) << j for j, b in enumerate(bits)) == m


@given(st.integers(min_value=0, max_value=2**30 - 2))
def test_binary_neighbour_hamming_is_one_plus_trailing_ones(m):
    # Adding 1 clears the trailing ones of m and sets the next bit: 1 + (trailing ones) flips.
    trailing_ones = (m ^ (m + 1)).bit_length() - 1
    bits = binary_code(np.array([m, m + 1], dtype=np.int64), 31)
    assert np.sum(bits[0] != bits[1]) == 1 + trailing_ones
    assert math.isclose(np.sum((bits[1] - bits[0]) ** 2), 1 + trailing_ones)


def test_binary_neighbour_distance_histogram():
    # Over m = 0 .. 2^n - 2, the step m -> m+1 flips k bits exactly 2^(n-k) times, k = 1..n.
    n = 8
    hamming = np.rint(
        np.sum(np.diff(binary_code(2**n, n), axis=0) ** 2, axis=1)
    ).astype(int)
    counts = np.bincount(hamming, minlength=n + 1)
    assert counts[0] == 0
    np.testing.assert_array_equal(counts[1:], [2 ** (n - k) for k in range(1, n + 1)])


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"positions": 3, "n_bits": 0}, ValueError, "n_bits"),
        ({"positions": 3, "n_bits": 2.0}, TypeError, "n_bits"),
        ({"positions": [16], "n_bits": 4}, ValueError, "2\\*\\*n_bits"),
        ({"positions": 17, "n_bits": 4}, ValueError, "2\\*\\*n_bits"),
        ({"positions": [-1], "n_bits": 4}, ValueError, ">= 0"),
        ({"positions": [1.5], "n_bits": 4}, ValueError, "whole numbers"),
        ({"positions": [np.inf], "n_bits": 4}, ValueError, "finite"),
        ({"positions": [True, False], "n_bits": 4}, TypeError, "positions"),
    ],
)
def test_binary_code_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        binary_code(**kwargs)


# --- affine_shift_residual -------------------------------------------------------------------


def test_affine_shift_residual_by_hand():
    # One column 0, 0, 1: the pairs (0 -> 0) and (0 -> 1) share the input 0, so the best fit
    # sends 0 to 0.5 and both residuals are 0.5 in size: RMS 0.5.
    assert affine_shift_residual([[0.0], [0.0], [1.0]]) == pytest.approx(0.5, abs=1e-12)
    # 0, 1, 0, 1, 0 is followed exactly by x -> 1 - x.
    assert affine_shift_residual([[0.0], [1.0], [0.0], [1.0], [0.0]]) < 1e-12
    # 0, 0, 1, 1, 2, 2: no affine map for k = 1, the exact map x -> x + 1 for k = 2.
    doubled = np.repeat(np.arange(3.0), 2)[:, None]
    assert affine_shift_residual(doubled, delta=1) > 0.1
    assert affine_shift_residual(doubled, delta=2) < 1e-12


def test_affine_shift_residual_of_the_codes():
    assert affine_shift_residual(integer_positions(50, dim=3)) < 1e-9
    assert affine_shift_residual(scaled_positions(50, dim=3), delta=4) < 1e-9
    assert affine_shift_residual(sinusoidal(300, 16), delta=7) < 1e-9
    assert affine_shift_residual(binary_code(64, 6)) > 0.1


def test_affine_shift_residual_recovers_an_exact_affine_recurrence(rng):
    rotation, _ = np.linalg.qr(
        rng.standard_normal((5, 5))
    )  # orthogonal: the rows stay bounded
    offset = rng.standard_normal(5)
    rows = [rng.standard_normal(5)]
    for _ in range(40):
        rows.append(rotation @ rows[-1] + offset)
    table = np.array(rows)
    assert affine_shift_residual(table) < 1e-9
    noisy = table + 0.01 * rng.standard_normal(table.shape)
    assert affine_shift_residual(noisy) > 1e-4


@given(
    st.lists(
        st.floats(-100, 100, allow_nan=False, allow_infinity=False),
        min_size=4,
        max_size=40,
    ).filter(lambda xs: np.ptp(xs[:-1]) > 0.1)
)
def test_affine_shift_residual_one_column_matches_polyfit(values):
    # One column: the fit is the regression line of x_{m+1} on x_m, which numpy.polyfit finds
    # by a different route.
    x = np.asarray(values)
    slope, intercept = np.polyfit(x[:-1], x[1:], 1)
    expected = math.sqrt(np.mean((slope * x[:-1] + intercept - x[1:]) ** 2))
    assert affine_shift_residual(x[:, None]) == pytest.approx(
        expected, rel=1e-6, abs=1e-8
    )


@pytest.mark.parametrize(
    ("table", "delta", "error", "match"),
    [
        (np.zeros(3), 1, ValueError, "table must be a 2-D array"),
        (np.zeros((3, 2)), 0, ValueError, "delta must be an integer >= 1, got 0"),
        (np.zeros((3, 2)), 2.0, TypeError, "delta must be an integer >= 1, got 2.0"),
        (np.zeros((3, 2)), 3, ValueError, "more than delta = 3 rows"),
        (np.array([[1.0, np.inf], [0.0, 0.0]]), 1, ValueError, "finite"),
        (np.array([["a"], ["b"]]), 1, TypeError, "table"),
        (np.ones((3, 2), dtype=bool), 1, TypeError, "table"),
    ],
)
def test_affine_shift_residual_errors(table, delta, error, match):
    with pytest.raises(error, match=match):
        affine_shift_residual(table, delta=delta)


def test_naive_needs_only_numpy():
    import subprocess
    import sys

    code = (
        "import sys; import posenc_lib.course.naive; "
        "assert 'torch' not in sys.modules and 'sympy' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
