"""Helpers the chapters share: math display, formatted checks, and the figure style.

One module, so that no notebook defines its own ``show`` or ``verdict``. Nothing here is
mathematics: a chapter's derivation runs in the chapter's own cells.

* :func:`show` displays ``lhs = expr`` as math (MathJax, never PNG);
* :func:`is_zero` asks SymPy whether an expression simplifies to zero;
* :func:`fmt_small` prints a round-off-level number as a bound, so stored outputs do not depend
  on the CPU, BLAS or SIMD level;
* :func:`check` asserts a claim and prints one aligned line for it;
* :func:`use_book_style`, :data:`COLORS` and :data:`STYLE` are the figure style.

IPython, SymPy and matplotlib are imported only by the function that needs them.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "COLORS",
    "LABEL_WIDTH",
    "STYLE",
    "check",
    "fmt_small",
    "is_zero",
    "show",
    "use_book_style",
]

#: Colour cycle (colour-blind safe, Okabe–Ito).
COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")

#: matplotlib rc parameters of every figure in the book.
STYLE = {
    "figure.figsize": (7.0, 3.6),
    "figure.dpi": 90,
    "savefig.dpi": 90,
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "lines.linewidth": 1.5,
    "image.cmap": "RdBu_r",
}

#: Width of the label column printed by :func:`check`.
LABEL_WIDTH = 44


def use_book_style() -> None:
    """Apply the book's matplotlib style globally (call once at the top of a notebook)."""
    import matplotlib as mpl
    from cycler import cycler

    mpl.rcParams.update(STYLE)
    mpl.rcParams["axes.prop_cycle"] = cycler(color=COLORS)


def show(lhs: Any, expr: Any = None) -> None:
    """Display ``lhs = expr`` as one line of math.

    Parameters
    ----------
    lhs : str or sympy expression
        LaTeX text (used as is) or a SymPy object (rendered with :func:`sympy.latex`). With
        ``expr`` omitted, ``lhs`` alone is displayed, which is how an equation
        (``sympy.Eq``) is shown.
    expr : sympy expression or str, optional
        The right-hand side.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> show("f(x)", sp.sin(x) ** 2)  # doctest: +SKIP
    """
    from IPython.display import Math, display

    display(Math(_latex(lhs) if expr is None else f"{_latex(lhs)} = {_latex(expr)}"))


def _latex(part: Any) -> str:
    if isinstance(part, str):
        return part
    import sympy as sp

    return sp.latex(part)


def is_zero(expr: Any) -> bool:
    """True when SymPy simplifies ``expr`` to exactly zero.

    ``simplify`` is tried first; when it leaves a residue, the expression is rewritten in
    exponentials and expanded, which settles the trigonometric identities ``simplify`` misses.
    A ``False`` means "not shown to be zero", never "shown to be non-zero": a chapter that
    needs the latter evaluates the expression at a point.

    Examples
    --------
    >>> import sympy as sp
    >>> a, b = sp.symbols("a b", real=True)
    >>> is_zero(sp.sin(a + b) - sp.sin(a) * sp.cos(b) - sp.cos(a) * sp.sin(b))
    True
    >>> is_zero(sp.sin(a) - a)
    False
    """
    import sympy as sp

    if sp.simplify(expr) == 0:
        return True
    return sp.simplify(sp.expand_complex(sp.expand(sp.sympify(expr).rewrite(sp.exp)))) == 0


def fmt_small(value: float, floor: float = 1e-12) -> str:
    """Format an error or defect so that stored outputs reproduce on any machine.

    Values below ``floor`` differ in their digits from one CPU, BLAS or SIMD level to another,
    so they print as the bound ``"< floor"``; larger ones print with two significant digits.

    Parameters
    ----------
    value : float
        A non-negative error, defect or residual.
    floor : float, default 1e-12
        The round-off level below which only the bound is printed.

    Returns
    -------
    str

    Examples
    --------
    >>> fmt_small(3.1e-16)
    '< 1e-12'
    >>> fmt_small(2.345e-3)
    '2.3e-03'
    >>> fmt_small(4e-9, floor=1e-8)
    '< 1e-08'
    """
    if value != value:  # NaN: say so instead of hiding it behind a bound
        return "nan"
    return f"< {floor:.0e}" if abs(value) < floor else f"{value:.1e}"


def check(label: str, ok: bool, detail: str = "") -> None:
    """Assert a claim and print one aligned line for it.

    The ``assert`` is what fails the notebook (and so nbval) when the claim stops holding; the
    printed line is what the reader sees.

    Examples
    --------
    >>> check("1 + 1 = 2", 1 + 1 == 2, "exact")
    1 + 1 = 2                                    exact
    >>> check("1 + 1 = 3", 1 + 1 == 3, "off by one")
    Traceback (most recent call last):
    ...
    AssertionError: 1 + 1 = 3: off by one
    """
    if not ok:  # not ``assert``: ``python -O`` would skip it
        raise AssertionError(f"{label}: {detail}")
    print(f"{label:<{LABEL_WIDTH}} {detail}".rstrip())
