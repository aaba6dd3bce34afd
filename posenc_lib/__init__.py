"""posenc_lib: the companion library of *Sinusoidal Positional Encoding, Derived and Tested*.

The core (this namespace) needs only numpy. Modules that need SymPy (``symbolic``) or PyTorch
(``nn``, ``hessian``, ``experiments``) import them themselves and are not imported here.
"""

from .encoding import (
    LAYOUTS,
    SPACINGS,
    angles,
    convert_layout,
    frequencies,
    layout_permutation,
    rotation,
    shift_matrix,
    sinusoidal,
    wavelengths,
)
from .kernel import kernel, kernel_integral

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
