r"""Error bounds of sinusoid tables built by angle addition (chapter 8), proved given the
accuracy of numpy's ``exp``/``log`` (the frequencies) and ``sin``/``cos`` (a few units in the
last place), to first order in the unit roundoff.

Let :math:`M` bound the positions, :math:`|m| \le M`, and :math:`\varepsilon = 2^{-52}`.

* float64 tables: every entry is within :math:`2.5\,\varepsilon M + 16\,\varepsilon` of the
  exact value with :math:`\theta_i = b^{-2i/d}` exact (:func:`float64_bound`). The first term is
  the floor of any method that forms the angle :math:`m\theta_i` as a float64 number: rounding
  it (and :math:`\theta_i` itself) to float64 moves it by about :math:`m\theta_i\varepsilon`
  (a correctly rounded table, from extended-precision angles, escapes it at a higher cost).
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

from ._validation import check_float_dtype, check_real

__all__ = ["FLOAT32_COMBINE_BOUND", "error_bound", "float64_bound"]

#: The worst-case error :math:`(3 + 2\sqrt2)\,2^{-25}` of one float32 angle-addition step on
#: float32-rounded factors, clipped to :math:`[-1, 1]` (chapter 8).
FLOAT32_COMBINE_BOUND = (3.0 + 2.0 * math.sqrt(2.0)) * 2.0**-25


def float64_bound(max_position: float) -> float:
    r"""Error bound :math:`2.5\varepsilon M + 16\varepsilon` of float64 tables, :math:`|m| \le M`.

    :math:`\varepsilon = 2^{-52}` is the float64 machine epsilon. The first term is the angle
    floor (rounding :math:`\theta_i` and :math:`m\theta_i` to float64, about
    :math:`m\theta_i\varepsilon` in total, with :math:`\theta_i \le 1`); the second covers the
    evaluation of sine and cosine and the two angle-addition steps.

    Parameters
    ----------
    max_position : float
        :math:`M`, a finite real number (its absolute value is used).

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
    reach = abs(check_real(max_position, "max_position"))
    eps = float(np.finfo(np.float64).eps)
    return 2.5 * eps * reach + 16.0 * eps


def error_bound(max_position: float, *, dtype: DTypeLike = np.float64) -> float:
    r"""Proved max abs error of an angle-addition table in ``dtype`` over :math:`|m| \le M`.

    float64 (and wider): :func:`float64_bound`. float32: :data:`FLOAT32_COMBINE_BOUND` plus three
    times :func:`float64_bound` (the float64 factors' errors pass through the float32 step).
    :data:`FLOAT32_COMBINE_BOUND` is the float32 step's bound to first order in :math:`2^{-24}`;
    the neglected second-order term is at most :math:`2 \cdot 2^{-50}`. The float64 part is
    proved given the accuracy of numpy's float64 frequencies (within a few :math:`\varepsilon`)
    and of its sine and cosine (a few units in the last place).
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
