"""posenc_lib.bilinear: the least-squares Toeplitz + Hankel split of a matrix."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_lib as pe
from posenc_lib import bilinear as bl
from posenc_lib import shift_invariance

# --------------------------------------------------------------------------------------------
# Toeplitz + Hankel
# --------------------------------------------------------------------------------------------


def _dense_fit(g):
    rows, cols = np.indices(g.shape)
    size = sum(g.shape) - 1
    x = np.zeros((g.size, 2 * size))
    x[np.arange(g.size), (rows - cols + g.shape[1] - 1).ravel()] = 1
    x[np.arange(g.size), size + (rows + cols).ravel()] = 1
    beta, *_ = np.linalg.lstsq(x, g.ravel(), rcond=None)
    return (x @ beta).reshape(g.shape)


@pytest.mark.parametrize("shape", [(6, 6), (7, 4), (3, 9), (1, 5), (2, 7), (1, 1), (40, 33)])
def test_toeplitz_hankel_matches_dense_least_squares(shape):
    g = np.random.default_rng(8).standard_normal(shape)
    result = bl.toeplitz_hankel(g)
    np.testing.assert_allclose(result.fitted, _dense_fit(g), atol=1e-10)
    np.testing.assert_allclose(result.toeplitz + result.hankel, result.fitted, atol=1e-12)
    # the residual is orthogonal to both subspaces
    np.testing.assert_allclose(bl.toeplitz_projection(result.residual), 0, atol=1e-10)
    np.testing.assert_allclose(bl.hankel_projection(result.residual), 0, atol=1e-10)
    assert result.r2_joint + result.residual_share == pytest.approx(1.0)


def test_toeplitz_hankel_known_parts():
    rng = np.random.default_rng(9)
    t = rng.standard_normal(2 * 20 - 1)
    h = rng.standard_normal(2 * 20 - 1)
    rows, cols = np.indices((20, 20))
    toeplitz = t[rows - cols + 19]
    hankel = h[rows + cols]
    result = bl.toeplitz_hankel(toeplitz + hankel)
    assert result.residual_share < 1e-25
    # the recovered parts equal the true ones up to the shared (constant, checkerboard) directions
    diff = result.toeplitz - toeplitz
    assert np.allclose(bl.toeplitz_projection(diff), diff) and np.allclose(
        bl.hankel_projection(diff), diff
    )
    pure = bl.toeplitz_hankel(toeplitz)
    assert pure.r2_toeplitz == pytest.approx(1.0)
    noise = rng.standard_normal((20, 20))
    mixed = bl.toeplitz_hankel(toeplitz + hankel + noise)
    np.testing.assert_allclose(mixed.fitted + mixed.residual, toeplitz + hankel + noise)
    assert 0 < mixed.residual_share < 1


def test_diagonal_h_decomposes_exactly_into_difference_and_sum_parts():
    # the known answer: (h_s + h_c)/2 cos((m-n)theta) + (h_c - h_s)/2 cos((m+n)theta) per pair
    rng = np.random.default_rng(10)
    diag = rng.uniform(0.5, 2, 8)
    g = shift_invariance.position_bilinear(np.diag(diag), 30)
    m = np.arange(30)[:, None, None]
    n = np.arange(30)[None, :, None]
    theta = pe.frequencies(8)
    hs, hc = diag[0::2], diag[1::2]
    t_part = np.sum((hs + hc) / 2 * np.cos((m - n) * theta), axis=-1)
    h_part = np.sum((hc - hs) / 2 * np.cos((m + n) * theta), axis=-1)
    np.testing.assert_allclose(g, t_part + h_part, atol=1e-12)
    result = bl.toeplitz_hankel(g)
    assert result.residual_share < 1e-25
    np.testing.assert_allclose(result.fitted, g, atol=1e-10)


def test_centered_shares():
    g = np.full((5, 5), 3.0) + np.random.default_rng(11).standard_normal((5, 5))
    plain = bl.toeplitz_hankel(g)
    centered = bl.toeplitz_hankel(g, centered=True)
    assert centered.r2_toeplitz < plain.r2_toeplitz
    assert centered.centered and not plain.centered


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 9), st.integers(2, 9), st.integers(0, 2**31 - 1))
def test_toeplitz_hankel_property(rows, cols, seed):
    g = np.random.default_rng(seed).standard_normal((rows, cols))
    result = bl.toeplitz_hankel(g)
    assert -1e-12 <= result.residual_share <= 1 + 1e-12
    assert result.r2_joint >= max(result.r2_toeplitz, result.r2_hankel) - 1e-10


def test_errors():
    with pytest.raises(ValueError, match="g must be a 2-D array"):
        bl.toeplitz_hankel(np.ones(4))
    with pytest.raises(TypeError, match="centered"):
        bl.toeplitz_hankel(np.ones((2, 2)), centered=1)
    with pytest.raises(ValueError, match="g is zero"):
        bl.toeplitz_hankel(np.ones((3, 3)), centered=True)
