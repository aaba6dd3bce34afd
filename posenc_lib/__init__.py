r"""posenc_lib: the companion library of *Sinusoidal Positional Encoding, Derived and Tested*.

The chapters hold the mathematics; the library holds the tools they reuse and that a reader
imports. The core names below (``import posenc_lib as pe``) need only numpy. Every other module is
imported by name (``from posenc_lib import decay``); those marked *torch* or *mpmath* need
that package.

Where to look, by chapter:

=======================  ====================================================================
chapter                  modules
=======================  ====================================================================
1 Why position?          :mod:`~posenc_lib.naive` (naive position codes), the core
2 The encoding           the core: :mod:`~posenc_lib.encoding`, :mod:`~posenc_lib.layouts`;
                         :mod:`~posenc_lib.distances` (closest encodings)
3 Taylor expansion       :mod:`~posenc_lib.hessian` (autograd, *torch*),
                         :mod:`~posenc_lib.attention` (small attention functions, *torch*)
4 Complex derivation     the core; :mod:`~posenc_lib.shift_invariance` (``toeplitz_defect``)
5 Long-range decay       :mod:`~posenc_lib.exact_kernel`, :mod:`~posenc_lib.decay`,
                         :mod:`~posenc_lib.special`
6 The exact sum          :mod:`~posenc_lib.exact_kernel` (``kernel_from_frequencies``),
                         :mod:`~posenc_lib.decay`, :mod:`~posenc_lib.special`,
                         :mod:`~posenc_lib.distances`
7 The Hessian            :mod:`~posenc_lib.shift_invariance`, :mod:`~posenc_lib.dominance`,
                         :mod:`~posenc_lib.spectrum`, :mod:`~posenc_lib.pretrained` (shipped
                         data), :mod:`~posenc_lib.hessian`, :mod:`~posenc_lib.attention`
8 Rotary embeddings      :mod:`~posenc_lib.shift_invariance` (``rotary_scores``),
                         :mod:`~posenc_lib.nn` (``RotaryEmbedding``, *torch*); rotary scaling:
                         :mod:`~posenc_lib.rope_scaling` (frequency schedules),
                         :mod:`~posenc_lib.scaled_rotary` (the module, *torch*)
9 Experiments            :mod:`~posenc_lib.nn` (*torch*), :mod:`~posenc_lib.experiments`
                         (runner and CLI, *torch*)
10 Beyond the training   :mod:`~posenc_lib.rope_scaling`, :mod:`~posenc_lib.scaled_rotary`
                         (*torch*), :mod:`~posenc_lib.exact_kernel`,
                         :mod:`~posenc_lib.course.length_experiments` (the experiment, *torch*)
11 Engineering           :mod:`~posenc_lib.angle_addition` (fast tables),
                         :mod:`~posenc_lib.error_bounds`, :mod:`~posenc_lib.high_precision`
                         (*mpmath*), :mod:`~posenc_lib.conventions` (framework tables),
                         :mod:`~posenc_lib.nn`, :mod:`~posenc_lib.alibi_falcon` (Falcon's
                         ALiBi, *torch*), :mod:`~posenc_lib.sincos2d` (2-D image tables)
every chapter            :mod:`~posenc_lib.notebook` (display, checks, figure style)
=======================  ====================================================================

The core: :func:`sinusoidal` (the position table), :func:`frequencies`, :func:`wavelengths`,
:func:`angles`, :func:`rotation`, :func:`shift_matrix`, :func:`kernel`, :func:`kernel_integral`,
:data:`LAYOUTS`, :data:`SPACINGS`, :func:`convert_layout`, :func:`layout_permutation`. Every
optional argument is keyword-only (``pe.kernel(delta, 64, base=500.0)``).

Examples
--------
>>> import posenc_lib as pe
>>> pe.sinusoidal(3, 4).shape
(3, 4)
"""

from .decay import kernel_integral
from .encoding import (
    SPACINGS,
    angles,
    frequencies,
    rotation,
    shift_matrix,
    sinusoidal,
    wavelengths,
)
from .exact_kernel import kernel
from .layouts import LAYOUTS, convert_layout, layout_permutation

__version__ = "0.1.0"

__all__ = [
    "LAYOUTS",
    "SPACINGS",
    "angles",
    "convert_layout",
    "frequencies",
    "kernel",
    "kernel_integral",
    "layout_permutation",
    "rotation",
    "shift_matrix",
    "sinusoidal",
    "wavelengths",
]
