r"""Small attention functions of two token vectors, to differentiate with :mod:`.hessian`.

Each builds a scalar function :math:`f(x_m, x_n)` (or a scalar model of a sequence) from real
attention weights:

* :func:`attention_logit`: the bilinear logit :math:`x_m^\top W_q W_k^\top x_n/\sqrt{d_k}`;
* :func:`layer_norm_head_logit`: one head's logit behind a LayerNorm, the form shared by
  :func:`block_logit` (a pre-norm block of :class:`.transformer.TinyTransformer`) and
  :func:`first_layer_logit` (the first layer of the shipped pretrained model);
* :class:`PooledScalarModel` and :func:`two_token_function`: any sequence layer made scalar, as a
  function of two of its tokens.

Chapter 3 differentiates them; chapter 7 measures their cross-Hessians.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor, nn

from .._validation import check_index, check_instance
from ._checks import check_callable, check_tensor
from .hessian import PairFunction
from .pretrained import BertEmbeddings

__all__ = [
    "PooledScalarModel",
    "attention_logit",
    "block_logit",
    "first_layer_logit",
    "layer_norm_head_logit",
    "two_token_function",
]


def attention_logit(x_m: Tensor, x_n: Tensor, w_q: Tensor, w_k: Tensor) -> Tensor:
    r"""The attention logit of query token :math:`x_m` on key token :math:`x_n`.

    .. math:: s(x_m, x_n) = \frac{(x_m W_q)\cdot(x_n W_k)}{\sqrt{d_k}}
              = x_m^\top \frac{W_q W_k^\top}{\sqrt{d_k}} x_n ,

    bilinear, so its second-order expansion is exact and its cross-Hessian is
    :math:`W_q W_k^\top/\sqrt{d_k}` everywhere.

    Parameters
    ----------
    x_m, x_n : torch.Tensor
        1-D floating tensors of lengths :math:`d_m` and :math:`d_n`.
    w_q, w_k : torch.Tensor
        ``(d_m, d_k)`` and ``(d_n, d_k)`` (row-vector convention, :math:`x W`).

    Returns
    -------
    torch.Tensor
        The 0-dim logit.

    Examples
    --------
    >>> import torch
    >>> from posenc_lib.course.attention import attention_logit
    >>> w = torch.eye(4, dtype=torch.float64)
    >>> x = torch.ones(4, dtype=torch.float64)
    >>> attention_logit(x, 2 * x, w, w)
    tensor(4., dtype=torch.float64)
    """
    x_m = check_tensor(x_m, "x_m", shape=(None,))
    x_n = check_tensor(x_n, "x_n", shape=(None,))
    w_q = check_tensor(w_q, "w_q", shape=(x_m.numel(), None))
    w_k = check_tensor(w_k, "w_k", shape=(x_n.numel(), w_q.shape[1]))
    return (x_m @ w_q) @ (x_n @ w_k) / math.sqrt(w_q.shape[1])


class PooledScalarModel(nn.Module):
    r"""A sequence model made scalar by mean pooling and a fixed linear readout.

    .. math:: F(X) = r^\top \frac{1}{L}\sum_{k=1}^{L} Y_k, \qquad Y = \text{layer}(X),

    for ``tokens`` :math:`X` of shape ``(L, d)``. Mean pooling is symmetric in the positions, so
    :math:`F` is a fully symmetric function of its tokens whenever the layer is
    permutation-equivariant (attention without a mask, plus position-wise parts).

    Parameters
    ----------
    layer : torch.nn.Module
        An ``nn.MultiheadAttention`` (self-attention: query = key = value), an
        ``nn.TransformerEncoderLayer``, or any module mapping ``(L, d)`` to ``(L, d_out)``.
    readout : torch.Tensor
        The vector :math:`r` of length ``d_out`` (a buffer: not trained).
    causal : bool
        Apply a causal mask (``nn.MultiheadAttention`` and ``nn.TransformerEncoderLayer`` only).

    Examples
    --------
    >>> import torch
    >>> from posenc_lib.course.attention import PooledScalarModel
    >>> model = PooledScalarModel(torch.nn.Identity(), torch.ones(3, dtype=torch.float64))
    >>> model(torch.arange(6, dtype=torch.float64).reshape(2, 3))
    tensor(7.5000, dtype=torch.float64)
    """

    def __init__(
        self, layer: nn.Module, readout: Tensor, *, causal: bool = False
    ) -> None:
        super().__init__()
        readout = check_tensor(readout, "readout", shape=(None,))
        if causal:
            check_instance(
                layer,
                "layer",
                (nn.MultiheadAttention, nn.TransformerEncoderLayer),
                "an nn.MultiheadAttention or nn.TransformerEncoderLayer when causal=True",
            )
        self.layer = layer
        self.causal = causal
        self.register_buffer("readout", readout.detach().clone())

    def forward(self, tokens: Tensor) -> Tensor:
        """:math:`F(X)` as a 0-dim tensor, for ``tokens`` of shape ``(L, d)``."""
        tokens = check_tensor(tokens, "tokens", shape=(None, None))
        mask = None
        if self.causal:
            length = tokens.shape[0]
            mask = torch.full((length, length), float("-inf"), dtype=tokens.dtype).triu(
                1
            )
        if isinstance(self.layer, nn.MultiheadAttention):
            out = self.layer(
                tokens, tokens, tokens, need_weights=False, attn_mask=mask
            )[0]
        elif isinstance(self.layer, nn.TransformerEncoderLayer):
            out = self.layer(tokens, src_mask=mask)
        else:
            out = self.layer(tokens)
        if out.ndim != 2 or out.shape[-1] != self.readout.numel():
            raise ValueError(
                f"layer must map (L, d) to (L, {self.readout.numel()}) (the readout's length), "
                f"but it returned shape {tuple(out.shape)}"
            )
        return out.mean(dim=0) @ self.readout.to(out.dtype)


def two_token_function(
    model: Callable[[Tensor], Tensor], tokens: Tensor, m: int, n: int
) -> PairFunction:
    r"""The function :math:`f(x_m, x_n) = F(x_0, \dots, x_m, \dots, x_n, \dots, x_{L-1})`.

    The other rows of ``tokens`` are held fixed (copied now).

    Parameters
    ----------
    model : callable
        Maps an ``(L, d)`` tensor to a scalar, e.g. a :class:`PooledScalarModel`.
    tokens : torch.Tensor
        The ``(L, d)`` sequence at which the function is taken.
    m, n : int
        Two different positions in ``0 … L-1``.

    Returns
    -------
    callable
        ``f(x_m, x_n)``, which puts ``x_m`` and ``x_n`` in rows ``m`` and ``n`` and applies
        ``model``.

    Examples
    --------
    >>> import torch
    >>> from posenc_lib.course.attention import two_token_function
    >>> tokens = torch.zeros(3, 2, dtype=torch.float64)
    >>> f = two_token_function(lambda x: x[0] @ x[2], tokens, 0, 2)
    >>> f(torch.ones(2, dtype=torch.float64), torch.full((2,), 3.0, dtype=torch.float64))
    tensor(6., dtype=torch.float64)
    """
    check_callable(model, "model", "a callable on an (L, d) tensor returning a scalar")
    tokens = check_tensor(tokens, "tokens", shape=(None, None))
    length = tokens.shape[0]
    m, n = check_index(m, "m", length), check_index(n, "n", length)
    if m == n:
        raise ValueError(f"n must be a position other than m = {m}, got n = {n}")
    fixed = tokens.detach().clone()
    rows = torch.arange(length)

    def f(x_m: Tensor, x_n: Tensor) -> Tensor:
        pick_m = (rows == m).to(fixed.dtype)[:, None]
        pick_n = (rows == n).to(fixed.dtype)[:, None]
        keep = 1.0 - pick_m - pick_n
        return model(fixed * keep + pick_m * x_m[None, :] + pick_n * x_n[None, :])

    return f


def layer_norm_head_logit(
    w_q: Tensor,
    b_q: Tensor,
    w_k: Tensor,
    b_k: Tensor,
    ln_weight: Tensor,
    ln_bias: Tensor,
    eps: float,
) -> PairFunction:
    r"""The pre-softmax logit of one head behind a LayerNorm, as a function of two inputs.

    .. math::
        s(x_m, x_n) = \frac{\big(W_q \operatorname{LN}(x_m) + b_q\big)\cdot
        \big(W_k \operatorname{LN}(x_n) + b_k\big)}{\sqrt{d_h}}, \qquad
        \operatorname{LN}(x) = \gamma \odot \frac{x - \bar x}{\sqrt{\operatorname{var} x
        + \epsilon}} + \beta .

    Parameters
    ----------
    w_q, w_k : torch.Tensor
        The head's ``(d_h, d)`` rows of the query and key projections (PyTorch layout
        ``y = W x + b``).
    b_q, b_k : torch.Tensor
        Their ``(d_h,)`` biases.
    ln_weight, ln_bias : torch.Tensor
        :math:`\gamma` and :math:`\beta`, ``(d,)``.
    eps : float
        The LayerNorm's :math:`\epsilon`, in :math:`(0, 1)`.

    Returns
    -------
    callable
        ``f(x_m, x_n)`` returning the 0-dim logit. The tensors are used as given (copy them
        first if they may change).

    Examples
    --------
    >>> import torch
    >>> from posenc_lib.course.attention import layer_norm_head_logit
    >>> eye, zero, one = (torch.eye(2, dtype=torch.float64), torch.zeros(2, dtype=torch.float64),
    ...                   torch.ones(2, dtype=torch.float64))
    >>> f = layer_norm_head_logit(eye, zero, eye, zero, one, zero, 1e-12)
    >>> round(float(f(torch.tensor([0.0, 5.0], dtype=torch.float64), torch.tensor([3.0, 1.0],
    ...       dtype=torch.float64))), 6)  # LN gives (-1, 1) and (1, -1): (-1 - 1)/sqrt(2)
    -1.414214
    """
    w_q = check_tensor(w_q, "w_q", shape=(None, None))
    width, d = w_q.shape
    w_k = check_tensor(w_k, "w_k", shape=(width, d))
    b_q = check_tensor(b_q, "b_q", shape=(width,))
    b_k = check_tensor(b_k, "b_k", shape=(width,))
    gamma = check_tensor(ln_weight, "ln_weight", shape=(d,))
    beta = check_tensor(ln_bias, "ln_bias", shape=(d,))
    scale = 1.0 / math.sqrt(width)

    def f(x_m: Tensor, x_n: Tensor) -> Tensor:
        y_m = torch.nn.functional.layer_norm(x_m, (d,), gamma, beta, eps)
        y_n = torch.nn.functional.layer_norm(x_n, (d,), gamma, beta, eps)
        return (w_q @ y_m + b_q) @ (w_k @ y_n + b_k) * scale

    return f


def block_logit(model: nn.Module, head: int, *, layer: int = 0) -> PairFunction:
    r"""The pre-softmax attention logit of one head of a :class:`.transformer.TinyTransformer`.

    As a function of the block's inputs at the query and key positions (the residual stream
    before the block's first LayerNorm) it is :func:`layer_norm_head_logit` with the block's
    ``norm1`` and the head's rows of the fused ``qkv`` projection:

    .. math::
        s(x_m, x_n) = \frac{\big(W_q \operatorname{LN}(x_m) + b_q\big)_h \cdot
        \big(W_k \operatorname{LN}(x_n) + b_k\big)_h}{\sqrt{d_h}} .

    Only for schemes whose :meth:`~posenc_lib.nn.PositionScheme.rotate` is the identity (none,
    learned, sinusoidal); the additive bias of ALiBi and the causal mask are not part of the
    logit.

    Parameters
    ----------
    model : posenc_lib.course.transformer.TinyTransformer
        The model; its weights are copied (later training does not change the result).
    head : int
        The head, in ``0 … n_heads - 1``.
    layer : int
        The block, in ``0 … n_layers - 1``.

    Returns
    -------
    callable
        ``f(x_m, x_n)`` on float64 tensors of length ``dim``.

    Examples
    --------
    >>> import torch
    >>> from posenc_lib.course.attention import block_logit
    >>> from posenc_lib.course.hessian import cross_hessian
    >>> from posenc_lib.course.transformer import TinyTransformer
    >>> _ = torch.manual_seed(0)
    >>> model = TinyTransformer(8, 4, 2, 1, "sinusoidal")
    >>> x = torch.randn(4, dtype=torch.float64)
    >>> tuple(cross_hessian(block_logit(model, head=1), x, x).shape)
    (4, 4)
    """
    from .transformer import TinyTransformer

    check_instance(model, "model", TinyTransformer, "a TinyTransformer")
    if model.scheme.name == "rotary":
        raise ValueError(
            "model must have a position scheme that does not rotate q and k (none, learned, "
            "sinusoidal, alibi), got a rotary model"
        )
    layer = check_index(layer, "layer", len(model.blocks))
    block = model.blocks[layer]
    attn = block.attn
    head = check_index(head, "head", attn.n_heads)
    d, width = attn.dim, attn.head_dim
    rows = slice(head * width, (head + 1) * width)
    weight = attn.qkv.weight.detach().double().clone()
    bias = attn.qkv.bias.detach().double().clone()
    gamma = block.norm1.weight.detach().double().clone()
    beta = block.norm1.bias.detach().double().clone()
    return layer_norm_head_logit(
        weight[:d][rows],
        bias[:d][rows],
        weight[d : 2 * d][rows],
        bias[d : 2 * d][rows],
        gamma,
        beta,
        float(block.norm1.eps),
    )


def first_layer_logit(data: BertEmbeddings, head: int) -> PairFunction:
    r"""The real first-layer attention logit of one head of the shipped pretrained model.

    BERT normalizes the embedding sum :math:`x = w + p + t` with a LayerNorm and then computes,
    for head :math:`h` of width :math:`d_h = d/\text{heads}`,

    .. math::
        s(x_m, x_n) = \frac{\big(W_q \operatorname{LN}(x_m) + b_q\big)_h \cdot
        \big(W_k \operatorname{LN}(x_n) + b_k\big)_h}{\sqrt{d_h}} :

    :func:`layer_norm_head_logit` with the checkpoint's weights.

    Parameters
    ----------
    data : posenc_lib.course.pretrained.BertEmbeddings
        From :func:`posenc_lib.course.pretrained.load_minilm`.
    head : int
        The head, in ``0 … heads - 1``.

    Returns
    -------
    callable
        ``f(x_m, x_n)`` on float64 tensors of length :math:`d` (a 0-dim logit).

    Examples
    --------
    >>> import torch
    >>> from posenc_lib.course.attention import first_layer_logit
    >>> from posenc_lib.course.pretrained import load_minilm
    >>> data = load_minilm()
    >>> f = first_layer_logit(data, head=0)
    >>> x = torch.from_numpy(data.position_embeddings[:2])
    >>> f(x[0], x[1]).shape
    torch.Size([])
    """
    heads = data.num_heads
    head = check_index(head, "head", heads)
    width = data.dim // heads
    rows = slice(head * width, (head + 1) * width)

    def tensor(a: np.ndarray) -> Tensor:
        return torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64))

    eps = data.meta.get("layer_norm_eps") or 1e-12  # BERT's default when not recorded
    return layer_norm_head_logit(
        tensor(data.query_weight[rows]),
        tensor(data.query_bias[rows]),
        tensor(data.key_weight[rows]),
        tensor(data.key_bias[rows]),
        tensor(data.embedding_ln_weight),
        tensor(data.embedding_ln_bias),
        float(eps),
    )
