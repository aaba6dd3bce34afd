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


def check_tensor(value: object, name: str, shape: tuple[int | None, ...]) -> Any:
    """A floating-point ``torch.Tensor`` of ``shape`` (``None``: any size on that axis), else
    raise. torch is imported here, so the check is only usable where torch is installed."""
    import torch

    if not isinstance(value, torch.Tensor) or not value.is_floating_point():
        raise TypeError(
            _message(name, "a floating-point torch.Tensor", describe(value))
        )
    sizes = zip(value.shape, shape, strict=False)
    if value.ndim != len(shape) or any(want not in (None, got) for got, want in sizes):
        text = ", ".join("*" if size is None else str(size) for size in shape)
        accepted = f"a tensor of shape ({text}{',' if len(shape) == 1 else ''})"
        raise ValueError(_message(name, accepted, f"shape {tuple(value.shape)}"))
    return value
