"""Tests of posenc_lib.nn: position schemes, the sinusoidal module, and the small transformer."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from posenc_lib import sinusoidal  # noqa: E402
from posenc_lib.course.transformer import SelfAttention, TinyTransformer  # noqa: E402
from posenc_lib.nn import (  # noqa: E402
    SCHEMES,
    ALiBi,
    LearnedPositionalEmbedding,
    NoPositionalEncoding,
    RotaryEmbedding,
    SinusoidalPositionalEncoding,
    alibi_slopes,
    make_scheme,
    rotary_permutation,
)


def _model(
    scheme: str, *, causal: bool = True, seed: int = 0, dim: int = 16, heads: int = 4
):
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
    assert not torch.allclose(
        before[:, t + 1 :], after[:, t + 1 :]
    )  # the change did reach t+1


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
        torch.testing.assert_close(
            model(tokens, offset=37), model(tokens), rtol=1e-4, atol=1e-5
        )


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
    module = SinusoidalPositionalEncoding(
        dim, base, initial_length=40, dtype=torch.float64
    )
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
    module = SinusoidalPositionalEncoding(8, initial_length=16, batch_first=True)
    x = torch.randn(2, 10, 8)
    torch.testing.assert_close(module(x) - x, module.table[:10].expand(2, 10, 8))


def test_table_is_not_saved_unless_asked():
    assert "table" not in SinusoidalPositionalEncoding(8).state_dict()
    assert "table" in SinusoidalPositionalEncoding(8, persistent=True).state_dict()
    model = TinyTransformer(5, 8, 2, 1, "sinusoidal")
    assert not any(key.endswith("table") for key in model.state_dict())


def test_persistent_table_of_another_length_loads():
    saved = SinusoidalPositionalEncoding(8, initial_length=64, persistent=True)
    fresh = SinusoidalPositionalEncoding(
        8, initial_length=4, persistent=True, dtype=torch.float64
    )
    fresh.load_state_dict(saved.state_dict())
    assert fresh.cached_length == 64
    assert fresh.table.dtype == torch.float64  # keeps its own dtype
    torch.testing.assert_close(fresh.table, saved.table.double())


def test_non_persistent_module_loads_a_state_dict_without_the_table():
    module = SinusoidalPositionalEncoding(8)
    module.load_state_dict({})  # nothing is required


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_growth_keeps_dtype(dtype):
    module = SinusoidalPositionalEncoding(
        8, initial_length=4, dtype=dtype, batch_first=True
    )
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
    module = SinusoidalPositionalEncoding(8, initial_length=4, batch_first=True).cuda()
    out = module(torch.zeros(2, 40, 8, device="cuda"))
    assert module.table.is_cuda and out.is_cuda


def test_growth_rounds_up_to_a_power_of_two():
    module = SinusoidalPositionalEncoding(8, initial_length=4, batch_first=True)
    module(torch.zeros(1, 5, 8))
    assert module.cached_length == 8
    module.encoding(1, offset=100)
    assert module.cached_length == 128


def test_batch_first_and_sequence_first_agree():
    x = torch.randn(3, 9, 8)
    batch_first = SinusoidalPositionalEncoding(8, batch_first=True)
    seq_first = SinusoidalPositionalEncoding(8, batch_first=False)
    torch.testing.assert_close(
        seq_first(x.transpose(0, 1)).transpose(0, 1), batch_first(x)
    )
    torch.testing.assert_close(seq_first(x[0]), batch_first(x[0]))  # unbatched (L, d)


def test_offset_for_incremental_decoding():
    module = SinusoidalPositionalEncoding(8, initial_length=4, batch_first=True)
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
    module = SinusoidalPositionalEncoding(8, initial_length=4, batch_first=True).to(
        "meta"
    )
    out = module(torch.empty(1, 40, 8, device="meta"))
    assert module.table.device.type == "meta" and out.device.type == "meta"
    assert module.cached_length == 64


def test_input_dtype_differs_from_table_dtype():
    module = SinusoidalPositionalEncoding(8, dtype=torch.float64, batch_first=True)
    x = torch.zeros(1, 4, 8, dtype=torch.float32)
    out = module(x)
    assert out.dtype == torch.float32
    torch.testing.assert_close(out[0], module.table[:4].float())


def test_works_under_torch_compile():
    torch._dynamo.reset()
    module = SinusoidalPositionalEncoding(16, initial_length=8, batch_first=True)
    compiled = torch.compile(module, backend="eager")
    x = torch.randn(2, 5, 16)
    assert torch.equal(compiled(x), x + module.table[:5])
    long = torch.randn(2, 20, 16)  # grows inside the compiled call
    assert torch.equal(compiled(long), long + module.table[:20])
    assert module.cached_length == 32
    assert torch.equal(
        compiled(long[:, :1], offset=40), long[:, :1] + module.table[40:41]
    )


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
    assert score(5, 2) != pytest.approx(
        score(5, 3), abs=1e-3
    )  # but it does depend on m - n


def test_rotary_preserves_norms_and_grows_keeping_dtype_and_device():
    rotary = RotaryEmbedding(4, initial_length=2, dtype=torch.float64)
    x = torch.randn(2, 3, 40, 4, dtype=torch.float64)
    out = rotary.rotate_one(x, seq_axis=-2)
    torch.testing.assert_close(out.norm(dim=-1), x.norm(dim=-1))
    assert rotary.cached_length == 64 and rotary.cos.dtype == torch.float64
    meta = RotaryEmbedding(4, initial_length=2, device="meta")
    meta.rotate_one(torch.empty(9, 4, device="meta"))
    assert meta.cos.device.type == "meta" and meta.cached_length == 16


# ---------------------------------------------------------------------------------------------
# ALiBi
# ---------------------------------------------------------------------------------------------


def test_alibi_slopes_eight_heads():
    assert alibi_slopes(8) == [2.0**-h for h in range(1, 9)]


def test_alibi_slopes_powers_of_two():
    assert alibi_slopes(1) == [2.0**-8]
    assert alibi_slopes(2) == [2.0**-4, 2.0**-8]
    assert alibi_slopes(4) == [2.0**-2, 2.0**-4, 2.0**-6, 2.0**-8]
    assert alibi_slopes(16) == pytest.approx(
        [2.0 ** (-h / 2) for h in range(1, 17)], rel=1e-15
    )


def test_alibi_slopes_non_powers_of_two_by_the_papers_rule():
    # 6 heads: the 4-head slopes, then every other slope of the 8-head list, first two of them.
    assert alibi_slopes(6) == [2.0**-2, 2.0**-4, 2.0**-6, 2.0**-8, 2.0**-1, 2.0**-3]
    # 12 heads: the 8-head slopes, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5 from the 16-head list.
    expected = [2.0**-h for h in range(1, 9)] + [
        2.0**-0.5,
        2.0**-1.5,
        2.0**-2.5,
        2.0**-3.5,
    ]
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
                assert bias[h, t, n].item() == pytest.approx(
                    -slopes[h].item() * (2 + t - n)
                )
    symmetric = alibi.bias(4, 4, causal=False, dtype=torch.float64)
    torch.testing.assert_close(symmetric, symmetric.transpose(1, 2))
    assert torch.all(symmetric <= 0)


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
    kinds = {
        name: type(make_scheme(name, dim=16, n_heads=4, max_len=8)) for name in SCHEMES
    }
    assert kinds == {
        "none": NoPositionalEncoding,
        "learned": LearnedPositionalEmbedding,
        "sinusoidal": SinusoidalPositionalEncoding,
        "rotary": RotaryEmbedding,
        "alibi": ALiBi,
    }
    assert make_scheme("sinusoidal", dim=16, base=100.0).base == 100.0
    assert make_scheme("rotary", dim=16, n_heads=2).head_dim == 8


def test_transformer_refuses_a_scheme_instance_of_the_wrong_size():
    # dim 16 with 4 heads: head dimension 4
    with pytest.raises(ValueError, match=r"\bhead_dim\b.*\bn_heads\b"):
        TinyTransformer(5, 16, 4, 1, RotaryEmbedding(8))
    with pytest.raises(ValueError, match=r"n_heads = 2, but the model has n_heads = 4"):
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
    with pytest.raises(TypeError, match=r"^length\b"):
        module.encoding(2.5)
    with pytest.raises(TypeError, match=r"^length\b"):
        module.encoding(True)
    assert module.encoding(0).shape == (0, 8)


# ---------------------------------------------------------------------------------------------
# the sequence axis is explicit
# ---------------------------------------------------------------------------------------------


def test_three_axis_input_needs_batch_first():
    module = SinusoidalPositionalEncoding(8)  # batch_first not given
    with pytest.raises(
        ValueError, match="batch_first=True for \\(batch, length, dim\\)"
    ):
        module(torch.zeros(2, 5, 8))
    table = module.table[:5]
    assert torch.equal(module(torch.zeros(5, 8)), table)  # (L, dim) is unambiguous
    assert torch.equal(
        module.embed(torch.zeros(2, 5, 8)), table.expand(2, 5, 8)
    )  # batch-first


def test_sequence_first_input_of_torch_transformer_gets_positions_along_the_sequence():
    # torch.nn.Transformer's default layout is (S, N, E); with batch_first=False every batch
    # entry gets the same row at the same sequence index.
    module = SinusoidalPositionalEncoding(8, batch_first=False)
    s, n = 7, 3
    out = module(torch.zeros(s, n, 8))
    for t in range(s):
        for b in range(n):
            assert torch.equal(out[t, b], module.table[t])


def test_rotary_needs_the_sequence_axis_and_reads_it():
    rotary = RotaryEmbedding(8, dtype=torch.float64)
    bhld = torch.randn(2, 3, 5, 8, dtype=torch.float64)
    with pytest.raises(ValueError, match="pass seq_axis"):
        rotary.rotate_one(bhld)
    blhd = bhld.transpose(1, 2)  # (batch, L, heads, head_dim)
    expected = rotary.rotate_one(bhld, seq_axis=-2)
    assert torch.equal(rotary.rotate_one(blhd, seq_axis=1), expected.transpose(1, 2))
    assert torch.equal(rotary.rotate_one(bhld, seq_axis=2), expected)
    # each (batch, head) slice is the 2-D rotation of its (L, head_dim) rows
    assert torch.equal(expected[1, 2], rotary.rotate_one(bhld[1, 2]))
    with pytest.raises(ValueError, match=r"^seq_axis\b"):
        rotary.rotate_one(bhld, seq_axis=3)
    with pytest.raises(ValueError, match=r"^seq_axis\b"):
        rotary.rotate_one(bhld, seq_axis=-5)
    with pytest.raises(TypeError, match=r"^seq_axis\b"):
        rotary.rotate_one(bhld, seq_axis=True)


@pytest.mark.parametrize(
    "dtype", [torch.int64, torch.int32, torch.bool, torch.complex64]
)
def test_non_floating_inputs_are_refused(dtype):
    x = torch.zeros(2, 5, 8, dtype=dtype)
    with pytest.raises(TypeError, match=r"^x\b"):
        SinusoidalPositionalEncoding(8, batch_first=True)(x)
    with pytest.raises(TypeError, match=r"^x\b"):
        RotaryEmbedding(8).rotate_one(x, seq_axis=1)
    with pytest.raises(TypeError, match=r"^x\b"):
        LearnedPositionalEmbedding(8, 8).embed(x)
    with pytest.raises(TypeError, match=r"^x\b"):
        SelfAttention(8, 2, NoPositionalEncoding())(x)


def test_inputs_that_require_grad_get_their_gradient():
    # the added table is a constant: d(sum(x + P))/dx = 1
    x = torch.randn(2, 5, 8, dtype=torch.float64, requires_grad=True)
    SinusoidalPositionalEncoding(8, batch_first=True, dtype=torch.float64)(
        x
    ).sum().backward()
    assert torch.equal(x.grad, torch.ones_like(x))
    # rotation is orthogonal: the gradient of <R_m x, g> is R_m^T g = R_{-m} g, computed here
    # through negative positions
    rotary = RotaryEmbedding(8, dtype=torch.float64)
    x = torch.randn(6, 8, dtype=torch.float64, requires_grad=True)
    g = torch.randn(6, 8, dtype=torch.float64)
    (rotary.rotate_one(x, offset=3) * g).sum().backward()
    back = rotary.rotate_one(g, positions=-torch.arange(3, 9))
    torch.testing.assert_close(x.grad, back, rtol=0, atol=1e-14)


# ---------------------------------------------------------------------------------------------
# rotary: pairings, the permutation between them, partial rotary, interpolation
# ---------------------------------------------------------------------------------------------


def test_half_split_rotates_feature_i_with_feature_i_plus_half():
    head_dim, base = 6, 100.0
    rotary = RotaryEmbedding(head_dim, base, pairing="half_split", dtype=torch.float64)
    x = torch.randn(5, head_dim, dtype=torch.float64)
    out = rotary.rotate_one(x, offset=3)
    half = head_dim // 2
    for t in range(5):
        for i in range(half):
            phi = (3 + t) * base ** (-2 * i / head_dim)
            c, s = math.cos(phi), math.sin(phi)
            a, b = x[t, i].item(), x[t, i + half].item()
            assert out[t, i].item() == pytest.approx(c * a - s * b, abs=1e-12)
            assert out[t, i + half].item() == pytest.approx(s * a + c * b, abs=1e-12)


def test_rotary_permutation_values():
    assert rotary_permutation(8).tolist() == [0, 4, 1, 5, 2, 6, 3, 7]
    assert rotary_permutation(8, "interleaved", "half_split").tolist() == [
        0,
        2,
        4,
        6,
        1,
        3,
        5,
        7,
    ]
    assert rotary_permutation(8, "interleaved", "interleaved").tolist() == list(
        range(8)
    )
    # partial: only the first rotary_dim features move
    assert rotary_permutation(8, rotary_dim=4).tolist() == [0, 2, 1, 3, 4, 5, 6, 7]
    for head_dim, rotary_dim in [(2, 2), (8, 8), (12, 4), (64, 32)]:
        there = rotary_permutation(head_dim, rotary_dim=rotary_dim)
        back = rotary_permutation(
            head_dim, "interleaved", "half_split", rotary_dim=rotary_dim
        )
        assert torch.equal(there[back], torch.arange(head_dim))  # inverse permutations
        assert sorted(there.tolist()) == list(range(head_dim))


@pytest.mark.parametrize(
    ("head_dim", "rotary_dim"), [(8, 8), (16, 16), (12, 8), (64, 16)]
)
def test_the_two_pairings_are_one_rotation_up_to_the_permutation(head_dim, rotary_dim):
    kwargs = {"rotary_dim": rotary_dim, "dtype": torch.float64}
    half = RotaryEmbedding(head_dim, pairing="half_split", **kwargs)
    inter = RotaryEmbedding(head_dim, pairing="interleaved", **kwargs)
    perm = rotary_permutation(
        head_dim, "half_split", "interleaved", rotary_dim=rotary_dim
    )
    x = torch.randn(2, 3, 40, head_dim, dtype=torch.float64)
    # rot_interleaved(x[perm]) == rot_half_split(x)[perm], bit for bit (same arithmetic)
    assert torch.equal(
        inter.rotate_one(x[..., perm], offset=7, seq_axis=2),
        half.rotate_one(x, offset=7, seq_axis=2)[..., perm],
    )
    # so scores agree when q and k are both permuted ...
    q, k = torch.randn(2, 40, head_dim, dtype=torch.float64).unbind(0)
    scores_half = half.rotate_one(q) @ half.rotate_one(k).T
    scores_inter = inter.rotate_one(q[:, perm]) @ inter.rotate_one(k[:, perm]).T
    torch.testing.assert_close(scores_inter, scores_half, rtol=0, atol=1e-12)
    # ... and do not agree when the same unpermuted q, k meet the other pairing
    assert (inter.rotate_one(q) @ inter.rotate_one(k).T - scores_half).abs().max() > 0.1


def test_partial_rotary_rotates_the_first_rotary_dim_features_only():
    head_dim, rotary_dim = 12, 4
    for pairing in ("interleaved", "half_split"):
        partial = RotaryEmbedding(
            head_dim, 500.0, pairing=pairing, rotary_dim=rotary_dim, dtype=torch.float64
        )
        full = RotaryEmbedding(rotary_dim, 500.0, pairing=pairing, dtype=torch.float64)
        x = torch.randn(9, head_dim, dtype=torch.float64)
        out = partial.rotate_one(x, offset=2)
        assert torch.equal(out[:, rotary_dim:], x[:, rotary_dim:])  # passed through
        assert torch.equal(
            out[:, :rotary_dim], full.rotate_one(x[:, :rotary_dim], offset=2)
        )
    # the frequencies are those of rotary_dim: theta_i = b^(-2i/rotary_dim)
    assert partial.cos[5, 1].item() == pytest.approx(
        math.cos(5 * 500.0 ** (-2 / 4)), abs=1e-15
    )


def test_linear_position_interpolation_rotates_position_m_as_m_over_s():
    s = 4.0
    scaled = RotaryEmbedding(8, interpolation_factor=s, dtype=torch.float64)
    plain = RotaryEmbedding(8, dtype=torch.float64)
    x = torch.randn(30, 8, dtype=torch.float64)
    fractional = torch.arange(5, 35, dtype=torch.float64) / s
    torch.testing.assert_close(
        scaled.rotate_one(x, offset=5),
        plain.rotate_one(x, positions=fractional),
        rtol=0,
        atol=1e-15,
    )
    phi = 7 / s * 10000.0 ** (-2 / 8)  # pair 1 at position 7
    assert scaled.cos[7, 1].item() == pytest.approx(math.cos(phi), abs=1e-15)
    # the score still depends only on m - n
    q, k = torch.randn(2, 1, 8, dtype=torch.float64).unbind(0)
    score = lambda m, n: float(scaled.rotate_one(q, m) @ scaled.rotate_one(k, n).T)  # noqa: E731
    assert score(50, 20) == pytest.approx(score(130, 100), abs=1e-12)


# ---------------------------------------------------------------------------------------------
# positions as a tensor: per-row position ids, left-padded batches, cache_position
# ---------------------------------------------------------------------------------------------


def test_rotary_positions_tensor_equals_the_offset_progression():
    rotary = RotaryEmbedding(8, dtype=torch.float64)
    x = torch.randn(2, 3, 6, 8, dtype=torch.float64)
    by_offset = rotary.rotate_one(x, offset=11, seq_axis=2)
    by_positions = rotary.rotate_one(x, positions=torch.arange(11, 17), seq_axis=2)
    torch.testing.assert_close(by_positions, by_offset, rtol=0, atol=1e-15)
    # float32: the cached and the direct route round the same float64 values once
    rotary32 = RotaryEmbedding(8)
    x32 = x.float()
    torch.testing.assert_close(
        rotary32.rotate_one(x32, positions=torch.arange(11, 17), seq_axis=2),
        rotary32.rotate_one(x32, offset=11, seq_axis=2),
        rtol=0,
        atol=4 * torch.finfo(torch.float32).eps * float(x32.abs().max()),
    )


def test_rotary_per_row_positions_of_a_left_padded_batch():
    # row 0 has 2 pad tokens on the left, row 1 none: position ids count real tokens only
    rotary = RotaryEmbedding(8, pairing="half_split", dtype=torch.float64)
    mask = torch.tensor([[0, 0, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1]])
    ids = (mask.cumsum(-1) - 1).clamp(min=0)
    q = torch.randn(2, 4, 6, 8, dtype=torch.float64)  # (batch, heads, L, head_dim)
    out = rotary.rotate_one(q, positions=ids, seq_axis=2)
    for b in range(2):
        real = mask[b].bool()
        alone = rotary.rotate_one(
            q[b][:, real], seq_axis=1
        )  # the row's real tokens, unpadded
        torch.testing.assert_close(out[b][:, real], alone, rtol=0, atol=1e-15)
    # one row of positions broadcasts over the batch
    shared = rotary.rotate_one(q, positions=ids[1:], seq_axis=2)
    torch.testing.assert_close(
        shared, rotary.rotate_one(q, seq_axis=2), rtol=0, atol=1e-15
    )


def test_rotary_cache_position_for_incremental_decoding():
    rotary = RotaryEmbedding(8, dtype=torch.float64)
    x = torch.randn(1, 2, 10, 8, dtype=torch.float64)
    full = rotary.rotate_one(x, seq_axis=2)
    steps = [
        rotary.rotate_one(x[:, :, t : t + 1], positions=torch.tensor([t]), seq_axis=2)
        for t in range(10)
    ]
    torch.testing.assert_close(torch.cat(steps, dim=2), full, rtol=0, atol=1e-15)


def test_sinusoidal_positions_tensor():
    module = SinusoidalPositionalEncoding(8, batch_first=True, dtype=torch.float64)
    x = torch.zeros(2, 5, 8, dtype=torch.float64)
    by_positions = module(x, positions=torch.arange(3, 8))
    torch.testing.assert_close(by_positions, module(x, offset=3), rtol=0, atol=1e-15)
    ids = torch.tensor([[0, 0, 0, 1, 2], [4, 5, 6, 7, 8]])  # per row
    out = module(x, positions=ids)
    for b in range(2):
        expected = torch.from_numpy(sinusoidal(ids[b].numpy(), 8))
        torch.testing.assert_close(out[b], expected, rtol=0, atol=1e-15)
    fractional = torch.tensor([0.5, 1.25, 2.0, 1e6 + 0.5, -3.0], dtype=torch.float64)
    expected = torch.from_numpy(sinusoidal(fractional.numpy(), 8))
    torch.testing.assert_close(
        module(x[0], positions=fractional), expected, rtol=0, atol=1e-15
    )
    seq_first = SinusoidalPositionalEncoding(8, batch_first=False, dtype=torch.float64)
    got = seq_first(x.transpose(0, 1), positions=ids)
    torch.testing.assert_close(got.transpose(0, 1), out, rtol=0, atol=0)


def test_alibi_and_learned_take_positions():
    alibi = ALiBi(4)
    ids = torch.tensor([[0, 0, 0, 1, 2], [0, 1, 2, 3, 4]])
    bias = alibi.bias(5, 5, positions=ids, dtype=torch.float64)
    assert bias.shape == (2, 4, 5, 5)
    torch.testing.assert_close(
        bias[1], alibi.bias(5, 5, dtype=torch.float64), rtol=0, atol=0
    )
    torch.testing.assert_close(
        bias[0, :, 2:, 2:], alibi.bias(3, 3, dtype=torch.float64), rtol=0, atol=0
    )
    last = alibi.bias(
        1, 5, positions=ids[1], dtype=torch.float64
    )  # the last query only
    torch.testing.assert_close(last, alibi.bias(1, 5, offset=4, dtype=torch.float64))
    learned = LearnedPositionalEmbedding(10, 8)
    x = torch.zeros(2, 5, 8)
    torch.testing.assert_close(learned.embed(x, positions=ids)[0, 4], learned.weight[2])
    with pytest.raises(ValueError, match=r"^positions\b"):
        learned.embed(x, positions=ids + 8)
    with pytest.raises(TypeError, match="integers"):
        learned.embed(x, positions=ids.double())


def test_transformer_positions_equal_offset():
    model = _model("rotary")
    tokens = _tokens(2, 6)
    with torch.no_grad():
        by_offset = model(tokens, offset=5)
        by_positions = model(tokens, positions=torch.arange(5, 11))
    torch.testing.assert_close(by_positions, by_offset, rtol=0, atol=1e-5)


def test_positions_bad_arguments():
    rotary = RotaryEmbedding(8)
    x = torch.zeros(2, 3, 5, 8)
    cases = [
        ([0, 1, 2, 3, 4], TypeError, "positions must be a torch.Tensor"),
        (torch.zeros(5, dtype=torch.bool), TypeError, "real numbers"),
        (torch.zeros(5, dtype=torch.complex64), TypeError, "real numbers"),
        (torch.zeros(4), ValueError, r"shape \(5,\) or \(2, 5\)"),
        (torch.zeros(3, 5), ValueError, "one row per batch entry"),
        (torch.zeros(2, 5, 1), ValueError, "shape"),
        (torch.tensor([0.0, 1, float("nan"), 3, 4]), ValueError, "finite"),
        (torch.tensor([0.0, 1, 2, 3, 2.0**60]), ValueError, "2\\*\\*52"),
        (torch.zeros(5, requires_grad=True), ValueError, "must not require grad"),
    ]
    for positions, error, match in cases:
        with pytest.raises(error, match=match):
            rotary.rotate_one(x, positions=positions, seq_axis=2)
    with pytest.raises(ValueError, match="offset or positions, not both"):
        rotary.rotate_one(x, 2, positions=torch.arange(5), seq_axis=2)
    sin = SinusoidalPositionalEncoding(8, batch_first=True)
    with pytest.raises(ValueError, match="offset or positions, not both"):
        sin(torch.zeros(2, 5, 8), 1, positions=torch.arange(5))
    with pytest.raises(
        ValueError, match=r"shape \(5,\)"
    ):  # 2-D x: one row of positions only
        sin(torch.zeros(5, 8), positions=torch.zeros(2, 5))


# ---------------------------------------------------------------------------------------------
# loading and devices: buffers are recomputed, never trusted
# ---------------------------------------------------------------------------------------------


def _exact_table(length: int, dim: int = 8, dtype=torch.float32) -> torch.Tensor:
    return torch.from_numpy(sinusoidal(length, dim)).to(dtype)


def test_casting_recomputes_the_table_instead_of_widening_it():
    module = SinusoidalPositionalEncoding(8, initial_length=64).to(torch.float64)
    assert torch.equal(
        module.table, _exact_table(64, dtype=torch.float64)
    )  # not float32 widened
    rotary = RotaryEmbedding(8, initial_length=64).double()
    exact_cos = torch.from_numpy(np.cos(rotary_angles(64, 8)))
    assert (rotary.cos - exact_cos).abs().max() < 1e-14  # a widened float32 is 1e-8 off
    alibi = ALiBi(12).half()
    assert (
        alibi.slopes.dtype == torch.float64
        and alibi.slopes.tolist() == alibi_slopes(12)
    )


def rotary_angles(length: int, head_dim: int) -> np.ndarray:
    return np.arange(length)[:, None] * 10000.0 ** (
        -np.arange(0, head_dim, 2) / head_dim
    )


def test_to_empty_after_meta_init_gives_correct_buffers():
    with torch.device("meta"):
        sin = SinusoidalPositionalEncoding(8, initial_length=16)
        rotary = RotaryEmbedding(8, initial_length=16)
        alibi = ALiBi(6)
    assert sin.table.is_meta and rotary.cos.is_meta and alibi.slopes.is_meta
    for module in (sin, rotary, alibi):
        module.to_empty(device="cpu")
    assert torch.equal(sin.table, _exact_table(16))
    torch.testing.assert_close(
        rotary.cos, torch.from_numpy(np.cos(rotary_angles(16, 8))).float()
    )
    assert alibi.slopes.tolist() == alibi_slopes(6)


def test_replaced_buffers_are_recomputed_before_use():
    # what Hugging Face's from_pretrained does to non-persistent buffers: torch.empty_like
    sin = SinusoidalPositionalEncoding(8, initial_length=16)
    sin.table = torch.full_like(sin.table, float("nan"))
    assert torch.equal(sin(torch.zeros(16, 8)), _exact_table(16))
    rotary = RotaryEmbedding(8, initial_length=16)
    rotary.cos = torch.full_like(rotary.cos, 1e10)
    x = torch.randn(16, 8)
    torch.testing.assert_close(rotary.rotate_one(x), RotaryEmbedding(8).rotate_one(x))
    alibi = ALiBi(4)
    alibi.slopes = torch.zeros_like(alibi.slopes)
    assert alibi.bias(2, 2)[0, 1, 0].item() == -0.25


def test_reset_parameters_recomputes_buffers_overwritten_in_place():
    sin = SinusoidalPositionalEncoding(8, initial_length=16)
    sin.table.fill_(float("nan"))  # in place: only reset_parameters() can know
    sin.reset_parameters()
    assert torch.equal(sin.table, _exact_table(16))
    rotary = RotaryEmbedding(8, initial_length=16)
    rotary.sin.zero_()
    rotary.reset_parameters()
    torch.testing.assert_close(
        rotary.sin, torch.from_numpy(np.sin(rotary_angles(16, 8))).float()
    )
    learned = LearnedPositionalEmbedding(4, 8)
    torch.manual_seed(3)
    learned.reset_parameters()
    first = learned.weight.detach().clone()
    torch.manual_seed(3)
    learned.reset_parameters()
    assert torch.equal(learned.weight, first)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_meta_init_to_empty_reset_and_load_reproduces_the_logits(scheme):
    model = _model(scheme)
    tokens = _tokens(2, 9)
    state = model.state_dict()
    with torch.no_grad():
        expected = model(tokens)
    # 1. meta + to_empty (no reset): the position buffers are right anyway
    with torch.device("meta"):
        fresh = TinyTransformer(11, 16, 4, 2, scheme, max_len=64)
    fresh.to_empty(device="cpu")
    fresh.load_state_dict(state)
    with torch.no_grad():
        torch.testing.assert_close(fresh.eval()(tokens), expected, rtol=0, atol=1e-6)
    # 2. meta + to_empty + reset_parameters() + load
    with torch.device("meta"):
        fresh = TinyTransformer(11, 16, 4, 2, scheme, max_len=64)
    fresh.to_empty(device="cpu")
    fresh.reset_parameters()
    assert all(torch.isfinite(p).all() for p in fresh.parameters())
    fresh.load_state_dict(state)
    with torch.no_grad():
        torch.testing.assert_close(fresh.eval()(tokens), expected, rtol=0, atol=1e-6)
    # 3. meta + load_state_dict(assign=True): the buffers stay on meta until first use
    with torch.device("meta"):
        fresh = TinyTransformer(11, 16, 4, 2, scheme, max_len=64)
    fresh.load_state_dict(state, assign=True)
    with torch.no_grad():
        torch.testing.assert_close(fresh.eval()(tokens), expected, rtol=0, atol=1e-6)


# ---------------------------------------------------------------------------------------------
# compile and export
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["sinusoidal", "rotary", "alibi"])
def test_torch_export_with_a_dynamic_length(scheme):
    from torch.export import Dim, export

    model = _model(scheme)
    cached = model.scheme.cached_length if scheme != "alibi" else 64
    tokens = _tokens(2, 12)
    program = export(
        model, (tokens,), dynamic_shapes={"tokens": {1: Dim("L", max=cached)}}
    )
    with torch.no_grad():
        for length in (3, 12, 40):
            got = program.module()(tokens.repeat(1, 4)[:, :length])
            expected = model(tokens.repeat(1, 4)[:, :length])
            torch.testing.assert_close(got, expected, rtol=0, atol=1e-6)


def test_compile_fullgraph_after_extending_the_cache():
    torch._dynamo.reset()
    module = SinusoidalPositionalEncoding(16, initial_length=8, batch_first=True)
    module.extend(64)
    compiled = torch.compile(module, backend="eager", fullgraph=True)
    x = torch.randn(2, 50, 16)
    assert torch.equal(compiled(x), x + module.table[:50])
    rotary = RotaryEmbedding(8, initial_length=8)
    rotary.extend(64)
    rotate = torch.compile(rotary.rotate_one, backend="eager", fullgraph=True)
    q = torch.randn(2, 3, 50, 8)
    assert torch.equal(rotate(q, seq_axis=2), rotary.rotate_one(q, seq_axis=2))
    assert (
        module.cached_length == 64 and rotary.cached_length == 64
    )  # no growth happened


def test_compile_fullgraph_needing_growth_names_the_fix():
    torch._dynamo.reset()
    module = SinusoidalPositionalEncoding(16, initial_length=8, batch_first=True)
    compiled = torch.compile(module, backend="eager", fullgraph=True)
    with pytest.raises(Exception, match=r"call extend\(n\) first"):
        compiled(torch.randn(2, 20, 16))


# ---------------------------------------------------------------------------------------------
# guards before allocation, and errors that name the argument (issue 16's findings for nn)
# ---------------------------------------------------------------------------------------------


def test_huge_offsets_are_computed_without_a_huge_cache():
    rotary = RotaryEmbedding(8, initial_length=16, dtype=torch.float64)
    x = torch.randn(3, 8, dtype=torch.float64)
    out = rotary.rotate_one(x, offset=2**40)  # used to raise MemoryError
    assert rotary.cached_length == 16
    torch.testing.assert_close(
        out,
        rotary.rotate_one(x, positions=torch.arange(2**40, 2**40 + 3)),
        rtol=0,
        atol=0,
    )
    module = SinusoidalPositionalEncoding(8, initial_length=16, dtype=torch.float64)
    expected = sinusoidal(np.arange(2**40, 2**40 + 3), 8)
    np.testing.assert_allclose(
        module.encoding(3, offset=2**40).numpy(), expected, atol=1e-9
    )
    assert module.cached_length == 16
    with pytest.raises(ValueError, match=r"^offset\b"):
        rotary.rotate_one(x, offset=2**53)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_positions_to_empty_and_assign():  # pragma: no cover - runs only where a GPU exists
    rotary = RotaryEmbedding(8, pairing="half_split").cuda()
    q = torch.randn(2, 3, 6, 8, device="cuda")
    ids = torch.tensor([[0, 0, 0, 1, 2, 3], [0, 1, 2, 3, 4, 5]], device="cuda")
    out = rotary.rotate_one(q, positions=ids, seq_axis=2)
    cpu = RotaryEmbedding(8, pairing="half_split").rotate_one(
        q.cpu(), positions=ids.cpu(), seq_axis=2
    )
    torch.testing.assert_close(out.cpu(), cpu)
    model = _model("rotary")
    tokens = _tokens(2, 9)
    with torch.no_grad():
        expected = model(tokens)
    with torch.device("meta"):
        fresh = TinyTransformer(11, 16, 4, 2, "rotary", max_len=64)
    fresh.to_empty(device="cuda")
    fresh.load_state_dict(model.state_dict())
    with torch.no_grad():
        got = fresh.eval()(tokens.cuda())
    torch.testing.assert_close(got.cpu(), expected, rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------------------------
# bad arguments: each is refused at the public edge with an error that names it
# ---------------------------------------------------------------------------------------------


def _sinusoidal_bf() -> SinusoidalPositionalEncoding:
    return SinusoidalPositionalEncoding(8, batch_first=True)


def _tiny() -> TinyTransformer:
    return TinyTransformer(5, 8, 2, 1, "none")


def _attn() -> SelfAttention:
    return SelfAttention(8, 2, NoPositionalEncoding())


BIG = 2**40
# id: (the call, the error it raises, what the message must match)
BAD_CALLS = {
    # SinusoidalPositionalEncoding
    "sin-dim-odd": (lambda: SinusoidalPositionalEncoding(7), ValueError, r"^dim\b"),
    "sin-base-1": (lambda: SinusoidalPositionalEncoding(8, base=1.0), ValueError, r"^base\b"),
    "sin-layout": (
        lambda: SinusoidalPositionalEncoding(8, layout="sideways"), ValueError, r"^layout\b"
    ),
    "sin-persistent": (
        lambda: SinusoidalPositionalEncoding(8, persistent="yes"), TypeError, r"^persistent\b"
    ),
    "sin-batch_first": (
        lambda: SinusoidalPositionalEncoding(8, batch_first=1), TypeError, r"^batch_first\b"
    ),
    "sin-dtype": (
        lambda: SinusoidalPositionalEncoding(8, dtype=torch.int32), TypeError, r"^dtype\b"
    ),
    "sin-initial_length-0": (
        lambda: SinusoidalPositionalEncoding(8, initial_length=0), ValueError, r"^initial_length\b"
    ),
    "sin-x-dim": (lambda: _sinusoidal_bf()(torch.zeros(2, 3, 6)), ValueError, r"^x\b.*\b8\b"),
    "sin-x-axes": (lambda: _sinusoidal_bf()(torch.zeros(2, 3, 4, 8)), ValueError, "axes"),
    "sin-x-numpy": (lambda: _sinusoidal_bf()(np.zeros((2, 3, 8))), TypeError, r"torch\.Tensor"),
    "sin-offset-negative": (
        lambda: _sinusoidal_bf()(torch.zeros(2, 3, 8), offset=-1), ValueError, r"^offset\b"
    ),
    "sin-offset-float": (
        lambda: _sinusoidal_bf()(torch.zeros(2, 3, 8), offset=1.5), TypeError, r"^offset\b"
    ),
    "sin-length-negative": (lambda: _sinusoidal_bf().encoding(-2), ValueError, r"^length\b"),
    # RotaryEmbedding, rotary_permutation
    "rot-head_dim-5": (lambda: RotaryEmbedding(5), ValueError, r"^head_dim\b"),
    "rot-head_dim-7": (lambda: RotaryEmbedding(7), ValueError, r"^head_dim\b"),
    "rot-head_dim-float": (lambda: RotaryEmbedding(8.0), TypeError, r"^head_dim\b"),
    "rot-last-axis": (
        lambda: RotaryEmbedding(4).rotate_one(torch.zeros(3, 6)), ValueError, "last axis"
    ),
    "rot-rotary_dim-3": (lambda: RotaryEmbedding(8, rotary_dim=3), ValueError, r"^rotary_dim\b"),
    "rot-rotary_dim-10": (lambda: RotaryEmbedding(8, rotary_dim=10), ValueError, r"^rotary_dim\b"),
    "rot-pairing": (
        lambda: RotaryEmbedding(8, pairing="neox"), ValueError, r"^pairing\b.*'interleaved'"
    ),
    **{
        f"rot-interpolation_factor-{bad}": (
            lambda bad=bad: RotaryEmbedding(8, interpolation_factor=bad), ValueError,
            r"^interpolation_factor\b",
        )
        for bad in (0, -1.0, float("nan"), float("inf"))
    },
    "rot-interpolation_factor-bool": (
        lambda: RotaryEmbedding(8, interpolation_factor=True), TypeError, r"^interpolation_factor\b"
    ),
    "permutation-head_dim": (
        lambda: rotary_permutation(6, rotary_dim=8), ValueError, r"\bhead_dim\b"
    ),
    "permutation-source": (lambda: rotary_permutation(8, "complex"), ValueError, r"^source\b"),
    # alibi_slopes, ALiBi
    "alibi-n_heads-0": (lambda: alibi_slopes(0), ValueError, r"^n_heads\b"),
    "alibi-n_heads-float": (lambda: alibi_slopes(2.0), TypeError, r"^n_heads\b"),
    "alibi-q_len-0": (lambda: ALiBi(2).bias(0, 3), ValueError, r"^q_len\b"),
    "alibi-dtype": (lambda: ALiBi(2).bias(3, 3, dtype=torch.int64), TypeError, r"^dtype\b"),
    "alibi-causal": (lambda: ALiBi(2).bias(3, 3, causal=None), TypeError, r"^causal\b"),
    "alibi-q_len-positions": (
        lambda: ALiBi(2).bias(4, 3, positions=torch.arange(3)), ValueError, r"^q_len\b"
    ),
    # sizes capped before any allocation
    "cap-sin-initial_length": (
        lambda: SinusoidalPositionalEncoding(8, initial_length=BIG),
        ValueError, r"^initial_length x dim\b",
    ),
    "cap-rot-initial_length": (
        lambda: RotaryEmbedding(8, initial_length=BIG), ValueError, r"^initial_length\b"
    ),
    "cap-sin-extend": (
        lambda: SinusoidalPositionalEncoding(8).extend(BIG), ValueError, r"^length x dim\b"
    ),
    "cap-rot-extend": (lambda: RotaryEmbedding(8).extend(BIG), ValueError, r"^length\b"),
    "cap-learned-max_len": (
        lambda: LearnedPositionalEmbedding(BIG, 8), ValueError, "max_len x dim"
    ),
    "cap-alibi_slopes-n_heads": (lambda: alibi_slopes(BIG), ValueError, r"^n_heads\b"),
    "cap-alibi-n_heads": (lambda: ALiBi(BIG), ValueError, r"^n_heads\b"),
    # make_scheme
    "scheme-rotary-n_heads": (
        lambda: make_scheme("rotary", dim=12, n_heads=4), ValueError, r"\bdim/n_heads\b"
    ),
    "scheme-max_len-negative": (
        lambda: make_scheme("sinusoidal", dim=8, max_len=-1), ValueError, r"^max_len\b"
    ),
    "scheme-max_len-0": (
        lambda: make_scheme("rotary", dim=8, max_len=0), ValueError, r"^max_len\b"
    ),
    "scheme-name": (lambda: make_scheme("sine", dim=8), ValueError, r"^name\b.*'none'"),
    "scheme-max_len-huge": (
        lambda: make_scheme("sinusoidal", dim=8, max_len=BIG), ValueError, r"^max_len x dim\b"
    ),
    # TinyTransformer, SelfAttention
    "tiny-scheme-name": (lambda: TinyTransformer(5, 8, 2, 1, "relative"), ValueError, r"^scheme\b"),
    "tiny-scheme-int": (lambda: TinyTransformer(5, 8, 2, 1, 3), TypeError, r"^scheme\b"),
    "tiny-heads-divisible": (lambda: TinyTransformer(5, 8, 3, 1, "none"), ValueError, "divisible"),
    "tiny-learned-max_len": (
        lambda: TinyTransformer(5, 8, 2, 1, "learned"), ValueError, r"\bmax_len\b"
    ),
    "tiny-vocab_size-0": (
        lambda: TinyTransformer(0, 8, 2, 1, "none"), ValueError, r"^vocab_size\b"
    ),
    "tiny-tokens-float": (lambda: _tiny()(torch.zeros(2, 3)), TypeError, r"^tokens\b"),
    "tiny-tokens-axes": (lambda: _tiny()(torch.zeros(3, dtype=torch.int64)), ValueError, "axes"),
    "tiny-offset": (
        lambda: _tiny()(torch.zeros(1, 3, dtype=torch.int64), offset=-1), ValueError, r"^offset\b"
    ),
    "tiny-tokens-above-vocab": (
        lambda: _tiny()(torch.tensor([[0, 1, 5]])), ValueError, r"^tokens\b"
    ),
    "tiny-tokens-negative": (lambda: _tiny()(torch.tensor([[-1, 1, 2]])), ValueError, r"^tokens\b"),
    "tiny-tokens-list": (lambda: _tiny()([[0, 1, 2]]), TypeError, r"^tokens\b"),
    "attn-scheme-name": (lambda: SelfAttention(8, 2, "rotary"), TypeError, "PositionScheme"),
    "attn-x-list": (lambda: _attn()([[0.0] * 8]), TypeError, r"^x\b"),
    "attn-x-axes": (lambda: _attn()(torch.zeros(3, 8)), ValueError, r"^x\b"),
    "attn-x-dim": (lambda: _attn()(torch.zeros(1, 3, 6)), ValueError, r"^x\b.*\b8\b"),
}  # fmt: skip


@pytest.mark.parametrize("case", BAD_CALLS)
def test_a_bad_argument_is_refused_and_named(case):
    call, error, match = BAD_CALLS[case]
    with pytest.raises(error, match=match):
        call()
