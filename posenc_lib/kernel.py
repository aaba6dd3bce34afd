r"""The inner-product kernel of the sinusoidal encoding, its integral form and its asymptotics.

The exact kernel (chapter 5 of the book) is

.. math:: \kappa(\Delta) = \frac{\langle p_m, p_n\rangle}{d/2}
          = \frac{2}{d}\sum_{i=0}^{d/2-1}\cos(\Delta\theta_i), \qquad \Delta = m - n,

with :math:`\theta_i = b^{-2i/d}`. It is a left Riemann sum, with step :math:`2/d`, of the
integral

.. math:: \bar\kappa(\Delta) = \int_0^1 \cos\bigl(\Delta\, b^{-t}\bigr)\,dt
          = \frac{\operatorname{Ci}(|\Delta|) - \operatorname{Ci}(|\Delta|/b)}{\ln b},
          \qquad \bar\kappa(0) = 1,

where :math:`\operatorname{Ci}(x) = -\int_x^\infty \cos(u)/u\,du` is the cosine integral (substitute
:math:`u = |\Delta| b^{-t}`). This module evaluates both, three asymptotic forms of
:math:`\bar\kappa` with rigorous error bounds, Euler–Maclaurin corrections that link the sum to the
integral, and the kernels of other frequency schedules. Only numpy is needed: the cosine integral
is implemented here (power series for :math:`x \le 4`, a continued fraction beyond).

Precision of the exact kernel. A plain ``cos(delta * theta)`` in float64 errs by about
:math:`|\Delta|\,\varepsilon` per term (the rounding of the product and of :math:`\theta_i`
itself); measured against 40-digit sums, by up to :math:`10^{-11}` for :math:`|\Delta| \le 10^6`
and :math:`2\times 10^{-10}` at :math:`10^7`, relative errors of :math:`10^{-9}` to
:math:`10^{-7}` where the kernel is small: outside the :math:`10^{-10}` asked of :func:`kernel`.
So :func:`kernel` reduces each angle modulo :math:`2\pi` exactly, in double-double arithmetic,
from frequencies known to better than float64. The route to those frequencies depends on the
platform (``_frequency_route``); the tests run every route:

- ``"longdouble"``: numpy's ``long double`` where it is wider than float64 (80-bit on x86 Linux
  and macOS, 128-bit on Linux ARM): error below :math:`10^{-13}` up to :math:`|\Delta| = 10^7`
  (measured: at most :math:`6\times 10^{-14}`), growing in proportion to :math:`|\Delta|`;
- ``"mpmath"``: 40-digit frequencies, where ``long double`` is float64 (Windows, ARM macOS) and
  mpmath is installed (it is in the book's environment): error below :math:`10^{-15}`;
- ``"float64"``: neither available (numpy alone there): the frequencies carry float64's
  rounding, and the error is that of the plain evaluation above.
"""

from __future__ import annotations

import functools
import numbers

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_base, check_choice, check_dim, check_real_array
from .encoding import SPACINGS

#: Euler–Mascheroni constant :math:`\gamma`.
EULER_GAMMA = 0.57721566490153286061

#: Frequency schedules known to :func:`schedule_frequencies` (chapter 5 compares their kernels).
SCHEDULES = ("geometric", "linear", "power")

#: Asymptotic forms of :math:`\bar\kappa` known to :func:`asymptotic_bound`.
ASYMPTOTIC_FORMS = ("taylor", "log", "oscillatory")

#: Routes to extended-precision frequencies, most precise first available (module docstring).
_FREQUENCY_ROUTES = ("longdouble", "mpmath", "float64")

#: Elements of the (offsets x frequencies) block evaluated at once: small enough to stay in cache.
_CHUNK_ELEMENTS = 1 << 15

#: Veltkamp's splitting constant 2**27 + 1: splits a float64 into two halves of <= 26 bits.
_SPLITTER = 134217729.0

#: 1/(2π) as a double-double (hi + lo), so that θ/(2π) is formed to about 1e-32 relative.
_INV_TWO_PI_HI = 0.15915494309189535
_INV_TWO_PI_LO = -9.839338337591243e-18

#: Offsets from which the low-half product's fractional part is also taken (2**30).
_BIG_OFFSET = float(2**30)

#: Below this argument the cosine integral uses its power series, above it a continued fraction.
_SERIES_LIMIT = 4.0


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
        two_pi = np.longdouble(2) * np.longdouble("3.14159265358979323846264338327950288")
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
        raise ValueError(f"method must be one of {_FREQUENCY_ROUTES}; got {method!r}")
    theta = np.exp(-(num / den) * np.log(base))  # float64 frequencies: plain accuracy
    p, e = _two_prod(theta, _INV_TWO_PI_HI)
    return p, e + theta * _INV_TWO_PI_LO


