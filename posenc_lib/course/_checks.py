"""Plain argument checks of the course modules, in the library's message form.

"*name* must be *accepted*, got *given*": a learner who passes the wrong thing to a chapter's
helper learns which argument and what it takes. The library's own checks are in
:mod:`posenc_lib._validation` and :mod:`posenc_lib._torch_checks`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

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


def check_tensor(
    value: object,
    name: str,
    *,
    ndim: int | None = None,
    shape: tuple[int | None, ...] | None = None,
) -> Any:
    """A floating-point ``torch.Tensor`` with ``ndim`` axes, or of ``shape``, else raise.

    ``shape`` gives the required sizes (``None`` for any size). torch is imported here, so the
    check is only usable where torch is installed.
    """
    import torch

    if not isinstance(value, torch.Tensor) or not value.is_floating_point():
        raise TypeError(
            _message(name, "a floating-point torch.Tensor", describe(value))
        )
    if shape is not None:
        ndim = len(shape)
        if value.ndim == ndim and all(
            want in (None, got) for got, want in zip(value.shape, shape, strict=True)
        ):
            return value
        sizes = ", ".join("*" if size is None else str(size) for size in shape)
        accepted = f"a tensor of shape ({sizes}{',' if ndim == 1 else ''})"
    elif ndim is None or value.ndim == ndim:
        return value
    else:
        accepted = f"a tensor with {ndim} ax{'i' if ndim == 1 else 'e'}s"
    raise ValueError(_message(name, accepted, f"shape {tuple(value.shape)}"))
