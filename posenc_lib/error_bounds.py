r"""Error bounds of sinusoid tables built by angle addition (chapter 11), proved given two
assumed accuracies of numpy: its float64 frequencies are within :math:`c_\theta\,\varepsilon` of
:math:`\theta_i = b^{-2i/d}` with :math:`c_\theta \le 2` (``exp``/``log``), and its float64
sine and cosine are within :math:`c_s\,\varepsilon` of the exact values with :math:`c_s \le 3`.
Chapter 11 derives the bounds from these two constants and measures both.

Let :math:`0 \le m \le M \le 2^{52}` be the positions and :math:`\varepsilon = 2^{-52}`.

* float64 tables: every entry is within :math:`2.5\,\varepsilon M + 16\,\varepsilon +
  (2.5\,\varepsilon M)^2` of the exact value (:func:`float64_bound`), for the library's direct
  and angle-addition methods. The first term bounds their angle floor: each of the
  (up to three) angle pieces :math:`x\theta_i` is formed as :math:`\mathrm{fl}(x\hat\theta_i)`,
  within :math:`(c_\theta + \tfrac12)\,\varepsilon\,|x|` of :math:`x\theta_i`, and the pieces
  sum to :math:`m`. The first-order constant term is :math:`(1 + \sqrt2 + 3\sqrt2\,c_s)
  \,\varepsilon = (1 + 10\sqrt2)\,\varepsilon \approx 15.1\,\varepsilon` (three sine/cosine
  pairs, two float64 complex products), rounded up to :math:`16\,\varepsilon`; the quadratic
  term covers every higher-order term for every :math:`M \le 2^{52}`, the method's limit
  (chapter 11 checks this against the full expression; above about :math:`3\times10^{16}` the
  cubic term would win). That the floor is there, growing with :math:`m`, is measured; a
  correctly rounded table, from extended-precision angles, escapes it at a higher cost.
  When start and step have opposite signs, the pieces have opposite signs too (whether or not
  the progression crosses zero): read :math:`M` as :math:`|s| + |t|\,(L - 1)`.
* float32 tables: the combination is done in float32 on float32-rounded factors and clipped to
  :math:`[-1, 1]` (numpy may fuse one product into the sum, which removes a rounding and keeps
  the bound); the error is at most :data:`FLOAT32_COMBINE_BOUND`
  :math:`= (3 + 2\sqrt 2)\,2^{-25} \approx 1.74\times 10^{-7}` plus three times the float64
  bound (:func:`error_bound`).

The tests check these bounds against mpmath values (:mod:`posenc_lib.high_precision`).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import DTypeLike

from ._validation import MAX_POSITION, check_float_dtype, check_real

__all__ = ["FLOAT32_COMBINE_BOUND", "error_bound", "float64_bound"]

#: The worst-case error :math:`(3 + 2\sqrt2)\,2^{-25}` of one float32 angle-addition step on
#: float32-rounded factors, clipped to :math:`[-1, 1]` (chapter 11).
FLOAT32_COMBINE_BOUND = (3.0 + 2.0 * math.sqrt(2.0)) * 2.0**-25


def float64_bound(max_position: float) -> float:
    r"""The error bound :math:`2.5\varepsilon M + 16\varepsilon + (2.5\varepsilon M)^2`, float64.

    For positions :math:`0 \le m \le M` (or :math:`|m| \le M` for the direct method); for an
    angle-addition table whose start :math:`s` and step :math:`t` have opposite signs, pass
    :math:`M = |s| + |t|\,(L - 1)`, since its angle pieces then have opposite signs;
    :math:`\varepsilon = 2^{-52}` is the float64 machine epsilon. Proved (chapter 11) given that
    numpy's float64 frequencies are within :math:`2\varepsilon` of :math:`\theta_i` and its
    float64 sine and cosine within :math:`3\varepsilon` of the exact values. The first term is
    the angle floor (each angle piece :math:`x\theta_i` formed in float64 is off by at most
    :math:`2.5\,\varepsilon|x|`, and the pieces sum to :math:`m`); :math:`16\varepsilon` bounds
    the first-order error :math:`(1 + 10\sqrt2)\,\varepsilon` of the sines and cosines and of
    the two float64 angle-addition steps; the quadratic term covers the higher-order terms for
    every :math:`M \le 2^{52}` (the largest accepted).

    Parameters
    ----------
    max_position : float
        :math:`M`, a real number with :math:`|M| \le 2^{52}` (positions exact in float64; its
        absolute value is used).

    Returns
    -------
    float
        The bound.

    Examples
    --------
    >>> from posenc_lib.error_bounds import float64_bound
    >>> f"{float64_bound(1e6):.2e}"
    '5.55e-10'
    """
    limit = MAX_POSITION + 1
    reach = abs(check_real(max_position, "max_position", above=-limit, below=limit))
    eps = float(np.finfo(np.float64).eps)
    floor = 2.5 * eps * reach
    return floor + 16.0 * eps + floor * floor


def error_bound(max_position: float, *, dtype: DTypeLike = np.float64) -> float:
    r"""Proved max abs error of an angle-addition table in ``dtype`` over :math:`|m| \le M`.

    When the table's start and step have opposite signs, :math:`M` is
    :math:`|s| + |t|\,(L - 1)` (see :func:`float64_bound`); :math:`M \le 2^{52}`.

    float64 (and wider): :func:`float64_bound`. float32: :data:`FLOAT32_COMBINE_BOUND` plus three
    times :func:`float64_bound` (the float64 factors' errors pass through the float32 step).
    :data:`FLOAT32_COMBINE_BOUND` is the float32 step's bound to first order in :math:`2^{-24}`;
    its second-order term, at most :math:`2 \cdot 2^{-50} = 8\varepsilon`, and the float64
    inputs' error are covered by the three float64 bounds. The float64 part is proved given
    the accuracies stated in :func:`float64_bound`.
    float16: the float32 bound plus half a float16 unit in the last place below 1,
    :math:`2^{-12}`.

    Parameters
    ----------
    max_position : float
        :math:`M`, as in :func:`float64_bound`.
    dtype : numpy.dtype
        The table's dtype.

    Returns
    -------
    float
        The bound for tables of that dtype.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.error_bounds import error_bound
    >>> f"{error_bound(8192, dtype=np.float32):.3e}"
    '1.737e-07'
    """
    resolved = check_float_dtype(dtype)
    base = float64_bound(max_position)
    if resolved.itemsize >= 8:
        return base
    bound32 = FLOAT32_COMBINE_BOUND + 3.0 * base
    if resolved.itemsize == 4:
        return bound32
    return bound32 + 2.0**-12
