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


def pytest_ignore_collect(collection_path, config):
    """Skip a module of :data:`_NEEDS` whose package is missing, wherever the module lies: in
    this checkout or installed (``make check-oldest`` runs the installed library's doctests)."""
    package = _NEEDS.get(f"{collection_path.parent.name}/{collection_path.name}")
    if package is not None and importlib.util.find_spec(package) is None:
        return True
    return None


def pytest_terminal_summary(terminalreporter):
    """Print the summary lines that tests record as ``api_*`` properties (the API fuzz)."""
    for outcome in ("passed", "failed"):
        for report in terminalreporter.stats.get(outcome, []):
            for key, value in getattr(report, "user_properties", ()):
                if key.startswith("api_"):
                    terminalreporter.write_line(str(value))
