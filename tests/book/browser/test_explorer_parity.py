"""The explorers of posenc_lib.course.explorers in headless Chromium, against posenc_lib.

A standalone page holds one explorer of each kind. The tests drive the controls through the DOM
(input and change events, the keyboard, a tap) to settings that include the extremes (d = 2 and
4096, b = 1.0001 and 1e6, offsets up to 1e6) and compare every value an explorer exposes
(``element.__explorer.values()``) with posenc_lib: ``|js - py| <= 1e-9 * max(|py|, scale)``,
a relative difference of 1e-9, absolute 1e-9 * scale near zeros, with ``scale`` the natural size
of the quantity (1 for a table entry, a kernel value or a ratio; d/2 for an inner product).
The page ships each kind's minified script (``explorers.<kind>.min.js``); a page whose scripts
are the source with an off-by-one exponent must fail the same comparison.
The update time at d = 4096 under 4x CPU throttling is measured and must stay under 50 ms
(median of 5 updates); screenshots go to ``$SCREENSHOTS_DIR`` (``_build/screenshots``).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import mpmath
import numpy as np
import pytest

import posenc_lib as pe
from posenc_lib import decay
from posenc_lib.course import explorers as X
from posenc_lib.course.shift_invariance import rotary_scores
from posenc_lib.rope_scaling import RopeScaling

REPO = Path(__file__).resolve().parents[3]
TOL = 1e-9
BUDGET_MS = 50.0
SCREENSHOTS = Path(os.environ.get("SCREENSHOTS_DIR", REPO / "_build" / "screenshots"))
KINDS = ("encoding", "kernel", "rotary", "scaling")

# The exponent slip a wrong explorer carries: theta_i = b^(-2(i+1)/d) instead of b^(-2i/d).
RIGHT = "out[i] = Math.exp(-((2 * i) / d) * lb);"
WRONG = "out[i] = Math.exp(-((2 * (i + 1)) / d) * lb);"
# Further slips, each in one place and each caught by the comparisons: a sign in the integral's
# small-offset branch, and linear scaling multiplying where it divides.
SLIPS = {
    "kernel": (
        "if (x <= SERIES_LIMIT) return 1 - (cinSeries(x) - cinSeries(y)) / lb;",
        "if (x <= SERIES_LIMIT) return 1 - (cinSeries(x) + cinSeries(y)) / lb;",
        {"dim": 64},
    ),
    "scaling": (
        'else if (method === "linear") for (i = 0; i < n; i++) out[i] = th[i] / factor;',
        'else if (method === "linear") for (i = 0; i < n; i++) out[i] = th[i] * factor;',
        {"method": "linear", "factor": 4},
    ),
}


def _page_html(script: str | None = None) -> str:
    page = X.standalone_html(
        X.encoding_explorer(),
        X.kernel_explorer(),
        X.rotary_explorer(),
        X.scaling_explorer(),
    )
    if script is not None:
        # Each kind's minified script (what the book ships) swapped for the given source.
        for kind in KINDS:
            shipped = X._asset(f"explorers.{kind}.min.js")
            assert page.count(shipped) == 1, kind
            page = page.replace(shipped, script)
    return page


@pytest.fixture(scope="module")
def browser(chromium: str):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium)
        yield b
        b.close()


def _open(browser, tmp_path: Path, name: str, html: str, width: int = 1400, **kw):
    path = tmp_path / name
    path.write_text(html, encoding="utf-8")
    context = browser.new_context(viewport={"width": width, "height": 900}, **kw)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_function(
        "document.querySelectorAll('.pe-x[data-ready]').length === 4"
    )
    assert errors == [], errors
    return page


@pytest.fixture(scope="module")
def page(browser, tmp_path_factory):
    p = _open(browser, tmp_path_factory.mktemp("explorers"), "page.html", _page_html())
    yield p
    p.context.close()


def drive(page, kind: str, **settings) -> dict:
    """Set each control as a reader does (the input's value, then its event); return the
    values the explorer shows."""
    for name, value in settings.items():
        found = page.evaluate(
            """([kind, name, value]) => {
              const root = document.querySelector(`.pe-x[data-kind=${kind}]`);
              const input = root.querySelector(`[name=${name}]`);
              if (!input) return false;
              if (input.tagName === 'SELECT') {
                input.value = value; input.dispatchEvent(new Event('change'));
                return input.value === value;
              }
              const k = root.__explorer.choices[name].indexOf(value);
              if (k < 0) return false;
              input.value = k; input.dispatchEvent(new Event('input'));
              return root.__explorer.state[name] === value;
            }""",
            [kind, name, value],
        )
        assert found, f"{kind}: the control {name} does not offer {value!r}"
    return values(page, kind)


def values(page, kind: str) -> dict:
    raw = page.evaluate(
        """kind => {
          const v = document.querySelector(`.pe-x[data-kind=${kind}]`).__explorer.values();
          const out = {};
          for (const [k, x] of Object.entries(v))
            out[k] = ArrayBuffer.isView(x) ? Array.from(x) : x;
          return out;
        }""",
        kind,
    )
    return {k: np.asarray(v) if isinstance(v, list) else v for k, v in raw.items()}


def close(name: str, js, ref, scale: float = 1.0) -> None:
    js, ref = np.asarray(js, dtype=float), np.asarray(ref, dtype=float)
    assert js.shape == ref.shape, f"{name}: shape {js.shape} != {ref.shape}"
    err = np.abs(js - ref) / np.maximum(np.abs(ref), scale)
    worst = int(np.argmax(err)) if err.size else 0
    assert err.size and err.max() <= TOL, (
        f"{name}: relative difference {err.max():.2e} at index {worst} "
        f"(js {js.flat[worst]!r}, posenc_lib {ref.flat[worst]!r})"
    )


# ---- comparisons with posenc_lib, one per kind -------------------------------------------------


def check_encoding(v: dict) -> None:
    d, b, n = int(v["dim"]), float(v["base"]), int(v["length"])
    ref = pe.sinusoidal(n, d, base=b, layout=v["layout"], method="direct")
    close("table", v["table"].reshape(n, d), ref)
    m = int(v["position"])
    # inner products against the exact kernel, a different route: <p_m, p_n> = d/2 kappa(m-n)
    inner = d / 2 * pe.kernel(m - np.arange(n, dtype=float), d, base=b)
    close("inner product", v["inner_product"], inner, scale=d / 2)
    theta = pe.frequencies(d, base=b)[np.asarray(v["pairs"], dtype=int)]
    close("waves", v["waves"], np.sin(np.outer(theta, v["wave_positions"])))


def check_kernel(v: dict) -> None:
    d, b, x = int(v["dim"]), float(v["base"]), v["delta"]
    assert x.size >= 200 and x[-1] == v["window"]
    close("kernel", v["kernel"], pe.kernel(x, d, base=b))
    close("kernel_integral", v["kernel_integral"], pe.kernel_integral(x, base=b))
    close("taylor", v["kernel_taylor"], decay.kernel_taylor(x, base=b))
    close("log", v["kernel_log"], decay.kernel_log(x, base=b))
    close("oscillatory", v["kernel_oscillatory"], decay.kernel_oscillatory(x, base=b))
    close("delta_star", v["delta_star"], math.pi * d / math.log(b))
    close("boundaries", v["boundaries"], [1.0, b])
    # the integral by an independent route: mpmath's Ci, (Ci(x) - Ci(x/b)) / ln b
    with mpmath.workdps(40):
        for k in (0, x.size // 3, 2 * x.size // 3, x.size - 1):
            xk = mpmath.mpf(float(x[k]))
            ref = float((mpmath.ci(xk) - mpmath.ci(xk / b)) / mpmath.log(b))
            close(f"integral at {x[k]:.3g}, mpmath", v["kernel_integral"][k], ref)
    assert v["form_tolerance"] == 0.01 and v["form_extent"] == 2  # Fig. 5.1's tolerance
    ranges, expected = v["form_ranges"], form_ranges(x, b, 0.01, 2)
    assert set(ranges) == set(expected)
    for name, want in expected.items():
        got = ranges[name]
        assert (got is None) == (want is None), f"{name}: js {got}, numpy {want}"
        if want is not None:
            close(f"{name} range", got, want)


def _runs(ok: np.ndarray) -> list[tuple[int, int]]:
    """The maximal runs of True in ``ok``: (first, last) index pairs."""
    edges = np.diff(np.concatenate(([0], ok.astype(int), [0])))
    return list(
        zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1, strict=True)
    )


def form_ranges(x: np.ndarray, b: float, tol: float, extent: float) -> dict:
    """Where each regime form of posenc_lib.decay is within ``tol`` of the integral on the
    points ``x``, over a run that spans a factor ``extent`` or more in Delta: the run from the
    first point (quadratic), the longest run inside 1 < Delta < b (logarithmic), the run up to
    the last point (1/Delta); None where there is no such run."""
    integral = pe.kernel_integral(x, base=b)
    out = {}
    for name, form, inside in (
        ("taylor", decay.kernel_taylor, np.ones(x.size, bool)),
        ("log", decay.kernel_log, (x > 1) & (x < b)),
        ("oscillatory", decay.kernel_oscillatory, np.ones(x.size, bool)),
    ):
        runs = _runs(inside & (np.abs(form(x, base=b) - integral) <= tol))
        runs = [r for r in runs if x[r[1]] >= extent * x[r[0]]]
        if name == "taylor":
            runs = [r for r in runs if r[0] == 0]
        elif name == "oscillatory":
            runs = [r for r in runs if r[1] == x.size - 1]
        run = max(runs, key=lambda r: r[1] - r[0], default=None)
        out[name] = None if run is None else [x[run[0]], x[run[1]]]
    return out


def check_rotary(v: dict) -> None:
    d, b, x = int(v["dim"]), float(v["base"]), v["delta"]
    assert np.all(x == np.round(x)) and np.all(np.diff(x) > 0) and x[-1] == v["window"]
    ones = np.ones(d)
    close("relative score", v["relative_score"], pe.kernel(x, d, base=b))
    close(
        "relative score, by rotating",
        v["relative_score"],
        rotary_scores(ones, ones, x, 0.0, base=b) / d,
    )
    theta = pe.frequencies(d, base=b)
    partial = np.cumsum(np.exp(1j * np.outer(x, theta)), axis=1)  # S_1 ... S_{d/2}
    close("RoFormer quantity", v["roformer_quantity"], np.abs(partial).mean(axis=1))
    close("its value at 0", v["roformer_at_zero"], (d / 2 + 1) / 2)
    close("rms floor", v["rms_floor"], 1 / math.sqrt(d))
    j = np.arange(1, d // 2 + 1)
    level = np.mean(np.sqrt(np.pi * j) / 2) / ((d / 2 + 1) / 2)
    close("random-phase level", v["random_phase_level"], level)
    if d >= 64:  # the level is E|S_j| of j random unit phases, sqrt(pi j)/2 for large j
        phases = np.random.default_rng(0).uniform(0, 2 * np.pi, (2000, d // 2))
        walk = np.abs(np.cumsum(np.exp(1j * phases), axis=1)).mean() / ((d / 2 + 1) / 2)
        assert abs(walk / v["random_phase_level"] - 1) < 0.02, (walk, level)


def check_scaling(v: dict) -> None:
    d, b, s, n = int(v["dim"]), float(v["base"]), float(v["factor"]), int(v["trained"])
    method, target = v["method"], int(v["target"])
    assert target == round(s * n)
    params = {
        "default": {},
        "linear": {"factor": s},
        "dynamic": {"factor": s, "max_position_embeddings": n},
        "yarn": {"factor": s, "original_max_position_embeddings": n},
        "llama3": {"factor": s, "original_max_position_embeddings": n},
    }[method]
    scaled, attention = RopeScaling(method, **params).frequencies(
        d, base=b, seq_len=target
    )
    theta = pe.frequencies(d, base=b)
    close(f"{method}: theta", v["theta"], theta)
    close(f"{method}: scaled theta", v["scaled"], scaled)
    close(f"{method}: ratio", v["ratio"], scaled / theta)
    close(f"{method}: trained angle", v["trained_angle"], n * theta)
    close(f"{method}: needed angle", v["needed_angle"], target * scaled)
    close(f"{method}: attention", v["attention"], attention)
    seen, need = n * theta, target * scaled
    beyond = int(np.sum((need > seen * (1 + 1e-12)) & (seen < 2 * np.pi)))
    assert v["beyond"] == beyond, (v["beyond"], beyond)
    every = (
        method == "yarn" and s > 1 and np.allclose(scaled * s, theta, rtol=1e-9, atol=0)
    )
    assert v["all_divided"] == every, (v["all_divided"], every)


CHECKS = {
    "encoding": check_encoding,
    "kernel": check_kernel,
    "rotary": check_rotary,
    "scaling": check_scaling,
}

SETTINGS = {
    "encoding": [
        {},
        {"dim": 2, "base": 1.0001, "position": 63},
        {"dim": 4096, "base": 1e6, "layout": "concatenated", "position": 0},
        {"dim": 4096, "base": 1.0001, "layout": "interleaved_cos_first", "pair": 2047},
        {"dim": 512, "base": 1e4, "layout": "concatenated_cos_first", "position": 37},
    ],
    "kernel": [
        {},
        {"dim": 2, "base": 1.0001, "window": 1e6},
        {"dim": 4096, "base": 1e6, "window": 1e6},
        {"dim": 4096, "base": 1.0001, "window": 10},
        {"dim": 64, "base": 1e4, "window": 1e3},
        {"dim": 64, "base": 10, "window": 10},
        {"dim": 64, "base": 10, "window": 1e3},
        {"dim": 512, "base": 1e4, "window": 10},
        {"dim": 512, "base": 1e6, "window": 10},
    ],
    "rotary": [
        {},
        {"dim": 2, "base": 1.0001, "window": 1e6},
        {"dim": 4096, "base": 1e6, "window": 1e6},
        {"dim": 4096, "base": 1.0001, "window": 1e5},
    ],
    "scaling": [
        {},
        *[
            {"method": m, "dim": d, "base": b, "factor": s, "trained": n}
            for m in X.SCALING_METHODS
            for d, b, s, n in ((4, 1.0001, 64, 256), (4096, 1e6, 1.5, 32768))
        ],
        {"method": "llama3", "dim": 128, "base": 1e5, "factor": 8},
        {"method": "yarn", "dim": 128, "base": 2, "factor": 8},
        {"method": "yarn", "dim": 128, "base": 1e4, "factor": 8},
    ],
}


@pytest.mark.parametrize("kind", KINDS)
def test_values_equal_posenc_lib(page, kind: str) -> None:
    for setting in SETTINGS[kind]:
        shown = drive(page, kind, **setting)
        CHECKS[kind](shown)


def test_an_explorer_with_a_wrong_exponent_fails(browser, tmp_path: Path) -> None:
    script = X._asset("explorers.js")
    assert script.count(RIGHT) == 1
    wrong = _open(
        browser, tmp_path, "wrong.html", _page_html(script.replace(RIGHT, WRONG))
    )
    try:
        for kind in KINDS:
            with pytest.raises(AssertionError, match="relative difference"):
                CHECKS[kind](drive(wrong, kind, dim=64))
    finally:
        wrong.context.close()


@pytest.mark.parametrize("kind", sorted(SLIPS))
def test_an_explorer_with_a_slip_fails(browser, tmp_path: Path, kind: str) -> None:
    right, wrong, setting = SLIPS[kind]
    script = X._asset("explorers.js")
    assert script.count(right) == 1
    slipped = _open(
        browser, tmp_path, f"slip-{kind}.html", _page_html(script.replace(right, wrong))
    )
    try:
        with pytest.raises(AssertionError, match="relative difference"):
            CHECKS[kind](drive(slipped, kind, **setting))
    finally:
        slipped.context.close()


def test_the_chapter_5_question(page) -> None:
    """A learner sets d = 64, b = 1e4 and reads where the sum leaves the integral."""
    drive(page, "kernel", dim=64, base=1e4)
    text = page.inner_text(".pe-x[data-kind=kernel] .pe-x-readout")
    assert "Δ* = πd / ln b = 21.83" in text, text
    assert f"{math.pi * 64 / math.log(1e4):.2f}" == "21.83"


def test_form_ranges_agree_with_the_chapter(page) -> None:
    """At d = 512, b = 1e4 the forms are drawn where chapter 5 measured them within 0.01 on a
    finer grid (its takeaways: quadratic up to 1.75, logarithmic from 8.6 to 0.61 b, 1/Delta
    from 1.78 b), to one step of the chart's grid."""
    v = drive(page, "kernel", dim=512, base=1e4, window=1e6)
    step = v["delta"][1] / v["delta"][0]
    r = v["form_ranges"]
    assert 1.75 / step <= r["taylor"][1] <= 1.75 * step, r
    assert 8.6 / step <= r["log"][0] <= 8.6 * step, r
    assert 0.61e4 / step <= r["log"][1] <= 0.61e4 * step, r
    assert 1.78e4 / step <= r["oscillatory"][0] <= 1.78e4 * step, r


def test_readout_fits_the_settings(page) -> None:
    """b = 1.0001: no logarithmic range, Delta* (2.0e6) named as beyond the chart."""
    v = drive(page, "kernel", dim=64, base=1.0001, window=1e6)
    text = page.inner_text(".pe-x[data-kind=kernel] .pe-x-readout")
    assert v["form_ranges"]["log"] is None
    assert "no logarithmic range" in text, text
    assert v["delta_star"] > 1e6 and "beyond this chart" in text, text
    drive(page, "kernel", dim=64, base=1e4, window=1e6)
    text = page.inner_text(".pe-x[data-kind=kernel] .pe-x-readout")
    assert "no logarithmic range" not in text and "beyond this chart" not in text, text
    # b = 10 (the form only crosses the integral) and a window of 10 at b = 1e4 (chapter 5's
    # logarithmic range starts at 8.6): no range is reported, and the readout says so
    for base, window in ((10, 1e3), (10, 10), (1e4, 10)):
        v = drive(page, "kernel", dim=64, base=base, window=window)
        text = page.inner_text(".pe-x[data-kind=kernel] .pe-x-readout")
        assert v["form_ranges"]["log"] is None, (base, window, v["form_ranges"])
        assert "no logarithmic range" in text, text


def test_yarn_note_where_every_pair_is_divided(page) -> None:
    """At b = 2 YaRN's clamped correction range inverts its ramp: every pair is divided by s
    (posenc_lib.rope_scaling, as in transformers), and the readout says so; at b = 1e4 not."""
    for base, every in ((2, True), (1e4, False)):
        v = drive(page, "scaling", method="yarn", dim=128, base=base, factor=8)
        text = page.inner_text(".pe-x[data-kind=scaling] .pe-x-readout")
        scaled, _ = RopeScaling(
            "yarn", factor=8, original_max_position_embeddings=int(v["trained"])
        ).frequencies(128, base=base, seq_len=int(v["target"]))
        theta = pe.frequencies(128, base=base)
        assert np.allclose(scaled * 8, theta, rtol=1e-12) == every
        assert ("divides every pair" in text) == every, text


def test_keyboard_and_labels(page) -> None:
    drive(page, "kernel", dim=64)
    slider = page.locator(".pe-x[data-kind=kernel] input[name=dim]")
    slider.focus()
    page.keyboard.press("ArrowRight")
    assert values(page, "kernel")["dim"] == 128
    shown = page.locator(".pe-x[data-kind=kernel] output").first.inner_text()
    assert shown == "128"
    unlabelled = page.evaluate(
        """() => Array.from(document.querySelectorAll('.pe-x input, .pe-x select'))
          .filter(e => !document.querySelector(`label[for="${e.id}"]`)).length"""
    )
    assert unlabelled == 0


def test_touch(browser, tmp_path: Path) -> None:
    p = _open(browser, tmp_path, "touch.html", _page_html(), width=390, has_touch=True)
    try:
        slider = p.locator(".pe-x[data-kind=rotary] input[name=dim]")
        slider.scroll_into_view_if_needed()
        box = slider.bounding_box()
        p.touchscreen.tap(box["x"] + box["width"] - 2, box["y"] + box["height"] / 2)
        assert values(p, "rotary")["dim"] == 4096
    finally:
        p.context.close()


def _swipe(page, selector: str, dx: float, dy: float) -> None:
    """A finger put down at 30 % of the element's width, moved by (dx, dy) in 15 steps."""
    box = page.locator(selector).bounding_box()
    x, y = box["x"] + box["width"] * 0.3, box["y"] + box["height"] / 2
    cdp = page.context.new_cdp_session(page)
    touch = "Input.dispatchTouchEvent"
    cdp.send(touch, {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, 16):
        at = {"x": x + dx * k / 15, "y": y + dy * k / 15}
        cdp.send(touch, {"type": "touchMove", "touchPoints": [at]})
    cdp.send(touch, {"type": "touchEnd", "touchPoints": []})
    page.wait_for_timeout(300)


def _phone(browser, tmp_path: Path, name: str, script: str | None = None):
    html = _page_html(script)
    return _open(
        browser, tmp_path, name, html, width=390, has_touch=True, is_mobile=True
    )


SWIPE_GUARD = '"pointercancel"'


def test_a_vertical_swipe_on_a_slider_scrolls_and_keeps_the_value(
    browser, tmp_path: Path
) -> None:
    """Starting on a slider, an upward swipe scrolls the page and leaves b alone; a sideways
    drag moves b. A copy of the script without the swipe guard must fail."""
    slider = ".pe-x[data-kind=kernel] input[name=base]"
    script = X._asset("explorers.js")
    assert script.count(SWIPE_GUARD) == 1
    for name, guarded in (("swipe.html", True), ("noguard.html", False)):
        code = script if guarded else script.replace(SWIPE_GUARD, '"no-such-event"')
        p = _phone(browser, tmp_path, name, code)
        try:
            p.locator(slider).scroll_into_view_if_needed()
            p.evaluate("window.scrollBy(0, 100)")
            before, top = values(p, "kernel")["base"], p.evaluate("scrollY")
            _swipe(p, slider, 6, -180)
            kept = values(p, "kernel")["base"] == before
            assert p.evaluate("scrollY") > top + 50  # the page scrolled
            assert kept is guarded, (
                f"{name}: b {before} -> {values(p, 'kernel')['base']}"
            )
            if guarded:
                _swipe(p, slider, 100, 0)
                assert values(p, "kernel")["base"] != before
        finally:
            p.context.close()


def test_step_buttons(page) -> None:
    """- and + move a slider one value: chapter 2's position m is reachable exactly."""
    drive(page, "encoding", position=0)
    root = ".pe-x[data-kind=encoding]"
    plus = page.locator(f"{root} button[aria-label='increase position m']")
    minus = page.locator(f"{root} button[aria-label='decrease position m']")
    minus.click()
    assert values(page, "encoding")["position"] == 0  # no step below the first value
    for _ in range(3):
        plus.click()
    assert values(page, "encoding")["position"] == 3
    minus.click()
    assert values(page, "encoding")["position"] == 2


def test_hover_shows_the_values_under_the_cursor(page) -> None:
    drive(page, "kernel", dim=64, base=1e4, window=1e6)
    over = page.locator(".pe-x[data-kind=kernel] .u-over")
    over.scroll_into_view_if_needed()
    box = over.bounding_box()
    legend = ".pe-x[data-kind=kernel] .u-legend .u-value"
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    shown = page.locator(legend).all_inner_texts()
    x = float(shown[0])  # the offset under the cursor: the middle decade of 0.01 .. 1e6
    assert 10 < x < 1000, shown
    assert all(t.strip() not in ("", "–", "--") for t in shown[1:3]), shown


UPDATE_JS = """async kind => {
  const root = document.querySelector(`.pe-x[data-kind=${kind}]`);
  const input = root.querySelector('input[name=base]');
  const times = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    input.value = r % 2 ? 9 : 10;  // b = 1e4, 1e5
    input.dispatchEvent(new Event('input'));
    await new Promise(done => queueMicrotask(done));  // uPlot's redraw
    times.push(performance.now() - t0);
  }
  return times;
}"""


@pytest.mark.timed  # alone: another worker's Chromium on the same cores would be timed too
def test_update_time_at_d_4096_with_4x_throttling(page) -> None:
    """Median of 5 updates per explorer; up to 3 rounds, keeping each kind's smallest median.

    Another process on the same cores adds time that is not the explorer's; a round that a
    load spike slowed is measured again rather than counted.
    """
    drive(page, "encoding", dim=4096)
    drive(page, "kernel", dim=4096, window=1e6)
    drive(page, "rotary", dim=4096, window=1e6)
    drive(page, "scaling", dim=4096)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    best: dict[str, float] = {}
    try:
        for _ in range(3):
            for kind in KINDS:
                median = sorted(page.evaluate(UPDATE_JS, kind))[2]
                best[kind] = min(best.get(kind, median), median)
            print("update ms at d = 4096, 4x throttled (median of 5):", best)
            if all(t < BUDGET_MS for t in best.values()):
                break
    finally:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    assert all(t < BUDGET_MS for t in best.values()), best


@pytest.mark.parametrize("width", [390, 1400])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_widths_schemes_and_screenshots(browser, tmp_path: Path, width, scheme) -> None:
    html = _page_html()
    if scheme == "dark":  # the book's switch; Colab's frame: prefers-color-scheme below
        html = html.replace('<html lang="en">', '<html lang="en" data-theme="dark">')
    p = _open(browser, tmp_path, f"{width}-{scheme}.html", html, width=width)
    try:
        report = p.evaluate(
            """() => Array.from(document.querySelectorAll('.pe-x')).map(root => {
              let small = [];
              for (const e of root.querySelectorAll('*')) {
                if (!e.childNodes.length || e.closest('canvas')) continue;
                const own = Array.from(e.childNodes).some(
                  n => n.nodeType === 3 && n.textContent.trim());
                const size = parseFloat(getComputedStyle(e).fontSize);
                if (own && e.getClientRects().length && size < 9) small.push(size);
              }
              return {kind: root.dataset.kind, small,
                overflow: root.scrollWidth > root.clientWidth + 1,
                wider: root.getBoundingClientRect().right > window.innerWidth + 1,
                bg: getComputedStyle(root).backgroundColor};
            })"""
        )
        dark_bg = "rgb(30, 30, 30)"
        for r in report:
            assert r["small"] == [], r
            assert not r["overflow"] and not r["wider"], r
            assert (r["bg"] == dark_bg) == (scheme == "dark"), r
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        for kind in KINDS:
            p.locator(f".pe-x[data-kind={kind}]").screenshot(
                path=str(SCREENSHOTS / f"explorer-{kind}-{width}-{scheme}.png")
            )
    finally:
        p.context.close()


def test_prefers_color_scheme_where_the_page_sets_no_theme(browser, tmp_path) -> None:
    p = _open(browser, tmp_path, "colab.html", _page_html(), color_scheme="dark")
    try:
        bg = p.evaluate(
            "getComputedStyle(document.querySelector('.pe-x')).backgroundColor"
        )
        assert bg == "rgb(30, 30, 30)"
    finally:
        p.context.close()


#: The chapters that hold an explorer, by the kind of explorer.
BOOK_PAGES = {
    "encoding": "notebooks/02_sinusoidal_encoding.html",
    "kernel": "notebooks/05_long_range_decay.html",
    "rotary": "notebooks/08_rotary.html",
    "scaling": "notebooks/10_beyond_training_length.html",
}


@pytest.mark.parametrize("kind", sorted(BOOK_PAGES))
def test_explorers_work_in_the_built_book(browser, kind: str) -> None:
    """The stored output of the chapter's cell, as the book renders it: mounted, and its
    values equal posenc_lib's at the chapter's settings and at an extreme."""
    html_dir = Path(os.environ.get("BOOK_HTML_DIR", REPO / "_build" / "html"))
    page_file = html_dir / BOOK_PAGES[kind]
    if not page_file.is_file():
        pytest.skip(f"no built book at {html_dir}: run `make book` first")
    context = browser.new_context(viewport={"width": 390, "height": 844})
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    try:
        p.goto(page_file.resolve().as_uri())
        p.wait_for_selector(f".pe-x[data-kind={kind}][data-ready]", state="attached")
        assert errors == [], errors
        assert p.locator(".pe-x").count() == 1
        CHECKS[kind](values(p, kind))
        CHECKS[kind](drive(p, kind, dim=4096, base=1e6))
        wide = p.evaluate(
            "(() => { const r = document.querySelector('.pe-x'); "
            "return r.scrollWidth > r.clientWidth + 1; })()"
        )
        assert not wide
    finally:
        context.close()
