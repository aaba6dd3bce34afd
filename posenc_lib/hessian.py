r"""Cross-Hessians of attention models with torch autograd, and the second-order Taylor expansion.

For a scalar function :math:`f(x_m, x_n)` of two token vectors (all other tokens held fixed),
the expansion of chapter 3 is

.. math::
    f(x_m + p_m, x_n + p_n) = f + p_m^\top g_m + p_n^\top g_n
    + \tfrac12 p_m^\top H_{mm} p_m + \tfrac12 p_n^\top H_{nn} p_n + p_m^\top H p_n + O(\|p\|^3),

with :math:`g_m = \partial f/\partial x_m` and the cross-Hessian
:math:`H = H_{mn} = \partial^2 f/\partial x_m\,\partial x_n` (all at :math:`(x_m, x_n)`).
This module computes those pieces with autograd (:func:`cross_hessian`,
:func:`hessian_blocks`, :func:`taylor_terms`), measures how good the expansion is
(:func:`taylor_remainder`, :func:`mixed_difference`, :func:`loglog_slope`), and provides small
real attention functions to apply them to (:func:`softmax_attention`, :func:`attention_logit`,
:func:`layer_norm_head_logit`, :func:`block_logit`, :class:`PooledScalarModel`,
:func:`two_token_function`).

Use float64 for derivative checks: float32 round-off (about :math:`10^{-7}`) hides a third-order
remainder below :math:`\varepsilon \approx 10^{-2}`.

PyTorch's fused CPU attention kernels have no second derivative; every function here that
differentiates twice runs the model under the "math" backend of
``torch.nn.functional.scaled_dot_product_attention`` (:func:`math_attention_backend`).
"""

from __future__ import annotations

import contextlib
import math
import numbers
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import torch
from numpy.typing import ArrayLike
from torch import Tensor, nn

from ._validation import check_count

__all__ = [
    "HessianBlocks",
    "PooledScalarModel",
    "TaylorTerms",
    "attention_logit",
    "block_logit",
    "cross_hessian",
    "hessian_blocks",
    "layer_norm_head_logit",
    "loglog_slope",
    "math_attention_backend",
    "mixed_difference",
    "softmax_attention",
    "taylor_remainder",
    "taylor_terms",
    "two_token_function",
]

#: A scalar function of two token vectors, ``f(x_m, x_n) -> 0-dim tensor``.
PairFunction = Callable[[Tensor, Tensor], Tensor]


# --------------------------------------------------------------------------------------------
# argument checks
# --------------------------------------------------------------------------------------------


def _check_vector(value: object, name: str) -> Tensor:
    """A 1-D, non-empty, finite floating-point tensor, else raise naming ``name``."""
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{name} must be a 1-D floating-point torch.Tensor, got {type(value).__name__}"
        )
    if not value.is_floating_point():
        raise TypeError(
            f"{name} must have a floating dtype such as torch.float64, got {value.dtype}"
        )
    if value.ndim != 1 or value.numel() == 0:
        raise ValueError(f"{name} must be a non-empty 1-D tensor, got shape {tuple(value.shape)}")
    if not bool(torch.isfinite(value).all()):
        raise ValueError(f"{name} must be finite: found NaN or infinity")
    return value


def _check_pair(x_m: object, x_n: object) -> tuple[Tensor, Tensor]:
    x_m, x_n = _check_vector(x_m, "x_m"), _check_vector(x_n, "x_n")
    if x_m.dtype != x_n.dtype:
        raise TypeError(f"x_m and x_n must have the same dtype, got {x_m.dtype} and {x_n.dtype}")
    return x_m, x_n


def _check_directions(x_m: Tensor, x_n: Tensor, p_m: object, p_n: object) -> tuple[Tensor, Tensor]:
    p_m, p_n = _check_vector(p_m, "p_m"), _check_vector(p_n, "p_n")
    for p, x, name in ((p_m, x_m, "p_m"), (p_n, x_n, "p_n")):
        if p.shape != x.shape:
            raise ValueError(
                f"{name} must have the shape of x_{name[-1]}, {tuple(x.shape)}; "
                f"got {tuple(p.shape)}"
            )
        if p.dtype != x.dtype:
            raise TypeError(f"{name} must have the dtype of x_{name[-1]}, {x.dtype}; got {p.dtype}")
    return p_m, p_n


