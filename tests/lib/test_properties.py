"""Property-based tests (hypothesis) of the identities the book proves."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_lib as pe

dims = st.integers(min_value=1, max_value=64).map(lambda half: 2 * half)
bases = st.floats(min_value=1.5, max_value=1e6)
positions = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False)
layouts = st.sampled_from(pe.LAYOUTS)
spacings = st.sampled_from(pe.SPACINGS)

settings.register_profile("book", max_examples=60, deadline=None)
settings.load_profile("book")


@given(m=positions, k=positions, dim=dims, base=bases, layout=layouts, spacing=spacings)
def test_shift_identity(m, k, dim, base, layout, spacing):
    """p_{m+k} = M_k p_m for every m, k, dimension, base, layout and spacing."""
    options = {"base": base, "layout": layout, "spacing": spacing}
    p_m = pe.sinusoidal([m], dim, **options)[0]
    p_mk = pe.sinusoidal([m + k], dim, **options)[0]
    moved = pe.shift_matrix(k, dim, **options) @ p_m
    # Angles up to 2e4 rad carry float64 rounding of ~2e4 * 2.2e-16 each.
    np.testing.assert_allclose(moved, p_mk, atol=1e-10)


@given(
    m=st.lists(positions, min_size=1, max_size=20), dim=dims, base=bases, layout=layouts
)
def test_norm_is_sqrt_half_dim(m, dim, base, layout):
    norms = np.linalg.norm(pe.sinusoidal(m, dim, base=base, layout=layout), axis=1)
    np.testing.assert_allclose(norms, np.sqrt(dim / 2), rtol=1e-12)


@given(m=positions, n=positions, shift=positions, dim=dims, base=bases)
def test_inner_product_depends_only_on_offset(m, n, shift, dim, base):
    """<p_m, p_n> = <p_{m+s}, p_{n+s}> = (d/2) kappa(m - n)."""
    table = pe.sinusoidal([m, n, m + shift, n + shift], dim, base=base)
    direct = table[0] @ table[1]
    moved = table[2] @ table[3]
    from_kernel = dim / 2 * pe.kernel(m - n, dim, base=base)
    np.testing.assert_allclose([moved, from_kernel], direct, atol=1e-9 * dim)
