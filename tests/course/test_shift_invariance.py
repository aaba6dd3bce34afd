"""course.shift_invariance: relative forms, projections, rotary scores, Toeplitz/Hankel."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_lib as pe
from posenc_lib.course import shift_invariance as S
from posenc_lib.layouts import pair_columns


@pytest.mark.parametrize("layout", pe.LAYOUTS)
def test_relative_matrices_give_toeplitz_grids(rng, layout):
    h = S.random_relative_matrix(16, rng, layout=layout)
    assert S.shift_defect(h, 40, layout=layout) < 1e-12
    g = S.position_bilinear(h, 40, layout=layout)
    # closed form: sum_i a_i cos(D theta_i) - b_i sin(D theta_i), D = m - n
    sin_col, cos_col = pair_columns(16, layout=layout)
    a = h[sin_col, sin_col]
    b = h[cos_col, sin_col]
    theta = pe.frequencies(16)
    delta = np.subtract.outer(np.arange(40), np.arange(40))[..., None]
    expected = np.sum(a * np.cos(delta * theta) - b * np.sin(delta * theta), axis=-1)
    np.testing.assert_allclose(g, expected, atol=1e-12)


@pytest.mark.parametrize(
    "violation", ["unequal_diagonal", "symmetric_offdiagonal", "cross_block"]
)
def test_violations_break_the_shift(rng, violation):
    h = S.random_relative_matrix(8, rng)
    e = np.zeros((8, 8))
    if violation == "unequal_diagonal":
        e[2, 2] = 1.0  # h_ss != h_cc on pair 1
    elif violation == "symmetric_offdiagonal":
        e[2, 3] = e[3, 2] = 1.0  # the reflection part s_+ on pair 1
    else:
        e[0, 4] = 1.0  # block (0, 2)
    defects = [S.shift_defect(h + eps * e, 30) for eps in (1e-3, 1e-2, 1e-1)]
    assert defects[0] > 1e-6
    assert defects[1] / defects[0] == pytest.approx(
        10, rel=0.1
    )  # linear in the violation


def test_relative_projection_is_orthogonal_projection(rng):
    h = rng.standard_normal((12, 12))
    proj = S.relative_projection(h)
    np.testing.assert_allclose(S.relative_projection(proj), proj, atol=1e-15)
    # residual orthogonal to every relative matrix
    for _ in range(5):
        r = S.random_relative_matrix(12, rng)
        assert abs(np.sum((h - proj) * r)) < 1e-12
    assert S.shift_defect(proj, 20) < 1e-12


def test_identity_and_rotation_blocks_are_relative_diagonal_is_not():
    assert S.shift_defect(np.eye(8), 30) < 1e-13
    h = np.diag([1.0, 3.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    assert S.shift_defect(h, 30) > 0.1
    np.testing.assert_allclose(S.relative_projection(np.eye(8)), np.eye(8))


def test_toeplitz_defect_hand_values_and_complex_and_trailing_axes():
    toeplitz = np.array([[1.0, 2.0, 3.0], [4.0, 1.0, 2.0], [5.0, 4.0, 1.0]])
    assert S.toeplitz_defect(toeplitz) == 0.0
    bumped = toeplitz.copy()
    bumped[2, 2] = 3.0  # G[2,2] - G[1,1] = 2, max |G| = 5
    assert S.toeplitz_defect(bumped) == pytest.approx(2.0 / 5.0)
    z = np.exp(
        1j * (np.arange(4)[:, None] - np.arange(4)[None, :])
    )  # depends on m - n only
    assert S.toeplitz_defect(z) < 1e-15
    stacked = np.stack(
        [toeplitz, bumped], axis=-1
    )  # trailing axis: the worst slice counts
    assert S.toeplitz_defect(stacked) == pytest.approx(2.0 / 5.0)
    assert S.toeplitz_defect(np.zeros((3, 3))) == 0.0


def test_toeplitz_defect_matches_shift_defect(rng):
    h = rng.standard_normal((8, 8))
    table = pe.sinusoidal(20, 8)
    assert S.toeplitz_defect(table @ h @ table.T) == pytest.approx(
        S.shift_defect(h, 20), rel=1e-12
    )


@pytest.mark.parametrize(
    ("g", "error", "match"),
    [
        (np.zeros(3), ValueError, "two axes of length >= 2"),
        (np.zeros((1, 4)), ValueError, "two axes of length >= 2"),
    ],
)
def test_toeplitz_defect_bad_input(g, error, match):
    with pytest.raises(error, match=match):
        S.toeplitz_defect(g)


def test_rotary_scores_match_the_closed_form_and_the_torch_module(rng):
    q, k = rng.standard_normal(8), rng.standard_normal(8)
    m = np.arange(20)[:, None]
    n = np.arange(20)[None, :]
    scores = S.rotary_scores(q, k, m, n)
    # closed form: sum_i cos(D theta_i)(q0 k0 + q1 k1) + sin(D theta_i)(q0 k1 - q1 k0), D = m - n
    phase = (m - n)[..., None] * pe.frequencies(8)
    dot = q[0::2] * k[0::2] + q[1::2] * k[1::2]
    cross = q[0::2] * k[1::2] - q[1::2] * k[0::2]
    closed = np.sum(np.cos(phase) * dot + np.sin(phase) * cross, axis=-1)
    np.testing.assert_allclose(scores, closed, atol=1e-12)
    np.testing.assert_allclose(scores[5:, 5:], scores[:-5, :-5], atol=1e-12)
    assert (
        np.abs(np.sum(np.cos(phase) * dot, axis=-1) - scores).max() > 0.1
    )  # the sine matters
    torch = pytest.importorskip("torch")
    from posenc_lib.nn import RotaryEmbedding

    rope = RotaryEmbedding(8, dtype=torch.float64)
    rq = rope.rotate_one(torch.from_numpy(np.tile(q, (20, 1)))).numpy()
    rk = rope.rotate_one(torch.from_numpy(np.tile(k, (20, 1)))).numpy()
    np.testing.assert_allclose(rq @ rk.T, scores, atol=1e-12)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: S.relative_projection(np.ones((4, 6))), ValueError, r"^h\b"),
        (lambda: S.relative_projection(np.ones((3, 3))), ValueError, "with d even"),
        (
            lambda: S.relative_projection(np.eye(4), "concatenated"),
            TypeError,
            "positional",
        ),
        (lambda: S.random_relative_matrix(4, 0), TypeError, r"^rng\b"),
        (
            lambda: S.random_relative_matrix(5, np.random.default_rng(0)),
            ValueError,
            r"^dim\b",
        ),
        (lambda: S.shift_defect(np.eye(4), 1), ValueError, r"^length\b"),
        (lambda: S.position_bilinear(np.eye(4), 3, 100.0), TypeError, "positional"),
        (
            lambda: S.rotary_scores(np.ones(3), np.ones(3), 0, 0),
            ValueError,
            "of even length",
        ),
        (lambda: S.rotary_scores(np.ones(4), np.ones(6), 0, 0), ValueError, r"^k\b"),
        (
            lambda: S.rotary_scores(np.ones(4), np.ones(4), np.nan, 0),
            ValueError,
            r"^m\b",
        ),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_numeric_modules_import_without_sympy_or_torch():
    script = textwrap.dedent(
        """
        import sys
        for name in ("torch", "sympy", "mpmath"):
            sys.modules[name] = None  # any `import name` now raises ImportError
        import numpy as np
        from posenc_lib.course import dominance, pretrained, shift_invariance, spectrum
        h = shift_invariance.random_relative_matrix(8, np.random.default_rng(0))
        assert shift_invariance.shift_defect(h, 20) < 1e-12
        assert dominance.diagonal_dominance(h).relative_share > 0.99
        assert pretrained.load_minilm().dim == 384
        print("ok")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


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