def _check_function(f: object) -> PairFunction:
    if not callable(f):
        raise TypeError(f"f must be a callable f(x_m, x_n) returning a scalar tensor, got {f!r}")
    return f  # type: ignore[return-value]


def _scalar(value: object) -> Tensor:
    """The single element of ``value`` as a 0-dim tensor, else raise."""
    if not isinstance(value, Tensor):
        raise TypeError(f"f must return a torch.Tensor, got {type(value).__name__}")
    if value.numel() != 1:
        raise ValueError(f"f must return a scalar (one element), got shape {tuple(value.shape)}")
    return value.reshape(())


@contextlib.contextmanager
def math_attention_backend() -> Iterator[None]:
    """Run ``scaled_dot_product_attention`` with its plain "math" kernel (twice differentiable).

    The fused CPU kernel that ``nn.MultiheadAttention`` and ``nn.TransformerEncoderLayer`` use by
    default implements no double backward, so Hessians through them fail without this.
    """
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:  # pragma: no cover - torch < 2.3 has no selector; its default is fine
        yield
        return
    with sdpa_kernel(SDPBackend.MATH):
        yield


def _leaf(x: Tensor) -> Tensor:
    return x.detach().clone().requires_grad_(True)


def _grad(output: Tensor, inputs: tuple[Tensor, ...], create_graph: bool) -> tuple[Tensor, ...]:
    """Gradients of a scalar; zeros where ``output`` does not depend on an input."""
    if not output.requires_grad:
        return tuple(torch.zeros_like(x) for x in inputs)
    grads = torch.autograd.grad(
        output, inputs, create_graph=create_graph, retain_graph=True, allow_unused=True
    )
    return tuple(
        torch.zeros_like(x) if g is None else g for g, x in zip(grads, inputs, strict=True)
    )


# --------------------------------------------------------------------------------------------
# derivatives
# --------------------------------------------------------------------------------------------


def cross_hessian(f: PairFunction, x_m: Tensor, x_n: Tensor) -> Tensor:
    r"""The cross-Hessian :math:`H_{ab} = \partial^2 f/\partial x_{m,a}\partial x_{n,b}`.

    Evaluated at the point :math:`(x_m, x_n)`.

    Parameters
    ----------
    f
        ``f(x_m, x_n)`` returning a one-element tensor; twice differentiable in both arguments.
    x_m, x_n
        1-D floating tensors of lengths :math:`d_m, d_n` (same dtype); they are not modified.

    Returns
    -------
    Tensor of shape ``(d_m, d_n)`` (detached), row :math:`a` being
    :math:`\partial g_{m,a}/\partial x_n` with :math:`g_m = \partial f/\partial x_m`.
    """
    f = _check_function(f)
    x_m, x_n = _check_pair(x_m, x_n)
    a, b = _leaf(x_m), _leaf(x_n)
    with math_attention_backend():
        value = _scalar(f(a, b))
        (g_m,) = _grad(value, (a,), create_graph=True)
        rows = [_grad(g_m[i], (b,), create_graph=False)[0] for i in range(a.numel())]
    return torch.stack(rows).detach()


@dataclass(frozen=True)
class HessianBlocks:
    r"""Value, gradients and all Hessian blocks of :math:`f(x_m, x_n)` at one point.

    ``hessian_mn`` is :math:`H = \partial^2 f/\partial x_m\partial x_n`; the block
    :math:`\partial^2 f/\partial x_n\partial x_m` is its transpose (:attr:`hessian_nm`).
    """

    value: Tensor
    gradient_m: Tensor
    gradient_n: Tensor
    hessian_mm: Tensor
    hessian_mn: Tensor
    hessian_nn: Tensor

    @property
    def hessian_nm(self) -> Tensor:
        """:math:`\\partial^2 f/\\partial x_n\\partial x_m = H^\\top`."""
        return self.hessian_mn.T

    @property
    def full(self) -> Tensor:
        """The whole Hessian with respect to the stacked vector :math:`(x_m, x_n)`."""
        top = torch.cat([self.hessian_mm, self.hessian_mn], dim=1)
        bottom = torch.cat([self.hessian_nm, self.hessian_nn], dim=1)
        return torch.cat([top, bottom], dim=0)


