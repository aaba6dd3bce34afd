r"""Interactive explorers: move :math:`d`, :math:`b` and the offset, and watch a chapter's picture.

Each function returns an :class:`Explorer`, a display object whose HTML (``_repr_html_``) is a
self-contained explorer: the controls, the charts (`uPlot <https://github.com/leeoniya/uPlot>`_,
MIT, copied from npm into ``assets/`` by ``make uplot``) and the formulas, all inlined, so that
the stored output of a chapter's cell works in the built book, offline, and the same cell works
in Colab's sandboxed output frame when run. Its plain-text form (``repr``, what nbval compares)
is one line naming the settings. The output is the same bytes on every run: the element ids
are numbered in the order of the calls, and nothing computed is stored (the browser computes).

The JavaScript (``assets/explorers.js``) computes the library's formulas in float64, and every
value an explorer draws is exposed as ``element.__explorer.values()``. An output inlines its
kind's script only, minified (``assets/explorers.<kind>.min.js``, written by
``make explorers``): about 11 kB instead of the source's 39 kB;
``tests/book/browser/test_explorer_parity.py`` drives the controls to extreme settings and
compares those values with :mod:`posenc_lib` (relative difference at most :math:`10^{-9}`).

=====================  ========  ==============================================================
function               chapter   what it shows
=====================  ========  ==============================================================
encoding_explorer      2         the table :math:`p_m` as a heatmap, waves of three pairs, the
                                 row :math:`\langle p_m, p_n\rangle`; ``d``, ``b``, layout,
                                 ``m``, pair
kernel_explorer        5         :math:`\kappa(\Delta)`, the integral and its regime forms on a
                                 log axis, :math:`\Delta^* = \pi d/\ln b`, :math:`\Delta = 1`
                                 and :math:`b` marked; ``d``, ``b``, the window of offsets
rotary_explorer        8         the relative rotary score and RoFormer's quantity against the
                                 offset; ``d``, ``b``, the window
scaling_explorer       10        a scaling method's frequency map and trained range;
                                 method, factor, training length, ``d``, ``b``
=====================  ========  ==============================================================
"""

from __future__ import annotations

import functools
import html
import itertools
import json
from importlib import resources

from .._validation import _as_float, _is_real, _message, check_choice, describe
from ..layouts import LAYOUTS

__all__ = [
    "BASES",
    "DIMS",
    "MAX_OFFSETS",
    "SCALING_METHODS",
    "Explorer",
    "encoding_explorer",
    "kernel_explorer",
    "rotary_explorer",
    "scaling_explorer",
    "standalone_html",
]


def _value_in(value: object, name: str, values: tuple[float, ...]) -> float:
    """``value`` (a real number, bool refused) if it equals one of ``values``, else raise."""
    if not _is_real(value) or _as_float(value) not in values:
        accepted = "one of " + ", ".join(f"{v:g}" for v in values)
        raise ValueError(_message(name, accepted, describe(value)))
    return values[values.index(_as_float(value))]


#: The dimensions a ``d`` slider offers (the scaling explorer starts at 4: dynamic scaling's
#: exponent :math:`d/(d-2)`).
DIMS = (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)

#: The bases a ``b`` slider offers, from close to 1 to :math:`10^6`.
BASES = (1.0001, 1.001, 1.01, 1.1, 1.5, 2.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6)

#: The largest offsets a window slider offers.
MAX_OFFSETS = (10.0, 100.0, 1e3, 1e4, 1e5, 1e6)

#: The scaling methods of :mod:`posenc_lib.rope_scaling` the scaling explorer offers (those
#: set by a factor and a training length alone).
SCALING_METHODS = ("default", "linear", "dynamic", "yarn", "llama3")

