r"""The inner-product kernel of the sinusoidal encoding.

:math:`\kappa(\Delta) = \langle p_m, p_n\rangle / (d/2) = \frac{2}{d}\sum_{i=0}^{d/2-1}\cos(\Delta\theta_i)`
with :math:`\Delta = m - n`; it is 1 at :math:`\Delta = 0` and depends on :math:`m, n` only through
:math:`\Delta`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_real_array
from .encoding import frequencies

#: Elements of the (offsets x frequencies) angle block evaluated at once; bounds memory to ~32 MiB.
_CHUNK_ELEMENTS = 1 << 22


def kernel(delta: ArrayLike, dim: int, base: float = 10000.0, spacing: str = "2i/d") -> np.ndarray:
    r"""Exact normalized kernel :math:`\kappa(\Delta) = \frac{2}{d}\sum_i \cos(\Delta\theta_i)`.

    ``delta`` may be a scalar or an array of any shape of finite real offsets; the result has its
    shape, in float64. Offsets are processed in chunks so memory stays bounded for any input size.
    """
    theta = frequencies(dim, base, spacing)
    offsets = check_real_array(delta, "delta")
    flat = offsets.ravel()
    out = np.empty(flat.shape, dtype=np.float64)
    step = max(1, _CHUNK_ELEMENTS // theta.size)
    for start in range(0, flat.size, step):
        block = np.multiply.outer(flat[start : start + step], theta)
        out[start : start + step] = np.cos(block).mean(axis=1)
    return out.reshape(offsets.shape)
