"""Open every page of a built HTML book in headless Chromium; report what a reader sees broken.

Usage::

    python tests/book/browser/html_checker.py _build/html [--screenshots _build/screenshots]
        [--config _config.yml | --repository-url https://github.com/OWNER/REPO]
        [--chromium /usr/bin/chromium]

(``make check-html`` runs it through pytest: tests/book/browser/test_browser_book.py.)

The directory is served on 127.0.0.1 (an ephemeral port) for the duration of the check. Each page
is opened in Debian's Chromium, driven by Playwright with ``executable_path`` (Playwright's own
browser download is never used), and fails on:

``mathjax-error``
    an ``mjx-merror`` element (a TeX error MathJax rendered in place of the formula), an
    undefined macro (which MathJax's ``noundefined`` extension draws as its red name rather than
    an error), or MathJax's start-up promise rejecting;
``mathjax-missing``
    a page with math (elements of class ``math``) where MathJax never loaded;
``raw-latex``
    a TeX macro (``\\frac``, ``\\theta``, ...), ``$$``, ``\\(`` or ``\\[`` in visible text outside
    code blocks and typeset math (math that was never typeset), or a ``$`` right beside typeset
    math (a delimiter the parser took for text);
``missing-image``
    an ``img`` that finished loading with ``naturalWidth == 0``;
``broken-link`` / ``broken-anchor``
    a same-site ``href`` whose file does not exist, or whose ``#fragment`` names no ``id`` (or
    ``a name``) in the target page;
``console-error`` / ``page-error``
    a console message of type ``error``, or an uncaught exception;
``external-request``
    any request to a host other than 127.0.0.1/localhost (blocked and recorded: the book must
    render offline);
``http-error``
    a same-site request answered with status >= 400 (a missing script, style sheet or font);
``missing-colab-link``
    a page under ``notebooks/`` without a link to its Colab edition,
    ``colab.research.google.com/github/OWNER/REPO/blob/BRANCH/colab/<name>.ipynb`` (the
    chapter's source under ``notebooks/`` is MyST, which Colab shows raw).

A page that only redirects (``<meta http-equiv="refresh">``, Jupyter Book's root ``index.html``)
is not opened; its target must exist. Files under ``_static/``, ``_sources/``, ``_images/`` and
``mathjax/`` are assets, not pages. Every page is opened as a first visit (local storage is
cleared between pages), so the result does not depend on the order of pages. ``genindex.html``
and ``search.html`` are generated, not content, but a reader reaches them from every page (the
index link and the search box), so they are checked too.

Every page is opened at each viewport of ``VIEWPORTS`` (390 px and 1400 px wide, light and
dark colour scheme; the book follows the reader's scheme), and also fails on:

``overflow``
    a display equation, inline formula, table, code block or image wider than the text column
    without a scroll box of its own (it spills over, or a box that does not scroll cuts it), a
    scroll box itself wider than the column, or a page that scrolls sideways;
``scroll-affordance``
    a box that scrolls sideways with content hidden at its right and nothing showing it (the
    book fades the hidden side: ``_static/posenc.css``);
``stray-fade``
    a box whose side is faded out although nothing in it is hidden (it fits): the fade hides
    the end of what it shows, a whole one-letter formula;
``equation-number``
    an equation number drawn over its equation;
``nav-menu`` / ``nav-contents``
    on a page with a chapter list: no visible ☰ button, or a tap on it that does not show the
    chapter list (narrow screens) or does not collapse and restore the sidebar (wide screens);
    a visible contents button whose tap does not show the page contents;
``sidebar-title``
    the book title at the top of the sidebar clipped or covered;
``top-bar``
    a visible top bar holding nothing but search and toggle buttons;
``equation-width``
    display equations the reader must scroll sideways to read (their ink wider than the box
    they are shown in; MathJax 4 breaks a long one into lines, ``displayOverflow`` in
    ``_config.yml``): at a wide viewport any one; at a narrow one any numbered equation (the
    definitions and results the text refers to), or more than ``MAX_SCROLLING_SHARE`` of the
    page's display equations;
``heading-break``
    a heading with a word split across two lines (the API pages' module names break only at
    their dots and underscores: ``_ext/posenc_theme.py``);
``figure-caption``
    an image in the text without a numbered caption (``Fig. N.M``);
``figure-alt``
    an image in the text whose alt text is empty or a file path (the book takes it from the
    caption: ``_ext/figure_alt.py``);
``figure-shape``
    an image shown with other proportions than its own (more than ``MAX_SHAPE_CHANGE``
    squashed or stretched);
``figure-text``
    figure text smaller than ``MIN_FIGURE_TEXT_PX`` CSS pixels as shown, or a figure whose
    text cannot be measured (the book's figures are PNG at twice their display resolution that
    record their smallest text, ``posenc_lib.course.notebook.use_book_style``; SVG is measured too);
``page-weight``
    a first visit (empty cache) that downloads more than ``MAX_PAGE_BYTES`` bytes, not counting
    figures (``_images/``);
``missing-glyph``
    a character MathJax draws (an ``mjx-c`` or a stretchy character of the page) that no font
    under ``mathjax/`` holds, or one it has no font data for (an ``mjx-utext``, drawn in a
    fallback font): the build cuts MathJax's fonts and font data to the characters it found in
    the formulas (``_ext/page_weight.py``), and a formula it missed would show a fallback
    font's glyph.

Screenshots (``--screenshots``): full page at each width in the light scheme,
``notebooks/01_why_position.html`` becoming ``notebooks-01_why_position-390.png`` and
``-1400.png``, and the first screen in the dark scheme (``-390-dark.png``, ``-1400-dark.png``).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import re
import sys
import threading
import time
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlsplit
from xml.etree import ElementTree

DEFAULT_CHROMIUM = "/usr/bin/chromium"

#: Chromium's flags for a closed network, as root, with no screen: without the
#: background-networking flags Chromium keeps trying (and failing) to reach Google's hosts.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

LOCAL_HOSTS = {"127.0.0.1", "localhost"}
ASSET_DIRS = {"_static", "_sources", "_images", "mathjax", "_sphinx_design_static"}

#: Per page: the navigation, MathJax's typesetting, and image loading each get this long.
PAGE_TIMEOUT_MS = 30_000
#: A whole chapter at 390 px is some 40,000 px tall.
SCREENSHOT_TIMEOUT_MS = 120_000

KINDS = (
    "load-failed",
    "mathjax-error",
    "mathjax-missing",
    "raw-latex",
    "missing-image",
    "broken-link",
    "broken-anchor",
    "console-error",
    "page-error",
    "external-request",
    "http-error",
    "missing-colab-link",
    "overflow",
    "scroll-affordance",
    "stray-fade",
    "equation-number",
    "nav-menu",
    "nav-contents",
    "sidebar-title",
    "top-bar",
    "equation-width",
    "heading-break",
    "figure-caption",
    "figure-alt",
    "figure-shape",
    "figure-text",
    "page-weight",
    "missing-glyph",
)

#: Smallest figure text, in CSS pixels as the figure is shown. Material Design's smallest type
#: (the 10 sp "overline") and Apple's 11 pt minimum are for UI text a reader cannot zoom; a
#: figure can be zoomed, so 1 px less than Material's floor is allowed, and no more: the figures
#: that readers called unreadable (issue 15) showed their labels at 3-7 px.
MIN_FIGURE_TEXT_PX = 9.0

#: First visit of a page (empty cache), figures (``_images/``) not counted: issue 22's 1.0 MB,
#: on every page, with no exceptions. MathJax's engine and font data are about 0.51 MB of each
#: page with math, the theme 0.16 MB, so a chapter's own page can be at most about 0.3 MB; the
#: chapters weigh 0.88-0.997 MB (the appendix, chapter 90, the heaviest): see CONTRIBUTING.md,
#: "What a page loads", for what each part weighs and what an addition must state.
MAX_PAGE_BYTES = 1_000_000

#: At a narrow viewport, the largest share of a page's display equations that may need
#: sideways scrolling (numbered equations never may; at a wide viewport none may).
MAX_SCROLLING_SHARE = 0.10

#: A figure shown with its width-to-height ratio off by more than this is squashed/stretched.
MAX_SHAPE_CHANGE = 0.02

#: Images narrower than this (CSS px) are icons (the index pages' +/- togglers), not figures.
ICON_WIDTH_PX = 48


@dataclass(frozen=True)
class Viewport:
    """A screen the pages are opened on (each in the light, then the dark colour scheme)."""

    width: int
    height: int

    @property
    def narrow(self) -> bool:
        return self.width < 960  # the theme's breakpoint for the sidebar drawer

    def name(self, scheme: str) -> str:
        return f"{self.width} px {scheme}"


PHONE = Viewport(390, 844)
DESKTOP = Viewport(1400, 900)
VIEWPORTS = (PHONE, DESKTOP)
SCHEMES = ("light", "dark")

# Visible text that betrays math that was never typeset. A backslash followed by two or more
# letters is a TeX control word (\frac, \theta, \sum, \mathbb); prose has no reason to show one
# outside a code block. Single-letter macros (\,) and lone dollar signs (prices, shell
# variables) are not flagged.
RAW_LATEX = re.compile(r"\\[A-Za-z]{2,}|\$\$|\\\(|\\\)|\\\[|\\\]")


@dataclass(frozen=True)
class Problem:
    """One thing wrong on one page."""

    page: str  # path relative to the html directory, with forward slashes
    kind: str  # one of KINDS
    detail: str

    def __str__(self) -> str:
        return f"{self.page}: [{self.kind}] {self.detail}"


@dataclass
class Report:
    """What a run of :func:`check_site` saw."""

    pages: list[str] = field(default_factory=list)  # pages opened in the browser
    redirects: list[str] = field(default_factory=list)  # pages that only redirect
    problems: list[Problem] = field(default_factory=list)
    screenshots: list[Path] = field(default_factory=list)
    page_seconds: dict[str, float] = field(default_factory=dict)
    #: page -> bytes of its first visit, figures not counted (the largest over the viewports)
    weights: dict[str, int] = field(default_factory=dict)
    #: (page, viewport width) -> the page's height in CSS px (light scheme)
    heights: dict[tuple[str, int], int] = field(default_factory=dict)
    #: (page, viewport width) -> (display equations, how many of them scroll sideways)
    equations: dict[tuple[str, int], tuple[int, int]] = field(default_factory=dict)
    #: pages whose chapter list (sidebar navigation) was found
    with_nav: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems

    def kinds(self, page: str) -> set[str]:
        """The kinds of problem found on ``page``."""
        return {p.kind for p in self.problems if p.page == page}

    def summary(self, limit: int = 6) -> str:
        """The problems, at most ``limit`` of each kind per page (with the count left out)."""
        lines = [
            f"checked {len(self.pages)} pages (+{len(self.redirects)} redirects) in "
            f"{self.seconds:.1f} s: {len(self.problems)} problems"
        ]
        shown: dict[tuple[str, str], int] = {}
        for problem in self.problems:
            key = (problem.page, problem.kind)
            shown[key] = shown.get(key, 0) + 1
            if shown[key] <= limit:
                lines.append(f"  {problem}")
        for (page, kind), count in shown.items():
            if count > limit:
                lines.append(f"  {page}: [{kind}] ... and {count - limit} more")
        slowest = sorted(self.page_seconds.items(), key=lambda item: -item[1])[:3]
        if slowest:
            lines.append(
                "slowest: " + ", ".join(f"{page} {sec:.1f} s" for page, sec in slowest)
            )
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Static side: which files are pages, which ids each page has, where a redirect points.


class _PageParser(HTMLParser):
    """Collect the ids (and ``a name``) a page defines and a meta-refresh target, if any."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.refresh: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if "id" in values:
            self.ids.add(values["id"])
        if tag == "a" and "name" in values:
            self.ids.add(values["name"])
        if tag == "meta" and values.get("http-equiv", "").lower() == "refresh":
            match = re.search(
                r"url\s*=\s*(\S+)", values.get("content", ""), re.IGNORECASE
            )
            if match:
                self.refresh = match.group(1).strip("'\"")


