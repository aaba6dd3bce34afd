"""pytest configuration shared by the test suite and the doctests of ``posenc_lib``.

``make test-lib`` runs the docstring examples of the library (``--doctest-modules posenc_lib``).
A module whose examples need a package beyond numpy is not collected when that package is not
installed (the core works with numpy alone; ``tests/lib/test_core_imports.py`` checks
that); with the package installed, its examples run like every other.
"""

import importlib.util
import sys
from pathlib import Path

#: Modules (and test helpers) whose import or examples need a package beyond numpy.
_NEEDS = {
    "posenc_lib/nn.py": "torch",
    "course/hessian.py": "torch",
    "course/attention.py": "torch",
    "course/experiments.py": "torch",
    "course/transformer.py": "torch",
    "course/length_experiments.py": "torch",
    "posenc_lib/alibi_falcon.py": "torch",
    "posenc_lib/scaled_rotary.py": "torch",
    "course/notebook.py": "sympy",
    "posenc_lib/high_precision.py": "mpmath",
    "course/helpers_torch.py": "torch",
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


#: The tag of a cell whose figure is not compared by nbval (see ``pytest_configure``).
FIGURE_VARIES = "figure-varies"


def pytest_configure(config):
    """Under nbval, a cell's figures are also compared with the stored ones.

    nbval compares text, not images; ``scripts/execute_notebooks.py`` keeps a stored figure
    whose re-rendering is the same picture (``same_figure``). Checking that here, on every
    nbval run of every chapter (``make test``, ``make check-portable``), fails a cell whose
    figure ``make execute`` would rewrite, so an unchanged chapter changes no byte on any CPU,
    BLAS, SIMD level or thread count, without executing the chapters twice. There is no
    opt-out: a figure of round-off (a float32 error curve) must draw something that does not
    depend on the last bits (``11_engineering``, chapter 11, draws such errors as the bound
    they are checked against). Figures stored by another matplotlib version are not compared
    (``make check-oldest``).

    The one exception is a cell tagged ``figure-varies`` (:data:`FIGURE_VARIES`): a picture of
    a *trained* model, whose float32 training amplifies the back-end's round-off into every
    pixel (chapter 7's logit surfaces: up to 0.5 % of the colour range, so most pixels move by
    a level). Its text outputs are still compared, and what it shows is asserted by check
    cells from the same trained model (trained Toeplitz share > 0.7 > fresh; the mean share
    0.81 to 0.01).
    """
    if not getattr(config.option, "nbval", False):
        return
    from nbval.plugin import IPyNbCell

    if getattr(IPyNbCell.compare_outputs, "figures_checked", False):
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent / "scripts"))
    from execute_notebooks import figure_differences

    compare_text = IPyNbCell.compare_outputs

    def compare_outputs(self, test, ref, skip_compare=None):
        same = compare_text(self, test, ref, skip_compare)
        if FIGURE_VARIES in self.cell.metadata.get("tags", []):
            return same
        problems = figure_differences(test, ref)
        if problems:
            if same:
                self.comparison_traceback = []
            self.comparison_traceback += problems
            return False
        return same

    compare_outputs.figures_checked = True
    IPyNbCell.compare_outputs = compare_outputs
