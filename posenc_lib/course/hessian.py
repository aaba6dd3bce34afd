r"""Cross-Hessians and the second-order Taylor expansion, computed with torch autograd.

For a scalar function :math:`f(x_m, x_n)` of two token vectors (all other tokens held fixed),
the expansion of chapter 3 is

.. math::
    f(x_m + p_m, x_n + p_n) = f + p_m^\top g_m + p_n^\top g_n
    + \tfrac12 p_m^\top H_{mm} p_m + \tfrac12 p_n^\top H_{nn} p_n + p_m^\top H p_n + O(\|p\|^3),

with :math:`g_m = \partial f/\partial x_m` and the cross-Hessian
:math:`H = H_{mn} = \partial^2 f/\partial x_m\,\partial x_n` (all at :math:`(x_m, x_n)`).
This module computes those pieces (:func:`cross_hessian`, :func:`hessian_blocks`,
:func:`taylor_terms`) and measures how good the expansion is (:func:`taylor_remainder`,
:func:`mixed_difference`). Functions to apply them to are in :mod:`posenc_lib.course.attention`.

Use float64 for derivative checks: float32 round-off (about :math:`10^{-7}`) hides a third-order
remainder below :math:`\varepsilon \approx 10^{-2}`.

PyTorch's fused CPU attention kernels have no second derivative; every function here that
differentiates twice runs the model under the "math" backend of
``torch.nn.functional.scaled_dot_product_attention`` (:func:`math_attention_backend`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import torch
from numpy.typing import ArrayLike
from torch import Tensor

from .._validation import check_real_array, check_vector
from ._checks import check_callable, check_tensor

__all__ = [
    "HessianBlocks",
    "PairFunction",
    "TaylorTerms",
    "cross_hessian",
    "hessian_blocks",
    "math_attention_backend",
    "mixed_difference",
    "taylor_remainder",
    "taylor_terms",
]

#: A scalar function of two token vectors, ``f(x_m, x_n) -> 0-dim tensor``.
PairFunction = Callable[[Tensor, Tensor], Tensor]

_F_ACCEPTED = "a callable f(x_m, x_n) returning a one-element tensor"


def _point(f: object, x_m: object, x_n: object, *directions: object) -> tuple:
    """The checked ``f``, point ``(x_m, x_n)`` (1-D floating tensors) and ``directions``
    ``(p_m, p_n)`` if given (tensors of the shapes of ``x_m`` and ``x_n``)."""
    f = check_callable(f, "f", _F_ACCEPTED)
    x_m = check_tensor(x_m, "x_m", shape=(None,))
    x_n = check_tensor(x_n, "x_n", shape=(None,))
    checked = [
        check_tensor(p, name, shape=tuple(x.shape))
        for p, name, x in zip(directions, ("p_m", "p_n"), (x_m, x_n), strict=False)
    ]
    return (f, x_m, x_n, *checked)


def _scalar(value: object) -> Tensor:
    """The single element of ``f``'s result as a 0-dim tensor, else raise."""
    if not isinstance(value, Tensor) or value.numel() != 1:
        raise TypeError(f"f must be {_F_ACCEPTED}, but it returned {value!r:.60}")
    return value.reshape(())


@contextlib.contextmanager
def math_attention_backend() -> Iterator[None]:
    """Run ``scaled_dot_product_attention`` with its plain "math" kernel (twice differentiable).

    The fused CPU kernel that ``nn.MultiheadAttention`` and ``nn.TransformerEncoderLayer`` use by
    default implements no double backward, so Hessians through them fail without this.

    Returns
    -------
    typing.ContextManager
        A context manager; inside it, attention uses the math kernel.

    Examples
    --------
    >>> import torch
    >>> from posenc_lib.course.hessian import math_attention_backend
    >>> q = torch.ones(1, 2, 4, dtype=torch.float64)
    >>> with math_attention_backend():
    ...     out = torch.nn.functional.scaled_dot_product_attention(q, q, q)
    >>> tuple(out.shape)
    (1, 2, 4)
    """
    from torch.nn.attention import SDPBackend, sdpa_kernel

    with sdpa_kernel(SDPBackend.MATH):
        yield


