"""posenc_lib.conventions: each framework's table equals a transcription of its code."""

from __future__ import annotations

import math

import numpy as np
import pytest

import posenc_lib as pe
from posenc_lib import conventions as C
from posenc_lib.error_bounds import error_bound, float64_bound


def _tensor2tensor(
    length, channels, min_timescale=1.0, max_timescale=1.0e4, xp_dtype=np.float64
):
    """get_timing_signal_1d transcribed to numpy (start_index = 0)."""
    position = np.arange(length).astype(xp_dtype)
    num_timescales = channels // 2
    log_timescale_increment = math.log(
        float(max_timescale) / float(min_timescale)
    ) / max(float(num_timescales) - 1, 1)
    inv_timescales = min_timescale * np.exp(
        np.arange(num_timescales).astype(xp_dtype) * -log_timescale_increment
    ).astype(xp_dtype)
    scaled_time = position[:, None] * inv_timescales[None, :]
    return np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)


def _fairseq(num_embeddings, embedding_dim, padding_idx, xp_dtype=np.float64):
    """SinusoidalPositionalEmbedding.get_embedding transcribed to numpy."""
    half_dim = embedding_dim // 2
    emb = math.log(10000) / (half_dim - 1)
    emb = np.exp(np.arange(half_dim).astype(xp_dtype) * -emb).astype(xp_dtype)
    emb = np.arange(num_embeddings).astype(xp_dtype)[:, None] * emb[None, :]
    emb = np.concatenate([np.sin(emb), np.cos(emb)], axis=1).reshape(num_embeddings, -1)
    if padding_idx is not None:
        emb[padding_idx, :] = 0
    return emb


def _hf_marian(n_pos, dim):
    """MarianSinusoidalPositionalEmbedding._init_weight transcribed to numpy."""
    position_enc = np.array(
        [
            [pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)]
            for pos in range(n_pos)
        ]
    )
    out = np.empty((n_pos, dim))
    sentinel = dim // 2 if dim % 2 == 0 else (dim // 2) + 1
    out[:, 0:sentinel] = np.sin(position_enc[:, 0::2])
    out[:, sentinel:] = np.cos(position_enc[:, 1::2])
    return out


def _tutorial(max_len, d_model):
    """The PyTorch tutorial / Annotated Transformer formula, in float64."""
    position = np.arange(max_len)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
    pe_ = np.zeros((max_len, d_model))
    pe_[:, 0::2] = np.sin(position * div_term)
    pe_[:, 1::2] = np.cos(position * div_term)
    return pe_


@pytest.mark.parametrize("dim", [4, 8, 64, 512])
def test_framework_tables_equal_reimplementations(dim):
    n = 3000
    tol = 4 * float64_bound(n)  # both sides are float64 evaluations of one formula
    got = {c: C.framework_table(c, n, dim, dtype=np.float64) for c in C.CONVENTIONS}
    np.testing.assert_allclose(
        got["tensor2tensor"], _tensor2tensor(n, dim), rtol=0, atol=tol
    )
    np.testing.assert_allclose(got["fairseq"], _fairseq(n, dim, 1), rtol=0, atol=tol)
    np.testing.assert_allclose(got["vaswani2017"], _tutorial(n, dim), rtol=0, atol=tol)
    if dim <= 64:  # the Marian transcription is a slow Python double loop
        np.testing.assert_allclose(
            got["hf_marian"], _hf_marian(n, dim), rtol=0, atol=tol
        )
    assert np.all(got["fairseq"][1] == 0.0)


def test_framework_float32_tables_differ_by_their_float32_angle_error():
    torch = pytest.importorskip("torch")
    n, dim = 4096, 64
    # fairseq's own code path: float32 angles in torch.
    half_dim = dim // 2
    emb = math.log(10000) / (half_dim - 1)
    emb = torch.exp(torch.arange(half_dim, dtype=torch.float) * -emb)
    emb = torch.arange(n, dtype=torch.float).unsqueeze(1) * emb.unsqueeze(0)
    theirs = (
        torch.cat([torch.sin(emb), torch.cos(emb)], dim=1).numpy().astype(np.float64)
    )
    theirs[1] = 0
    ours = C.framework_table("fairseq", n, dim, dtype=np.float64)
    difference = np.max(np.abs(theirs - ours))
    # float32 angles m*theta carry up to ~ m * theta * 2**-24 (plus a float32 theta) of error.
    assert difference <= 3 * n * 2.0**-24
    assert difference > 100 * error_bound(n, dtype=np.float32)  # much larger than ours


def test_fairseq_padding_offset():
    n, dim, padding_idx = 50, 16, 1
    table = C.framework_table(
        "fairseq", n, dim, dtype=np.float64, padding_idx=padding_idx
    )
    rows = C.framework_rows("fairseq", 5, padding_idx=padding_idx)
    np.testing.assert_array_equal(rows, [2, 3, 4, 5, 6])
    expected = pe.sinusoidal(rows, dim, layout="concatenated", spacing="i/(d/2-1)")
    np.testing.assert_allclose(table[rows], expected, rtol=0, atol=1e-14)
    np.testing.assert_array_equal(C.framework_rows("tensor2tensor", 3), [0, 1, 2])
    zero_pad = C.framework_table("fairseq", n, dim, dtype=np.float64, padding_idx=0)
    assert np.all(zero_pad[0] == 0) and np.any(zero_pad[1] != 0)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (("bert", 10, 8), {}, ValueError, "convention"),
        (("fairseq", 10, 2), {}, ValueError, "dim"),
        (
            ("fairseq", 10, 8),
            {"padding_idx": 10},
            ValueError,
            "padding_idx must be an integer in 0 .. 9",
        ),
        (("fairseq", 10, 8), {"padding_idx": -1}, ValueError, "padding_idx"),
        (
            ("tensor2tensor", -1, 8),
            {},
            ValueError,
            "length must be an integer >= 0, got -1",
        ),
        (
            ("tensor2tensor", 2.0, 8),
            {},
            TypeError,
            "length must be an integer >= 0, got 2.0",
        ),
        (("tensor2tensor", 10, 8, np.float64), {}, TypeError, "positional"),
    ],
)
def test_framework_table_rejects_bad_arguments(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        C.framework_table(*args, **kwargs)


def test_framework_rows_rejects_bad_arguments():
    with pytest.raises(ValueError, match=r"^length\b"):
        C.framework_rows("fairseq", -2)
    with pytest.raises(TypeError, match=r"^length\b"):
        C.framework_rows("fairseq", 2.0)
    with pytest.raises(ValueError, match=r"^padding_idx\b"):
        C.framework_rows("fairseq", 2, padding_idx=-3)
    with pytest.raises(ValueError, match=r"^convention\b"):
        C.framework_rows("bert", 2)