_FACTORS = (1.0, 1.5, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
_TRAINED = (256, 512, 1024, 2048, 4096, 8192, 16384, 32768)
_COUNTER = itertools.count(1)


@functools.cache
def _asset(name: str) -> str:
    return resources.files(__package__).joinpath("assets", name).read_text("utf-8")


class Explorer:
    """A display object: an interactive explorer in HTML, one plain line as text.

    Parameters
    ----------
    kind : str
        ``"encoding"``, ``"kernel"``, ``"rotary"`` or ``"scaling"``.
    config : dict
        The initial settings (JSON-serialisable), read by the JavaScript.
    summary : str
        The plain-text line (``repr``).

    Examples
    --------
    >>> from posenc_lib.course.explorers import kernel_explorer
    >>> ex = kernel_explorer(dim=64, base=1e4)
    >>> ex
    kernel explorer (d = 64, b = 10000, offsets up to 1e+06): interactive in the book and in Colab
    >>> 60_000 < ex.weight < 80_000
    True
    """

    def __init__(self, kind: str, config: dict, summary: str) -> None:
        self.kind = kind
        self.config = dict(config)
        self.summary = summary
        self.element_id = f"pe-x-{kind}-{next(_COUNTER)}"

    def __repr__(self) -> str:
        return f"{self.summary}: interactive in the book and in Colab"

    def _repr_html_(self) -> str:
        config = html.escape(json.dumps(self.config, sort_keys=True), quote=True)
        return (
            f'<div class="pe-x" id="{self.element_id}" data-kind="{self.kind}" '
            f'data-config="{config}"><p class="pe-x-static">{html.escape(self.summary)}: '
            "interactive where JavaScript runs; the static figures of the chapter show the "
            "same.</p></div>\n"
            f"<style>{_asset('uPlot.min.css')}\n{_asset('explorers.css')}</style>\n"
            f"<script>{_asset('uPlot.iife.min.js')}</script>\n"
            f"<script>{_asset(f'explorers.{self.kind}.min.js')}</script>\n"
            f'<script>PosencExplorers.mount(document.getElementById("{self.element_id}"));'
            "</script>\n"
        )

    @property
    def weight(self) -> int:
        """The size in bytes of the HTML output (UTF-8), what the explorer adds to a page."""
        return len(self._repr_html_().encode("utf-8"))


def _fmt(value: float) -> str:
    return f"{value:g}"


def encoding_explorer(
    *,
    dim: int = 64,
    base: float = 10000.0,
    layout: str = "interleaved",
    position: int = 10,
    pair: int = 4,
    length: int = 64,
) -> Explorer:
    r"""Chapter 2: the table :math:`p_m` as a heatmap, waves of pairs, the row
    :math:`\langle p_m, p_n\rangle`.

    Parameters
    ----------
    dim : int
        Initial :math:`d`, one of :data:`DIMS`.
    base : float
        Initial :math:`b`, one of :data:`BASES`.
    layout : str
        Initial layout, one of :data:`posenc_lib.LAYOUTS`.
    position : int
        Initial position :math:`m`, ``0 <= position < length``.
    pair : int
        Initial pair :math:`i` drawn besides pairs 0 and :math:`d/2 - 1` (clamped to
        :math:`d/2 - 1`), ``0 <= pair < 2048``.
    length : int
        Positions shown, one of 16, 32, 64, 128.

    Returns
    -------
    Explorer
        Three charts: the heatmap, the waves, the inner products with row :math:`m`.

    Examples
    --------
    >>> from posenc_lib.course.explorers import encoding_explorer
    >>> encoding_explorer(dim=8, layout="concatenated")
    encoding explorer (d = 8, b = 10000, concatenated, m = 10): interactive in the book and in Colab
    """
    dim = int(_value_in(dim, "dim", DIMS))
    base = _value_in(base, "base", BASES)
    check_choice(layout, "layout", LAYOUTS)
    length = int(_value_in(length, "length", (16, 32, 64, 128)))
    position = int(_value_in(position, "position", tuple(range(length))))
    pair = int(_value_in(pair, "pair", tuple(range(2048))))
    config = {"dim": dim, "base": base, "layout": layout, "position": position}
    config.update(pair=pair, length=length)
    summary = (
        f"encoding explorer (d = {dim}, b = {_fmt(base)}, {layout}, m = {position})"
    )
    return Explorer("encoding", config, summary)


def kernel_explorer(
    *, dim: int = 64, base: float = 10000.0, max_offset: float = 1e6
) -> Explorer:
    r"""Chapter 5: :math:`\kappa(\Delta)`, the integral :math:`\bar\kappa` and its regime forms.

    The sum (:func:`posenc_lib.kernel`), the integral (:func:`posenc_lib.kernel_integral`), the
    quadratic, logarithmic and :math:`1/\Delta` forms (:mod:`posenc_lib.decay`) at 240
    offsets from :math:`10^{-2}` to ``max_offset`` on a log axis, with
    :math:`\Delta^* = \pi d/\ln b` (where the sum leaves the integral), :math:`\Delta = 1` and
    :math:`\Delta = b` marked and printed. Each form is drawn on its range: the run of chart
    points, spanning at least a factor 2 in :math:`\Delta`, where it is within 0.01 of the
    integral; a form that only crosses the integral has none.

    Parameters
    ----------
    dim, base : int, float
        The initial :math:`d` (one of :data:`DIMS`) and :math:`b` (one of :data:`BASES`).
    max_offset : float
        Initial end of the window, one of :data:`MAX_OFFSETS`.

    Returns
    -------
    Explorer
        One chart on a log axis of :math:`\Delta`, with a line of text per marked offset.

    Examples
    --------
    >>> from posenc_lib.course.explorers import kernel_explorer
    >>> kernel_explorer(dim=512, max_offset=1e3)
    kernel explorer (d = 512, b = 10000, offsets up to 1000): interactive in the book and in Colab
    """
    return _offset_explorer("kernel", dim, base, max_offset)


def _offset_explorer(
    kind: str, dim: object, base: object, max_offset: object
) -> Explorer:
    """The kernel or rotary explorer: ``d``, ``b`` and a window of offsets, checked."""
    dim = int(_value_in(dim, "dim", DIMS))
    base = _value_in(base, "base", BASES)
    max_offset = _value_in(max_offset, "max_offset", MAX_OFFSETS)
    summary = f"{kind} explorer (d = {dim}, b = {_fmt(base)}, offsets up to {_fmt(max_offset)})"
    return Explorer(kind, {"dim": dim, "base": base, "window": max_offset}, summary)


def rotary_explorer(
    *, dim: int = 64, base: float = 10000.0, max_offset: float = 1e4
) -> Explorer:
    r"""Chapter 8: the relative rotary score and RoFormer's quantity against the offset.

    At most 160 distinct integer offsets, about geometric, from 1 to ``max_offset`` (log
    axis): the score
    :math:`s(\Delta)/s(0)` of :math:`q = k = \mathbf 1`
    (:func:`posenc_lib.course.shift_invariance.rotary_scores` divided by :math:`d`, which is
    :math:`\kappa(\Delta)`), and RoFormer's quantity
    :math:`\frac{2}{d}\sum_{j=1}^{d/2}|S_j(\Delta)|`, :math:`S_j = \sum_{i<j}
    e^{\mathrm i\Delta\theta_i}`, divided by its value :math:`(d/2+1)/2` at 0; the rms floor
    :math:`1/\sqrt d` and the random-phase level :math:`\frac{2}{d}\sum_j\sqrt{\pi j}/2`
    (relative to the value at 0) are marked: the curves' levels as :math:`\Delta \to \infty`,
    which the window reaches for :math:`d \ge 8` and moderate :math:`b`, not at :math:`d = 2`.

    Parameters
    ----------
    dim, base, max_offset
        The head dimension, the base and the end of the window, each checked as
        :func:`kernel_explorer` checks them.

    Returns
    -------
    Explorer
        Both curves and both levels on one chart.

    Examples
    --------
    >>> from posenc_lib.course.explorers import rotary_explorer
    >>> rotary_explorer()
    rotary explorer (d = 64, b = 10000, offsets up to 10000): interactive in the book and in Colab
    """
    return _offset_explorer("rotary", dim, base, max_offset)


def scaling_explorer(
    *,
    method: str = "yarn",
    factor: float = 4.0,
    trained_length: int = 4096,
    dim: int = 128,
    base: float = 10000.0,
) -> Explorer:
    r"""Training length: a scaling method's frequency map and the range trained on.

    For :class:`posenc_lib.rope_scaling.RopeScaling` with the method, ``factor`` :math:`s` and
    the training length :math:`L` (``max_position_embeddings`` of ``"dynamic"``,
    ``original_max_position_embeddings`` of ``"yarn"`` and ``"llama3"``, their other
    parameters at their defaults), at the target length :math:`sL` (``seq_len``): the map
    :math:`\theta'_i/\theta_i` against the pair :math:`i`, and per pair the largest angle seen
    in training, :math:`L\theta_i`, against the angle needed at the target,
    :math:`sL\,\theta'_i`, with :math:`2\pi` marked.

    Parameters
    ----------
    method : str
        One of :data:`SCALING_METHODS`.
    factor : float
        :math:`s`, one of 1, 1.5, 2, 4, 8, 16, 32, 64.
    trained_length : int
        :math:`L`, a power of two from 256 to 32768.
    dim : int
        Head dimension, one of :data:`DIMS` from 4.
    base : float
        One of :data:`BASES`.

    Returns
    -------
    Explorer
        Two charts against the pair :math:`i`: the frequency map, and the angles with
        :math:`2\pi` marked.

    Examples
    --------
    >>> from posenc_lib.course.explorers import scaling_explorer
    >>> scaling_explorer(method="linear", factor=8.0).summary
    'scaling explorer (linear, s = 8, L = 4096, d = 128, b = 10000)'
    """
    check_choice(method, "method", SCALING_METHODS)
    factor = _value_in(factor, "factor", _FACTORS)
    trained_length = int(_value_in(trained_length, "trained_length", _TRAINED))
    dim = int(_value_in(dim, "dim", DIMS[1:]))
    base = _value_in(base, "base", BASES)
    config = {"method": method, "factor": factor, "trained": trained_length}
    config.update(dim=dim, base=base)
    summary = (
        f"scaling explorer ({method}, s = {_fmt(factor)}, L = {trained_length}, "
        f"d = {dim}, b = {_fmt(base)})"
    )
    return Explorer("scaling", config, summary)


def standalone_html(*explorers: Explorer, title: str = "Explorers") -> str:
    """A whole HTML page holding the explorers' outputs (for the browser tests and to try one).

    Parameters
    ----------
    *explorers : Explorer
        The explorers, one after the other.
    title : str
        The page title.

    Returns
    -------
    str
        An HTML document with no external resource, ``<!DOCTYPE html>`` first and the
        explorers' outputs in its body.

    Examples
    --------
    >>> from posenc_lib.course.explorers import rotary_explorer, standalone_html
    >>> standalone_html(rotary_explorer()).startswith("<!DOCTYPE html>")
    True
    """
    for k, ex in enumerate(explorers):
        if not isinstance(ex, Explorer):
            raise TypeError(
                f"explorers[{k}] must be an Explorer, got {type(ex).__name__}"
            )
    body = "\n".join(ex._repr_html_() for ex in explorers)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title></head>\n<body>\n{body}\n</body></html>\n"
    )
