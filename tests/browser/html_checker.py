"""Open every page of a built HTML book in headless Chromium; report what a reader sees broken.

Usage::

    python tests/browser/html_checker.py _build/html [--screenshots _build/screenshots]
        [--config _config.yml | --repository-url https://github.com/OWNER/REPO]
        [--chromium /usr/bin/chromium]

(``make check-html`` runs it through pytest: tests/browser/test_browser_book.py.)

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
    a page under ``notebooks/`` without a link to
    ``colab.research.google.com/github/OWNER/REPO/blob/BRANCH/notebooks/<name>.ipynb``.

A page that only redirects (``<meta http-equiv="refresh">``, Jupyter Book's root ``index.html``)
is not opened; its target must exist. Files under ``_static/``, ``_sources/``, ``_images/`` and
``mathjax/`` are assets, not pages. Every page is opened as a first visit (local storage is
cleared between pages), so the result does not depend on the order of pages. ``genindex.html``
and ``search.html`` are generated, not content, but a reader reaches them from every page (the
index link and the search box), so they are checked too.

A full-page screenshot of every page is saved when ``--screenshots`` is given
(``notebooks/01_why_position.html`` becomes ``notebooks-01_why_position.png``).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import re
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

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
)

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
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems

    def kinds(self, page: str) -> set[str]:
        """The kinds of problem found on ``page``."""
        return {p.kind for p in self.problems if p.page == page}

    def summary(self) -> str:
        lines = [
            f"checked {len(self.pages)} pages (+{len(self.redirects)} redirects) in "
            f"{self.seconds:.1f} s: {len(self.problems)} problems"
        ]
        lines += [f"  {problem}" for problem in self.problems]
        slowest = sorted(self.page_seconds.items(), key=lambda item: -item[1])[:3]
        if slowest:
            lines.append("slowest: " + ", ".join(f"{page} {sec:.1f} s" for page, sec in slowest))
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
            match = re.search(r"url\s*=\s*(\S+)", values.get("content", ""), re.IGNORECASE)
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
            problems.append(Problem(page, "broken-anchor", f"{shown}: no id {fragment!r}"))
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
      const found = mml.match(/<mtext mathcolor="red">\\[A-Za-z]+/g) || [];
      for (const macro of found) {
        undefinedMacros.push(macro.replace(/^<mtext mathcolor="red">/, "") + " in " +
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
  return {merrors, undefinedMacros, images, hrefs, ids, strays, texts};
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


def _colab_problem(page: str, hrefs: list[str], repository_url: str | None) -> Problem | None:
    name = Path(page).stem
    if repository_url:
        repo = urlsplit(repository_url.rstrip("/").removesuffix(".git")).path.strip("/")
        owner_repo = re.escape(repo)
    else:
        owner_repo = r"[^/]+/[^/]+"
    pattern = re.compile(
        r"^https://colab\.research\.google\.com/github/"
        + owner_repo
        + r"/blob/[^/]+/(?:[^?#]*/)?notebooks/"
        + re.escape(name)
        + r"\.ipynb$"
    )
    if any(pattern.match(href) for href in hrefs):
        return None
    expected = f"colab.research.google.com/github/{repo if repository_url else 'OWNER/REPO'}"
    return Problem(
        page, "missing-colab-link", f"no link to {expected}/blob/BRANCH/notebooks/{name}.ipynb"
    )


def check_site(
    html_dir: Path | str,
    *,
    screenshots: Path | str | None = None,
    repository_url: str | None = None,
    chromium: str = DEFAULT_CHROMIUM,
    pages: list[str] | None = None,
) -> Report:
    """Open every page of ``html_dir`` in headless Chromium; return what was found.

    Parameters
    ----------
    html_dir
        The built book (``_build/html``).
    screenshots
        Folder for full-page screenshots (created, emptied of old ``.png`` files); None: none.
    repository_url
        ``repository.url`` from ``_config.yml``: notebook pages must link to Colab for exactly
        this repository. None: any ``OWNER/REPO``.
    chromium
        The Chromium executable (Debian's ``/usr/bin/chromium``).
    pages
        Only these pages (paths relative to ``html_dir``); None: every page.
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
        shot_dir.mkdir(parents=True, exist_ok=True)
        for old in shot_dir.glob("*.png"):
            old.unlink()

    _parse.cache_clear()
    report = Report()
    started = time.perf_counter()
    paths = find_pages(html_dir)
    if pages is not None:
        wanted = set(pages)
        paths = [p for p in paths if _page_name(html_dir, p) in wanted]
        missing = wanted - {_page_name(html_dir, p) for p in paths}
        if missing:
            raise FileNotFoundError(f"pages: not found under {html_dir}: {sorted(missing)}")

    user_data = tempfile.mkdtemp(prefix="html-checker-profile-")
    current: dict[str, str] = {"page": ""}

    def record(kind: str, detail: str) -> None:
        report.problems.append(Problem(current["page"], kind, detail))

    try:
        with serve(html_dir) as base_url, sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                user_data,
                executable_path=chromium,
                headless=True,
                args=CHROMIUM_ARGS,
                viewport={"width": 1280, "height": 900},
                service_workers="block",
            )
            context.set_default_timeout(PAGE_TIMEOUT_MS)

            def route(route_, request) -> None:  # type: ignore[no-untyped-def]
                host = urlsplit(request.url).hostname or ""
                if urlsplit(request.url).scheme in ("http", "https", "ws", "wss") and (
                    host not in LOCAL_HOSTS
                ):
                    record("external-request", f"{request.resource_type} {request.url} (blocked)")
                    route_.abort("blockedbyclient")
                else:
                    route_.continue_()

            context.route("**/*", route)
            page = context.pages[0] if context.pages else context.new_page()
            page.on(
                "console",
                lambda message: (
                    record("console-error", message.text) if message.type == "error" else None
                ),
            )
            page.on("pageerror", lambda error: record("page-error", str(error)))
            page.on(
                "response",
                lambda response: (
                    record("http-error", f"{response.status} {response.url}")
                    if response.status >= 400
                    else None
                ),
            )

            for path in paths:
                name = _page_name(html_dir, path)
                current["page"] = name
                url = urljoin(base_url, name)
                refresh = _parse(path).refresh
                if refresh is not None:
                    report.redirects.append(name)
                    report.problems.extend(
                        check_links(html_dir, name, url, [urljoin(url, refresh)])
                    )
                    continue
                report.pages.append(name)
                page_started = time.perf_counter()
                try:
                    page.goto(url, wait_until="load")
                    settled = page.evaluate(_SETTLE_JS, PAGE_TIMEOUT_MS)
                    seen = page.evaluate(_INSPECT_JS)
                except PlaywrightError as error:
                    record("load-failed", str(error).splitlines()[0])
                    continue

                if settled["mathjax"] == "failed":
                    record("mathjax-error", f"MathJax failed: {settled['mathjaxError']}")
                elif settled["mathjax"] == "missing":
                    record("mathjax-missing", "the page has math but MathJax never loaded")
                for message in seen["merrors"]:
                    record("mathjax-error", f"mjx-merror: {message}")
                for message in seen["undefinedMacros"]:
                    record("mathjax-error", f"undefined TeX macro {message}")
                for snippet in _raw_tex(seen["texts"]):
                    record("raw-latex", f"visible TeX outside math and code: {snippet}")
                for snippet in seen["strays"][:3]:
                    record("raw-latex", f"stray '$' beside typeset math: {snippet.strip()}")
                for image in seen["images"]:
                    if image["complete"] and image["width"] == 0:
                        record("missing-image", f"img src={image['src']!r} did not load")
                    elif not image["complete"]:
                        record("missing-image", f"img src={image['src']!r} still loading")
                report.problems.extend(
                    check_links(html_dir, name, page.url, seen["hrefs"], set(seen["ids"]))
                )
                if name.startswith("notebooks/"):
                    problem = _colab_problem(name, seen["hrefs"], repository_url)
                    if problem is not None:
                        report.problems.append(problem)
                if shot_dir is not None:
                    shot = shot_dir / (name.removesuffix(".html").replace("/", "-") + ".png")
                    page.screenshot(path=str(shot), full_page=True)
                    report.screenshots.append(shot)
                # Every page is a reader's first visit (the theme keeps state in localStorage),
                # so what a page shows does not depend on the pages opened before it.
                page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
                # Events (console, failed requests) that arrive while leaving a page belong to it.
                page.goto("about:blank")
                report.page_seconds[name] = time.perf_counter() - page_started
            context.close()
    finally:
        shutil.rmtree(user_data, ignore_errors=True)
    report.seconds = time.perf_counter() - started
    return report


def repository_url_from_config(config: Path) -> str | None:
    """``repository.url`` from a Jupyter Book ``_config.yml`` (None when absent)."""
    import yaml

    data = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    return (data.get("repository") or {}).get("url")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("html_dir", type=Path, help="the built book, e.g. _build/html")
    parser.add_argument("--screenshots", type=Path, help="folder for full-page screenshots")
    parser.add_argument("--repository-url", help="repository.url of _config.yml")
    parser.add_argument("--config", type=Path, help="read --repository-url from this _config.yml")
    parser.add_argument("--chromium", default=DEFAULT_CHROMIUM, help="Chromium executable")
    args = parser.parse_args(argv)
    repository_url = args.repository_url
    if repository_url is None and args.config is not None:
        repository_url = repository_url_from_config(args.config)
    report = check_site(
        args.html_dir,
        screenshots=args.screenshots,
        repository_url=repository_url,
        chromium=args.chromium,
    )
    print(report.summary())
    if args.screenshots is not None:
        print(f"{len(report.screenshots)} screenshots in {args.screenshots}")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
