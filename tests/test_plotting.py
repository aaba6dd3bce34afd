"""The book's figure style is applied as documented."""

import pytest

from posenc_lib.plotting import COLORS, STYLE, use_book_style


def test_use_book_style_sets_the_rc_parameters_and_colour_cycle():
    mpl = pytest.importorskip("matplotlib")
    with mpl.rc_context():
        use_book_style()
        assert tuple(mpl.rcParams["figure.figsize"]) == STYLE["figure.figsize"]
        assert mpl.rcParams["axes.grid"] is True
        cycle = [entry["color"] for entry in mpl.rcParams["axes.prop_cycle"]]
        assert [c.lower() for c in cycle] == [c.lower() for c in COLORS]
