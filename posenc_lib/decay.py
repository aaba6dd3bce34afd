r"""Long-range decay of the kernel: its integral form, asymptotic forms and Euler–Maclaurin terms.

The exact kernel :math:`\kappa(\Delta) = \frac2d\sum_{i<d/2}\cos(\Delta\theta_i)`
(:func:`posenc_lib.kernel`), with :math:`\theta_i = b^{-2i/d}`, is a left Riemann sum, with step
:math:`2/d`, of the integral

.. math:: \bar\kappa(\Delta) = \int_0^1 \cos\bigl(\Delta\, b^{-t}\bigr)\,dt
          = \frac{\operatorname{Ci}(|\Delta|) - \operatorname{Ci}(|\Delta|/b)}{\ln b},
          \qquad \bar\kappa(0) = 1

(substitute :math:`u = |\Delta| b^{-t}`; :math:`\operatorname{Ci}` is the cosine integral,
:mod:`posenc_lib.special`). This module evaluates :math:`\bar\kappa` in closed form
(:func:`posenc_lib.kernel_integral`), its three asymptotic forms with rigorous error bounds
(:func:`kernel_taylor`, :func:`kernel_log`, :func:`kernel_oscillatory`,
:func:`asymptotic_bound`) and the Euler–Maclaurin corrections that link the sum to the integral
(:func:`kernel_euler_maclaurin`). Chapter 5 derives and measures each.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    _message,
    check_base,
    check_choice,
    check_dim,
    check_index,
    check_real_array,
)
from .encoding import SPACINGS
from .special import _SERIES_LIMIT, EULER_GAMMA, _ci, _cin

__all__ = [
    "ASYMPTOTIC_FORMS",
    "asymptotic_bound",
    "kernel_euler_maclaurin",
    "kernel_integral",
    "kernel_log",
    "kernel_oscillatory",
    "kernel_taylor",
]

#: Asymptotic forms of :math:`\bar\kappa` known to :func:`asymptotic_bound`.
ASYMPTOTIC_FORMS = ("taylor", "log", "oscillatory")


def kernel_integral(delta: ArrayLike, *, base: float = 10000.0) -> np.ndarray:
    r"""The integral approximation :math:`\bar\kappa(\Delta) = \int_0^1 \cos(\Delta b^{-t})\,dt`.

    .. math:: \bar\kappa(\Delta)
              = \frac{\operatorname{Ci}(|\Delta|) - \operatorname{Ci}(|\Delta|/b)}{\ln b}
              = 1 - \frac{\operatorname{Cin}(|\Delta|) - \operatorname{Cin}(|\Delta|/b)}{\ln b},
              \qquad \bar\kappa(0) = 1,

    evaluated in closed form (the Cin form where both arguments are small, so that there is no
    cancellation near :math:`\Delta = 0`). It is the limit of :func:`posenc_lib.kernel` as
    :math:`d \to \infty` (spacing ``"2i/d"``).

    Parameters
    ----------
    delta : float or array_like
        Offsets, a scalar or an array of any shape of finite reals.
    base : float
        :math:`b > 1`. The closed form divides a difference of two cosine integrals by
        :math:`\ln b`, so accuracy degrades as :math:`b \to 1` (below).

    Returns
    -------
    numpy.ndarray
        float64 of the shape of ``delta``, with absolute error below
        :math:`10^{-15}(1 + 2/\ln b)`: about :math:`10^{-15}` for :math:`b \ge 10`,
        :math:`2\times 10^{-12}` at :math:`b = 1.001`, :math:`2\times 10^{-3}` at
        :math:`b = 1 + 10^{-12}`. The tests assert this bound against 40-digit mpmath values
        (offsets from :math:`10^{-9}` to :math:`10^6`, bases from :math:`1 + 10^{-12}` to
        :math:`10^8`) and, on their grids of offsets, two measured figures: at most
        :math:`3\times 10^{-16}` for :math:`b \ge 10^4` (:math:`2.4\times 10^{-16}` measured),
        and at most :math:`1.2\times 10^{-15}/\ln b` for :math:`1 < b \le 1.1`
        (:math:`1.16\times 10^{-15}/\ln b` measured at :math:`b = 1.01`;
        :math:`6\times 10^{-13}` at :math:`b = 1.001`, :math:`8\times 10^{-13}` on other
        offsets). These are measurements, not bounds. For :math:`b` within about
        :math:`10^{-3}` of 1, integrate :math:`\cos(\Delta b^{-t})` over :math:`t` directly.

    Examples
    --------
    >>> import posenc_lib as pe
    >>> print(f"{float(pe.kernel_integral(100.0)):.6f}")
    0.436773
    >>> print(f"{float(pe.kernel(100.0, 4096)):.6f}")
    0.436749
    """
    return _kernel_integral(check_real_array(delta, "delta"), check_base(base))


def _kernel_integral(offsets: np.ndarray, base: float) -> np.ndarray:
    """:func:`kernel_integral` of checked arguments."""
    x = np.abs(offsets.ravel())
    y = x / base
    log_b = np.log(base)
    out = np.empty_like(x)
    # below special's _SERIES_LIMIT Cin is summed as a series (no cancellation), above Ci
    # both arguments small: the Cin form, exact limit 1 at delta = 0
    a = x <= _SERIES_LIMIT
    out[a] = 1.0 - (_cin(x[a]) - _cin(y[a])) / log_b
    # Ci(x) - (gamma + ln y - Cin(y)), ln y = ln x - ln b
    b = (~a) & (y <= _SERIES_LIMIT)
    out[b] = 1.0 + (_ci(x[b]) - EULER_GAMMA - np.log(x[b]) + _cin(y[b])) / log_b
    c = y > _SERIES_LIMIT  # both large
    out[c] = (_ci(x[c]) - _ci(y[c])) / log_b
    return out.reshape(offsets.shape)


def _nonzero_offsets(delta: ArrayLike, form: str) -> np.ndarray:
    """``delta`` as a float64 array of finite non-zero offsets, else raise naming the form."""
    offsets = check_real_array(delta, "delta")
    if np.any(offsets == 0):
        raise ValueError(
            f"delta must be non-zero finite reals for the {form}, got a zero"
        )
    return offsets


def _in_range(values: np.ndarray, offsets: np.ndarray, what: str) -> np.ndarray:
    """``values`` if finite; else raise naming the offsets at which ``what`` leaves float64."""
    bad = ~np.isfinite(values)
    if np.any(bad):
        worst = float(np.broadcast_to(offsets, values.shape)[bad].flat[0])
        accepted = (
            f"offsets at which the {what} stays within the float64 range (|delta| up to "
            "about 1e75, and not below 1e-150 where it divides by delta)"
        )
        raise ValueError(_message("delta", accepted, f"delta = {worst:g}"))
    return values


def kernel_taylor(delta: ArrayLike, *, base: float = 10000.0) -> np.ndarray:
    r"""Small-offset form :math:`1 - \frac{\Delta^2(1-b^{-2})}{4\ln b}` of :math:`\bar\kappa`.

    From :math:`1 - u^2/2 \le \cos u \le 1 - u^2/2 + u^4/24` (all real :math:`u`), integrated:

    .. math:: 0 \le \bar\kappa(\Delta) - \Bigl(1 - \frac{\Delta^2(1-b^{-2})}{4\ln b}\Bigr)
              \le \frac{\Delta^4(1-b^{-4})}{96\ln b}\quad\text{for every }\Delta.

    Useful for :math:`|\Delta| \lesssim 1`; see :func:`asymptotic_bound`.

    Parameters
    ----------
    delta : float or array_like
        Finite offsets, a scalar or an array of any shape.
    base : float
        :math:`b > 1`.

    Returns
    -------
    numpy.ndarray
        :math:`1 - \Delta^2(1-b^{-2})/(4\ln b)` for each offset, float64, shaped like ``delta``.

    Examples
    --------
    >>> import posenc_lib as pe
    >>> from posenc_lib.decay import kernel_taylor
    >>> gap = pe.kernel_integral(0.1) - kernel_taylor(0.1)
    >>> bool(0 <= gap <= 0.1**4 / (96 * 9.2))
    True
    """
    base = check_base(base)
    offsets = check_real_array(delta, "delta")
    with np.errstate(over="ignore", invalid="ignore"):
        values = 1.0 - offsets**2 * (1.0 - base**-2.0) / (4.0 * np.log(base))
    return _in_range(values, offsets, "Taylor form")


def kernel_log(delta: ArrayLike, *, base: float = 10000.0) -> np.ndarray:
    r"""Middle-range form :math:`1 - (\gamma + \ln|\Delta|)/\ln b` of the integral.

    For :math:`1 \ll |\Delta| \ll b`. Logarithmic, not power-law, decay; it is 0 at
    :math:`|\Delta| = b\,e^{-\gamma} \approx 0.56b`.
    From :math:`|\operatorname{Ci}(x)| \le 2/x` and :math:`0 \le \operatorname{Cin}(y) \le y^2/4`:

    .. math:: \Bigl|\bar\kappa(\Delta) - 1 + \frac{\gamma + \ln|\Delta|}{\ln b}\Bigr|
              \le \frac{1}{\ln b}\Bigl(\frac{2}{|\Delta|} + \frac{\Delta^2}{4b^2}\Bigr),
              \qquad \Delta \ne 0.

    Parameters
    ----------
    delta, base
        As in :func:`kernel_taylor`, with :math:`\Delta \ne 0` (the form diverges at 0).

    Returns
    -------
    numpy.ndarray
        The log form at each offset (float64).

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.decay import kernel_log
    >>> print(f"{float(kernel_log(10000 * np.exp(-0.5772156649015329))):.1e}")
    0.0e+00
    """
    base = check_base(base)
    offsets = _nonzero_offsets(delta, "log form (the logarithm diverges at 0)")
    return 1.0 - (EULER_GAMMA + np.log(np.abs(offsets))) / np.log(base)


def kernel_oscillatory(delta: ArrayLike, *, base: float = 10000.0) -> np.ndarray:
    r"""Large-offset form of the integral, for :math:`|\Delta| \gg b`.

    .. math:: \bar\kappa_{\mathrm{osc}}(\Delta)
              = \frac{\sin|\Delta| - b\sin(|\Delta|/b)}{|\Delta|\ln b}.

    From :math:`|\operatorname{Ci}(x) - \sin(x)/x| \le 2/x^2`:

    .. math:: \bigl|\bar\kappa(\Delta) - \bar\kappa_{\mathrm{osc}}(\Delta)\bigr|
              \le \frac{2(1+b^2)}{\Delta^2\ln b}.

    Only here does :math:`\bar\kappa` decay like :math:`1/|\Delta|`, with envelope
    :math:`(1+b)/(|\Delta|\ln b)`.

    Parameters
    ----------
    delta, base
        As in :func:`kernel_log`: non-zero finite offsets, :math:`b > 1`.

    Returns
    -------
    numpy.ndarray
        :math:`\bar\kappa_{\mathrm{osc}}` for each offset; the result has ``delta``'s shape.

    Examples
    --------
    >>> import numpy as np
    >>> import posenc_lib as pe
    >>> from posenc_lib.decay import kernel_oscillatory
    >>> far = 1e7
    >>> bound = 2 * (1 + 1e4**2) / (far**2 * np.log(1e4))
    >>> bool(abs(pe.kernel_integral(far) - kernel_oscillatory(far)) <= bound)
    True
    """
    base = check_base(base)
    x = np.abs(_nonzero_offsets(delta, "oscillatory form (it has 1/|delta|)"))
    return (np.sin(x) - base * np.sin(x / base)) / (x * np.log(base))


def asymptotic_bound(
    form: str, delta: ArrayLike, *, base: float = 10000.0
) -> np.ndarray:
    r"""Rigorous bound on :math:`|\bar\kappa(\Delta) - \text{form}(\Delta)|`, for each form.

    - ``"taylor"``: :math:`\Delta^4(1-b^{-4})/(96\ln b)`, useful for :math:`|\Delta| \lesssim 1`;
    - ``"log"``: :math:`(2/|\Delta| + \Delta^2/(4b^2))/\ln b`, for :math:`1 \ll |\Delta| \ll b`;
    - ``"oscillatory"``: :math:`2(1+b^2)/(\Delta^2\ln b)`, for :math:`|\Delta| \gg b`.

    Parameters
    ----------
    form : str
        One of :data:`ASYMPTOTIC_FORMS`.
    delta : float or array_like
        Finite offsets (non-zero for ``"log"`` and ``"oscillatory"``).
    base : float
        :math:`b > 1`.

    Returns
    -------
    numpy.ndarray
        float64 of the shape of ``delta``: the bound at each offset.

    Examples
    --------
    >>> from posenc_lib.decay import asymptotic_bound
    >>> print(f"{float(asymptotic_bound('log', 100.0)):.4f}")
    0.0022
    """
    check_choice(form, "form", ASYMPTOTIC_FORMS)
    base = check_base(base)
    offsets = check_real_array(delta, "delta")
    log_b = np.log(base)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if form == "taylor":
            values = offsets**4 * (1.0 - base**-4.0) / (96.0 * log_b)
        else:
            x = np.abs(_nonzero_offsets(offsets, f"{form!r} bound"))
            if form == "log":
                values = (2.0 / x + (x / base) ** 2 / 4.0) / log_b
            else:
                values = 2.0 * (1.0 + base**2) / (x**2 * log_b)
    return _in_range(np.asarray(values), offsets, f"{form!r} bound")


def kernel_euler_maclaurin(
    delta: ArrayLike,
    dim: int,
    *,
    base: float = 10000.0,
    spacing: str = "2i/d",
    order: int = 1,
) -> np.ndarray:
    r"""The integral plus the first Euler–Maclaurin corrections: an approximation of the kernel.

    With :math:`g(t) = \cos(\Delta b^{-t})`, :math:`h = 2/d` and spacing ``"2i/d"`` the kernel is
    the left Riemann sum :math:`h\sum_{i=0}^{d/2-1} g(ih)`, and

    .. math:: \kappa(\Delta) = \bar\kappa(\Delta) + \frac{h}{2}\bigl(g(0) - g(1)\bigr)
              + \frac{h^2}{12}\bigl(g'(1) - g'(0)\bigr) + \dots,
              \qquad g'(t) = \Delta\ln b\; b^{-t}\sin(\Delta b^{-t}).

    With spacing ``"i/(d/2-1)"`` the kernel is :math:`\frac{n-1}{n}` times the trapezoid rule
    with :math:`n = d/2` nodes and step :math:`h = 1/(n-1)`, plus :math:`(g(0)+g(1))/(2n)`, and
    the trapezoid's own expansion is used. An asymptotic expansion in :math:`h`: it is useful
    while the fastest pair's phase step :math:`h|\Delta|\ln b` is well below :math:`2\pi`.

    Parameters
    ----------
    delta : float or array_like
        Finite offsets, any shape.
    dim : int
        The model dimension :math:`d`, a positive even integer.
    base : float
        :math:`b > 1`.
    spacing : str
        One of :data:`posenc_lib.SPACINGS`.
    order : int
        0 (the integral alone), 1 (with the :math:`h` term) or 2 (with the :math:`h^2` term too).

    Returns
    -------
    numpy.ndarray
        The corrected integral, one float64 value per offset.

    Examples
    --------
    >>> import posenc_lib as pe
    >>> from posenc_lib.decay import kernel_euler_maclaurin
    >>> exact = pe.kernel(30.0, 512)
    >>> gaps = [abs(kernel_euler_maclaurin(30.0, 512, order=k) - exact) for k in (0, 1, 2)]
    >>> bool(gaps[0] > gaps[1] > gaps[2])
    True
    """
    dim = check_dim(dim)
    check_choice(spacing, "spacing", SPACINGS)
    order = check_index(order, "order", 3)
    base = check_base(base)
    offsets = check_real_array(delta, "delta")
    integral = _kernel_integral(offsets, base)
    log_b = np.log(base)
    g0, g1 = np.cos(offsets), np.cos(offsets / base)
    dg0 = offsets * log_b * np.sin(offsets)
    dg1 = offsets / base * log_b * np.sin(offsets / base)
    if spacing == "2i/d":
        h = 2.0 / dim
        out = integral.copy()
        if order >= 1:
            out += h / 2 * (g0 - g1)
        if order >= 2:
            out += h**2 / 12 * (dg1 - dg0)
        return out
    if order == 0:
        return integral
    n = dim // 2
    if n == 1:  # a single frequency, theta_0 = 1: the kernel is cos(delta) exactly
        return np.array(g0, dtype=np.float64)
    h = 1.0 / (n - 1)
    # sum_j g(jh) = T/h + (g(0) + g(1))/2 exactly, T the trapezoid rule, T = integral + h^2/12 (...)
    trapezoid = integral.copy()
    if order >= 2:
        trapezoid += h**2 / 12 * (dg1 - dg0)
    return (n - 1) / n * trapezoid + (g0 + g1) / (2 * n)
