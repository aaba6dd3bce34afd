"""The book's figure style: one place for sizes, fonts and colours."""

from __future__ import annotations

#: Colour cycle (colour-blind safe, Okabe–Ito).
COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")

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


def use_book_style() -> None:
    """Apply the book's matplotlib style globally (call once at the top of a notebook)."""
    import matplotlib as mpl
    from cycler import cycler

    mpl.rcParams.update(STYLE)
    mpl.rcParams["axes.prop_cycle"] = cycler(color=COLORS)
