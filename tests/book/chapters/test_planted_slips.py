"""Controls of the chapters' check cells: a planted slip in a chapter's code must be rejected.

Each row runs its chapter in-process up to one check cell with a plausible slip planted
(``tests/book/chapters/runner.py``) and asserts that this check cell, and no cell before it,
rejects it. A row is ``(chapter, check, old, new)``, or ``(..., says)`` where the check's error
must also say ``says``. The slips of chapters 9 and 10 target the checks before any training,
so each run takes a few seconds.
"""

from __future__ import annotations

import re

import pytest

from tests.book.chapters.runner import expect_check_fails

SLIPS = {
    # ---- chapter 1
    # the permuted input perturbed: Attn(PX) no longer P Attn(X)
    "01-perturbed-input": (
        "01", "MultiheadAttention, random P",
        "self_attend(attn, X[:, perm])\n", "self_attend(attn, X[:, perm] + 1e-6)\n",
    ),
    # a wrong denominator in the causal counting formula (ch1-causal-count)
    "01-causal-count": (
        "01", "causal outputs: counting formula",
        "(v_bos + m * v_tok) / (m + 1)", "(v_bos + m * v_tok) / (m + 2)",
    ),
    # the read-out offset c taken from the wrong value vector: u^T(out_m - c)/|u|^2 != 1/(m+1)
    "01-read-out-offset": (
        "01", "causal outputs: counting formula",
        "uniform.out_proj(v_tok), uniform", "uniform.out_proj(v_bos), uniform",
    ),
    # a dropped half angle in (ch1-step): caught by 2 - 2 cos and by the measured steps
    "01-half-angle": (
        "01", "measured steps at m < 10⁴", "np.sin(theta / 2) ** 2", "np.sin(theta) ** 2"
    ),
    # ---- chapter 2
    # R(+k theta) in place of R(-k theta) on (sin, cos) pairs: the slip the chapter warns of
    "02-transposed-block": (
        "02", "SymPy: block residuals zero",
        "return sp.Matrix([[c, s], [-s, c]])", "return sp.Matrix([[c, -s], [s, c]])",
    ),
    # "cos only" built from the whole table: the check that each half alone fails must fail
    "02-sines-left-in": (
        "02", "halves alone", '"cos only": full[:, 1::2]', '"cos only": full'
    ),
    # ---- chapter 3
    # The second-order groups counted twice (the 1/2 of the Taylor coefficient dropped): the
    # error of T_2 then shrinks only like eps^2, and its ratio to eps^3 grows tenfold per decade.
    "03-dropped-half-of-second-order": (
        "03", "error/eps^3 of T_2 changes < 1%",
        "derived = instantiate(e3, f3)",
        "derived = instantiate(e3, f3) + instantiate("
        "e3, f3, degrees={(2, 0), (0, 2), (1, 1)})",
        "ratio settles",
    ),
    # ---- chapter 4
    # phi_n - phi_m instead of phi_m - phi_n on the left of the hand-typed phase equation
    # (ch4-polar): SymPy's polar equation no longer holds identically.
    "04-phase-equation-wrong-way-round": (
        "04", "(ch4-polar), solved for phi_m",
        "phi(m) - phi(n), Phi(m - n) + 2 * sp.pi * K(m, n)",
        "phi(n) - phi(m), Phi(m - n) + 2 * sp.pi * K(m, n)",
        "solves SymPy's polar equation",
    ),
    # ---- chapter 5
    # 1.5 times too small: the bound still holds, the ratio to 2/3 catches it
    "05-peano-constant-1/12": (
        "05", "(ch5-small-bound) holds",
        "peano_constant = 1 / 8", "peano_constant = 1 / 12",
    ),
    # 3 times too small: the bound itself fails on the integer offsets
    "05-peano-constant-1/24": (
        "05", "(ch5-small-bound) holds",
        "peano_constant = 1 / 8", "peano_constant = 1 / 24",
    ),
    # ---- chapter 6
    # the alpha = 1/2 dip explained by the band near the fastest frequency, not the slowest
    "06-band-from-the-wrong-end": (
        "06_aliasing_floor_schedules", "193 pairs within 2× of 1/16",
        "band = root[root <= 2 * root.min()]", "band = root[root >= root.max() / 2]",
    ),
    # ---- chapter 7
    # (ch7-relative) is a cos - b sin; a + b sin is the classic sign slip
    "07-sine-term-sign": (
        "07", "(ch7-relative), sign included",
        "rhs = np.sum(a_i * np.cos(lag) - b_i * np.sin(lag), axis=-1)",
        "rhs = np.sum(a_i * np.cos(lag) + b_i * np.sin(lag), axis=-1)",
    ),
    # aI - bJ in place of aI + bJ is still relative and idempotent: only the orthogonality of
    # the residual can catch it
    "07-projection-b-sign": (
        "07", "relative_projection: relative, idempotent",
        "proj = si.relative_projection(h_gen)\n",
        "proj = si.relative_projection(h_gen)\n"
        "proj = proj - sum(np.sum(proj * e) * e for e in spanning[1::2])\n",
    ),
    # ---- chapter 8
    # the random walk's mean |S_j| taken as sqrt(j), without the Rayleigh factor sqrt(pi)/2
    "08-random-phase-level": (
        "08", "random-phase level within 5%",
        "np.mean(np.sqrt(np.pi * j_far) / 2)", "np.mean(np.sqrt(j_far))",
    ),
    # the long-run mean square without its half
    "08-mean-square-half": (
        "08", "theorem (a), d = 64",
        "limit_ms = np.sum(amp**2) / 2", "limit_ms = np.sum(amp**2)",
    ),
    # S_j in place of S_{j+1}: an off-by-one in the summation by parts
    "08-abel-shifted-partial-sums": (
        "08", "(ch7-abel): identity",
        "abel = np.real(-s_parts @ steps)",
        "abel = np.real(-np.hstack([np.zeros((sample.size, 1)), s_parts[:, :-1]]) @ steps)",
    ),
    # The value at Delta = 0 is compared three ways (float64 scan, 30-digit definition, SymPy's
    # closed form): a slip in either the constant or the scan is rejected.
    # A wrong constant: the 0-based sum 0 + 1 + ... + (d/2 - 1) gives d/4 - 1/2 = 15.5
    "08-closed-form-index-range": (
        "08", "level at Δ = 0",
        "sp.summation(j_sym, (j_sym, 1, half))",
        "sp.summation(j_sym, (j_sym, 0, half - 1))",
    ),
    # a wrong normalization of the computed quantity: 1/d in place of 1/(d/2)
    "08-level-normalization": (
        "08", "level at Δ = 0", "theta64)).mean(axis=1)", "theta64)).sum(axis=1) / d_r"
    ),
    # theta_7 is not theta_0 / 10: the time average is then near 0, not 1
    "08-phase-relation-partner": (
        "08", "θ_{j+8}/θ_j = 1/10",
        "10 * deltas_b * theta64[8]", "10 * deltas_b * theta64[7]",
    ),
    # ---- chapter 9
    "09-rotation-direction": (
        "09", "rotary applies R_m",
        "R[a, a], R[a, c] = np.cos(angle), -np.sin(angle)",
        "R[a, a], R[a, c] = np.cos(angle), np.sin(angle)",
    ),
    "09-multinomial-scale": (
        "09", "the exact E[max count]",
        "log_scale = lgamma(t + 1) - t * np.log(vocab)",
        "log_scale = lgamma(t) - t * np.log(vocab)",
    ),
    # ---- chapter 10: the derived maps
    # NTK-aware base from interpolating pair d/2 (exponent 1) instead of the last pair
    "10-ntk-exponent": (
        "10", "5 SymPy maps = rope_scaling", "last = d / 2 - 1", "last = d / 2"
    ),
    # YaRN's blend with the kept and interpolated shares swapped
    "10-yarn-blend-swapped": (
        "10", "5 SymPy maps = rope_scaling",
        "blend = (1 - gamma) * theta_i / s + gamma * theta_i",
        "blend = gamma * theta_i / s + (1 - gamma) * theta_i",
    ),
    # Llama 3's ramp between 1 and 4 turns written over 1 to 3
    "10-llama3-ramp-width": (
        "10", "5 SymPy maps = rope_scaling", "(turns - 1) / 3", "(turns - 1) / 2"
    ),
    # wavelength = L solved with the frequency 2 pi / L mistaken for 1 / L
    "10-critical-pair-frequency": (
        "10", "i_c: SymPy = typed form",
        "wavelength_eq = sp.Eq(2 * sp.pi / theta_i, L)",
        "wavelength_eq = sp.Eq(1 / theta_i, L)",
    ),
    # counting every pair as out of range, not only those that never completed a turn
    "10-trained-range-full-turn": (
        "10", "NTK excess = s^(1-2i/(d-2))",
        "out = (ratio > 1 + 1e-9) & (seen < 2 * math.pi)", "out = ratio > 1 + 1e-9",
    ),
    # the resolution table computed with the unscaled frequencies for every method
    "10-table-forgets-the-map": (
        "10", "PI: κ' = κ(Δ/s)",
        'new = theta if method == "none" else scaled(method, b_)', "new = theta",
    ),
    # the figures' critical_pair with d ln(L/2pi)/ln b, i.e. the factor 2 of d/2 dropped
    "10-critical-pair-helper-factor-two": (
        "10", "i_c: SymPy = typed form = wavelengths = critical_pair",
        "return d * math.log(L / (2 * math.pi)) / (2 * math.log(b))",
        "return d * math.log(L / (2 * math.pi)) / math.log(b)",
    ),
    # ---- chapter 10: the resolution and onset columns against 30-digit mpmath
    # the onset computed from the second gap instead of the first (fastest) one
    "10-onset-second-gap": (
        "10", "1 − κ(1), Δ* of every map = 30-digit mpmath",
        "2 * math.pi / (new[0] - new[1])", "2 * math.pi / (new[1] - new[2])",
    ),
    # the resolution column taken at offset 0.9 instead of 1
    "10-drop-at-0.9": (
        "10", "1 − κ(1), Δ* of every map = 30-digit mpmath",
        "drop = 1 - float(kernel_from_frequencies(1.0, new))",
        "drop = 1 - float(kernel_from_frequencies(0.9, new))",
    ),
    # the check's NTK base typed with exponent 1 (ln(bs)) instead of d/(d-2)
    "10-ntk-exponent-one": (
        "10", "1 − κ(1), Δ* of every map = 30-digit mpmath",
        '"ntk": B * s_ ** (mpmath.mpf(D) / (D - 2))', '"ntk": B * s_',
    ),
    # ---- chapter 10: the experiment table against statistics.mean/stdev of the JSON
    # the population std (ddof = 0) instead of the sample std over three seeds
    "10-std-ddof0": (
        "10", "table = statistics.mean/stdev of the JSON",
        "out[method, when, length] = (v.mean(), v.std(ddof=1))",
        "out[method, when, length] = (v.mean(), v.std(ddof=0))",
    ),
    # the length columns printed in reverse order
    "10-lengths-reversed": (
        "10", "table = statistics.mean/stdev of the JSON",
        'for n in ("32", "64", "128")', 'for n in ("128", "64", "32")',
    ),
    # the as-is and fine-tuned halves swapped
    "10-halves-swapped": (
        "10", "table = statistics.mean/stdev of the JSON",
        'for w in ("as_is", "finetuned")\n            for n',
        'for w in ("finetuned", "as_is")\n            for n',
    ),
    # the small model's maps computed with 2L as the original length: Llama 3 keeps pair 0
    "10-small-scale-map": (
        "10", "small model: i_c; YaRN keeps pair 0",
        "factor=s_, train_length=L_SMALL)", "factor=s_, train_length=2 * L_SMALL)",
    ),
    # ex. 2's base with the exponent d/i_c instead of d/(2 i_c) (a referee's slip)
    "10-ex2-exponent": (
        "10", "ex. 2: b s^(d/2i_c)",
        "base2 = 1e4 * S ** (D / (2 * ic2))", "base2 = 1e4 * S ** (D / ic2)",
    ),
    # the reversals counted with dynamic NTK's fine-tuned accuracies (the wrong half)
    "10-reversal-wrong-half": (
        "10", "dynamic NTK above NTK on the mean",
        'if by_seed["rotary", "dynamic", "as_is", n][k]',
        'if by_seed["rotary", "dynamic", "finetuned", n][k]',
    ),
    # the fine-tuned means read from the as-is half
    "10-fine-tuned-means-wrong-half": (
        "10", "rotary, fine-tuned: PI below no scaling",
        'by_seed["rotary", m, "finetuned", 32].values()',
        'by_seed["rotary", m, "as_is", 32].values()',
    ),
    # ---- chapter 11
    "11-angle-addition-sign": (
        "11", "shift_table = direct",
        "ca[:, None, :] * cr[None] - sa[:, None, :] * sr[None]",
        "ca[:, None, :] * cr[None] + sa[:, None, :] * sr[None]",
    ),
    "11-miscounted-evaluation": (
        "11", "shift_table = direct",
        "count[0] += np.size(x)", "count[0] += np.size(x) + 1",
    ),
    # the decoding argument's nearest candidate measured from offset 2 on (an off-by-one)
    "11-nearest-candidate-off-by-one": (
        "11", "decoding fails only for casts",
        "window[1:] - window[0]", "window[2:] - window[0]",
    ),
}  # fmt: skip


@pytest.mark.parametrize("slip", SLIPS)
def test_a_planted_slip_is_caught(slip: str) -> None:
    chapter, check, old, new, *says = SLIPS[slip]
    failure = expect_check_fails(chapter, check=check, old=old, new=new)
    for text in says:
        assert text in str(failure.error)


def test_the_poisson_identity_needs_its_endpoint_term() -> None:
    """Without the endpoint term (cos Delta - cos(Delta/b))/d the identity misses by > 1e-3."""
    failure = expect_check_fails(
        "06_aliasing_floor_schedules",
        check="(ch5-poisson)",
        old="ends = (math.cos(delta_) - math.cos(delta_ / b)) / d",
        new="ends = 0.0",
    )
    residual = float(re.search(r"residual ([0-9.e+-]+)", str(failure.error))[1])
    assert residual > 1e-3, failure.error