@functools.lru_cache(maxsize=32)
def _cycles(dim: int, base: float, spacing: str, route: str) -> tuple[np.ndarray, np.ndarray]:
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
        if np.any(dl):  # offsets with more than 26 significant bits (fractional ones, say)
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


def kernel(delta: ArrayLike, dim: int, base: float = 10000.0, spacing: str = "2i/d") -> np.ndarray:
    r"""Exact normalized kernel :math:`\kappa(\Delta) = \frac{2}{d}\sum_i \cos(\Delta\theta_i)`.

    .. math:: \kappa(\Delta) = \frac{\langle p_m, p_n\rangle}{d/2}, \quad \Delta = m - n,
              \quad \theta_i = b^{-2i/d}\ (\text{or } b^{-i/(d/2-1)} \text{ with that spacing}).

    Parameters
    ----------
    delta
        Offsets :math:`\Delta`: a scalar or an array of any shape of finite reals.
    dim
        The model dimension :math:`d`, a positive even integer.
    base
        The base :math:`b > 1`.
    spacing
        One of ``posenc_lib.SPACINGS``: ``"2i/d"`` (the paper's) or ``"i/(d/2-1)"``.

    Returns
    -------
    numpy.ndarray
        float64 of the shape of ``delta`` (0-d for a scalar), values in :math:`[-1, 1]`.

    Notes
    -----
    Accuracy: the angles are reduced modulo :math:`2\pi` exactly (double-double arithmetic)
    from frequencies formed in extended precision, so the result is the kernel of the exact
    frequencies :math:`b^{-2i/d}` to better than :math:`10^{-13}` absolute (so to
    :math:`10^{-10}` relative wherever :math:`|\kappa| \ge 10^{-3}`) for
    :math:`|\Delta| \le 10^7` and :math:`d \le 8192`, tested against 40-digit sums, wherever
    numpy's ``long double`` is wider than float64 or mpmath is installed. The residual error, from
    the frequencies, grows in proportion to :math:`|\Delta|`. With numpy alone on a platform
    whose ``long double`` is float64, the error is that of a plain float64 evaluation, about
    :math:`10^{-17}|\Delta|` (module docstring). Memory is bounded:
    offsets are processed in chunks of about :math:`2^{15}` offset-frequency pairs.
    """
    dim = check_dim(dim)
    base = check_base(base)
    check_choice(spacing, "spacing", SPACINGS)
    offsets = check_real_array(delta, "delta")
    hi, lo = _cycles(dim, base, spacing, _frequency_route())
    return _mean_cos_cycles(offsets, hi, lo)


def _check_frequency_array(theta: object) -> np.ndarray:
    """A non-empty 1-D array of finite real frequencies, else raise."""
    array = check_real_array(theta, "theta")
    if array.ndim != 1 or array.size == 0:
        raise ValueError(
            f"theta must be a non-empty 1-D array of frequencies, got shape {array.shape}"
        )
    return array


def kernel_from_frequencies(delta: ArrayLike, theta: ArrayLike) -> np.ndarray:
    r"""Exact kernel of any frequencies, :math:`\frac1n\sum_j\cos(\Delta\theta_j)`.

    This is :math:`\langle p_m, p_n\rangle/(n)` for the encoding with pairs
    :math:`(\sin m\theta_j, \cos m\theta_j)`, whatever the schedule of the :math:`\theta_j`.

    Parameters
    ----------
    delta
        Offsets, a scalar or an array of any shape of finite reals.
    theta
        The frequencies (radians per token), a non-empty 1-D array of finite reals, taken as
        exact float64 numbers.

    Returns
    -------
    numpy.ndarray
        float64 of the shape of ``delta``.
    """
    freqs = _check_frequency_array(theta)
    offsets = check_real_array(delta, "delta")
    p, e = _two_prod(freqs, _INV_TWO_PI_HI)
    hi = p
    lo = e + freqs * _INV_TWO_PI_LO
    return _mean_cos_cycles(offsets, hi, lo)


