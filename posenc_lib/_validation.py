"""The library's generic argument checks (numpy only); the torch modules' are in ``_torch_checks``.

Each check returns the argument in a normalized form (an ``int``, a ``float``, a float64 array)
or raises before anything is allocated. The message always has one form,

    ``<name> must be <what is accepted>, got <what was given>``

with ``TypeError`` for a value of the wrong kind and ``ValueError`` for a value of the right kind
outside the accepted range (a ragged nested list is of the right kind, a list, with the wrong
shape: ``ValueError``). Sizes are capped before anything is allocated: ``dim`` at
:data:`MAX_DIM`, tables at ``max_bytes`` (default :data:`DEFAULT_MAX_BYTES`). A torch tensor
that requires grad, passed where an array is expected, is detached (the numpy functions do not
differentiate; the gradient would be lost anyway).

A public function checks each argument once, here, and calls private kernels that trust it; a
check only one module needs lives in that module.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = [
    "DEFAULT_MAX_BYTES",
    "MAX_DIM",
    "MAX_LENGTH",
    "MAX_POSITION",
    "as_array",
    "check_base",
    "check_bool",
    "check_broadcast",
    "check_choice",
    "check_count",
    "check_dim",
    "check_float_dtype",
    "check_heads",
    "check_index",
    "check_instance",
    "check_matrix",
    "check_max_bytes",
    "check_positions",
    "check_real",
    "check_real_array",
    "check_table_dim",
    "check_table_size",
    "check_vector",
    "describe",
]

#: Largest table (in bytes) that :func:`posenc_lib.sinusoidal` builds unless told otherwise.
DEFAULT_MAX_BYTES = 2 * 1024**3

#: Most positions (or samples) accepted where a length is given as an int: 2 GiB of float64.
MAX_LENGTH = DEFAULT_MAX_BYTES // 8

#: Largest encoding dimension accepted (a frequency vector of 2**23 float64 is 64 MiB).
MAX_DIM = 1 << 24

#: The largest position magnitude accepted where positions must stay exact in float64.
MAX_POSITION = 2**52

#: What :func:`check_positions` accepts, in its messages.
_POSITIONS = "an int length L >= 0 or a 1-D array of finite reals"


def describe(value: object) -> str:
    """A short description of what was given, for the ``got ...`` part of a message."""
    if value is None or isinstance(value, (bool, str)):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    if isinstance(value, numbers.Integral):
        number = int(value)
        # str() of a huge int is slow, and refused past 4300 digits: give its magnitude
        if number.bit_length() > 128:
            digits = int(number.bit_length() * 0.30103)
            return f"{'-' if number < 0 else ''}an integer of about 10**{digits}"
        return str(number)
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if isinstance(value, numbers.Complex):
        return repr(complex(value))
    shape = getattr(value, "shape", None)
    if shape is not None and hasattr(value, "dtype"):
        return f"{type(value).__name__} of shape {tuple(shape)} and dtype {value.dtype}"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of length {len(value)}"
    return f"a {type(value).__name__}"


def _message(name: str, accepted: str, given: str) -> str:
    return f"{name} must be {accepted}, got {given}"


def _is_integer(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _as_float(value: object) -> float:
    """``float(value)``, with an int too large for a float (``10**400``) as infinity."""
    try:
        return float(value)  # type: ignore[arg-type]
    except OverflowError:
        return math.inf if value > 0 else -math.inf  # type: ignore[operator]


def check_count(
    value: object, name: str, minimum: int, maximum: int | None = None
) -> int:
    """``value`` as an int if it is an integer ``>= minimum`` (bool refused), else raise.

    ``maximum``: the largest accepted value (a stated limit on a size), if any; the message
    states it when it is the bound that was broken.
    """
    accepted = f"an integer >= {minimum}"
    if maximum is not None and _is_integer(value) and value > maximum:  # type: ignore[operator]
        accepted = f"an integer in {minimum} .. {maximum}"  # the bound it broke
    if not _is_integer(value):
        raise TypeError(_message(name, accepted, describe(value)))
    if value < minimum or (maximum is not None and value > maximum):  # type: ignore[operator]
        raise ValueError(_message(name, accepted, describe(value)))
    return int(value)  # type: ignore[call-overload]


def check_index(value: object, name: str, size: int) -> int:
    """``value`` as an int if it is an integer in ``0 .. size - 1``, else raise."""
    return check_count(value, name, 0, size - 1)


def check_dim(dim: object, name: str = "dim") -> int:
    """``dim`` as an int if it is a positive even integer up to :data:`MAX_DIM`, else raise."""
    accepted = "a positive even integer"
    if not _is_integer(dim):
        raise TypeError(_message(name, accepted, describe(dim)))
    if dim <= 0 or dim % 2:  # type: ignore[operator]
        raise ValueError(_message(name, accepted, describe(dim)))
    if dim > MAX_DIM:  # type: ignore[operator]
        raise ValueError(
            _message(name, f"an even integer <= MAX_DIM = {MAX_DIM}", describe(dim))
        )
    return int(dim)  # type: ignore[call-overload]


def check_heads(dim: object, n_heads: object) -> tuple[int, int]:
    """``dim`` (:func:`check_dim`) and ``n_heads`` (an integer >= 1) that divides it, as ints."""
    dim, n_heads = check_dim(dim), check_count(n_heads, "n_heads", 1)
    if dim % n_heads:
        raise ValueError(f"dim = {dim} must be divisible by n_heads = {n_heads}")
    return dim, n_heads


def check_table_dim(dim: object, odd: bool) -> int:
    """:func:`check_dim`, but an odd ``dim >= 3`` passes too when ``odd`` (under the same cap)."""
    if odd and _is_integer(dim) and dim % 2 and dim >= 3:  # type: ignore[operator]
        return check_dim(dim + 1) - 1  # type: ignore[operator]
    return check_dim(dim)


def check_real(
    value: object,
    name: str,
    *,
    above: float | None = None,
    below: float | None = None,
) -> float:
    """``value`` as a float if it is a finite real number in the open interval (above, below)."""
    accepted = "a finite real number"
    if above is not None:
        accepted += f" > {above:g}"
    if below is not None:
        accepted += f"{' and' if above is not None else ''} < {below:g}"
    if not _is_real(value):
        raise TypeError(_message(name, accepted, describe(value)))
    number = _as_float(value)
    if (
        not math.isfinite(number)
        or (above is not None and number <= above)
        or (below is not None and number >= below)
    ):
        raise ValueError(_message(name, accepted, describe(value)))
    return number


def check_base(base: object) -> float:
    """``base`` as a float if it is a finite real number > 1, else raise."""
    return check_real(base, "base", above=1.0)


def check_bool(value: object, name: str) -> bool:
    """``value`` if it is ``True`` or ``False`` (not merely truthy), else raise."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(_message(name, "True or False", describe(value)))
    return bool(value)


