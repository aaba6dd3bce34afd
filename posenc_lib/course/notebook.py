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
COLORS = (
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#F0E442",
    "#000000",
)

#: matplotlib rc parameters of every figure in the book.
#:
#: Figures are PNG at twice their display resolution (:func:`use_book_style`), shown
#: at ``figsize`` x ``figure.dpi`` CSS pixels: 5.2 in x 90 = 468 px, which fits the
#: book's column on a desktop (784 px) and which a phone's column (about 342 px)
#: shows at 0.73x. The smallest text, 10 pt (tick labels, legends), is then 12.5 px
#: on a desktop and 9.1 px on a phone: at or above the 9 px that the browser check
#: (``tests/book/browser``) requires. A wider ``figsize`` shrinks all text on a phone in
#: proportion.
STYLE = {
    "figure.figsize": (5.2, 3.2),
    # Also the size in the "<Figure size WxH with N Axes>" repr that nbval compares.
    "figure.dpi": 90,
    "savefig.dpi": 180,
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "legend.fontsize": 10,
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
    """Apply the book's matplotlib style globally (call once at the top of a notebook).

    In IPython, figures are also shown as PNG at twice ``figure.dpi``, with their
    display size in the output's metadata (sharp on high-density screens, shown at the
    size :data:`STYLE` sets), and each PNG records the size of its smallest text, in
    points, as its text chunk ``posenc:min-text-pt``: the book's browser check reads it
    to tell whether the text is legible at the width the page shows the figure.
    """
    import matplotlib as mpl
    from cycler import cycler

    try:
        from IPython import get_ipython
        from IPython.core.pylabtools import retina_figure
    except ImportError:
        shell = None
    else:
        shell = get_ipython()
    backend = mpl.get_backend()
    if shell is not None and backend.startswith("module://"):
        # The inline backend registers its own figure formatters when it is loaded (at
        # the first figure): load it now, so that the book's style and formatter win.
        import importlib

        importlib.import_module(backend.removeprefix("module://"))
    mpl.rcParams.update(STYLE)
    mpl.rcParams["axes.prop_cycle"] = cycler(color=COLORS)
    if shell is None:
        return

    def book_png(figure: Any) -> Any:
        from matplotlib.text import Text

        sizes = [
            text.get_fontsize()
            for text in figure.findobj(Text)
            if text.get_visible() and text.get_text().strip()
        ]
        metadata = {"posenc:min-text-pt": f"{min(sizes):g}"} if sizes else {}
        return retina_figure(figure, base64=True, metadata=metadata)

    from matplotlib.figure import Figure

    formatters = shell.display_formatter.formatters
    for mime in ("image/svg+xml", "image/jpeg", "application/pdf"):
        formatters[mime].pop(Figure, None)
    formatters["image/png"].for_type(Figure, book_png)


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
    return (
        sp.simplify(sp.expand_complex(sp.expand(sp.sympify(expr).rewrite(sp.exp)))) == 0
    )


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
