r"""Rotary frequency schedules: every scaling method of Hugging Face's ``ROPE_INIT_FUNCTIONS``.

A rotary embedding rotates pair :math:`i` of a query or key at position :math:`m` by
:math:`m\theta_i`; the plain schedule is :math:`\theta_i = b^{-2i/r}` (``r`` the rotated
dimension). Context-extension methods change the :math:`\theta_i` and some also multiply the
rotated features by an *attention factor* :math:`a` (so the scores by :math:`a^2`). A
:class:`RopeScaling` names one method and its parameters; :meth:`RopeScaling.frequencies`
returns the float64 :math:`\theta_i` and :math:`a`, and
:class:`posenc_lib.scaled_rotary.ScaledRotaryEmbedding` applies them. The methods, with the key
of ``transformers.modeling_rope_utils.ROPE_INIT_FUNCTIONS`` (transformers 5.23) as their name:

==================  =========================================================================
``rope_type``       :math:`\theta_i` (and attention factor :math:`a`, 1 unless stated)
==================  =========================================================================
``"default"``       :math:`b^{-2i/r}`
``"linear"``        :math:`b^{-2i/r}/s` (position interpolation, ``factor`` :math:`s`)
``"dynamic"``       dynamic NTK: :math:`b'^{-2i/r}`,
                    :math:`b' = b\,(sL/M - s + 1)^{r/(r-2)}`, :math:`L = \max(\ell, M)`,
                    :math:`\ell` the current length, :math:`M` = ``max_position_embeddings``
``"yarn"``          YaRN: :math:`\theta_i = (1-\gamma_i)\,b^{-2i/r}/s + \gamma_i\,b^{-2i/r}`,
                    :math:`\gamma_i` a linear ramp between the correction dimensions of
                    ``beta_fast`` and ``beta_slow`` rotations over :math:`M_0`
                    (``original_max_position_embeddings``);
                    :math:`a = 0.1\ln s + 1` (or ``mscale``/``mscale_all_dim``'s ratio)
``"longrope"``      LongRoPE: :math:`b^{-2i/r}/\lambda_i`, :math:`\lambda` = ``short_factor`` up to
                    ``original_max_position_embeddings`` and ``long_factor`` beyond;
                    :math:`a = \sqrt{1 + \ln s/\ln M_0}`
``"llama3"``        Llama 3.1: wavelengths above ``M_0/low_freq_factor`` divided by :math:`s`,
                    below ``M_0/high_freq_factor`` kept, smoothly blended between
``"proportional"``  the first ``partial_rotary_factor`` of the pairs at :math:`b^{-2i/h}/s`
                    (exponent over the whole head), the other pairs not rotated
==================  =========================================================================

Everything is computed in float64 (transformers computes the same formulas in float32);
``"dynamic"`` and ``"longrope"`` depend on the current length (``seq_len``).

Examples
--------
>>> from posenc_lib.rope_scaling import RopeScaling
>>> theta, a = RopeScaling("linear", factor=4.0).frequencies(8, base=10000.0)
>>> theta.round(6).tolist(), a
([0.25, 0.025, 0.0025, 0.00025], 1.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._validation import (
    MAX_POSITION,
    _message,
    check_base,
    check_bool,
    check_choice,
    check_count,
    check_dim,
    check_real,
    check_vector,
    describe,
)

__all__ = ["MAX_FACTOR", "ROPE_TYPES", "RopeScaling"]

#: Every scaling method, ``"default"`` and the keys of transformers' ``ROPE_INIT_FUNCTIONS``.
ROPE_TYPES = (
    "default",
    "linear",
    "dynamic",
    "yarn",
    "longrope",
    "llama3",
    "proportional",
)

#: Largest scaling factor (and ``beta_fast``, ``beta_slow``, LongRoPE factor) accepted.
MAX_FACTOR = float(2**20)

_NEEDS = {
    "linear": ("factor",),
    "dynamic": ("factor", "max_position_embeddings"),
    "yarn": ("original_max_position_embeddings",),
    "longrope": ("original_max_position_embeddings", "short_factor", "long_factor"),
    "llama3": ("factor", "original_max_position_embeddings"),
}


def _optional(value, check, *args, **kwargs):
    return None if value is None else check(value, *args, **kwargs)


def _factor(value: object, name: str) -> float:
    return check_real(value, name, above=0.0, below=MAX_FACTOR + 1)


def _length(value: object, name: str) -> int:
    return check_count(value, name, 1, MAX_POSITION)


def _factors(value: object, name: str) -> tuple[float, ...]:
    array = check_vector(value, name, minimum=1.0 / MAX_FACTOR)
    if array.max() > MAX_FACTOR:
        accepted = f"a non-empty 1-D array of reals in 1/MAX_FACTOR … {MAX_FACTOR:g}"
        raise ValueError(_message(name, accepted, f"the value {array.max():g}"))
    return tuple(float(v) for v in array)


@dataclass(frozen=True)
class RopeScaling:
    r"""One rotary frequency schedule: a method of :data:`ROPE_TYPES` and its parameters.

    The parameter names are those of Hugging Face's ``rope_parameters`` (``rope_scaling``),
    so a configuration's entries can be passed as they are (``rope_theta`` is the ``base`` of
    :meth:`frequencies` and of the rotary module).

    Parameters
    ----------
    rope_type : str
        One of :data:`ROPE_TYPES` (default ``"default"``, no scaling).
    factor : float, optional
        The scale :math:`s > 0` (at most :data:`MAX_FACTOR`). Required by ``"linear"``,
        ``"dynamic"`` and ``"llama3"``; for ``"yarn"`` and ``"longrope"`` it defaults to
        ``max_position_embeddings / original_max_position_embeddings``; ``"proportional"``
        divides by it (default 1).
    max_position_embeddings : int, optional
        The model's context length :math:`M` (``config.max_position_embeddings``): the length
        beyond which ``"dynamic"`` rescales (required there).
    original_max_position_embeddings : int, optional
        The pre-training length :math:`M_0` of ``"yarn"``, ``"longrope"`` and ``"llama3"``
        (required there).
    attention_factor : float, optional
        ``"yarn"`` and ``"longrope"``: the attention factor :math:`a` instead of the method's
        own.
    beta_fast, beta_slow : float
        ``"yarn"``: rotations at the two ends of the ramp (defaults 32 and 1).
    mscale, mscale_all_dim : float, optional
        ``"yarn"`` (DeepSeek): :math:`a = (0.1\,\mathrm{mscale}\ln s + 1)/(0.1\,
        \mathrm{mscale\_all\_dim}\ln s + 1)` when both are given and nonzero.
    truncate : bool
        ``"yarn"``: round the correction range outward to integers (default True).
    low_freq_factor, high_freq_factor : float
        ``"llama3"``: wavelength thresholds :math:`M_0/\text{low}` and :math:`M_0/\text{high}`
        (defaults 1 and 4, Llama 3.1's; high > low).
    short_factor, long_factor : array_like, optional
        ``"longrope"``: one factor per rotated pair (required there).
    partial_rotary_factor : float
        The rotated fraction :math:`p \in (0, 1]` of the head (default 1): ``r = int(p h)``
        features for every method but ``"proportional"``, which keeps all :math:`h/2` pairs and
        leaves the last ones unrotated (:math:`\theta = 0`).

    Examples
    --------
    >>> from posenc_lib.rope_scaling import RopeScaling
    >>> yarn = RopeScaling("yarn", factor=4.0, original_max_position_embeddings=2048)
    >>> theta, a = yarn.frequencies(64, base=10000.0)
    >>> theta.size, round(a, 6)
    (32, 1.138629)
    """

    rope_type: str = "default"
    factor: float | None = None
    max_position_embeddings: int | None = None
    original_max_position_embeddings: int | None = None
    attention_factor: float | None = None
    beta_fast: float = 32.0
    beta_slow: float = 1.0
    mscale: float | None = None
    mscale_all_dim: float | None = None
    truncate: bool = True
    low_freq_factor: float = 1.0
    high_freq_factor: float = 4.0
    short_factor: tuple[float, ...] | None = None
    long_factor: tuple[float, ...] | None = None
    partial_rotary_factor: float = 1.0

    def __post_init__(self) -> None:
        put = object.__setattr__
        check_choice(self.rope_type, "rope_type", ROPE_TYPES)
        for name in ("factor", "attention_factor"):
            put(self, name, _optional(getattr(self, name), _factor, name))
        for name in ("max_position_embeddings", "original_max_position_embeddings"):
            put(self, name, _optional(getattr(self, name), _length, name))
        for name in ("beta_fast", "beta_slow", "low_freq_factor", "high_freq_factor"):
            put(self, name, _factor(getattr(self, name), name))
        for name in ("mscale", "mscale_all_dim"):
            value = getattr(self, name)
            put(self, name, _optional(value, check_real, name, below=MAX_FACTOR + 1))
            if value is not None and getattr(self, name) < 0:
                raise ValueError(
                    _message(name, "a finite real number >= 0", describe(value))
                )
        put(self, "truncate", check_bool(self.truncate, "truncate"))
        for name in ("short_factor", "long_factor"):
            put(self, name, _optional(getattr(self, name), _factors, name))
        fraction = check_real(
            self.partial_rotary_factor, "partial_rotary_factor", above=0
        )
        if fraction > 1.0:
            accepted = "a real number in (0, 1]"
            raise ValueError(
                _message("partial_rotary_factor", accepted, describe(fraction))
            )
        put(self, "partial_rotary_factor", fraction)
        for name in _NEEDS.get(self.rope_type, ()):
            if getattr(self, name) is None:
                raise ValueError(f"rope_type {self.rope_type!r} needs {name}")
        derived = self.factor is None and self.rope_type in ("yarn", "longrope")
        if derived and self.max_position_embeddings is None:
            raise ValueError(
                f"rope_type {self.rope_type!r} needs factor, or "
                "max_position_embeddings to derive it"
            )
        if self.rope_type == "llama3" and self.high_freq_factor <= self.low_freq_factor:
            raise ValueError(
                f"high_freq_factor must be > low_freq_factor = {self.low_freq_factor:g}, got "
                f"{self.high_freq_factor:g}"
            )
        if self.rope_type == "longrope" and len(self.short_factor) != len(
            self.long_factor
        ):
            raise ValueError(
                "short_factor and long_factor must have the same length (one per rotated "
                f"pair), got {len(self.short_factor)} and {len(self.long_factor)}"
            )

    # -- the schedule ----------------------------------------------------------------------

    @property
    def depends_on_length(self) -> bool:
        """Whether the frequencies change with the current length (dynamic, LongRoPE)."""
        return self.rope_type in ("dynamic", "longrope")

    def rotary_dim(self, head_dim: int) -> int:
        """The rotated features of a head of ``head_dim``: ``2 * len(theta)``.

        Examples
        --------
        >>> RopeScaling(partial_rotary_factor=0.25).rotary_dim(64)
        16
        """
        head_dim = check_dim(head_dim, "head_dim")
        if self.rope_type == "proportional":
            return head_dim
        rotary = int(head_dim * self.partial_rotary_factor)
        if rotary < 2 or rotary % 2:
            raise ValueError(
                f"partial_rotary_factor = {self.partial_rotary_factor:g} of head_dim = "
                f"{head_dim} rotates {rotary} features; it must be a positive even number"
            )
        if self.rope_type == "dynamic" and rotary < 4:
            raise ValueError(
                "rope_type 'dynamic' needs at least 4 rotated features (its exponent "
                f"r/(r-2)), got {rotary}"
            )
        if self.rope_type == "longrope" and len(self.short_factor) != rotary // 2:
            raise ValueError(
                f"short_factor and long_factor must have rotary_dim/2 = {rotary // 2} entries "
                f"(one per rotated pair), got {len(self.short_factor)}"
            )
        return rotary

    def _factor_or_ratio(self) -> float:
        if self.factor is not None:
            return self.factor
        return self.max_position_embeddings / self.original_max_position_embeddings

    def attention(self) -> float:
        r"""The attention factor :math:`a` (1 for the methods that have none).

        Examples
        --------
        >>> RopeScaling("yarn", factor=16.0, original_max_position_embeddings=4096).attention()
        1.2772588722239782
        """
        if self.attention_factor is not None and self.rope_type in ("yarn", "longrope"):
            return self.attention_factor
        s = self._factor_or_ratio() if self.rope_type in ("yarn", "longrope") else 1.0
        if self.rope_type == "yarn":

            def mscale(weight: float) -> float:
                return 1.0 if s <= 1 else 0.1 * weight * math.log(s) + 1.0

            if self.mscale and self.mscale_all_dim:
                return mscale(self.mscale) / mscale(self.mscale_all_dim)
            return mscale(1.0)
        if self.rope_type == "longrope" and s > 1.0:
            original = self.original_max_position_embeddings
            return (
                math.sqrt(1.0 + math.log(s) / math.log(original))
                if original > 1
                else 1.0
            )
        return 1.0

    def frequencies(
        self, head_dim: int, base: float = 10000.0, seq_len: int | None = None
    ) -> tuple[np.ndarray, float]:
        r"""The float64 frequencies :math:`\theta_i` (``rotary_dim / 2`` of them) and :math:`a`.

        Parameters
        ----------
        head_dim : int
            The head dimension :math:`h` (even).
        base : float
            The base :math:`b > 1` (``rope_theta``).
        seq_len : int, optional
            The current length :math:`\ell` (the largest position + 1), read by ``"dynamic"``
            (``None``: :math:`M`, no rescaling) and ``"longrope"`` (``None``: the short
            factors).

        Returns
        -------
        tuple of numpy.ndarray and float
            :math:`\theta` (float64, shape ``(rotary_dim // 2,)``) and the attention factor.

        Examples
        --------
        >>> dyn = RopeScaling("dynamic", factor=2.0, max_position_embeddings=16)
        >>> bool((dyn.frequencies(8, seq_len=32)[0] < dyn.frequencies(8)[0])[1:].all())
        True
        """
        rotary = self.rotary_dim(head_dim)
        base = check_base(base)
        seq_len = _optional(seq_len, _length, "seq_len")
        pairs = np.arange(rotary // 2, dtype=np.float64)
        log_base = math.log(base)
        kind = self.rope_type
        if kind == "proportional":
            rotated = int(self.partial_rotary_factor * head_dim // 2)
            theta = np.exp(-2.0 * pairs / head_dim * log_base)
            theta[rotated:] = 0.0
            return theta / (self.factor or 1.0), 1.0
        exponent = 2.0 * pairs / rotary
        theta = np.exp(-exponent * log_base)
        if kind == "linear":
            theta = theta / self.factor
        elif kind == "dynamic":
            limit = self.max_position_embeddings
            length = limit if seq_len is None else max(seq_len, limit)
            s = self.factor
            growth = math.log(s * length / limit - (s - 1.0)) * rotary / (rotary - 2)
            theta = np.exp(-exponent * (log_base + growth))
        elif kind == "yarn":
            theta = self._yarn(theta, rotary, log_base)
        elif kind == "longrope":
            original = self.original_max_position_embeddings
            long = seq_len is not None and seq_len > original
            factors = self.long_factor if long else self.short_factor
            theta = theta / np.asarray(factors, dtype=np.float64)
        elif kind == "llama3":
            theta = self._llama3(theta)
        return theta, self.attention()

    def _yarn(self, theta: np.ndarray, rotary: int, log_base: float) -> np.ndarray:
        original = self.original_max_position_embeddings

        def correction_dim(rotations: float) -> float:
            return (
                rotary * math.log(original / (rotations * 2 * math.pi)) / (2 * log_base)
            )

        low, high = correction_dim(self.beta_fast), correction_dim(self.beta_slow)
        if self.truncate:
            low, high = math.floor(low), math.ceil(high)
        low, high = max(low, 0), min(high, rotary - 1)
        if low == high:
            high += 0.001  # as transformers: no zero-width ramp
        ramp = np.clip((np.arange(rotary // 2) - low) / (high - low), 0.0, 1.0)
        keep = 1.0 - ramp  # the extrapolated (unscaled) share
        return theta / self._factor_or_ratio() * (1.0 - keep) + theta * keep

    def _llama3(self, theta: np.ndarray) -> np.ndarray:
        original = self.original_max_position_embeddings
        low, high, s = self.low_freq_factor, self.high_freq_factor, self.factor
        with np.errstate(divide="ignore"):
            wavelength = 2 * math.pi / theta
        scaled = np.where(wavelength > original / low, theta / s, theta)
        smooth = (original / wavelength - low) / (high - low)
        blended = (1.0 - smooth) * scaled / s + smooth * scaled
        medium = (wavelength >= original / high) & (wavelength <= original / low)
        return np.where(medium, blended, scaled)
