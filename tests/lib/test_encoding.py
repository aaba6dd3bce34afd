"""posenc_lib.encoding against values derived independently of the library."""

import math

import numpy as np
import pytest

import posenc_lib as pe


def paper_formula(m: float, dim: int, base: float = 10000.0) -> np.ndarray:
    """The paper's definition written out one scalar at a time with the math module."""
    row = []
    for i in range(dim // 2):
        theta = base ** (-2 * i / dim)
        row += [math.sin(m * theta), math.cos(m * theta)]
    return np.array(row)


def test_frequencies_match_definition():
    theta = pe.frequencies(8, base=10000.0)
    np.testing.assert_allclose(theta, [1.0, 0.1, 0.01, 0.001], rtol=1e-15)


def test_tensor2tensor_spacing_reaches_one_over_base():
    theta = pe.frequencies(8, base=10000.0, spacing="i/(d/2-1)")
    np.testing.assert_allclose(
        theta, [1.0, 10 ** (-4 / 3), 10 ** (-8 / 3), 1e-4], rtol=1e-14
    )
    assert pe.frequencies(2, spacing="i/(d/2-1)").tolist() == [1.0]


def test_wavelengths_run_from_two_pi_to_just_under_two_pi_base():
    lam = pe.wavelengths(512)
    assert lam[0] == pytest.approx(2 * math.pi)
    assert lam[-1] == pytest.approx(2 * math.pi * 10000 ** (510 / 512))
    assert lam[-1] < 2 * math.pi * 10000
    assert np.all(np.diff(lam) > 0)


@pytest.mark.parametrize("dim", [2, 8, 64])
def test_table_matches_paper_formula(dim):
    positions = [0, 1, 7, 100, 2.5, 12345.75]
    table = pe.sinusoidal(positions, dim)
    expected = np.stack([paper_formula(m, dim) for m in positions])
    np.testing.assert_allclose(table, expected, atol=1e-12)


def test_length_means_positions_zero_to_l_minus_one():
    np.testing.assert_array_equal(pe.sinusoidal(5, 16), pe.sinusoidal(np.arange(5), 16))
    assert pe.sinusoidal(0, 16).shape == (0, 16)
    assert pe.sinusoidal(np.int64(3), 4).shape == (3, 4)


def test_position_zero_is_alternating_zeros_and_ones():
    np.testing.assert_array_equal(pe.sinusoidal(1, 6)[0], [0, 1, 0, 1, 0, 1])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_dtype_is_respected_and_angles_are_float64(dtype):
    table = pe.sinusoidal([10**6], 8, dtype=dtype)
    assert table.dtype == dtype
    exact = paper_formula(10**6, 8)  # float64 angle: sin(1e6) to ~1e-10
    tolerance = {np.float16: 1e-3, np.float32: 1e-7, np.float64: 1e-9}[dtype]
    np.testing.assert_allclose(table[0].astype(np.float64), exact, atol=tolerance)


def test_rotation_matrix():
    np.testing.assert_allclose(pe.rotation(math.pi / 2), [[0, -1], [1, 0]], atol=1e-16)
    batch = pe.rotation(np.zeros((3, 4)))
    assert batch.shape == (3, 4, 2, 2)
    np.testing.assert_array_equal(batch[1, 2], np.eye(2))


@pytest.mark.parametrize("layout", pe.LAYOUTS)
def test_shift_matrix_moves_positions(layout):
    k = 17
    table = pe.sinusoidal(50, 16, layout=layout)
    shifted = pe.sinusoidal(np.arange(50) + k, 16, layout=layout)
    np.testing.assert_allclose(
        table @ pe.shift_matrix(k, 16, layout=layout).T, shifted, atol=1e-12
    )


def test_shift_matrix_interleaved_block_is_rotation_by_minus_k_theta():
    k = 3.0
    block = pe.shift_matrix(k, 4)[:2, :2]
    np.testing.assert_allclose(block, pe.rotation(-k * 1.0), atol=1e-15)
    assert pe.shift_matrix(k, 4)[0, 2] == 0.0


def test_shift_matrix_is_orthogonal_and_composes():
    a, b = pe.shift_matrix(5, 8), pe.shift_matrix(-2, 8)
    np.testing.assert_allclose(a @ a.T, np.eye(8), atol=1e-15)
    np.testing.assert_allclose(a @ b, pe.shift_matrix(3, 8), atol=1e-14)


def test_angles_are_positions_times_frequencies():
    np.testing.assert_allclose(
        pe.angles([0.0, 2.0, 3.5], 4, base=100.0),
        [[0.0, 0.0], [2.0, 0.2], [3.5, 0.35]],
        rtol=1e-15,
    )
    assert pe.angles(3, 8).shape == (3, 4)


def test_optional_arguments_are_keyword_only():
    for call in (
        lambda: pe.sinusoidal(4, 8, 100.0),
        lambda: pe.frequencies(8, 100.0),
        lambda: pe.wavelengths(8, 100.0),
        lambda: pe.angles(4, 8, 100.0),
        lambda: pe.shift_matrix(1, 8, 100.0),
    ):
        with pytest.raises(TypeError, match="positional"):
            call()
