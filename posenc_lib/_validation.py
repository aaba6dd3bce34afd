"""The library's argument checks: every check of a public argument goes through this module.

Each check returns the argument in a normalized form (an ``int``, a ``float``, a float64 array)
or raises before anything is allocated. The message always has one form,

    ``<name> must be <what is accepted>, got <what was given>``

with ``TypeError`` for a value of the wrong kind and ``ValueError`` for a value of the right kind
outside the accepted range (a ragged nested list is of the right kind, a list, with the wrong
shape: ``ValueError``). Sizes are capped before anything is allocated: ``dim`` at
:data:`MAX_DIM`, tables at ``max_bytes`` (default :data:`DEFAULT_MAX_BYTES`). A torch tensor
that requires grad, passed where an array is expected, is detached (the numpy functions do not
differentiate; the gradient would be lost anyway).

The checks of :mod:`posenc_lib.nn`'s arguments (tensors, positions, offsets, torch dtypes and
devices, cache and model sizes) are here too; they import torch inside the function, so that
``import posenc_lib`` does not import it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "DEFAULT_MAX_BYTES",
    "MAX_CACHE_BYTES",
    "MAX_DIM",
    "MAX_LENGTH",
    "MAX_MODEL_BYTES",
    "MAX_POSITION",
    "as_array",
    "check_attention_scores",
    "check_base",
    "check_bool",
    "check_broadcast",
    "check_cache_size",
    "check_callable",
    "check_choice",
    "check_count",
    "check_device",
    "check_dim",
    "check_divisible",
    "check_even_dim",
    "check_finite_result",
    "check_float_dtype",
    "check_index",
    "check_index_array",
    "check_index_tensor",
    "check_instance",
    "check_integer",
    "check_length",
    "check_matrix",
    "check_max_bytes",
    "check_model_size",
    "check_module_dtype",
    "check_module_input",
    "check_n_heads",
    "check_not_meta",
    "check_offset",
    "check_offset_positions",
    "check_position_tensor",
    "check_positions",
    "check_real",
    "check_real_array",
    "check_rng",
    "check_rotary_dim",
    "check_run_device",
    "check_seq_axis",
    "check_sequence",
    "check_step_bytes",
    "check_table_dim",
    "check_table_size",
    "check_tensor",
    "check_token_positions",
    "check_token_tensor",
    "check_torch_dtype",
    "check_value_in",
    "check_vector",
    "describe",
]

#: Largest table (in bytes) that :func:`posenc_lib.sinusoidal` builds unless told otherwise.
DEFAULT_MAX_BYTES = 2 * 1024**3

#: Most positions (or samples) accepted where a length is given as an int: 2 GiB of float64.
MAX_LENGTH = DEFAULT_MAX_BYTES // 8

#: Largest encoding dimension accepted (a frequency vector of 2**23 float64 is 64 MiB).
MAX_DIM = 1 << 24

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


# --------------------------------------------------------------------------------------------
# scalars
# --------------------------------------------------------------------------------------------


def check_integer(value: object, name: str) -> int:
    """``value`` as an int if it is an integer (bool refused), else raise."""
    if not _is_integer(value):
        raise TypeError(_message(name, "an integer", describe(value)))
    return int(value)  # type: ignore[call-overload]


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
    accepted = f"an integer in 0 .. {size - 1}"
    if not _is_integer(value):
        raise TypeError(_message(name, accepted, describe(value)))
    if not 0 <= value < size:  # type: ignore[operator]
        raise ValueError(_message(name, accepted, describe(value)))
    return int(value)  # type: ignore[call-overload]


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
    parts = ["a finite real number"]
    if above is not None:
        parts.append(f"> {above:g}")
    if below is not None:
        parts.append(f"< {below:g}" if above is None else f"and < {below:g}")
    accepted = " ".join(parts)
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


def check_value_in(value: object, name: str, values: tuple[float, ...]) -> float:
    """``value`` (a real number, bool refused) if it equals one of ``values``, else raise."""
    if not _is_real(value) or _as_float(value) not in values:
        accepted = "one of " + ", ".join(f"{v:g}" for v in values)
        raise ValueError(_message(name, accepted, describe(value)))
    return values[values.index(_as_float(value))]


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


# --------------------------------------------------------------------------------------------
# arrays
# --------------------------------------------------------------------------------------------


def _as_array(values: object, name: str, accepted: str) -> np.ndarray:
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


def as_array(values: object, name: str, accepted: str = "an array") -> np.ndarray:
    """``numpy.asarray(values)`` for a function that checks the dtype and shape itself.

    ``None`` is a TypeError and a ragged nested list a ValueError naming ``name``; a tensor that
    requires grad is detached.
    """
    return _as_array(values, name, accepted)


def _real_float64(array: np.ndarray, name: str, accepted: str) -> np.ndarray:
    """``array`` as float64 if it holds finite real numbers, else raise."""
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
    array = _real_float64(_as_array(values, name, accepted), name, accepted)
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
    array = _real_float64(_as_array(values, name, accepted), name, accepted)
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
    if even:
        accepted = "a d x d array of finite reals with d even"
    elif square:
        accepted = "a square 2-D array of finite reals"
    else:
        accepted = "a 2-D array of finite reals"
    if min_size > 1:
        accepted += f" with at least {min_size} rows and columns"
    array = _real_float64(_as_array(values, name, accepted), name, accepted)
    bad = array.ndim != 2 or min(array.shape, default=0) < max(min_size, 1)
    if not bad and (square or even) and array.shape[0] != array.shape[1]:
        bad = True
    if not bad and even and array.shape[0] % 2:
        bad = True
    if bad:
        raise ValueError(_message(name, accepted, f"an array of shape {array.shape}"))
    return array


def _holds_bool(values: list | tuple, depth: int = 0) -> bool:
    """True if a (nested) list or tuple holds a bool (``True`` or ``numpy.bool_``)."""
    return depth < 32 and any(
        isinstance(v, (bool, np.bool_))
        or (isinstance(v, (list, tuple)) and _holds_bool(v, depth + 1))
        for v in values
    )


def check_index_array(values: object, name: str, size: int) -> np.ndarray:
    """Integer indices in ``0 .. size - 1``, any shape, as an intp array, else raise."""
    accepted = f"integers in 0 .. {size - 1}"
    array = _as_array(values, name, accepted)
    if array.dtype == object or (
        isinstance(values, (list, tuple)) and _holds_bool(values)
    ):  # numpy turns [True, 2] into integers
        raise TypeError(_message(name, accepted, f"{describe(values)} holding bools"))
    if array.dtype.kind not in "iu":
        raise TypeError(_message(name, accepted, f"an array of dtype {array.dtype}"))
    if array.size and (array.min() < 0 or array.max() >= size):
        raise ValueError(
            _message(name, accepted, f"values from {array.min()} to {array.max()}")
        )
    return array.astype(np.intp)


def check_broadcast(
    first: np.ndarray, second: np.ndarray, names: tuple[str, str]
) -> tuple[int, ...]:
    """The shape ``first`` and ``second`` broadcast to, else raise naming both arguments."""
    try:
        return tuple(np.broadcast_shapes(first.shape, second.shape))
    except ValueError as exc:
        raise ValueError(
            f"{names[0]} and {names[1]} must broadcast to one shape, got shapes "
            f"{first.shape} and {second.shape}"
        ) from exc


def check_finite_result(values: object, name: str, accepted: str, given: str) -> None:
    """Raise ``<name> must be <accepted>, got <given>`` if a result holds NaN or infinity.

    For computations whose valid range is simplest to state by its result (a polynomial that
    overflows float64): no silent NaN or infinity from finite arguments.
    """
    if not np.all(np.isfinite(values)):  # type: ignore[call-overload]
        raise ValueError(_message(name, accepted, given))


def check_positions(positions: object, *, exact: bool = True) -> np.ndarray:
    """Positions as a float64 array.

    An integer ``L >= 0`` means positions ``0, 1, ..., L-1``; otherwise ``positions`` must be a
    1-D array-like of finite real numbers (fractional positions are allowed). ``exact``: refuse
    integers beyond :math:`2^{53}` in magnitude, which float64 cannot tell apart
    (``2**60`` and ``2**60 + 1`` would give the same row).
    """
    if _is_integer(positions):
        if positions < 0:  # type: ignore[operator]
            raise ValueError(_message("positions", _POSITIONS, describe(positions)))
        if positions * 8 > DEFAULT_MAX_BYTES:  # type: ignore[operator]
            longest = DEFAULT_MAX_BYTES // 8
            raise ValueError(
                _message("positions", f"a length L <= {longest}", describe(positions))
            )
        return np.arange(int(positions), dtype=np.float64)  # type: ignore[call-overload]
    if positions is None or isinstance(positions, (bool, str, numbers.Number)):
        raise TypeError(_message("positions", _POSITIONS, describe(positions)))
    array = _real_float64(
        _as_array(positions, "positions", _POSITIONS), "positions", _POSITIONS
    )
    if array.ndim != 1:
        raise ValueError(
            _message("positions", _POSITIONS, f"an array of shape {array.shape}")
        )
    if exact and array.size and np.abs(array).max() > 2.0**53:
        raw = np.asarray(positions)
        if raw.dtype.kind in "iu" or raw.dtype == object:
            biggest = raw[np.abs(array) > 2.0**53][0]
            raise ValueError(
                _message(
                    "positions",
                    "integers of magnitude <= 2**53 (exact in float64)",
                    f"the position {int(biggest)}",
                )
            )
    return array


def check_token_positions(positions: object) -> np.ndarray:
    """Token positions: whole numbers ``m >= 0`` as an int64 array (an int ``L``: ``0 … L-1``).

    Integer arrays are kept exact beyond :math:`2^{53}`; float input must stay below it.
    """
    accepted = "an int length L >= 0 or a 1-D array of whole numbers >= 0"
    as_float = check_positions(positions, exact=False)
    if np.any(as_float < 0):
        raise ValueError(
            _message("positions", accepted, f"the position {as_float.min():g}")
        )
    if np.any(as_float != np.floor(as_float)):
        fractional = as_float[as_float != np.floor(as_float)][0]
        raise ValueError(
            _message("positions", accepted, f"the position {fractional:g}")
        )
    raw = np.asarray(positions)
    if raw.ndim == 1 and np.issubdtype(raw.dtype, np.integer):
        return raw.astype(np.int64)
    if np.any(as_float >= 2.0**53):
        raise ValueError(
            _message(
                "positions", "an integer array when positions reach 2**53", "floats"
            )
        )
    return as_float.astype(np.int64)


def check_sequence(value: object, name: str, accepted: str) -> list:
    """``value`` as a list if it is a list, tuple, range or 1-D array, else raise.

    ``accepted`` says what the items are (``"task names"``); strings are refused (a string is a
    sequence of characters, never what is meant).
    """
    wanted = f"a list or tuple of {accepted}"
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            raise ValueError(_message(name, wanted, describe(value)))
        return list(value)
    if not isinstance(value, (list, tuple, range)):
        raise TypeError(_message(name, wanted, describe(value)))
    return list(value)


def check_instance(
    value: object, name: str, types: type | tuple[type, ...], accepted: str
) -> Any:
    """``value`` if it is an instance of ``types``, else raise; ``accepted`` names them."""
    if not isinstance(value, types):
        raise TypeError(_message(name, accepted, describe(value)))
    return value


def _shape_text(shape: tuple[int | None, ...]) -> str:
    parts = ["*" if size is None else str(size) for size in shape]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def check_not_meta(value: Any, name: str) -> None:
    """Refuse a tensor on the ``meta`` device: it has a shape but no values to compute with."""
    if value.is_meta:
        raise ValueError(
            _message(name, "a tensor with values (cpu, cuda, ...)", "a meta tensor")
        )


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


# --------------------------------------------------------------------------------------------
# torch modules (posenc_lib.nn): torch is imported inside each check that needs it
# --------------------------------------------------------------------------------------------

#: The largest position magnitude the torch modules accept (positions exact in float64).
MAX_POSITION = 2**52

#: Largest cache (bytes) of a torch module's table, and largest attention bias.
MAX_CACHE_BYTES = DEFAULT_MAX_BYTES

#: Largest parameter memory (bytes) of a torch module, checked before allocation.
MAX_MODEL_BYTES = DEFAULT_MAX_BYTES


def check_even_dim(value: object, name: str) -> int:
    """:func:`check_dim` for a torch module's size (its TypeError says the type of ``value``)."""
    if not _is_integer(value):
        given = f"{type(value).__name__} {value!r}"
        raise TypeError(_message(name, "a positive even integer", given))
    return check_dim(value, name)