def hessian_blocks(f: PairFunction, x_m: Tensor, x_n: Tensor) -> HessianBlocks:
    """Value, gradients :math:`g_m, g_n` and Hessian blocks :math:`H_{mm}, H_{mn}, H_{nn}` of ``f``.

    One backward pass per coordinate of :math:`(x_m, x_n)`; see :func:`cross_hessian` for the
    arguments.
    """
    f = _check_function(f)
    x_m, x_n = _check_pair(x_m, x_n)
    a, b = _leaf(x_m), _leaf(x_n)
    with math_attention_backend():
        value = _scalar(f(a, b))
        g_m, g_n = _grad(value, (a, b), create_graph=True)
        rows_m = [_grad(g_m[i], (a, b), create_graph=False) for i in range(a.numel())]
        rows_n = [_grad(g_n[j], (b,), create_graph=False)[0] for j in range(b.numel())]
    return HessianBlocks(
        value=value.detach(),
        gradient_m=g_m.detach(),
        gradient_n=g_n.detach(),
        hessian_mm=torch.stack([r[0] for r in rows_m]).detach(),
        hessian_mn=torch.stack([r[1] for r in rows_m]).detach(),
        hessian_nn=torch.stack(rows_n).detach(),
    )


# --------------------------------------------------------------------------------------------
# the Taylor expansion and its error
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaylorTerms:
    r"""The six terms of the second-order expansion, as floats.

    ``constant`` :math:`f`, ``first_m`` :math:`p_m^\top g_m`, ``first_n`` :math:`p_n^\top g_n`,
    ``second_m`` :math:`\frac12 p_m^\top H_{mm} p_m`, ``second_n``
    :math:`\frac12 p_n^\top H_{nn} p_n`, ``cross`` :math:`p_m^\top H p_n`.
    """

    constant: float
    first_m: float
    first_n: float
    second_m: float
    second_n: float
    cross: float

    def at_scale(self, eps: float | np.ndarray) -> float | np.ndarray:
        r"""The expansion along :math:`\varepsilon p`.

        :math:`T_2(\varepsilon) = f + \varepsilon(p_m^\top g_m + p_n^\top g_n)
        + \varepsilon^2(\tfrac12 p_m^\top H_{mm} p_m + \tfrac12 p_n^\top H_{nn} p_n
        + p_m^\top H p_n)`.
        """
        first = self.first_m + self.first_n
        second = self.second_m + self.second_n + self.cross
        return self.constant + eps * first + eps**2 * second

    @property
    def approximation(self) -> float:
        """The second-order approximation of :math:`f(x_m + p_m, x_n + p_n)` (scale 1)."""
        return float(self.at_scale(1.0))


def taylor_terms(
    f: PairFunction, x_m: Tensor, x_n: Tensor, p_m: Tensor, p_n: Tensor
) -> TaylorTerms:
    r"""The six terms of the second-order expansion of :math:`f(x_m + p_m, x_n + p_n)`.

    Computed with two Hessian-vector products (no full Hessian): with
    :math:`v = (p_m, 0)`, :math:`\nabla^2 f\, v = (H_{mm}p_m, H^\top p_m)`, which gives
    :math:`p_m^\top H_{mm} p_m` and :math:`p_n^\top H^\top p_m = p_m^\top H p_n`; with
    :math:`v = (0, p_n)` it gives :math:`p_n^\top H_{nn} p_n`.
    """
    f = _check_function(f)
    x_m, x_n = _check_pair(x_m, x_n)
    p_m, p_n = _check_directions(x_m, x_n, p_m, p_n)
    a, b = _leaf(x_m), _leaf(x_n)
    with math_attention_backend():
        value = _scalar(f(a, b))
        g_m, g_n = _grad(value, (a, b), create_graph=True)
        hv_m = _grad((g_m * p_m).sum(), (a, b), create_graph=False)  # H (p_m, 0)
        hv_n = _grad((g_n * p_n).sum(), (b,), create_graph=False)  # H_nn p_n
    g_m, g_n = g_m.detach(), g_n.detach()
    return TaylorTerms(
        constant=float(value.detach()),
        first_m=float(g_m @ p_m),
        first_n=float(g_n @ p_n),
        second_m=0.5 * float(hv_m[0] @ p_m),
        second_n=0.5 * float(hv_n[0] @ p_n),
        cross=float(hv_m[1] @ p_n),
    )


