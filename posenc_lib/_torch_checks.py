"""The argument checks and limits of the torch modules (:mod:`posenc_lib.nn` and its kin).

Tensors, positions, offsets, torch dtypes and devices, cache sizes. torch is imported inside each
check, so that this module (and ``import posenc_lib``) does not import it; the messages have the
form of :mod:`posenc_lib._validation`'s.
"""

from __future__ import annotations

from typing import Any

from ._validation import (
    DEFAULT_MAX_BYTES,
    MAX_POSITION,
    _is_integer,
    _message,
    _mib,
    check_count,
)

__all__ = [
    "MAX_CACHE_BYTES",
    "MAX_MODEL_BYTES",
    "check_cache_size",
    "check_device",
    "check_index_tensor",
    "check_length",
    "check_module_input",
    "check_offset",
    "check_offset_positions",
    "check_position_tensor",
    "check_seq_axis",
    "check_torch_dtype",
]

#: Largest cache (bytes) of a torch module's table, and largest attention bias.
MAX_CACHE_BYTES = DEFAULT_MAX_BYTES


#: Largest parameter memory (bytes) of a torch module, checked before allocation.
MAX_MODEL_BYTES = DEFAULT_MAX_BYTES


def check_offset(offset: object) -> int:
    """``offset`` (the position of the first token) as an int in ``0 .. MAX_POSITION``."""
    return check_count(offset, "offset", 0, MAX_POSITION)


def check_length(value: object, name: str, minimum: int) -> int:
    """:func:`check_count`, but a traced shape (``torch.SymInt``, under export) passes as is."""
    import torch

    if isinstance(value, torch.SymInt):
        return value  # type: ignore[return-value]
    return check_count(value, name, minimum)


def check_module_input(
    x: object, name: str, ndim: tuple[int, ...] | None = None, last: int | None = None
) -> Any:
    """A floating tensor with ``ndim`` axes (any >= 2 if None) and last axis ``last``."""
    import torch

    if not isinstance(x, torch.Tensor):
        raise TypeError(_message(name, "a torch.Tensor", type(x).__name__))
    if not x.is_floating_point():
        accepted = "a floating-point tensor (float16, bfloat16, float32 or float64)"
        raise TypeError(_message(name, accepted, f"dtype {x.dtype}"))
    shape = f"shape {tuple(x.shape)}"
    if ndim is None and x.ndim < 2:
        raise ValueError(f"{name} must have at least 2 axes, got {shape}")
    if ndim is not None and x.ndim not in ndim:
        raise ValueError(
            f"{name} must have {' or '.join(map(str, ndim))} axes, got {shape}"
        )
    if last is not None and x.shape[-1] != last:
        raise ValueError(f"{name} must have last axis of size {last}, got {shape}")
    return x


def check_seq_axis(seq_axis: object, x: Any) -> int:
    """The sequence axis of ``x`` (0 for a 2-D ``x`` if None), any axis but the last, as >= 0."""
    if seq_axis is None:
        if x.ndim != 2:
            raise ValueError(
                f"x has shape {tuple(x.shape)}: pass seq_axis, the axis of the sequence "
                "(-2 for (batch, heads, length, head_dim), 1 for (batch, length, heads, "
                "head_dim)); the shape alone cannot tell"
            )
        return 0
    if not _is_integer(seq_axis):
        raise TypeError(_message("seq_axis", "an integer axis of x", repr(seq_axis)))
    if not -x.ndim <= seq_axis < x.ndim or seq_axis % x.ndim == x.ndim - 1:  # type: ignore[operator]
        accepted = f"an axis of x other than the last (-{x.ndim} … {x.ndim - 2})"
        given = f"{seq_axis} for x of shape {tuple(x.shape)}"
        raise ValueError(_message("seq_axis", accepted, given))
    return int(seq_axis) % x.ndim  # type: ignore[call-overload]


