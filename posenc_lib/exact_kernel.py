r"""The exact inner-product kernel of the sinusoidal encoding, evaluated to near machine precision.

The kernel (chapter 5 of the book) is

.. math:: \kappa(\Delta) = \frac{\langle p_m, p_n\rangle}{d/2}
          = \frac{2}{d}\sum_{i=0}^{d/2-1}\cos(\Delta\theta_i), \qquad \Delta = m - n,

with :math:`\theta_i = b^{-2i/d}`; :func:`kernel_from_frequencies` is the same mean for any
frequencies. Its integral approximation and asymptotic forms are in :mod:`posenc_lib.decay`.

Precision. A plain ``cos(delta * theta)`` in float64 errs by about :math:`|\Delta|\,\varepsilon`
per term (the rounding of the product and of :math:`\theta_i` itself); measured against 40-digit
sums, by up to :math:`10^{-11}` for :math:`|\Delta| \le 10^6` and :math:`2\times 10^{-10}` at
:math:`10^7`, relative errors of :math:`10^{-9}` to :math:`10^{-7}` where the kernel is small:
outside the :math:`10^{-10}` asked of :func:`posenc_lib.kernel`. So :func:`posenc_lib.kernel`
reduces each angle modulo :math:`2\pi` exactly, in double-double arithmetic, from frequencies
known to better than float64. The route to those frequencies depends on the platform
(``_frequency_route``); the tests run every route:

- ``"longdouble"``: numpy's ``long double`` where it is wider than float64 (80-bit on x86 Linux
  and macOS, 128-bit on Linux ARM): the frequencies carry the long double's rounding (relative
  :math:`2^{-64} \approx 5\times 10^{-20}` per operation), so the error grows in proportion to
  :math:`|\Delta|`. The tests hold it below :math:`10^{-15} + 5\times 10^{-20}|\Delta|`, that
  is about :math:`5\times 10^{-13}` at :math:`|\Delta| = 10^7`, about twice the largest error
  measured (a measured bound, not a proved one; on the 80-bit type: at most
  :math:`2.6\times 10^{-20}|\Delta|`, e.g. :math:`2.3\times 10^{-13}` at :math:`d = 4`,
  :math:`b = 1.5`, :math:`\Delta = 9{,}710{,}565`; small :math:`d` is worst, since a mean over
  many pairs averages the roundings: below :math:`10^{-13}` for :math:`d \ge 16`);
- ``"mpmath"``: 40-digit frequencies, where ``long double`` is float64 (Windows, ARM macOS) and
  mpmath is installed (it is in the book's environment): error below :math:`2\times 10^{-15}`;
- ``"float64"``: neither available (numpy alone there): the frequencies carry float64's
  rounding, and the error is that of the plain evaluation above.
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    check_base,
    check_choice,
    check_dim,
    check_real_array,
    check_vector,
)
from .encoding import SPACINGS

__all__ = ["MAX_OFFSET", "kernel", "kernel_from_frequencies"]

#: Routes to extended-precision frequencies, most precise first available (module docstring).
_FREQUENCY_ROUTES = ("longdouble", "mpmath", "float64")

#: Elements of the (offsets x frequencies) block evaluated at once: small enough to stay in cache.
_CHUNK_ELEMENTS = 1 << 15

#: Veltkamp's splitting constant 2**27 + 1: splits a float64 into two halves of <= 26 bits.
_SPLITTER = 134217729.0

#: 1/(2π) as a double-double (hi + lo), so that θ/(2π) is formed to about 1e-32 relative.
_INV_TWO_PI_HI = 0.15915494309189535
_INV_TWO_PI_LO = -9.839338337591243e-18

#: Largest offset magnitude (and, for :func:`kernel_from_frequencies`, largest product of an
#: offset and a frequency) accepted: Veltkamp's split of a larger float64 overflows.
MAX_OFFSET = 1e300

#: Offsets from which the low-half product's fractional part is also taken (2**30).
_BIG_OFFSET = float(2**30)


# --------------------------------------------------------------------------------------------
# Double-double helpers
# --------------------------------------------------------------------------------------------


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp split ``a = hi + lo`` with ``hi`` and ``lo`` of at most 26 significant bits each."""
    t = _SPLITTER * a
    hi = t - (t - a)
    return hi, a - hi


