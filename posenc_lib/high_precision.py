r"""Reference values of the encoding in high precision (mpmath), and the error of a table.

The tests and chapter 11 check float64 and float32 tables against these values: an independent
route (arbitrary-precision sine and cosine of exactly formed angles) rather than the library's
own float64 arithmetic. mpmath (the ``sym`` extra) is imported by :func:`reference_entries` only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    _message,
    as_array,
    check_base,
    check_broadcast,
    check_choice,
    check_count,
    check_dim,
    check_matrix,
    check_positions,
    check_real_array,
    describe,
)
from .encoding import SPACINGS
from .layouts import LAYOUTS, pair_columns

__all__ = ["MAX_DPS", "MAX_ENTRIES", "reference_entries", "sampled_error"]

#: Most decimal digits :func:`reference_entries` works in (10**7 would run for minutes).
MAX_DPS = 1000

#: Most entries :func:`reference_entries` evaluates in one call (each is an mpmath evaluation).
MAX_ENTRIES = 100_000


def reference_entries(
    positions: ArrayLike,
    pairs: ArrayLike,
    dim: int,
    *,
    base: float = 10000.0,
    spacing: str = "2i/d",
    dps: int = 40,
) -> tuple[np.ndarray, np.ndarray]:
    r"""High-precision :math:`\sin m\theta_i` and :math:`\cos m\theta_i` at chosen entries.

    :math:`\theta_i = b^{-2i/d}` (or :math:`b^{-i/(d/2-1)}`) is evaluated in ``dps`` decimal
    digits from the float64 value of ``base``; positions are taken exactly as the float64
    values given; sine and cosine are mpmath's. Requires mpmath.

    Parameters
    ----------
    positions : array_like
        Positions :math:`m` (finite reals), any shape.
    pairs : array_like
        Pair indices :math:`i` in ``0 … dim/2 - 1`` (integers), broadcasting with ``positions``.
    dim : int
        The model dimension :math:`d`, a positive even integer.
    base : float
        The base :math:`b > 1`.
    spacing : str
        One of :data:`posenc_lib.SPACINGS`.
    dps : int
        Decimal digits of the computation, 20 … :data:`MAX_DPS`. At most
        :data:`MAX_ENTRIES` entries are evaluated per call.

    Returns
    -------
    sin, cos : numpy.ndarray
        float64 arrays of the broadcast shape: the roundings (error at most :math:`2^{-53}`
        relative) of the high-precision values.

    Examples
    --------
    >>> from posenc_lib.high_precision import reference_entries
    >>> sin, cos = reference_entries([1e6], [0], 8)
    >>> print(f"{sin[0]:.15f} {cos[0]:.15f}")
    -0.349993502171293 0.936752127533145
    """
    import mpmath

    dim = check_dim(dim)
    base = check_base(base)
    check_choice(spacing, "spacing", SPACINGS)
    dps = check_count(dps, "dps", 20, MAX_DPS)
    pos = check_real_array(positions, "positions")
    pair = _index_array(pairs, "pairs", dim // 2)
    pos_b, pair_b = check_broadcast(pos, pair, ("positions", "pairs"))
    if pos_b.size > MAX_ENTRIES:
        raise ValueError(
            f"positions x pairs must give at most MAX_ENTRIES = {MAX_ENTRIES} entries, got "
            f"{pos_b.size} (each is an mpmath evaluation)"
        )
    sin_out = np.empty(pos_b.shape)
    cos_out = np.empty(pos_b.shape)
    with mpmath.workdps(dps):
        b = mpmath.mpf(base)
        denominator = dim if spacing == "2i/d" else max(dim // 2 - 1, 1)
        numerator = 2 if spacing == "2i/d" else 1
        cache: dict[int, object] = {}
        for idx in np.ndindex(pos_b.shape):
            i = int(pair_b[idx])
            if i not in cache:
                cache[i] = mpmath.power(b, -mpmath.mpf(numerator * i) / denominator)
            angle = mpmath.mpf(float(pos_b[idx])) * cache[i]
            sin_out[idx] = float(mpmath.sin(angle))
            cos_out[idx] = float(mpmath.cos(angle))
    return sin_out, cos_out


def sampled_error(
    table: ArrayLike,
    positions: ArrayLike,
    rows: Sequence[int] | np.ndarray,
    pairs: Sequence[int] | np.ndarray,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    spacing: str = "2i/d",
) -> float:
    r"""Max abs error of ``table`` at the entries ``(rows[j], pairs[j])``, against mpmath.

    .. math:: \max_j \max\bigl(|P_{r_j, s(i_j)} - \sin m_{r_j}\theta_{i_j}|,\
              |P_{r_j, c(i_j)} - \cos m_{r_j}\theta_{i_j}|\bigr)

    with :math:`s(i), c(i)` the sine and cosine columns of pair :math:`i` in ``layout`` and the
    exact values from :func:`reference_entries`.

    Parameters
    ----------
    table : array_like
        A 2-D table, one row per position.
    positions : array_like
        The position of each row of ``table`` (an int ``L`` means ``0 … L-1``).
    rows, pairs : array_like
        Integer arrays of one shape: the sampled rows and pairs.
    base, layout, spacing
        The table's parameters, as in :func:`posenc_lib.sinusoidal`.

    Returns
    -------
    float
        The largest absolute error over the sampled sine and cosine entries.

    Examples
    --------
    >>> import numpy as np
    >>> import posenc_lib as pe
    >>> from posenc_lib.high_precision import sampled_error
    >>> table = pe.sinusoidal(1000, 8, dtype=np.float32)
    >>> bool(sampled_error(table, 1000, [0, 999, 500], [0, 3, 1]) < 1e-7)
    True
    """
    array = check_matrix(table, "table")
    dim = check_dim(array.shape[1])
    check_choice(layout, "layout", LAYOUTS)
    row = _index_array(rows, "rows", array.shape[0])
    pair = _index_array(pairs, "pairs", dim // 2)
    if row.shape != pair.shape:
        raise ValueError(
            f"rows and pairs must have one shape, got shapes {row.shape} and {pair.shape}"
        )
    pos = check_positions(positions)
    if pos.size != array.shape[0]:
        raise ValueError(
            f"positions must give one position per row of table ({array.shape[0]}), got {pos.size}"
        )
    ref_sin, ref_cos = reference_entries(
        pos[row], pair, dim, base=base, spacing=spacing
    )
    sin_col, cos_col = pair_columns(dim, layout=layout)
    err_sin = np.abs(array[row, sin_col[pair]] - ref_sin)
    err_cos = np.abs(array[row, cos_col[pair]] - ref_cos)
    return float(max(err_sin.max(initial=0.0), err_cos.max(initial=0.0)))


def _holds_bool(values: list | tuple, depth: int = 0) -> bool:
    """True if a (nested) list or tuple holds a bool (``True`` or ``numpy.bool_``)."""
    return depth < 32 and any(
        isinstance(v, (bool, np.bool_))
        or (isinstance(v, (list, tuple)) and _holds_bool(v, depth + 1))
        for v in values
    )


def _index_array(values: object, name: str, size: int) -> np.ndarray:
    """Integer indices in ``0 .. size - 1``, any shape, as an intp array, else raise."""
    accepted = f"integers in 0 .. {size - 1}"
    array = as_array(values, name, accepted)
    if array.dtype == object or (
        isinstance(values, (list, tuple)) and _holds_bool(values)
    ):  # numpy turns [True, 2] into integers
        raise TypeError(_message(name, accepted, f"{describe(values)} holding bools"))
    if array.dtype.kind not in "iu":
        raise TypeError(_message(name, accepted, f"an array of dtype {array.dtype}"))
    if array.size and (array.min() < 0 or array.max() >= size):
        raise ValueError(
            _message(name, accepted, f"values from {array.min()} to {array.max()}")
        )
    return array.astype(np.intp)