def check_offset(offset: object) -> int:
    """``offset`` (the position of the first token) as an int in ``0 .. MAX_POSITION``."""
    offset = check_count(offset, "offset", 0)
    if offset > MAX_POSITION:
        accepted = "an integer in 0 … 2**52 (positions exact in float64)"
        raise ValueError(_message("offset", accepted, str(offset)))
    return offset


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


def _positions_shape(length: int, batch: int | None) -> str:
    return f"({length},)" + ("" if batch is None else f" or ({batch}, {length})")


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
    if positions.dtype == torch.bool or positions.is_complex():
        raise TypeError(
            f"positions must hold {kind} numbers, got dtype {positions.dtype}"
        )
    if integer and positions.is_floating_point():
        raise TypeError(
            f"positions must hold integers here, got dtype {positions.dtype}"
        )
    check_not_meta(positions, "positions")
    if positions.requires_grad:
        raise ValueError(
            "positions must not require grad (positions are indices, not trainable values); "
            "pass positions.detach()"
        )
    # The sizes are compared with explicit == / != and formatted only once a test failed:
    # under torch.compile(dynamic=True) they are symbolic, and Dynamo evaluates a membership
    # test (`in (1, batch)`) on symbols formatted into strings wrongly (issue 23).
    ok_shape = positions.ndim == 1 or (positions.ndim == 2 and batch is not None)
    if not ok_shape or positions.shape[-1] != length:
        raise ValueError(
            f"positions must have shape {_positions_shape(length, batch)} (one position per "
            f"token), got shape {tuple(positions.shape)}"
        )
    if positions.ndim == 2 and positions.shape[0] != 1 and positions.shape[0] != batch:
        raise ValueError(
            f"positions must have shape {_positions_shape(length, batch)} (one row per batch "
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


def _autocast(device_type: str) -> bool:
    import torch

    try:
        return bool(torch.is_autocast_enabled(device_type))
    except TypeError:  # torch < 2.4: no device argument
        return bool(torch.is_autocast_enabled() or torch.is_autocast_cpu_enabled())


def check_module_dtype(x: Any, name: str, dtype: Any) -> None:
    """``x`` of the module's ``dtype`` (any dtype under autocast, which converts itself)."""
    if x.dtype != dtype and not _autocast(x.device.type):
        raise TypeError(
            f"{name} must have the module's dtype {dtype} (convert the module with .to), "
            f"got a tensor of dtype {x.dtype}"
        )


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


def check_run_device(device: object) -> str:
    """``device``: a device string that computes (not ``'meta'``, whose tensors hold no values)
    and that this torch build can use, else raise."""
    if not isinstance(device, str):
        accepted = "a device string such as 'cpu' or 'cuda'"
        raise TypeError(_message("device", accepted, describe(device)))
    if check_device(device).type == "meta":
        accepted = "a device that computes ('cpu', 'cuda', ...)"
        raise ValueError(
            _message("device", accepted, "'meta' (its tensors hold no values)")
        )
    return device


def check_attention_scores(scores: Any, x: Any) -> None:
    """Refuse attention scores that overflowed ``x``'s dtype (NaN weights from finite input)."""
    import torch

    if scores.is_meta or torch.compiler.is_compiling():
        return
    if bool(torch.isfinite(scores).all()) or not bool(torch.isfinite(x).all()):
        return
    top = float(torch.finfo(x.dtype).max)
    raise ValueError(
        f"x is too large for attention in {x.dtype}: its query-key scores overflow "
        f"(beyond {top:.3g}); scale x down or use a wider dtype, got |x| up to "
        f"{float(x.detach().abs().max()):.3g}"
    )


def check_step_bytes(
    count: int,
    count_name: str,
    length: int,
    length_name: str,
    per_token: int,
    limit: int,
) -> None:
    """Refuse a forward pass over ``count`` sequences of ``length`` tokens, ``per_token`` bytes
    each, that needs more than ``limit`` bytes; the message names both sizes."""
    needed = count * length * per_token
    if needed > limit:
        raise ValueError(
            f"{count_name} x {length_name}: {count} sequences x {length} tokens need about "
            f"{_mib(needed)} MiB in one forward pass, over the limit of "
            f"{limit // 2**20} MiB; use a smaller {count_name} or {length_name}"
        )


def check_model_size(count: int, name: str, value: int) -> None:
    """Refuse ``count`` parameters (of torch's default dtype) over :data:`MAX_MODEL_BYTES`."""
    import torch

    needed = count * torch.get_default_dtype().itemsize
    if needed > MAX_MODEL_BYTES:
        raise ValueError(
            f"{name} = {value} needs {_mib(needed)} MiB of parameters, over the "
            f"limit MAX_MODEL_BYTES = {MAX_MODEL_BYTES // 2**20} MiB; use a smaller {name}"
        )


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


def check_index_tensor(
    values: Any, name: str, size: int, why: str, *, given: str = ""
) -> None:
    """Refuse entries of an integer tensor outside ``0 .. size - 1``; ``why`` says what ``size`` is.

    Skipped under torch.compile and export (reading the values would cut the graph).
    """
    import torch

    if torch.compiler.is_compiling() or not values.numel():
        return
    low, high = int(values.min()), int(values.max())
    if low < 0 or high >= size:
        raise ValueError(
            f"{name} must lie in 0 … {size - 1} ({why}), got {given}{low} … {high}"
        )


def check_token_tensor(tokens: object, vocab_size: int) -> Any:
    """Token ids: an int64 or int32 tensor (batch, length) of values in ``0 .. vocab_size - 1``."""
    import torch

    if not isinstance(tokens, torch.Tensor):
        raise TypeError(_message("tokens", "a torch.Tensor", type(tokens).__name__))
    if tokens.ndim != 2:
        raise ValueError(
            f"tokens must have 2 axes (batch, length), got shape {tuple(tokens.shape)}"
        )
    if tokens.dtype not in (torch.int64, torch.int32):
        accepted = "an integer tensor (int64 or int32)"
        raise TypeError(_message("tokens", accepted, str(tokens.dtype)))
    check_not_meta(tokens, "tokens")
    why = f"vocab_size = {vocab_size}"
    check_index_tensor(tokens, "tokens", vocab_size, why, given="values ")
    return tokens


def check_rotary_dim(rotary_dim: object, head_dim: int) -> int:
    """The rotated features: an even ``rotary_dim <= head_dim`` (``None``: ``head_dim``)."""
    if rotary_dim is None:
        return head_dim
    rotary_dim = check_even_dim(rotary_dim, "rotary_dim")
    if rotary_dim > head_dim:
        raise ValueError(
            _message("rotary_dim", f"<= head_dim = {head_dim}", str(rotary_dim))
        )
    return rotary_dim


def check_n_heads(n_heads: object, maximum: int) -> int:
    """``n_heads`` as an int in ``1 … maximum``, else raise."""
    n = check_count(n_heads, "n_heads", 1)
    if n > maximum:
        raise ValueError(_message("n_heads", f"an integer in 1 … {maximum}", str(n)))
    return n


def check_divisible(value: int, name: str, divisor: int, divisor_name: str) -> None:
    """Refuse a ``value`` that ``divisor`` does not divide (both already checked ints)."""
    if value % divisor:
        raise ValueError(
            f"{name} = {value} must be divisible by {divisor_name} = {divisor}"
        )
