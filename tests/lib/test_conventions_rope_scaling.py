"""Rotary scaling rows of book/conventions.md: every method of transformers' ROPE_INIT_FUNCTIONS.

Three comparisons, all with the installed transformers and no download:

1. :class:`RopeScaling.frequencies` against the method's own ``ROPE_INIT_FUNCTIONS`` entry
   (frequencies and attention factor), for several configurations and lengths;
2. the page's rows: queries rotated by ``ScaledRotaryEmbedding`` against ``LlamaRotaryEmbedding``
   + ``apply_rotary_pos_emb`` on a left-padded batch, steps 3-5 of ``conventions_page``;
3. a real ``LlamaAttention`` built from a ``LlamaConfig`` with random weights against the same
   weights with our rotation, and the dynamic schedule call after call (transformers'
   ``dynamic_rope_update`` keeps state between calls).
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from conventions_page import SKIP_REASON, U32, evaluate_call

os.environ.setdefault("HF_HUB_OFFLINE", "1")
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers", reason=SKIP_REASON)

from test_conventions_attention import HEADS, L, _left_padded, check_rotary_row  # noqa: E402
from transformers import LlamaConfig  # noqa: E402
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402
from transformers.models.llama.modeling_llama import (  # noqa: E402
    LlamaAttention,
    LlamaRotaryEmbedding,
    apply_rotary_pos_emb,
)

import posenc_lib as pe  # noqa: E402
from posenc_lib.rope_scaling import ROPE_TYPES, RopeScaling  # noqa: E402
from posenc_lib.scaled_rotary import ScaledRotaryEmbedding  # noqa: E402

H, BASE, M0 = (
    128,
    10000.0,
    256,
)  # head_dim, rope_theta, the pre-training length of the rows

#: The page's rows: name -> (rope_parameters of the Llama config, max_position_embeddings).
ROWS = {
    "Hugging Face rotary, dynamic NTK": (
        {"rope_type": "dynamic", "factor": 4.0},
        M0,
    ),
    "Hugging Face rotary, YaRN": (
        {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": M0},
        4 * M0,
    ),
    "Hugging Face rotary, LongRoPE": (
        {
            "rope_type": "longrope",
            "original_max_position_embeddings": M0,
            "short_factor": np.linspace(1.0, 1.5, H // 2).tolist(),
            "long_factor": np.linspace(1.0, 6.0, H // 2).tolist(),
        },
        4 * M0,
    ),
    "Hugging Face rotary, Llama 3": (
        {
            "rope_type": "llama3",
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": M0,
        },
        8 * M0,
    ),
    "Hugging Face rotary, proportional": (
        {"rope_type": "proportional", "partial_rotary_factor": 0.5},
        4 * M0,
    ),
}


def _config(rope: dict, max_positions: int, head_dim: int = H) -> LlamaConfig:
    return LlamaConfig(
        hidden_size=head_dim * HEADS,
        num_attention_heads=HEADS,
        num_key_value_heads=HEADS,
        max_position_embeddings=max_positions,
        rope_parameters={"rope_theta": BASE, **rope},
        attention_dropout=0.0,
    )


def _ours(rope: dict, max_positions: int) -> RopeScaling:
    """The same schedule, its entries passed as they are (the names are transformers')."""
    entries = {k: v for k, v in rope.items() if k != "rope_type"}
    return RopeScaling(
        rope["rope_type"], max_position_embeddings=max_positions, **entries
    )


def test_every_method_of_rope_init_functions_is_expressed():
    assert set(ROPE_INIT_FUNCTIONS) | {"default"} == set(ROPE_TYPES)
    assert {rope["rope_type"] for rope, _ in ROWS.values()} | {
        "default",
        "linear",
    } == set(ROPE_TYPES)


# ---------------------------------------------------------------------------------------------
# 1. the frequencies and attention factors, against ROPE_INIT_FUNCTIONS
# ---------------------------------------------------------------------------------------------

VARIANTS = [
    *ROWS.values(),
    ({"rope_type": "linear", "factor": 2.5}, 1024),
    ({"rope_type": "dynamic", "factor": 2.0, "partial_rotary_factor": 0.5}, 512),
    (
        {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 512},
        4096,
    ),
    (
        {
            "rope_type": "yarn",
            "factor": 16.0,
            "original_max_position_embeddings": 4096,
            "beta_fast": 16.0,
            "beta_slow": 2.0,
            "truncate": False,
        },
        65536,
    ),
    (
        {
            "rope_type": "yarn",
            "factor": 40.0,
            "original_max_position_embeddings": 4096,
            "mscale": 1.0,
            "mscale_all_dim": 0.707,
        },
        163840,
    ),  # DeepSeek-V3
    (
        {
            "rope_type": "yarn",
            "factor": 4.0,
            "original_max_position_embeddings": 1024,
            "attention_factor": 1.5,
        },
        4096,
    ),
    # YaRN's derived-factor path (factor None: max_position_embeddings / original, 8 and 16
    # here) and the attention factor computed from it: alone, with mscale alone (ignored, as
    # transformers does) and with the mscale / mscale_all_dim ratio
    (
        {"rope_type": "yarn", "factor": None, "original_max_position_embeddings": 1024},
        8192,
    ),
    (
        {
            "rope_type": "yarn",
            "factor": None,
            "original_max_position_embeddings": 1024,
            "mscale": 0.8,
        },
        8192,
    ),
    (
        {
            "rope_type": "yarn",
            "factor": None,
            "original_max_position_embeddings": 4096,
            "mscale": 1.0,
            "mscale_all_dim": 0.5,
        },
        65536,
    ),
    (
        {
            "rope_type": "longrope",
            "original_max_position_embeddings": 4096,
            "factor": 32.0,
            "short_factor": [1.1] * (H // 2),
            "long_factor": [3.0] * (H // 2),
        },
        131072,
    ),
    (
        {
            "rope_type": "llama3",
            "factor": 32.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
        131072,
    ),  # Llama 3.2's
    ({"rope_type": "proportional", "factor": 2.0, "partial_rotary_factor": 0.25}, 1024),
]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("rope, max_positions", VARIANTS)
@pytest.mark.parametrize("base", [BASE, 500000.0])
def test_frequencies_match_rope_init_functions(rope, max_positions, base):
    rope = {**rope, "rope_theta": base}
    config = _config(rope, max_positions)
    scaling = _ours({k: v for k, v in rope.items() if k != "rope_theta"}, max_positions)
    init = ROPE_INIT_FUNCTIONS[rope["rope_type"]]
    for seq_len in (None, 7, max_positions, 3 * max_positions + 5):
        ref, ref_attention = init(config, "cpu", seq_len=seq_len)
        theta, attention = scaling.frequencies(H, base, seq_len)
        ref = ref.double().numpy()
        assert theta.shape == ref.shape
        # transformers forms theta in float32: a relative error of (|ln theta| + 8) u at most
        # (the exponent's rounding amplified by the exponential, the divisions and blends)
        logs = np.abs(np.log(np.where(theta > 0, theta, 1.0)))
        assert np.all(np.abs(theta - ref) <= theta * (logs + 8) * U32), rope
        assert np.array_equal(theta == 0, ref == 0)
        assert attention == pytest.approx(ref_attention, rel=1e-15, abs=0)


# ---------------------------------------------------------------------------------------------
# 2. the page's rows: rotated queries of a left-padded batch
# ---------------------------------------------------------------------------------------------


def _namespace(**extra):
    return {
        "pe": pe,
        "np": np,
        "torch": torch,
        "RopeScaling": RopeScaling,
        "ScaledRotaryEmbedding": ScaledRotaryEmbedding,
        **extra,
    }


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", list(ROWS))
def test_scaled_rotary_rows(name):
    rope, max_positions = ROWS[name]
    config = _config(rope, max_positions)
    real, position_ids = _left_padded()
    q = torch.randn(2, HEADS, L, H, generator=torch.Generator().manual_seed(7))
    cos, sin = LlamaRotaryEmbedding(config)(q, position_ids)
    ref, _ = apply_rotary_pos_emb(q, q, cos, sin)
    entries = {k: v for k, v in rope.items() if k != "rope_type"}
    module = evaluate_call(
        name, _namespace(h=H, base=BASE, M=max_positions, M0=M0, **entries)
    )
    ours = module.rotate_one(q, positions=position_ids, seq_axis=2)
    seq_len = int(position_ids.max()) + 1  # transformers' current length
    theta, attention = _ours(rope, max_positions).frequencies(H, BASE, seq_len)
    assert module.attention_scaling == attention
    # a rotated pair is a times the rotation: compare ours / a with ref / a (a = 1 but YaRN's
    # 1.14 and LongRoPE's 1.19), the pair's phase as in the other rotary rows
    rotated = np.flatnonzero(
        theta > 0
    )  # "proportional" leaves the last pairs unrotated
    kept = np.setdiff1d(np.arange(H), np.concatenate((rotated, rotated + H // 2)))
    assert torch.equal(ours[..., kept], q[..., kept] * attention)
    assert torch.equal(ref[..., kept], q[..., kept] * attention)
    pairs = np.concatenate((rotated, rotated + H // 2))  # the rotated pairs, half-split
    check_rotary_row(
        name,
        ours[..., pairs] / attention,
        ref[..., pairs] / attention,
        q[..., pairs],
        cos[..., rotated],
        sin[..., rotated],
        position_ids.numpy(),
        theta[rotated],
        "half_split",
        real,
    )


# ---------------------------------------------------------------------------------------------
# 3. a real model's attention, and the dynamic schedule call after call
# ---------------------------------------------------------------------------------------------


def _reference_attention(config, x, position_ids):
    torch.manual_seed(11)
    attention = LlamaAttention(config, layer_idx=0).eval()
    rope = LlamaRotaryEmbedding(config)
    mask = torch.full((x.shape[1], x.shape[1]), -math.inf).triu(1)[None, None]
    with torch.no_grad():
        out, _ = attention(x, rope(x, position_ids), attention_mask=mask)
    return attention, out


def _our_attention(attention, module, x, position_ids):
    batch, length, _ = x.shape
    h = attention.head_dim

    def heads(t):
        return t.view(batch, length, -1, h).transpose(1, 2)

    with torch.no_grad():
        q = heads(attention.q_proj(x))
        k = heads(attention.k_proj(x))
        v = heads(attention.v_proj(x))
        q, k = module.rotate(q, k, positions=position_ids, seq_axis=2)
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return attention.o_proj(y.transpose(1, 2).reshape(batch, length, -1))


#: The attention test: the page's rows and the two methods the other rows cover.
ATTENTION = {
    **ROWS,
    "linear": ({"rope_type": "linear", "factor": 4.0}, 4 * M0),
    "default": ({"rope_type": "default"}, M0),
}


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", list(ATTENTION))
def test_a_real_llama_attention_with_each_scaling(name):
    rope, max_positions = ATTENTION[name]
    config = _config(rope, max_positions, head_dim=32)
    if rope["rope_type"] == "longrope":
        config = _config(
            {
                **rope,
                "short_factor": rope["short_factor"][:16],
                "long_factor": rope["long_factor"][:16],
            },
            max_positions,
            head_dim=32,
        )
    length = 2 * M0 + 16  # past the pre-training length: the scalings act
    x = torch.randn(
        2, length, config.hidden_size, generator=torch.Generator().manual_seed(9)
    )
    position_ids = torch.arange(length).repeat(2, 1)
    position_ids[0] = (position_ids[0] - 5).clamp(min=0)
    attention, expected = _reference_attention(config, x, position_ids)
    entries = {k: v for k, v in config.rope_parameters.items() if k != "rope_theta"}
    module = ScaledRotaryEmbedding(
        32,
        base=BASE,
        pairing="half_split",
        scaling=RopeScaling(max_position_embeddings=max_positions, **entries),
    )
    got = _our_attention(attention, module, x, position_ids)
    # outputs of size ~0.1: the difference is transformers' float32 angles (<= 1e-4 rad here)
    torch.testing.assert_close(got, expected, rtol=0, atol=5e-5)
    # and the rotation matters: without the scaling the outputs differ
    plain = ScaledRotaryEmbedding(32, base=BASE, pairing="half_split")
    if rope["rope_type"] != "default":
        plain_out = _our_attention(attention, plain, x, position_ids)
        assert (plain_out - expected).abs().max() > 1e-3


@pytest.mark.filterwarnings("ignore")
def test_dynamic_ntk_follows_the_current_length_call_after_call():
    rope, max_positions = ROWS["Hugging Face rotary, dynamic NTK"]
    config = _config(rope, max_positions, head_dim=32)
    reference = LlamaRotaryEmbedding(config)
    module = ScaledRotaryEmbedding(
        32,
        pairing="half_split",
        scaling=_ours(rope, max_positions),
        dtype=torch.float64,
    )
    # growth, a shorter call that keeps the grown frequencies, more growth, a reset below M,
    # exactly M (no reset), then growth again from offsets (incremental decoding)
    for length, offset in [
        (100, 0),
        (600, 0),
        (400, 0),
        (900, 0),
        (50, 0),
        (256, 0),
        (300, 0),
        (1, 1000),
        (1, 1001),
    ]:
        positions = torch.arange(offset, offset + length)[None]
        q = torch.randn(1, HEADS, length, 32, dtype=torch.float64)
        cos, sin = reference(q.float(), positions)
        ref, _ = apply_rotary_pos_emb(q, q, cos.double(), sin.double())
        ours = module.rotate_one(q, offset, seq_axis=2)
        scale = q.abs().max() * 2
        bound = float(scale * ((offset + length) * (np.log(BASE) + 8) * U32 + 4 * U32))
        assert float((ours - ref).abs().max()) <= bound, (length, offset)
        assert module.seen_length == reference.max_seq_len_cached
        torch.testing.assert_close(
            torch.from_numpy(module.theta),
            reference.inv_freq.double(),
            rtol=2e-6,
            atol=0,
        )


def test_longrope_switches_factors_with_the_current_length():
    rope, max_positions = ROWS["Hugging Face rotary, LongRoPE"]
    scaling = _ours(rope, max_positions)
    module = ScaledRotaryEmbedding(
        H, scaling=scaling, pairing="half_split", dtype=torch.float64
    )
    q = torch.randn(1, 1, 8, H, dtype=torch.float64)
    short = scaling.frequencies(H, 10000.0, M0)[0]
    long = scaling.frequencies(H, 10000.0, M0 + 1)[0]
    module.rotate_one(q, M0 - 8, seq_axis=2)
    assert np.array_equal(module.theta, short)
    module.rotate_one(q, M0 - 7, seq_axis=2)  # positions up to M0: the long factors
    assert np.array_equal(module.theta, long)
    angle = torch.from_numpy(np.arange(M0 - 7, M0 + 1) * long[1])  # pair 1
    a = module.attention_scaling
    expected = (q[..., 1] * angle.cos() - q[..., H // 2 + 1] * angle.sin()) * a
    got = module.rotate_one(q, M0 - 7, seq_axis=2)[..., 1]
    torch.testing.assert_close(got, expected, rtol=0, atol=1e-12)