def _leaf(x: Tensor) -> Tensor:
    return x.detach().clone().requires_grad_(True)


def _grad(
    output: Tensor, inputs: tuple[Tensor, ...], create_graph: bool
) -> tuple[Tensor, ...]:
    """Gradients of a scalar; zeros where ``output`` does not depend on an input."""
    if not output.requires_grad:
        return tuple(torch.zeros_like(x) for x in inputs)
    grads = torch.autograd.grad(
        output, inputs, create_graph=create_graph, retain_graph=True, allow_unused=True
    )
    return tuple(
        torch.zeros_like(x) if g is None else g
        for g, x in zip(grads, inputs, strict=True)
    )


def cross_hessian(f: PairFunction, x_m: Tensor, x_n: Tensor) -> Tensor:
    r"""The cross-Hessian :math:`H_{ab} = \partial^2 f/\partial x_{m,a}\partial x_{n,b}`.

    Evaluated at the point :math:`(x_m, x_n)`, one backward pass per coordinate of :math:`x_m`.

    Parameters
    ----------
    f : callable
        ``f(x_m, x_n)`` returning a one-element tensor; twice differentiable in both arguments.
    x_m, x_n : torch.Tensor
        1-D floating tensors of lengths :math:`d_m, d_n` (same dtype); they are not modified.

    Returns
    -------
    torch.Tensor
        Shape ``(d_m, d_n)`` (detached); row :math:`a` is :math:`\partial g_{m,a}/\partial x_n`
        with :math:`g_m = \partial f/\partial x_m`.

    Examples
    --------
    >>> import torch
    >>> from posenc_lib.course.hessian import cross_hessian
    >>> A = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)
    >>> x = torch.zeros(2, dtype=torch.float64)
    >>> cross_hessian(lambda a, b: a @ A @ b + (a * a).sum(), x, x)
    tensor([[1., 2.],
            [3., 4.]], dtype=torch.float64)
    """
    f, x_m, x_n = _point(f, x_m, x_n)
    a, b = _leaf(x_m), _leaf(x_n)
    with torch.enable_grad(), math_attention_backend():
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
        r""":math:`\partial^2 f/\partial x_n\partial x_m = H^\top`."""
        return self.hessian_mn.T

    @property
    def full(self) -> Tensor:
        """The whole Hessian with respect to the stacked vector :math:`(x_m, x_n)`."""
        top = torch.cat([self.hessian_mm, self.hessian_mn], dim=1)
        bottom = torch.cat([self.hessian_nm, self.hessian_nn], dim=1)
        return torch.cat([top, bottom], dim=0)


