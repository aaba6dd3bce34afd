"""Sphinx extension: the book's page chrome on every screen, and no asset a page does not use.

What it adds to sphinx-book-theme 1.3 / pydata-sphinx-theme 0.17:

* ``_static/posenc.css`` and ``_static/posenc.js``: the visible ☰ and contents buttons open
  the chapter list and the page contents on phones and tablets and ☰ collapses the sidebar on
  desktop (the theme wires its handlers to a hidden duplicate button: pydata-sphinx-theme
  issue #2451, sphinx-book-theme issues #988 and #999); the empty 64 px top bar is removed;
  the sidebar title is never clipped; display equations, tables and code scroll inside their
  own boxes with a visible fade where content is hidden; search excerpts without raw TeX.
* ``templates/layout.html``: pages no longer load ``fontawesome.js`` (1.5 MB that turns icon
  elements into inline SVG; the theme's CSS draws the same icons from a font) nor the search
  index (140 kB, only ``search.html`` uses it).
* At the end of the build, the Font Awesome fonts are cut down to the glyphs the pages use
  (a few kB instead of 300 kB) and the full fonts and ``fontawesome.js`` are removed from the
  output, so a page that asked for them would fail the browser check (``http-error``).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ICON_DIR = "posenc-icons"  # under _static/ of the output

# The theme's Font Awesome files: (family in the CSS, weight, file stem in vendor/.../webfonts).
FONTS = (
    ("Font Awesome 6 Free", 900, "fa-solid-900"),
    ("Font Awesome 6 Free", 400, "fa-regular-400"),
    ("Font Awesome 6 Brands", 400, "fa-brands-400"),
)
# Removed from the output: the icon script and full fonts (replaced), the source maps of the
# theme's minified files (their sources are not shipped), the theme's message catalogues
# (compiled into the pages at build time).
REMOVED_FILES = ("_static/scripts/fontawesome.js", "_static/scripts/fontawesome.js.LICENSE.txt")
REMOVED_GLOBS = ("_static/vendor/fontawesome/webfonts/*", "_static/**/*.map", "_static/locales")


def _theme_webfonts() -> Path:
    """The theme's own copy of the Font Awesome fonts (the output's copy is deleted)."""
    import pydata_sphinx_theme

    return Path(pydata_sphinx_theme.__file__).parent / "theme/pydata_sphinx_theme/static" / (
        "vendor/fontawesome/webfonts"
    )

_PRIVATE_USE = re.compile(r"[\ue000-\uf8ff]|\\(?:f[0-9a-f]{3}|e[0-9a-f]{3})", re.IGNORECASE)
_ICON_RULE = re.compile(r"([^{}]+)\{content:\"([^\"]+)\"\}")
_ICON_SELECTOR = re.compile(r"^\.(fa-[a-z0-9-]+):(?::)?(?:before|after)$")
_ICON_CLASS = re.compile(r"\bfa-[a-z0-9-]+")


def _codepoints(text: str) -> set[int]:
    """Private-use code points written in a CSS string, literally or as ``\\fXXX`` escapes."""
    points = set()
    for token in _PRIVATE_USE.findall(text):
        points.add(int(token[1:], 16) if token.startswith("\\") else ord(token))
    return points


def icon_map(css: str) -> dict[str, set[int]]:
    """``{"fa-bars": {0xF0C9}, ...}`` from Font Awesome's ``.fa-x:before{content:"…"}`` rules."""
    mapping: dict[str, set[int]] = {}
    for selectors, content in _ICON_RULE.findall(css):
        names = [_ICON_SELECTOR.match(s.strip()) for s in selectors.split(",")]
        if names and all(names):
            for match in names:
                mapping.setdefault(match.group(1), set()).update(_codepoints(content))
    return mapping


def theme_codepoints(css: str) -> set[int]:
    """Icons the theme's CSS draws by itself (admonitions, breadcrumbs, links): every private-use
    code point in a rule that is not one of Font Awesome's per-icon rules."""
    points = set()
    for rule in re.findall(r"[^{}]+\{[^{}]*\}", css):
        selectors = rule.split("{", 1)[0]
        if all(_ICON_SELECTOR.match(s.strip()) for s in selectors.split(",")):
            continue
        points |= _codepoints(rule.split("{", 1)[1])
    return points


def used_codepoints(outdir: Path) -> set[int]:
    """Every icon glyph a page of ``outdir`` can show: the ``fa-*`` classes written in the HTML
    and in the scripts (the theme's JS adds a few), and the glyphs the theme's CSS uses."""
    styles = [p.read_text(encoding="utf-8") for p in (outdir / "_static").rglob("*.css")]
    mapping: dict[str, set[int]] = {}
    points: set[int] = set()
    for css in styles:
        for name, found in icon_map(css).items():
            mapping.setdefault(name, set()).update(found)
        points |= theme_codepoints(css)
    names: set[str] = set()
    scripts = [p for p in (outdir / "_static").rglob("*.js") if "fontawesome" not in p.name]
    for path in [*outdir.rglob("*.html"), *scripts]:
        names |= set(_ICON_CLASS.findall(path.read_text(encoding="utf-8", errors="replace")))
    for name in names:
        points |= mapping.get(name, set())
    return points


def subset_icon_fonts(outdir: Path) -> str:
    """Write the cut-down fonts under ``_static/posenc-icons/``; return their ``@font-face`` CSS."""
    from fontTools import subset

    points = used_codepoints(outdir)
    (outdir / "_static" / ICON_DIR).mkdir(exist_ok=True)
    faces = []
    for family, weight, stem in FONTS:
        source = _theme_webfonts() / f"{stem}.ttf"
        if not source.is_file():
            continue
        options = subset.Options()
        options.flavor = "woff"  # zlib; woff2 would need the brotli module
        options.layout_features = []
        options.name_IDs = []
        options.notdef_outline = True
        font = subset.load_font(str(source), options)
        present = set(font.getBestCmap()) & points
        if not present:
            continue
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=sorted(present))
        subsetter.subset(font)
        name = f"{stem}.woff"
        subset.save_font(font, str(outdir / "_static" / ICON_DIR / name), options)
        faces.append(
            f'@font-face{{font-family:"{family}";font-style:normal;font-weight:{weight};'
            f'font-display:block;src:url("{ICON_DIR}/{name}") format("woff")}}'
        )
    return "\n".join(faces) + "\n"


def _finish(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    header = "/* Generated by _ext/posenc_theme.py: Font Awesome cut to the glyphs the book uses. */\n"
    css = header + subset_icon_fonts(outdir)
    (outdir / "_static" / "posenc-icons.css").write_text(css, encoding="utf-8")
    doomed = [outdir / name for name in REMOVED_FILES]
    for pattern in REMOVED_GLOBS:
        doomed += outdir.glob(pattern)
    for path in doomed:
        if path.is_dir():
            shutil.rmtree(path)
        elif path.is_file():
            path.unlink()


def _configure(app: Any, config: Any) -> None:
    config.templates_path = [str(HERE / "templates"), *config.templates_path]


def setup(app: Any) -> dict[str, Any]:
    app.connect("config-inited", _configure)
    # _static/posenc.css and posenc.js are added by Jupyter Book (every file in _static is).
    app.add_css_file("posenc-icons.css")
    app.connect("build-finished", _finish)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
