"""Rows of book/conventions.md checked against Hugging Face transformers and diffusers themselves.

The packages come from the test-only group (requirements/conventions.txt, installed by
``make venv``); without them these tests skip, saying so.
"""

from __future__ import annotations

import os

import conventions_page as page
import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing here may reach the network
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers", reason=page.SKIP_REASON)

import posenc_lib as pe  # noqa: E402
from posenc_lib.nn import SinusoidalPositionalEncoding  # noqa: E402

L, D = 1024, 512


def _namespace(**extra):
    return {"pe": pe, "np": np, "torch": torch, "L": L, "d": D, **extra}


def _float32(table) -> np.ndarray:
    return np.asarray(table, dtype=np.float32)


def _distilbert_xlm(length: int, d: int) -> list[np.ndarray]:
    from transformers.models.distilbert.modeling_distilbert import (
        _create_sinusoidal_embeddings,
    )
    from transformers.models.xlm.modeling_xlm import create_sinusoidal_embeddings as xlm

    refs = []
    for build in (_create_sinusoidal_embeddings, xlm):
        ref = torch.empty(length, d)
        build(length, d, ref)
        refs.append(ref.numpy())
    return refs


def _marian_pegasus_roformer(length: int, d: int) -> list[np.ndarray]:
    from transformers.models.marian.modeling_marian import (
        MarianSinusoidalPositionalEmbedding,
    )
    from transformers.models.pegasus.modeling_pegasus import (
        PegasusSinusoidalPositionalEmbedding,
    )
    from transformers.models.roformer.modeling_roformer import (
        RoFormerSinusoidalPositionalEmbedding,
    )

    return [
        cls(length, d).create_weight().numpy()
        for cls in (
            MarianSinusoidalPositionalEmbedding,
            PegasusSinusoidalPositionalEmbedding,
            RoFormerSinusoidalPositionalEmbedding,
        )
    ]


def _whisper(length: int, d: int) -> list[np.ndarray]:
    from transformers.models.whisper.modeling_whisper import sinusoids

    return [sinusoids(length, d).numpy()]


def _ctrl_gptj(length: int, d: int) -> list[np.ndarray]:
    from transformers.models.ctrl.modeling_ctrl import positional_encoding
    from transformers.models.gptj.modeling_gptj import create_sinusoidal_positions

    return [
        positional_encoding(length, d, torch.float).numpy(),
        create_sinusoidal_positions(length, d).numpy(),
    ]


def _musicgen(length: int, d: int) -> list[np.ndarray]:
    from transformers.models.musicgen.modeling_musicgen import (
        MusicgenSinusoidalPositionalEmbedding,
    )

    return [MusicgenSinusoidalPositionalEmbedding.get_embedding(length, d).numpy()]


def _cos_first_columns(dim: int) -> tuple[np.ndarray, np.ndarray]:
    cos_cols, sin_cols = page.concatenated_columns(dim)  # [cos | sin]
    return sin_cols, cos_cols


