r"""PyTorch position schemes behind one interface (*torch*).

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
* ``"rotary"``, :class:`RotaryEmbedding`: rotate pair :math:`i` of q and k by :math:`m\theta_i`,
  pairs interleaved (GPT-J, RoFormer) or split into halves (Llama, GPT-NeoX), see
  :data:`PAIRINGS` and :func:`rotary_permutation`;
* ``"alibi"``, :class:`ALiBi`: add :math:`-s_h\,(m-n)` to head :math:`h`'s scores.

:func:`make_scheme` builds any of them by name; the course's small transformer
(:class:`posenc_lib.course.transformer.TinyTransformer`) takes any of them.

**Positions.** By default positions are :math:`m = \text{offset}, \text{offset}+1, \dots`; a
nonzero ``offset`` is what incremental decoding needs (the next token sits at position
``offset``). Every method also takes ``positions``, a tensor of shape ``(length,)`` or
``(batch, length)`` with one position per token and row: per-row position ids of a left-padded
batch, Hugging Face's ``position_ids`` or ``cache_position``, fractional positions.

**Tables.** Sinusoidal rows and rotary cos/sin come from float64 angles, then are cast to the
module's dtype once. They are cached in non-persistent buffers that grow on demand (keeping dtype
and device) and are recomputed, never trusted, after anything that replaces them: moving or
casting the module (``.to``, ``.half()``, ``to_empty`` after building on the meta device),
``load_state_dict(..., assign=True)``, Hugging Face ``from_pretrained`` (which builds on the meta
device and refills buffers with uninitialised memory). :meth:`PositionScheme.reset_parameters`
recomputes them
explicitly. Positions beyond a cache of :data:`MAX_CACHE_BYTES` are computed directly, without
caching.

**Compile and export.** ``torch.compile`` works as is (growth runs eagerly, outside the graph).
With ``fullgraph=True`` no growth may happen inside the graph: call ``extend(n)`` first for the
longest ``offset + length`` you will use. ``torch.export`` with a dynamic sequence length works
when the cache covers the longest length (``Dim("L", max=module.cached_length)``). Under compile
and export the checks that read tensor values (token range, finiteness of ``positions``) are
skipped: they would cut the graph.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import Tensor, nn

from . import _torch_checks, _validation, encoding
from ._torch_checks import (
    check_cache_size,
    check_device,
    check_index_tensor,
    check_length,
    check_module_input,
    check_offset,
    check_offset_positions,
    check_seq_axis,
    check_torch_dtype,
)
from ._validation import (
    check_base,
    check_bool,
    check_choice,
    check_count,
    check_dim,
    check_heads,
    check_real,
    check_table_dim,
)
from .encoding import ODD_DIMS, SPACINGS, angles, frequencies, sinusoidal
from .layouts import LAYOUTS, layout_permutation

__all__ = [
    "MAX_CACHE_BYTES",
    "MAX_HEADS",
    "MAX_MODEL_BYTES",
    "MAX_POSITION",
    "PAIRINGS",
    "SCHEMES",
    "ALiBi",
    "LearnedPositionalEmbedding",
    "NoPositionalEncoding",
    "PositionScheme",
    "RotaryEmbedding",
    "SinusoidalPositionalEncoding",
    "alibi_slopes",
    "make_scheme",
    "rotary_permutation",
]

#: Names accepted by :func:`make_scheme`.
SCHEMES = ("none", "learned", "sinusoidal", "rotary", "alibi")

#: The rotary pairings. ``"interleaved"`` rotates features ``(2i, 2i+1)`` together (RoFormer,
#: GPT-J, Meta's Llama checkpoints); ``"half_split"`` rotates ``(i, i + r/2)`` together, ``r`` the
#: rotary dimension (Hugging Face Llama, GPT-NeoX, ``rotate_half``).
PAIRINGS = ("interleaved", "half_split")

#: Largest cache (bytes) of a sinusoidal table or of rotary cos + sin; rows beyond it are computed
#: directly for each call instead of cached.
MAX_CACHE_BYTES = _torch_checks.MAX_CACHE_BYTES

#: The largest position magnitude the modules accept, so that positions stay exact in float64.
MAX_POSITION = _validation.MAX_POSITION

#: Largest parameter memory (bytes) of a learned table (and of the course's small transformer),
#: checked before allocation.
MAX_MODEL_BYTES = _torch_checks.MAX_MODEL_BYTES

#: Most heads :func:`alibi_slopes` and :class:`ALiBi` build slopes for.
MAX_HEADS = 1 << 16

# attribute set on the buffers this module computed itself
_VALID = "_posenc_lib_computed"


def _rotary_dim(rotary_dim: object, head_dim: int) -> int:
    """The rotated features: an even ``rotary_dim <= head_dim`` (``None``: ``head_dim``)."""
    if rotary_dim is None:
        return head_dim
    rotary_dim = check_dim(rotary_dim, "rotary_dim")
    if rotary_dim > head_dim:
        accepted = f"<= head_dim = {head_dim}"
        raise ValueError(_validation._message("rotary_dim", accepted, str(rotary_dim)))
    return rotary_dim


# --------------------------------------------------------------------------------------------
# buffers computed by this module
# --------------------------------------------------------------------------------------------


def _computed(
    arrays, count: int, shape: tuple[int, ...], dtype: torch.dtype, device: torch.device
) -> tuple[Tensor, ...]:
    """``count`` buffers marked as computed here: ``arrays()`` (float64) cast once to ``dtype``
    on ``device``, or, on the meta device, empty ones of ``shape`` (nothing to compute)."""
    if device.type == "meta":
        out = tuple(
            torch.empty(shape, dtype=dtype, device=device) for _ in range(count)
        )
    else:
        out = tuple(
            torch.as_tensor(a, dtype=torch.float64).to(device=device, dtype=dtype)
            for a in arrays()
        )
    for tensor in out:
        setattr(tensor, _VALID, True)
    return out


def _is_valid(tensor: Tensor, device: torch.device | None) -> bool:
    """Whether ``tensor`` is a buffer this module computed (and not on meta when used for real)."""
    if not getattr(tensor, _VALID, False):
        return False
    return not (tensor.is_meta and device is not None and device.type != "meta")


def _next_power_of_two(needed: int) -> int:
    return 1 << max(needed - 1, 1).bit_length()


#: What torch.compile(fullgraph=True) says when a call needs the cache to grow (issue 23: a
#: message formatted from the symbolic length inside the graph never reached the user).
_GROWTH_UNDER_COMPILE = (
    "the position cache must cover offset + length under torch.compile(fullgraph=True) / "
    "torch.export: call extend(n) first, n the longest offset + length you will use "
    "(growth runs eagerly, outside the graph)"
)


# --------------------------------------------------------------------------------------------
# the interface
# --------------------------------------------------------------------------------------------


class PositionScheme(nn.Module):
    """Base class of the position schemes; on its own it adds no position information.

    The public methods :meth:`embed`, :meth:`rotate` and :meth:`bias` check the arguments that
    every scheme shares (the tensors, ``offset``, ``positions``, ``seq_axis``, the lengths,
    ``causal``, ``device``, ``dtype``), then hand them to the hooks ``_embed``, ``_rotate`` (once
    for q, once for k) and ``_bias``, which do nothing here; a subclass overrides the hooks it
    needs. ``name`` is the scheme's name in :data:`SCHEMES`.
    """

    name = "none"
    _integer_positions = False  # whether positions must be integers (the learned table)

    def embed(
        self, x: Tensor, offset: int = 0, *, positions: Tensor | None = None
    ) -> Tensor:
        """Token embeddings ``x`` (batch, length, dim) with position information added.

        Token ``t`` is at position ``offset + t``, or ``positions[t]`` / ``positions[b, t]``
        when ``positions`` (shape (length,) or (batch, length)) is given.
        """
        check_module_input(x, "x", (3,), getattr(self, "dim", None))
        offset, positions = check_offset_positions(
            offset, positions, x.shape[1], x.shape[0], integer=self._integer_positions
        )
        return self._embed(x, offset, positions)

    def rotate(
        self,
        q: Tensor,
        k: Tensor,
        offset: int = 0,
        *,
        positions: Tensor | None = None,
        seq_axis: int | None = None,
    ) -> tuple[Tensor, Tensor]:
        """Queries and keys after the position transform (sequence along ``seq_axis``).

        A 2-D ``q`` or ``k`` is (length, head_dim); for 3 or more axes ``seq_axis`` is required.
        Token ``t`` is at position ``offset + t``, or ``positions[t]`` / ``positions[b, t]``
        (batch along axis 0) when ``positions`` is given.
        """
        for x, name in ((q, "q"), (k, "k")):
            check_module_input(x, name, None, getattr(self, "head_dim", None))
        q, k = (self._rotate_sequence(x, offset, positions, seq_axis) for x in (q, k))
        return q, k

    def bias(
        self,
        q_len: int | torch.SymInt,  # a traced length under torch.export
        k_len: int | torch.SymInt,
        offset: int = 0,
        *,
        positions: Tensor | None = None,
        causal: bool = True,
        device=None,
        dtype=None,
    ) -> Tensor | None:
        """An additive attention bias of shape ([batch,] heads, q_len, k_len), or ``None``.

        Queries sit at ``offset + t``, keys at ``0 … k_len-1``. With ``positions`` (shape
        (k_len,) or (batch, k_len)) the keys sit at ``positions`` and the queries at its last
        ``q_len`` entries; the bias is then (batch, heads, q_len, k_len) for 2-D positions.
        """
        q_len = check_length(q_len, "q_len", 1)
        k_len = check_length(k_len, "k_len", 1)
        two_d = isinstance(positions, Tensor) and positions.ndim == 2
        offset, positions = check_offset_positions(
            offset, positions, k_len, positions.shape[0] if two_d else None
        )
        if positions is not None and q_len > k_len:
            raise ValueError(
                f"q_len must be <= k_len when positions are given, got {q_len} > {k_len}"
            )
        causal = check_bool(causal, "causal")
        dtype = check_torch_dtype(dtype)
        device = None if device is None else check_device(device)
        return self._bias(q_len, k_len, offset, positions, causal, device, dtype)

    def _rotate_sequence(
        self, x: Tensor, offset: int, positions: Tensor | None, seq_axis: int | None
    ) -> Tensor:
        seq_axis = check_seq_axis(seq_axis, x)
        batch = None if seq_axis == 0 else x.shape[0]
        offset, positions = check_offset_positions(
            offset, positions, x.shape[seq_axis], batch
        )
        return self._rotate(x, offset, positions, seq_axis)

    def _embed(self, x: Tensor, offset: int, positions: Tensor | None) -> Tensor:
        return x

    def _rotate(
        self, x: Tensor, offset: int, positions: Tensor | None, seq_axis: int
    ) -> Tensor:
        return x

    def _bias(self, q_len, k_len, offset, positions, causal, device, dtype):
        return None

    def reset_parameters(self) -> None:
        """Recompute fixed buffers / re-initialise trained ones (nothing for NoPE)."""

    def forward(
        self, x: Tensor, offset: int = 0, *, positions: Tensor | None = None
    ) -> Tensor:
        return self.embed(x, offset, positions=positions)


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
    equals that of a sinusoidal vector (:meth:`reset_parameters` draws them again). Positions
    ``>= max_len`` have no vector: asking for them raises ``ValueError``. Rows that training never
    reached keep their random initial values.
    """

    name = "learned"
    _integer_positions = True

    def __init__(
        self, max_len: int, dim: int, *, dtype: torch.dtype | None = None, device=None
    ):
        super().__init__()
        self.max_len = check_count(max_len, "max_len", 1)
        self.dim = check_dim(dim)
        dtype = check_torch_dtype(dtype)
        if self.max_len * self.dim * dtype.itemsize > MAX_MODEL_BYTES:
            raise ValueError(
                f"max_len x dim = {self.max_len} x {self.dim} is over the limit MAX_MODEL_BYTES = "
                f"{MAX_MODEL_BYTES // 2**20} MiB; use a smaller max_len"
            )
        device = check_device(device)
        self.weight = nn.Parameter(
            torch.empty(self.max_len, self.dim, dtype=dtype, device=device)
        )
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the rows again from :math:`\\mathcal N(0, 1/2)`."""
        nn.init.normal_(self.weight, std=math.sqrt(0.5))

    def _embed(self, x: Tensor, offset: int, positions: Tensor | None) -> Tensor:
        if positions is not None:
            rows = f"the learned table has max_len = {self.max_len} rows"
            check_index_tensor(positions, "positions", self.max_len, rows)
            return x + self.weight[positions.to(self.weight.device)].to(x.dtype)
        end = offset + x.shape[1]
        if end > self.max_len:
            raise ValueError(
                f"positions up to {end - 1} requested but the learned table has max_len = "
                f"{self.max_len} rows (positions 0 … {self.max_len - 1}); "
                "build it with a larger max_len"
            )
        return x + self.weight[offset:end].to(x.dtype)


class _Computed(PositionScheme):
    """A scheme whose buffers ``_cached`` are computed, never trusted: recomputed (not converted)
    when moved or cast, and when found replaced.

    Subclasses give ``_compute(length, dtype, device)``, the buffers in the order of ``_cached``
    (for tables, of positions ``0 … length-1``).
    """

    _cached: tuple[str, ...] = ()

    def _tables(self) -> tuple[Tensor, ...]:
        return tuple(getattr(self, name) for name in self._cached)

    def _store(self, length: int, dtype: torch.dtype, device: torch.device) -> None:
        for name, table in zip(
            self._cached, self._compute(length, dtype, device), strict=True
        ):
            setattr(self, name, table)

    def _ensure(self, device: torch.device | None = None) -> None:
        """Recompute the buffers if replaced (meta init, to_empty, assign, from_pretrained)."""
        valid = (_is_valid(table, device) for table in self._tables())
        if torch.compiler.is_compiling() or all(valid):
            return
        first = self._tables()[0]
        target = device if (first.is_meta and device is not None) else first.device
        self._store(first.shape[0], first.dtype, target)

    def reset_parameters(self) -> None:
        """Recompute the buffers (same length, dtype and device); meta ones stay on meta."""
        first = self._tables()[0]
        self._store(first.shape[0], first.dtype, first.device)

    def _apply(self, fn, recurse: bool = True):
        result = super()._apply(fn, recurse)
        self.reset_parameters()  # a moved or cast buffer is recomputed, never converted
        return result


class _CachedTables(_Computed):
    """A scheme whose tables (float64 angles cast once) grow on demand.

    Besides ``_compute``, subclasses give ``_at(positions, device)`` (the rows of any positions,
    not cached) as a tuple in the order of ``_cached``; ``_width_name`` names the attribute
    holding the row width in bytes' count (``dim`` or ``rotary_dim``).
    """

    _width_name = "dim"

    @property
    def cached_length(self) -> int:
        """Number of positions currently cached."""
        return int(self._tables()[0].shape[0])

    @torch.compiler.disable(reason=_GROWTH_UNDER_COMPILE)
    def _grow(self, needed: int) -> None:
        first = self._tables()[0]
        self._store(_next_power_of_two(needed), first.dtype, first.device)

    def _slice(
        self, offset: int, length: int, device: torch.device
    ) -> tuple[Tensor, ...]:
        """Positions ``offset … offset + length - 1``: a slice of the cache, grown if needed."""
        self._ensure(device)
        end = offset + length
        first = self._tables()[0]
        if end > first.shape[0]:
            width = getattr(self, self._width_name)
            if _next_power_of_two(end) * width * first.dtype.itemsize > MAX_CACHE_BYTES:
                return self._at(torch.arange(offset, end, device=first.device), device)
            self._grow(end)
        return tuple(table[offset:end] for table in self._tables())

    def extend(self, length: int) -> None:
        """Make sure at least ``length`` positions are cached (dtype and device unchanged)."""
        length = check_count(length, "length", 1)
        width = getattr(self, self._width_name)
        dtype = self._tables()[0].dtype
        rows = _next_power_of_two(length)  # what the cache grows to
        check_cache_size(rows, width, dtype, "length", self._width_name)
        self._ensure()
        if length > self.cached_length:
            self._grow(length)


class SinusoidalPositionalEncoding(_CachedTables):
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
        Model dimension :math:`d`, positive and even (odd with ``odd_dim``).
    base
        The base :math:`b > 1` (default 10000).
    layout, spacing
        As in :func:`posenc_lib.sinusoidal` (defaults: the paper's interleaved pairs, ``2i/d``).
    initial_length
        Rows computed at construction; the table grows on demand when a longer input or a
        larger offset arrives (to the next power of two at least as large as needed).
    batch_first
        Which axis of a 3-D input is the sequence: ``True`` for (batch, length, dim) (Hugging
        Face), ``False`` for (length, batch, dim) (``torch.nn.Transformer``'s default). Nothing in
        a shape tells the two apart, so a 3-D input to :meth:`forward` raises ``ValueError`` unless
        it was given. A 2-D input (length, dim) needs no choice, and
        :meth:`~PositionScheme.embed` is always batch-first (the :class:`PositionScheme`
        interface).
    persistent
        Whether the table is saved in :meth:`state_dict` (default ``False``: it is recomputed, not
        stored). A persistent table is saved with its first ``initial_length`` rows, whatever the
        cache has grown to (so that a module built from the same arguments, as Hugging Face's
        ``from_pretrained`` builds it, expects that shape), and a table of any length loads
        into a module of any cached length. Loaded values are never used: the table is
        recomputed from the formula right after loading.
    odd_dim
        Required for an odd ``dim`` (at least 3): the convention of
        :func:`posenc_lib.sinusoidal`, ``"zero_pad"`` (fairseq, tensor2tensor, M2M100: the table
        of ``dim - 1`` and a zero column) or ``"split"`` (Hugging Face Marian, DistilBERT).
    padding_idx
        fairseq's padding position (M2M100, NLLB, XGLM, Speech2Text do the same): the row of
        this position is all zeros, in the cache and for ``positions`` (pad tokens get position
        ``padding_idx``, real tokens ``padding_idx + 1 + t``). Default ``None``: no such row.
    dtype, device
        Of the table (default: ``torch.get_default_dtype()``, the default device).
        :meth:`torch.nn.Module.to` changes both and recomputes the table in the new dtype (so a
        float64 table is never a float32 one widened); growth keeps them.

    Notes
    -----
    Attributes: ``table`` (the cached buffer, shape ``(cached_length, dim)``), ``cached_length``,
    ``dim``, ``base``, ``layout``, ``spacing``, ``batch_first``.
    Methods: :meth:`forward`, :meth:`encoding` (the rows for given positions), :meth:`extend`,
    :meth:`reset_parameters`. The forward adds the table cast to ``x.dtype`` when the two
    differ. ``positions`` (a tensor, one position per token, per row if 2-D) replaces the
    progression ``offset, offset + 1, …``; their rows are computed from float64 angles, not
    cached.

    Examples
    --------
    >>> import torch
    >>> module = SinusoidalPositionalEncoding(8, batch_first=True)
    >>> module(torch.zeros(2, 5, 8)).shape
    torch.Size([2, 5, 8])
    >>> module(torch.zeros(2, 5, 8), positions=torch.tensor([0, 0, 1, 2, 3])).shape
    torch.Size([2, 5, 8])
    """

    name = "sinusoidal"
    _cached = ("table",)

    def __init__(
        self,
        dim: int,
        base: float = 10000.0,
        *,
        layout: str = "interleaved",
        spacing: str = "2i/d",
        initial_length: int = 512,
        batch_first: bool | None = None,
        persistent: bool = False,
        odd_dim: str | None = None,
        padding_idx: int | None = None,
        dtype: torch.dtype | None = None,
        device=None,
    ):
        super().__init__()
        self.odd_dim = (
            None if odd_dim is None else check_choice(odd_dim, "odd_dim", ODD_DIMS)
        )
        self.dim = check_table_dim(dim, self.odd_dim is not None)
        self.base = check_base(base)
        self.layout = check_choice(layout, "layout", LAYOUTS)
        self.spacing = check_choice(spacing, "spacing", SPACINGS)
        if self.dim % 2 and self.odd_dim == "split":
            encoding._check_split(self.layout, self.spacing)  # as sinusoidal() does
        self.padding_idx = None
        if padding_idx is not None:
            self.padding_idx = check_count(padding_idx, "padding_idx", 0, MAX_POSITION)
        initial_length = check_count(initial_length, "initial_length", 1)
        if batch_first is not None:
            check_bool(batch_first, "batch_first")
        self.batch_first = batch_first
        self.persistent = check_bool(persistent, "persistent")
        dtype = check_torch_dtype(dtype)
        check_cache_size(initial_length, self.dim, dtype, "initial_length")
        self.initial_length = initial_length
        # the even table that _at builds (odd dim: zero_pad drops to dim - 1, split adds the
        # missing cosine, dropped again, and keeps the odd dim in the exponent)
        even = self.dim + (self.dim % 2) * (1 if self.odd_dim == "split" else -1)
        self._theta = frequencies(even, base=self.base, spacing=self.spacing)
        if self.dim % 2 and self.odd_dim == "split":
            self._theta = self.base ** (-np.arange(even // 2) * 2.0 / self.dim)
        self._perm = torch.from_numpy(
            layout_permutation(even, "concatenated", self.layout)
        )
        (table,) = self._compute(initial_length, dtype, check_device(device))
        self.register_buffer("table", table, persistent=persistent)

    # -- the table ------------------------------------------------------------------------------

    def _compute(
        self, length: int, dtype: torch.dtype, device: torch.device
    ) -> tuple[Tensor]:
        def rows() -> tuple[np.ndarray]:
            table = sinusoidal(
                length,
                self.dim,
                base=self.base,
                layout=self.layout,
                spacing=self.spacing,
                odd_dim=self.odd_dim,
            )
            if self.padding_idx is not None and self.padding_idx < length:
                table[self.padding_idx] = 0.0  # fairseq's padding row
            return (table,)

        return _computed(rows, 1, (length, self.dim), dtype, device)

    def _at(self, positions: Tensor, device: torch.device) -> tuple[Tensor]:
        """Rows for arbitrary positions (any shape), from float64 angles; not cached."""
        theta = torch.from_numpy(self._theta).to(device)
        phase = positions.to(device, torch.float64)[..., None] * theta
        # the concatenated layout
        halves = torch.cat((phase.sin(), phase.cos()), dim=-1)
        rows = halves[..., self._perm.to(device)]
        if rows.shape[-1] > self.dim:  # odd dim, "split": no cosine for the last sine
            rows = rows[..., : self.dim]
        elif rows.shape[-1] < self.dim:  # odd dim, "zero_pad": a last column of zeros
            rows = torch.cat((rows, rows.new_zeros((*rows.shape[:-1], 1))), dim=-1)
        if self.padding_idx is not None:  # fairseq: the padding position has a zero row
            rows = rows.masked_fill(
                (positions == self.padding_idx)[..., None].to(device), 0
            )
        return (rows.to(self.table.dtype),)

    def encoding(self, length: int, offset: int = 0) -> Tensor:
        """Rows ``offset … offset + length - 1`` of the table, shape (length, dim)."""
        length = check_count(length, "length", 0)
        offset = check_offset(offset)
        check_cache_size(length, self.dim, self.table.dtype, "length")  # rows returned
        return self._slice(offset, length, self.table.device)[0]

    # -- module protocol ------------------------------------------------------------------------

    def _embed(
        self, x: Tensor, offset: int, positions: Tensor | None, seq_axis: int = 1
    ) -> Tensor:
        if positions is None:
            (pe,) = self._slice(offset, x.shape[seq_axis], x.device)
        else:
            self._ensure(x.device)
            (pe,) = self._at(positions, x.device)  # (L, d) or (B, L, d)
            if pe.ndim == 3 and seq_axis == 0:
                pe = pe.transpose(0, 1)
        pe = pe.to(x.dtype)  # (returns pe itself when the dtypes agree)
        if x.ndim == 3 and seq_axis == 0 and pe.ndim == 2:
            pe = pe.unsqueeze(1)
        return x + pe

    def forward(
        self, x: Tensor, offset: int = 0, *, positions: Tensor | None = None
    ) -> Tensor:
        """``x + P[offset : offset + L]`` (or the rows of ``positions``), broadcast over the batch.

        ``x`` is (batch, L, dim) if ``batch_first`` else (L, batch, dim); (L, dim) also works.
        """
        check_module_input(x, "x", (2, 3), self.dim)
        if x.ndim == 3 and self.batch_first is None:
            raise ValueError(
                f"x has shape {tuple(x.shape)} and the module cannot tell which axis is the "
                "sequence: build it with batch_first=True for (batch, length, dim) inputs or "
                "batch_first=False for (length, batch, dim) inputs (torch.nn.Transformer's "
                "default)"
            )
        seq_axis = 1 if (x.ndim == 3 and self.batch_first) else 0
        batch = None if x.ndim == 2 else x.shape[1 - seq_axis]
        offset, positions = check_offset_positions(
            offset, positions, x.shape[seq_axis], batch
        )
        return self._embed(x, offset, positions, seq_axis)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # A persistent table is saved with initial_length rows whatever the cache has grown
        # to: a module built from the same arguments (Hugging Face's from_pretrained builds it
        # from the config, then compares shapes) expects exactly that shape.
        super()._save_to_state_dict(destination, prefix, keep_vars)
        if self.persistent and prefix + "table" in destination:
            rows = destination[prefix + "table"][: self.initial_length]
            destination[prefix + "table"] = rows

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        # A persistent table of any length loads: our buffer is resized to the stored length
        # first (keeping our dtype and device) so that the parent's copy succeeds. The loaded
        # values are never used: the table is recomputed from the formula right after, at the
        # longer of the two lengths.
        stored = state_dict.get(prefix + "table")
        length = self.cached_length
        if self.persistent and isinstance(stored, Tensor) and stored.ndim == 2:
            if stored.shape[1] == self.dim and stored.shape[0] != self.table.shape[0]:
                length = max(length, int(stored.shape[0]))
                self.table = torch.empty(
                    stored.shape, dtype=self.table.dtype, device=self.table.device
                )
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)
        if self.persistent:
            self._store(length, self.table.dtype, self.table.device)

    def extra_repr(self) -> str:
        return (
            f"dim={self.dim}, base={self.base:g}, layout={self.layout!r}, cached_length="
            f"{self.cached_length}, batch_first={self.batch_first}, persistent={self.persistent}"
            + (f", odd_dim={self.odd_dim!r}" if self.dim % 2 else "")
            + ("" if self.padding_idx is None else f", padding_idx={self.padding_idx}")
        )


# --------------------------------------------------------------------------------------------
# relative schemes
# --------------------------------------------------------------------------------------------


def _pair_slots(rotary_dim: int, pairing: str) -> tuple[np.ndarray, np.ndarray]:
    """Feature indices (first, second) of each rotated pair i under ``pairing``."""
    pair = np.arange(rotary_dim // 2)
    if pairing == "interleaved":
        return 2 * pair, 2 * pair + 1
    return pair, rotary_dim // 2 + pair


def rotary_permutation(
    head_dim: int,
    source: str = "half_split",
    target: str = "interleaved",
    *,
    rotary_dim: int | None = None,
) -> Tensor:
    r"""Index tensor ``perm`` with ``x_target = x_source[..., perm]``: one pairing into the other.

    Under ``"interleaved"`` pair :math:`i` of the rotated features is :math:`(x_{2i}, x_{2i+1})`;
    under ``"half_split"`` it is :math:`(x_i, x_{i+r/2})`, ``r = rotary_dim``. Both rotate pair
    :math:`i` by :math:`R(m\theta_i)`, :math:`\theta_i = b^{-2i/r}`, so they are the same rotation
    of a reordered vector:

    .. math:: \mathrm{rot}_\mathrm{target}(x[\pi]) = \mathrm{rot}_\mathrm{source}(x)[\pi],

    and scores are unchanged when q and k are both reordered:
    :math:`\langle R_m q[\pi], R_n k[\pi]\rangle = \langle R_m q, R_n k\rangle` (same pairing on
    both sides). For half-split → interleaved, :math:`\pi = (0, r/2, 1, r/2+1, \dots)`; features
    ``r … head_dim - 1`` (partial rotary) are not moved. Applied to the rows of a query or key
    projection it converts weights between conventions: it is the per-head row permutation that
    Hugging Face's Llama conversion script applies to Meta's checkpoints (interleaved →
    half-split).

    Examples
    --------
    >>> rotary_permutation(8).tolist()
    [0, 4, 1, 5, 2, 6, 3, 7]
    >>> rotary_permutation(8, "interleaved", "half_split").tolist()
    [0, 2, 4, 6, 1, 3, 5, 7]
    """
    head_dim = check_dim(head_dim, "head_dim")
    check_choice(source, "source", PAIRINGS)
    check_choice(target, "target", PAIRINGS)
    rotary_dim = _rotary_dim(rotary_dim, head_dim)
    perm = np.arange(head_dim)
    src_a, src_b = _pair_slots(rotary_dim, source)
    dst_a, dst_b = _pair_slots(rotary_dim, target)
    perm[dst_a] = src_a
    perm[dst_b] = src_b
    return torch.from_numpy(perm).long()


class RotaryEmbedding(_CachedTables):
    r"""Rotary position embedding :cite:`su2021roformer`, in either pairing, partial or full.

    The first ``rotary_dim`` features of a query or key at position :math:`m` form
    ``rotary_dim / 2`` pairs; pair :math:`i` is rotated by :math:`R(m\theta_i)` with
    :math:`\theta_i = b^{-2i/r}` (``r = rotary_dim``); the remaining ``head_dim - rotary_dim``
    features pass through (partial rotary: GPT-J's ``rotary_dim``, GPT-NeoX's ``rotary_pct``).
    Since rotations compose, :math:`(R_m q)^\top (R_n k) = q^\top R_{n-m} k`: the score depends on
    :math:`m - n` only. The cos/sin tables come from float64 angles and grow on demand, keeping
    dtype and device.

    Parameters
    ----------
    head_dim
        Size of the last axis of q and k, positive and even.
    base
        The base :math:`b > 1` (Hugging Face's ``rope_theta``).
    pairing
        ``"interleaved"`` (default; features ``(2i, 2i+1)``: RoFormer, GPT-J, Meta's Llama code)
        or ``"half_split"`` (features ``(i, i + r/2)``: Hugging Face Llama, GPT-NeoX and most
        ports, ``rotate_half``). The two are the same rotation of reordered features, see
        :func:`rotary_permutation`; a checkpoint trained with one gives wrong scores under the
        other unless its q/k projections are permuted.
    rotary_dim
        Number of rotated features (even, at most ``head_dim``; default ``head_dim``).
    interpolation_factor
        Linear position interpolation :cite:`chen2023interpolation`: position :math:`m` is
        rotated as :math:`m/s` (Hugging Face ``rope_scaling={"rope_type": "linear",
        "factor": s}``). Default 1 (none).
    initial_length, dtype, device
        Positions cached at construction, and the tables' dtype and device.

    Notes
    -----
    :meth:`rotate_one` and :meth:`~PositionScheme.rotate` need the sequence axis of a 3-D or
    4-D input (``seq_axis=-2`` for (batch, heads, L, head_dim), ``seq_axis=1`` for (batch, L,
    heads, head_dim)): the shapes alone cannot tell. ``positions`` (shape (L,) or (batch, L))
    gives one position per token and row instead of ``offset, offset + 1, …``; its cos/sin are
    computed from float64 angles, not cached.

    Examples
    --------
    >>> import torch
    >>> rope = RotaryEmbedding(8, pairing="half_split", dtype=torch.float64)
    >>> q = torch.randn(2, 3, 5, 8, dtype=torch.float64)  # (batch, heads, L, head_dim)
    >>> rope.rotate_one(q, seq_axis=-2).shape
    torch.Size([2, 3, 5, 8])
    >>> ids = torch.tensor([[0, 0, 0, 1, 2], [0, 1, 2, 3, 4]])  # a left-padded batch
    >>> rope.rotate_one(q, positions=ids, seq_axis=-2).shape
    torch.Size([2, 3, 5, 8])
    """

    name = "rotary"
    _cached = ("cos", "sin")
    _width_name = "rotary_dim"

    def __init__(
        self,
        head_dim: int,
        base: float = 10000.0,
        *,
        pairing: str = "interleaved",
        rotary_dim: int | None = None,
        interpolation_factor: float = 1.0,
        initial_length: int = 512,
        dtype: torch.dtype | None = None,
        device=None,
    ):
        super().__init__()
        self.head_dim = check_dim(head_dim, "head_dim")
        self.base = check_base(base)
        self.pairing = check_choice(pairing, "pairing", PAIRINGS)
        self.rotary_dim = _rotary_dim(rotary_dim, self.head_dim)
        self.interpolation_factor = check_real(
            interpolation_factor, "interpolation_factor", above=0.0
        )
        initial_length = check_count(initial_length, "initial_length", 1)
        dtype = check_torch_dtype(dtype)
        check_cache_size(
            initial_length, self.rotary_dim, dtype, "initial_length", "rotary_dim"
        )
        # (initial_length is bounded by now: the division cannot overflow)
        if (initial_length - 1) / self.interpolation_factor > MAX_POSITION:
            raise ValueError(
                f"interpolation_factor must be >= (initial_length - 1) / 2**52 = "
                f"{(initial_length - 1) / MAX_POSITION:.3g} (positions / factor exact in "
                f"float64), got {self.interpolation_factor:g}"
            )
        self._theta = frequencies(self.rotary_dim, base=self.base)
        cos, sin = self._compute(initial_length, dtype, check_device(device))
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    # -- the tables -----------------------------------------------------------------------------

    def _compute(
        self, length: int, dtype: torch.dtype, device: torch.device
    ) -> tuple[Tensor, ...]:
        shape = (length, self.rotary_dim // 2)
        return _computed(lambda: self._cos_sin(length), 2, shape, dtype, device)

    def _cos_sin(self, length: int) -> tuple[np.ndarray, np.ndarray]:
        """float64 cos and sin of positions ``0 … length-1``, (length, r/2) each."""
        positions = np.arange(length) / self.interpolation_factor  # exact for factor 1
        phase = angles(positions, self.rotary_dim, base=self.base)
        return np.cos(phase), np.sin(phase)

    def _at(self, positions: Tensor, device: torch.device) -> tuple[Tensor, Tensor]:
        """cos and sin for arbitrary positions (any shape), from float64 angles; not cached."""
        theta = torch.from_numpy(self._theta).to(device)
        scaled = positions.to(device, torch.float64) / self.interpolation_factor
        phase = scaled[..., None] * theta
        return phase.cos().to(self.cos.dtype), phase.sin().to(self.cos.dtype)

    # -- rotation -------------------------------------------------------------------------------

    def _turn(self, x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
        """The first ``rotary_dim`` features turned, the others passed through."""
        r = self.rotary_dim
        out = self._turn_pairs(x[..., :r] if r < self.head_dim else x, cos, sin)
        return out if r == self.head_dim else torch.cat((out, x[..., r:]), dim=-1)

    def _turn_pairs(self, rot: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
        half = self.rotary_dim // 2
        if self.pairing == "interleaved":
            x0, x1 = rot[..., 0::2], rot[..., 1::2]
            out = torch.stack((x0 * cos - x1 * sin, x0 * sin + x1 * cos), dim=-1)
            return out.flatten(-2)
        x0, x1 = rot[..., :half], rot[..., half:]
        return torch.cat((x0 * cos - x1 * sin, x0 * sin + x1 * cos), dim=-1)

    def _rotate(
        self, x: Tensor, offset: int, positions: Tensor | None, seq_axis: int
    ) -> Tensor:
        moved = x.movedim(seq_axis, -2)  # (..., L, head_dim)
        if positions is None:
            cos, sin = self._slice(offset, x.shape[seq_axis], x.device)
        else:
            self._ensure(x.device)
            cos, sin = self._at(positions, x.device)  # (L, r/2) or (B, L, r/2)
            # batch on axis 0 of moved; singleton axes between it and L
            if cos.ndim == 3:
                shape = (cos.shape[0],) + (1,) * (moved.ndim - 3) + cos.shape[1:]
                cos, sin = cos.reshape(shape), sin.reshape(shape)
        cos, sin = cos.to(x.dtype), sin.to(x.dtype)
        return self._turn(moved, cos, sin).movedim(-2, seq_axis)

    def rotate_one(
        self,
        x: Tensor,
        offset: int = 0,
        *,
        positions: Tensor | None = None,
        seq_axis: int | None = None,
    ) -> Tensor:
        """Rotate ``x``: last axis ``head_dim``, the sequence along axis ``seq_axis``.

        A 2-D ``x`` is (length, head_dim). For 3 or more axes ``seq_axis`` is required (e.g.
        ``-2`` for (batch, heads, L, head_dim), ``1`` for (batch, L, heads, head_dim)). Token
        ``t`` is at position ``offset + t``, or ``positions[t]`` / ``positions[b, t]`` (batch
        along axis 0 of ``x``) when ``positions`` is given. :meth:`~PositionScheme.rotate`
        applies it to queries and keys at the same positions.
        """
        check_module_input(x, "x", None, self.head_dim)
        return self._rotate_sequence(x, offset, positions, seq_axis)

    def _scaling_repr(self) -> str:
        return f"interpolation_factor={self.interpolation_factor:g}"

    def extra_repr(self) -> str:
        return (
            f"head_dim={self.head_dim}, base={self.base:g}, pairing={self.pairing!r}, "
            f"rotary_dim={self.rotary_dim}, {self._scaling_repr()}, "
            f"cached_length={self.cached_length}"
        )


def alibi_slopes(n_heads: int) -> list[float]:
    r"""The ALiBi head slopes of :cite:`press2022alibi`.

    For :math:`n` a power of two the slopes are the geometric sequence
    :math:`s_h = 2^{-8h/n}`, :math:`h = 1,\dots,n` (for 8 heads :math:`2^{-1},\dots,2^{-8}`).
    For other :math:`n` the paper's rule: take the :math:`2^{\lfloor\log_2 n\rfloor}` slopes of the
    largest power of two below :math:`n`, then the first :math:`n - 2^{\lfloor\log_2 n\rfloor}` of
    every other slope (the 1st, 3rd, …) of the :math:`2^{\lfloor\log_2 n\rfloor + 1}` sequence.
    ``n_heads`` is at most :data:`MAX_HEADS`.

    Examples
    --------
    >>> alibi_slopes(4)
    [0.25, 0.0625, 0.015625, 0.00390625]
    """
    n = check_count(n_heads, "n_heads", 1, MAX_HEADS)

    def power_of_two(count: int) -> list[float]:
        return [2.0 ** (-8.0 * h / count) for h in range(1, count + 1)]

    if n & (n - 1) == 0:
        return power_of_two(n)
    below = 1 << (n.bit_length() - 1)
    return power_of_two(below) + power_of_two(2 * below)[0::2][: n - below]


class ALiBi(_Computed):
    r"""Attention with linear biases :cite:`press2022alibi`.

    Head :math:`h` adds :math:`-s_h\,(m - n)` to the score of query :math:`m` on key :math:`n`
    (:math:`n \le m` under the causal mask), with the slopes of :func:`alibi_slopes`. For
    bidirectional attention it adds :math:`-s_h\,|m - n|`, a common symmetric extension (the paper
    only treats causal models). The slopes are a float64 buffer, recomputed (never converted)
    when the module is moved or cast.
    """

    name = "alibi"
    _cached = ("slopes",)

    def __init__(self, n_heads: int, *, device=None):
        super().__init__()
        self.n_heads = check_count(n_heads, "n_heads", 1, MAX_HEADS)
        (slopes,) = self._compute(self.n_heads, torch.float64, check_device(device))
        self.register_buffer("slopes", slopes, persistent=False)

    def _compute(self, length, dtype, device) -> tuple[Tensor]:
        """The slopes, always float64 (``length`` and ``dtype`` are not used)."""
        slopes = lambda: (alibi_slopes(self.n_heads),)  # noqa: E731
        return _computed(slopes, 1, (self.n_heads,), torch.float64, device)

    def _bias(self, q_len, k_len, offset, positions, causal, device, dtype) -> Tensor:
        device = self.slopes.device if device is None else device
        if isinstance(q_len, int) and isinstance(k_len, int):
            # the float64 distances (q_len x k_len), then the bias (heads x q_len x k_len)
            needed = q_len * k_len * (8 + self.n_heads * dtype.itemsize)
            if needed > MAX_CACHE_BYTES:
                raise ValueError(
                    f"q_len x k_len x n_heads = {q_len} x {k_len} x {self.n_heads} needs "
                    f"{(needed + 2**19) // 2**20} MiB, over the limit MAX_CACHE_BYTES = "
                    f"{MAX_CACHE_BYTES // 2**20} MiB; use shorter q_len or k_len"
                )
        self._ensure(device)
        # float64 positions of the queries and the keys, each (length,) or (batch, length)
        if positions is None:
            end = offset + q_len
            q_pos = torch.arange(offset, end, device=device, dtype=torch.float64)
            k_pos = torch.arange(k_len, device=device, dtype=torch.float64)
        else:
            k_pos = positions.to(device, torch.float64)
            q_pos = k_pos[..., k_len - q_len :]
        return self._from_positions(self.slopes.to(device), q_pos, k_pos, causal).to(
            dtype
        )

    def _from_positions(self, slopes, q_pos, k_pos, causal: bool) -> Tensor:
        """The float64 bias ([batch,] heads, q_len, k_len) of queries at ``q_pos`` on keys at
        ``k_pos``."""
        distance = q_pos[..., :, None] - k_pos[..., None, :]
        if distance.ndim == 3:
            distance = distance[:, None]  # (batch, 1, q_len, k_len)
        if not causal:
            distance = distance.abs()
        return -slopes[:, None, None] * distance


def make_scheme(
    name: str,
    *,
    dim: int,
    n_heads: int = 1,
    max_len: int | None = None,
    base: float = 10000.0,
) -> PositionScheme:
    """Build the position scheme ``name`` (one of :data:`SCHEMES`) for a model of width ``dim``.

    ``max_len`` is required by ``"learned"`` and is the initial cache of ``"sinusoidal"`` and
    ``"rotary"``; ``base`` is used by ``"sinusoidal"`` (on ``dim``) and ``"rotary"`` (on the head
    dimension ``dim // n_heads``); ``n_heads`` by ``"alibi"``.
    """
    check_choice(name, "name", SCHEMES)
    dim, n_heads = check_heads(dim, n_heads)
    length = 512 if max_len is None else check_count(max_len, "max_len", 1)
    if name == "learned" and max_len is None:
        raise ValueError(
            "scheme 'learned' needs max_len (the number of trained positions)"
        )
    rotary = name == "rotary"
    width = dim // n_heads if rotary else dim  # of a cached row
    if rotary and width % 2:
        raise ValueError(
            f"rotary needs an even head dimension, got dim/n_heads = {width}"
        )
    if name in ("sinusoidal", "rotary"):
        names = ("max_len", "dim/n_heads" if rotary else "dim")
        check_cache_size(length, width, torch.get_default_dtype(), *names)
    if name == "none":
        return NoPositionalEncoding()
    if name == "learned":
        return LearnedPositionalEmbedding(length, dim)
    if name == "sinusoidal":
        return SinusoidalPositionalEncoding(
            dim, base, initial_length=length, batch_first=True
        )
    if name == "rotary":
        return RotaryEmbedding(width, base, initial_length=length)
    return ALiBi(n_heads)
