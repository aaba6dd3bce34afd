r"""Falcon's ALiBi: slopes rounded to bfloat16 and multiplied in bfloat16 (*torch*).

Hugging Face's Falcon (``build_alibi_tensor`` of ``modeling_falcon.py``) adds to the score of
key :math:`n` the bias :math:`r_h(n) = \mathrm{bf16}(\mathrm{bf16}(s_h)\,\mathrm{bf16}(n))`: the
slopes of :func:`~posenc_lib.nn.alibi_slopes` rounded to bfloat16 (8 significant bits), times
the position, itself rounded to bfloat16 by PyTorch's type promotion (bfloat16 times an integer
tensor), the product rounded to bfloat16 again. Far from the diagonal that is far from
:math:`-s_h(m-n)`: at :math:`n = 2047` with :math:`s_h = 1/2` the spacing of bfloat16 is 8, so a
model trained with Falcon's bias sees a different one under :class:`~posenc_lib.nn.ALiBi` (up to
7.3 at :math:`L = 2048`, measured against transformers). :class:`FalconALiBi` gives Falcon's
bias as the relative bias :math:`r_h(n) - r_h(m)` (a constant per query row, which the softmax
ignores, apart).
"""

from __future__ import annotations

import torch
from torch import Tensor

from .nn import ALiBi

__all__ = ["FalconALiBi"]


class FalconALiBi(ALiBi):
    r"""ALiBi with Falcon's bfloat16 rounding: bias :math:`r_h(n) - r_h(m)` of query m on key n.

    :math:`r_h(k) = \mathrm{bf16}(\mathrm{bf16}(s_h)\,\mathrm{bf16}(k))`, the product formed
    in float32 as PyTorch forms a bfloat16 product, :math:`s_h` the slopes of
    :func:`~posenc_lib.nn.alibi_slopes`. With ``causal=False`` the bias is
    :math:`-|r_h(n) - r_h(m)|` (Falcon itself is causal). Arguments and shapes are those of
    :class:`~posenc_lib.nn.ALiBi`.

    Examples
    --------
    >>> bias = FalconALiBi(2).bias(3, 2048, offset=2045)
    >>> bias[0, -1, 0].item()  # query 2047 on key 0: 0.0625 * bf16(2047) = 128, not 127.94
    -128.0
    """

    def _from_positions(self, slopes, q_pos, k_pos, causal: bool) -> Tensor:
        rounded = slopes.to(torch.float32).to(torch.bfloat16).to(torch.float32)

        def r(pos: Tensor) -> Tensor:  # (heads, L) or (batch, heads, L)
            position = pos[..., None, :].to(torch.bfloat16).to(torch.float32)
            product = rounded[:, None] * position
            return product.to(torch.bfloat16).to(torch.float64)

        bias = r(k_pos)[..., None, :] - r(q_pos)[..., :, None]
        return bias if causal else -bias.abs()
