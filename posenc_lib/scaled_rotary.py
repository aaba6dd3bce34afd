r"""A rotary embedding with any frequency schedule of :mod:`posenc_lib.rope_scaling` (*torch*).

:class:`ScaledRotaryEmbedding` is a :class:`posenc_lib.nn.RotaryEmbedding` whose frequencies
:math:`\theta_i` and attention factor :math:`a` come from a
:class:`~posenc_lib.rope_scaling.RopeScaling`: pair :math:`i` of a query or key at position
:math:`m` is rotated by :math:`m\theta_i` and multiplied by :math:`a` (features past the rotated
dimension pass through unscaled), as Hugging Face's rotary embeddings do with ``rope_parameters``.

**Length-dependent schedules** follow transformers' ``dynamic_rope_update`` exactly. The current
length :math:`\ell` of a call is its largest position + 1 (``offset + length``, or
``positions.max() + 1`` over the whole batch). ``"dynamic"``: when :math:`\ell` exceeds the
longest length seen so far (initially ``max_position_embeddings``), the frequencies are
recomputed for :math:`\ell`; when :math:`\ell` < ``max_position_embeddings`` after such growth,
they return to the original ones. ``"longrope"``: the long factors when :math:`\ell >`
``original_max_position_embeddings``, else the short ones. This state lives in the module
(``seen_length``) and is updated eagerly, outside a compiled graph; under
``torch.compile(fullgraph=True)`` these two schedules raise (the update reads tensor values).

The cos/sin tables come from float64 angles times :math:`a`, rounded once to the module's dtype.
Integer ``positions`` inside the cache are looked up in it (the same values, computed once).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

from ._validation import check_instance
from .nn import RotaryEmbedding
from .rope_scaling import RopeScaling

__all__ = ["ScaledRotaryEmbedding"]

_UPDATE_UNDER_COMPILE = (
    "a 'dynamic' or 'longrope' schedule reads the current length from the positions' values "
    "and updates its frequencies eagerly: it cannot run under torch.compile(fullgraph=True); "
    "compile without fullgraph"
)


class ScaledRotaryEmbedding(RotaryEmbedding):
    r"""Rotary embedding scaled by a :class:`~posenc_lib.rope_scaling.RopeScaling`.

    Parameters
    ----------
    head_dim, base
        As for :class:`~posenc_lib.nn.RotaryEmbedding` (``base`` is Hugging Face's
        ``rope_theta``).
    scaling : posenc_lib.rope_scaling.RopeScaling, optional
        The schedule (default: ``RopeScaling()``, plain rotary). Its ``partial_rotary_factor``
        sets the rotated dimension.
    pairing
        ``"interleaved"`` or ``"half_split"`` (Hugging Face's ``rotate_half``), as in
        :class:`~posenc_lib.nn.RotaryEmbedding`.
    initial_length, dtype, device
        Positions cached at construction, and the tables' dtype and device.

    Notes
    -----
    Attributes: ``scaling``, ``theta`` (the current float64 frequencies, a numpy array),
    ``attention_scaling`` (:math:`a`), ``seen_length`` (the length the frequencies were computed
    for), and those of :class:`~posenc_lib.nn.RotaryEmbedding`.

    Examples
    --------
    >>> import torch
    >>> from posenc_lib.rope_scaling import RopeScaling
    >>> yarn = RopeScaling("yarn", factor=4.0, original_max_position_embeddings=64)
    >>> rope = ScaledRotaryEmbedding(8, scaling=yarn, pairing="half_split")
    >>> q = torch.randn(1, 2, 5, 8)  # (batch, heads, L, head_dim)
    >>> rope.rotate_one(q, seq_axis=-2).shape
    torch.Size([1, 2, 5, 8])
    >>> round(rope.attention_scaling, 4)
    1.1386
    """

    def __init__(
        self,
        head_dim: int,
        base: float = 10000.0,
        *,
        scaling: RopeScaling | None = None,
        pairing: str = "interleaved",
        initial_length: int = 512,
        dtype: torch.dtype | None = None,
        device=None,
    ):
        if scaling is None:
            scaling = RopeScaling()
        check_instance(scaling, "scaling", RopeScaling, "a posenc_lib RopeScaling")
        # RopeScaling checks head_dim and base
        rotary_dim = scaling.rotary_dim(head_dim)
        theta, attention = scaling.frequencies(head_dim, base)
        # set before RotaryEmbedding.__init__, whose first tables come from _compute
        self.theta, self.attention_scaling = theta, attention
        super().__init__(
            head_dim,
            base,
            pairing=pairing,
            rotary_dim=rotary_dim,
            initial_length=initial_length,
            dtype=dtype,
            device=device,
        )
        self.scaling = scaling
        self.seen_length = scaling.max_position_embeddings
        self._theta = theta

    # -- the tables -------------------------------------------------------------------------

    def _cos_sin(self, length: int) -> tuple[np.ndarray, np.ndarray]:
        phase = np.arange(length, dtype=np.float64)[:, None] * self.theta
        a = self.attention_scaling
        return np.cos(phase) * a, np.sin(phase) * a

    def _at(self, positions: Tensor, device: torch.device) -> tuple[Tensor, Tensor]:
        """cos and sin (times a) at any positions: cache rows, else float64 angles."""
        cached = self.cos.shape[0]
        if (
            not torch.compiler.is_compiling()
            and not positions.is_floating_point()
            and positions.numel()
            and int(positions.min()) >= 0
            and int(positions.max()) < cached
        ):
            index = positions.to(self.cos.device)
            return self.cos[index].to(device), self.sin[index].to(device)
        theta = torch.from_numpy(self.theta).to(device)
        phase = positions.to(device, torch.float64)[..., None] * theta
        a, dtype = self.attention_scaling, self.cos.dtype
        return (phase.cos() * a).to(dtype), (phase.sin() * a).to(dtype)

    def _turn_pairs(self, rot: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
        """Half-split: ``x * [cos | cos] + [x1 | x0] * [-sin | sin]``, the same products and
        sums as the pairwise form, in fewer passes over ``x`` (as ``rotate_half`` does)."""
        if self.pairing != "half_split":
            return super()._turn_pairs(rot, cos, sin)
        half = self.rotary_dim // 2
        swapped = torch.cat((rot[..., half:], rot[..., :half]), dim=-1)
        cos, sin = torch.cat((cos, cos), dim=-1), torch.cat((-sin, sin), dim=-1)
        return rot * cos + swapped * sin

    # -- length-dependent schedules ---------------------------------------------------------

    @torch.compiler.disable(reason=_UPDATE_UNDER_COMPILE)
    def _follow_length(
        self, offset: int, length: int, positions: Tensor | None
    ) -> None:
        """transformers' ``dynamic_rope_update``, for the current length of this call."""
        if positions is None:
            current = offset + length
        elif positions.numel():
            current = int(positions.max()) + 1
        else:
            return
        kind = self.scaling.rope_type
        theta = self.theta
        if kind == "dynamic":
            limit = self.scaling.max_position_embeddings
            if current > self.seen_length:  # growth: rescale for the current length
                theta = self.scaling.frequencies(self.head_dim, self.base, current)[0]
                self.seen_length = current
            if current < limit and self.seen_length > limit:  # back to the original
                theta = self.scaling.frequencies(self.head_dim, self.base)[0]
                self.seen_length = limit
        else:  # longrope: long factors past the original length
            theta = self.scaling.frequencies(self.head_dim, self.base, current)[0]
        if not np.array_equal(theta, self.theta):
            self.theta = self._theta = theta
            self.reset_parameters()

    def _rotate(
        self, x: Tensor, offset: int, positions: Tensor | None, seq_axis: int
    ) -> Tensor:
        if self.scaling.depends_on_length:
            self._follow_length(offset, x.shape[seq_axis], positions)
        return super()._rotate(x, offset, positions, seq_axis)

    def _scaling_repr(self) -> str:
        return (
            f"rope_type={self.scaling.rope_type!r}, "
            f"attention_scaling={self.attention_scaling:g}"
        )
