"""Argument checks shared by the library: each raises an error that names the argument."""

from __future__ import annotations

import numbers

import numpy as np

#: Largest table (in bytes) that :func:`posenc_lib.sinusoidal` builds unless told otherwise.
DEFAULT_MAX_BYTES = 2 * 1024**3


def check_dim(dim: object) -> int:
    """Return ``dim`` as an int if it is a positive even integer, else raise."""
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
        raise TypeError(f"dim must be a positive even integer, got {type(dim).__name__} {dim!r}")
    if dim <= 0 or dim % 2:
        raise ValueError(f"dim must be a positive even integer, got {dim}")
    return int(dim)


def check_count(value: object, name: str, minimum: int) -> int:
    """``value`` as an int if it is an integer >= ``minimum`` (bool refused), else raise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{name} must be an integer >= {minimum}, got {type(value).__name__} {value!r}"
        )
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}")
    return int(value)


def check_base(base: object) -> float:
    """Return ``base`` as a float if it is a finite real number > 1, else raise."""
    if isinstance(base, bool) or not isinstance(base, numbers.Real):
        raise TypeError(f"base must be a real number > 1, got {type(base).__name__} {base!r}")
    value = float(base)
    if not np.isfinite(value) or value <= 1.0:
        raise ValueError(f"base must be a finite real number > 1, got {base}")
    return value


def check_positions(positions: object) -> np.ndarray:
    """Positions as a float64 array.

    An integer ``L >= 0`` means positions ``0, 1, ..., L-1``; otherwise ``positions`` must be a
    1-D array-like of finite real numbers (fractional positions are allowed).
    """
    if isinstance(positions, bool):
        raise TypeError(
            "positions must be an int length L >= 0 or a 1-D array of finite reals, got bool"
        )
    if isinstance(positions, numbers.Integral):
        if positions < 0:
            raise ValueError(f"positions: a length must be an integer >= 0, got {positions}")
        return np.arange(int(positions), dtype=np.float64)
    if isinstance(positions, numbers.Number):
        raise TypeError(
            f"positions must be an int length L >= 0 or a 1-D array of finite reals, "
            f"got the scalar {positions!r}; a length must be an integer"
        )
    try:
        array = np.asarray(positions)
    except (TypeError, ValueError) as exc:  # ragged lists and the like
        raise TypeError(f"positions must be a 1-D array of finite reals: {exc}") from exc
    if array.ndim != 1:
        raise ValueError(f"positions must be 1-D, got an array of shape {array.shape}")
    if array.dtype == bool or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise TypeError(f"positions must hold real numbers, got dtype {array.dtype}")
    array = array.astype(np.float64)
    if not np.all(np.isfinite(array)):
        raise ValueError("positions must be finite: found NaN or infinity")
    return array


def check_real_array(values: object, name: str) -> np.ndarray:
    """Any-shape array of finite reals as float64 (scalars allowed)."""
    array = np.asarray(values)
    if array.dtype == bool or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
    array = array.astype(np.float64)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite: found NaN or infinity")
    return array


def check_float_dtype(dtype: object) -> np.dtype:
    """A numpy floating dtype (float16, float32, float64, longdouble), else raise."""
    try:
        resolved = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"dtype must be a numpy floating dtype, got {dtype!r}") from exc
    if not np.issubdtype(resolved, np.floating):
        raise TypeError(
            f"dtype must be a numpy floating dtype such as numpy.float32, got {resolved}"
        )
    return resolved


def check_choice(value: object, name: str, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of ``choices``, else raise naming them."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


def check_table_size(n_positions: int, dim: int, itemsize: int, max_bytes: int) -> None:
    """Refuse a table whose memory would exceed ``max_bytes``."""
    needed = n_positions * dim * itemsize
    if needed > max_bytes:
        raise ValueError(
            f"positions x dim = {n_positions} x {dim} needs {needed / 2**20:.0f} MiB, over the "
            f"limit max_bytes = {max_bytes / 2**20:.0f} MiB; "
            "pass a larger max_bytes or fewer positions"
        )