def schedule_frequencies(
    dim: int, schedule: str = "geometric", *, base: float = 10000.0, alpha: float = 1.0
) -> np.ndarray:
    r"""Frequencies :math:`\theta_i` (:math:`i < d/2`) of several schedules, all from 1.

    - ``"geometric"``: :math:`\theta_i = b^{-2i/d}` (the paper's; ``base`` is :math:`b`).
    - ``"linear"``: :math:`\theta_i = 1 - 2i/d`, i.e. :math:`\theta(t) = 1 - t` sampled at
      :math:`t = 2i/d` (the linear schedule whose integral the source text evaluates).
    - ``"power"``: :math:`\theta_i = (i+1)^{-\alpha}` (a power law; ``alpha`` is :math:`\alpha`).

    Parameters
    ----------
    dim
        The model dimension :math:`d`, a positive even integer.
    schedule
        One of :data:`SCHEDULES`.
    base
        :math:`b > 1`, used by ``"geometric"`` only.
    alpha
        :math:`\alpha > 0`, used by ``"power"`` only.

    Returns
    -------
    numpy.ndarray
        float64 of length ``dim // 2``, non-increasing from 1.
    """
    dim = check_dim(dim)
    check_choice(schedule, "schedule", SCHEDULES)
    base = check_base(base)
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise TypeError(f"alpha must be a real number > 0, got {type(alpha).__name__} {alpha!r}")
    if not np.isfinite(alpha) or alpha <= 0:
        raise ValueError(f"alpha must be a finite real number > 0, got {alpha}")
    i = np.arange(dim // 2, dtype=np.float64)
    if schedule == "geometric":
        return np.exp(-(2.0 * i / dim) * np.log(base))
    if schedule == "linear":
        return 1.0 - 2.0 * i / dim
    return (i + 1.0) ** (-float(alpha))


# --------------------------------------------------------------------------------------------
# The cosine integral
# --------------------------------------------------------------------------------------------

#: Coefficients of Cin(x) = sum_k (-1)^(k+1) x^(2k) / (2k (2k)!), k = 1..20 (Horner in x^2).
_CIN_COEFFS = np.array(
    [
        (-1.0) ** (k + 1) / (2 * k * float(np.prod(np.arange(1, 2 * k + 1, dtype=np.float64))))
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


def _ci_positive(x: np.ndarray) -> np.ndarray:
    """Ci(x) for x > 0 (float64 array)."""
    out = np.empty_like(x)
    small = x <= _SERIES_LIMIT
    xs = x[small]
    out[small] = EULER_GAMMA + np.log(xs) - _cin_series(xs)
    out[~small] = _ci_continued_fraction(x[~small])
    return out


def cosine_integral(x: ArrayLike) -> np.ndarray:
    r"""The cosine integral :math:`\operatorname{Ci}(x) = -\int_x^\infty \frac{\cos u}{u}\,du
    = \gamma + \ln x - \int_0^x \frac{1 - \cos u}{u}\,du` for :math:`x > 0`.

    Parameters
    ----------
    x
        Positive finite reals, any shape.

    Returns
    -------
    numpy.ndarray
        float64 of the shape of ``x``; absolute error about :math:`10^{-16}\max(1, |\ln x|)`.
    """
    values = check_real_array(x, "x")
    if np.any(values <= 0):
        raise ValueError("x must be > 0: Ci(x) is defined here for positive arguments only")
    return _ci_positive(values.ravel()).reshape(values.shape)


# --------------------------------------------------------------------------------------------
# The integral approximation and its asymptotic forms
# --------------------------------------------------------------------------------------------


def kernel_integral(delta: ArrayLike, base: float = 10000.0) -> np.ndarray:
    r"""The integral approximation :math:`\bar\kappa(\Delta) = \int_0^1 \cos(\Delta b^{-t})\,dt`.

    .. math:: \bar\kappa(\Delta)
              = \frac{\operatorname{Ci}(|\Delta|) - \operatorname{Ci}(|\Delta|/b)}{\ln b}
              = 1 - \frac{\operatorname{Cin}(|\Delta|) - \operatorname{Cin}(|\Delta|/b)}{\ln b},
              \qquad \bar\kappa(0) = 1,

    evaluated in closed form, with :math:`\operatorname{Cin}(x) = \int_0^x \frac{1-\cos u}{u}du
    = \gamma + \ln x - \operatorname{Ci}(x)`.
    It is the limit of :func:`kernel` as :math:`d \to \infty` (spacing ``"2i/d"``).

    Parameters
    ----------
    delta
        Offsets, a scalar or an array of any shape of finite reals.
    base
        :math:`b > 1`. Accuracy degrades like :math:`10^{-16}/\ln b` as :math:`b \to 1`.

    Returns
    -------
    numpy.ndarray
        float64 of the shape of ``delta``: relative error about :math:`10^{-14}`, absolute error
        about :math:`10^{-15}` near the zeros (checked against mpmath in the tests).
    """
    base = check_base(base)
    offsets = check_real_array(delta, "delta")
    x = np.abs(offsets.ravel())
    y = x / base
    log_b = np.log(base)
    out = np.empty_like(x)
    # A: both arguments small, Cin form (exact limit 1 at delta = 0, no cancellation).
    a = x <= _SERIES_LIMIT
    out[a] = 1.0 - (_cin_series(x[a]) - _cin_series(y[a])) / log_b
    # B: |delta| large, |delta|/b small: Ci(x) - (gamma + ln y - Cin(y)), with ln y = ln x - ln b.
    bb = (~a) & (y <= _SERIES_LIMIT)
    xb = x[bb]
    out[bb] = (
        1.0 + (_ci_continued_fraction(xb) - EULER_GAMMA - np.log(xb) + _cin_series(y[bb])) / log_b
    )
    # C: both large.
    c = y > _SERIES_LIMIT
    both = _ci_continued_fraction(np.concatenate([x[c], y[c]]))
    half = both.size // 2
    out[c] = (both[:half] - both[half:]) / log_b
    return out.reshape(offsets.shape)


def _nonzero_offsets(delta: ArrayLike, what: str) -> np.ndarray:
    """``delta`` as a float64 array of finite non-zero offsets, else raise naming ``what``."""
    offsets = check_real_array(delta, "delta")
    if np.any(offsets == 0):
        raise ValueError(f"delta must be non-zero for {what}")
    return offsets


def kernel_taylor(delta: ArrayLike, base: float = 10000.0) -> np.ndarray:
    r"""Small-offset form :math:`\bar\kappa(\Delta) \approx 1 - \frac{\Delta^2(1-b^{-2})}{4\ln b}`.

    From :math:`1 - u^2/2 \le \cos u \le 1 - u^2/2 + u^4/24` (all real :math:`u`), integrated:

    .. math:: 0 \le \bar\kappa(\Delta) - \Bigl(1 - \frac{\Delta^2(1-b^{-2})}{4\ln b}\Bigr)
              \le \frac{\Delta^4(1-b^{-4})}{96\ln b}\quad\text{for every }\Delta.

    Useful for :math:`|\Delta| \lesssim 1`; see :func:`asymptotic_bound`.

    Parameters
    ----------
    delta
        Finite offsets, a scalar or an array of any shape.
    base
        :math:`b > 1`.

    Returns
    -------
    numpy.ndarray
        float64 of the shape of ``delta``.
    """
    base = check_base(base)
    offsets = check_real_array(delta, "delta")
    return 1.0 - offsets**2 * (1.0 - base**-2.0) / (4.0 * np.log(base))


def kernel_log(delta: ArrayLike, base: float = 10000.0) -> np.ndarray:
    r"""Middle-range form :math:`1 - (\gamma + \ln|\Delta|)/\ln b`, for :math:`1 \ll |\Delta| \ll b`

    Logarithmic, not power-law, decay; it is 0 at :math:`|\Delta| = b\,e^{-\gamma} \approx 0.56b`.
    From :math:`|\operatorname{Ci}(x)| \le 2/x` and :math:`0 \le \operatorname{Cin}(y) \le y^2/4`:

    .. math:: \Bigl|\bar\kappa(\Delta) - 1 + \frac{\gamma + \ln|\Delta|}{\ln b}\Bigr|
              \le \frac{1}{\ln b}\Bigl(\frac{2}{|\Delta|} + \frac{\Delta^2}{4b^2}\Bigr),
              \qquad \Delta \ne 0.

    Parameters
    ----------
    delta
        Non-zero finite offsets (the form diverges at 0).
    base
        :math:`b > 1`.

    Returns
    -------
    numpy.ndarray
        float64 of the shape of ``delta``.
    """
    base = check_base(base)
    offsets = _nonzero_offsets(delta, "kernel_log (the logarithm diverges at 0)")
    return 1.0 - (EULER_GAMMA + np.log(np.abs(offsets))) / np.log(base)


def kernel_oscillatory(delta: ArrayLike, base: float = 10000.0) -> np.ndarray:
    r"""Large-offset form of the integral, for :math:`|\Delta| \gg b`.

    .. math:: \bar\kappa_{\mathrm{osc}}(\Delta)
              = \frac{\sin|\Delta| - b\sin(|\Delta|/b)}{|\Delta|\ln b}.

    From :math:`|\operatorname{Ci}(x) - \sin(x)/x| \le 2/x^2`:

    .. math:: \Bigl|\bar\kappa(\Delta)
              - \frac{\sin|\Delta| - b\sin(|\Delta|/b)}{|\Delta|\ln b}\Bigr|
              \le \frac{2(1+b^2)}{\Delta^2\ln b}.

    Only here does :math:`\bar\kappa` decay like :math:`1/|\Delta|`, with envelope
    :math:`(1+b)/(|\Delta|\ln b)`.

    Parameters
    ----------
    delta
        Non-zero finite offsets.
    base
        :math:`b > 1`.

    Returns
    -------
    numpy.ndarray
        float64 of the shape of ``delta``.
    """
    base = check_base(base)
    x = np.abs(_nonzero_offsets(delta, "kernel_oscillatory (it has 1/|delta|)"))
    return (np.sin(x) - base * np.sin(x / base)) / (x * np.log(base))


def asymptotic_bound(form: str, delta: ArrayLike, base: float = 10000.0) -> np.ndarray:
    r"""Rigorous bound on :math:`|\bar\kappa(\Delta) - \text{form}(\Delta)|`, for each form.

    - ``"taylor"``: :math:`\Delta^4(1-b^{-4})/(96\ln b)`, useful for :math:`|\Delta| \lesssim 1`;
    - ``"log"``: :math:`(2/|\Delta| + \Delta^2/(4b^2))/\ln b`, for :math:`1 \ll |\Delta| \ll b`;
    - ``"oscillatory"``: :math:`2(1+b^2)/(\Delta^2\ln b)`, for :math:`|\Delta| \gg b`.

    Parameters
    ----------
    form
        One of :data:`ASYMPTOTIC_FORMS`.
    delta
        Finite offsets (non-zero for ``"log"`` and ``"oscillatory"``).
    base
        :math:`b > 1`.

    Returns
    -------
    numpy.ndarray
        float64 of the shape of ``delta``: the bound at each offset.
    """
    check_choice(form, "form", ASYMPTOTIC_FORMS)
    base = check_base(base)
    offsets = check_real_array(delta, "delta")
    log_b = np.log(base)
    if form == "taylor":
        return offsets**4 * (1.0 - base**-4.0) / (96.0 * log_b)
    x = np.abs(_nonzero_offsets(offsets, f"the {form!r} bound"))
    if form == "log":
        return (2.0 / x + (x / base) ** 2 / 4.0) / log_b
    return 2.0 * (1.0 + base**2) / (x**2 * log_b)


def kernel_euler_maclaurin(
    delta: ArrayLike, dim: int, base: float = 10000.0, spacing: str = "2i/d", order: int = 1
) -> np.ndarray:
    r"""The integral plus the first Euler–Maclaurin corrections: an approximation of :func:`kernel`.

    With :math:`g(t) = \cos(\Delta b^{-t})`, :math:`h = 2/d` and spacing ``"2i/d"`` the kernel is
    the left Riemann sum :math:`h\sum_{i=0}^{d/2-1} g(ih)`, and

    .. math:: \kappa(\Delta) = \bar\kappa(\Delta) + \frac{h}{2}\bigl(g(0) - g(1)\bigr)
              + \frac{h^2}{12}\bigl(g'(1) - g'(0)\bigr) + \dots,
              \qquad g'(t) = \Delta\ln b\; b^{-t}\sin(\Delta b^{-t}).

    With spacing ``"i/(d/2-1)"`` the kernel is :math:`\frac{n-1}{n}` times the trapezoid rule
    with :math:`n = d/2` nodes and step :math:`h = 1/(n-1)`, plus :math:`(g(0)+g(1))/(2n)`, and
    the trapezoid's own expansion is used. An asymptotic expansion in :math:`h`: it is useful while
    the fastest pair's phase step :math:`h|\Delta|\ln b` is well below :math:`2\pi`.

    Parameters
    ----------
    delta, dim, base, spacing
        As in :func:`kernel`.
    order
        0 (the integral alone), 1 (with the :math:`h` term) or 2 (with the :math:`h^2` term too).

    Returns
    -------
    numpy.ndarray
        float64 of the shape of ``delta``.
    """
    dim = check_dim(dim)
    check_choice(spacing, "spacing", SPACINGS)
    if isinstance(order, bool) or not isinstance(order, numbers.Integral) or order not in (0, 1, 2):
        raise ValueError(f"order must be one of 0, 1, 2; got {order!r}")
    integral = kernel_integral(delta, base)
    offsets = np.asarray(check_real_array(delta, "delta"))
    base = float(base)
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