def _check_scales(values: ArrayLike, name: str = "scales") -> np.ndarray:
    """A non-empty 1-D float64 array of finite reals, else raise naming ``name``."""
    array = np.asarray(values)
    if array.dtype == bool or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
    array = np.atleast_1d(array.astype(np.float64))
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite: found NaN or infinity")
    return array


def taylor_remainder(
    f: PairFunction, x_m: Tensor, x_n: Tensor, p_m: Tensor, p_n: Tensor, scales: ArrayLike
) -> np.ndarray:
    r"""The error :math:`|f(x + \varepsilon p) - T_2(\varepsilon)|` of the second-order expansion.

    :math:`T_2(\varepsilon)` is :meth:`TaylorTerms.at_scale`. For a function with continuous third
    derivatives the error is :math:`O(\varepsilon^3)` as :math:`\varepsilon \to 0`
    (Taylor's theorem); :func:`loglog_slope` of the result then approaches 3.

    Returns a float64 array with one error per scale.
    """
    eps = _check_scales(scales)
    terms = taylor_terms(f, x_m, x_n, p_m, p_n)
    exact = np.empty_like(eps)
    with torch.no_grad(), math_attention_backend():
        for i, e in enumerate(eps):
            exact[i] = float(_scalar(f(x_m + e * p_m, x_n + e * p_n)))
    return np.abs(exact - terms.at_scale(eps))


def mixed_difference(f: PairFunction, x_m: Tensor, x_n: Tensor, p_m: Tensor, p_n: Tensor) -> float:
    r"""The exact interaction of the two perturbations, the mixed difference

    .. math::
        \Delta_{mn} f = f(x_m+p_m, x_n+p_n) - f(x_m+p_m, x_n) - f(x_m, x_n+p_n) + f(x_m, x_n).

    It vanishes for every function that is a sum :math:`u(x_m) + v(x_n)`, so it holds exactly the
    part of :math:`f` that couples the two positions; its second-order approximation is the cross
    term :math:`p_m^\top H p_n`.
    """
    f = _check_function(f)
    x_m, x_n = _check_pair(x_m, x_n)
    p_m, p_n = _check_directions(x_m, x_n, p_m, p_n)
    with torch.no_grad(), math_attention_backend():
        both = _scalar(f(x_m + p_m, x_n + p_n))
        only_m = _scalar(f(x_m + p_m, x_n))
        only_n = _scalar(f(x_m, x_n + p_n))
        neither = _scalar(f(x_m, x_n))
    return float(both - only_m - only_n + neither)


def loglog_slope(scales: ArrayLike, errors: ArrayLike) -> float:
    r"""The least-squares slope of :math:`\log(\text{error})` against :math:`\log(\text{scale})`.

    An error :math:`C\varepsilon^q` gives slope :math:`q`. Both arrays must be positive, finite,
    1-D and of equal length >= 2.
    """
    x = _check_scales(scales, "scales")
    y = _check_scales(errors, "errors")
    if x.shape != y.shape:
        raise ValueError(f"scales and errors must have the same length, got {x.size} and {y.size}")
    if x.size < 2:
        raise ValueError("loglog_slope needs at least two points")
    if np.any(x <= 0):
        raise ValueError("scales must be positive to take logarithms")
    if np.any(y <= 0):
        raise ValueError("errors must be positive to take logarithms")
    slope, _intercept = np.polyfit(np.log(x), np.log(y), 1)
    return float(slope)


