"""Rows of book/conventions.md checked against published source (no extra package needed).

Each reference below is the published formula re-implemented independently in a few lines, every
line citing the line of the source it follows (permalinks at a fixed commit). No file of those
projects is copied here; tensor2tensor's TensorFlow code is re-implemented in float32 torch, the
dtype it computes in.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conventions_page import (  # noqa: E402
    assert_reference_is_the_formula,
    assert_within_reference_rounding,
    check_page,
    check_table_row,
    concatenated_columns,
    evaluate_call,
    geometric_theta,
    interleaved_columns,
)

import posenc_lib as pe  # noqa: E402
from posenc_lib.nn import SinusoidalPositionalEncoding  # noqa: E402

L, D = 1024, 512  # positions 0 … L-1, model dimension d

TUTORIAL = (
    "https://github.com/pytorch/tutorials/blob/00109f5abe4d664833ae7cde8b694b41356adb2b/"
    "beginner_source/transformer_tutorial.py"
)
ANNOTATED = (
    "https://github.com/harvardnlp/annotated-transformer/blob/"
    "debc9fd747bb2123160a98046ad1c2d4da44a567/the_annotated_transformer.py"
)
T2T = (
    "https://github.com/tensorflow/tensor2tensor/blob/bafdc1b67730430d38d6ab802cbd51f9d053ba2e/"
    "tensor2tensor/layers/common_attention.py"
)
FAIRSEQ = "https://github.com/facebookresearch/fairseq/blob/3d262bb25690e4eb2e7d3c1309b1e9c406ca4b99"


def _namespace(**extra):
    return {"pe": pe, "np": np, "torch": torch, "L": L, "d": D, **extra}


def tutorial_table(max_len: int, d_model: int) -> torch.Tensor:
    """PositionalEncoding.__init__ of the PyTorch tutorial (TUTORIAL#L98-L109), as (max_len, d)."""
    position = torch.arange(max_len).unsqueeze(1)  # L104
    div_term = torch.exp(
        torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model)
    )  # L105
    pe_ = torch.zeros(max_len, 1, d_model)  # L106: sequence-first, (max_len, 1, d)
    pe_[:, 0, 0::2] = torch.sin(position * div_term)  # L107
    pe_[:, 0, 1::2] = torch.cos(position * div_term)  # L108
    return pe_[:, 0]  # forward adds self.pe[:x.size(0)] to x of shape (S, N, E) (L116)


def annotated_table(max_len: int, d_model: int) -> torch.Tensor:
    """PositionalEncoding.__init__ of the Annotated Transformer (ANNOTATED#L748-L764)."""
    pe_ = torch.zeros(max_len, d_model)  # L756
    position = torch.arange(0, max_len).unsqueeze(1)  # L757
    div_term = torch.exp(
        torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model)
    )  # L758-760
    pe_[:, 0::2] = torch.sin(position * div_term)  # L761
    pe_[:, 1::2] = torch.cos(position * div_term)  # L762
    return pe_  # L763 adds a batch axis; forward adds self.pe[:, : x.size(1)] (L767)


def t2t_timing_signal(
    length, channels, min_timescale=1.0, max_timescale=1.0e4, start_index=0
):
    """get_timing_signal_1d (T2T#L408-L456), float32 as tf.to_float computes, shape (L, C)."""
    position = (torch.arange(length) + start_index).float()  # L443
    num_timescales = channels // 2  # L444
    log_timescale_increment = torch.tensor(  # L445-447: a float32 tensor
        math.log(float(max_timescale) / float(min_timescale))
    ) / max(float(num_timescales) - 1, 1)
    inv_timescales = min_timescale * torch.exp(  # L448-449
        torch.arange(num_timescales).float() * -log_timescale_increment
    )
    scaled_time = position[:, None] * inv_timescales[None, :]  # L450
    signal = torch.cat([torch.sin(scaled_time), torch.cos(scaled_time)], dim=1)  # L453
    return torch.nn.functional.pad(signal, (0, channels % 2))  # L454


def fairseq_embedding(num_embeddings, embedding_dim, padding_idx=None):
    """SinusoidalPositionalEmbedding.get_embedding (FAIRSEQ fairseq/modules/…#L48-L70)."""
    half_dim = embedding_dim // 2  # L56
    emb = math.log(10000) / (half_dim - 1)  # L57
    emb = torch.exp(torch.arange(half_dim, dtype=torch.float) * -emb)  # L58
    emb = torch.arange(num_embeddings, dtype=torch.float).unsqueeze(1) * emb.unsqueeze(
        0
    )  # L59-61
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=1).view(
        num_embeddings, -1
    )  # L62-64
    if embedding_dim % 2 == 1:  # L65-67: zero pad
        emb = torch.cat([emb, torch.zeros(num_embeddings, 1)], dim=1)
    if padding_idx is not None:  # L68-69
        emb[padding_idx, :] = 0
    return emb


def fairseq_make_positions(tokens, padding_idx):
    """utils.make_positions (FAIRSEQ fairseq/utils.py#L256-L266): ids start at padding_idx + 1."""
    mask = tokens.ne(padding_idx).int()  # L265
    return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + padding_idx  # L266


