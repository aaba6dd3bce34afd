r"""PyTorch position schemes behind one interface, and a small pre-norm transformer.

Every scheme is a :class:`PositionScheme` and acts at (at most) three places of a transformer:

* :meth:`PositionScheme.embed` adds a vector :math:`p_m` to the token embedding at position
  :math:`m` (absolute schemes: learned, sinusoidal);
* :meth:`PositionScheme.rotate` transforms queries and keys before their dot product (rotary);
* :meth:`PositionScheme.bias` returns an additive attention bias (ALiBi).

The default of each is "do nothing", so ``"none"`` (NoPE) is the base class itself. The schemes:

* ``"none"``, :class:`NoPositionalEncoding`: nothing; only a causal mask tells positions apart;
* ``"learned"``, :class:`LearnedPositionalEmbedding`: a trained table of ``max_len x dim``;
* ``"sinusoidal"``, :class:`SinusoidalPositionalEncoding`: the fixed table of the book, base
  :math:`b`;
* ``"rotary"``, :class:`RotaryEmbedding`: rotate pair :math:`i` of q and k by :math:`m\theta_i`;
* ``"alibi"``, :class:`ALiBi`: add :math:`-s_h\,(m-n)` to head :math:`h`'s scores.

:func:`make_scheme` builds any of them by name and :class:`TinyTransformer` takes any of them.
Positions are integers :math:`m = \text{offset}, \text{offset}+1, \dots`; a nonzero ``offset`` is
what incremental decoding needs (the next token sits at position ``offset``).

Tables (sinusoidal, rotary) are computed by :func:`posenc_lib.sinusoidal` /
:func:`posenc_lib.angles` with float64 angles, then cast to the module's dtype, and grow on demand
without changing dtype or device.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import Tensor, nn

from ._validation import check_base, check_choice, check_count, check_dim
from .encoding import SPACINGS, angles, sinusoidal
from .layouts import LAYOUTS

__all__ = [
    "SCHEMES",
    "ALiBi",
    "Block",
    "LearnedPositionalEmbedding",
    "NoPositionalEncoding",
    "PositionScheme",
    "RotaryEmbedding",
    "SelfAttention",
    "SinusoidalPositionalEncoding",
    "TinyTransformer",
    "alibi_slopes",
    "make_scheme",
]

#: Names accepted by :func:`make_scheme` and :class:`TinyTransformer`.
SCHEMES = ("none", "learned", "sinusoidal", "rotary", "alibi")


# --------------------------------------------------------------------------------------------
# argument checks
# --------------------------------------------------------------------------------------------


def _check_tensor(x: object, name: str, ndim: tuple[int, ...], last: int | None = None) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if x.ndim not in ndim:
        raise ValueError(
            f"{name} must have {' or '.join(map(str, ndim))} axes, got shape {tuple(x.shape)}"
        )
    if last is not None and x.shape[-1] != last:
        raise ValueError(f"{name} must have last axis of size {last}, got shape {tuple(x.shape)}")
    return x


def _resolve_dtype(dtype: torch.dtype | None) -> torch.dtype:
    if dtype is None:
        return torch.get_default_dtype()
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(
            f"dtype must be a floating torch.dtype such as torch.float32, got {dtype!r}"
        )
    return dtype


# --------------------------------------------------------------------------------------------
# the interface
# --------------------------------------------------------------------------------------------


class PositionScheme(nn.Module):
    """Base class of the position schemes; on its own it adds no position information.

    Subclasses override one or more of :meth:`embed`, :meth:`rotate` and :meth:`bias`.
    ``name`` is the scheme's name in :data:`SCHEMES`.
    """

    name = "none"

    def embed(self, x: Tensor, offset: int = 0) -> Tensor:
        """Token embeddings ``x`` (batch, length, dim) with position information added."""
        return x

    def rotate(self, q: Tensor, k: Tensor, offset: int = 0) -> tuple[Tensor, Tensor]:
        """Queries and keys (batch, heads, length, head_dim) after the position transform."""
        return q, k

    def bias(
        self,
        q_len: int,
        k_len: int,
        offset: int = 0,
        *,
        causal: bool = True,
        device=None,
        dtype=None,
    ) -> Tensor | None:
        """An additive attention bias of shape (heads, q_len, k_len), or ``None``."""
        return None

    def forward(self, x: Tensor, offset: int = 0) -> Tensor:
        return self.embed(x, offset)


class NoPositionalEncoding(PositionScheme):
    """NoPE: no position signal at all :cite:`kazemnejad2023nope`.

    With a causal mask a transformer can still infer positions (token ``m`` attends to ``m + 1``
    tokens); without one it is permutation-equivariant and cannot.
    """

    name = "none"


# --------------------------------------------------------------------------------------------
# absolute schemes
# --------------------------------------------------------------------------------------------


class LearnedPositionalEmbedding(PositionScheme):
    r"""A trained table of ``max_len`` position vectors, added to the token embeddings.

    Rows are initialised :math:`\mathcal N(0, 1/2)` so that their expected squared norm, ``dim/2``,
    equals that of a sinusoidal vector. Positions ``>= max_len`` have no vector: asking for them
    raises ``ValueError``. Rows that training never reached keep their random initial values.
    """

    name = "learned"

    def __init__(self, max_len: int, dim: int, *, dtype: torch.dtype | None = None, device=None):
        super().__init__()
        self.max_len = check_count(max_len, "max_len", 1)
        self.dim = check_dim(dim)
        self.weight = nn.Parameter(
            torch.empty(self.max_len, self.dim, dtype=_resolve_dtype(dtype), device=device)
        )
        nn.init.normal_(self.weight, std=math.sqrt(0.5))

    def embed(self, x: Tensor, offset: int = 0) -> Tensor:
        _check_tensor(x, "x", (3,), self.dim)
        offset = check_count(offset, "offset", 0)
        end = offset + x.shape[1]
        if end > self.max_len:
            raise ValueError(
                f"positions up to {end - 1} requested but the learned table has max_len = "
                f"{self.max_len} rows (positions 0 … {self.max_len - 1}); "
                "build it with a larger max_len"
            )
        return x + self.weight[offset:end].to(x.dtype)


class SinusoidalPositionalEncoding(PositionScheme):
    r"""The sinusoidal encoding as a module: ``forward(x, offset)`` is ``x + P[offset : offset+L]``.

    Row :math:`m` of the table ``P`` is :math:`p_m` with, in the default interleaved layout,

    .. math::

        p_{m,2i} = \sin(m\theta_i), \quad p_{m,2i+1} = \cos(m\theta_i), \quad \theta_i = b^{-2i/d}.

    The table is built by :func:`posenc_lib.sinusoidal` (angles :math:`m\theta_i` in float64,
    sin and cos in float64) and only then cast to the module's dtype, so a float32 table is the
    correctly rounded float32 of the exact value.

    Parameters
    ----------
    dim
        Model dimension :math:`d`, positive and even.
    base
        The base :math:`b > 1` (default 10000).
    layout, spacing
        As in :func:`posenc_lib.sinusoidal` (defaults: the paper's interleaved pairs, ``2i/d``).
    initial_length
        Rows computed at construction; the table grows on demand when a longer input or a
        larger offset arrives (to the next power of two at least as large as needed).
    batch_first
        ``True``: inputs are (batch, length, dim); ``False``: (length, batch, dim). A 2-D input
        (length, dim) is accepted either way.
    persistent
        Whether the table is saved in :meth:`state_dict` (default ``False``: it is recomputed, not
        stored). A persistent table of any length loads into a module of any cached length.
    dtype, device
        Of the table (default: ``torch.get_default_dtype()``, CPU). :meth:`torch.nn.Module.to`
        changes both; growth keeps them.

    Notes
    -----
    Attributes: ``table`` (the cached buffer, shape ``(cached_length, dim)``), ``cached_length``,
    ``dim``, ``base``, ``layout``, ``spacing``, ``batch_first``.
    Methods: :meth:`forward`, :meth:`encoding` (the rows for given positions), :meth:`extend`.
    The forward adds the table cast to ``x.dtype`` when the two differ. Under ``torch.compile``
    the growth step runs eagerly (it is excluded from the graph); a forward that does not grow is
    a slice and an add.
    """

    name = "sinusoidal"

    def __init__(
        self,
        dim: int,
        base: float = 10000.0,
        *,
        layout: str = "interleaved",
        spacing: str = "2i/d",
        initial_length: int = 512,
        batch_first: bool = True,
        persistent: bool = False,
        dtype: torch.dtype | None = None,
        device=None,
    ):
        super().__init__()
        self.dim = check_dim(dim)
        self.base = check_base(base)
        self.layout = check_choice(layout, "layout", LAYOUTS)
        self.spacing = check_choice(spacing, "spacing", SPACINGS)
        initial_length = check_count(initial_length, "initial_length", 1)
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first must be a bool, got {batch_first!r}")
        if not isinstance(persistent, bool):
            raise TypeError(f"persistent must be a bool, got {persistent!r}")
        self.batch_first = batch_first
        self.persistent = persistent
        table = self._compute(initial_length, _resolve_dtype(dtype), torch.device(device or "cpu"))
        self.register_buffer("table", table, persistent=persistent)

    # -- the table ------------------------------------------------------------------------------

    def _compute(self, length: int, dtype: torch.dtype, device: torch.device) -> Tensor:
        rows = sinusoidal(
            length, self.dim, base=self.base, layout=self.layout, spacing=self.spacing
        )
        return torch.from_numpy(rows).to(device=device, dtype=dtype)

    @property
    def cached_length(self) -> int:
        """Number of rows currently cached."""
        return int(self.table.shape[0])

    @torch.compiler.disable
    def _grow(self, needed: int) -> None:
        length = 1 << max(needed - 1, 1).bit_length()  # next power of two >= needed
        self.table = self._compute(length, self.table.dtype, self.table.device)

    def extend(self, length: int) -> None:
        """Make sure at least ``length`` rows are cached (dtype and device unchanged)."""
        length = check_count(length, "length", 1)
        if length > self.table.shape[0]:
            self._grow(length)

    def encoding(self, length: int, offset: int = 0) -> Tensor:
        """Rows ``offset … offset + length - 1`` of the table, shape (length, dim)."""
        length = check_count(length, "length", 0)
        offset = check_count(offset, "offset", 0)
        end = offset + int(length)
        if end > self.table.shape[0]:
            self._grow(end)
        return self.table[offset:end]

    # -- module protocol ------------------------------------------------------------------------

    def forward(self, x: Tensor, offset: int = 0) -> Tensor:
        """``x + P[offset : offset + L]``, broadcast over the batch axis.

        ``x`` is (batch, L, dim) if ``batch_first`` else (L, batch, dim); (L, dim) also works.
        """
        _check_tensor(x, "x", (2, 3), self.dim)
        seq_axis = 1 if (x.ndim == 3 and self.batch_first) else 0
        pe = self.encoding(x.shape[seq_axis], offset)
        if pe.dtype != x.dtype:
            pe = pe.to(x.dtype)
        if x.ndim == 3 and not self.batch_first:
            pe = pe.unsqueeze(1)
        return x + pe

    def embed(self, x: Tensor, offset: int = 0) -> Tensor:
        """As :meth:`forward` for a batch-first ``x`` whatever ``batch_first`` says."""
        _check_tensor(x, "x", (3,), self.dim)
        pe = self.encoding(x.shape[1], offset)
        return x + (pe if pe.dtype == x.dtype else pe.to(x.dtype))

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        # A persistent table of any length loads: resize our buffer to the stored length first
        # (keeping our dtype and device); the parent then copies the values in.
        stored = state_dict.get(prefix + "table")
        if self.persistent and isinstance(stored, Tensor) and stored.ndim == 2:
            if stored.shape[1] == self.dim and stored.shape[0] != self.table.shape[0]:
                self.table = torch.empty(
                    stored.shape, dtype=self.table.dtype, device=self.table.device
                )
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def extra_repr(self) -> str:
        return (
            f"dim={self.dim}, base={self.base:g}, layout={self.layout!r}, cached_length="
            f"{self.cached_length}, batch_first={self.batch_first}, persistent={self.persistent}"
        )


# --------------------------------------------------------------------------------------------
# relative schemes
# --------------------------------------------------------------------------------------------


class RotaryEmbedding(PositionScheme):
    r"""Rotary position embedding :cite:`su2021roformer` on interleaved pairs.

    Pair :math:`i` of a query or key at position :math:`m`, :math:`(x_{2i}, x_{2i+1})`, is rotated
    by :math:`R(m\theta_i)` with :math:`\theta_i = b^{-2i/h}` (``h = head_dim``). Since rotations
    compose, :math:`(R_m q)^\top (R_n k) = q^\top R_{n-m} k`: the score depends on :math:`m - n`
    only. The cos/sin tables come from float64 angles and grow on demand, keeping dtype and device.
    """

    name = "rotary"

    def __init__(
        self,
        head_dim: int,
        base: float = 10000.0,
        *,
        initial_length: int = 512,
        dtype: torch.dtype | None = None,
        device=None,
    ):
        super().__init__()
        self.head_dim = check_dim(head_dim)
        self.base = check_base(base)
        initial_length = check_count(initial_length, "initial_length", 1)
        cos, sin = self._compute(
            initial_length, _resolve_dtype(dtype), torch.device(device or "cpu")
        )
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    def _compute(
        self, length: int, dtype: torch.dtype, device: torch.device
    ) -> tuple[Tensor, Tensor]:
        phase = angles(length, self.head_dim, base=self.base)  # float64, (length, head_dim/2)
        cos = torch.from_numpy(np.cos(phase)).to(device=device, dtype=dtype)
        sin = torch.from_numpy(np.sin(phase)).to(device=device, dtype=dtype)
        return cos, sin

    @property
    def cached_length(self) -> int:
        """Number of positions currently cached."""
        return int(self.cos.shape[0])

    @torch.compiler.disable
    def _grow(self, needed: int) -> None:
        length = 1 << max(needed - 1, 1).bit_length()
        self.cos, self.sin = self._compute(length, self.cos.dtype, self.cos.device)

    def rotate_one(self, x: Tensor, offset: int = 0) -> Tensor:
        """Rotate ``x`` (..., length, head_dim): pair i at position m = offset + t by m θ_i."""
        _check_tensor(x, "x", (2, 3, 4), self.head_dim)
        offset = check_count(offset, "offset", 0)
        end = offset + x.shape[-2]
        if end > self.cos.shape[0]:
            self._grow(end)
        cos = self.cos[offset:end].to(x.dtype)
        sin = self.sin[offset:end].to(x.dtype)
        x0, x1 = x[..., 0::2], x[..., 1::2]
        return torch.stack((x0 * cos - x1 * sin, x0 * sin + x1 * cos), dim=-1).flatten(-2)

    def rotate(self, q: Tensor, k: Tensor, offset: int = 0) -> tuple[Tensor, Tensor]:
        return self.rotate_one(q, offset), self.rotate_one(k, offset)


def alibi_slopes(n_heads: int) -> list[float]:
    r"""The ALiBi head slopes of :cite:`press2022alibi`.

    For :math:`n` a power of two the slopes are the geometric sequence
    :math:`s_h = 2^{-8h/n}`, :math:`h = 1,\dots,n` (for 8 heads :math:`2^{-1},\dots,2^{-8}`).
    For other :math:`n` the paper's rule: take the :math:`2^{\lfloor\log_2 n\rfloor}` slopes of the
    largest power of two below :math:`n`, then the first :math:`n - 2^{\lfloor\log_2 n\rfloor}` of
    every other slope (the 1st, 3rd, …) of the :math:`2^{\lfloor\log_2 n\rfloor + 1}` sequence.
    """
    n = check_count(n_heads, "n_heads", 1)

    def power_of_two(count: int) -> list[float]:
        return [2.0 ** (-8.0 * h / count) for h in range(1, count + 1)]

    if n & (n - 1) == 0:
        return power_of_two(n)
    below = 1 << (n.bit_length() - 1)
    return power_of_two(below) + power_of_two(2 * below)[0::2][: n - below]


class ALiBi(PositionScheme):
    r"""Attention with linear biases :cite:`press2022alibi`.

    Head :math:`h` adds :math:`-s_h\,(m - n)` to the score of query :math:`m` on key :math:`n`
    (:math:`n \le m` under the causal mask), with the slopes of :func:`alibi_slopes`. For
    bidirectional attention it adds :math:`-s_h\,|m - n|`, a common symmetric extension (the paper
    only treats causal models).
    """

    name = "alibi"

    def __init__(self, n_heads: int):
        super().__init__()
        self.n_heads = check_count(n_heads, "n_heads", 1)
        self.register_buffer(
            "slopes",
            torch.tensor(alibi_slopes(self.n_heads), dtype=torch.float64),
            persistent=False,
        )

    def bias(
        self,
        q_len: int,
        k_len: int,
        offset: int = 0,
        *,
        causal: bool = True,
        device=None,
        dtype=None,
    ) -> Tensor:
        """Bias (heads, q_len, k_len); queries sit at ``offset + t``, keys at ``0 … k_len-1``."""
        q_len = check_count(q_len, "q_len", 1)
        k_len = check_count(k_len, "k_len", 1)
        offset = check_count(offset, "offset", 0)
        device = self.slopes.device if device is None else device
        q_pos = torch.arange(offset, offset + q_len, device=device, dtype=torch.float64)
        k_pos = torch.arange(k_len, device=device, dtype=torch.float64)
        distance = q_pos[:, None] - k_pos[None, :]
        if not causal:
            distance = distance.abs()
        out = -self.slopes.to(device)[:, None, None] * distance
        return out.to(dtype or torch.get_default_dtype())


def make_scheme(
    name: str,
    *,
    dim: int,
    n_heads: int = 1,
    max_len: int | None = None,
    base: float = 10000.0,
) -> PositionScheme:
    """Build the position scheme ``name`` (one of :data:`SCHEMES`) for a model of width ``dim``.

    ``max_len`` is required by ``"learned"``; ``base`` is used by ``"sinusoidal"`` (on ``dim``)
    and ``"rotary"`` (on the head dimension ``dim // n_heads``); ``n_heads`` by ``"alibi"``.
    """
    check_choice(name, "scheme", SCHEMES)
    dim = check_dim(dim)
    n_heads = check_count(n_heads, "n_heads", 1)
    if dim % n_heads:
        raise ValueError(f"dim = {dim} must be divisible by n_heads = {n_heads}")
    if name == "none":
        return NoPositionalEncoding()
    if name == "learned":
        if max_len is None:
            raise ValueError("scheme 'learned' needs max_len (the number of trained positions)")
        return LearnedPositionalEmbedding(max_len, dim)
    if name == "sinusoidal":
        return SinusoidalPositionalEncoding(dim, base, initial_length=max_len or 512)
    if name == "rotary":
        head_dim = dim // n_heads
        if head_dim % 2:
            raise ValueError(f"rotary needs an even head dimension, got dim/n_heads = {head_dim}")
        return RotaryEmbedding(head_dim, base, initial_length=max_len or 512)
    return ALiBi(n_heads)


# --------------------------------------------------------------------------------------------
# the transformer
# --------------------------------------------------------------------------------------------


class SelfAttention(nn.Module):
    r"""Multi-head self-attention that lets a :class:`PositionScheme` rotate q, k and bias scores.

    Scores are :math:`q_m^\top k_n/\sqrt{h}` plus the scheme's bias; with ``causal=True`` keys
    :math:`n > m` are masked out before the softmax.
    """

    def __init__(self, dim: int, n_heads: int, scheme: PositionScheme, *, causal: bool = True):
        super().__init__()
        self.dim = check_dim(dim)
        self.n_heads = check_count(n_heads, "n_heads", 1)
        if self.dim % self.n_heads:
            raise ValueError(f"dim = {dim} must be divisible by n_heads = {n_heads}")
        self.head_dim = self.dim // self.n_heads
        if not isinstance(scheme, PositionScheme):
            raise TypeError(f"scheme must be a PositionScheme, got {type(scheme).__name__}")
        if isinstance(scheme, RotaryEmbedding) and scheme.head_dim != self.head_dim:
            raise ValueError(
                f"the rotary scheme has head_dim = {scheme.head_dim} but dim / n_heads = "
                f"{self.head_dim}; build it with RotaryEmbedding({self.head_dim})"
            )
        if isinstance(scheme, ALiBi) and scheme.n_heads != self.n_heads:
            raise ValueError(
                f"the ALiBi scheme has n_heads = {scheme.n_heads} slopes but the attention has "
                f"n_heads = {self.n_heads}; build it with ALiBi({self.n_heads})"
            )
        self.scheme = scheme
        self.causal = bool(causal)
        self.qkv = nn.Linear(self.dim, 3 * self.dim)
        self.out = nn.Linear(self.dim, self.dim)

    def forward(self, x: Tensor, offset: int = 0, *, return_weights: bool = False):
        """``x`` (batch, length, dim) → (batch, length, dim) [, weights (batch, heads, L, L)]."""
        batch, length, _ = x.shape
        qkv = self.qkv(x).view(batch, length, 3, self.n_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        q, k = self.scheme.rotate(q, k, offset)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
        bias = self.scheme.bias(
            length, length, offset, causal=self.causal, device=x.device, dtype=x.dtype
        )
        if bias is not None:
            scores = scores + bias
        if self.causal:
            future = torch.ones(length, length, dtype=torch.bool, device=x.device).triu(1)
            scores = scores.masked_fill(future, float("-inf"))
        weights = scores.softmax(dim=-1)
        y = (weights @ v).transpose(1, 2).reshape(batch, length, self.dim)
        y = self.out(y)
        return (y, weights) if return_weights else y


class Block(nn.Module):
    """Pre-norm transformer block: ``x + attn(LN(x))`` then ``x + mlp(LN(x))``."""

    def __init__(
        self, dim: int, n_heads: int, scheme: PositionScheme, *, causal: bool, mlp_ratio: int
    ):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = SelfAttention(dim, n_heads, scheme, causal=causal)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(
            nn.Linear(dim, mlp_ratio * dim), nn.GELU(), nn.Linear(mlp_ratio * dim, dim)
        )

    def forward(self, x: Tensor, offset: int = 0) -> Tensor:
        x = x + self.attn(self.norm1(x), offset)
        return x + self.mlp(self.norm2(x))


class TinyTransformer(nn.Module):
    """A small pre-norm transformer over tokens, with any position scheme.

    ``tokens`` (batch, length) of ints in ``[0, vocab_size)`` → logits (batch, length, vocab_size).
    The scheme's :meth:`~PositionScheme.embed` acts on the token embeddings; its
    :meth:`~PositionScheme.rotate` and :meth:`~PositionScheme.bias` act in every layer (one
    scheme instance is shared by all layers).

    Parameters
    ----------
    vocab_size, dim, n_heads, n_layers
        Sizes; ``dim`` even and divisible by ``n_heads``.
    scheme
        A name in :data:`SCHEMES` or a :class:`PositionScheme` instance.
    causal
        Mask keys after the query (decoder) or not (encoder).
    max_len
        Rows of a learned table (required for ``"learned"``); initial cache for the others.
    base
        Base of ``"sinusoidal"`` and ``"rotary"``.
    mlp_ratio
        Hidden width of the MLP as a multiple of ``dim``.
    """

    def __init__(
        self,
        vocab_size: int,
        dim: int = 64,
        n_heads: int = 4,
        n_layers: int = 2,
        scheme: str | PositionScheme = "sinusoidal",
        *,
        causal: bool = True,
        max_len: int | None = None,
        base: float = 10000.0,
        mlp_ratio: int = 4,
    ):
        super().__init__()
        self.vocab_size = check_count(vocab_size, "vocab_size", 1)
        self.dim = check_dim(dim)
        self.n_heads = check_count(n_heads, "n_heads", 1)
        self.n_layers = check_count(n_layers, "n_layers", 1)
        mlp_ratio = check_count(mlp_ratio, "mlp_ratio", 1)
        if not isinstance(causal, bool):
            raise TypeError(f"causal must be a bool, got {causal!r}")
        if isinstance(scheme, str):
            scheme = make_scheme(
                scheme, dim=self.dim, n_heads=self.n_heads, max_len=max_len, base=base
            )
        elif not isinstance(scheme, PositionScheme):
            raise TypeError(
                f"scheme must be one of {', '.join(map(repr, SCHEMES))} or a PositionScheme, "
                f"got {scheme!r}"
            )
        if self.dim % self.n_heads:
            raise ValueError(f"dim = {dim} must be divisible by n_heads = {n_heads}")
        if getattr(scheme, "dim", self.dim) != self.dim:  # learned and sinusoidal tables
            raise ValueError(
                f"the {scheme.name} scheme has dim = {scheme.dim}, "
                f"but the model has dim = {self.dim}"
            )
        self.causal = causal
        self.scheme = scheme
        self.token_embedding = nn.Embedding(self.vocab_size, self.dim)
        self.blocks = nn.ModuleList(
            Block(self.dim, self.n_heads, scheme, causal=causal, mlp_ratio=mlp_ratio)
            for _ in range(self.n_layers)
        )
        self.norm = nn.LayerNorm(self.dim)
        self.head = nn.Linear(self.dim, self.vocab_size)

    def forward(self, tokens: Tensor, offset: int = 0) -> Tensor:
        """Logits (batch, length, vocab_size) for tokens at positions ``offset … offset+L-1``."""
        _check_tensor(tokens, "tokens", (2,))
        if tokens.dtype not in (torch.int64, torch.int32):
            raise TypeError(
                f"tokens must be an integer tensor (int64 or int32), got {tokens.dtype}"
            )
        offset = check_count(offset, "offset", 0)
        x = self.scheme.embed(self.token_embedding(tokens), offset)
        for block in self.blocks:
            x = block(x, offset)
        return self.head(self.norm(x))

    def extra_repr(self) -> str:
        return f"scheme={self.scheme.name!r}, causal={self.causal}"
