r"""posenc_lib: the companion library of *Sinusoidal Positional Encoding, Derived and Tested*.

The chapters hold the mathematics; the library holds the tools they reuse and that a reader
imports. It has two parts. The reusable library is this package's modules: the core names below
(``import posenc_lib as pe``) need only numpy; every other module is imported by name
(``from posenc_lib import decay``); those marked *torch* or *mpmath* need that package. The course
subpackage ``posenc_lib.course`` holds what only the chapters use (``from posenc_lib.course
import hessian as hs``); it may import the library, never the reverse.

Where to look, by chapter (library; course):

=======================  ====================================================================
chapter                  modules
=======================  ====================================================================
1 Why position?          the core; course: :mod:`~posenc_lib.course.naive`
2 The encoding           the core: :mod:`~posenc_lib.encoding`, :mod:`~posenc_lib.layouts`;
                         :mod:`~posenc_lib.distances`; course: ``naive``
3 Taylor expansion       the core; course: :mod:`~posenc_lib.course.hessian` (*torch*),
                         :mod:`~posenc_lib.course.attention` (*torch*),
                         :mod:`~posenc_lib.course.shift_invariance`
4 Complex derivation     the core; course: ``shift_invariance`` (``toeplitz_defect``)
5 Long-range decay       :mod:`~posenc_lib.exact_kernel`, :mod:`~posenc_lib.decay`,
                         :mod:`~posenc_lib.special`
6 The exact sum          :mod:`~posenc_lib.exact_kernel` (``kernel_from_frequencies``),
                         :mod:`~posenc_lib.decay`, :mod:`~posenc_lib.special`,
                         :mod:`~posenc_lib.distances`
7 The Hessian            :mod:`~posenc_lib.layouts`; course: ``shift_invariance``,
                         :mod:`~posenc_lib.course.dominance`,
                         :mod:`~posenc_lib.course.spectrum`,
                         :mod:`~posenc_lib.course.pretrained` (shipped data), ``hessian``,
                         ``attention``, :mod:`~posenc_lib.course.experiments`
8 Rotary embeddings      :mod:`~posenc_lib.nn` (``RotaryEmbedding``, *torch*); rotary scaling:
                         :mod:`~posenc_lib.rope_scaling` (frequency schedules),
                         :mod:`~posenc_lib.scaled_rotary` (the module, *torch*); course:
                         ``shift_invariance`` (``rotary_scores``)
9 Experiments            :mod:`~posenc_lib.nn` (*torch*); course:
                         :mod:`~posenc_lib.course.transformer` (*torch*),
                         ``experiments`` (the runner, *torch*; its command line is
                         ``scripts/experiments.py``)
10 Training length       :mod:`~posenc_lib.rope_scaling`, :mod:`~posenc_lib.scaled_rotary`
                         (*torch*), :mod:`~posenc_lib.exact_kernel`; course:
                         :mod:`~posenc_lib.course.length_experiments` (the experiment, *torch*)
11 Engineering           :mod:`~posenc_lib.angle_addition` (fast tables),
                         :mod:`~posenc_lib.error_bounds`, :mod:`~posenc_lib.high_precision`
                         (*mpmath*), :mod:`~posenc_lib.conventions` (framework tables),
                         :mod:`~posenc_lib.nn`, :mod:`~posenc_lib.alibi_falcon` (Falcon's
                         ALiBi, *torch*), :mod:`~posenc_lib.sincos2d` (2-D image tables)
every chapter            course: :mod:`~posenc_lib.course.notebook` (display, checks, figure
                         style)
2, 5, 8, 10              course: :mod:`~posenc_lib.course.explorers` (interactive explorers of
                         the table, the kernel, the rotary score and rotary scaling)
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
