"""Rotary and ALiBi rows of book/conventions.md: Hugging Face's own code and Meta's Llama.

Rotary rows rotate random queries (batch, heads, L, head_dim) at per-row positions of a
left-padded batch, as ``generate`` builds them, and compare the real tokens.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from conventions_page import (
    SKIP_REASON,
    U32,
    assert_reference_is_the_formula,
    check_page,
    evaluate_call,
    geometric_theta,
)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
torch = pytest.importorskip("torch")

import posenc_lib as pe  # noqa: E402
from posenc_lib.nn import ALiBi, RotaryEmbedding, alibi_slopes, rotary_permutation  # noqa: E402

L, HEADS = 1024, 2
META_LLAMA = (
    "https://github.com/meta-llama/llama/blob/689c7f261b9c5514636ecc3c5fefefcbb3e6eed7/"
    "llama/model.py"
)
HF_CONVERSION = (
    "https://github.com/huggingface/transformers/blob/6ae9169c77cc8b35130fa63af2c9329c20a2ad44/"
    "src/transformers/models/llama/convert_llama_weights_to_hf.py"
)


def _namespace(**extra):
    names = {"pe": pe, "np": np, "torch": torch, "RotaryEmbedding": RotaryEmbedding}
    names.update(
        ALiBi=ALiBi, alibi_slopes=alibi_slopes, rotary_permutation=rotary_permutation
    )
    return {**names, **extra}


def _left_padded(length: int = L, pad: int = 100):
    """Attention mask and position ids of a 2-row batch whose row 0 has ``pad`` pads on the left."""
    mask = torch.ones(2, length, dtype=torch.long)
    mask[0, :pad] = 0
    position_ids = mask.cumsum(-1) - 1  # as GenerationMixin builds them
    position_ids = position_ids.masked_fill(mask == 0, 1)
    return mask.bool(), position_ids


def _pairs(x, pairing: str, rotary_dim: int):
    r = rotary_dim
    if pairing == "interleaved":
        return x[..., 0:r:2], x[..., 1:r:2]
    return x[..., : r // 2], x[..., r // 2 : r]


def check_rotary_row(
    name, ours, ref, q, cos_ref, sin_ref, positions, theta, pairing, real
):
    """Rotated queries: steps 3-5 of conventions_page, with the tolerance scaled by |q| per pair."""
    rotary_dim = 2 * theta.size
    error = assert_reference_is_the_formula(name, sin_ref, cos_ref, positions, theta)
    error = torch.from_numpy(error)[:, None]  # (batch, 1, L, r/2): broadcast over heads
    a, b = _pairs(q.double(), pairing, rotary_dim)
    scale = a.abs() + b.abs()
    tolerance = scale * (error + 4 * U32) + 4 * U32 * scale
    measured = 0.0
    for side_ours, side_ref in zip(
        _pairs(ours.double(), pairing, rotary_dim),
        _pairs(ref.double(), pairing, rotary_dim),
        strict=True,
    ):
        diff = (side_ours - side_ref).abs()
        assert bool((diff <= tolerance)[real[:, None].expand_as(diff[..., 0])].all()), (
            name
        )
        measured = max(
            measured, float(diff[real[:, None].expand_as(diff[..., 0])].max())
        )
    rest = ours[..., rotary_dim:]
    assert torch.equal(rest, ref[..., rotary_dim:]) and torch.equal(
        rest, q[..., rotary_dim:]
    )
    check_page(name, measured)
    return measured


def check_half_split_row(name, rotary, apply_rotary_pos_emb, h, theta, seed, **call):
    """A Hugging Face half-split rotary row: ``rotary`` (the model's rotary embedding) and
    ``apply_rotary_pos_emb`` rotate random queries of the left-padded batch; the page's call
    (evaluated with ``h`` and ``call``) must rotate them alike."""
    real, position_ids = _left_padded()
    q = torch.randn(2, HEADS, L, h, generator=torch.Generator().manual_seed(seed))
    cos, sin = rotary(q, position_ids)
    ref, _ = apply_rotary_pos_emb(q, q, cos, sin)
    module = evaluate_call(name, _namespace(h=h, **call))
    ours = module.rotate_one(q, positions=position_ids, seq_axis=2)
    half = theta.size  # r/2: the rotated pairs
    check_rotary_row(
        name, ours, ref, q, cos[..., :half], sin[..., :half], position_ids.numpy(), theta,
        "half_split", real,
    )  # fmt: skip


@pytest.mark.parametrize("factor", [None, 4.0])
def test_llama_rotary(factor):
    pytest.importorskip("transformers", reason=SKIP_REASON)
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import (
        LlamaRotaryEmbedding,
        apply_rotary_pos_emb,
    )

    h, base = 128, 10000.0
    rope = {"rope_type": "default", "rope_theta": base}
    if factor is not None:
        rope = {"rope_type": "linear", "factor": factor, "rope_theta": base}
    config = LlamaConfig(
        hidden_size=h * HEADS, num_attention_heads=HEADS, max_position_embeddings=L,
        rope_parameters=rope,
    )  # fmt: skip
    name = "Hugging Face Llama rotary"
    if factor is not None:
        name = "Hugging Face Llama rotary, linear scaling"
    theta = geometric_theta(h // 2, base, h / 2) / (factor or 1.0)
    check_half_split_row(
        name, LlamaRotaryEmbedding(config), apply_rotary_pos_emb, h, theta, seed=0,
        base=base, s=factor,
    )  # fmt: skip


def test_gpt_neox_partial_rotary():
    pytest.importorskip("transformers", reason=SKIP_REASON)
    from transformers import GPTNeoXConfig
    from transformers.models.gpt_neox.modeling_gpt_neox import (
        GPTNeoXRotaryEmbedding,
        apply_rotary_pos_emb,
    )

    h, base, pct = 64, 10000.0, 0.25
    config = GPTNeoXConfig(
        hidden_size=h * HEADS, num_attention_heads=HEADS, max_position_embeddings=L,
        rope_parameters={"rope_type": "default", "rope_theta": base, "partial_rotary_factor": pct},
    )  # fmt: skip
    r = int(h * pct)
    check_half_split_row(
        "Hugging Face GPT-NeoX rotary (partial)", GPTNeoXRotaryEmbedding(config),
        apply_rotary_pos_emb, h, geometric_theta(r // 2, base, r / 2), seed=1, base=base,
    )  # fmt: skip


def test_gptj_rotary():
    pytest.importorskip("transformers", reason=SKIP_REASON)
    from transformers.models.gptj.modeling_gptj import (
        apply_rotary_pos_emb,
        create_sinusoidal_positions,
    )

    h, rotary_dim = 256, 64  # GPT-J 6B
    real, position_ids = _left_padded()
    q = torch.randn(
        2, L, HEADS, h, generator=torch.Generator().manual_seed(2)
    )  # GPT-J's layout
    # GPTJAttention.forward (modeling_gptj.py): gather sin|cos rows, split, rotate q[..., :r]
    sincos = create_sinusoidal_positions(L, rotary_dim)[position_ids]
    sin, cos = torch.split(sincos, rotary_dim // 2, dim=-1)
    q_rot = apply_rotary_pos_emb(q[..., :rotary_dim], sin, cos)
    ref = torch.cat([q_rot, q[..., rotary_dim:]], dim=-1)
    name = "Hugging Face GPT-J rotary"
    module = evaluate_call(name, _namespace(h=h))
    ours = module.rotate_one(q, positions=position_ids, seq_axis=1)
    theta = geometric_theta(rotary_dim // 2, 10000.0, rotary_dim / 2)
    to_bhld = lambda t: t.transpose(1, 2)  # noqa: E731  (batch, heads, L, h) for the checker
    check_rotary_row(
        name, to_bhld(ours), to_bhld(ref), to_bhld(q), cos, sin, position_ids.numpy(), theta,
        "interleaved", real,
    )  # fmt: skip


def test_roformer_rotary():
    pytest.importorskip("transformers", reason=SKIP_REASON)
    from transformers.models.roformer.modeling_roformer import (
        RoFormerSelfAttention,
        RoFormerSinusoidalPositionalEmbedding,
    )

    h = 64
    q = torch.randn(1, HEADS, L, h, generator=torch.Generator().manual_seed(3))
    table = RoFormerSinusoidalPositionalEmbedding(
        L, h
    ).create_weight()  # (L, h): [sin | cos]
    ref, _ = RoFormerSelfAttention.apply_rotary_position_embeddings(
        table[None, None], q, q
    )
    name = "Hugging Face RoFormer rotary"
    module = evaluate_call(name, _namespace(h=h))
    ours = module.rotate_one(q, seq_axis=2)
    theta = geometric_theta(h // 2, 10000.0, h / 2)
    real = torch.ones(1, L, dtype=torch.bool)
    positions = np.arange(L)[None]
    check_rotary_row(
        name, ours, ref, q, table[None, :, h // 2 :], table[None, :, : h // 2], positions, theta,
        "interleaved", real,
    )  # fmt: skip


def meta_llama_rotary(xq, theta=10000.0):
    """precompute_freqs_cis + apply_rotary_emb of Meta's Llama (META_LLAMA#L80-L104, L132-L161)."""
    seqlen, dim = xq.shape[1], xq.shape[-1]  # xq: (batch, L, heads, head_dim)
    freqs = 1.0 / (
        theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim)
    )  # L100
    t = torch.arange(seqlen, device=freqs.device)  # L101
    freqs = torch.outer(t, freqs).float()  # L102
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)  # L103
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))  # L156
    freqs_cis = freqs_cis[
        None, :, None, :
    ]  # reshape_for_broadcast: (1, L, 1, head_dim / 2)
    return torch.view_as_real(xq_ * freqs_cis).flatten(3), freqs  # L159


