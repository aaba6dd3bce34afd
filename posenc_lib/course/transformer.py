r"""A small pre-norm transformer that takes any position scheme of :mod:`posenc_lib.nn` (*torch*).

Chapter 9 trains it on the synthetic tasks of :mod:`posenc_lib.course.experiments`; chapters 3
and 7 differentiate its attention logits (:mod:`posenc_lib.course.attention`). The position scheme
acts at the three places :class:`~posenc_lib.nn.PositionScheme` defines: it adds to the token
embeddings (:meth:`~posenc_lib.nn.PositionScheme.embed`), rotates queries and keys in every layer
(:meth:`~posenc_lib.nn.PositionScheme.rotate`) and adds a bias to the scores
(:meth:`~posenc_lib.nn.PositionScheme.bias`); one scheme instance is shared by all layers.

Examples
--------
>>> import torch
>>> from posenc_lib.course.transformer import TinyTransformer
>>> _ = torch.manual_seed(0)
>>> model = TinyTransformer(vocab_size=10, dim=16, n_heads=2, scheme="rotary")
>>> model(torch.zeros(1, 5, dtype=torch.long)).shape
torch.Size([1, 5, 10])
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from .._torch_checks import check_index_tensor, check_module_input
from .._validation import check_choice, check_count, check_heads
from ..nn import (
    SCHEMES,
    PositionScheme,
    make_scheme,
)

__all__ = ["Block", "SelfAttention", "TinyTransformer"]


class SelfAttention(nn.Module):
    r"""Multi-head self-attention whose position scheme rotates q, k and biases the scores.

    Scores are :math:`q_m^\top k_n/\sqrt{h}` plus the scheme's bias; with ``causal=True`` keys
    :math:`n > m` are masked out before the softmax.
    """

    def __init__(
        self, dim: int, n_heads: int, scheme: PositionScheme, *, causal: bool = True
    ):
        super().__init__()
        self.dim, self.n_heads = check_heads(dim, n_heads)
        self.head_dim = self.dim // self.n_heads
        if not isinstance(scheme, PositionScheme):
            raise TypeError(
                f"scheme must be a PositionScheme, got {type(scheme).__name__}"
            )
        # the sizes a scheme instance has (dim; rotary: head_dim; ALiBi: n_heads) must match
        sizes = {"dim": self.dim, "head_dim": self.head_dim, "n_heads": self.n_heads}
        for size, want in sizes.items():
            if getattr(scheme, size, want) != want:
                raise ValueError(
                    f"the {scheme.name} scheme has {size} = {getattr(scheme, size)}, but the "
                    f"model has {size} = {want} (dim = {self.dim}, n_heads = {self.n_heads})"
                )
        self.scheme = scheme
        self.causal = causal
        self.qkv = nn.Linear(self.dim, 3 * self.dim)
        self.out = nn.Linear(self.dim, self.dim)

    def forward(
        self,
        x: Tensor,
        offset: int = 0,
        *,
        positions: Tensor | None = None,
        return_weights: bool = False,
    ):
        """``x`` (batch, length, dim) → (batch, length, dim) [, weights (batch, heads, L, L)]."""
        check_module_input(x, "x", (3,), self.dim)
        batch, length, _ = x.shape
        shape = (batch, length, 3, self.n_heads, self.head_dim)
        q, k, v = self.qkv(x).view(shape).permute(2, 0, 3, 1, 4)
        q, k = self.scheme.rotate(q, k, offset, positions=positions, seq_axis=2)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
        bias = self.scheme.bias(
            length,
            length,
            offset,
            positions=positions,
            causal=self.causal,
            device=x.device,
            dtype=x.dtype,
        )
        if bias is not None:
            scores = scores + bias
        if self.causal:
            future = torch.ones(length, length, dtype=torch.bool, device=x.device)
            scores = scores.masked_fill(future.triu(1), float("-inf"))
        weights = scores.softmax(dim=-1)
        y = (weights @ v).transpose(1, 2).reshape(batch, length, self.dim)
        y = self.out(y)
        return (y, weights) if return_weights else y


class Block(nn.Module):
    """Pre-norm transformer block: ``x + attn(LN(x))`` then ``x + mlp(LN(x))``."""

    def __init__(
        self,
        dim: int,
        n_heads: int,
        scheme: PositionScheme,
        *,
        causal: bool,
        mlp_ratio: int,
    ):
        super().__init__()
        self.attn = SelfAttention(dim, n_heads, scheme, causal=causal)
        self.norm1 = nn.LayerNorm(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(
            nn.Linear(dim, mlp_ratio * dim), nn.GELU(), nn.Linear(mlp_ratio * dim, dim)
        )

    def forward(
        self, x: Tensor, offset: int = 0, *, positions: Tensor | None = None
    ) -> Tensor:
        x = x + self.attn(self.norm1(x), offset, positions=positions)
        return x + self.mlp(self.norm2(x))


class TinyTransformer(nn.Module):
    """A small pre-norm transformer over tokens, with any position scheme.

    ``tokens`` (batch, length) of ints in ``[0, vocab_size)`` → logits (batch, length, vocab_size).
    The scheme's :meth:`~posenc_lib.nn.PositionScheme.embed` acts on the token embeddings;
    its :meth:`~posenc_lib.nn.PositionScheme.rotate` and
    :meth:`~posenc_lib.nn.PositionScheme.bias` act in every layer (one scheme instance is shared
    by all layers).

    Parameters
    ----------
    vocab_size, dim, n_heads, n_layers
        Sizes; ``dim`` even and divisible by ``n_heads``.
    scheme
        A name in :data:`~posenc_lib.nn.SCHEMES` or a :class:`~posenc_lib.nn.PositionScheme`
        instance.
    causal
        Mask keys after the query (decoder) or not (encoder).
    max_len
        Rows of a learned table (required for ``"learned"``); initial cache for the others.
    base
        Base of ``"sinusoidal"`` and ``"rotary"``.
    mlp_ratio
        Hidden width of the MLP as a multiple of ``dim``.

    Notes
    -----
    :meth:`reset_parameters` re-initialises every layer and recomputes the position buffers: with
    ``to_empty`` it completes initialisation on the meta device (``with torch.device("meta"):
    model = TinyTransformer(...)``, then ``model.to_empty(device="cpu")`` and
    ``model.reset_parameters()``, then load a state dict).
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
        self.dim, self.n_heads = check_heads(dim, n_heads)
        self.n_layers = check_count(n_layers, "n_layers", 1)
        mlp_ratio = check_count(mlp_ratio, "mlp_ratio", 1)
        if isinstance(scheme, str):
            check_choice(scheme, "scheme", SCHEMES)
            scheme = make_scheme(
                scheme, dim=self.dim, n_heads=self.n_heads, max_len=max_len, base=base
            )
        elif not isinstance(scheme, PositionScheme):
            raise TypeError(
                f"scheme must be one of {', '.join(map(repr, SCHEMES))} or a PositionScheme, "
                f"got {scheme!r}"
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

    def reset_parameters(self) -> None:
        """Re-initialise every layer (PyTorch's defaults) and recompute the position buffers."""
        for module in self.modules():
            if module is not self and hasattr(module, "reset_parameters"):
                module.reset_parameters()

    def forward(
        self, tokens: Tensor, offset: int = 0, *, positions: Tensor | None = None
    ) -> Tensor:
        """Logits (batch, length, vocab_size) for tokens at positions ``offset … offset+L-1``.

        ``positions`` (shape (L,) or (batch, L)) gives each token's position instead.
        """
        # token ids: an integer tensor (batch, length) of values in 0 … vocab_size - 1
        ints = (torch.int64, torch.int32)
        if not isinstance(tokens, torch.Tensor) or tokens.dtype not in ints:
            raise TypeError(
                f"tokens must be an int64 or int32 torch.Tensor, got {tokens!r:.60}"
            )
        if tokens.ndim != 2:
            raise ValueError(
                f"tokens must have 2 axes (batch, length), got shape {tuple(tokens.shape)}"
            )
        vocab = f"vocab_size = {self.vocab_size}"
        check_index_tensor(tokens, "tokens", self.vocab_size, vocab)
        x = self.scheme.embed(self.token_embedding(tokens), offset, positions=positions)
        for block in self.blocks:
            x = block(x, offset, positions=positions)
        return self.head(self.norm(x))

    def extra_repr(self) -> str:
        return f"scheme={self.scheme.name!r}, causal={self.causal}"
