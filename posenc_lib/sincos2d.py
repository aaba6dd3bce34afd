r"""2-D sin-cos position tables of image patches (DiT, PixArt, SD3; diffusers' convention).

A grid of :math:`H \times W` patches, read row by row (token :math:`t = hW + w`), gets the row
``[p(x_w) | p(y_h)]``: the first ``dim / 2`` features encode the column coordinate and the last
``dim / 2`` the row coordinate, each a 1-D table in the ``[sin | cos]`` layout with
:math:`\theta_i = b^{-2i/(d/2)}`. The coordinates are scaled as diffusers' ``PatchEmbed`` scales
them for a grid other than the one trained on: :math:`x_w = w\,\beta/(W s)` and
:math:`y_h = h\,\beta/(H s)`, :math:`\beta` = ``base_size`` and :math:`s` =
``interpolation_scale``. Everything is computed in float64 (angles and coordinates) and rounded
once to ``dtype``.

Examples
--------
>>> from posenc_lib.sincos2d import sincos_2d
>>> sincos_2d((2, 3), 8).shape  # H = 2 rows, W = 3 columns
(6, 8)
"""

from __future__ import annotations

import numpy as np
from numpy.typing import DTypeLike

from ._validation import (
    DEFAULT_MAX_BYTES,
    check_base,
    check_count,
    check_dim,
    check_float_dtype,
    check_real,
    check_table_size,
)
from .encoding import sinusoidal

__all__ = ["MAX_SCALE", "sincos_2d"]

#: Largest ``base_size`` and ``interpolation_scale`` (and smallest ``1 / interpolation_scale``).
MAX_SCALE = float(2**30)


def _grid(grid_size: object) -> tuple[int, int]:
    if isinstance(grid_size, (tuple, list)):
        if len(grid_size) != 2:
            raise ValueError(
                "grid_size must be an integer or a pair (height, width) of integers, got a "
                f"sequence of {len(grid_size)} items"
            )
        height, width = grid_size
    else:
        height = width = grid_size
    return check_count(height, "grid_size", 1), check_count(width, "grid_size", 1)


def sincos_2d(
    grid_size: int | tuple[int, int],
    dim: int,
    *,
    base_size: float = 16.0,
    interpolation_scale: float = 1.0,
    base: float = 10000.0,
    dtype: DTypeLike = np.float64,
) -> np.ndarray:
    r"""The 2-D sin-cos table of an ``H x W`` grid of patches, shape ``(H * W, dim)``.

    Parameters
    ----------
    grid_size : int or (int, int)
        ``H = W = grid_size``, or ``(H, W)``.
    dim : int
        The embedding dimension, a multiple of 4 (two halves of even width).
    base_size : float
        The grid size :math:`\beta` the coordinates are scaled to (diffusers' default 16; DiT
        and PixArt pass ``sample_size // patch_size``).
    interpolation_scale : float
        Divides the coordinates (diffusers' ``interpolation_scale``, default 1).
    base : float
        The base :math:`b > 1` of the frequencies.
    dtype : numpy.dtype
        float32 or float64 (default).

    Returns
    -------
    numpy.ndarray
        Row :math:`hW + w` is ``[p(x_w) | p(y_h)]``.

    Examples
    --------
    >>> import numpy as np
    >>> table = sincos_2d(2, 4, base_size=2.0)
    >>> table[3].round(4)  # h = w = 1: sin 1, cos 1 for the column, then for the row
    array([0.8415, 0.5403, 0.8415, 0.5403])
    """
    height, width = _grid(grid_size)
    dim = check_dim(dim)
    if dim % 4:
        raise ValueError(
            f"dim must be a multiple of 4 (two halves of even width), got {dim}"
        )
    base_size = check_real(base_size, "base_size", above=0.0, below=MAX_SCALE)
    interpolation_scale = check_real(
        interpolation_scale, "interpolation_scale", above=1.0 / MAX_SCALE,
        below=MAX_SCALE,
    )  # fmt: skip
    base = check_base(base)
    dtype = check_float_dtype(dtype)
    check_table_size(
        height * width, dim, 8, DEFAULT_MAX_BYTES, names="grid_size (H x W) x dim"
    )
    x = np.arange(width, dtype=np.float64) * base_size / width / interpolation_scale
    y = np.arange(height, dtype=np.float64) * base_size / height / interpolation_scale
    half = dim // 2
    columns = sinusoidal(x, half, base=base, layout="concatenated")  # (W, d/2)
    rows = sinusoidal(y, half, base=base, layout="concatenated")  # (H, d/2)
    table = np.empty((height, width, dim), dtype=np.float64)
    table[:, :, :half] = columns[None, :, :]
    table[:, :, half:] = rows[:, None, :]
    return table.reshape(height * width, dim).astype(dtype, copy=False)