# --------------------------------------------------------------------------------------------
# small attention functions
# --------------------------------------------------------------------------------------------


def _check_matrix(value: object, name: str) -> Tensor:
    if not isinstance(value, Tensor) or not value.is_floating_point():
        raise TypeError(f"{name} must be a floating-point torch.Tensor, got {type(value).__name__}")
    if value.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got shape {tuple(value.shape)}")
    return value


def softmax_attention(
    tokens: Tensor, w_q: Tensor, w_k: Tensor, w_v: Tensor, *, causal: bool = False
) -> Tensor:
    r"""Single-head softmax attention with explicit weights, row-vector convention.

    .. math::
        \operatorname{Attn}(X) = \operatorname{softmax}\!\Big(\frac{X W_q (X W_k)^\top}{\sqrt{d_k}}
        + \text{mask}\Big)\, X W_v ,

    the softmax taken over each row. ``tokens`` :math:`X` is ``(L, d)``; ``w_q``, ``w_k`` are
    ``(d, d_k)``, ``w_v`` is ``(d, d_v)``. With ``causal=True`` position :math:`i` attends only to
    positions :math:`\le i` (mask :math:`-\infty` above the diagonal).
    """
    if not isinstance(tokens, Tensor) or not tokens.is_floating_point() or tokens.ndim != 2:
        raise TypeError("tokens must be a 2-D floating-point torch.Tensor of shape (L, d)")
    w_q, w_k, w_v = (_check_matrix(w, n) for w, n in ((w_q, "w_q"), (w_k, "w_k"), (w_v, "w_v")))
    d = tokens.shape[1]
    for w, name in ((w_q, "w_q"), (w_k, "w_k"), (w_v, "w_v")):
        if w.shape[0] != d:
            raise ValueError(f"{name} must have {d} rows (the token dimension), got {w.shape[0]}")
    if w_q.shape[1] != w_k.shape[1]:
        raise ValueError(
            f"w_q and w_k must have the same width d_k, got {w_q.shape[1]}, {w_k.shape[1]}"
        )
    if not isinstance(causal, bool):
        raise TypeError(f"causal must be True or False, got {causal!r}")
    scores = (tokens @ w_q) @ (tokens @ w_k).T / math.sqrt(w_q.shape[1])
    if causal:
        length = tokens.shape[0]
        above = torch.ones(length, length, dtype=torch.bool, device=tokens.device).triu(1)
        scores = scores.masked_fill(above, float("-inf"))
    return torch.softmax(scores, dim=-1) @ (tokens @ w_v)


def attention_logit(x_m: Tensor, x_n: Tensor, w_q: Tensor, w_k: Tensor) -> Tensor:
    r"""The attention logit of query token :math:`x_m` on key token :math:`x_n`.

    .. math:: s(x_m, x_n) = \frac{(x_m W_q)\cdot(x_n W_k)}{\sqrt{d_k}}
              = x_m^\top \frac{W_q W_k^\top}{\sqrt{d_k}} x_n ,

    bilinear, so its second-order expansion is exact and its cross-Hessian is
    :math:`W_q W_k^\top/\sqrt{d_k}` everywhere.
    """
    x_m, x_n = _check_pair(x_m, x_n)
    w_q, w_k = _check_matrix(w_q, "w_q"), _check_matrix(w_k, "w_k")
    if w_q.shape[0] != x_m.numel() or w_k.shape[0] != x_n.numel():
        raise ValueError("w_q must have len(x_m) rows and w_k len(x_n) rows")
    if w_q.shape[1] != w_k.shape[1]:
        raise ValueError(
            f"w_q and w_k must have the same width d_k, got {w_q.shape[1]}, {w_k.shape[1]}"
        )
    return (x_m @ w_q) @ (x_n @ w_k) / math.sqrt(w_q.shape[1])


