"""Bad input gets a clear error that names the argument and what is accepted."""

import numpy as np
import pytest

import posenc_lib as pe


@pytest.mark.parametrize(
    ("dim", "error", "match"),
    [
        (7, ValueError, "dim must be a positive even integer, got 7"),
        (0, ValueError, "dim must be a positive even integer, got 0"),
        (-4, ValueError, "dim must be a positive even integer"),
        (8.0, TypeError, "dim must be a positive even integer, got float"),
        (True, TypeError, "dim must be a positive even integer"),
        ("8", TypeError, "dim must be"),
    ],
)
def test_bad_dim(dim, error, match):
    with pytest.raises(error, match=match):
        pe.sinusoidal(4, dim)
    with pytest.raises(error, match=match):
        pe.frequencies(dim)


@pytest.mark.parametrize(
    ("base", "error", "match"),
    [
        (1.0, ValueError, "base must be a finite real number > 1, got 1.0"),
        (0.5, ValueError, "base must be"),
        (-10, ValueError, "base must be"),
        (float("inf"), ValueError, "base must be"),
        (float("nan"), ValueError, "base must be"),
        ("10000", TypeError, "base must be a real number > 1"),
    ],
)
def test_bad_base(base, error, match):
    with pytest.raises(error, match=match):
        pe.sinusoidal(4, 8, base=base)
    with pytest.raises(error, match=match):
        pe.kernel(1.0, 8, base=base)


@pytest.mark.parametrize(
    ("positions", "error", "match"),
    [
        (-1, ValueError, "a length must be an integer >= 0, got -1"),
        (3.5, TypeError, "a length must be an integer"),
        (True, TypeError, "got bool"),
        ([0.0, np.nan], ValueError, "positions must be finite"),
        ([0.0, np.inf], ValueError, "positions must be finite"),
        (np.zeros((2, 2)), ValueError, "positions must be 1-D"),
        (["a", "b"], TypeError, "positions must hold real numbers"),
        ([1 + 2j], TypeError, "positions must hold real numbers"),
    ],
)
def test_bad_positions(positions, error, match):
    with pytest.raises(error, match=match):
        pe.sinusoidal(positions, 8)


def test_unknown_layout_and_spacing():
    with pytest.raises(ValueError, match="layout must be one of 'interleaved'"):
        pe.sinusoidal(4, 8, layout="sin_cos")
    with pytest.raises(ValueError, match="spacing must be one of"):
        pe.frequencies(8, spacing="i/d")
    with pytest.raises(ValueError, match="target must be one of"):
        pe.convert_layout(np.zeros((2, 8)), "interleaved", "halves")


def test_non_float_dtype():
    with pytest.raises(TypeError, match="dtype must be a numpy floating dtype"):
        pe.sinusoidal(4, 8, dtype=np.int32)
    with pytest.raises(TypeError, match="dtype must be a numpy floating dtype"):
        pe.sinusoidal(4, 8, dtype="not a dtype")


def test_table_over_memory_limit_is_refused_before_allocation():
    with pytest.raises(ValueError, match="over the limit max_bytes"):
        pe.sinusoidal(10**9, 1024)  # 8 TB in float64: refused, never allocated
    with pytest.raises(ValueError, match="over the limit max_bytes = 1 MiB"):
        pe.sinusoidal(1024, 256, max_bytes=2**20)
    assert pe.sinusoidal(512, 256, max_bytes=2**20).shape == (512, 256)


def test_bad_kernel_and_shift_arguments():
    with pytest.raises(ValueError, match="delta must be finite"):
        pe.kernel([1.0, np.nan], 8)
    with pytest.raises(TypeError, match="delta must hold real numbers"):
        pe.kernel("far", 8)
    with pytest.raises(TypeError, match="k must be a real scalar"):
        pe.shift_matrix([1, 2], 8)
    with pytest.raises(ValueError, match="phi must be finite"):
        pe.rotation(np.inf)
