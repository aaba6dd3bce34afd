"""The shared notebook helpers: figure style, math display, formatted checks."""

import pytest

from posenc_lib.course.notebook import COLORS, STYLE, use_book_style


def test_use_book_style_sets_the_rc_parameters_and_colour_cycle():
    mpl = pytest.importorskip("matplotlib")
    with mpl.rc_context():
        use_book_style()
        assert tuple(mpl.rcParams["figure.figsize"]) == STYLE["figure.figsize"]
        assert mpl.rcParams["axes.grid"] is True
        cycle = [entry["color"] for entry in mpl.rcParams["axes.prop_cycle"]]
        assert [c.lower() for c in cycle] == [c.lower() for c in COLORS]


def test_show_displays_lhs_equals_expr_as_math(monkeypatch):
    sp = pytest.importorskip("sympy")
    display_mod = pytest.importorskip("IPython.display")
    from posenc_lib.course import notebook

    shown = []
    monkeypatch.setattr(display_mod, "display", shown.append)
    x = sp.Symbol("x")
    notebook.show("f(x)", sp.sin(x) ** 2)
    notebook.show(sp.Eq(x, 1))
    assert [m.data for m in shown] == [r"f(x) = \sin^{2}{\left(x \right)}", "x = 1"]


def test_is_zero_needs_the_exponential_rewrite_for_products_of_sines():
    sp = pytest.importorskip("sympy")
    from posenc_lib.course.notebook import is_zero

    a, b = sp.symbols("a b", real=True)
    identity = sp.sin(a) * sp.sin(b) - (sp.cos(a - b) - sp.cos(a + b)) / 2
    assert is_zero(identity)
    assert not is_zero(identity + sp.Rational(1, 10**9))


def test_fmt_small_prints_a_bound_below_the_floor_and_two_digits_above():
    from posenc_lib.course.notebook import fmt_small

    assert fmt_small(0.0) == "< 1e-12"
    assert fmt_small(-5e-13) == "< 1e-12"
    assert fmt_small(1.04e-12) == "1.0e-12"
    assert fmt_small(float("nan")) == "nan"


def test_check_asserts_and_prints(capsys):
    from posenc_lib.course.notebook import check

    check("holds", True, "detail")
    assert capsys.readouterr().out == "holds" + " " * 40 + "detail\n"
    with pytest.raises(AssertionError, match="fails: why"):
        check("fails", False, "why")
