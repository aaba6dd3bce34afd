"""Instrumentation and controls of chapter 11 (notebooks/11_engineering.ipynb), kept out of it.

* The chapter states that the library's angle-addition method evaluates sines and cosines of
  ``B + G + ceil(L/(BG))`` rows only (192 of 131072 at d = 1024); here its private evaluation
  ``angle_addition._sin_cos`` is wrapped to count them.
* Its planted slips are rows of ``test_planted_slips.py``.
* The caching trick of the sources' engineering section (the anonymous expansion of Su's post),
  transcribed: PyTorch refuses its ``register_buffer`` call (the claims appendix lists it).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import posenc_lib as pe
from posenc_lib import angle_addition


def test_the_library_evaluates_only_the_planned_rows(monkeypatch) -> None:
    calls: list[tuple[int, int]] = []  # (positions, pairs) of every direct evaluation
    library_sin_cos = angle_addition._sin_cos

    def recorded(positions, theta):
        calls.append((positions.size, theta.size))
        return library_sin_cos(positions, theta)

    monkeypatch.setattr(angle_addition, "_sin_cos", recorded)
    length, dim = 131072, 1024
    table = pe.sinusoidal(length, dim, dtype=np.float32, method="angle_addition")
    assert table.shape == (length, dim)
    del table
    plan = angle_addition.block_plan(length, dim, dtype=np.float32)
    block, group = plan["block"], plan["group"]
    rows = sum(positions for positions, _ in calls)
    assert all(pairs == dim // 2 for _, pairs in calls)  # every call: all d/2 pairs
    assert rows == block + group + -(-length // (block * group)) == plan["direct_rows"]
    assert rows == 192 and length / rows > 500  # the numbers the chapter states
    # the factors of one block: B rows x 512 pairs of complex64, 512 KiB
    assert calls[0][0] == block
    assert block * (dim // 2) * np.dtype(np.complex64).itemsize == 512 * 2**10


class CachedPositionEmbedding(torch.nn.Module):
    """The sources' "optimization trick 1" (section 5.3 of the expansion), transcribed."""

    def __init__(self, d_model, initial_max_len=512, base=10000):
        super().__init__()
        self.d_model = d_model
        self.base = base
        self._cached_pe = None  # a plain attribute ...
        self._cached_len = 0
        self.expand_cache(initial_max_len)

    def expand_cache(self, new_len):
        if new_len <= self._cached_len:
            return
        pe_ = torch.zeros(new_len, self.d_model)
        position = torch.arange(0, new_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(
            torch.arange(0, self.d_model, 2).float()
            * (-np.log(self.base) / self.d_model)
        )
        pe_[:, 0::2] = torch.sin(position * div_term)
        pe_[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("_cached_pe", pe_.unsqueeze(0))  # ... so this raises
        self._cached_len = new_len


def test_the_sources_caching_trick_fails_as_written() -> None:
    with pytest.raises(KeyError, match=r"\b_cached_pe\b"):
        CachedPositionEmbedding(64)


def test_the_sources_fp16_tip_computes_in_float32() -> None:
    # "pos_encoder(x.half())  # FP16 position encoding": a float16 input plus a float32
    # buffer is promoted to float32
    buffer32 = torch.from_numpy(pe.sinusoidal(100, 512, dtype=np.float32))
    x = torch.randn(2, 100, 512)
    assert (x.half() + buffer32).dtype == torch.float32
