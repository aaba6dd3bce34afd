"""Falcon's ALiBi and diffusers' 2-D sin-cos tables: rows of book/conventions.md.

* Falcon (transformers' ``build_alibi_tensor`` of ``modeling_falcon.py``) rounds the slopes and
  their products to bfloat16; :class:`FalconALiBi` reproduces its relative bias exactly, where
  :class:`ALiBi` differs by several units at L = 2048 (asserted, to show the row is needed).
* diffusers' ``get_2d_sincos_pos_embed`` (DiT, PixArt) against :func:`sincos_2d`, square and
  non-square grids, ``base_size`` and ``interpolation_scale``.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from conventions_page import SKIP_REASON, U32, check_page, evaluate_call

os.environ.setdefault("HF_HUB_OFFLINE", "1")
torch = pytest.importorskip("torch")

from posenc_lib.alibi_falcon import FalconALiBi  # noqa: E402
from posenc_lib.nn import ALiBi  # noqa: E402
from posenc_lib.sincos2d import sincos_2d  # noqa: E402

L, QUERIES, PAD = 2048, 64, 100
FALCON_HEADS = (1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 71)


def test_falcon_alibi():
    pytest.importorskip("transformers", reason=SKIP_REASON)
    from transformers.models.falcon.modeling_falcon import build_alibi_tensor

    name = "Hugging Face Falcon ALiBi"
    mask = torch.ones(2, L, dtype=torch.long)
    mask[0, :PAD] = 0
    positions = (mask.cumsum(-1) - 1) * mask  # as build_alibi_tensor counts real tokens
    measured, plain_worst = 0.0, 0.0
    for n in FALCON_HEADS:
        ref = build_alibi_tensor(mask, n, torch.float32).view(2, n, L).double()
        # Falcon adds r(n_key) to every query row; the relative bias of query m on key n is
        # r(n) - r(m); the last QUERIES queries, far from position 0, have the largest products
        relative = ref[:, :, None, :] - ref[:, :, L - QUERIES :, None]
        causal = torch.ones(QUERIES, L, dtype=torch.bool).tril(L - QUERIES)
        keep = (mask.bool()[:, None, None, :] & causal).expand_as(relative)
        module = evaluate_call(name, {"FalconALiBi": FalconALiBi, "n": n})
        ours = module.bias(QUERIES, L, positions=positions).double()
        measured = max(measured, float((ours - relative).abs()[keep].max()))
        plain = ALiBi(n).bias(QUERIES, L, positions=positions).double()
        plain_worst = max(plain_worst, float((plain - relative).abs()[keep].max()))
    assert measured == 0.0  # the same roundings: exact
    assert (
        plain_worst > 5.0
    )  # what the exact slopes cost a Falcon checkpoint (7.3 measured)
    check_page(name, measured)


CASES_2D = [  # (dim, grid_size, base_size, interpolation_scale)
    (64, 16, 16, 1.0),
    (1152, 32, 16, 2.0),
    (1152, 64, 64, 2.0),
    (64, (8, 12), 16, 1.0),
    (96, (30, 17), 64, 0.5),
    (256, (24, 40), 32, 1.5),
]


def test_diffusers_2d_sincos():
    pytest.importorskip("diffusers", reason=SKIP_REASON)
    from diffusers.models.embeddings import get_2d_sincos_pos_embed

    name = "diffusers 2-D sin-cos (DiT, PixArt)"
    measured = 0.0
    for d, grid_size, base_size, interpolation_scale in CASES_2D:
        ref = get_2d_sincos_pos_embed(
            d, grid_size, base_size=base_size, interpolation_scale=interpolation_scale
        ).numpy()
        names = dict(
            sincos_2d=sincos_2d, d=d, grid_size=grid_size, base_size=base_size,
            interpolation_scale=interpolation_scale,
        )  # fmt: skip
        ours = evaluate_call(name, names)
        assert ours.shape == ref.shape
        # diffusers rounds the coordinates to float32 (two divisions), then works in float64:
        # an angle error of at most 3u |coordinate| theta <= 3u |coordinate|
        height, width = (
            (grid_size, grid_size) if isinstance(grid_size, int) else grid_size
        )
        x = np.arange(width) * base_size / width / interpolation_scale
        y = np.arange(height) * base_size / height / interpolation_scale
        coordinate = np.maximum.outer(y, x).reshape(-1, 1)
        difference = np.abs(ours - ref)
        assert np.all(difference <= 3 * U32 * coordinate + 1e-15), (
            grid_size,
            base_size,
        )
        measured = max(measured, float(difference.max()))
        # the layout: column coordinate first, row coordinate second, row-major tokens
        assert np.allclose(ours[1, : d // 2], sincos_2d((1, width), d, base_size=base_size,
                           interpolation_scale=interpolation_scale)[1, : d // 2])  # fmt: skip
    check_page(name, measured)