# ---------------------------------------------------------------------------------------------


def test_pytorch_tutorial():
    name = "PyTorch tutorial"
    ours = evaluate_call(name, _namespace())
    positions = np.arange(L)
    theta = geometric_theta(D // 2, 10000.0, D / 2)
    ref = tutorial_table(L, D).numpy()
    check_table_row(
        name, ours.astype(np.float32), ref, positions, theta, *interleaved_columns(D)
    )
    # the module, sequence-first as the tutorial's nn.Transformer input (S, N, E)
    module = SinusoidalPositionalEncoding(D, batch_first=False)
    x = torch.zeros(L, 3, D)
    assert torch.equal(module(x)[:, 2], torch.from_numpy(ours).float())


def test_annotated_transformer():
    name = "Annotated Transformer"
    ours = evaluate_call(name, _namespace())
    theta = geometric_theta(D // 2, 10000.0, D / 2)
    ref = annotated_table(L, D).numpy()
    check_table_row(
        name, ours.astype(np.float32), ref, np.arange(L), theta, *interleaved_columns(D)
    )


@pytest.mark.parametrize(
    ("min_timescale", "max_timescale", "start_index"),
    [(1.0, 1.0e4, 0), (2.0, 5.0e3, 7)],
)
def test_tensor2tensor(min_timescale, max_timescale, start_index):
    name = "tensor2tensor"
    namespace = _namespace(
        min_timescale=min_timescale,
        max_timescale=max_timescale,
        start_index=start_index,
    )
    ours = evaluate_call(name, namespace)
    ref = t2t_timing_signal(L, D, min_timescale, max_timescale, start_index).numpy()
    # theta_i = min_timescale * (max/min)^(-i/(d/2-1)), position m = start_index + t
    positions = np.arange(L) + start_index
    theta = min_timescale * geometric_theta(
        D // 2, max_timescale / min_timescale, D // 2 - 1
    )
    if (min_timescale, max_timescale, start_index) == (1.0, 1.0e4, 0):
        check_table_row(
            name,
            ours.astype(np.float32),
            ref,
            positions,
            theta,
            *concatenated_columns(D),
        )
    else:  # the equivalence of the general call; the page's number is the default's
        sin_cols, cos_cols = concatenated_columns(D)
        error = assert_reference_is_the_formula(
            name, ref[:, sin_cols], ref[:, cos_cols], positions, theta
        )
        assert_within_reference_rounding(
            name, ours[:, sin_cols], ref[:, sin_cols], error
        )
        assert_within_reference_rounding(
            name, ours[:, cos_cols], ref[:, cos_cols], error
        )


def test_fairseq():
    name = "fairseq"
    padding_idx = 1
    ours = evaluate_call(
        name, _namespace(padding_idx=padding_idx)
    )  # rows of tokens 0 … L-1
    table = fairseq_embedding(L + padding_idx + 1, D, padding_idx)
    tokens = torch.full((1, L), 5)  # no padding: tokens read rows padding_idx + 1 + t
    ref = table[fairseq_make_positions(tokens, padding_idx)[0]].numpy()
    positions = np.arange(L) + padding_idx + 1
    theta = geometric_theta(D // 2, 10000.0, D // 2 - 1)
    check_table_row(
        name, ours.astype(np.float32), ref, positions, theta, *concatenated_columns(D)
    )


def test_fairseq_left_padded_batch_through_the_module():
    # a left-padded batch: fairseq gives each real token the row of its rank among real tokens;
    # the module reproduces that with per-row positions (an offset cannot)
    padding_idx, d = 1, 64
    tokens = torch.tensor([[1, 1, 1, 7, 8, 9, 4], [5, 6, 7, 8, 9, 4, 3]])
    ids = fairseq_make_positions(tokens, padding_idx)
    ref = fairseq_embedding(32, d, padding_idx)[ids]
    module = SinusoidalPositionalEncoding(
        d, layout="concatenated", spacing="i/(d/2-1)", batch_first=True
    )
    ours = module(torch.zeros(2, 7, d), positions=ids)
    real = tokens.ne(padding_idx)
    assert (ours[real] - ref[real]).abs().max() < 1e-5
    shifted = module(
        torch.zeros(2, 7, d), offset=padding_idx + 1
    )  # what an offset gives
    assert (shifted[0][real[0]] - ref[0][real[0]]).abs().max() > 0.5


def test_tensor2tensor_and_fairseq_odd_dimension():
    name = "tensor2tensor, fairseq (odd d)"
    d = D - 1  # 511: both zero-pad the last column
    ours = evaluate_call(name, _namespace(d=d)).astype(np.float32)
    theta = geometric_theta(d // 2, 10000.0, d // 2 - 1)
    sin_cols, cos_cols = concatenated_columns(d - 1)
    measured = 0.0
    for ref in (t2t_timing_signal(L, d), fairseq_embedding(L, d)):
        assert ref.shape == (L, d)
        measured = max(
            measured,
            check_table_row(
                name,
                ours,
                ref.numpy(),
                np.arange(L),
                theta,
                sin_cols,
                cos_cols,
                page=False,
            ),
        )
    check_page(name, measured)
