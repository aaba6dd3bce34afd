r"""The power spectrum of a position table along the position axis (chapter 7).

A sinusoidal table puts all its power at its :math:`d/2` frequencies :math:`\theta_i/2\pi`;
:func:`position_power_spectrum` measures where a learned table puts its power, so the two can be
compared on one axis.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_matrix

__all__ = ["position_power_spectrum"]


def position_power_spectrum(table: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    r"""Share of a position table's power at each frequency along the position axis.

    For a table :math:`P` of shape :math:`(L, d)`, center each column over the positions, take
    its discrete Fourier transform over :math:`m = 0 … L-1`,
    :math:`\hat P_{f,a} = \sum_m (P_{m,a} - \bar P_a)\,e^{-2\pi i f m}`, and sum
    :math:`|\hat P_{f,a}|^2` over the columns :math:`a`; fold :math:`\pm f` together and
    normalize to total 1.

    Parameters
    ----------
    table : array_like
        A 2-D array of finite reals, one row per position, at least 2 rows and 2 columns.

    Returns
    -------
    frequencies : numpy.ndarray
        :math:`f = 0, 1/L, \dots, \lfloor L/2\rfloor/L` in cycles per token (angular frequency
        :math:`2\pi f` radians per token).
    power : numpy.ndarray
        The share of the total power at each frequency (the power of :math:`\pm f` together).

    Examples
    --------
    >>> import posenc_lib as pe
    >>> from posenc_lib.course.spectrum import position_power_spectrum
    >>> f, power = position_power_spectrum(pe.sinusoidal(64, 2, base=8.0))  # theta = 1
    >>> print(f"{f[power.argmax()]:.4f} cycles/token; 1/(2 pi) = 0.1592")
    0.1562 cycles/token; 1/(2 pi) = 0.1592
    """
    p = check_matrix(table, "table", min_size=2)
    centered = p - p.mean(axis=0)
    power = (np.abs(np.fft.rfft(centered, axis=0)) ** 2).sum(axis=1)
    length = p.shape[0]
    weights = np.full(power.shape, 2.0)
    weights[0] = 1.0
    if length % 2 == 0:
        weights[-1] = 1.0
    power = power * weights
    total = power.sum()
    if not (np.isfinite(total) and total > 0):
        raise ValueError(
            "table must have rows that vary (finite, not constant after removing the mean), "
            "got a table whose centered power is " + ("0" if total == 0 else str(total))
        )
    return np.fft.rfftfreq(length), power / total
