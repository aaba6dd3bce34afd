"""The main line of every chapter fits about 35 phone screens (book-design §5, issue 21).

Each chapter page of the built book is opened at 390 × 844 px with every fold closed, as a
reader finds it; the main line is the article's height less the "Going further" section. The
check cells must show as closed folds whose visible text is their "✓ verdict". A synthetic page
longer than the budget, and one whose check is open, must be rejected (the controls).
"""

from __future__ import annotations

import contextlib
import math
import sys
from pathlib import Path

import html_checker
import pytest
from test_browser_book import _chapters

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "scripts"))
import lesson  # noqa: E402

PHONE = {"width": 390, "height": 844}

_MEASURE_JS = """
() => {
  const article = document.querySelector("article") || document.body;
  const box = (el) => el.getBoundingClientRect();
  let height = box(article).height;
  const further = document.querySelector("section#going-further");
  if (further) height -= box(further).height;
  const folds = [...document.querySelectorAll("details.hide")].map((d) => ({
    open: d.open,
    summary: (d.querySelector("summary")?.innerText || "").trim(),
  }));
  return {height, folds};
}
"""


@contextlib.contextmanager
def phone_page(chromium: str):
    """A page of headless Chromium at 390 x 844 px."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, headless=True, args=html_checker.CHROMIUM_ARGS
        )
        try:
            yield browser.new_page(viewport=PHONE, device_scale_factor=1)
        finally:
            browser.close()


def measure(page, url: str) -> dict:  # type: ignore[no-untyped-def]
    """The main line's height and the check folds of the page at ``url``."""
    page.goto(url, wait_until="load")
    page.evaluate(html_checker._SETTLE_JS, 30_000)
    return page.evaluate(_MEASURE_JS)


def screen_problems(
    measured: dict, name: str, *, check_folds: bool = True
) -> list[str]:
    problems = []
    screens = math.ceil(measured["height"] / PHONE["height"])
    if screens > lesson.MAX_SCREENS:
        problems.append(f"{name}: main line of {screens} phone screens (at most 35)")
    for fold in measured["folds"] if check_folds else []:
        if fold["open"]:
            problems.append(f"{name}: a fold open on arrival ({fold['summary'][:60]})")
    return problems


@pytest.fixture(scope="module")
def phone(chromium: str):
    """One phone-sized page for every test of this module (Playwright's sync API allows one
    running instance at a time)."""
    with phone_page(chromium) as page:
        yield page


@pytest.fixture(scope="module")
def served(phone, built_book):  # type: ignore[no-untyped-def]
    """(phone page, base URL of the built book)."""
    with html_checker.serve(built_book) as base:
        yield phone, base


@pytest.mark.parametrize(
    "page",
    [p for p in _chapters() if Path(p).name[:2] < "90"],  # appendices are not lessons
)
def test_main_line_fits_35_phone_screens(served: tuple, page: str) -> None:
    browser_page, base = served
    measured = measure(browser_page, base + page)
    assert screen_problems(measured, page) == []
    checks = [f for f in measured["folds"] if f["summary"].startswith("✓")]
    assert checks, f"{page}: no check fold shows a ✓ verdict"


def test_controls(phone, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    tall = tmp_path / "tall.html"
    tall.write_text(
        "<html><body><article><div style='height:40000px'>x</div>"
        "<details class='hide above-input' open><summary>✓ holds</summary>c</details>"
        "<section id='going-further'><div style='height:90000px'>y</div></section>"
        "</article></body></html>"
    )
    with html_checker.serve(tmp_path) as base:
        measured = measure(phone, base + "tall.html")
    problems = screen_problems(measured, "tall")
    assert any("phone screens" in p for p in problems), problems
    assert any("open on arrival" in p for p in problems), problems
    assert measured["height"] < 45_000  # the Going further section was not counted