def check_position_tensor(
    positions: object, length: int, batch: int | None, *, integer: bool = False
) -> Any:
    """``positions`` of shape (length,) or (batch, length), real, finite, not requiring grad."""
    import torch

    kind = "integer" if integer else "real"
    if not isinstance(positions, torch.Tensor):
        accepted = (
            f"a torch.Tensor of {kind} positions, shape (length,) or (batch, length)"
        )
        raise TypeError(_message("positions", accepted, type(positions).__name__))
    wrong = positions.dtype == torch.bool or positions.is_complex()
    if wrong or (integer and positions.is_floating_point()):
        raise TypeError(
            f"positions must hold {'integers' if integer else 'real numbers'}, got dtype "
            f"{positions.dtype}"
        )
    if positions.is_meta:  # a shape without values to compute with
        accepted = "a tensor with values (cpu, cuda, ...)"
        raise ValueError(_message("positions", accepted, "a meta tensor"))
    if positions.requires_grad:
        raise ValueError(
            "positions must not require grad (positions are indices, not trainable values); "
            "pass positions.detach()"
        )
    # The sizes are compared with explicit == / != and formatted only once a test failed:
    # under torch.compile(dynamic=True) they are symbolic, and Dynamo evaluates a membership
    # test (`in (1, batch)`) on symbols formatted into strings wrongly (issue 23).
    two_d = positions.ndim == 2
    ok_shape = positions.ndim == 1 or (two_d and batch is not None)
    bad_rows = two_d and positions.shape[0] != 1 and positions.shape[0] != batch
    if not ok_shape or positions.shape[-1] != length or bad_rows:
        shape = f"({length},)" + ("" if batch is None else f" or ({batch}, {length})")
        raise ValueError(
            f"positions must have shape {shape} (one position per token, one row per batch "
            f"entry), got shape {tuple(positions.shape)}"
        )
    if not torch.compiler.is_compiling() and positions.numel():
        values = positions.detach()
        if positions.is_floating_point() and not bool(torch.isfinite(values).all()):
            raise ValueError("positions must be finite: found NaN or infinity")
        if float(values.abs().max()) > MAX_POSITION:
            raise ValueError("positions must lie in -2**52 … 2**52 (exact in float64)")
    return positions


def check_offset_positions(
    offset: object,
    positions: object,
    length: int,
    batch: int | None,
    *,
    integer: bool = False,
) -> tuple[int, Any]:
    """``offset`` and ``positions`` (at most one of them given) for ``length`` tokens.

    ``positions`` is checked by :func:`check_position_tensor` if given (``None`` passes).
    """
    offset = check_offset(offset)
    if positions is not None:
        if offset:
            raise ValueError("give offset or positions, not both")
        positions = check_position_tensor(positions, length, batch, integer=integer)
    return offset, positions


def check_torch_dtype(dtype: object) -> Any:
    """A floating ``torch.dtype`` (``None``: torch's default dtype), else raise."""
    import torch

    if dtype is None:
        return torch.get_default_dtype()
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        accepted = "a floating torch.dtype such as torch.float32"
        raise TypeError(_message("dtype", accepted, repr(dtype)))
    return dtype


def check_device(device: object) -> Any:
    """A ``torch.device`` from a device or a device string (``None``: torch's default), on which
    this torch build can allocate (``'meta'`` included), else raise."""
    import torch

    if device is None:
        return torch.get_default_device()
    try:
        resolved = torch.device(device)  # type: ignore[arg-type]
    except (RuntimeError, TypeError, ValueError, OverflowError) as exc:
        accepted = "a torch.device or a device string"
        raise TypeError(_message("device", accepted, repr(device))) from exc
    try:
        torch.empty(0, device=resolved)
    except (RuntimeError, AssertionError, ValueError) as exc:
        # a CPU-only build raises AssertionError for 'cuda'; a machine without GPU RuntimeError
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        accepted = "a device this torch build can use"
        raise ValueError(
            _message("device", accepted, f"{device!r} ({first})")
        ) from None
    return resolved


def check_cache_size(
    length: int, width: int, dtype: Any, name: str, width_name: str = "dim"
) -> None:
    """Refuse a cached ``length x width`` table of ``dtype`` over :data:`MAX_CACHE_BYTES`."""
    needed = length * width * dtype.itemsize
    if needed > MAX_CACHE_BYTES:
        raise ValueError(
            f"{name} x {width_name} = {length} x {width} needs a cache of "
            f"{_mib(needed)} MiB, over the limit MAX_CACHE_BYTES = "
            f"{MAX_CACHE_BYTES // 2**20} MiB; use a smaller {name} or {width_name} "
            "(longer inputs are still accepted: their rows are computed without caching)"
        )


def check_index_tensor(values: Any, name: str, size: int, why: str) -> None:
    """Refuse entries of an integer tensor outside ``0 .. size - 1``; ``why`` says what ``size`` is.

    Skipped under torch.compile and export (reading the values would cut the graph).
    """
    import torch

    if torch.compiler.is_compiling() or not values.numel():
        return
    low, high = int(values.min()), int(values.max())
    if low < 0 or high >= size:
        raise ValueError(
            f"{name} must lie in 0 … {size - 1} ({why}), got {low} … {high}"
        )