def check_choice(value: object, name: str, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of ``choices``, else raise naming them."""
    if not isinstance(value, str) or value not in choices:
        accepted = "one of " + ", ".join(map(repr, choices))
        raise ValueError(_message(name, accepted, describe(value)))
    return value


def check_instance(
    value: object, name: str, types: type | tuple[type, ...], accepted: str
) -> Any:
    """``value`` if it is an instance of ``types``, else raise; ``accepted`` names them."""
    if not isinstance(value, types):
        raise TypeError(_message(name, accepted, describe(value)))
    return value


def check_float_dtype(dtype: object) -> np.dtype:
    """A numpy floating dtype (float16, float32, float64, longdouble), else raise."""
    accepted = "a numpy floating dtype such as numpy.float32"
    try:
        resolved = np.dtype(dtype)  # type: ignore[call-overload]
    except TypeError as exc:
        raise TypeError(_message("dtype", accepted, describe(dtype))) from exc
    if not np.issubdtype(resolved, np.floating):
        raise TypeError(_message("dtype", accepted, str(resolved)))
    return resolved


def check_max_bytes(max_bytes: object) -> int:
    """``max_bytes`` as an int if it is a positive, finite, whole number of bytes, else raise.

    Floats with a whole value up to 2**53 (``2e9``) are accepted; ``bool``, ``None``, strings,
    NaN, infinities, fractions, numbers <= 0 and floats over 2**53 (where floats are no longer
    whole numbers of bytes: ``1e308`` would switch the limit off) are refused.
    """
    accepted = "a positive whole number of bytes"
    if not _is_real(max_bytes):
        raise TypeError(_message("max_bytes", accepted, describe(max_bytes)))
    number = _as_float(max_bytes)
    if not math.isfinite(number) or number <= 0 or number != math.floor(number):
        raise ValueError(_message("max_bytes", accepted, describe(max_bytes)))
    if not _is_integer(max_bytes) and number > 2**53:
        given = f"the float {describe(max_bytes)}, over 2**53 (pass an int for so many bytes)"
        raise ValueError(_message("max_bytes", accepted, given))
    return int(max_bytes) if _is_integer(max_bytes) else int(number)  # type: ignore[call-overload]


def check_table_size(
    length: int,
    dim: int,
    itemsize: int,
    max_bytes: object,
    *,
    names: str = "positions x dim",
) -> None:
    """Refuse a ``length x dim`` table of ``itemsize``-byte entries larger than ``max_bytes``.

    ``names`` says which arguments give the two sizes, for the message.
    """
    limit = check_max_bytes(max_bytes)
    needed = length * dim * itemsize
    fewer = "fewer positions" if names == "positions x dim" else "smaller sizes"
    if needed > limit:
        raise ValueError(
            f"{names} = {length} x {dim} needs {_mib(needed)} MiB, over the limit "
            f"max_bytes = {_mib(limit)} MiB; pass a larger max_bytes or {fewer}"
        )


def _mib(size: int) -> str:
    """``size`` bytes in MiB, rounded, in integer arithmetic (exact for any size)."""
    return str((int(size) + 2**19) // 2**20)


def as_array(values: object, name: str, accepted: str = "an array") -> np.ndarray:
    """``numpy.asarray(values)``; ``None`` is a TypeError, a ragged nested list a ValueError.

    A torch tensor that requires grad is detached first (numpy cannot hold it).
    """
    if values is None:
        raise TypeError(_message(name, accepted, "None"))
    if getattr(values, "requires_grad", False) and hasattr(values, "detach"):
        values = values.detach()  # type: ignore[union-attr]
    try:
        return np.asarray(values)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(
            _message(name, accepted, f"{describe(values)} of ragged shape")
        ) from exc
    except (TypeError, OverflowError, RuntimeError) as exc:
        raise TypeError(_message(name, accepted, describe(values))) from exc


def _real_float64(values: object, name: str, accepted: str) -> np.ndarray:
    """``values`` (:func:`as_array`) as float64 if they are finite real numbers, else raise."""
    array = as_array(values, name, accepted)
    if array.dtype == bool or not (
        np.issubdtype(array.dtype, np.integer)
        or np.issubdtype(array.dtype, np.floating)
    ):
        raise TypeError(_message(name, accepted, f"an array of dtype {array.dtype}"))
    out = array.astype(np.float64)
    if not np.all(np.isfinite(out)):
        raise ValueError(
            _message(name, accepted, "an array containing NaN or infinity")
        )
    return out


def check_real_array(
    values: object, name: str, *, max_abs: float | None = None
) -> np.ndarray:
    """Finite real numbers of any shape (a scalar gives a 0-d array) as a float64 array.

    ``max_abs``: the largest magnitude accepted (the range where a computation is valid).
    """
    accepted = "finite real numbers (a scalar or an array)"
    if max_abs is not None:
        accepted = f"finite real numbers of magnitude <= {max_abs:g}"
    array = _real_float64(values, name, accepted)
    if max_abs is not None and array.size and np.abs(array).max() > max_abs:
        raise ValueError(
            _message(name, accepted, f"the value {np.abs(array).max():g} in magnitude")
        )
    return array


def check_vector(
    values: object, name: str, *, even: bool = False, minimum: float | None = None
) -> np.ndarray:
    """A non-empty 1-D array of finite reals as float64.

    ``even``: of even length; ``minimum``: every entry at least ``minimum``.
    """
    accepted = "a non-empty 1-D array of finite reals"
    if even:
        accepted += " of even length"
    if minimum is not None:
        accepted += f" >= {minimum:g}"
    array = _real_float64(values, name, accepted)
    if array.ndim != 1 or array.size == 0 or (even and array.size % 2):
        raise ValueError(_message(name, accepted, f"an array of shape {array.shape}"))
    if minimum is not None and array.min() < minimum:
        raise ValueError(
            _message(name, accepted, f"an array with minimum {array.min():g}")
        )
    return array


def check_matrix(
    values: object,
    name: str,
    *,
    square: bool = False,
    even: bool = False,
    min_size: int = 1,
) -> np.ndarray:
    """A 2-D array of finite reals as float64.

    ``square``: equal sides; ``even``: square of even size (one row per encoding coordinate);
    ``min_size``: at least that many rows and columns.
    """
    kind = (
        "a d x d array" if even else "a square 2-D array" if square else "a 2-D array"
    )
    accepted = f"{kind} of finite reals" + (" with d even" if even else "")
    if min_size > 1:
        accepted += f" with at least {min_size} rows and columns"
    array = _real_float64(values, name, accepted)
    rows, cols = array.shape if array.ndim == 2 else (0, 0)
    unequal = (square or even) and rows != cols
    if min(rows, cols) < max(min_size, 1) or unequal or (even and rows % 2):
        raise ValueError(_message(name, accepted, f"an array of shape {array.shape}"))
    return array


def check_broadcast(
    first: np.ndarray, second: np.ndarray, names: tuple[str, str]
) -> tuple[np.ndarray, ...]:
    """``first`` and ``second`` broadcast to one shape (views, not copies), else raise naming
    both arguments."""
    try:
        return tuple(np.broadcast_arrays(first, second))
    except ValueError as exc:
        raise ValueError(
            f"{names[0]} and {names[1]} must broadcast to one shape, got shapes "
            f"{first.shape} and {second.shape}"
        ) from exc


def check_positions(
    positions: object,
    *,
    exact: bool = True,
    width: int | None = None,
    itemsize: int = 8,
    max_bytes: object = DEFAULT_MAX_BYTES,
    names: str = "positions x dim",
) -> np.ndarray:
    """Positions as a float64 array: an int ``L >= 0`` (``0 … L-1``) or a 1-D array of reals.

    ``exact``: refuse integers beyond 2**53, which float64 cannot tell apart. ``width``: the rows
    of a ``len(positions) x width`` table, refused over ``max_bytes`` before ``L`` positions are
    allocated (:func:`check_table_size`).
    """
    if _is_integer(positions):
        if positions < 0:  # type: ignore[operator]
            raise ValueError(_message("positions", _POSITIONS, describe(positions)))
        if width is not None:
            check_table_size(positions, width, itemsize, max_bytes, names=names)  # type: ignore[arg-type]
        elif positions > MAX_LENGTH:  # type: ignore[operator]
            accepted = f"a length L <= {MAX_LENGTH}"
            raise ValueError(_message("positions", accepted, describe(positions)))
        return np.arange(int(positions), dtype=np.float64)  # type: ignore[call-overload]
    if positions is None or isinstance(positions, (bool, str, numbers.Number)):
        raise TypeError(_message("positions", _POSITIONS, describe(positions)))
    array = _real_float64(positions, "positions", _POSITIONS)
    if array.ndim != 1:
        raise ValueError(
            _message("positions", _POSITIONS, f"an array of shape {array.shape}")
        )
    if exact and array.size and np.abs(array).max() > 2.0**53:
        raw = np.asarray(positions)
        if raw.dtype.kind in "iu" or raw.dtype == object:
            accepted = "integers of magnitude <= 2**53 (exact in float64)"
            given = f"the position {int(raw[np.abs(array) > 2.0**53][0])}"
            raise ValueError(_message("positions", accepted, given))
    if width is not None:
        check_table_size(array.size, width, itemsize, max_bytes, names=names)
    return array