def _two_prod(a: np.ndarray, b: float) -> tuple[np.ndarray, np.ndarray]:
    """``a * b = p + e`` exactly (Dekker's product; no FMA needed)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(np.float64(b))
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


#: Whether numpy's ``long double`` is wider than float64 (80-bit on x86, 128-bit on Linux ARM).
_LONG_DOUBLE_IS_EXTENDED = bool(np.finfo(np.longdouble).eps < 1e-18)


def _frequency_route() -> str:
    """The most precise route to the frequencies on this platform (see the module docstring)."""
    if _LONG_DOUBLE_IS_EXTENDED:
        return "longdouble"
    try:
        import mpmath  # noqa: F401
    except ImportError:
        return "float64"
    return "mpmath"


def _extended_cycles(
    exponents: np.ndarray, base: float, method: str
) -> tuple[np.ndarray, np.ndarray]:
    r"""Cycles per token :math:`\phi_i = b^{-e_i}/(2\pi)` as a double-double (hi, lo).

    ``exponents`` are exact rationals ``numerator / denominator``, given as a 2-row int array.
    ``method`` is one of ``_FREQUENCY_ROUTES``: ``"longdouble"`` (numpy's extended type),
    ``"mpmath"`` (40 digits) or ``"float64"`` (rounded once, as ``frequencies`` gives them).
    """
    num, den = exponents
    if method == "longdouble":
        two_pi = np.longdouble(2) * np.longdouble(
            "3.14159265358979323846264338327950288"
        )
        e = num.astype(np.longdouble) / den.astype(np.longdouble)
        phi = np.exp(-e * np.log(np.longdouble(base))) / two_pi
        hi = phi.astype(np.float64)
        return hi, (phi - hi.astype(np.longdouble)).astype(np.float64)
    if method == "mpmath":
        import mpmath

        with mpmath.workdps(40):
            phis = [
                mpmath.mpf(base) ** (-mpmath.mpf(int(n)) / int(q)) / (2 * mpmath.pi)
                for n, q in zip(num, den, strict=True)
            ]
            hi = np.array([float(p) for p in phis])
            lo = np.array([float(p - mpmath.mpf(float(p))) for p in phis])
        return hi, lo
    if method != "float64":
        raise ValueError(f"method must be one of {_FREQUENCY_ROUTES}, got {method!r}")
    theta = np.exp(-(num / den) * np.log(base))  # float64 frequencies: plain accuracy
    p, e = _two_prod(theta, _INV_TWO_PI_HI)
    return p, e + theta * _INV_TWO_PI_LO


@functools.lru_cache(maxsize=32)
def _cycles(
    dim: int, base: float, spacing: str, route: str
) -> tuple[np.ndarray, np.ndarray]:
    """Double-double cycles per token of the paper's frequencies, cached by the arguments."""
    i = np.arange(dim // 2, dtype=np.int64)
    if spacing == "2i/d":
        exponents = np.stack([2 * i, np.full_like(i, dim)])
    else:
        exponents = np.stack([i, np.full_like(i, max(dim // 2 - 1, 1))])
    hi, lo = _extended_cycles(exponents, base, route)
    hi.setflags(write=False)
    lo.setflags(write=False)
    return hi, lo


def _mean_cos_cycles(offsets: np.ndarray, hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    r"""Mean over j of :math:`\cos(2\pi\,\Delta\phi_j)`, :math:`\Delta\phi_j` reduced mod 1 exactly.

    ``hi + lo`` is :math:`\phi_j` as a double-double. Products of the 26-bit halves of
    :math:`\Delta` and :math:`\phi^{hi}` are exact in float64, so their fractional parts are
    exact; what remains (:math:`\Delta\phi^{lo}` and the low-half product) is small and rounded
    once. Work arrays are reused chunk by chunk, so memory stays at a few hundred KiB.
    """
    flat = offsets.ravel()
    out = np.empty(flat.shape, dtype=np.float64)
    n = hi.size
    phh, phl = _split(hi)
    weights = np.full(n, 1.0 / n)
    step = max(1, _CHUNK_ELEMENTS // n)
    buffer = np.empty((min(step, flat.size), n))
    scratch = np.empty_like(buffer)
    for start in range(0, flat.size, step):
        chunk = flat[start : start + step]
        frac, part = buffer[: chunk.size], scratch[: chunk.size]
        dh, dl = _split(chunk)
        np.multiply(dh[:, None], phh, out=frac)
        frac -= np.rint(frac, out=part)
        np.multiply(dh[:, None], phl, out=part)
        if np.max(np.abs(chunk), initial=0.0) >= _BIG_OFFSET:
            part -= np.rint(part)  # keep the low product's fractional part exact too
        frac += part
        # offsets with more than 26 significant bits (fractional ones, say)
        if np.any(dl):
            np.multiply(dl[:, None], phh, out=part)
            part -= np.rint(part)
            frac += part
            frac += dl[:, None] * phl
        np.multiply(chunk[:, None], lo, out=part)
        frac += part
        frac -= np.rint(frac, out=part)
        frac *= 2.0 * np.pi
        np.cos(frac, out=frac)
        out[start : start + chunk.size] = frac @ weights
    return out.reshape(offsets.shape)


# --------------------------------------------------------------------------------------------
# Exact kernels
# --------------------------------------------------------------------------------------------


def kernel(
    delta: ArrayLike, dim: int, *, base: float = 10000.0, spacing: str = "2i/d"
) -> np.ndarray:
    r"""Exact normalized kernel :math:`\kappa(\Delta) = \frac{2}{d}\sum_i \cos(\Delta\theta_i)`.

    .. math:: \kappa(\Delta) = \frac{\langle p_m, p_n\rangle}{d/2}, \quad \Delta = m - n,
              \quad \theta_i = b^{-2i/d}\ (\text{or } b^{-i/(d/2-1)} \text{ with that spacing}).

    Parameters
    ----------
    delta : float or array_like
        Offsets :math:`\Delta`: a scalar or an array of any shape of finite reals of
        magnitude at most :data:`~posenc_lib.exact_kernel.MAX_OFFSET` (:math:`10^{300}`).
    dim : int
        The model dimension :math:`d`, a positive even integer.
    base : float
        The base :math:`b > 1`.
    spacing : str
        One of :data:`posenc_lib.SPACINGS`: ``"2i/d"`` (the paper's) or ``"i/(d/2-1)"``.

    Returns
    -------
    numpy.ndarray
        float64 of the shape of ``delta`` (0-d for a scalar), values in :math:`[-1, 1]`.

    Notes
    -----
    Accuracy: the angles are reduced modulo :math:`2\pi` exactly (double-double arithmetic)
    from frequencies formed in extended precision, so the result is the kernel of the exact
    frequencies :math:`b^{-2i/d}` to within :math:`10^{-15} + 5\times 10^{-20}|\Delta|`
    absolute, about :math:`5\times 10^{-13}` at :math:`|\Delta| = 10^7` (and
    :math:`2\times 10^{-15}` where mpmath supplies the frequencies), for :math:`d \le 8192`
    and :math:`b \ge 1.5`, tested against 40-digit sums, wherever numpy's ``long double`` is
    wider than float64 or mpmath is installed. The residual error, from the long double
    frequencies, grows in proportion to :math:`|\Delta|`. With numpy alone on a platform
    whose ``long double`` is float64, the error is that of a plain float64 evaluation:
    within :math:`10^{-15} + 4\times 10^{-17}|\Delta|` in the tests (measured
    :math:`3.7\times 10^{-17}|\Delta|` at offsets up to :math:`10^7`; module docstring).
    Memory is bounded: offsets are processed in chunks of about :math:`2^{15}`
    offset-frequency pairs.

    Examples
    --------
    >>> import posenc_lib as pe
    >>> float(pe.kernel(0.0, 64))
    1.0
    >>> t = pe.sinusoidal([7.0, 3.0], 64)
    >>> bool(abs(t[0] @ t[1] / 32 - pe.kernel(4.0, 64)) < 1e-12)
    True
    """
    dim = check_dim(dim)
    base = check_base(base)
    check_choice(spacing, "spacing", SPACINGS)
    offsets = check_real_array(delta, "delta", max_abs=MAX_OFFSET)
    hi, lo = _cycles(dim, base, spacing, _frequency_route())
    return _mean_cos_cycles(offsets, hi, lo)


def kernel_from_frequencies(delta: ArrayLike, theta: ArrayLike) -> np.ndarray:
    r"""Exact kernel of any frequencies, :math:`\frac1n\sum_j\cos(\Delta\theta_j)`.

    This is :math:`\langle p_m, p_n\rangle/n` for the encoding with the :math:`n` pairs
    :math:`(\sin m\theta_j, \cos m\theta_j)`, whatever the schedule of the :math:`\theta_j`
    (chapter 6 compares linear and power-law schedules with the geometric one). Angles are
    reduced modulo :math:`2\pi` exactly, as in :func:`posenc_lib.kernel`.

    Parameters
    ----------
    delta : float or array_like
        Offsets, a scalar or an array of any shape of finite reals, of magnitude at most
        :data:`~posenc_lib.exact_kernel.MAX_OFFSET` divided by ``max(1, max|theta|)``.
    theta : array_like
        The frequencies (radians per token), a non-empty 1-D array of finite reals of
        magnitude at most :data:`~posenc_lib.exact_kernel.MAX_OFFSET`, taken as exact
        float64 numbers.

    Returns
    -------
    numpy.ndarray
        float64 of the shape of ``delta``.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.exact_kernel import kernel_from_frequencies
    >>> theta = 1.0 - 2.0 * np.arange(4) / 8  # a linear schedule
    >>> bool(np.isclose(kernel_from_frequencies(2.0, theta), np.cos(2.0 * theta).mean()))
    True
    """
    freqs = check_vector(theta, "theta")
    check_real_array(freqs, "theta", max_abs=MAX_OFFSET)
    top = float(np.abs(freqs).max())
    offsets = check_real_array(delta, "delta", max_abs=MAX_OFFSET)
    if offsets.size and float(np.abs(offsets).max()) * top > MAX_OFFSET:
        raise ValueError(  # the product is out of range: name both of its factors
            f"delta x theta must stay within {MAX_OFFSET:g} in magnitude (Veltkamp's split "
            f"of a larger angle overflows), got max|delta| = "
            f"{float(np.abs(offsets).max()):g} with max|theta| = {top:g}"
        )
    hi, e = _two_prod(freqs, _INV_TWO_PI_HI)
    return _mean_cos_cycles(offsets, hi, e + freqs * _INV_TWO_PI_LO)
