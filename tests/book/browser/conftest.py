"""Fixtures for the browser checks: Chromium, MathJax, and sites assembled from the fixtures.

These tests need Debian's Chromium (``apt-get install chromium``) and Playwright's Python
package (``requirements/browser.txt``); without either they are skipped with the reason.

A fixture site gets MathJax as ``make`` ships it (``_extra/mathjax``), the book's own
``_static/posenc.css`` and ``posenc.js``, the stand-in page frame ``fixtures/shared/frame.js``,
and files written here rather than committed: a 1.6 MB script (the page-weight defect), a PNG
figure (the raster-figure defect) and, for the broken site, a copy of MathJax whose fonts lack
one character (the missing-glyph defect).
"""

from __future__ import annotations

import os
import shutil
import struct
import zlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="session")
def chromium() -> str:
    """The Chromium executable; skip when it or Playwright is missing."""
    pytest.importorskip(
        "playwright", reason="playwright not installed (requirements/browser.txt)"
    )
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} not installed (apt-get install chromium)")
    return CHROMIUM


@pytest.fixture(scope="session")
def mathjax_dir() -> Path:
    """MathJax 4 with its font under ``fonts/``, as ``make`` copies it into the book
    (``_extra/mathjax``)."""
    candidate = REPO / "_extra" / "mathjax"
    if (candidate / "startup.js").is_file() and (candidate / "fonts").is_dir():
        return candidate
    pytest.skip("MathJax not found: run `make _extra/mathjax/startup.js`")


def png(width: int, height: int, dpi: float | None = None, **texts: str) -> bytes:
    """A grey PNG image of the given size, with a resolution and text chunks if given
    (``min_text_pt="10"`` becomes the chunk ``posenc:min-text-pt``)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit greyscale
    rows = b"".join(b"\x00" + b"\xc0" * width for _ in range(height))
    extra = b""
    if dpi is not None:
        per_metre = round(dpi / 0.0254)
        extra += chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1))
    for key, value in texts.items():
        name = "posenc:" + key.replace("_", "-")
        extra += chunk(
            b"tEXt", name.encode("latin-1") + b"\0" + value.encode("latin-1")
        )
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + extra
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


ALEPH = 0x2135  # drawn by book/missing_glyph.html, cut from the broken site's fonts


def _cut_from_math_fonts(site: Path, point: int) -> None:
    """The site's MathJax as a copy whose fonts lack the character ``point`` (the
    missing-glyph defect: a character the build's font cut left out)."""
    from fontTools import subset

    link = site / "mathjax"
    source = link.resolve()
    link.unlink()
    shutil.copytree(source, link)
    for path in link.rglob("*.woff2"):
        options = subset.Options()
        options.flavor = "woff2"
        options.layout_features = ["*"]
        options.notdef_outline = True
        options.drop_tables += ["ltag"]
        font = subset.load_font(str(path), options)
        points = set(font.getBestCmap())
        if point in points:
            subsetter = subset.Subsetter(options)
            subsetter.populate(unicodes=sorted(points - {point}))
            subsetter.subset(font)
            subset.save_font(font, str(path), options)


def _assemble(name: str, destination: Path, mathjax: Path) -> Path:
    site = destination / name
    shutil.copytree(FIXTURES / name, site)
    (site / "mathjax").symlink_to(mathjax, target_is_directory=True)
    static = site / "_static"
    static.mkdir(exist_ok=True)
    for path in [
        *(REPO / "_static").glob("posenc.*"),
        FIXTURES / "shared" / "frame.js",
    ]:
        shutil.copy(path, static / path.name)
    (site / "_images").mkdir(exist_ok=True)
    if name == "broken":
        (static / "heavy.js").write_text("/*" + "x" * 1_600_000 + "*/\n")
        _cut_from_math_fonts(site, ALEPH)
        (site / "_images" / "raster.png").write_bytes(png(320, 160))
        small = png(640, 320, dpi=180, min_text_pt="7")  # 7 pt at 2x: 8.75 px shown
        (site / "_images" / "small-text.png").write_bytes(small)
    else:  # the book's format: 2x PNG, smallest text 10 pt, shown at half its pixels
        (site / "_images" / "plot.png").write_bytes(
            png(640, 320, dpi=180, min_text_pt="10")
        )
    return site


@pytest.fixture(scope="session")
def good_site(tmp_path_factory: pytest.TempPathFactory, mathjax_dir: Path) -> Path:
    """A small site that renders correctly: the checker must find nothing on it."""
    return _assemble("good", tmp_path_factory.mktemp("sites"), mathjax_dir)


@pytest.fixture(scope="session")
def broken_site(tmp_path_factory: pytest.TempPathFactory, mathjax_dir: Path) -> Path:
    """A site whose pages each carry one defect, named by the file."""
    return _assemble("broken", tmp_path_factory.mktemp("sites"), mathjax_dir)