class PooledScalarModel(nn.Module):
    r"""A sequence model made scalar by mean pooling and a fixed linear readout.

    .. math:: F(X) = r^\top \frac{1}{L}\sum_{k=1}^{L} Y_k, \qquad Y = \text{layer}(X),

    for ``tokens`` :math:`X` of shape ``(L, d)``. Mean pooling is symmetric in the positions, so
    :math:`F` is a fully symmetric function of its tokens whenever the layer is
    permutation-equivariant (attention without a mask, plus position-wise parts).

    Parameters
    ----------
    layer
        An ``nn.MultiheadAttention`` (self-attention: query = key = value), an
        ``nn.TransformerEncoderLayer``, or any module mapping ``(L, d)`` to ``(L, d_out)``.
    readout
        The vector :math:`r` of length ``d_out`` (a buffer: not trained).
    causal
        Apply a causal mask (``nn.MultiheadAttention`` and ``nn.TransformerEncoderLayer`` only).
    """

    def __init__(self, layer: nn.Module, readout: Tensor, *, causal: bool = False) -> None:
        super().__init__()
        if not isinstance(layer, nn.Module):
            raise TypeError(f"layer must be a torch.nn.Module, got {type(layer).__name__}")
        readout = _check_vector(readout, "readout")
        if not isinstance(causal, bool):
            raise TypeError(f"causal must be True or False, got {causal!r}")
        if causal and not isinstance(layer, (nn.MultiheadAttention, nn.TransformerEncoderLayer)):
            raise ValueError(
                "causal=True needs an nn.MultiheadAttention or nn.TransformerEncoderLayer layer"
            )
        self.layer = layer
        self.causal = causal
        self.register_buffer("readout", readout.detach().clone())

    def forward(self, tokens: Tensor) -> Tensor:
        """:math:`F(X)` as a 0-dim tensor, for ``tokens`` of shape ``(L, d)``."""
        if not isinstance(tokens, Tensor):
            raise TypeError(
                f"tokens must be a torch.Tensor of shape (L, d), got {type(tokens).__name__}"
            )
        if tokens.ndim != 2:
            raise ValueError(
                f"tokens must be a 2-D tensor of shape (L, d), got {tuple(tokens.shape)}"
            )
        mask = None
        if self.causal:
            length = tokens.shape[0]
            mask = torch.full((length, length), float("-inf"), dtype=tokens.dtype).triu(1)
        if isinstance(self.layer, nn.MultiheadAttention):
            out = self.layer(tokens, tokens, tokens, need_weights=False, attn_mask=mask)[0]
        elif isinstance(self.layer, nn.TransformerEncoderLayer):
            out = self.layer(tokens, src_mask=mask)
        else:
            out = self.layer(tokens)
        if out.ndim != 2 or out.shape[-1] != self.readout.numel():
            raise ValueError(
                f"the layer must return shape (L, {self.readout.numel()}), got {tuple(out.shape)}"
            )
        return out.mean(dim=0) @ self.readout


