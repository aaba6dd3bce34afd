"""posenc_lib.bilinear: symbolic derivations, the Toeplitz/Hankel split, the rotary formula."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_lib as pe
from posenc_lib import bilinear as bl
from posenc_lib import shift_invariance

sp = pytest.importorskip("sympy")


# --------------------------------------------------------------------------------------------
# symbolic
# --------------------------------------------------------------------------------------------


def test_block_cross_term_matches_hand_product_to_sum():
    # Hand derivation: sin a sin b = [cos(a-b) - cos(a+b)]/2, cos a cos b = [cos(a-b) + cos(a+b)]/2,
    # sin a cos b = [sin(a+b) + sin(a-b)]/2, cos a sin b = [sin(a+b) - sin(a-b)]/2.
    result = bl.block_cross_term()
    h00, h01, h10, h11 = sp.symbols("h_00 h_01 h_10 h_11", real=True)
    expected = {
        "c_minus": (h00 + h11) / 2,
        "s_minus": (h01 - h10) / 2,
        "c_plus": (h11 - h00) / 2,
        "s_plus": (h01 + h10) / 2,
    }
    got = dict(zip(expected, (*result.difference, *result.sum), strict=True))
    for key, value in expected.items():
        assert sp.simplify(got[key] - value) == 0, key
    assert result.residual == 0
    assert result.relative_condition == {h00: h11, h01: -h10}


def test_block_cross_term_numeric_identity():
    result = bl.block_cross_term()
    rng = np.random.default_rng(1)
    for _ in range(5):
        values = dict(
            zip(sorted(result.block.free_symbols, key=str), rng.standard_normal(4), strict=True)
        )
        alpha, beta = rng.uniform(-5, 5, 2)
        at = {**values, result.alpha: alpha, result.beta: beta}
        lhs = float(result.expr.subs(at))
        rhs = float((result.difference_part + result.sum_part).subs(at))
        b = np.array([[values[s] for s in sorted(values, key=str)]]).reshape(2, 2)
        direct = (
            np.array([np.sin(alpha), np.cos(alpha)]) @ b @ np.array([np.sin(beta), np.cos(beta)])
        )
        assert lhs == pytest.approx(direct, abs=1e-12)
        assert rhs == pytest.approx(direct, abs=1e-12)


def test_block_cross_term_rejects_bad_block():
    with pytest.raises(TypeError, match="block"):
        bl.block_cross_term(np.eye(2))
    with pytest.raises(TypeError, match="block"):
        bl.block_cross_term(sp.eye(3))


def test_diagonal_cross_term():
    result = bl.diagonal_cross_term()
    assert result.residual == 0
    m, n, t = result.m, result.n, result.theta
    hs, hc = result.h_sin, result.h_cos
    assert sp.simplify(result.relative_part - (hs + hc) / 2 * sp.cos((m - n) * t)) == 0
    assert sp.simplify(result.absolute_part - (hc - hs) / 2 * sp.cos((m + n) * t)) == 0
    assert result.vanishing_condition == {hc: hs}


def test_block_commutation_determinant_and_kernel():
    result = bl.block_commutation()
    # M(theta) maps (sin phi, cos phi) to (sin(phi+theta), cos(phi+theta)).
    theta = sp.Symbol("theta", real=True)
    assert sp.simplify(
        result.shift - sp.Matrix([[sp.cos(theta), sp.sin(theta)], [-sp.sin(theta), sp.cos(theta)]])
    ) == sp.zeros(2, 2)
    a, b = result.theta_a, result.theta_b
    expected = 16 * sp.sin((a - b) / 2) ** 2 * sp.sin((a + b) / 2) ** 2
    rng = np.random.default_rng(2)
    for ta, tb in rng.uniform(-4, 4, (5, 2)):
        assert float(result.determinant.subs({a: ta, b: tb})) == pytest.approx(
            float(expected.subs({a: ta, b: tb})), rel=1e-10
        )
    kernel = {tuple(k) for k in result.kernel_equal}
    j = sp.Matrix([[0, -1], [1, 0]])
    assert len(kernel) == 2
    # the kernel spans {I, J}: every basis vector is a combination of them and they are independent
    basis = sp.Matrix([list(sp.eye(2)), list(j)])
    for vector in result.kernel_equal:
        stacked = basis.col_join(sp.Matrix([list(vector)]))
        assert stacked.rank() == 2


def test_block_commutation_at_equal_angles_holds_for_every_theta():
    # The generic null space is not enough: check the two facts that hold for every theta.
    result = bl.block_commutation()
    theta = result.theta_a
    assert result.kills_rotations
    assert sp.simplify(result.minor_equal - sp.sin(theta) ** 2) == 0
    # the minor is read off operator_equal, which is operator at theta_b = theta_a
    assert sp.simplify(result.operator_equal - result.operator.subs(result.theta_b, theta)) == (
        sp.zeros(4, 4)
    )
    # at theta = pi (sin theta = 0) the map vanishes: every block commutes with M(pi) = -I
    assert sp.simplify(result.operator_equal.subs(theta, sp.pi)) == sp.zeros(4, 4)
    # and numerically, for a theta with sin theta != 0, the rank is exactly 2
    at = np.array(result.operator_equal.subs(theta, 0.7).evalf(), dtype=float)
    assert np.linalg.matrix_rank(at) == 2


def test_rotary_derivation():
    r = bl.rotary_derivation()
    q0, q1 = r.q
    k0, k1 = r.k
    assert r.residual_rotation == 0
    assert r.residual == 0
    assert r.complex_residual == 0
    assert sp.simplify(r.cos_coefficient - (q0 * k0 + q1 * k1)) == 0
    assert sp.simplify(r.sin_coefficient - (q0 * k1 - q1 * k0)) == 0
    # the form without sine term is wrong by exactly the sine term
    delta = (r.m - r.n) * r.theta
    assert sp.simplify(r.seed_error - (q0 * k1 - q1 * k0) * sp.sin(delta)) == 0
    # without the conjugate the product depends on m + n
    simplified = sp.simplify(r.no_conjugate)
    assert (
        sp.simplify(
            simplified - (q0 + sp.I * q1) * (k0 + sp.I * k1) * sp.exp(sp.I * (r.m + r.n) * r.theta)
        )
        == 0
    )


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


def test_rotary_score_formula_matches_rotating():
    rng = np.random.default_rng(12)
    q, k = rng.standard_normal(8), rng.standard_normal(8)
    m, n = np.arange(20)[:, None], np.arange(20)[None, :]
    np.testing.assert_allclose(
        bl.rotary_score_formula(q, k, m - n), shift_invariance.rotary_scores(q, k, m, n), atol=1e-12
    )


def test_errors():
    with pytest.raises(ValueError, match="g must be a 2-D array"):
        bl.toeplitz_hankel(np.ones(4))
    with pytest.raises(TypeError, match="centered"):
        bl.toeplitz_hankel(np.ones((2, 2)), centered=1)
    with pytest.raises(ValueError, match="g is zero"):
        bl.toeplitz_hankel(np.ones((3, 3)), centered=True)
    with pytest.raises(ValueError, match="same length"):
        bl.rotary_score_formula(np.ones(4), np.ones(6), 0)
    with pytest.raises(ValueError, match="delta must be finite"):
        bl.rotary_score_formula(np.ones(4), np.ones(4), np.inf)
    with pytest.raises(ValueError, match="base"):
        bl.rotary_score_formula(np.ones(4), np.ones(4), 1, base=0.5)
