"""Tests of posenc_lib.bilinear: relative forms, dominance metrics, Toeplitz/Hankel, rotary."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_lib as pe
from posenc_lib import bilinear as bl

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
# relative matrices
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", pe.LAYOUTS)
def test_relative_matrices_give_toeplitz_grids(layout):
    rng = np.random.default_rng(3)
    h = bl.random_relative_matrix(16, rng, layout)
    assert bl.shift_defect(h, 40, layout=layout) < 1e-12
    g = bl.position_bilinear(h, 40, layout=layout)
    # closed form: sum_i a_i cos(D theta_i) - b_i sin(D theta_i), D = m - n
    sin_col, cos_col = bl.pair_columns(16, layout)
    a = h[sin_col, sin_col]
    b = h[cos_col, sin_col]
    theta = pe.frequencies(16)
    delta = np.subtract.outer(np.arange(40), np.arange(40))[..., None]
    expected = np.sum(a * np.cos(delta * theta) - b * np.sin(delta * theta), axis=-1)
    np.testing.assert_allclose(g, expected, atol=1e-12)


@pytest.mark.parametrize("violation", ["unequal_diagonal", "symmetric_offdiagonal", "cross_block"])
def test_violations_break_the_shift(violation):
    rng = np.random.default_rng(4)
    h = bl.random_relative_matrix(8, rng)
    e = np.zeros((8, 8))
    if violation == "unequal_diagonal":
        e[2, 2] = 1.0  # h_ss != h_cc on pair 1
    elif violation == "symmetric_offdiagonal":
        e[2, 3] = e[3, 2] = 1.0  # the reflection part s_+ on pair 1
    else:
        e[0, 4] = 1.0  # block (0, 2)
    defects = [bl.shift_defect(h + eps * e, 30) for eps in (1e-3, 1e-2, 1e-1)]
    assert defects[0] > 1e-6
    assert defects[1] / defects[0] == pytest.approx(10, rel=0.1)  # linear in the violation


def test_relative_projection_is_orthogonal_projection():
    rng = np.random.default_rng(5)
    h = rng.standard_normal((12, 12))
    proj = bl.relative_projection(h)
    np.testing.assert_allclose(bl.relative_projection(proj), proj, atol=1e-15)
    # residual orthogonal to every relative matrix
    for _ in range(5):
        r = bl.random_relative_matrix(12, rng)
        assert abs(np.sum((h - proj) * r)) < 1e-12
    assert bl.shift_defect(proj, 20) < 1e-12


def test_identity_and_rotation_blocks_are_relative_diagonal_is_not():
    assert bl.shift_defect(np.eye(8), 30) < 1e-13
    h = np.diag([1.0, 3.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    assert bl.shift_defect(h, 30) > 0.1
    np.testing.assert_allclose(bl.relative_projection(np.eye(8)), np.eye(8))


def test_pair_columns():
    s, c = bl.pair_columns(6)
    np.testing.assert_array_equal(s, [0, 2, 4])
    np.testing.assert_array_equal(c, [1, 3, 5])
    s, c = bl.pair_columns(6, "concatenated")
    np.testing.assert_array_equal(s, [0, 1, 2])
    np.testing.assert_array_equal(c, [3, 4, 5])
    table = pe.sinusoidal(5, 6, layout="interleaved_cos_first")
    s, c = bl.pair_columns(6, "interleaved_cos_first")
    np.testing.assert_allclose(table[:, s], np.sin(np.outer(np.arange(5), pe.frequencies(6))))
    np.testing.assert_allclose(table[:, c], np.cos(np.outer(np.arange(5), pe.frequencies(6))))


# --------------------------------------------------------------------------------------------
# diagonal dominance
# --------------------------------------------------------------------------------------------


def test_diagonal_dominance_known_values():
    h = np.diag([1.0, 2.0, 3.0, 4.0])
    h[0, 1] = 1.0  # inside block 0
    h[0, 3] = 2.0  # outside the blocks
    result = bl.diagonal_dominance(h)
    total = 1 + 4 + 9 + 16 + 1 + 4
    assert result.diagonal_share == pytest.approx(30 / total)
    assert result.block_share == pytest.approx(31 / total)
    # relative part: block 0 = [[1,1],[0,2]] -> a = 1.5, b = (0 - 1)/2;
    # block 1 = [[3,0],[0,4]] -> a = 3.5
    assert result.relative_share == pytest.approx((2 * 1.5**2 + 2 * 0.25 + 2 * 3.5**2) / total)
    # rows: |1| > 1 + 2? no; |2| > 0 yes; |3| yes; |4| yes
    assert result.dominant_rows == pytest.approx(0.75)


def test_diagonal_dominance_iid_baseline():
    rng = np.random.default_rng(6)
    shares = np.array(
        [
            list(vars(bl.diagonal_dominance(rng.standard_normal((32, 32)))).values())[:3]
            for _ in range(200)
        ]
    )
    base = bl.diagonal_dominance(np.eye(32)).iid_baseline()
    np.testing.assert_allclose(
        shares.mean(axis=0),
        [base["diagonal_share"], base["block_share"], base["relative_share"]],
        rtol=0.08,
    )


def test_expected_rotated_share_matches_monte_carlo():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((200, 10)) * np.linspace(0.2, 3, 10)
    c = np.cov(x, rowvar=False)
    mc = bl.rotated_diagonal_shares(c, 3000, rng)
    assert mc.mean() == pytest.approx(bl.expected_rotated_diagonal_share(c), rel=0.02)
    a = rng.standard_normal((10, 10))  # non-symmetric too
    mc = bl.rotated_diagonal_shares(a, 3000, rng)
    assert mc.mean() == pytest.approx(bl.expected_rotated_diagonal_share(a), rel=0.03)
    # identity: every rotation keeps it diagonal
    assert bl.expected_rotated_diagonal_share(np.eye(5)) == pytest.approx(1.0)
    # rank one, C = v v^T: (q.v)^4 has mean 3/(d(d+2)) for a uniform unit q, so 3/(d+2)
    v = rng.standard_normal(10)
    assert bl.expected_rotated_diagonal_share(np.outer(v, v)) == pytest.approx(3 / 12)


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
    g = bl.position_bilinear(np.diag(diag), 30)
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


# --------------------------------------------------------------------------------------------
# rotary, numeric
# --------------------------------------------------------------------------------------------


def test_rotary_scores_match_formula_and_module():
    torch = pytest.importorskip("torch")
    from posenc_lib.nn import RotaryEmbedding

    rng = np.random.default_rng(12)
    q, k = rng.standard_normal(8), rng.standard_normal(8)
    m = np.arange(20)[:, None]
    n = np.arange(20)[None, :]
    scores = bl.rotary_scores(q, k, m, n)
    np.testing.assert_allclose(scores, bl.rotary_score_formula(q, k, m - n), atol=1e-12)
    np.testing.assert_allclose(scores[5:, 5:], scores[:-5, :-5], atol=1e-12)
    rope = RotaryEmbedding(8, dtype=torch.float64)
    rq = rope.rotate_one(torch.from_numpy(np.tile(q, (20, 1)))).numpy()
    rk = rope.rotate_one(torch.from_numpy(np.tile(k, (20, 1)))).numpy()
    np.testing.assert_allclose(rq @ rk.T, scores, atol=1e-12)
    # dropping the sine term is wrong
    theta = pe.frequencies(8)
    no_sine = np.sum(
        np.cos(np.subtract.outer(np.arange(20), np.arange(20))[..., None] * theta)
        * (q[0::2] * k[0::2] + q[1::2] * k[1::2]),
        axis=-1,
    )
    assert np.abs(no_sine - scores).max() > 0.1


# --------------------------------------------------------------------------------------------
# argument errors
# --------------------------------------------------------------------------------------------


def test_errors():
    with pytest.raises(ValueError, match="h must be square"):
        bl.relative_projection(np.ones((4, 6)))
    with pytest.raises(ValueError, match="d even"):
        bl.relative_projection(np.ones((3, 3)))
    with pytest.raises(TypeError, match="h must hold real numbers"):
        bl.diagonal_dominance(np.array([["a", "b"], ["c", "d"]]))
    with pytest.raises(ValueError, match="h must be finite"):
        bl.diagonal_dominance(np.full((2, 2), np.nan))
    with pytest.raises(ValueError, match="zero matrix"):
        bl.diagonal_dominance(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="g must be a non-empty 2-D"):
        bl.toeplitz_hankel(np.ones(4))
    with pytest.raises(TypeError, match="centered"):
        bl.toeplitz_hankel(np.ones((2, 2)), centered=1)
    with pytest.raises(ValueError, match="g is zero"):
        bl.toeplitz_hankel(np.ones((3, 3)), centered=True)
    with pytest.raises(TypeError, match="rng"):
        bl.random_relative_matrix(4, 0)
    with pytest.raises(ValueError, match="dim"):
        bl.random_relative_matrix(5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="layout"):
        bl.pair_columns(4, "sideways")
    with pytest.raises(ValueError, match="length"):
        bl.shift_defect(np.eye(4), 1)
    with pytest.raises(TypeError, match="samples"):
        bl.rotated_diagonal_shares(np.eye(3), 2.5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="c must be square"):
        bl.expected_rotated_diagonal_share(np.ones((2, 3)))
    with pytest.raises(ValueError, match="q must be a 1-D array of even length"):
        bl.rotary_scores(np.ones(3), np.ones(3), 0, 0)
    with pytest.raises(ValueError, match="same length"):
        bl.rotary_score_formula(np.ones(4), np.ones(6), 0)
    with pytest.raises(ValueError, match="delta must be finite"):
        bl.rotary_score_formula(np.ones(4), np.ones(4), np.inf)
    with pytest.raises(ValueError, match="base"):
        bl.rotary_score_formula(np.ones(4), np.ones(4), 1, base=0.5)


# --------------------------------------------------------------------------------------------
# the logit of a posenc_lib.nn block
# --------------------------------------------------------------------------------------------


def test_block_logit_reproduces_the_models_attention_weights():
    torch = pytest.importorskip("torch")
    from posenc_lib.hessian import block_logit
    from posenc_lib.nn import TinyTransformer

    torch.manual_seed(0)
    model = TinyTransformer(
        11, dim=16, n_heads=2, n_layers=2, scheme="sinusoidal", causal=False
    ).double()
    tokens = torch.tensor([[1, 5, 2, 7, 3]])
    x = model.scheme.embed(model.token_embedding(tokens), 0)
    x1 = model.blocks[0](x)  # input of block 1
    for layer, stream in ((0, x), (1, x1)):
        _, weights = model.blocks[layer].attn(
            model.blocks[layer].norm1(stream), return_weights=True
        )
        for head in range(2):
            f = block_logit(model, head, layer)
            logits = torch.stack(
                [torch.stack([f(stream[0, m], stream[0, n]) for n in range(5)]) for m in range(5)]
            )
            torch.testing.assert_close(
                logits.softmax(-1), weights[0, head].detach(), rtol=1e-10, atol=1e-12
            )


def test_block_logit_errors():
    torch = pytest.importorskip("torch")
    from posenc_lib.hessian import block_logit
    from posenc_lib.nn import TinyTransformer

    model = TinyTransformer(5, dim=8, n_heads=2, n_layers=1, scheme="sinusoidal")
    with pytest.raises(TypeError, match="model"):
        block_logit(torch.nn.Linear(2, 2), 0)
    with pytest.raises(ValueError, match="head"):
        block_logit(model, 2)
    with pytest.raises(TypeError, match="head"):
        block_logit(model, 1.0)
    with pytest.raises(ValueError, match="layer"):
        block_logit(model, 0, layer=1)
    with pytest.raises(ValueError, match="layer"):
        block_logit(model, 0, layer=-1)
    with pytest.raises(ValueError, match="rotary"):
        block_logit(TinyTransformer(5, dim=8, n_heads=2, scheme="rotary"), 0)


def test_layer_norm_head_logit_matches_hand_computation_and_checks_arguments():
    torch = pytest.importorskip("torch")
    from posenc_lib.hessian import layer_norm_head_logit

    gen = torch.Generator().manual_seed(0)
    d, width = 6, 3
    w_q, w_k = (torch.randn(width, d, generator=gen, dtype=torch.float64) for _ in range(2))
    b_q, b_k = (torch.randn(width, generator=gen, dtype=torch.float64) for _ in range(2))
    gamma, beta = (torch.randn(d, generator=gen, dtype=torch.float64) for _ in range(2))
    x, y = (torch.randn(d, generator=gen, dtype=torch.float64) for _ in range(2))
    f = layer_norm_head_logit(w_q, b_q, w_k, b_k, gamma, beta, 1e-5)

    def norm(v):  # LayerNorm by hand: biased variance
        return gamma * (v - v.mean()) / torch.sqrt(((v - v.mean()) ** 2).mean() + 1e-5) + beta

    expected = (w_q @ norm(x) + b_q) @ (w_k @ norm(y) + b_k) / np.sqrt(width)
    assert float(f(x, y)) == pytest.approx(float(expected), rel=1e-12)
    args = [w_q, b_q, w_k, b_k, gamma, beta, 1e-5]
    for index, value, error, match in (
        (0, w_q.numpy(), TypeError, "w_q"),
        (2, w_k[:2], ValueError, "same shape"),
        (1, b_q[:2], ValueError, "b_q must have length d_h = 3"),
        (4, gamma[:5], ValueError, "ln_weight must have length d = 6"),
        (6, 0.0, ValueError, "eps"),
        (6, True, ValueError, "eps"),
    ):
        bad = list(args)
        bad[index] = value
        with pytest.raises(error, match=match):
            layer_norm_head_logit(*bad)


def test_numeric_parts_import_without_sympy_or_torch():
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        """
        import sys
        for name in ("torch", "sympy"):
            sys.modules[name] = None  # any `import name` now raises ImportError
        import numpy as np
        from posenc_lib import bilinear as bl, pretrained as pt
        h = bl.random_relative_matrix(8, np.random.default_rng(0))
        assert bl.shift_defect(h, 20) < 1e-12
        assert bl.toeplitz_hankel(bl.position_bilinear(h, 10)).residual_share < 1e-20
        assert pt.load_minilm().dim == 384
        print("ok")
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_toeplitz_defect_hand_values_and_complex_and_trailing_axes():
    toeplitz = np.array([[1.0, 2.0, 3.0], [4.0, 1.0, 2.0], [5.0, 4.0, 1.0]])
    assert bl.toeplitz_defect(toeplitz) == 0.0
    bumped = toeplitz.copy()
    bumped[2, 2] = 3.0  # G[2,2] - G[1,1] = 2, max |G| = 5
    assert bl.toeplitz_defect(bumped) == pytest.approx(2.0 / 5.0)
    z = np.exp(1j * (np.arange(4)[:, None] - np.arange(4)[None, :]))  # depends on m - n only
    assert bl.toeplitz_defect(z) < 1e-15
    stacked = np.stack([toeplitz, bumped], axis=-1)  # trailing axis: the worst slice counts
    assert bl.toeplitz_defect(stacked) == pytest.approx(2.0 / 5.0)
    assert bl.toeplitz_defect(np.zeros((3, 3))) == 0.0


def test_toeplitz_defect_matches_shift_defect():
    rng = np.random.default_rng(3)
    h = rng.standard_normal((8, 8))
    table = pe.sinusoidal(20, 8)
    assert bl.toeplitz_defect(table @ h @ table.T) == pytest.approx(
        bl.shift_defect(h, 20), rel=1e-12
    )


@pytest.mark.parametrize(
    ("g", "error", "match"),
    [
        (np.zeros(3), ValueError, "at least two axes"),
        (np.zeros((1, 4)), ValueError, "at least two axes"),
        (np.array([["a", "b"], ["c", "d"]]), TypeError, "real or complex"),
        (np.array([[1.0, np.nan], [0.0, 1.0]]), ValueError, "finite"),
    ],
)
def test_toeplitz_defect_bad_input(g, error, match):
    with pytest.raises(error, match=match):
        bl.toeplitz_defect(g)