@functools.cache
def _parse(path: Path) -> _PageParser:
    parser = _PageParser()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    parser.close()
    return parser


def find_pages(html_dir: Path) -> list[Path]:
    """Every ``.html`` file under ``html_dir`` that a reader can open (assets excluded), sorted."""
    pages = []
    for path in sorted(html_dir.rglob("*.html")):
        relative = path.relative_to(html_dir)
        if relative.parts[0] in ASSET_DIRS:
            continue
        pages.append(path)
    return pages


def _target_file(html_dir: Path, url_path: str) -> Path | None:
    """The file a same-site URL path names, or None when there is none."""
    relative = unquote(url_path).lstrip("/")
    candidate = (html_dir / relative).resolve()
    try:
        candidate.relative_to(html_dir.resolve())
    except ValueError:
        return None
    if candidate.is_dir():
        candidate = candidate / "index.html"
    return candidate if candidate.is_file() else None


def check_links(
    html_dir: Path,
    page: str,
    page_url: str,
    hrefs: list[str],
    live_ids: set[str] | frozenset[str] = frozenset(),
) -> list[Problem]:
    """Check each same-site ``href`` of ``page`` (already resolved by the browser).

    ``live_ids`` are the ids the rendered page has (scripts may add some): a link to a fragment
    of ``page`` itself may name any of them.
    """
    own_file = _target_file(html_dir, page)
    problems = []
    base = urlsplit(page_url)
    for href in sorted(set(hrefs)):
        parts = urlsplit(href)
        if parts.scheme not in ("http", "https") or parts.netloc != base.netloc:
            continue  # external link (not followed: the book is checked offline), mailto:, ...
        url, fragment = urldefrag(href)
        target = _target_file(html_dir, urlsplit(url).path)
        shown = href.replace(f"{base.scheme}://{base.netloc}/", "/")
        if target is None:
            problems.append(Problem(page, "broken-link", f"{shown}: no such file"))
            continue
        fragment = unquote(fragment)
        ids = _parse(target).ids | (live_ids if target == own_file else set())
        if fragment and target.suffix == ".html" and fragment not in ids:
            problems.append(
                Problem(page, "broken-anchor", f"{shown}: no id {fragment!r}")
            )
    return problems


