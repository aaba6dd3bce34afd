"""posenc_lib.course.attention: the small attention functions against direct computations."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
at = pytest.importorskip("posenc_lib.course.attention")
from helpers_torch import F64, make_layer, rand  # noqa: E402

from posenc_lib.course.pretrained import load_minilm  # noqa: E402
from posenc_lib.course.transformer import TinyTransformer  # noqa: E402

torch.set_num_threads(1)


def test_attention_logit():
    x_m, x_n, w_q, w_k = (
        rand(6, seed=80),
        rand(6, seed=81),
        rand(6, 9, seed=82),
        rand(6, 9, seed=83),
    )
    expected = float((x_m @ w_q) @ (x_n @ w_k)) / 3.0
    assert float(at.attention_logit(x_m, x_n, w_q, w_k)) == pytest.approx(expected)
    with pytest.raises(ValueError, match=r"^w_q\b"):
        at.attention_logit(x_m, x_n, rand(5, 9), w_k)
    with pytest.raises(ValueError, match=r"^w_k\b"):
        at.attention_logit(x_m, x_n, w_q, rand(6, 8))


@pytest.mark.parametrize("kind", ["mha", "encoder", "linear"])
def test_pooled_scalar_model_is_symmetric_without_mask(kind):
    d = 8
    model = at.PooledScalarModel(make_layer(kind, 2, d), rand(d, seed=90))
    X = rand(6, d, seed=91)
    swapped = X[[0, 4, 2, 3, 1, 5]]
    with torch.no_grad():
        assert float(model(swapped)) == pytest.approx(float(model(X)), abs=1e-12)
        assert model(X).shape == ()


@pytest.mark.parametrize("kind", ["mha", "encoder"])
def test_pooled_scalar_model_with_causal_mask_is_not_symmetric(kind):
    d = 8
    layer = make_layer(kind, 3, d)
    model = at.PooledScalarModel(layer, rand(d, seed=92), causal=True)
    X = rand(6, d, seed=93)
    with torch.no_grad():
        assert abs(float(model(X[[0, 4, 2, 3, 1, 5]])) - float(model(X))) > 1e-3
        # causal: the first output is the value projection of the first token alone
        if kind == "mha":
            w_v = layer.in_proj_weight[2 * d :]
            b_v = layer.in_proj_bias[2 * d :]
            y0 = layer.out_proj(X[0] @ w_v.T + b_v)
            full = layer(
                X, X, X, attn_mask=torch.full((6, 6), float("-inf"), dtype=F64).triu(1)
            )[0]
            torch.testing.assert_close(full[0], y0)


def test_pooled_scalar_model_matches_a_manual_computation():
    torch.manual_seed(4)
    d = 6
    layer = torch.nn.MultiheadAttention(d, 1, bias=False, dtype=F64)
    r = rand(d, seed=94)
    model = at.PooledScalarModel(layer, r)
    X = rand(5, d, seed=95)
    w_q, w_k, w_v = (layer.in_proj_weight[i * d : (i + 1) * d].T for i in range(3))
    weights = torch.softmax((X @ w_q) @ (X @ w_k).T / math.sqrt(d), dim=-1)  # one head
    manual = weights @ (X @ w_v) @ layer.out_proj.weight.T
    with torch.no_grad():
        assert float(model(X)) == pytest.approx(float(manual.mean(0) @ r), abs=1e-12)


def test_pooled_scalar_model_rejects_bad_arguments():
    d = 4
    with pytest.raises(TypeError, match=r"^readout\b"):
        at.PooledScalarModel(torch.nn.Identity(), [1.0, 2.0])
    with pytest.raises(TypeError, match=r"^layer\b"):
        at.PooledScalarModel(torch.nn.Identity(), rand(d), causal=True)
    model = at.PooledScalarModel(torch.nn.Identity(), rand(d + 1))
    with pytest.raises(ValueError, match=r"^layer\b"):
        model(rand(3, d))
    with pytest.raises(ValueError, match=r"^tokens\b"):
        model(rand(d))
    with pytest.raises(TypeError, match=r"^tokens\b"):
        model(np.zeros((3, d)))


def test_two_token_function():
    torch.manual_seed(5)
    d = 6
    model = at.PooledScalarModel(
        torch.nn.MultiheadAttention(d, 2, dtype=F64), rand(d, seed=96)
    )
    X = rand(5, d, seed=97)
    f = at.two_token_function(model, X, 3, 1)
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

    with pytest.raises(TypeError, match=r"^model\b"):
        at.two_token_function(3, X, 0, 1)
    with pytest.raises(ValueError, match=r"^tokens\b"):
        at.two_token_function(model, X[0], 0, 1)
    with pytest.raises(ValueError, match=r"^n\b"):
        at.two_token_function(model, X, 2, 2)
    with pytest.raises(ValueError, match=r"^n\b"):
        at.two_token_function(model, X, 0, 4)
    with pytest.raises(TypeError, match=r"^m\b"):
        at.two_token_function(model, X, 0.0, 1)
    with pytest.raises(TypeError, match=r"^m\b"):
        at.two_token_function(model, X, True, 1)


def test_first_layer_logit_matches_numpy():
    data = load_minilm()
    x_m, x_n = data.word_sample[3] + data.position_embeddings[7], data.word_sample[9]
    head = 5
    width = 32

    def layer_norm(x):
        y = (x - x.mean()) / np.sqrt(x.var() + 1e-12)
        return data.embedding_ln_weight * y + data.embedding_ln_bias

    rows = slice(head * width, (head + 1) * width)
    q = data.query_weight[rows] @ layer_norm(x_m) + data.query_bias[rows]
    k = data.key_weight[rows] @ layer_norm(x_n) + data.key_bias[rows]
    f = at.first_layer_logit(data, head)
    value = float(f(torch.from_numpy(x_m), torch.from_numpy(x_n)))
    assert value == pytest.approx(q @ k / np.sqrt(width), rel=1e-10)


def test_cross_hessian_of_first_layer_logit_matches_finite_differences():
    from posenc_lib.course.hessian import cross_hessian

    data = load_minilm()
    f = at.first_layer_logit(data, 0)
    x = torch.from_numpy(data.word_sample[0])
    y = torch.from_numpy(data.word_sample[1])
    h = cross_hessian(f, x, y).numpy()
    assert h.shape == (384, 384)
    # finite-difference check of one entry of the cross-Hessian
    eps = 1e-4
    e_a = torch.zeros(384, dtype=torch.float64)
    e_b = torch.zeros(384, dtype=torch.float64)
    e_a[3], e_b[7] = eps, eps
    fd = (
        f(x + e_a, y + e_b)
        - f(x + e_a, y - e_b)
        - f(x - e_a, y + e_b)
        + f(x - e_a, y - e_b)
    ) / (4 * eps**2)
    assert float(fd) == pytest.approx(h[3, 7], rel=1e-4, abs=1e-6)


def test_first_layer_logit_errors():
    data = load_minilm()
    with pytest.raises(ValueError, match=r"^head\b"):
        at.first_layer_logit(data, 12)
    with pytest.raises(TypeError, match=r"^head\b"):
        at.first_layer_logit(data, 1.0)


def test_block_logit_reproduces_the_models_attention_weights():

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
            f = at.block_logit(model, head, layer=layer)
            logits = torch.stack(
                [
                    torch.stack([f(stream[0, m], stream[0, n]) for n in range(5)])
                    for m in range(5)
                ]
            )
            torch.testing.assert_close(
                logits.softmax(-1), weights[0, head].detach(), rtol=1e-10, atol=1e-12
            )


def test_block_logit_errors():

    model = TinyTransformer(5, dim=8, n_heads=2, n_layers=1, scheme="sinusoidal")
    with pytest.raises(TypeError, match=r"^model\b"):
        at.block_logit(torch.nn.Linear(2, 2), 0)
    with pytest.raises(ValueError, match=r"^head\b"):
        at.block_logit(model, 2)
    with pytest.raises(TypeError, match=r"^head\b"):
        at.block_logit(model, 1.0)
    with pytest.raises(ValueError, match=r"^layer\b"):
        at.block_logit(model, 0, layer=1)
    with pytest.raises(ValueError, match=r"^layer\b"):
        at.block_logit(model, 0, layer=-1)
    with pytest.raises(ValueError, match="got a rotary model"):
        at.block_logit(TinyTransformer(5, dim=8, n_heads=2, scheme="rotary"), 0)


def test_layer_norm_head_logit_matches_hand_computation_and_checks_arguments():

    gen = torch.Generator().manual_seed(0)
    d, width = 6, 3
    w_q, w_k = (
        torch.randn(width, d, generator=gen, dtype=torch.float64) for _ in range(2)
    )
    b_q, b_k = (
        torch.randn(width, generator=gen, dtype=torch.float64) for _ in range(2)
    )
    gamma, beta = (torch.randn(d, generator=gen, dtype=torch.float64) for _ in range(2))
    x, y = (torch.randn(d, generator=gen, dtype=torch.float64) for _ in range(2))
    f = at.layer_norm_head_logit(w_q, b_q, w_k, b_k, gamma, beta, 1e-5)

    def norm(v):  # LayerNorm by hand: biased variance
        return (
            gamma * (v - v.mean()) / torch.sqrt(((v - v.mean()) ** 2).mean() + 1e-5)
            + beta
        )

    expected = (w_q @ norm(x) + b_q) @ (w_k @ norm(y) + b_k) / np.sqrt(width)
    assert float(f(x, y)) == pytest.approx(float(expected), rel=1e-12)
    args = [w_q, b_q, w_k, b_k, gamma, beta, 1e-5]
    for index, value, error, match in (
        (
            0,
            w_q.numpy(),
            TypeError,
            "w_q must be a floating-point torch.Tensor",
        ),
        (
            2,
            w_k[:2],
            ValueError,
            r"w_k must be a tensor of shape \(3, 6\), got shape \(2, 6\)",
        ),
        (1, b_q[:2], ValueError, r"b_q must be .* of shape \(3,\)"),
        (4, gamma[:5], ValueError, r"ln_weight must be .* of shape \(6,\)"),
    ):
        bad = list(args)
        bad[index] = value
        with pytest.raises(error, match=match):
            at.layer_norm_head_logit(*bad)
