"""Odd ``dim`` and ``padding_idx`` in SinusoidalPositionalEncoding, and fairseq's odd-d table.

fairseq (re-implemented from its source at a commit, ``test_conventions_published``) and its
Hugging Face port M2M100 (imported) zero-pad an odd dimension and zero the row of the padding
position; pad tokens get that position. The module reproduces both on a left-padded batch, pad
tokens included; ``framework_table("fairseq", ...)`` accepts an odd ``d``.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from conventions_page import SKIP_REASON, U32

os.environ.setdefault("HF_HUB_OFFLINE", "1")
torch = pytest.importorskip("torch")

from test_conventions_published import (  # noqa: E402
    fairseq_embedding,
    fairseq_make_positions,
)

from posenc_lib.conventions import framework_table  # noqa: E402
from posenc_lib.nn import SinusoidalPositionalEncoding  # noqa: E402

PADDING_IDX = 1
TOKENS = torch.tensor([[1, 1, 1, 7, 8, 9, 4] * 40, [5, 6, 7, 8, 9, 4, 3] * 40])
TOKENS[0, :3] = PADDING_IDX  # row 0 left-padded (the pattern's later 1s are pads too)


def _module(d: int) -> SinusoidalPositionalEncoding:
    return SinusoidalPositionalEncoding(
        d, layout="concatenated", spacing="i/(d/2-1)", odd_dim="zero_pad",
        padding_idx=PADDING_IDX, batch_first=True,
    )  # fmt: skip


def _tolerance(positions) -> torch.Tensor:
    """float32 angles of the reference: |m| (|ln theta| + 5) u theta <= |m| 15 u, plus 4u."""
    return positions.double()[..., None] * 15 * U32 + 4 * U32


@pytest.mark.parametrize("d", [64, 63, 5])
def test_fairseq_padding_row_and_odd_dim_through_the_module(d):
    ids = fairseq_make_positions(TOKENS, PADDING_IDX)
    ref = fairseq_embedding(int(ids.max()) + 1, d, PADDING_IDX)[ids]
    module = _module(d)
    ours = module(torch.zeros(2, TOKENS.shape[1], d), positions=ids)
    pads = TOKENS.eq(PADDING_IDX)
    assert bool((ours[pads] == 0).all()) and bool((ref[pads] == 0).all())
    assert bool((ours[..., -1] == 0).all()) == (d % 2 == 1)
    assert bool(((ours - ref).abs() <= _tolerance(ids)).all())
    # the cached table zeroes the same row: an offset of 0 reads row padding_idx as zeros
    assert bool((module.encoding(4)[PADDING_IDX] == 0).all())


@pytest.mark.parametrize("d", [64, 63])
def test_m2m100_positional_embedding_with_pads(d):
    pytest.importorskip("transformers", reason=SKIP_REASON)
    from transformers.models.m2m_100.modeling_m2m_100 import (
        M2M100SinusoidalPositionalEmbedding,
    )

    reference = M2M100SinusoidalPositionalEmbedding(64, d, PADDING_IDX)
    ref = reference(TOKENS)  # grows its table past 64 positions itself
    ids = reference.create_position_ids_from_input_ids(TOKENS, PADDING_IDX)
    ours = _module(d)(torch.zeros(2, TOKENS.shape[1], d), positions=ids)
    assert ours.shape == ref.shape
    pads = TOKENS.eq(PADDING_IDX)
    assert bool((ours[pads] == 0).all()) and bool((ref[pads] == 0).all())
    assert bool(((ours - ref).abs() <= _tolerance(ids)).all())


def test_framework_table_fairseq_accepts_an_odd_dim():
    for d in (5, 63, 511):
        table = framework_table("fairseq", 300, d, padding_idx=PADDING_IDX)
        ref = fairseq_embedding(300, d, PADDING_IDX).numpy()
        assert table.shape == ref.shape == (300, d)
        assert np.array_equal(table[:, -1], np.zeros(300))
        bound = _tolerance(torch.arange(300)).numpy()
        assert np.all(np.abs(table.astype(np.float64) - ref) <= bound)
    with pytest.raises(ValueError, match=r"^dim\b"):
        framework_table("fairseq", 10, 3)
