r"""Position tables as common frameworks store them, computed accurately by this library.

Each framework computes the same formula with float32 angles, so its table differs from this
library's by its own float32 angle error (chapter 11). The tests compare every convention with a
transcription of the framework's code.

=================  =================  ====================  =================================
convention         layout             spacing               also used by
=================  =================  ====================  =================================
``vaswani2017``    interleaved        :math:`2i/d`          PyTorch tutorial, Annotated
                                                            Transformer, HF DistilBERT/XLM
``tensor2tensor``  ``[sin | cos]``    :math:`i/(d/2-1)`     ``get_timing_signal_1d``
``fairseq``        ``[sin | cos]``    :math:`i/(d/2-1)`     HF FSMT, M2M100, Speech2Text;
                                                            row ``padding_idx`` zeroed
``hf_marian``      ``[sin | cos]``    :math:`2i/d`          HF ``MarianSinusoidal...``
=================  =================  ====================  =================================
"""

from __future__ import annotations

import numpy as np
from numpy.typing import DTypeLike

from ._validation import (
    MAX_LENGTH,
    check_choice,
    check_count,
    check_index,
    check_table_dim,
)
from .encoding import sinusoidal

__all__ = ["CONVENTIONS", "framework_rows", "framework_table"]

#: The layout, exponent spacing and padding row of each framework's table, by name.
CONVENTIONS = {
    "vaswani2017": {"layout": "interleaved", "spacing": "2i/d", "padding_row": False},
    "tensor2tensor": {
        "layout": "concatenated",
        "spacing": "i/(d/2-1)",
        "padding_row": False,
    },
    "fairseq": {"layout": "concatenated", "spacing": "i/(d/2-1)", "padding_row": True},
    "hf_marian": {"layout": "concatenated", "spacing": "2i/d", "padding_row": False},
}


def framework_table(
    convention: str,
    length: int,
    dim: int,
    *,
    dtype: DTypeLike = np.float32,
    padding_idx: int = 1,
) -> np.ndarray:
    r"""The position table of ``length`` rows as a framework stores it.

    Row :math:`r` is :math:`p_r` in the convention's layout and spacing (:data:`CONVENTIONS`),
    with :math:`\theta_i = 10000^{-2i/d}` or :math:`10000^{-i/(d/2-1)}`. For ``"fairseq"`` row
    ``padding_idx`` is all zeros, and tokens do not start at row 0: the ``t``-th token
    (``t = 0, 1, ...``) reads row ``padding_idx + 1 + t`` (:func:`framework_rows`).

    Parameters
    ----------
    convention : str
        A key of :data:`CONVENTIONS`.
    length : int
        The number of rows (fairseq's ``num_embeddings``), at least 0.
    dim : int
        The dimension :math:`d`, a positive even integer; for ``"fairseq"`` and
        ``"tensor2tensor"`` (whose code divides by :math:`d/2 - 1`) at least 4, and an odd
        :math:`d \ge 5` is allowed: the table of :math:`d - 1` and a last column of zeros, as
        both pad it.
    dtype : numpy.dtype
        The table's dtype (frameworks store float32).
    padding_idx : int
        fairseq's padding row, in ``0 … length - 1`` (ignored by the other conventions).

    Returns
    -------
    numpy.ndarray
        Shape ``(length, dim)``.

    Examples
    --------
    >>> import numpy as np
    >>> from posenc_lib.conventions import framework_table
    >>> table = framework_table("fairseq", 4, 4, dtype=np.float64)
    >>> table[:, [0, 2]].round(4)  # sin and cos of pair 0: row 1 is padding, row r is p_r
    array([[ 0.    ,  1.    ],
           [ 0.    ,  0.    ],
           [ 0.9093, -0.4161],
           [ 0.1411, -0.99  ]])
    """
    check_choice(convention, "convention", tuple(CONVENTIONS))
    length = check_count(length, "length", 0)
    spec = CONVENTIONS[convention]
    dim = check_table_dim(dim, spec["spacing"] == "i/(d/2-1)")
    if spec["spacing"] == "i/(d/2-1)" and dim - dim % 2 < 4:
        raise ValueError(
            f"dim must be an integer >= 4 for the {convention} convention (it divides by "
            f"d/2 - 1; an odd d is zero-padded, so >= 5), got {dim}"
        )
    if spec["padding_row"] and length:
        padding_idx = check_index(padding_idx, "padding_idx", length)
    elif spec["padding_row"]:  # no rows, so no padding row to place: any index >= 0
        padding_idx = check_count(padding_idx, "padding_idx", 0)
    table = sinusoidal(
        length,
        dim,
        layout=str(spec["layout"]),
        dtype=dtype,
        spacing=str(spec["spacing"]),
        method="angle_addition",
        odd_dim="zero_pad" if dim % 2 else None,
    )
    if spec["padding_row"] and length:
        table[padding_idx] = 0.0
    return table


def framework_rows(convention: str, length: int, *, padding_idx: int = 1) -> np.ndarray:
    """Rows of :func:`framework_table` read by the tokens ``0 … length - 1`` (no padding).

    Parameters
    ----------
    convention : str
        A key of :data:`CONVENTIONS`.
    length : int
        The number of tokens, at least 0.
    padding_idx : int
        fairseq's padding row, at least 0 (ignored by the other conventions).

    Returns
    -------
    numpy.ndarray
        ``padding_idx + 1 + t`` for fairseq (its ``make_positions``), ``t`` for the others.

    Examples
    --------
    >>> from posenc_lib.conventions import framework_rows
    >>> framework_rows("fairseq", 3)
    array([2, 3, 4])
    >>> framework_rows("vaswani2017", 3)
    array([0, 1, 2])
    """
    check_choice(convention, "convention", tuple(CONVENTIONS))
    length = check_count(length, "length", 0, MAX_LENGTH)
    padding_idx = check_count(padding_idx, "padding_idx", 0, 2**62)
    offset = padding_idx + 1 if CONVENTIONS[convention]["padding_row"] else 0
    return offset + np.arange(length)
