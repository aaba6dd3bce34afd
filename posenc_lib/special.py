r"""Special functions of the kernel's integral form: the cosine integrals Ci and Cin.

.. math:: \operatorname{Ci}(x) = -\int_x^\infty \frac{\cos u}{u}\,du, \qquad
          \operatorname{Cin}(x) = \int_0^x \frac{1 - \cos u}{u}\,du
          = \gamma + \ln x - \operatorname{Ci}(x)\quad(x > 0),

with :math:`\gamma` the Euler–Mascheroni constant. Implemented with numpy alone: the power series
of Cin for :math:`|x| \le 4` and a continued fraction for :math:`\operatorname{Ci}` beyond.
The tests compare both with mpmath.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_real_array

__all__ = ["EULER_GAMMA", "cin", "cosine_integral"]

#: Euler–Mascheroni constant :math:`\gamma`.
EULER_GAMMA = 0.57721566490153286061

#: Below this argument Cin uses its power series, above it the continued fraction of Ci.
_SERIES_LIMIT = 4.0

#: Coefficients of Cin(x) = sum_k (-1)^(k+1) x^(2k) / (2k (2k)!), k = 1..20 (Horner in x^2).
_CIN_COEFFS = np.array(
    [
        (-1.0) ** (k + 1)
        / (2 * k * float(np.prod(np.arange(1, 2 * k + 1, dtype=np.float64))))
        for k in range(1, 21)
    ]
)


def _cin_series(x: np.ndarray) -> np.ndarray:
    r""":math:`\operatorname{Cin}(x) = \int_0^x (1-\cos u)/u\,du` by its power series, x <= 4."""
    z = x * x
    s = np.full_like(x, _CIN_COEFFS[-1])
    for c in _CIN_COEFFS[-2::-1]:
        s = s * z + c
    return s * z


def _ci_continued_fraction(x: np.ndarray) -> np.ndarray:
    r""":math:`\operatorname{Ci}(x) = -\operatorname{Re} E_1(\mathrm{i}x)`, used for x > 4.

    :math:`E_1(z) = e^{-z}\cfrac{1}{z+1-\cfrac{1}{z+3-\cfrac{4}{z+5-\cdots}}}`, evaluated by the
    modified Lentz method until every element has converged to machine precision.
    """
    if x.size == 0:
        return np.empty(0)
    b = 1.0 + 1j * x
    c = np.full(x.shape, 1e300 + 0j)
    d = 1.0 / b
    h = d.copy()
    for n in range(1, 1000):
        a = -float(n * n)
        b = b + 2.0
        d = 1.0 / (a * d + b)
        c = b + a / c
        step = c * d
        h *= step
        if np.max(np.abs(step - 1.0)) < 1e-15:
            break
    else:  # pragma: no cover - the fraction converges in < 100 steps for x >= 2
        raise RuntimeError("continued fraction for Ci did not converge")
    return -(np.cos(x) * h.real + np.sin(x) * h.imag)


def cosine_integral(x: ArrayLike) -> np.ndarray:
    r"""The cosine integral :math:`\operatorname{Ci}(x) = -\int_x^\infty \frac{\cos u}{u}\,du`.

    .. math:: \operatorname{Ci}(x) = \gamma + \ln x - \operatorname{Cin}(x), \qquad x > 0.

    Parameters
    ----------
    x : float or array_like
        Positive finite reals, any shape.

    Returns
    -------
    numpy.ndarray
        float64 of the shape of ``x``; absolute error about :math:`10^{-16}\max(1, |\ln x|)`.

    Examples
    --------
    >>> from posenc_lib.special import cosine_integral
    >>> print(f"{float(cosine_integral(1.0)):.12f}")
    0.337403922901
    """
    values = check_real_array(x, "x")
    if np.any(values <= 0):
        raise ValueError(
            "x must be positive finite reals (Ci is defined for x > 0), got an array with "
            f"minimum {values.min():g}"
        )
    return _ci(values)


def _ci(values: np.ndarray) -> np.ndarray:
    """:func:`cosine_integral` of a float64 array > 0."""
    flat = values.ravel()
    out = np.empty_like(flat)
    small = flat <= _SERIES_LIMIT
    out[small] = EULER_GAMMA + np.log(flat[small]) - _cin_series(flat[small])
    out[~small] = _ci_continued_fraction(flat[~small])
    return out.reshape(values.shape)


def cin(x: ArrayLike) -> np.ndarray:
    r"""The entire cosine integral :math:`\operatorname{Cin}(x) = \int_0^x \frac{1-\cos u}{u}\,du`.

    .. math:: \operatorname{Cin}(x) = \sum_{k \ge 1} \frac{(-1)^{k+1} x^{2k}}{2k\,(2k)!}
              = \gamma + \ln|x| - \operatorname{Ci}(|x|),

    an even function, :math:`\operatorname{Cin}(0) = 0`. It has no cancellation near 0, where
    :math:`\gamma + \ln x` and :math:`\operatorname{Ci}(x)` nearly cancel.

    Parameters
    ----------
    x : float or array_like
        Finite reals, any shape.

    Returns
    -------
    numpy.ndarray
        :math:`\operatorname{Cin}(x)`, float64, shaped like ``x``; absolute error about
        :math:`10^{-16}\max(1, \ln|x|)`.

    Examples
    --------
    >>> from posenc_lib.special import cin
    >>> print(f"{float(cin(1.0)):.12f}")
    0.239811742001
    """
    return _cin(np.abs(check_real_array(x, "x")))


def _cin(values: np.ndarray) -> np.ndarray:
    """:func:`cin` of a float64 array >= 0."""
    flat = values.ravel()
    out = np.empty_like(flat)
    small = flat <= _SERIES_LIMIT
    out[small] = _cin_series(flat[small])
    big = flat[~small]
    out[~small] = EULER_GAMMA + np.log(big) - _ci_continued_fraction(big)
    return out.reshape(values.shape)