def hf_permute(w, n_heads, dim1, dim2):
    """permute of HF's Llama conversion script (HF_CONVERSION#L121-L123): Meta → HF rows."""
    return (
        w.view(n_heads, dim1 // n_heads // 2, 2, dim2)
        .transpose(1, 2)
        .reshape(dim1, dim2)
    )


def test_meta_llama_interleaved_rotary():
    h = 128
    q = torch.randn(1, L, HEADS, h, generator=torch.Generator().manual_seed(4))
    ref, freqs = meta_llama_rotary(q)
    name = "Meta Llama rotary (complex)"
    module = evaluate_call(name, _namespace(h=h))
    ours = module.rotate_one(q, seq_axis=1)
    theta = geometric_theta(h // 2, 10000.0, h / 2)
    to_bhld = lambda t: t.transpose(1, 2)  # noqa: E731
    real = torch.ones(1, L, dtype=torch.bool)
    check_rotary_row(
        name, to_bhld(ours), to_bhld(ref), to_bhld(q), freqs.cos()[None], freqs.sin()[None],
        np.arange(L)[None], theta, "interleaved", real,
    )  # fmt: skip


def test_llama_checkpoint_conversion_is_rotary_permutation():
    pytest.importorskip("transformers", reason=SKIP_REASON)
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import (
        LlamaRotaryEmbedding,
        apply_rotary_pos_emb,
    )

    h, dim = 16, 16 * HEADS
    w_meta = torch.randn(
        dim, dim, dtype=torch.float64, generator=torch.Generator().manual_seed(5)
    )
    name = "Llama checkpoint conversion (Meta → HF)"
    perm = evaluate_call(name, _namespace(h=h))
    ours = w_meta.view(HEADS, h, dim)[:, perm].reshape(
        dim, dim
    )  # each head's rows reordered
    reference = hf_permute(w_meta, HEADS, dim, dim)
    measured = float((ours - reference).abs().max())
    assert measured == 0.0  # a permutation: exact
    check_page(name, measured)
    # and the scores agree: Meta's interleaved rotation of W_meta x, HF's half-split of W_hf x
    x = torch.randn(
        40, dim, dtype=torch.float64, generator=torch.Generator().manual_seed(6)
    )
    q_meta = (x @ w_meta.T).view(1, 40, HEADS, h)
    rotated_meta = RotaryEmbedding(h, dtype=torch.float64).rotate_one(
        q_meta, seq_axis=1
    )
    config = LlamaConfig(hidden_size=dim, num_attention_heads=HEADS)
    q_hf = (x @ reference.T).view(1, 40, HEADS, h).transpose(1, 2)
    cos, sin = LlamaRotaryEmbedding(config)(q_hf, torch.arange(40)[None])
    rotated_hf, _ = apply_rotary_pos_emb(q_hf, q_hf, cos.double(), sin.double())
    scores_meta = torch.einsum("bmhd,bnhd->bhmn", rotated_meta, rotated_meta)
    scores_hf = rotated_hf @ rotated_hf.transpose(-1, -2)
    assert (
        scores_meta - scores_hf
    ).abs().max() < 1e-3  # HF's cos/sin have float32 angles
    # without the permutation the same weights give other scores
    q_wrong = (x @ w_meta.T).view(1, 40, HEADS, h).transpose(1, 2)
    wrong, _ = apply_rotary_pos_emb(q_wrong, q_wrong, cos.double(), sin.double())
    assert (wrong @ wrong.transpose(-1, -2) - scores_meta).abs().max() > 1.0


# ---------------------------------------------------------------------------------------------
# ALiBi
# ---------------------------------------------------------------------------------------------

ALIBI_HEADS = (1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64)


def test_bloom_alibi():
    pytest.importorskip("transformers", reason=SKIP_REASON)
    from transformers.models.bloom.modeling_bloom import build_alibi_tensor

    name = "Hugging Face BLOOM ALiBi"
    real, positions = _left_padded(64, pad=10)
    measured = 0.0
    for n in ALIBI_HEADS:
        ref = build_alibi_tensor(real.long(), n, torch.float32).view(
            2, n, 64
        )  # s_h * key pos
        module = evaluate_call(name, _namespace(n=n))
        ours = module.bias(
            64, 64, positions=positions.masked_fill(~real, 0)
        )  # (2, n, 64, 64)
        # BLOOM adds s_h * n_key to every query row (softmax ignores a row constant), so the
        # bias of query m on key n is ref[n] - ref[m]; ours is -s_h (m - n)
        relative = ref[:, :, None, :] - ref[:, :, :, None]
        both = (real[:, None, :, None] & real[:, None, None, :]).expand_as(ours)
        diff = (ours.double() - relative.double()).abs()[both]
        slopes = torch.tensor(alibi_slopes(n), dtype=torch.float64)
        distance = 64.0  # at most 63 tokens apart, 2 float32 roundings of s * position
        assert bool((diff <= slopes.max() * distance * 4 * U32).all())
        measured = max(measured, float(diff.max()))
    check_page(name, measured)


def test_mpt_alibi():
    pytest.importorskip("transformers", reason=SKIP_REASON)
    from transformers.models.mpt.modeling_mpt import build_mpt_alibi_tensor

    name = "Hugging Face MPT ALiBi"
    measured = 0.0
    for n in ALIBI_HEADS:
        ref = build_mpt_alibi_tensor(n, 64)[:, 0]  # (n, 64): s_h * (n_key - 63)
        module = evaluate_call(name, _namespace(n=n))
        ours = module.bias(64, 64)  # (n, 64, 64), causal
        relative = ref[:, None, :] - ref[:, :, None]  # ref[n] - ref[m] = -s_h (m - n)
        lower = torch.ones(64, 64, dtype=torch.bool).tril()  # keys n <= m
        diff = (ours.double() - relative.double()).abs()[:, lower]
        assert bool((diff <= max(alibi_slopes(n)) * 64 * 4 * U32).all())
        measured = max(measured, float(diff.max()))
    check_page(name, measured)