def two_token_function(
    model: Callable[[Tensor], Tensor], tokens: Tensor, m: int, n: int
) -> PairFunction:
    r"""The function :math:`f(x_m, x_n) = F(x_1, \dots, x_m, \dots, x_n, \dots, x_L)` of two tokens.

    The other rows of ``tokens`` are held fixed (copied now). ``model`` maps an ``(L, d)`` tensor
    to a scalar, e.g. a :class:`PooledScalarModel`.
    """
    if not callable(model):
        raise TypeError(f"model must be callable on an (L, d) tensor, got {type(model).__name__}")
    if not isinstance(tokens, Tensor) or not tokens.is_floating_point() or tokens.ndim != 2:
        raise TypeError("tokens must be a 2-D floating-point torch.Tensor of shape (L, d)")
    length = tokens.shape[0]
    for value, name in ((m, "m"), (n, "n")):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{name} must be an integer position, got {type(value).__name__}")
        if not 0 <= value < length:
            raise ValueError(f"{name} must be a position in 0..{length - 1}, got {value}")
    if m == n:
        raise ValueError(f"m and n must be two different positions, got m = n = {m}")
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
        + \epsilon}} + \beta ,

    the form shared by a pre-norm transformer block (:func:`block_logit`) and BERT's first layer
    behind its embedding LayerNorm (:func:`posenc_lib.pretrained.first_layer_logit`).
    ``w_q``, ``w_k`` are the head's ``(d_h, d)`` rows of the projections (PyTorch layout
    ``y = W x + b``), ``b_q``, ``b_k`` its ``(d_h,)`` biases, ``ln_weight`` :math:`\gamma` and
    ``ln_bias`` :math:`\beta` are ``(d,)``. The tensors are used as given (copy them first if
    they may change).
    """
    w_q, w_k = _check_matrix(w_q, "w_q"), _check_matrix(w_k, "w_k")
    b_q, b_k = _check_vector(b_q, "b_q"), _check_vector(b_k, "b_k")
    gamma, beta = _check_vector(ln_weight, "ln_weight"), _check_vector(ln_bias, "ln_bias")
    if w_q.shape != w_k.shape:
        raise ValueError(
            f"w_q and w_k must have the same shape (d_h, d), got {tuple(w_q.shape)} and "
            f"{tuple(w_k.shape)}"
        )
    width, d = w_q.shape
    for value, name, size in ((b_q, "b_q", width), (b_k, "b_k", width)):
        if value.numel() != size:
            raise ValueError(f"{name} must have length d_h = {size}, got {value.numel()}")
    for value, name in ((gamma, "ln_weight"), (beta, "ln_bias")):
        if value.numel() != d:
            raise ValueError(f"{name} must have length d = {d}, got {value.numel()}")
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or not 0 < eps < 1:
        raise ValueError(f"eps must be a real number in (0, 1), got {eps!r}")
    eps = float(eps)
    scale = 1.0 / math.sqrt(width)

    def f(x_m: Tensor, x_n: Tensor) -> Tensor:
        y_m = torch.nn.functional.layer_norm(x_m, (d,), gamma, beta, eps)
        y_n = torch.nn.functional.layer_norm(x_n, (d,), gamma, beta, eps)
        return (w_q @ y_m + b_q) @ (w_k @ y_n + b_k) * scale

    return f


def block_logit(model: nn.Module, head: int, layer: int = 0) -> PairFunction:
    r"""The pre-softmax attention logit of one head of a :class:`posenc_lib.nn.TinyTransformer`.

    As a function of the block's inputs at the query and key positions (the residual stream
    before the block's first LayerNorm) it is :func:`layer_norm_head_logit` with the block's
    ``norm1`` and the head's rows of the fused ``qkv`` projection:

    .. math::
        s(x_m, x_n) = \frac{\big(W_q \operatorname{LN}(x_m) + b_q\big)_h \cdot
        \big(W_k \operatorname{LN}(x_n) + b_k\big)_h}{\sqrt{d_h}} .

    Only for schemes whose :meth:`~posenc_lib.nn.PositionScheme.rotate` is the identity (none,
    learned, sinusoidal); the additive bias of ALiBi and the causal mask are not part of the
    logit. Returns ``f(x_m, x_n)`` on float64 tensors; the weights are copied (later training
    does not change ``f``).
    """
    from .nn import TinyTransformer

    if not isinstance(model, TinyTransformer):
        raise TypeError(
            f"model must be a posenc_lib.nn.TinyTransformer, got {type(model).__name__}"
        )
    if model.scheme.name == "rotary":
        raise ValueError(
            "block_logit does not apply to rotary models (q and k are rotated by position)"
        )
    layer, head = check_count(layer, "layer", 0), check_count(head, "head", 0)
    if layer >= len(model.blocks):
        raise ValueError(f"layer must be in 0..{len(model.blocks) - 1}, got {layer}")
    block = model.blocks[layer]
    attn = block.attn
    if head >= attn.n_heads:
        raise ValueError(f"head must be in 0..{attn.n_heads - 1}, got {head}")
    d, width = attn.dim, attn.head_dim
    rows = slice(head * width, (head + 1) * width)
    with torch.no_grad():
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
