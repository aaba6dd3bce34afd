"""pytest configuration shared by the test suite and the doctests of ``posenc_lib``.

``make test-lib`` runs the docstring examples of the library (``--doctest-modules posenc_lib``).
A module whose examples need a package beyond numpy is not collected when that package is not
installed (the core works with numpy alone; ``tests/test_core_imports.py`` checks that); with the
package installed, its examples run like every other.
"""

import importlib.util

#: Modules (and test helpers) whose import or examples need a package beyond numpy.
_NEEDS = {
    "posenc_lib/nn.py": "torch",
    "posenc_lib/hessian.py": "torch",
    "posenc_lib/attention.py": "torch",
    "posenc_lib/experiments.py": "torch",
    "posenc_lib/notebook.py": "sympy",
    "posenc_lib/high_precision.py": "mpmath",
    "tests/helpers_torch.py": "torch",
}

collect_ignore = [
    path
    for path, package in _NEEDS.items()
    if importlib.util.find_spec(package) is None
]


def pytest_terminal_summary(terminalreporter):
    """Print the summary lines that tests record as ``api_*`` properties (the API fuzz)."""
    for outcome in ("passed", "failed"):
        for report in terminalreporter.stats.get(outcome, []):
            for key, value in getattr(report, "user_properties", ()):
                if key.startswith("api_"):
                    terminalreporter.write_line(str(value))