@pytest.mark.parametrize(
    "shape", [(6, 6), (7, 4), (3, 9), (1, 5), (2, 7), (1, 1), (40, 33)]
)
def test_toeplitz_hankel_matches_dense_least_squares(shape):
    g = np.random.default_rng(8).standard_normal(shape)
    result = S.toeplitz_hankel(g)
    np.testing.assert_allclose(result.fitted, _dense_fit(g), atol=1e-10)
    np.testing.assert_allclose(
        result.toeplitz + result.hankel, result.fitted, atol=1e-12
    )
    # the residual is orthogonal to both subspaces: it sums to 0 on every (anti-)diagonal
    offsets = range(1 - shape[0], shape[1])
    for g_or_flipped in (result.residual, result.residual[:, ::-1]):
        sums = [np.trace(g_or_flipped, offset=o) for o in offsets]
        np.testing.assert_allclose(sums, 0, atol=1e-10)
    assert result.r2_joint + result.residual_share == pytest.approx(1.0)


def test_toeplitz_hankel_known_parts(rng):
    t = rng.standard_normal(2 * 20 - 1)
    h = rng.standard_normal(2 * 20 - 1)
    rows, cols = np.indices((20, 20))
    toeplitz = t[rows - cols + 19]
    hankel = h[rows + cols]
    result = S.toeplitz_hankel(toeplitz + hankel)
    assert result.residual_share < 1e-25
    # the recovered parts equal the true ones up to the shared (constant, checkerboard) directions
    diff = result.toeplitz - toeplitz
    assert np.allclose(diff[1:, 1:], diff[:-1, :-1])  # constant along diagonals
    assert np.allclose(diff[1:, :-1], diff[:-1, 1:])  # and along anti-diagonals
    pure = S.toeplitz_hankel(toeplitz)
    assert pure.r2_toeplitz == pytest.approx(1.0)
    noise = rng.standard_normal((20, 20))
    mixed = S.toeplitz_hankel(toeplitz + hankel + noise)
    np.testing.assert_allclose(mixed.fitted + mixed.residual, toeplitz + hankel + noise)
    assert 0 < mixed.residual_share < 1


