"""The build's page-weight pass (``_ext/page_weight.py``): code spans slimmed without a change
of look."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "_ext"))

import page_weight

ROOT = Path(__file__).resolve().parents[2]

CSS = """
html[data-theme="light"] .highlight { background: #fff; color: #080808 }
html[data-theme="light"] .highlight .n { color: #080808 }
html[data-theme="light"] .highlight .o { color: #00622F }
html[data-theme="light"] .highlight .s2 { color: #00622F }
html[data-theme="light"] .highlight .si { color: #00622F }
html[data-theme="light"] .highlight .mi { color: #7F4707 }
html[data-theme="dark"] .highlight { background: #2b2b2b; color: #F8F8F2 }
html[data-theme="dark"] .highlight .n { color: #F8F8F2 }
html[data-theme="dark"] .highlight .o { color: #ABE338 }
html[data-theme="dark"] .highlight .s2 { color: #ABE338 }
html[data-theme="dark"] .highlight .si { color: #FFD900 }
html[data-theme="dark"] .highlight .mi { color: #FFD900 }
"""


def test_classes_styled_alike_in_every_scheme_share_one_name() -> None:
    same = page_weight.same_style_classes(CSS)
    assert same["s2"] == same["o"] == "o"
    # si looks like o in the light scheme only: it keeps its own name.
    assert same["si"] == "si" and same["mi"] == "mi"
    assert page_weight.plain_token_classes(CSS) == {"n"}


def test_neighbouring_spans_of_one_style_merge() -> None:
    same = page_weight.same_style_classes(CSS)
    html = (
        '<span class="s2">"a</span><span class="o">+</span> <span class="s2">b"</span>'
        '<span class="si">{</span><span class="mi">1</span>'
    )
    merged = page_weight.merge_spans(html, same)
    assert merged == (
        '<span class="o">"a+ b"</span><span class="si">{</span><span class="mi">1</span>'
    )
    # The text a reader sees is unchanged.
    strip = re.compile(r"<[^>]+>")
    assert strip.sub("", merged) == strip.sub("", html)


PAGE = """<head>
<link rel="stylesheet" type="text/css" href="../_static/sphinx-thebe.css?v=4" />
<link rel="stylesheet" type="text/css" href="../_static/sphinx-design.min.css?v=6" />
<script src="../_static/design-tabs.js?v=f"></script>
<script async="async" src="../_static/sphinx-thebe.js?v=c"></script>
</head><body><span class="math notranslate nohighlight">\\(x\\)</span>
<script type="text/x-thebe-config">
{ requestKernel: true }
</script>
</body>"""


def test_unused_assets_go_and_math_keeps_what_mathjax_reads() -> None:
    slim = page_weight.slim_page(PAGE)
    for gone in ("thebe", "sphinx-design", "design-tabs", "nohighlight"):
        assert gone not in slim, gone
    assert '<span class="math notranslate">\\(x\\)</span>' in slim
    # A page that uses them keeps them.
    used = PAGE.replace("<body>", '<body><div class="sd-tab-set"></div>').replace(
        "</body>", '<button onclick="initThebeSBT()"></button></body>'
    )
    kept = page_weight.slim_page(used)
    assert "sphinx-design.min.css" in kept and "design-tabs.js" in kept
    assert "sphinx-thebe.js" in kept and "x-thebe-config" in kept


def test_operators_are_unwrapped_and_words_kept() -> None:
    """The build unwraps plain classes and operators (``o``), not word operators (``ow``)."""
    assert (
        "o" in page_weight.OPERATOR_CLASSES and "ow" not in page_weight.OPERATOR_CLASSES
    )
    html = (
        '<span class="n">x</span> <span class="o">=</span> <span class="ow">in</span>'
    )
    plain = page_weight.plain_token_classes(CSS) | page_weight.OPERATOR_CLASSES
    assert page_weight.unwrap_spans(html, plain) == 'x = <span class="ow">in</span>'


def test_spans_that_are_not_tokens_stay_apart() -> None:
    """Sphinx splits a long signature value into ``pre`` spans so that it can wrap."""
    same = page_weight.same_style_classes(CSS)
    html = '<span class="pre">{"a":</span> <span class="pre">1}</span>'
    assert page_weight.merge_spans(html, same) == html


def test_bootstrap_script_and_its_preload_are_dropped_from_every_page() -> None:
    page = (
        '<head><link rel="preload" as="script" href="../_static/scripts/bootstrap.js?digest=5" />\n'
        '<link rel="preload" as="script" href="../_static/scripts/pydata-sphinx-theme.js" />\n'
        "</head><body>\n"
        '<script defer src="../_static/scripts/bootstrap.js?digest=5"></script>\n'
        '<script defer src="../_static/scripts/pydata-sphinx-theme.js?digest=5"></script>\n'
        "</body>"
    )
    slim = page_weight.slim_page(page)
    assert "bootstrap" not in slim
    assert slim.count("pydata-sphinx-theme.js") == 2


STYLE = (
    ":root{--a:1px;--b:var(--c);--c:red;--d:blue;color:var(--b)}"
    "@media (min-width:9px){.x{--e:0;margin:var(--f, 2px)}.y{--g:1}}"
    '.z{--h:"a;b";font-family:var(--h)}'
)


def test_custom_properties_nothing_reads_are_dropped() -> None:
    used = page_weight.referenced_properties(
        [STYLE], ["el.style.setProperty('--g', 1)"]
    )
    assert used == {"--b", "--c", "--f", "--h", "--g"}
    slim = page_weight.drop_custom_properties(STYLE, used)
    assert slim == (
        ":root{--b:var(--c);--c:red;color:var(--b)}"
        "@media (min-width:9px){.x{margin:var(--f, 2px)}.y{--g:1}}"
        '.z{--h:"a;b";font-family:var(--h)}'
    )


def test_custom_properties_are_dropped_until_none_is_unread(tmp_path: Path) -> None:
    """``--c`` is read only by ``--b``, which nothing reads: both go, in two rounds."""
    static = tmp_path / "_static"
    static.mkdir()
    sheet = static / "theme.css"
    sheet.write_text(
        page_weight.MARK
        + "/*! licence */:root{--b:var(--c);--c:red;--k:0}.a{color:var(--k)}",
        encoding="utf-8",
    )
    (tmp_path / "index.html").write_text(
        "<p>--b in prose is read</p>", encoding="utf-8"
    )
    page_weight.purge_custom_properties(tmp_path)
    assert sheet.read_text(encoding="utf-8") == (
        page_weight.MARK
        + "/*! licence */:root{--b:var(--c);--c:red;--k:0}.a{color:var(--k)}"
    )
    (tmp_path / "index.html").write_text("<p>nothing</p>", encoding="utf-8")
    page_weight.purge_custom_properties(tmp_path)
    assert sheet.read_text(encoding="utf-8") == (
        page_weight.MARK + "/*! licence */:root{--k:0}.a{color:var(--k)}"
    )


MATH_PAGE = r"""<p>Inline <span class="math notranslate">\(a &lt; b\)</span> and
<span class="math notranslate">\(x\)</span>.</p>
<div class="math notranslate" id="equation-ch1-def">
<span class="eqno">(1.1)<a class="headerlink" href="#equation-ch1-def">#</a></span>\[
p_m = \sin m \]</div>
<div class="output text_latex math notranslate nohighlight">
\[\displaystyle \aleph\]</div>
<div class="math notranslate">
\begin{align} a &amp;= b \end{align}</div>
<pre>re.compile(r"\(not math\)")</pre>"""


def test_formulas_are_found_as_mathjax_finds_them() -> None:
    assert page_weight.math_formulas(MATH_PAGE) == [
        ("a < b", False),
        ("x", False),
        ("\np_m = \\sin m ", True),
        ("\\displaystyle \\aleph", True),
        ("\\begin{align} a &= b \\end{align}", True),
    ]


def _missing(why: str) -> None:
    """Skip for want of ``why``; in CI (``$CI`` set, where `make test` prepares it), fail."""
    if os.environ.get("CI"):
        pytest.fail(f"{why} (make test-lib prepares it)")
    pytest.skip(why)


def _node_and_mathjax() -> None:
    root = Path(__file__).resolve().parents[2]
    if shutil.which("node") is None:
        _missing("node not installed")
    if not (root / "node_modules" / "mathjax").is_dir():
        _missing("node_modules/mathjax missing: run `npm ci`")


def test_mathjax_draws_the_unicode_math_letters() -> None:
    """Independent route: Unicode's Mathematical Alphanumeric Symbols, where TeX's italic x is
    U+1D465 and blackboard-bold R the letterlike U+211D; aleph is U+2135, the digit 0 itself."""
    _node_and_mathjax()
    points = page_weight.mathjax_glyphs(
        [("x + \\mathbb{R}", False), ("\\aleph_0", True)]
    )
    assert {0x1D465, 0x2B, 0x211D, 0x2135, 0x30} <= points
    assert ord("y") not in points and 0x1D466 not in points


def test_math_fonts_keep_only_the_characters_drawn(tmp_path: Path) -> None:
    from fontTools.ttLib import TTFont

    source = Path(__file__).resolve().parents[2] / "_extra" / page_weight.MATH_FONTS
    if not source.is_dir():
        _missing("MathJax not copied: run `make _extra/mathjax/startup.js`")
    page_weight.subset_math_fonts(source, tmp_path, {0x2135, 0x1D465})
    before = {
        p.name: set(TTFont(str(p)).getBestCmap() or ()) for p in source.glob("*.woff2")
    }
    after = {
        p.name: set(TTFont(str(p)).getBestCmap() or ())
        for p in tmp_path.glob("*.woff2")
    }
    assert after.keys() == before.keys()
    for name, points in before.items():
        assert after[name] == points & {0x2135, 0x1D465}, name
    assert any(0x2135 in points for points in after.values())
    assert sum(p.stat().st_size for p in tmp_path.glob("*.woff2")) < 0.2 * sum(
        p.stat().st_size for p in source.glob("*.woff2")
    )


def test_formulas_with_less_and_greater_signs_are_found_whole() -> None:
    page = (
        '<div class="math notranslate">\\[\n\\max_{a &lt; b} f \\;&gt;\\; 0\n\\]</div>'
    )
    assert page_weight.math_formulas(page) == [("\n\\max_{a < b} f \\;>\\; 0\n", True)]


#: The book's own MathJax configuration, as the build passes it.
BOOK_TEX = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["sphinx"][
    "config"
]["mathjax3_config"]


def test_the_book_s_tex_typesets_ams_and_refuses_what_it_does_not_load() -> None:
    _node_and_mathjax()
    points = page_weight.mathjax_glyphs(
        [("\\begin{align} a &= \\operatorname{rank} A \\tag{1}\\end{align}", True)],
        BOOK_TEX,
    )
    assert {ord("="), ord("r"), ord("k"), 0x1D434} <= points  # A: U+1D434 italic
    for formula in ("\\boldsymbol{x}", "\\newcommand{\\x}{1} \\x", "\\nosuch"):
        with pytest.raises(RuntimeError, match="cannot typeset"):
            page_weight.mathjax_glyphs([(formula, False)], BOOK_TEX)
    # The full input/tex (no config) has these extensions.
    assert ord("x") not in page_weight.mathjax_glyphs([("\\boldsymbol{x}", False)])


FONT_DATA = (
    "(()=>{const h={40:{dir:n,stretch:[9115,9116,9117]},8725:{c:47,dir:n,sizes:[1.001]},"
    "10216:{dir:n,sizes:[1.001,1.1]}};M.defaultChars={normal:{32:[0,0,.25],"
    '65:[.7,0,.75,{sk:.1}],8730:[.8,.2,.8],11e3:[.5,0,.6]},"-size3":{40:[1.4,.9,.5],'
    '10216:[1.4,.9,.5]}},M.defaultAccentMap={94:"\\u02c6"},M.dynamicFiles=e.define([["latin",'
    '{normal:[[192,214],7838],bold:[[192,214]]}],["math",{normal:[8714,[8762,8763]]},[8730]],'
    '["arrows",{normal:[8607]},[8607]]])})();'
)


def test_font_data_keeps_the_characters_asked_for() -> None:
    """Written out by hand: each table keeps exactly what ``keep`` names (a delimiter when it
    is drawn, itself or as the character of its ``c``; a range file while it holds a kept
    code, its list of delimiters emptied); everything else is left as it was."""
    kept = page_weight.subset_font_data(FONT_DATA, {65, 40, 47, 11000, 200, 8763})
    assert kept == (
        "(()=>{const h={40:{dir:n,stretch:[9115,9116,9117]},8725:{c:47,dir:n,sizes:[1.001]}};"
        'M.defaultChars={normal:{65:[.7,0,.75,{sk:.1}],11e3:[.5,0,.6]},"-size3":{'
        '40:[1.4,.9,.5]}},M.defaultAccentMap={94:"\\u02c6"},M.dynamicFiles=e.define(['
        '["latin",{normal:[[192,214]],bold:[[192,214]]}],["math",{normal:[[8762,8763]]},[]]'
        "])})();"
    )
    assert page_weight.subset_font_data(FONT_DATA, set(range(0x110000))) == FONT_DATA


def test_a_delimiter_drawn_brings_its_parts() -> None:
    parts = page_weight.with_delimiter_parts
    assert parts([FONT_DATA], {40, 65}) == {40, 65, 9115, 9116, 9117}
    assert parts([FONT_DATA], {47}) == {47, 8725}  # drawn as "/" in place of U+2215
    assert parts([FONT_DATA], {9116}) == {9116}  # a part drawn alone draws no delimiter


def test_the_font_data_cut_is_valid_javascript_and_smaller(tmp_path: Path) -> None:
    source = Path(__file__).resolve().parents[2] / "_extra" / page_weight.MATH_FONT_DIR
    if not (source / "chtml.js").is_file() or shutil.which("node") is None:
        _missing("MathJax not copied (make _extra/mathjax/startup.js) or node missing")
    page_weight.subset_math_font_data(source, tmp_path, {0x1D465, 0x2211})
    import subprocess

    for path in [tmp_path / "chtml.js", *(tmp_path / "chtml/dynamic").glob("*.js")]:
        subprocess.run(["node", "--check", str(path)], check=True)
    text = (tmp_path / "chtml.js").read_text()
    assert len(text) < 0.4 * (source / "chtml.js").stat().st_size
    assert "119909:[" in text and "8721:[" in text  # x (U+1D465) and the sum
    assert "119910:[" not in text  # y


def test_css_minified_keeps_strings_selectors_and_licences() -> None:
    css = (
        '/* a comment */\na :hover ,  b > c {\n  color : red ;\n  content: "x  ;  y" ;\n}\n'
        "/*! licence */\n@media (max-width: 5px) {\n  .x { margin: calc(1px + 2px) }\n}\n"
        'd { content: ";}" ; }\n'
    )
    assert page_weight.minify_css(css) == (
        'a :hover,b > c{color : red;content: "x  ;  y"}/*! licence */ '
        '@media (max-width: 5px){.x{margin: calc(1px + 2px)}}d{content: ";}"}'
    )


def test_reference_wrappers_nothing_styles_are_unwrapped(tmp_path: Path) -> None:
    static = tmp_path / "_static"
    static.mkdir()
    (static / "a.css").write_text(".doc { color: red }")
    (static / "a.js").write_text("document.querySelectorAll('.std-numref')")
    page = (
        '<a href="x.html"><span class="std std-ref">Chapter 2</span></a>'
        '<span class="std std-numref">Fig. 1</span><span class="doc">Notation</span>'
    )
    classes = page_weight.unstyled_spans(tmp_path)
    # std-numref: a script names it; doc: a style sheet does
    assert classes == ("std std-ref", "std std-doc")
    assert page_weight.unwrap_spans(page, set(classes)) == (
        '<a href="x.html">Chapter 2</a>'
        '<span class="std std-numref">Fig. 1</span><span class="doc">Notation</span>'
    )