# --------------------------------------------------------------------------------------------
# Serving the directory.


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        # The browser leaving a page drops the connections still loading (fonts, say).
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` on 127.0.0.1 at an ephemeral port; yield the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


# --------------------------------------------------------------------------------------------
# Browser side.

# Waits for MathJax to finish typesetting (or reports that it failed or never loaded), then for
# every image to finish loading (lazy images are made eager first).
_SETTLE_JS = """
async (timeoutMs) => {
  const timeout = (ms, what) => new Promise((_, reject) =>
      setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms));
  const result = {mathjax: "absent", mathjaxError: null};
  const hasMath = document.querySelector(".math, mjx-container") !== null;
  if (window.MathJax && window.MathJax.startup && window.MathJax.startup.promise) {
    try {
      await Promise.race([window.MathJax.startup.promise, timeout(timeoutMs, "MathJax")]);
      result.mathjax = "done";
    } catch (error) {
      result.mathjax = "failed";
      result.mathjaxError = String(error && error.message || error);
    }
  } else if (hasMath) {
    result.mathjax = "missing";
  }
  const images = Array.from(document.images);
  for (const img of images) { img.loading = "eager"; }
  await Promise.race([
    Promise.all(images.map((img) => img.complete ? null :
        new Promise((resolve) => { img.addEventListener("load", resolve);
                                   img.addEventListener("error", resolve); }))),
    new Promise((resolve) => setTimeout(resolve, timeoutMs)),
  ]);
  return result;
}
"""

# Everything the checks read from the rendered page.
_INSPECT_JS = r"""
() => {
  const merrors = Array.from(document.querySelectorAll("mjx-merror")).map((el) =>
      el.getAttribute("data-mjx-error") || el.textContent);
  // MathJax's own record of what it typeset: an undefined macro does not make an merror (the
  // noundefined extension, loaded by tex-mml-chtml.js, draws its name in red instead).
  const undefinedMacros = [];
  const mj = window.MathJax;
  if (mj && mj.startup && mj.startup.document && mj.startup.toMML) {
    for (const item of mj.startup.document.math) {
      if (!item.root) continue;
      const mml = mj.startup.toMML(item.root);
      const found = mml.match(/<mtext mathcolor="red"[^>]*>\\[A-Za-z]+/g) || [];
      for (const macro of found) {
        undefinedMacros.push(macro.replace(/^<mtext mathcolor="red"[^>]*>/, "") + " in " +
                             String(item.math).slice(0, 80));
      }
      if (/<merror/.test(mml) && !merrors.length) {
        merrors.push("merror in " + String(item.math).slice(0, 80));
      }
    }
  }
  const images = Array.from(document.images).map((img) => ({
      src: img.getAttribute("src") || "", complete: img.complete, width: img.naturalWidth}));
  const hrefs = Array.from(document.querySelectorAll("a[href]")).map((a) => a.href);
  const ids = Array.from(document.querySelectorAll("[id]")).map((el) => el.id);
  // Visible text outside code and typeset math: where raw TeX would betray itself.
  const skip = "pre, code, kbd, samp, script, style, noscript, template, textarea, " +
               "mjx-container, .highlight, .MathJax";
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest(skip)) continue;
    const text = node.textContent;
    if (text.trim()) texts.push(text);
  }
  // A "$" right beside typeset math: TeX delimiters that the parser took for text (for
  // example "$$x$$" inline when MyST's dmath_double_inline is off renders as "$" x "$").
  const strays = [];
  for (const container of document.querySelectorAll("mjx-container")) {
    const math = container.closest(".math") || container;
    const before = math.previousSibling, after = math.nextSibling;
    const left = before && before.nodeType === Node.TEXT_NODE ? before.textContent : "";
    const right = after && after.nodeType === Node.TEXT_NODE ? after.textContent : "";
    if (left.endsWith("$") || right.startsWith("$")) {
      strays.push((left.slice(-30) + " <math> " + right.slice(0, 30)).replace(/\s+/g, " "));
    }
  }
  // The characters MathJax draws: each <mjx-c>'s and stretchy character's code point (its
  // class) and text (a stretchy character's parts).
  const glyphs = new Set();
  for (const c of document.querySelectorAll("mjx-c, mjx-stretchy-h, mjx-stretchy-v")) {
    for (const name of c.classList) {
      const match = /^mjx-c([0-9A-F]+)$/.exec(name);
      if (match) glyphs.add(parseInt(match[1], 16));
    }
    for (const char of c.textContent) glyphs.add(char.codePointAt(0));
  }
  // Text MathJax found no font data for: drawn as <mjx-utext> in the browser's own font.
  // (An error message, <mjx-merror>, is text in the browser's font: reported as an error.)
  const unknown = [...document.querySelectorAll("mjx-utext")]
    .filter((u) => !u.closest("mjx-merror"))
    .map((u) => u.textContent);
  return {merrors, undefinedMacros, images, hrefs, ids, strays, texts, glyphs: [...glyphs],
          unknown};
}
"""


def _page_name(html_dir: Path, path: Path) -> str:
    return path.relative_to(html_dir).as_posix()


def _raw_tex(texts: list[str], limit: int = 5) -> list[str]:
    """One line per text node showing TeX: the tokens found, and the text around the first."""
    found = []
    for text in texts:
        matches = list(RAW_LATEX.finditer(text))
        if not matches:
            continue
        tokens = ", ".join(dict.fromkeys(m.group() for m in matches))
        start, end = max(0, matches[0].start() - 40), matches[0].end() + 40
        context = " ".join(text[start:end].split())
        found.append(f"{tokens} in '{context}'")
        if len(found) == limit:
            break
    return found


def _colab_problem(
    page: str, hrefs: list[str], repository_url: str | None
) -> Problem | None:
    name = Path(page).stem
    if repository_url:
        repo = urlsplit(repository_url.rstrip("/").removesuffix(".git")).path.strip("/")
        owner_repo = re.escape(repo)
    else:
        owner_repo = r"[^/]+/[^/]+"
    pattern = re.compile(
        r"^https://colab\.research\.google\.com/github/"
        + owner_repo
        + r"/blob/[^/]+/(?:[^?#]*/)?colab/"
        + re.escape(name)
        + r"\.ipynb$"
    )
    if any(pattern.match(href) for href in hrefs):
        return None
    expected = (
        f"colab.research.google.com/github/{repo if repository_url else 'OWNER/REPO'}"
    )
    return Problem(
        page,
        "missing-colab-link",
        f"no link to {expected}/blob/BRANCH/colab/{name}.ipynb",
    )


# --------------------------------------------------------------------------------------------
# Figures: the smallest text an SVG figure shows.

_FONT_SIZE = re.compile(r"font-size:\s*([\d.]+)(px|pt)?")
_FONT_SHORTHAND = re.compile(r"(?:^|;)\s*font:[^;]*?([\d.]+)(px|pt)")
_SCALE = re.compile(r"scale\(\s*([-\d.e]+)")


def _font_size(element: ElementTree.Element, inherited: float | None) -> float | None:
    style = element.get("style", "")
    for pattern in (_FONT_SIZE, _FONT_SHORTHAND):
        match = pattern.search(style)
        if match:
            return float(match.group(1)) * (4 / 3 if match.group(2) == "pt" else 1)
    if element.get("font-size"):
        return float(re.sub(r"[a-z]+$", "", element.get("font-size", "")))
    return inherited


def svg_text_sizes(svg: str) -> tuple[float, list[float]]:
    """The SVG's width in user units and the size of each piece of text in it, in user units.

    Text is either ``<text>`` (matplotlib's ``svg.fonttype = "none"``: its font size is in the
    style) or glyph outlines (``"path"``: a group ``translate(x y) scale(s -s)`` of ``<use>``
    glyphs drawn at matplotlib's text-to-path size of 100 units, so its size is ``100 s``).
    """
    root = ElementTree.fromstring(svg)
    view_box = root.get("viewBox")
    if view_box:
        width = float(view_box.split()[2])
    else:
        width = float(re.sub(r"[a-z]+$", "", root.get("width", "0")))
    sizes: list[float] = []

    def walk(element: ElementTree.Element, size: float | None) -> None:
        size = _font_size(element, size)
        name = element.tag.rsplit("}", 1)[-1]
        if name == "text" and "".join(element.itertext()).strip() and size:
            sizes.append(size)
            return
        if name == "g" and any(child.tag.endswith("use") for child in element):
            match = _SCALE.search(element.get("transform", ""))
            if match:
                sizes.append(100 * abs(float(match.group(1))))
                return
        for child in element:
            walk(child, size)

    walk(root, None)
    return width, sizes


def png_text_and_dpi(data: bytes) -> tuple[dict[str, str], float | None]:
    """The text chunks of a PNG (``tEXt``, ``zTXt``, ``iTXt``) and its resolution in dots per
    inch (``pHYs``; None when absent)."""
    import struct
    import zlib

    texts: dict[str, str] = {}
    dpi = None
    position = 8
    while position + 8 <= len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        position += 12 + length
        if kind == b"tEXt":
            key, _, value = body.partition(b"\0")
            texts[key.decode("latin-1")] = value.decode("latin-1")
        elif kind == b"zTXt":
            key, _, value = body.partition(b"\0")
            texts[key.decode("latin-1")] = zlib.decompress(value[1:]).decode("latin-1")
        elif kind == b"iTXt":
            key, _, rest = body.partition(b"\0")
            compressed, rest = rest[0], rest[2:]
            _, _, rest = rest.partition(b"\0")  # language tag
            _, _, value = rest.partition(b"\0")  # translated keyword
            value = zlib.decompress(value) if compressed else value
            texts[key.decode("latin-1")] = value.decode("utf-8")
        elif kind == b"pHYs" and len(body) == 9:
            per_unit, _, unit = struct.unpack(">IIB", body)
            dpi = per_unit * 0.0254 if unit == 1 else None
    return texts, dpi


#: The text chunk in which the book's figures record their smallest text, in points
#: (``posenc_lib.course.notebook.use_book_style``).
MIN_TEXT_KEY = "posenc:min-text-pt"


def figure_text_problem(
    html_dir: Path, figure: dict, minimum: float = MIN_FIGURE_TEXT_PX
) -> str | None:
    """Why the figure's text is too small to read as shown, or None.

    ``figure`` is what ``layout.js`` reports: ``src`` (a same-site URL), ``shownWidth``
    (CSS px), ``naturalWidth`` and ``naturalHeight`` (image px) and ``where``. An SVG's text
    sizes are read from it; a PNG of the book's style records its smallest text in points
    (``MIN_TEXT_KEY``) beside its resolution; any other image's text cannot be measured.
    """
    path = _target_file(html_dir, urlsplit(figure["src"]).path)
    where = figure["where"]
    if path is None:
        return None  # reported as missing-image / http-error
    shown = figure["shownWidth"]
    scale = shown / figure["naturalWidth"] if figure["naturalWidth"] else 1.0
    size = (
        f"{figure['naturalWidth']}x{figure['naturalHeight']} px shown at {scale:.2f}x"
    )
    if path.suffix.lower() == ".svg":
        width, sizes = svg_text_sizes(path.read_text(encoding="utf-8"))
        if not sizes or not width:
            return None
        smallest = min(sizes) * shown / width
        detail = f"{min(sizes):g} in the SVG, shown at {shown / width:.2f}x its size"
    elif path.suffix.lower() == ".png":
        texts, dpi = png_text_and_dpi(path.read_bytes())
        if MIN_TEXT_KEY not in texts or not dpi:
            return (
                f"{where}: PNG figure ({size}) without the book style's record of its text "
                f"size ({MIN_TEXT_KEY}): re-execute the chapter after use_book_style()"
            )
        points = float(texts[MIN_TEXT_KEY])
        smallest = points * dpi / 72 * scale
        detail = f"{points:g} pt at {dpi:.0f} dpi, {size}"
    else:
        return f"{where}: raster figure ({size}): its text size cannot be measured"
    if smallest < minimum - 0.05:
        limit = f"at least {minimum:g} px"
        return f"{where}: smallest text {smallest:.1f} px as shown ({detail}); {limit}"
    return None


def figure_shape_problem(
    figure: dict, tolerance: float = MAX_SHAPE_CHANGE
) -> str | None:
    """Why the figure is shown squashed or stretched, or None (``figure`` as ``layout.js``
    reports it)."""
    if not (
        figure["naturalWidth"] and figure["naturalHeight"] and figure["shownHeight"]
    ):
        return None
    own = figure["naturalWidth"] / figure["naturalHeight"]
    shown = figure["shownWidth"] / figure["shownHeight"]
    if abs(shown / own - 1) <= tolerance:
        return None
    return (
        f"{figure['where']}: shown {figure['shownWidth']:.0f}x{figure['shownHeight']:.0f} px, "
        f"{100 * own / shown:.0f} % of its own height for its width "
        f"({figure['naturalWidth']}x{figure['naturalHeight']} px)"
    )


def equation_width_problems(
    equations: list[dict], *, narrow: bool, share: float = MAX_SCROLLING_SHARE
) -> list[str]:
    """The display equations a reader must scroll sideways to read, where that is not allowed:
    any at a wide viewport; at a narrow one, any numbered one, or all of them when more than
    ``share`` of the page's display equations scroll. ``equations`` as ``layout.js`` reports
    them (``width``: the ink, ``box``: where it is shown)."""
    wide = [e for e in equations if e["width"] > e["box"] + 3]  # 3 px: an italic's tail

    def line(e: dict) -> str:
        return f"display equation {e['where']} is {e['width']} px wide in a {e['box']} px box"

    if not narrow:
        return [line(e) for e in wide]
    found = [line(e) + " (numbered)" for e in wide if e["numbered"]]
    if len(wide) > share * len(equations):
        found += [
            line(e) + f" ({len(wide)} of {len(equations)} display equations scroll; "
            f"at most {share:.0%} may)"
            for e in wide
            if not e["numbered"]
        ]
    return found


# --------------------------------------------------------------------------------------------
# Navigation: real taps on the visible buttons.

# The visible button matching the selector (inside the viewport, not covered): its centre.
_FIND_BUTTON_JS = """
(selector) => {
  for (const el of document.querySelectorAll(selector)) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") continue;
    const x = box.left + box.width / 2, y = box.top + box.height / 2;
    if (x < 0 || y < 0 || x > window.innerWidth || y > window.innerHeight) continue;
    const hit = document.elementFromPoint(x, y);
    if (hit && (el === hit || el.contains(hit))) return {x, y};
  }
  return null;
}
"""

# How many links matching the selector a reader can see and tap (inside the viewport, on top).
_COUNT_VISIBLE = """
(selector) => Array.from(document.querySelectorAll(selector)).filter((a) => {
  const box = a.getBoundingClientRect();
  if (box.width === 0 || box.height === 0) return false;
  const x = box.left + Math.min(box.width / 2, 20), y = box.top + box.height / 2;
  if (x < 0 || y < 0 || x > window.innerWidth || y > window.innerHeight) return false;
  const hit = document.elementFromPoint(x, y);
  return hit !== null && (a === hit || a.contains(hit));
}).length
"""
_VISIBLE_LINKS_JS = _COUNT_VISIBLE
# Resolves once the count is (or is not) zero, as asked; polled each frame.
_WAIT_LINKS_JS = (
    "([selector, shown]) => ((" + _COUNT_VISIBLE + ")(selector) > 0) === shown"
)

CHAPTER_LINKS = ".bd-docs-nav a[href]"
CONTENTS_LINKS = "#pst-page-toc-nav a[href]"
MENU_BUTTON = ".primary-toggle"
CONTENTS_BUTTON = ".secondary-toggle"
#: The theme's drawer and collapse transitions take up to 0.4 s; on a loaded machine, a long
#: chapter whose column changes width (MathJax 4 re-breaks its equations) takes seconds more.
TAP_TIMEOUT_MS = 5000


def _tap(page, selector: str) -> bool:  # type: ignore[no-untyped-def]
    """Tap the visible button matching ``selector``; False when none is visible."""
    point = page.evaluate(_FIND_BUTTON_JS, selector)
    if point is None:
        return False
    page.mouse.click(point["x"], point["y"])
    return True


def _becomes(page, selector: str, shown: bool) -> bool:  # type: ignore[no-untyped-def]
    """Wait until links matching ``selector`` are (or are not) visible; False on time-out."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(
            _WAIT_LINKS_JS, arg=[selector, shown], polling="raf", timeout=TAP_TIMEOUT_MS
        )
    except PlaywrightTimeout:
        return False
    return True


def check_navigation(page, where: str) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """Tap ☰ (and the contents button where one shows); return ``[(kind, detail)]``.

    Where the chapter list is hidden (a drawer on narrow screens) a tap must show it; where it
    shows beside the text a tap must hide it and a second tap bring it back. ``where`` names the
    screen in the details (``"at 390 px dark"``).
    """
    found = []
    visible = lambda selector: page.evaluate(_VISIBLE_LINKS_JS, selector) > 0  # noqa: E731
    listed = visible(CHAPTER_LINKS)
    if not _tap(page, MENU_BUTTON):
        found.append(("nav-menu", f"no visible ☰ button ({MENU_BUTTON}) {where}"))
    elif not listed:
        if not _becomes(page, CHAPTER_LINKS, True):
            found.append(
                ("nav-menu", f"a tap on ☰ {where} does not show the chapter list")
            )
        page.keyboard.press("Escape")
        _becomes(page, CHAPTER_LINKS, False)
    elif not _becomes(page, CHAPTER_LINKS, False):
        found.append(("nav-menu", f"a tap on ☰ {where} does not collapse the sidebar"))
    else:
        _tap(page, MENU_BUTTON)
        if not _becomes(page, CHAPTER_LINKS, True):
            found.append(
                ("nav-menu", f"a second tap on ☰ {where} does not bring it back")
            )
    if visible(CONTENTS_LINKS):
        return found  # the page contents show beside the text
    if page.evaluate(_FIND_BUTTON_JS, CONTENTS_BUTTON) is not None:
        _tap(page, CONTENTS_BUTTON)
        if not _becomes(page, CONTENTS_LINKS, True):
            found.append(
                ("nav-contents", f"a tap on the contents button {where} shows nothing")
            )
        page.keyboard.press("Escape")
    elif page.query_selector(CONTENTS_LINKS) is not None:
        found.append(
            ("nav-contents", f"the page contents are hidden, with no button {where}")
        )
    return found


_LAYOUT_JS = (Path(__file__).resolve().parent / "layout.js").read_text(encoding="utf-8")


#: Screenshots in the same folder written by other tests, which may run at the same time in
#: another worker: the Colab render (test_colab_render) and the explorers (test_explorer_parity).
OTHER_WRITERS = ("colab-", "explorer-")


def clear_old_screenshots(shot_dir: Path) -> None:
    """Create ``shot_dir`` and delete the book's old ``.png`` files, not other tests' files."""
    shot_dir.mkdir(parents=True, exist_ok=True)
    for old in shot_dir.glob("*.png"):
        if not old.name.startswith(OTHER_WRITERS):
            old.unlink()


def check_site(
    html_dir: Path | str,
    *,
    screenshots: Path | str | None = None,
    repository_url: str | None = None,
    chromium: str = DEFAULT_CHROMIUM,
    pages: list[str] | None = None,
    viewports: tuple[Viewport, ...] = VIEWPORTS,
    weight_limits: dict[str, int] | None = None,
) -> Report:
    """Open every page of ``html_dir`` in headless Chromium at each viewport; return what was
    found.

    Parameters
    ----------
    html_dir
        The built book (``_build/html``).
    screenshots
        Folder for screenshots (created, emptied of old ``.png`` files); None: none.
    repository_url
        ``repository.url`` from ``_config.yml``: notebook pages must link to Colab for exactly
        this repository. None: any ``OWNER/REPO``.
    chromium
        The Chromium executable (Debian's ``/usr/bin/chromium``).
    pages
        Only these pages (paths relative to ``html_dir``); None: every page.
    viewports
        The screens each page is opened on.
    weight_limits
        Pages allowed more than ``MAX_PAGE_BYTES`` on a first visit, with their own limit.
    """
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    html_dir = Path(html_dir).resolve()
    if not (html_dir / "index.html").is_file() and not find_pages(html_dir):
        raise FileNotFoundError(f"html_dir: no HTML pages under {html_dir}")
    if not Path(chromium).exists():
        raise FileNotFoundError(
            f"chromium: {chromium} not found (Debian: apt-get install chromium)"
        )
    shot_dir = Path(screenshots) if screenshots is not None else None
    if shot_dir is not None:
        clear_old_screenshots(shot_dir)

    _parse.cache_clear()
    math_font_points.cache_clear()
    report = Report()
    started = time.perf_counter()
    paths = find_pages(html_dir)
    if pages is not None:
        wanted = set(pages)
        paths = [p for p in paths if _page_name(html_dir, p) in wanted]
        missing = wanted - {_page_name(html_dir, p) for p in paths}
        if missing:
            raise FileNotFoundError(
                f"pages: not found under {html_dir}: {sorted(missing)}"
            )

    seen_problems: set[Problem] = set()
    current: dict[str, object] = {"page": "", "requests": set()}

    def record(kind: str, detail: str) -> None:
        problem = Problem(str(current["page"]), kind, detail)
        if problem not in seen_problems:  # the same defect seen at another viewport
            seen_problems.add(problem)
            report.problems.append(problem)

    for path in paths:
        name = _page_name(html_dir, path)
        refresh = _parse(path).refresh
        if refresh is not None:
            report.redirects.append(name)
        else:
            report.pages.append(name)

    with serve(html_dir) as base_url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, headless=True, args=CHROMIUM_ARGS
        )
        for path in paths:
            name = _page_name(html_dir, path)
            refresh = _parse(path).refresh
            if refresh is not None:
                current["page"] = name
                url = urljoin(base_url, name)
                for problem in check_links(
                    html_dir, name, url, [urljoin(url, refresh)]
                ):
                    record(problem.kind, problem.detail)
        for viewport in viewports:
            # A fresh context per width: every page is a reader's first visit (routing every
            # request, below, also turns the HTTP cache off). Each page loads in the light
            # scheme, is checked, then switches to dark as a reader's system setting would (the
            # book follows it live) and is checked again.
            context = browser.new_context(
                viewport={"width": viewport.width, "height": viewport.height},
                color_scheme="light",
                is_mobile=viewport.narrow,
                has_touch=viewport.narrow,
                service_workers="block",
            )
            context.set_default_timeout(PAGE_TIMEOUT_MS)

            def route(route_, request) -> None:  # type: ignore[no-untyped-def]
                parts = urlsplit(request.url)
                if parts.scheme in ("http", "https", "ws", "wss") and (
                    (parts.hostname or "") not in LOCAL_HOSTS
                ):
                    record(
                        "external-request",
                        f"{request.resource_type} {request.url} (blocked)",
                    )
                    route_.abort("blockedbyclient")
                else:
                    if parts.path != "/favicon.ico":  # the browser's own request
                        current["requests"].add(parts.path)  # type: ignore[union-attr]
                    route_.continue_()

            context.route("**/*", route)
            page = context.new_page()

            def on_console(message) -> None:  # type: ignore[no-untyped-def]
                # The browser's own request for /favicon.ico is not the page's.
                if message.type == "error" and not str(
                    (message.location or {}).get("url", "")
                ).endswith("/favicon.ico"):
                    record("console-error", message.text)

            page.on("console", on_console)
            page.on("pageerror", lambda error: record("page-error", str(error)))
            page.on(
                "response",
                lambda response: (
                    record("http-error", f"{response.status} {response.url}")
                    if response.status >= 400
                    and not response.url.endswith("/favicon.ico")
                    else None
                ),
            )
            for path in paths:
                name = _page_name(html_dir, path)
                if _parse(path).refresh is not None:
                    continue
                current["page"] = name
                current["requests"] = set()
                page_started = time.perf_counter()
                try:
                    page.emulate_media(color_scheme="light")
                    page.goto(urljoin(base_url, name), wait_until="load")
                    settled = page.evaluate(_SETTLE_JS, PAGE_TIMEOUT_MS)
                    seen = page.evaluate(_INSPECT_JS)
                    _content_checks(
                        html_dir, name, page.url, settled, seen, repository_url, record
                    )
                    for scheme in SCHEMES:
                        where = f"at {viewport.name(scheme)}"
                        if scheme != "light":
                            page.emulate_media(color_scheme=scheme)
                            # The theme follows the system scheme live (its "auto" mode).
                            page.wait_for_function(
                                "(s) => !document.documentElement.hasAttribute('data-mode')"
                                " || document.documentElement.dataset.theme === s",
                                arg=scheme,
                            )
                        layout = page.evaluate(_LAYOUT_JS, {"iconWidth": ICON_WIDTH_PX})
                        for kind, detail in layout["problems"]:
                            record(kind, f"{detail} ({where})")
                        if scheme == "light":
                            for figure in layout["figures"]:
                                problem = figure_text_problem(html_dir, figure)
                                if problem:
                                    record("figure-text", f"{problem} ({where})")
                                problem = figure_shape_problem(figure)
                                if problem:
                                    record("figure-shape", f"{problem} ({where})")
                            report.heights[(name, viewport.width)] = page.evaluate(
                                "document.scrollingElement.scrollHeight"
                            )
                            equations = layout["equations"]
                            wide = [e for e in equations if e["width"] > e["box"] + 3]
                            report.equations[(name, viewport.width)] = (
                                len(equations),
                                len(wide),
                            )
                            for detail in equation_width_problems(
                                equations, narrow=viewport.narrow
                            ):
                                record("equation-width", f"{detail} ({where})")
                        if shot_dir is not None:
                            suffix = f"-{viewport.width}" + (
                                "" if scheme == "light" else "-dark"
                            )
                            shot = shot_dir / (
                                name.removesuffix(".html").replace("/", "-")
                                + suffix
                                + ".png"
                            )
                            # Chapters whole in light; the first screen otherwise.
                            page.screenshot(
                                path=str(shot),
                                full_page=scheme == "light"
                                and name.startswith("notebooks/"),
                                timeout=SCREENSHOT_TIMEOUT_MS,
                            )
                            report.screenshots.append(shot)
                    if layout["hasNav"]:
                        if name not in report.with_nav:
                            report.with_nav.append(name)
                        for kind, detail in check_navigation(page, where):
                            record(kind, detail)
                except PlaywrightError as error:
                    record("load-failed", str(error).splitlines()[0])
                weight = page_weight(html_dir, current["requests"])  # type: ignore[arg-type]
                report.weights[name] = max(report.weights.get(name, 0), weight)
                limit = (weight_limits or {}).get(name, MAX_PAGE_BYTES)
                if weight > limit:
                    parts = largest_parts(html_dir, current["requests"])  # type: ignore[arg-type]
                    record(
                        "page-weight",
                        f"first visit at {viewport.width} px: {weight / 1e6:.2f} MB before "
                        f"figures (limit {limit / 1e6:.2f} MB); largest: "
                        + ", ".join(
                            f"{part} {size / 1e3:.0f} kB" for part, size in parts
                        ),
                    )
                # Events (console, failed requests) that arrive while leaving a page belong to it.
                page.goto("about:blank")
                report.page_seconds[name] = report.page_seconds.get(name, 0.0) + (
                    time.perf_counter() - page_started
                )
            context.close()
        browser.close()
    report.seconds = time.perf_counter() - started
    return report


def equation_table(report: Report) -> str:
    """Per page: display equations that scroll sideways, of all, at each width measured."""
    widths = sorted({width for _, width in report.equations})
    lines = [
        "display equations wider than their box: "
        + ", ".join(f"{w} px" for w in widths)
    ]
    for page in sorted({page for page, _ in report.equations}):
        counts = [report.equations.get((page, w)) for w in widths]
        if not any(total for total, _ in filter(None, counts)):
            continue
        cells = [f"{c[1]:>3} of {c[0]:<3}" if c else "  -" for c in counts]
        lines.append(f"  {'  '.join(cells)}  {page}")
    return "\n".join(lines)


@functools.cache
def math_font_points(html_dir: Path) -> frozenset[int]:
    """Every character of every font under ``html_dir/mathjax`` (empty: no MathJax fonts)."""
    from fontTools.ttLib import TTFont

    points: set[int] = set()
    for path in sorted((html_dir / "mathjax").rglob("*.woff2")):
        points |= set(TTFont(str(path)).getBestCmap() or ())
    return frozenset(points)


def missing_glyphs(html_dir: Path, drawn: list[int]) -> list[int]:
    """The characters of ``drawn`` that no MathJax font of the site holds; spaces and
    invisible format characters (U+2061 function application ...) need no glyph."""
    served = math_font_points(html_dir)
    if not served:
        return []
    return sorted(
        point
        for point in set(drawn)
        if point not in served
        and unicodedata.category(chr(point)) not in ("Zs", "Cf", "Cc")
    )


def page_weight(html_dir: Path, requested: set[str]) -> int:
    """Bytes of the same-site files a page requested, figures (``_images/``) not counted."""
    return sum(size for _, size in _parts(html_dir, requested))


def largest_parts(
    html_dir: Path, requested: set[str], count: int = 4
) -> list[tuple[str, int]]:
    return sorted(_parts(html_dir, requested), key=lambda item: -item[1])[:count]


def _parts(html_dir: Path, requested: set[str]) -> list[tuple[str, int]]:
    parts = []
    for url_path in sorted(requested):
        target = _target_file(html_dir, url_path)
        if target is None or "_images" in target.relative_to(html_dir.resolve()).parts:
            continue
        parts.append((url_path.lstrip("/"), target.stat().st_size))
    return parts


def _content_checks(
    html_dir: Path,
    name: str,
    page_url: str,
    settled: dict,
    seen: dict,
    repository_url: str | None,
    record,  # type: ignore[no-untyped-def]
) -> None:
    """What the page shows wrong whatever the screen: math, raw TeX, images, links, Colab."""
    if settled["mathjax"] == "failed":
        record("mathjax-error", f"MathJax failed: {settled['mathjaxError']}")
    elif settled["mathjax"] == "missing":
        record("mathjax-missing", "the page has math but MathJax never loaded")
    for message in seen["merrors"]:
        record("mathjax-error", f"mjx-merror: {message}")
    for message in seen["undefinedMacros"]:
        record("mathjax-error", f"undefined TeX macro {message}")
    missing = missing_glyphs(html_dir, seen["glyphs"])
    if missing:
        record(
            "missing-glyph",
            "MathJax draws characters no served font holds: "
            + " ".join(f"U+{point:04X}" for point in missing[:10]),
        )
    unknown = sorted(set("".join(seen["unknown"])))
    if unknown:
        record(
            "missing-glyph",
            "MathJax has no font data for "
            + " ".join(f"U+{ord(char):04X}" for char in unknown[:10])
            + " (drawn in a fallback font)",
        )
    for snippet in _raw_tex(seen["texts"]):
        record("raw-latex", f"visible TeX outside math and code: {snippet}")
    for snippet in seen["strays"][:3]:
        record("raw-latex", f"stray '$' beside typeset math: {snippet.strip()}")
    for image in seen["images"]:
        if image["complete"] and image["width"] == 0:
            record("missing-image", f"img src={image['src']!r} did not load")
        elif not image["complete"]:
            record("missing-image", f"img src={image['src']!r} still loading")
    for problem in check_links(
        html_dir, name, page_url, seen["hrefs"], set(seen["ids"])
    ):
        record(problem.kind, problem.detail)
    if name.startswith("notebooks/"):
        problem = _colab_problem(name, seen["hrefs"], repository_url)
        if problem is not None:
            record(problem.kind, problem.detail)


_SEARCH_JS = """
async (timeoutMs) => {
  const deadline = Date.now() + timeoutMs;
  const done = () => {
    const summary = document.querySelector("#search-results .search-summary, p.search-summary");
    return summary && /found|did not match/i.test(summary.textContent);
  };
  // Sphinx writes "found" once every result is listed, but each page's excerpt arrives later,
  // from its own fetch: wait for those too (counted by _COUNT_FETCHES_JS).
  const settled = () => done() && (window.__posencPendingFetches || 0) === 0;
  while (!settled() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  // Whether the page settled, taken now: the fetches below, this check's own, are counted too.
  const finished = settled();
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const items = Array.from(document.querySelectorAll("#search-results ul.search li"));
  const results = [];
  for (const li of items) {
    const link = li.querySelector("a");
    const excerpt = li.querySelector("p.context");
    let original = null;
    if (link && typeof Search !== "undefined" && Search.posencOriginalHtmlToText) {
      const html = await (await fetch(link.href)).text();
      const anchor = new URL(link.href).hash;
      original = Search.posencOriginalHtmlToText(html, anchor || undefined);
    }
    results.push({
      page: link ? new URL(link.href).pathname.replace(/^\\//, "") : "",
      title: link ? link.textContent : "",
      excerpt: excerpt ? excerpt.textContent : "",
      original,
    });
  }
  return {finished, results};
}
"""

# Run before the page's own scripts: counts the fetches still in flight, so that _SEARCH_JS
# can wait for the excerpts Sphinx fetches after it has already written "found".
_COUNT_FETCHES_JS = """
(() => {
  const fetchPage = window.fetch.bind(window);
  window.__posencPendingFetches = 0;
  window.fetch = (...args) => {
    window.__posencPendingFetches += 1;
    const done = () => { window.__posencPendingFetches -= 1; };
    const request = fetchPage(...args);
    request.then((response) => response.clone().text()).then(done, done);
    return request;
  };
})();
"""


def search_book(
    html_dir: Path | str, query: str, *, chromium: str = DEFAULT_CHROMIUM
) -> list[dict[str, str | None]]:
    """Type ``query`` into the book's search page; return its results in order, each with the
    page, the title, the excerpt shown and the text Sphinx itself would have cut it from
    (``original``: None unless the book's search patch is present)."""
    from urllib.parse import quote

    from playwright.sync_api import sync_playwright

    with serve(Path(html_dir).resolve()) as base_url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, headless=True, args=CHROMIUM_ARGS
        )
        page = browser.new_page()
        page.add_init_script(_COUNT_FETCHES_JS)
        page.goto(urljoin(base_url, "search.html?q=" + quote(query)), wait_until="load")
        found = page.evaluate(_SEARCH_JS, PAGE_TIMEOUT_MS)
        browser.close()
    if not found["finished"]:
        raise TimeoutError(f"query: the search for {query!r} did not finish")
    return found["results"]


def repository_url_from_config(config: Path) -> str | None:
    """``repository.url`` from a Jupyter Book ``_config.yml`` (None when absent)."""
    import yaml

    data = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    return (data.get("repository") or {}).get("url")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("html_dir", type=Path, help="the built book, e.g. _build/html")
    parser.add_argument(
        "--screenshots", type=Path, help="folder for full-page screenshots"
    )
    parser.add_argument("--repository-url", help="repository.url of _config.yml")
    parser.add_argument(
        "--config", type=Path, help="read --repository-url from this _config.yml"
    )
    parser.add_argument(
        "--chromium", default=DEFAULT_CHROMIUM, help="Chromium executable"
    )
    parser.add_argument(
        "--page",
        action="append",
        dest="pages",
        help="check only this page (repeatable), e.g. notebooks/05_long_range_decay.html",
    )
    parser.add_argument(
        "--all", action="store_true", help="list every problem (default: 6 a kind)"
    )
    args = parser.parse_args(argv)
    repository_url = args.repository_url
    if repository_url is None and args.config is not None:
        repository_url = repository_url_from_config(args.config)
    report = check_site(
        args.html_dir,
        screenshots=args.screenshots,
        repository_url=repository_url,
        chromium=args.chromium,
        pages=args.pages,
    )
    print(report.summary(limit=10**9 if args.all else 6))
    for page, weight in sorted(report.weights.items()):
        print(f"first visit {weight / 1e6:5.2f} MB before figures: {page}")
    print(equation_table(report))
    if args.screenshots is not None:
        print(f"{len(report.screenshots)} screenshots in {args.screenshots}")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