# row of the page: (the references' tables at (L, d), exponent denominator at D, columns)
TABLES = {
    "Hugging Face DistilBERT, XLM": (_distilbert_xlm, D / 2, page.interleaved_columns),
    "Hugging Face Marian, Pegasus, RoFormer": (
        _marian_pegasus_roformer, D / 2, page.concatenated_columns,
    ),
    "Hugging Face Whisper": (_whisper, D // 2 - 1, page.concatenated_columns),
    "Hugging Face CTRL, GPT-J (table)": (_ctrl_gptj, D / 2, page.concatenated_columns),
    "Hugging Face MusicGen": (_musicgen, D // 2 - 1, _cos_first_columns),
}  # fmt: skip


@pytest.mark.parametrize("name", TABLES)
def test_a_table_of_positions_0_to_L(name):
    references, denominator, columns = TABLES[name]
    ours = _float32(page.evaluate_call(name, _namespace()))
    theta = page.geometric_theta(D // 2, 10000.0, denominator)
    for ref in references(L, D):
        page.check_table_row(name, ours, ref, np.arange(L), theta, *columns(D))


def test_m2m100_family():
    from transformers.models.fsmt.modeling_fsmt import (
        SinusoidalPositionalEmbedding as Fsmt,
    )
    from transformers.models.m2m_100.modeling_m2m_100 import (
        M2M100SinusoidalPositionalEmbedding,
    )
    from transformers.models.nllb_moe.modeling_nllb_moe import (
        NllbMoeSinusoidalPositionalEmbedding,
    )
    from transformers.models.speech_to_text.modeling_speech_to_text import (
        Speech2TextSinusoidalPositionalEmbedding,
    )
    from transformers.models.xglm.modeling_xglm import XGLMSinusoidalPositionalEmbedding

    name = "Hugging Face M2M100, NLLB, Speech2Text, XGLM, FSMT"
    padding_idx = 1
    ours = _float32(page.evaluate_call(name, _namespace(padding_idx=padding_idx)))
    positions = np.arange(L) + padding_idx + 1  # tokens 0 … L-1 without padding
    theta = page.geometric_theta(D // 2, 10000.0, D // 2 - 1)
    for get_embedding in (
        M2M100SinusoidalPositionalEmbedding.get_embedding,
        NllbMoeSinusoidalPositionalEmbedding.get_embedding,
        Speech2TextSinusoidalPositionalEmbedding.get_embedding,
        XGLMSinusoidalPositionalEmbedding.get_embedding,
        Fsmt.get_embedding,
    ):
        ref = get_embedding(L + padding_idx + 1, D, padding_idx)[positions].numpy()
        page.check_table_row(
            name, ours, ref, positions, theta, *page.concatenated_columns(D)
        )


def test_m2m100_left_padded_batch_through_the_module():
    from transformers.models.m2m_100.modeling_m2m_100 import (
        M2M100SinusoidalPositionalEmbedding,
    )

    d, padding_idx = 64, 1
    hf = M2M100SinusoidalPositionalEmbedding(32, d, padding_idx)
    tokens = torch.tensor(
        [[1, 1, 1, 7, 8, 9, 4], [5, 6, 7, 8, 9, 4, 3]]
    )  # row 0 left-padded
    ref = hf(tokens)
    ids = M2M100SinusoidalPositionalEmbedding.create_position_ids_from_input_ids(
        tokens, padding_idx
    )
    module = SinusoidalPositionalEncoding(
        d, layout="concatenated", spacing="i/(d/2-1)", batch_first=True
    )
    ours = module(torch.zeros(2, 7, d), positions=ids)
    real = tokens.ne(padding_idx)
    assert (ours[real] - ref[real]).abs().max() < 1e-5
    # the issue's failure: a batch-wide offset puts row 0's tokens at the wrong positions
    shifted = module(torch.zeros(2, 7, d), offset=padding_idx + 1)
    assert (shifted[real] - ref[real]).abs().max() > 1.0


def test_xlnet_relative_encoding():
    from transformers import XLNetConfig, XLNetModel

    name = "Hugging Face XLNet (relative)"
    qlen, klen = 512, L
    config = XLNetConfig(vocab_size=10, d_model=D, n_layer=1, n_head=8, d_inner=16)
    model = XLNetModel(config)  # attn_type "bi": positions klen, klen - 1, …, -qlen + 1
    ref = model.relative_positional_encoding(qlen, klen)[:, 0].numpy()
    ours = _float32(page.evaluate_call(name, _namespace(qlen=qlen, klen=klen)))
    positions = np.arange(klen, -qlen, -1)
    theta = page.geometric_theta(D // 2, 10000.0, D / 2)
    page.check_table_row(
        name, ours, ref, positions, theta, *page.concatenated_columns(D)
    )


def test_diffusers_timestep_embedding():
    diffusers = pytest.importorskip("diffusers", reason=page.SKIP_REASON)
    from diffusers.models.embeddings import get_timestep_embedding

    name = "diffusers timestep embedding"
    d = 320  # Stable Diffusion's UNet
    timesteps = np.arange(1000.0)  # DDPM's training timesteps
    ours = _float32(page.evaluate_call(name, _namespace(timesteps=timesteps, d=d)))
    ref = get_timestep_embedding(
        torch.from_numpy(timesteps), d
    ).numpy()  # the defaults:
    # flip_sin_to_cos=False, downscale_freq_shift=1 (exponents i/(d/2-1)), scale 1
    theta = page.geometric_theta(d // 2, 10000.0, d // 2 - 1)
    page.check_table_row(
        name, ours, ref, timesteps, theta, *page.concatenated_columns(d)
    )
    assert diffusers.__version__


def _split_columns(d: int, layout: str):
    """Odd d, 'split': (pairs with sin and cos), and the last pair's lone sine column."""
    pairs = (d + 1) // 2
    if layout == "interleaved":
        sin_cols, cos_cols, lone = (
            2 * np.arange(pairs - 1),
            2 * np.arange(pairs - 1) + 1,
            d - 1,
        )
    else:
        sin_cols, cos_cols, lone = (
            np.arange(pairs - 1),
            pairs + np.arange(pairs - 1),
            pairs - 1,
        )
    theta = page.geometric_theta(pairs, 10000.0, d / 2)  # 2i/d with the odd d
    return sin_cols, cos_cols, ([lone], theta[-1:]), theta


@pytest.mark.parametrize(
    ("name", "references", "layout"),
    [
        ("Hugging Face DistilBERT, XLM (odd d)", _distilbert_xlm, "interleaved"),
        (
            "Hugging Face Marian, Pegasus, RoFormer (odd d)",
            _marian_pegasus_roformer,
            "concatenated",
        ),
    ],
    ids=["distilbert-xlm", "marian-pegasus-roformer"],
)
def test_odd_dimension(name, references, layout):
    d = D - 1
    ours = _float32(page.evaluate_call(name, _namespace(d=d)))
    sin_cols, cos_cols, lone, theta = _split_columns(d, layout)
    measured = 0.0
    for ref in references(L, d):
        measured = max(measured, page.check_table_row(
            name, ours, ref, np.arange(L), theta, sin_cols, cos_cols, lone, page=False
        ))  # fmt: skip
    page.check_page(name, measured)


def test_m2m100_family_odd_dimension():
    from transformers.models.m2m_100.modeling_m2m_100 import (
        M2M100SinusoidalPositionalEmbedding,
    )
    from transformers.models.musicgen.modeling_musicgen import (
        MusicgenSinusoidalPositionalEmbedding,
    )

    name = "Hugging Face M2M100 family, MusicGen (odd d)"
    d = D - 1
    theta = page.geometric_theta(d // 2, 10000.0, d // 2 - 1)
    measured = 0.0
    for layout, ref in (
        ("concatenated", M2M100SinusoidalPositionalEmbedding.get_embedding(L, d)),
        (
            "concatenated_cos_first",
            MusicgenSinusoidalPositionalEmbedding.get_embedding(L, d),
        ),
    ):
        ours = _float32(page.evaluate_call(name, _namespace(d=d, layout=layout)))
        sin_cols, cos_cols = page.concatenated_columns(d - 1)
        if layout == "concatenated_cos_first":
            sin_cols, cos_cols = cos_cols, sin_cols
        measured = max(measured, page.check_table_row(
            name, ours, ref.numpy(), np.arange(L), theta, sin_cols, cos_cols, page=False
        ))  # fmt: skip
    page.check_page(name, measured)


def test_diffusers_flip_sin_to_cos_and_other_options():
    pytest.importorskip("diffusers", reason=page.SKIP_REASON)
    from diffusers.models.embeddings import get_timestep_embedding

    name = "diffusers timestep embedding, flip_sin_to_cos"
    d = 320
    timesteps = np.arange(1000.0)
    ours = _float32(page.evaluate_call(name, _namespace(timesteps=timesteps, d=d)))
    ref = get_timestep_embedding(
        torch.from_numpy(timesteps), d, flip_sin_to_cos=True
    ).numpy()
    theta = page.geometric_theta(d // 2, 10000.0, d // 2 - 1)
    cos_cols, sin_cols = page.concatenated_columns(d)
    page.check_table_row(name, ours, ref, timesteps, theta, sin_cols, cos_cols)
    # the docstring's general call: shift 0 is the 2i/d spacing, scale multiplies the positions,
    # max_period is the base, an odd d is zero-padded
    t = np.linspace(0.0, 999.0, 37)
    for shift, spacing in ((0, "2i/d"), (1, "i/(d/2-1)")):
        for dim in (320, 321):
            ref = get_timestep_embedding(
                torch.from_numpy(t), dim, flip_sin_to_cos=True, downscale_freq_shift=shift,
                scale=2.5, max_period=500,
            ).numpy()  # fmt: skip
            got = pe.sinusoidal(2.5 * t, dim, base=500.0, layout="concatenated_cos_first",
                                spacing=spacing, odd_dim="zero_pad")  # fmt: skip
            assert np.abs(got - ref).max() < 2e-4  # float32 angles up to 2500 rad