def hessian_blocks(f: PairFunction, x_m: Tensor, x_n: Tensor) -> HessianBlocks:
    r"""Value, gradients :math:`g_m, g_n` and Hessian blocks :math:`H_{mm}, H_{mn}, H_{nn}`.

    One backward pass per coordinate of :math:`(x_m, x_n)`.

    Parameters
    ----------
    f, x_m, x_n
        The function and the point, as in :func:`cross_hessian`.

    Returns
    -------
    HessianBlocks
        All pieces, detached.

    Examples
    --------
    >>> import torch
    >>> from posenc_lib.course.hessian import hessian_blocks
    >>> x = torch.tensor([1.0, 2.0], dtype=torch.float64)
    >>> blocks = hessian_blocks(lambda a, b: (a * b).sum() + (a**2).sum(), x, x)
    >>> blocks.hessian_mm
    tensor([[2., 0.],
            [0., 2.]], dtype=torch.float64)
    >>> blocks.gradient_n
    tensor([1., 2.], dtype=torch.float64)
    """
    f, x_m, x_n = _point(f, x_m, x_n)
    a, b = _leaf(x_m), _leaf(x_n)
    with torch.enable_grad(), math_attention_backend():
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
        scale = check_real_array(eps, "eps")
        first = self.first_m + self.first_n
        second = self.second_m + self.second_n + self.cross
        value = self.constant + scale * first + scale**2 * second
        return float(value) if scale.ndim == 0 else value

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

    Parameters
    ----------
    f, x_m, x_n
        As in :func:`cross_hessian`.
    p_m, p_n : torch.Tensor
        The perturbations, of the shapes and dtype of ``x_m`` and ``x_n``.

    Returns
    -------
    TaylorTerms
        The six terms.

    Examples
    --------
    >>> import torch
    >>> from posenc_lib.course.hessian import taylor_terms
    >>> x, p = torch.zeros(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64)
    >>> terms = taylor_terms(lambda a, b: (a * b).sum(), x, x, p, 2 * p)
    >>> terms.cross, terms.approximation
    (4.0, 4.0)
    """
    f, x_m, x_n, p_m, p_n = _point(f, x_m, x_n, p_m, p_n)
    a, b = _leaf(x_m), _leaf(x_n)
    with torch.enable_grad(), math_attention_backend():
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


def taylor_remainder(
    f: PairFunction,
    x_m: Tensor,
    x_n: Tensor,
    p_m: Tensor,
    p_n: Tensor,
    scales: ArrayLike,
) -> np.ndarray:
    r"""The error :math:`|f(x + \varepsilon p) - T_2(\varepsilon)|` of the second-order expansion.

    :math:`T_2(\varepsilon)` is :meth:`TaylorTerms.at_scale`. For a function with continuous
    third derivatives the error is :math:`O(\varepsilon^3)` as :math:`\varepsilon \to 0`
    (Taylor's theorem): the slope of :math:`\log` error against :math:`\log\varepsilon`,
    ``numpy.polyfit(np.log(scales), np.log(errors), 1)[0]``, then approaches 3.

    Parameters
    ----------
    f, x_m, x_n, p_m, p_n
        As in :func:`taylor_terms`.
    scales : array_like
        The scales :math:`\varepsilon`, a non-empty 1-D array of finite reals.

    Returns
    -------
    numpy.ndarray
        float64, one error per scale.

    Examples
    --------
    >>> import numpy as np
    >>> import torch
    >>> from posenc_lib.course.hessian import taylor_remainder
    >>> x, p = torch.zeros(1, dtype=torch.float64), torch.ones(1, dtype=torch.float64)
    >>> errors = taylor_remainder(lambda a, b: (a * b.exp()).sum(), x, x, p, p, [0.1, 0.01])
    >>> print(np.round(errors / np.array([0.1, 0.01]) ** 3, 2))
    [0.52 0.5 ]
    """
    eps = check_vector(scales, "scales")
    terms = taylor_terms(f, x_m, x_n, p_m, p_n)
    exact = np.empty_like(eps)
    with torch.no_grad(), math_attention_backend():
        for i, e in enumerate(eps):
            exact[i] = float(_scalar(f(x_m + e * p_m, x_n + e * p_n)))
    return np.abs(exact - terms.at_scale(eps))


def mixed_difference(
    f: PairFunction, x_m: Tensor, x_n: Tensor, p_m: Tensor, p_n: Tensor
) -> float:
    r"""The exact interaction of the two perturbations, the mixed difference.

    .. math::
        \Delta_{mn} f = f(x_m+p_m, x_n+p_n) - f(x_m+p_m, x_n) - f(x_m, x_n+p_n) + f(x_m, x_n).

    It vanishes for every function that is a sum :math:`u(x_m) + v(x_n)`, so it holds exactly the
    part of :math:`f` that couples the two positions; its second-order approximation is the cross
    term :math:`p_m^\top H p_n`.

    Parameters
    ----------
    f, x_m, x_n, p_m, p_n
        As in :func:`taylor_terms`.

    Returns
    -------
    float
        :math:`\Delta_{mn} f`.

    Examples
    --------
    >>> import torch
    >>> from posenc_lib.course.hessian import mixed_difference
    >>> x, p = torch.zeros(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64)
    >>> mixed_difference(lambda a, b: (a**2).sum() + (b**3).sum() + 3 * (a @ b), x, x, p, p)
    6.0
    """
    f, x_m, x_n, p_m, p_n = _point(f, x_m, x_n, p_m, p_n)
    with torch.no_grad(), math_attention_backend():
        both = _scalar(f(x_m + p_m, x_n + p_n))
        only_m = _scalar(f(x_m + p_m, x_n))
        only_n = _scalar(f(x_m, x_n + p_n))
        neither = _scalar(f(x_m, x_n))
    return float(both - only_m - only_n + neither)
