"""posenc_lib.shift_invariance: relative forms against closed forms, projections, rotary scores."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import posenc_lib as pe
from posenc_lib import shift_invariance as S
from posenc_lib.layouts import pair_columns


@pytest.mark.parametrize("layout", pe.LAYOUTS)
def test_relative_matrices_give_toeplitz_grids(layout):
    rng = np.random.default_rng(3)
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


@pytest.mark.parametrize("violation", ["unequal_diagonal", "symmetric_offdiagonal", "cross_block"])
def test_violations_break_the_shift(violation):
    rng = np.random.default_rng(4)
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
    assert defects[1] / defects[0] == pytest.approx(10, rel=0.1)  # linear in the violation


def test_relative_projection_is_orthogonal_projection():
    rng = np.random.default_rng(5)
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
    z = np.exp(1j * (np.arange(4)[:, None] - np.arange(4)[None, :]))  # depends on m - n only
    assert S.toeplitz_defect(z) < 1e-15
    stacked = np.stack([toeplitz, bumped], axis=-1)  # trailing axis: the worst slice counts
    assert S.toeplitz_defect(stacked) == pytest.approx(2.0 / 5.0)
    assert S.toeplitz_defect(np.zeros((3, 3))) == 0.0


def test_toeplitz_defect_matches_shift_defect():
    rng = np.random.default_rng(3)
    h = rng.standard_normal((8, 8))
    table = pe.sinusoidal(20, 8)
    assert S.toeplitz_defect(table @ h @ table.T) == pytest.approx(S.shift_defect(h, 20), rel=1e-12)


@pytest.mark.parametrize(
    ("g", "error", "match"),
    [
        (np.zeros(3), ValueError, "two axes of length >= 2"),
        (np.zeros((1, 4)), ValueError, "two axes of length >= 2"),
        (np.array([["a", "b"], ["c", "d"]]), TypeError, "g must be a finite real or complex"),
        (np.array([[1.0, np.nan], [0.0, 1.0]]), ValueError, "g must be a finite"),
    ],
)
def test_toeplitz_defect_bad_input(g, error, match):
    with pytest.raises(error, match=match):
        S.toeplitz_defect(g)


def test_rotary_scores_match_the_closed_form_and_the_torch_module():
    rng = np.random.default_rng(12)
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
    assert np.abs(np.sum(np.cos(phase) * dot, axis=-1) - scores).max() > 0.1  # the sine matters
    torch = pytest.importorskip("torch")
    from posenc_lib.nn import RotaryEmbedding

    rope = RotaryEmbedding(8, dtype=torch.float64)
    rq = rope.rotate_one(torch.from_numpy(np.tile(q, (20, 1)))).numpy()
    rk = rope.rotate_one(torch.from_numpy(np.tile(k, (20, 1)))).numpy()
    np.testing.assert_allclose(rq @ rk.T, scores, atol=1e-12)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: S.relative_projection(np.ones((4, 6))), ValueError, "h must be a d x d array"),
        (lambda: S.relative_projection(np.ones((3, 3))), ValueError, "with d even"),
        (lambda: S.relative_projection(np.eye(4), "concatenated"), TypeError, "positional"),
        (lambda: S.random_relative_matrix(4, 0), TypeError, "rng must be a numpy.random.Generator"),
        (lambda: S.random_relative_matrix(5, np.random.default_rng(0)), ValueError, "dim must be"),
        (lambda: S.shift_defect(np.eye(4), 1), ValueError, "length must be an integer >= 2, got 1"),
        (lambda: S.position_bilinear(np.eye(4), 3, 100.0), TypeError, "positional"),
        (lambda: S.rotary_scores(np.ones(3), np.ones(3), 0, 0), ValueError, "of even length"),
        (
            lambda: S.rotary_scores(np.ones(4), np.ones(6), 0, 0),
            ValueError,
            "k must have the length",
        ),
        (
            lambda: S.rotary_scores(np.ones(4), np.ones(4), np.nan, 0),
            ValueError,
            "m must be finite",
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
        from posenc_lib import dominance, pretrained, shift_invariance, spectrum
        h = shift_invariance.random_relative_matrix(8, np.random.default_rng(0))
        assert shift_invariance.shift_defect(h, 20) < 1e-12
        assert dominance.diagonal_dominance(h).relative_share > 0.99
        assert pretrained.load_minilm().dim == 384
        print("ok")
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
