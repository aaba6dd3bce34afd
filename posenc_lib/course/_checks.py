"""Plain argument checks of the course modules, in the library's message form.

"*name* must be *accepted*, got *given*": a learner who passes the wrong thing to a chapter's
helper learns which argument and what it takes. The library's own checks are in
:mod:`posenc_lib._validation` and :mod:`posenc_lib._torch_checks`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._torch_checks import (
    check_not_meta,
)
from .._validation import _message, describe

__all__ = [
    "check_callable",
    "check_rng",
    "check_tensor",
]


def check_callable(value: object, name: str, accepted: str) -> Callable[..., Any]:
    """``value`` if it is callable, else raise; ``accepted`` says what kind of callable."""
    if not callable(value):
        raise TypeError(_message(name, accepted, describe(value)))
    return value


def check_rng(rng: object) -> np.random.Generator:
    """``rng`` if it is a ``numpy.random.Generator``, else raise."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            _message(
                "rng",
                "a numpy.random.Generator (numpy.random.default_rng)",
                describe(rng),
            )
        )
    return rng


def _shape_text(shape: tuple[int | None, ...]) -> str:
    parts = ["*" if size is None else str(size) for size in shape]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def check_tensor(
    value: object,
    name: str,
    *,
    ndim: int | None = None,
    shape: tuple[int | None, ...] | None = None,
    dtype: Any = None,
    like: str | None = None,
    finite: bool = True,
) -> Any:
    """A non-empty floating-point ``torch.Tensor``, else raise.

    ``ndim``: number of axes; ``shape``: required sizes (``None`` for any size); ``dtype``:
    required dtype; ``like`` names the argument these requirements come from, for the message;
    ``finite``: refuse NaN and infinities. torch is imported here, so the check is only usable
    where torch is installed.
    """
    import torch

    if shape is not None:
        ndim = len(shape)
    accepted = "a non-empty floating-point torch.Tensor"
    if ndim is not None:
        accepted += f" with {ndim} ax{'i' if ndim == 1 else 'e'}s"
    if shape is not None:
        accepted += f" of shape {_shape_text(shape)}"
    if dtype is not None:
        accepted += f" of dtype {dtype}"
    if like is not None:
        accepted += f" (as {like})"
    if not isinstance(value, torch.Tensor) or not value.is_floating_point():
        given = (
            f"a tensor of dtype {value.dtype}"
            if isinstance(value, torch.Tensor)
            else None
        )
        raise TypeError(_message(name, accepted, given or describe(value)))
    if dtype is not None and value.dtype != dtype:
        raise TypeError(_message(name, accepted, f"a tensor of dtype {value.dtype}"))
    check_not_meta(value, name)
    bad_shape = value.numel() == 0 or (ndim is not None and value.ndim != ndim)
    if not bad_shape and shape is not None:
        bad_shape = any(
            want is not None and got != want
            for got, want in zip(value.shape, shape, strict=True)
        )
    if bad_shape:
        raise ValueError(
            _message(name, accepted, f"a tensor of shape {tuple(value.shape)}")
        )
    if finite and not bool(torch.isfinite(value).all()):
        raise ValueError(
            _message(name, "finite", "a tensor containing NaN or infinity")
        )
    return value