def test_diagonal_h_decomposes_exactly_into_difference_and_sum_parts():
    # the known answer: (h_s + h_c)/2 cos((m-n)theta) + (h_c - h_s)/2 cos((m+n)theta) per pair
    rng = np.random.default_rng(10)
    diag = rng.uniform(0.5, 2, 8)
    g = S.position_bilinear(np.diag(diag), 30)
    m = np.arange(30)[:, None, None]
    n = np.arange(30)[None, :, None]
    theta = pe.frequencies(8)
    hs, hc = diag[0::2], diag[1::2]
    t_part = np.sum((hs + hc) / 2 * np.cos((m - n) * theta), axis=-1)
    h_part = np.sum((hc - hs) / 2 * np.cos((m + n) * theta), axis=-1)
    np.testing.assert_allclose(g, t_part + h_part, atol=1e-12)
    result = S.toeplitz_hankel(g)
    assert result.residual_share < 1e-25
    np.testing.assert_allclose(result.fitted, g, atol=1e-10)


def test_centered_shares():
    g = np.full((5, 5), 3.0) + np.random.default_rng(11).standard_normal((5, 5))
    plain = S.toeplitz_hankel(g)
    centered = S.toeplitz_hankel(g, centered=True)
    assert centered.r2_toeplitz < plain.r2_toeplitz
    assert centered.centered and not plain.centered


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 9), st.integers(2, 9), st.integers(0, 2**31 - 1))
def test_toeplitz_hankel_property(rows, cols, seed):
    g = np.random.default_rng(seed).standard_normal((rows, cols))
    result = S.toeplitz_hankel(g)
    assert -1e-12 <= result.residual_share <= 1 + 1e-12
    assert result.r2_joint >= max(result.r2_toeplitz, result.r2_hankel) - 1e-10


def test_toeplitz_hankel_errors():
    with pytest.raises(ValueError, match=r"^g\b"):
        S.toeplitz_hankel(np.ones(4))
    with pytest.raises(ValueError, match=r"^g\b"):
        S.toeplitz_hankel(np.ones((3, 3)), centered=True)
    with pytest.raises(ValueError, match=r"^g\b"):
        S.toeplitz_hankel(np.zeros((3, 3)))
