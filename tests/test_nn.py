"""Tests of posenc_lib.nn: position schemes, the sinusoidal module, and the small transformer."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from posenc_lib import sinusoidal  # noqa: E402
from posenc_lib.nn import (  # noqa: E402
    SCHEMES,
    ALiBi,
    LearnedPositionalEmbedding,
    NoPositionalEncoding,
    RotaryEmbedding,
    SelfAttention,
    SinusoidalPositionalEncoding,
    TinyTransformer,
    alibi_slopes,
    make_scheme,
)


def _model(scheme: str, *, causal: bool = True, seed: int = 0, dim: int = 16, heads: int = 4):
    torch.manual_seed(seed)
    return TinyTransformer(11, dim, heads, 2, scheme, causal=causal, max_len=64).eval()


def _tokens(batch: int = 3, length: int = 12, seed: int = 1) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(0, 11, (batch, length), generator=generator)


# ---------------------------------------------------------------------------------------------
# the transformer: shapes, causal masking, offsets
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("causal", [True, False])
def test_transformer_output_shape(scheme, causal):
    model = _model(scheme, causal=causal)
    logits = model(_tokens(3, 12))
    assert logits.shape == (3, 12, 11)
    assert torch.isfinite(logits).all()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_causal_output_at_t_ignores_later_tokens(scheme):
    model = _model(scheme)
    tokens = _tokens(2, 12)
    t = 5
    changed = tokens.clone()
    changed[:, t + 1 :] = (changed[:, t + 1 :] + 3) % 11
    with torch.no_grad():
        before, after = model(tokens), model(changed)
    torch.testing.assert_close(before[:, : t + 1], after[:, : t + 1], rtol=0, atol=1e-6)
    assert not torch.allclose(before[:, t + 1 :], after[:, t + 1 :])  # the change did reach t+1


@pytest.mark.parametrize("scheme", SCHEMES)
def test_bidirectional_output_at_t_sees_later_tokens(scheme):
    model = _model(scheme, causal=False)
    tokens = _tokens(2, 12)
    changed = tokens.clone()
    changed[:, -1] = (changed[:, -1] + 3) % 11
    with torch.no_grad():
        assert not torch.allclose(model(tokens)[:, 0], model(changed)[:, 0])


@pytest.mark.parametrize("scheme", ["none", "rotary", "alibi"])
def test_relative_schemes_are_invariant_to_a_global_shift(scheme):
    model = _model(scheme)
    tokens = _tokens(2, 10)
    with torch.no_grad():
        torch.testing.assert_close(model(tokens, offset=37), model(tokens), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("scheme", ["learned", "sinusoidal"])
def test_absolute_schemes_depend_on_the_offset(scheme):
    model = _model(scheme)
    tokens = _tokens(2, 10)
    with torch.no_grad():
        assert not torch.allclose(model(tokens, offset=7), model(tokens), atol=1e-3)


def test_nope_without_mask_is_permutation_equivariant():
    model = _model("none", causal=False)
    tokens = _tokens(1, 9)
    perm = torch.tensor([3, 0, 8, 1, 7, 2, 6, 4, 5])
    with torch.no_grad():
        torch.testing.assert_close(
            model(tokens)[:, perm], model(tokens[:, perm]), rtol=1e-5, atol=1e-5
        )


def test_attention_weights_are_causal_and_normalised():
    torch.manual_seed(0)
    attn = SelfAttention(16, 4, ALiBi(4), causal=True)
    _, weights = attn(torch.randn(2, 7, 16), return_weights=True)
    assert weights.shape == (2, 4, 7, 7)
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 4, 7))
    assert torch.all(weights.triu(1) == 0)


def test_one_scheme_instance_is_shared_by_all_layers():
    model = _model("rotary")
    assert all(block.attn.scheme is model.scheme for block in model.blocks)


# ---------------------------------------------------------------------------------------------
# the sinusoidal module
# ---------------------------------------------------------------------------------------------


def test_sinusoidal_table_matches_the_formula():
    dim, base = 12, 500.0
    module = SinusoidalPositionalEncoding(dim, base, initial_length=40, dtype=torch.float64)
    m = np.arange(40.0)[:, None]
    i = np.arange(dim // 2)[None, :]
    expected = np.empty((40, dim))
    expected[:, 0::2] = np.sin(m * base ** (-2.0 * i / dim))
    expected[:, 1::2] = np.cos(m * base ** (-2.0 * i / dim))
    np.testing.assert_allclose(module.table.numpy(), expected, rtol=0, atol=1e-13)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_sinusoidal_table_is_the_float64_table_rounded_once(dtype):
    module = SinusoidalPositionalEncoding(8, initial_length=100, dtype=dtype)
    exact = torch.from_numpy(sinusoidal(100, 8, dtype=np.float64))
    assert module.table.dtype == dtype
    assert torch.equal(module.table, exact.to(dtype))


def test_forward_adds_the_rows_of_the_table():
    module = SinusoidalPositionalEncoding(8, initial_length=16)
    x = torch.randn(2, 10, 8)
    torch.testing.assert_close(module(x) - x, module.table[:10].expand(2, 10, 8))


def test_table_is_not_saved_unless_asked():
    assert "table" not in SinusoidalPositionalEncoding(8).state_dict()
    assert "table" in SinusoidalPositionalEncoding(8, persistent=True).state_dict()
    model = TinyTransformer(5, 8, 2, 1, "sinusoidal")
    assert not any(key.endswith("table") for key in model.state_dict())


def test_persistent_table_of_another_length_loads():
    saved = SinusoidalPositionalEncoding(8, initial_length=64, persistent=True)
    fresh = SinusoidalPositionalEncoding(8, initial_length=4, persistent=True, dtype=torch.float64)
    fresh.load_state_dict(saved.state_dict())
    assert fresh.cached_length == 64
    assert fresh.table.dtype == torch.float64  # keeps its own dtype
    torch.testing.assert_close(fresh.table, saved.table.double())


def test_non_persistent_module_loads_a_state_dict_without_the_table():
    module = SinusoidalPositionalEncoding(8)
    module.load_state_dict({})  # nothing is required


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_growth_keeps_dtype(dtype):
    module = SinusoidalPositionalEncoding(8, initial_length=4, dtype=dtype)
    out = module(torch.zeros(1, 50, 8, dtype=dtype))
    assert module.cached_length >= 50
    assert module.table.dtype == dtype and out.dtype == dtype
    exact = torch.from_numpy(sinusoidal(module.cached_length, 8)).to(dtype)
    assert torch.equal(module.table, exact)


def test_growth_after_to_keeps_the_new_dtype():
    module = SinusoidalPositionalEncoding(8, initial_length=4).to(torch.float64)
    module.extend(100)
    assert module.table.dtype == torch.float64 and module.cached_length >= 100


def test_growth_keeps_device_meta():
    module = SinusoidalPositionalEncoding(8, initial_length=4, device="meta")
    module.extend(33)
    assert module.table.device.type == "meta" and module.cached_length == 64


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_growth_keeps_device_cuda():  # pragma: no cover - runs only where a GPU exists
    module = SinusoidalPositionalEncoding(8, initial_length=4).cuda()
    out = module(torch.zeros(2, 40, 8, device="cuda"))
    assert module.table.is_cuda and out.is_cuda


def test_growth_rounds_up_to_a_power_of_two():
    module = SinusoidalPositionalEncoding(8, initial_length=4)
    module(torch.zeros(1, 5, 8))
    assert module.cached_length == 8
    module.encoding(1, offset=100)
    assert module.cached_length == 128


def test_batch_first_and_sequence_first_agree():
    x = torch.randn(3, 9, 8)
    batch_first = SinusoidalPositionalEncoding(8)
    seq_first = SinusoidalPositionalEncoding(8, batch_first=False)
    torch.testing.assert_close(seq_first(x.transpose(0, 1)).transpose(0, 1), batch_first(x))
    torch.testing.assert_close(seq_first(x[0]), batch_first(x[0]))  # unbatched (L, d)


def test_offset_for_incremental_decoding():
    module = SinusoidalPositionalEncoding(8, initial_length=4)
    x = torch.randn(2, 11, 8)
    full = module(x)
    steps = [module(x[:, t : t + 1], offset=t) for t in range(11)]
    torch.testing.assert_close(torch.cat(steps, dim=1), full)
    torch.testing.assert_close(module.encoding(3, offset=5), module.table[5:8])


def test_offset_for_incremental_decoding_sequence_first():
    module = SinusoidalPositionalEncoding(8, initial_length=4, batch_first=False)
    x = torch.randn(11, 2, 8)  # (L, batch, d)
    full = module(x)
    steps = [module(x[t : t + 1], offset=t) for t in range(11)]
    torch.testing.assert_close(torch.cat(steps, dim=0), full)
    torch.testing.assert_close(full[7, 1] - x[7, 1], module.table[7])


def test_growth_after_moving_to_another_device_keeps_that_device():
    module = SinusoidalPositionalEncoding(8, initial_length=4).to("meta")
    out = module(torch.empty(1, 40, 8, device="meta"))
    assert module.table.device.type == "meta" and out.device.type == "meta"
    assert module.cached_length == 64


def test_input_dtype_differs_from_table_dtype():
    module = SinusoidalPositionalEncoding(8, dtype=torch.float64)
    x = torch.zeros(1, 4, 8, dtype=torch.float32)
    out = module(x)
    assert out.dtype == torch.float32
    torch.testing.assert_close(out[0], module.table[:4].float())


def test_works_under_torch_compile():
    torch._dynamo.reset()
    module = SinusoidalPositionalEncoding(16, initial_length=8)
    compiled = torch.compile(module, backend="eager")
    x = torch.randn(2, 5, 16)
    assert torch.equal(compiled(x), x + module.table[:5])
    long = torch.randn(2, 20, 16)  # grows inside the compiled call
    assert torch.equal(compiled(long), long + module.table[:20])
    assert module.cached_length == 32
    assert torch.equal(compiled(long[:, :1], offset=40), long[:, :1] + module.table[40:41])


def test_sinusoidal_bad_arguments():
    with pytest.raises(ValueError, match="dim"):
        SinusoidalPositionalEncoding(7)
    with pytest.raises(ValueError, match="base"):
        SinusoidalPositionalEncoding(8, base=1.0)
    with pytest.raises(ValueError, match="layout"):
        SinusoidalPositionalEncoding(8, layout="sideways")
    with pytest.raises(TypeError, match="persistent"):
        SinusoidalPositionalEncoding(8, persistent="yes")
    with pytest.raises(TypeError, match="batch_first"):
        SinusoidalPositionalEncoding(8, batch_first=1)
    with pytest.raises(TypeError, match="dtype"):
        SinusoidalPositionalEncoding(8, dtype=torch.int32)
    with pytest.raises(ValueError, match="initial_length"):
        SinusoidalPositionalEncoding(8, initial_length=0)
    module = SinusoidalPositionalEncoding(8)
    with pytest.raises(ValueError, match="last axis of size 8"):
        module(torch.zeros(2, 3, 6))
    with pytest.raises(ValueError, match="axes"):
        module(torch.zeros(2, 3, 4, 8))
    with pytest.raises(TypeError, match=r"torch\.Tensor"):
        module(np.zeros((2, 3, 8)))
    with pytest.raises(ValueError, match="offset"):
        module(torch.zeros(2, 3, 8), offset=-1)
    with pytest.raises(TypeError, match="offset"):
        module(torch.zeros(2, 3, 8), offset=1.5)
    with pytest.raises(ValueError, match="length"):
        module.encoding(-2)


# ---------------------------------------------------------------------------------------------
# rotary
# ---------------------------------------------------------------------------------------------


def test_rotary_rotates_each_pair_by_m_theta():
    head_dim, base = 6, 100.0
    rotary = RotaryEmbedding(head_dim, base, dtype=torch.float64)
    x = torch.randn(5, head_dim, dtype=torch.float64)
    out = rotary.rotate_one(x, offset=3)
    for t in range(5):
        m = 3 + t
        for i in range(head_dim // 2):
            phi = m * base ** (-2 * i / head_dim)
            c, s = math.cos(phi), math.sin(phi)
            a, b = x[t, 2 * i].item(), x[t, 2 * i + 1].item()
            assert out[t, 2 * i].item() == pytest.approx(c * a - s * b, abs=1e-12)
            assert out[t, 2 * i + 1].item() == pytest.approx(s * a + c * b, abs=1e-12)


def test_rotary_score_depends_only_on_the_offset():
    rotary = RotaryEmbedding(8, 10000.0, dtype=torch.float64)
    generator = torch.Generator().manual_seed(0)
    q = torch.randn(8, dtype=torch.float64, generator=generator)
    k = torch.randn(8, dtype=torch.float64, generator=generator)

    def score(m: int, n: int) -> float:
        qm = rotary.rotate_one(q[None], offset=m)[0]
        kn = rotary.rotate_one(k[None], offset=n)[0]
        return float(qm @ kn)

    for m, n in [(5, 2), (9, 9), (0, 7), (130, 41)]:
        for shift in (1, 17, 1000):
            assert score(m + shift, n + shift) == pytest.approx(score(m, n), abs=1e-9)
    assert score(5, 2) != pytest.approx(score(5, 3), abs=1e-3)  # but it does depend on m - n


def test_rotary_preserves_norms_and_grows_keeping_dtype_and_device():
    rotary = RotaryEmbedding(4, initial_length=2, dtype=torch.float64)
    x = torch.randn(2, 3, 40, 4, dtype=torch.float64)
    out = rotary.rotate_one(x)
    torch.testing.assert_close(out.norm(dim=-1), x.norm(dim=-1))
    assert rotary.cached_length == 64 and rotary.cos.dtype == torch.float64
    meta = RotaryEmbedding(4, initial_length=2, device="meta")
    meta.rotate_one(torch.empty(9, 4, device="meta"))
    assert meta.cos.device.type == "meta" and meta.cached_length == 16


def test_rotary_bad_arguments():
    with pytest.raises(ValueError, match="dim"):
        RotaryEmbedding(5)
    with pytest.raises(ValueError, match="last axis"):
        RotaryEmbedding(4).rotate_one(torch.zeros(3, 6))
    with pytest.raises(ValueError, match="even head dimension"):
        make_scheme("rotary", dim=12, n_heads=4)


# ---------------------------------------------------------------------------------------------
# ALiBi
# ---------------------------------------------------------------------------------------------


def test_alibi_slopes_eight_heads():
    assert alibi_slopes(8) == [2.0**-h for h in range(1, 9)]


def test_alibi_slopes_powers_of_two():
    assert alibi_slopes(1) == [2.0**-8]
    assert alibi_slopes(2) == [2.0**-4, 2.0**-8]
    assert alibi_slopes(4) == [2.0**-2, 2.0**-4, 2.0**-6, 2.0**-8]
    assert alibi_slopes(16) == pytest.approx([2.0 ** (-h / 2) for h in range(1, 17)], rel=1e-15)


def test_alibi_slopes_non_powers_of_two_by_the_papers_rule():
    # 6 heads: the 4-head slopes, then every other slope of the 8-head list, first two of them.
    assert alibi_slopes(6) == [2.0**-2, 2.0**-4, 2.0**-6, 2.0**-8, 2.0**-1, 2.0**-3]
    # 12 heads: the 8-head slopes, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5 from the 16-head list.
    expected = [2.0**-h for h in range(1, 9)] + [2.0**-0.5, 2.0**-1.5, 2.0**-2.5, 2.0**-3.5]
    assert alibi_slopes(12) == pytest.approx(expected, rel=1e-15)
    assert alibi_slopes(3) == [2.0**-4, 2.0**-8, 2.0**-2]


def _paper_slopes(n: int) -> list[float]:
    """The recursion published with the ALiBi paper, written out independently."""

    def geometric(count: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(count) - 3)))
        return [start * start**i for i in range(count)]

    if math.log2(n).is_integer():
        return geometric(n)
    closest = 2 ** math.floor(math.log2(n))
    return geometric(closest) + _paper_slopes(2 * closest)[0::2][: n - closest]


@pytest.mark.parametrize("n", range(1, 65))
def test_alibi_slopes_match_the_published_recursion(n):
    assert alibi_slopes(n) == pytest.approx(_paper_slopes(n), rel=1e-12)
    assert len(set(alibi_slopes(n))) == n  # all distinct


def test_alibi_bias_values():
    alibi = ALiBi(4)
    bias = alibi.bias(3, 5, offset=2, dtype=torch.float64)
    slopes = torch.tensor(alibi_slopes(4), dtype=torch.float64)
    for h in range(4):
        for t in range(3):
            for n in range(5):
                assert bias[h, t, n].item() == pytest.approx(-slopes[h].item() * (2 + t - n))
    symmetric = alibi.bias(4, 4, causal=False, dtype=torch.float64)
    torch.testing.assert_close(symmetric, symmetric.transpose(1, 2))
    assert torch.all(symmetric <= 0)


def test_alibi_bad_arguments():
    with pytest.raises(ValueError, match="n_heads"):
        alibi_slopes(0)
    with pytest.raises(TypeError, match="n_heads"):
        alibi_slopes(2.0)
    with pytest.raises(ValueError, match="q_len"):
        ALiBi(2).bias(0, 3)


# ---------------------------------------------------------------------------------------------
# learned, none, factory, transformer arguments
# ---------------------------------------------------------------------------------------------


def test_learned_embedding_refuses_positions_past_max_len():
    learned = LearnedPositionalEmbedding(10, 8)
    assert learned.embed(torch.zeros(2, 10, 8)).shape == (2, 10, 8)
    with pytest.raises(ValueError, match="max_len = 10"):
        learned.embed(torch.zeros(2, 4, 8), offset=7)


def test_none_adds_nothing():
    x = torch.randn(2, 3, 8)
    scheme = NoPositionalEncoding()
    assert scheme.embed(x) is x and scheme.bias(3, 3) is None


def test_make_scheme_builds_each_kind():
    kinds = {name: type(make_scheme(name, dim=16, n_heads=4, max_len=8)) for name in SCHEMES}
    assert kinds == {
        "none": NoPositionalEncoding,
        "learned": LearnedPositionalEmbedding,
        "sinusoidal": SinusoidalPositionalEncoding,
        "rotary": RotaryEmbedding,
        "alibi": ALiBi,
    }
    assert make_scheme("sinusoidal", dim=16, base=100.0).base == 100.0
    assert make_scheme("rotary", dim=16, n_heads=2).head_dim == 8


def test_transformer_bad_arguments():
    with pytest.raises(ValueError, match="scheme must be one of"):
        TinyTransformer(5, 8, 2, 1, "relative")
    with pytest.raises(TypeError, match="scheme"):
        TinyTransformer(5, 8, 2, 1, 3)
    with pytest.raises(ValueError, match="divisible"):
        TinyTransformer(5, 8, 3, 1, "none")
    with pytest.raises(ValueError, match="max_len"):
        TinyTransformer(5, 8, 2, 1, "learned")
    with pytest.raises(ValueError, match="vocab_size"):
        TinyTransformer(0, 8, 2, 1, "none")
    with pytest.raises(TypeError, match="causal"):
        TinyTransformer(5, 8, 2, 1, "none", causal="yes")
    with pytest.raises(TypeError, match="PositionScheme"):
        SelfAttention(8, 2, "rotary")
    model = TinyTransformer(5, 8, 2, 1, "none")
    with pytest.raises(TypeError, match="integer tensor"):
        model(torch.zeros(2, 3))
    with pytest.raises(ValueError, match="axes"):
        model(torch.zeros(3, dtype=torch.int64))
    with pytest.raises(ValueError, match="offset"):
        model(torch.zeros(1, 3, dtype=torch.int64), offset=-1)


def test_transformer_refuses_a_scheme_instance_of_the_wrong_size():
    # dim 16 with 4 heads: head dimension 4
    with pytest.raises(ValueError, match=r"head_dim = 8 but dim / n_heads = 4"):
        TinyTransformer(5, 16, 4, 1, RotaryEmbedding(8))
    with pytest.raises(ValueError, match=r"n_heads = 2 slopes .* n_heads = 4"):
        TinyTransformer(5, 16, 4, 1, ALiBi(2))
    with pytest.raises(ValueError, match=r"dim = 8, but the model has dim = 16"):
        TinyTransformer(5, 16, 4, 1, SinusoidalPositionalEncoding(8))
    with pytest.raises(ValueError, match=r"dim = 32, but the model has dim = 16"):
        TinyTransformer(5, 16, 4, 1, LearnedPositionalEmbedding(10, 32))
    # instances of the right size are used as given
    rotary = RotaryEmbedding(4, base=100.0)
    model = TinyTransformer(5, 16, 4, 1, rotary)
    assert model.scheme is rotary and model.blocks[0].attn.scheme is rotary
    assert model(torch.zeros(1, 6, dtype=torch.int64)).shape == (1, 6, 5)


def test_sinusoidal_encoding_length_must_be_an_integer():
    module = SinusoidalPositionalEncoding(8)
    with pytest.raises(TypeError, match="length must be an integer >= 0"):
        module.encoding(2.5)
    with pytest.raises(TypeError, match="length"):
        module.encoding(True)
    assert module.encoding(0).shape == (0, 8)
