"""The chapters import torch (and SymPy, matplotlib, IPython): without them, as in the first,
torch-free phase of ``make check-oldest``, their control tests are not collected. Every other
set-up (``make test``, CI) has them all, so nothing is skipped there."""

import importlib.util

collect_ignore_glob = (
    ["test_*.py"]
    if any(
        importlib.util.find_spec(name) is None
        for name in ("torch", "sympy", "matplotlib", "IPython")
    )
    else []
)
