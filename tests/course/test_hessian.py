"""posenc_lib.course.hessian: autograd results against analytic derivatives and finite differences,
the Taylor remainder against known polynomials, and the argument checks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
hz = pytest.importorskip("posenc_lib.course.hessian")
attention = pytest.importorskip("posenc_lib.course.attention")
from helpers_torch import F64, fd_cross_hessian, make_layer, nonlinear, rand  # noqa: E402

torch.set_num_threads(1)


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
    torch.testing.assert_close(
        H, fd_cross_hessian(nonlinear, x_m, x_n), rtol=0, atol=1e-6
    )


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
        lambda a, b: attention.attention_logit(a, b, w_q, w_k),
        rand(6, seed=12),
        rand(6, seed=13),
    )
    torch.testing.assert_close(H, w_q @ w_k.T / 2.0, rtol=0, atol=1e-14)


@pytest.mark.parametrize("kind", ["mha", "encoder"])
def test_cross_hessian_through_torch_attention_layers(kind):
    d = 8
    model = attention.PooledScalarModel(
        make_layer(kind, 0, d, "gelu"), rand(d, seed=14)
    )
    tokens = rand(5, d, seed=15)
    f = attention.two_token_function(model, tokens, 1, 3)
    H = hz.cross_hessian(f, tokens[1], tokens[3])
    torch.testing.assert_close(
        H, fd_cross_hessian(f, tokens[1], tokens[3]), rtol=0, atol=1e-6
    )
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
# Taylor terms, remainder, mixed difference
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
    assert np.polyfit(np.log(eps), np.log(err), 1)[0] == pytest.approx(3.0, abs=1e-6)


def test_taylor_remainder_slope_is_three_for_a_smooth_attention_model():
    torch.manual_seed(1)
    d = 8
    layer = torch.nn.MultiheadAttention(d, 2, dtype=F64)
    model = attention.PooledScalarModel(layer, rand(d, seed=50))
    tokens = rand(6, d, seed=51)
    f = attention.two_token_function(model, tokens, 0, 4)
    eps = np.logspace(-3, -1.5, 6)
    err = hz.taylor_remainder(
        f, tokens[0], tokens[4], rand(d, seed=52), rand(d, seed=53), eps
    )
    assert np.polyfit(np.log(eps), np.log(err), 1)[0] == pytest.approx(3.0, abs=0.1)


def test_mixed_difference():
    A = rand(3, 3, seed=60)
    x_m, x_n, p_m, p_n = (rand(3, seed=s) for s in (61, 62, 63, 64))
    separable = hz.mixed_difference(
        lambda a, b: torch.sin(a).sum() + torch.exp(b).sum(), x_m, x_n, p_m, p_n
    )
    assert separable == pytest.approx(0.0, abs=1e-14)
    bilinear = hz.mixed_difference(
        lambda a, b: a @ A @ b + (a**2).sum(), x_m, x_n, p_m, p_n
    )
    assert bilinear == pytest.approx(float(p_m @ A @ p_n), abs=1e-12)


# --------------------------------------------------------------------------------------------
# argument checks shared by the derivative functions
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("func", ["cross_hessian", "hessian_blocks"])
def test_derivatives_reject_bad_arguments(func):
    g = getattr(hz, func)
    x = rand(3)
    with pytest.raises(TypeError, match=r"^f\b"):
        g("f", x, x)
    with pytest.raises(TypeError, match=r"^x_m\b"):
        g(nonlinear, [1.0, 2.0, 3.0], x)
    with pytest.raises(TypeError, match=r"^x_n\b"):
        g(nonlinear, x, torch.arange(3))
    with pytest.raises(ValueError, match=r"^x_m\b"):
        g(nonlinear, rand(2, 3), x)
    with pytest.raises(TypeError, match=r"^f\b"):
        g(lambda a, b: a * b, x, x)
    with pytest.raises(TypeError, match=r"^f\b"):
        g(lambda a, b: 1.0, x, x)


@pytest.mark.parametrize(
    "func", ["taylor_terms", "mixed_difference", "taylor_remainder"]
)
def test_taylor_functions_reject_bad_directions(func):
    g = getattr(hz, func)
    extra = ([0.1],) if func == "taylor_remainder" else ()
    x = rand(3)
    with pytest.raises(ValueError, match=r"^p_m\b"):
        g(nonlinear, x, x, rand(4), x, *extra)
    with pytest.raises(TypeError, match=r"^p_m\b"):
        g(nonlinear, x, x, None, x, *extra)


def test_taylor_remainder_rejects_bad_scales():
    x = rand(3)
    with pytest.raises(ValueError, match=r"^scales\b"):
        hz.taylor_remainder(nonlinear, x, x, x, x, [np.inf])
    with pytest.raises(TypeError, match=r"^scales\b"):
        hz.taylor_remainder(nonlinear, x, x, x, x, ["small"])


def test_derivatives_do_not_vanish_under_no_grad():
    """Called inside torch.no_grad(), the helpers still differentiate (no silent zeros)."""
    x_m, x_n, p_m, p_n = (rand(3, seed=s) for s in range(4))
    expected = (
        hz.cross_hessian(nonlinear, x_m, x_n),
        hz.hessian_blocks(nonlinear, x_m, x_n).hessian_mn,
        hz.taylor_terms(nonlinear, x_m, x_n, p_m, p_n),
    )
    with torch.no_grad():
        got = (
            hz.cross_hessian(nonlinear, x_m, x_n),
            hz.hessian_blocks(nonlinear, x_m, x_n).hessian_mn,
            hz.taylor_terms(nonlinear, x_m, x_n, p_m, p_n),
        )
    assert torch.count_nonzero(expected[0]) > 0
    assert torch.equal(got[0], expected[0])
    assert torch.equal(got[1], expected[1])
    assert got[2] == expected[2]
