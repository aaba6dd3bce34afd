"""Tests for posenc_lib.hessian: autograd results against analytic derivatives and finite
differences, the Taylor remainder against known polynomials, and the argument checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
hz = pytest.importorskip("posenc_lib.hessian")

torch.set_num_threads(1)
F64 = torch.float64


def rand(*shape: int, seed: int = 0) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=gen, dtype=F64)


def fd_cross_hessian(f, x_m, x_n, h=1e-4):
    """Central finite differences for d^2 f / dx_m[a] dx_n[b] (independent of autograd)."""
    out = torch.empty(x_m.numel(), x_n.numel(), dtype=F64)
    with torch.no_grad():
        for a in range(x_m.numel()):
            for b in range(x_n.numel()):
                ea = torch.zeros_like(x_m)
                ea[a] = h
                eb = torch.zeros_like(x_n)
                eb[b] = h
                out[a, b] = (
                    f(x_m + ea, x_n + eb)
                    - f(x_m + ea, x_n - eb)
                    - f(x_m - ea, x_n + eb)
                    + f(x_m - ea, x_n - eb)
                ) / (4 * h * h)
    return out


def make_layer(kind: str, seed: int, d: int = 8, activation: str = "relu") -> torch.nn.Module:
    """A float64 layer in eval mode: attention, a Transformer encoder layer, or a linear map."""
    torch.manual_seed(seed)
    if kind == "mha":
        layer = torch.nn.MultiheadAttention(d, 2, dtype=F64)
    elif kind == "encoder":
        layer = torch.nn.TransformerEncoderLayer(
            d, 2, 16, dropout=0.0, activation=activation, dtype=F64
        )
    else:
        layer = torch.nn.Linear(d, d, dtype=F64)
    return layer.eval()


def nonlinear(x_m, x_n):
    return (
        torch.tanh(x_m @ x_n) + (torch.sin(x_m) * x_n**2).sum() + torch.exp(0.3 * x_m[0] * x_n[-1])
    )


# --------------------------------------------------------------------------------------------
# cross_hessian and hessian_blocks
# --------------------------------------------------------------------------------------------


def test_cross_hessian_of_bilinear_form_is_the_matrix():
    A = rand(3, 5, seed=1)
    H = hz.cross_hessian(lambda a, b: a @ A @ b, rand(3, seed=2), rand(5, seed=3))
    assert H.shape == (3, 5)
    torch.testing.assert_close(H, A, rtol=0, atol=1e-14)


@settings(max_examples=15, deadline=None)
@given(dm=st.integers(1, 5), dn=st.integers(1, 5), seed=st.integers(0, 10_000))
def test_cross_hessian_of_bilinear_form_property(dm, dn, seed):
    A = rand(dm, dn, seed=seed)
    x_m, x_n = rand(dm, seed=seed + 1), rand(dn, seed=seed + 2)
    torch.testing.assert_close(
        hz.cross_hessian(lambda a, b: a @ A @ b, x_m, x_n), A, rtol=0, atol=1e-13
    )


def test_cross_hessian_of_nonlinear_function_matches_finite_differences():
    x_m, x_n = rand(4, seed=4), rand(4, seed=5)
    H = hz.cross_hessian(nonlinear, x_m, x_n)
    torch.testing.assert_close(H, fd_cross_hessian(nonlinear, x_m, x_n), rtol=0, atol=1e-6)


def test_cross_hessian_is_zero_for_separable_and_linear_functions():
    x_m, x_n = rand(3, seed=6), rand(2, seed=7)
    H = hz.cross_hessian(lambda a, b: torch.sin(a).sum() + (b**3).sum(), x_m, x_n)
    assert torch.equal(H, torch.zeros(3, 2, dtype=F64))
    H = hz.cross_hessian(lambda a, b: a.sum() + 2 * b.sum(), x_m, x_n)
    assert torch.equal(H, torch.zeros(3, 2, dtype=F64))


def test_cross_hessian_does_not_modify_inputs():
    x_m, x_n = rand(3, seed=8), rand(3, seed=9)
    before = (x_m.clone(), x_n.clone())
    hz.cross_hessian(nonlinear, x_m, x_n)
    assert torch.equal(x_m, before[0]) and torch.equal(x_n, before[1])
    assert not x_m.requires_grad


def test_cross_hessian_of_attention_logit_is_wq_wk_transpose():
    w_q, w_k = rand(6, 4, seed=10), rand(6, 4, seed=11)
    H = hz.cross_hessian(
        lambda a, b: hz.attention_logit(a, b, w_q, w_k), rand(6, seed=12), rand(6, seed=13)
    )
    torch.testing.assert_close(H, w_q @ w_k.T / 2.0, rtol=0, atol=1e-14)


@pytest.mark.parametrize("kind", ["mha", "encoder"])
def test_cross_hessian_through_torch_attention_layers(kind):
    d = 8
    model = hz.PooledScalarModel(make_layer(kind, 0, d, "gelu"), rand(d, seed=14))
    tokens = rand(5, d, seed=15)
    f = hz.two_token_function(model, tokens, 1, 3)
    H = hz.cross_hessian(f, tokens[1], tokens[3])
    torch.testing.assert_close(H, fd_cross_hessian(f, tokens[1], tokens[3]), rtol=0, atol=1e-6)
    assert float(H.abs().max()) > 1e-4  # a real coupling, not a vacuous zero


def test_hessian_blocks():
    x_m, x_n = rand(3, seed=16), rand(3, seed=17)
    blocks = hz.hessian_blocks(nonlinear, x_m, x_n)
    torch.testing.assert_close(blocks.hessian_mn, hz.cross_hessian(nonlinear, x_m, x_n))
    torch.testing.assert_close(blocks.hessian_nm, blocks.hessian_mn.T)
    full = blocks.full
    assert full.shape == (6, 6)
    torch.testing.assert_close(full, full.T, rtol=0, atol=1e-12)
    assert float(blocks.value) == pytest.approx(float(nonlinear(x_m, x_n)))
    # the H_mm block and the gradient by finite differences
    fd_mm_true = torch.empty(3, 3, dtype=F64)
    h = 1e-4
    with torch.no_grad():
        for a in range(3):
            for b in range(3):
                ea, eb = torch.zeros(3, dtype=F64), torch.zeros(3, dtype=F64)
                ea[a], eb[b] = h, h
                fd_mm_true[a, b] = (
                    nonlinear(x_m + ea + eb, x_n)
                    - nonlinear(x_m + ea - eb, x_n)
                    - nonlinear(x_m - ea + eb, x_n)
                    + nonlinear(x_m - ea - eb, x_n)
                ) / (4 * h * h)
    torch.testing.assert_close(blocks.hessian_mm, fd_mm_true, rtol=0, atol=1e-6)
    grad_fd = torch.stack(
        [
            (nonlinear(x_m + h * e, x_n) - nonlinear(x_m - h * e, x_n)) / (2 * h)
            for e in torch.eye(3, dtype=F64)
        ]
    )
    torch.testing.assert_close(blocks.gradient_m, grad_fd, rtol=0, atol=1e-7)


# --------------------------------------------------------------------------------------------
# Taylor terms, remainder, mixed difference, slope
# --------------------------------------------------------------------------------------------


def quadratic_case():
    A, B, C = rand(3, 3, seed=20), rand(3, 3, seed=21), rand(3, 3, seed=22)
    B, C = B + B.T, C + C.T
    c = rand(3, seed=23)

    def f(a, b):
        return a @ A @ b + 0.5 * a @ B @ a + 0.5 * b @ C @ b + c @ b + 1.5

    return f, A, B, C, c


def test_taylor_terms_of_a_quadratic_are_its_parts():
    f, A, B, C, c = quadratic_case()
    x_m, x_n, p_m, p_n = (rand(3, seed=s) for s in (24, 25, 26, 27))
    t = hz.taylor_terms(f, x_m, x_n, p_m, p_n)
    assert t.constant == pytest.approx(float(f(x_m, x_n)))
    assert t.first_m == pytest.approx(float(p_m @ (A @ x_n + B @ x_m)))
    assert t.first_n == pytest.approx(float(p_n @ (A.T @ x_m + C @ x_n + c)))
    assert t.second_m == pytest.approx(float(0.5 * p_m @ B @ p_m))
    assert t.second_n == pytest.approx(float(0.5 * p_n @ C @ p_n))
    assert t.cross == pytest.approx(float(p_m @ A @ p_n))
    assert t.approximation == pytest.approx(float(f(x_m + p_m, x_n + p_n)), abs=1e-12)


def test_taylor_terms_match_hessian_blocks():
    x_m, x_n, p_m, p_n = (rand(4, seed=s) for s in (30, 31, 32, 33))
    t = hz.taylor_terms(nonlinear, x_m, x_n, p_m, p_n)
    b = hz.hessian_blocks(nonlinear, x_m, x_n)
    assert t.cross == pytest.approx(float(p_m @ b.hessian_mn @ p_n), abs=1e-12)
    assert t.second_n == pytest.approx(float(0.5 * p_n @ b.hessian_nn @ p_n), abs=1e-12)
    assert t.first_m == pytest.approx(float(p_m @ b.gradient_m), abs=1e-12)


def test_taylor_remainder_of_a_quadratic_is_zero():
    f = quadratic_case()[0]
    x_m, x_n, p_m, p_n = (rand(3, seed=s) for s in (34, 35, 36, 37))
    err = hz.taylor_remainder(f, x_m, x_n, p_m, p_n, [0.1, 1.0, 10.0])
    assert err.shape == (3,)
    assert np.all(err < 1e-9 * (1 + np.array([0.1, 1.0, 10.0]) ** 2))


def test_taylor_remainder_of_a_cubic_is_its_cubic_term():
    u, v = rand(3, seed=40), rand(3, seed=41)

    def f(a, b):
        return (a @ u) ** 2 * (b @ v)

    x_m, x_n, p_m, p_n = (rand(3, seed=s) for s in (42, 43, 44, 45))
    eps = np.array([0.01, 0.1, 1.0])
    err = hz.taylor_remainder(f, x_m, x_n, p_m, p_n, eps)
    exact = np.abs(eps**3 * float((p_m @ u) ** 2 * (p_n @ v)))
    np.testing.assert_allclose(err, exact, rtol=1e-6)
    assert hz.loglog_slope(eps, err) == pytest.approx(3.0, abs=1e-6)


def test_taylor_remainder_slope_is_three_for_a_smooth_attention_model():
    torch.manual_seed(1)
    d = 8
    layer = torch.nn.MultiheadAttention(d, 2, dtype=F64)
    model = hz.PooledScalarModel(layer, rand(d, seed=50))
    tokens = rand(6, d, seed=51)
    f = hz.two_token_function(model, tokens, 0, 4)
    eps = np.logspace(-3, -1.5, 6)
    err = hz.taylor_remainder(f, tokens[0], tokens[4], rand(d, seed=52), rand(d, seed=53), eps)
    assert hz.loglog_slope(eps, err) == pytest.approx(3.0, abs=0.1)


def test_mixed_difference():
    A = rand(3, 3, seed=60)
    x_m, x_n, p_m, p_n = (rand(3, seed=s) for s in (61, 62, 63, 64))
    separable = hz.mixed_difference(
        lambda a, b: torch.sin(a).sum() + torch.exp(b).sum(), x_m, x_n, p_m, p_n
    )
    assert separable == pytest.approx(0.0, abs=1e-14)
    bilinear = hz.mixed_difference(lambda a, b: a @ A @ b + (a**2).sum(), x_m, x_n, p_m, p_n)
    assert bilinear == pytest.approx(float(p_m @ A @ p_n), abs=1e-12)


def test_loglog_slope():
    eps = np.logspace(-3, 0, 7)
    assert hz.loglog_slope(eps, 2.5 * eps**3) == pytest.approx(3.0)
    assert hz.loglog_slope([1, 10], [1, 100]) == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("scales", "errors", "exc", "match"),
    [
        ([1.0, 2.0], [1.0], ValueError, "same length"),
        ([1.0], [1.0], ValueError, "at least two"),
        ([1.0, -2.0], [1.0, 2.0], ValueError, "^scales must be positive"),
        ([1.0, 2.0], [0.0, 2.0], ValueError, "^errors must be positive"),
        ([1.0, np.nan], [1.0, 2.0], ValueError, "scales must be finite"),
        ([1.0, 2.0], [1.0, np.inf], ValueError, "errors must be finite"),
        (["a", "b"], [1.0, 2.0], TypeError, "scales must hold real numbers"),
        ([1.0, 2.0], [True, False], TypeError, "errors must hold real numbers"),
        ([], [], ValueError, "scales must be a non-empty"),
    ],
)
def test_loglog_slope_rejects_bad_arguments(scales, errors, exc, match):
    with pytest.raises(exc, match=match):
        hz.loglog_slope(scales, errors)


# --------------------------------------------------------------------------------------------
# attention functions and models
# --------------------------------------------------------------------------------------------


def test_softmax_attention_matches_torch_sdpa_and_is_equivariant():
    X = rand(5, 6, seed=70)
    w_q, w_k, w_v = rand(6, 4, seed=71), rand(6, 4, seed=72), rand(6, 3, seed=73)
    out = hz.softmax_attention(X, w_q, w_k, w_v)
    ref = torch.nn.functional.scaled_dot_product_attention(
        (X @ w_q)[None], (X @ w_k)[None], (X @ w_v)[None]
    )[0]
    torch.testing.assert_close(out, ref)
    perm = torch.tensor([3, 0, 4, 1, 2])
    torch.testing.assert_close(hz.softmax_attention(X[perm], w_q, w_k, w_v), out[perm])
    causal = hz.softmax_attention(X, w_q, w_k, w_v, causal=True)
    torch.testing.assert_close(causal[0], X[0] @ w_v)  # the first token sees only itself
    ref_causal = torch.nn.functional.scaled_dot_product_attention(
        (X @ w_q)[None], (X @ w_k)[None], (X @ w_v)[None], is_causal=True
    )[0]
    torch.testing.assert_close(causal, ref_causal)


def test_softmax_attention_rejects_bad_arguments():
    X, w = rand(4, 6), rand(6, 4)
    with pytest.raises(TypeError, match="tokens must be a 2-D"):
        hz.softmax_attention(X[0], w, w, w)
    with pytest.raises(TypeError, match="w_q must be a floating-point"):
        hz.softmax_attention(X, w.numpy(), w, w)
    with pytest.raises(ValueError, match="w_k must be 2-D"):
        hz.softmax_attention(X, w, w[0], w)
    with pytest.raises(ValueError, match="w_v must have 6 rows"):
        hz.softmax_attention(X, w, w, rand(5, 4))
    with pytest.raises(ValueError, match="same width"):
        hz.softmax_attention(X, w, rand(6, 3), w)
    with pytest.raises(TypeError, match="causal must be True or False"):
        hz.softmax_attention(X, w, w, w, causal="yes")


def test_attention_logit():
    x_m, x_n, w_q, w_k = (
        rand(6, seed=80),
        rand(6, seed=81),
        rand(6, 9, seed=82),
        rand(6, 9, seed=83),
    )
    expected = float((x_m @ w_q) @ (x_n @ w_k)) / 3.0
    assert float(hz.attention_logit(x_m, x_n, w_q, w_k)) == pytest.approx(expected)
    with pytest.raises(ValueError, match="rows"):
        hz.attention_logit(x_m, x_n, rand(5, 9), w_k)
    with pytest.raises(ValueError, match="same width"):
        hz.attention_logit(x_m, x_n, w_q, rand(6, 8))


@pytest.mark.parametrize("kind", ["mha", "encoder", "linear"])
def test_pooled_scalar_model_is_symmetric_without_mask(kind):
    d = 8
    model = hz.PooledScalarModel(make_layer(kind, 2, d), rand(d, seed=90))
    X = rand(6, d, seed=91)
    swapped = X[[0, 4, 2, 3, 1, 5]]
    with torch.no_grad():
        assert float(model(swapped)) == pytest.approx(float(model(X)), abs=1e-12)
        assert model(X).shape == ()


@pytest.mark.parametrize("kind", ["mha", "encoder"])
def test_pooled_scalar_model_with_causal_mask_is_not_symmetric(kind):
    d = 8
    layer = make_layer(kind, 3, d)
    model = hz.PooledScalarModel(layer, rand(d, seed=92), causal=True)
    X = rand(6, d, seed=93)
    with torch.no_grad():
        assert abs(float(model(X[[0, 4, 2, 3, 1, 5]])) - float(model(X))) > 1e-3
        # causal: the first output is the value projection of the first token alone
        if kind == "mha":
            w_v = layer.in_proj_weight[2 * d :]
            b_v = layer.in_proj_bias[2 * d :]
            y0 = layer.out_proj(X[0] @ w_v.T + b_v)
            full = layer(X, X, X, attn_mask=torch.full((6, 6), float("-inf"), dtype=F64).triu(1))[0]
            torch.testing.assert_close(full[0], y0)


def test_pooled_scalar_model_matches_a_manual_computation():
    torch.manual_seed(4)
    d = 6
    layer = torch.nn.MultiheadAttention(d, 1, bias=False, dtype=F64)
    r = rand(d, seed=94)
    model = hz.PooledScalarModel(layer, r)
    X = rand(5, d, seed=95)
    w_q, w_k, w_v = (layer.in_proj_weight[i * d : (i + 1) * d].T for i in range(3))
    manual = hz.softmax_attention(X, w_q, w_k, w_v) @ layer.out_proj.weight.T
    with torch.no_grad():
        assert float(model(X)) == pytest.approx(float(manual.mean(0) @ r), abs=1e-12)


def test_pooled_scalar_model_rejects_bad_arguments():
    d = 4
    with pytest.raises(TypeError, match=r"layer must be a torch\.nn\.Module"):
        hz.PooledScalarModel(lambda x: x, rand(d))
    with pytest.raises(TypeError, match="readout must be a 1-D floating-point"):
        hz.PooledScalarModel(torch.nn.Identity(), [1.0, 2.0])
    with pytest.raises(ValueError, match="causal=True needs"):
        hz.PooledScalarModel(torch.nn.Identity(), rand(d), causal=True)
    with pytest.raises(TypeError, match="causal must be True or False"):
        hz.PooledScalarModel(torch.nn.Identity(), rand(d), causal=1)
    model = hz.PooledScalarModel(torch.nn.Identity(), rand(d + 1))
    with pytest.raises(ValueError, match="the layer must return shape"):
        model(rand(3, d))
    with pytest.raises(ValueError, match="tokens must be a 2-D tensor"):
        model(rand(d))
    with pytest.raises(TypeError, match=r"tokens must be a torch\.Tensor"):
        model(np.zeros((3, d)))


def test_two_token_function():
    torch.manual_seed(5)
    d = 6
    model = hz.PooledScalarModel(torch.nn.MultiheadAttention(d, 2, dtype=F64), rand(d, seed=96))
    X = rand(5, d, seed=97)
    f = hz.two_token_function(model, X, 3, 1)
    a, b = rand(d, seed=98), rand(d, seed=99)
    Y = X.clone()
    Y[3], Y[1] = a, b
    with torch.no_grad():
        assert float(f(X[3], X[1])) == pytest.approx(float(model(X)), abs=1e-14)
        assert float(f(a, b)) == pytest.approx(float(model(Y)), abs=1e-14)
    X[0] += 1.0  # later changes to the tokens do not leak into f
    with torch.no_grad():
        assert float(f(a, b)) == pytest.approx(float(model(Y)), abs=1e-14)


def test_two_token_function_rejects_bad_arguments():
    X = rand(4, 3)

    def model(t):
        return t.sum()

    with pytest.raises(TypeError, match="model must be callable"):
        hz.two_token_function(3, X, 0, 1)
    with pytest.raises(TypeError, match="tokens must be a 2-D"):
        hz.two_token_function(model, X[0], 0, 1)
    with pytest.raises(ValueError, match="different positions"):
        hz.two_token_function(model, X, 2, 2)
    with pytest.raises(ValueError, match=r"n must be a position in 0..3"):
        hz.two_token_function(model, X, 0, 4)
    with pytest.raises(TypeError, match="m must be an integer"):
        hz.two_token_function(model, X, 0.0, 1)
    with pytest.raises(TypeError, match="m must be an integer"):
        hz.two_token_function(model, X, True, 1)


# --------------------------------------------------------------------------------------------
# argument checks shared by the derivative functions
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("func", ["cross_hessian", "hessian_blocks"])
def test_derivatives_reject_bad_arguments(func):
    g = getattr(hz, func)
    x = rand(3)
    with pytest.raises(TypeError, match="f must be a callable"):
        g("f", x, x)
    with pytest.raises(TypeError, match="x_m must be a 1-D floating-point"):
        g(nonlinear, [1.0, 2.0, 3.0], x)
    with pytest.raises(TypeError, match="x_n must have a floating dtype"):
        g(nonlinear, x, torch.arange(3))
    with pytest.raises(ValueError, match="x_m must be a non-empty 1-D"):
        g(nonlinear, rand(2, 3), x)
    with pytest.raises(ValueError, match="x_n must be finite"):
        g(nonlinear, x, torch.tensor([1.0, math.inf, 0.0], dtype=F64))
    with pytest.raises(TypeError, match="same dtype"):
        g(nonlinear, x, x.float())
    with pytest.raises(ValueError, match="f must return a scalar"):
        g(lambda a, b: a * b, x, x)
    with pytest.raises(TypeError, match=r"f must return a torch\.Tensor"):
        g(lambda a, b: 1.0, x, x)


@pytest.mark.parametrize("func", ["taylor_terms", "mixed_difference", "taylor_remainder"])
def test_taylor_functions_reject_bad_directions(func):
    g = getattr(hz, func)
    extra = ([0.1],) if func == "taylor_remainder" else ()
    x = rand(3)
    with pytest.raises(ValueError, match=r"p_m must have the shape of x_m"):
        g(nonlinear, x, x, rand(4), x, *extra)
    with pytest.raises(TypeError, match=r"p_n must have the dtype of x_n"):
        g(nonlinear, x, x, x, x.float(), *extra)
    with pytest.raises(TypeError, match="p_m must be a 1-D floating-point"):
        g(nonlinear, x, x, None, x, *extra)


def test_taylor_remainder_rejects_bad_scales():
    x = rand(3)
    with pytest.raises(ValueError, match="scales must be finite"):
        hz.taylor_remainder(nonlinear, x, x, x, x, [np.inf])
    with pytest.raises(TypeError, match="scales must hold real numbers"):
        hz.taylor_remainder(nonlinear, x, x, x, x, ["small"])
