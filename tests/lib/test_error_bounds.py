"""posenc_lib.error_bounds: the proved bounds hold against mpmath, and their values are right."""

from __future__ import annotations

import math

import numpy as np
import pytest

import posenc_lib as pe
from posenc_lib.error_bounds import FLOAT32_COMBINE_BOUND, error_bound, float64_bound
from posenc_lib.high_precision import sampled_error

RNG_SEED = 20260


def _sample(
    count: int, dim: int, n: int, seed: int = RNG_SEED
) -> tuple[np.ndarray, np.ndarray]:
    """Random (row, pair) entries, always including the first and last rows and pairs."""
    rng = np.random.default_rng(seed)
    rows = np.concatenate([[0, count - 1, count - 1, 0], rng.integers(0, count, n)])
    pairs = np.concatenate(
        [[0, 0, dim // 2 - 1, dim // 2 - 1], rng.integers(0, dim // 2, n)]
    )
    return rows, pairs


@pytest.mark.parametrize(("dtype", "target"), [(np.float32, 2e-7), (np.float64, 1e-9)])
@pytest.mark.parametrize(
    ("start", "step", "count", "dim"),
    [
        (0, 1, 6000, 128),  # the first positions
        (10**6 - 5000, 1, 5001, 64),  # consecutive positions ending at 10**6
        (0, 499, 2005, 256),  # positions spread over 0 .. ~10**6
        (10**6, -333, 3001, 32),  # a descending progression
    ],
)
def test_fast_table_meets_accuracy_targets(dtype, target, start, step, count, dim):
    positions = start + step * np.arange(count)
    table = pe.sinusoidal(positions, dim, dtype=dtype, method="angle_addition")
    assert np.max(np.abs(positions)) <= 10**6
    rows, pairs = _sample(count, dim, 300)
    error = sampled_error(table, positions, rows, pairs)
    # start and step of opposite signs: the angle pieces have opposite signs, and the
    # bound's M is |s| + |t| (L - 1) (the error_bound docstring), not max |m|
    opposite = start * step < 0
    reach = (
        abs(start) + abs(step) * (count - 1) if opposite else np.max(np.abs(positions))
    )
    bound = error_bound(reach, dtype=dtype)
    assert error <= bound and error <= target, (error, bound, target)
    if not opposite:
        assert bound <= target, (bound, target)


@pytest.mark.parametrize("layout", pe.LAYOUTS)
@pytest.mark.parametrize("spacing", pe.SPACINGS)
def test_public_sinusoidal_fast_path_accuracy(layout, spacing):
    count, dim = 40000, 32  # above FAST_MIN_ENTRIES: the angle-addition path
    assert count * dim >= pe.encoding.FAST_MIN_ENTRIES
    table = pe.sinusoidal(count, dim, layout=layout, dtype=np.float32, spacing=spacing)
    rows, pairs = _sample(count, dim, 150, seed=7)
    error = sampled_error(table, count, rows, pairs, layout=layout, spacing=spacing)
    assert error <= error_bound(count - 1, dtype=np.float32) <= 2e-7


@pytest.mark.parametrize(("dtype", "target"), [(np.float32, 2e-7), (np.float64, 1e-9)])
def test_public_sinusoidal_meets_accuracy_targets_up_to_a_million(dtype, target):
    # Both methods behind pe.sinusoidal, at positions reaching 10**6: an integer progression
    # (angle addition) and fractional positions (direct float64 sin/cos, then rounded to dtype).
    dim = 64
    progression = np.arange(10**6 - 4999, 10**6 + 1)
    fractional = np.linspace(0.0, 10**6, 5001) + 0.25
    fractional[-1] = 10**6
    for positions in (progression, fractional):
        table = pe.sinusoidal(positions, dim, dtype=dtype)
        rows, pairs = _sample(positions.size, dim, 300, seed=11)
        error = sampled_error(table, positions, rows, pairs)
        assert error <= error_bound(10**6, dtype=dtype) <= target, (error, target)


def test_float64_floor_grows_with_position_but_stays_within_bound():
    # At m ~ 1e7 the float64 angle floor (~ m * eps) dominates; the bound must still hold.
    positions = 10**7 - 2000 + np.arange(2001)
    dim = 16
    rows, pairs = _sample(positions.size, dim, 200, seed=3)
    bound = error_bound(10**7)
    for method in ("angle_addition", "direct"):
        table = pe.sinusoidal(positions, dim, method=method)
        assert sampled_error(table, positions, rows, pairs) <= bound
    assert 1e-9 < bound < 1e-8  # the floor at 1e7 exceeds the 1e-9 target met up to 1e6


def test_error_bound_values():
    eps = 2.0**-52
    assert float64_bound(0) == 16 * eps
    assert float64_bound(-10) == float64_bound(10)
    assert error_bound(10**6) == pytest.approx(2.5 * eps * 1e6 + 16 * eps)
    assert FLOAT32_COMBINE_BOUND == pytest.approx((3 + 2 * math.sqrt(2)) / 2**25)
    assert error_bound(10**6, dtype=np.float32) == pytest.approx(
        FLOAT32_COMBINE_BOUND + 3 * float64_bound(10**6)
    )
    assert error_bound(0, dtype=np.float16) == pytest.approx(
        FLOAT32_COMBINE_BOUND + 48 * eps + 2.0**-12
    )
    assert error_bound(5, dtype=np.longdouble) == float64_bound(5)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: error_bound(1, dtype=np.int8), TypeError, r"^dtype\b"),
        (lambda: float64_bound(float("inf")), ValueError, r"^max_position\b"),
        (lambda: float64_bound([1.0, 2.0]), TypeError, r"^max_position\b"),
        (lambda: error_bound("10"), TypeError, "max_position must be a finite real"),
        (lambda: error_bound(10, np.float32), TypeError, "positional"),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_float64_bound_covers_the_full_propagation():
    """Chapter 11's E = (1+a_c)(1+a_q)(1+a_r)(1+sqrt2 g)(1+g) - 1, worst split, c_a=2.5, c_s=3."""
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workdps(50):
        eps = mpmath.mpf(2) ** -52
        gamma = eps / (1 - eps)
        for reach in (0, 1, 10**3, 10**7, 10**12, 2**40, 2**52):
            a = mpmath.mpf(5) / 2 * eps * reach / 3 + mpmath.sqrt(2) * 3 * eps
            full = (1 + a) ** 3 * (1 + mpmath.sqrt(2) * gamma) * (1 + gamma) - 1
            assert full <= float64_bound(reach), reach
            linear = mpmath.mpf(5) / 2 * eps * reach + 16 * eps
            assert (full > linear) == (reach >= 10**12)  # the quadratic term is needed


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_bounds_refuse_positions_beyond_float64_exactness(dtype) -> None:
    """|M| <= 2**52 is accepted (finite bound); beyond, a ValueError, never inf."""
    assert math.isfinite(error_bound(-(2**52), dtype=dtype))
    for reach in (2**52 + 2, 1e308):
        with pytest.raises(ValueError, match=r"^max_position\b"):
            error_bound(reach, dtype=dtype)
