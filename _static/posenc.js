/* The book's page behaviour on top of sphinx-book-theme (see _ext/posenc_theme.py).

   1. Navigation. pydata-sphinx-theme 0.17 binds its sidebar handlers to the first
      `.primary-toggle` / `.secondary-toggle` in the page, which is a hidden button of its own
      top bar, so the visible buttons of sphinx-book-theme's article header do nothing
      (pydata-sphinx-theme #2451, sphinx-book-theme #988, #999). Here the visible buttons get
      the theme's own behaviour: where the sidebar is a drawer (narrow screens), open it as the
      theme's modal dialog; where it sits beside the text (wide screens), collapse it.
   2. Scroll affordance: boxes that scroll sideways get classes that fade their hidden side.
   3. Search excerpts: the sentence holding the match (a word whose stem is a query term, or a
      Chinese term's characters), cut from the text without its math (it would show as raw TeX:
      the excerpt is plain text) and without the page's buttons.
   4. What the theme's Bootstrap script did (81 kB that the pages no longer load,
      _ext/page_weight.py): the header's menus (download, Colab) open on a click or a key, not
      only on hover, and close on Escape or a click elsewhere; the "back to top" button shows
      when the reader scrolls up. Tooltips are the buttons' own titles.
*/
(() => {
  "use strict";

  const ready = (callback) => {
    if (document.readyState !== "loading") callback();
    else document.addEventListener("DOMContentLoaded", callback);
  };

  // ---- 1. Navigation -------------------------------------------------------------------------

  // Move the sidebar's content and classes into its dialog (or back), as the theme does.
  const moveInto = (from, to) => {
    Array.from(from.childNodes).forEach((node) => to.appendChild(node));
    Array.from(from.classList).forEach((name) => {
      from.classList.remove(name);
      to.classList.add(name);
    });
  };

  // A sidebar is a drawer when the theme's CSS takes it out of the flow (position: fixed).
  const isDrawer = (sidebar) => getComputedStyle(sidebar).position === "fixed";

  const wireToggle = (button, sidebar, dialog) => {
    if (!button || !sidebar || !dialog) return;
    button.setAttribute("aria-controls", sidebar.id);
    button.addEventListener(
      "click",
      (event) => {
        event.preventDefault();
        event.stopImmediatePropagation();
        button.blur();
        if (dialog.open) {
          dialog.close();
        } else if (isDrawer(sidebar)) {
          moveInto(sidebar, dialog);
          dialog.showModal();
          button.setAttribute("aria-expanded", "true");
        } else {
          const collapsed = sidebar.classList.toggle("posenc-collapsed");
          button.setAttribute("aria-expanded", String(!collapsed));
        }
      },
      true,
    );
    dialog.addEventListener("close", () => {
      moveInto(dialog, sidebar);
      button.setAttribute("aria-expanded", "false");
      button.focus({ preventScroll: true });
    });
    // A tap on the backdrop (outside the dialog's box) closes it; so does a followed link.
    dialog.addEventListener("click", (event) => {
      const box = dialog.getBoundingClientRect();
      const outside =
        event.clientX < box.left ||
        event.clientX > box.right ||
        event.clientY < box.top ||
        event.clientY > box.bottom;
      if (outside || event.target.closest("a[href]")) dialog.close();
    });
  };

  // The theme scrolls the sidebar so that the current chapter sits a quarter down whenever it
  // lies below mid-screen, even when the whole list fits; undo that when the current chapter is
  // in view unscrolled, so the title and search box are not scrolled away for nothing.
  ready(() => {
    const sidebar = document.getElementById("pst-primary-sidebar");
    const active = sidebar && Array.from(sidebar.querySelectorAll(".bd-docs-nav .active")).pop();
    if (!active || sidebar.scrollTop === 0) return;
    const bottom =
      active.getBoundingClientRect().bottom - sidebar.getBoundingClientRect().top + sidebar.scrollTop;
    if (bottom <= sidebar.clientHeight) sidebar.scrollTop = 0;
  });

  ready(() => {
    const header = document.querySelector(".bd-header-article");
    if (!header) return;
    wireToggle(
      header.querySelector(".primary-toggle"),
      document.getElementById("pst-primary-sidebar"),
      document.getElementById("pst-primary-sidebar-modal"),
    );
    wireToggle(
      header.querySelector(".secondary-toggle"),
      document.getElementById("pst-secondary-sidebar"),
      document.getElementById("pst-secondary-sidebar-modal"),
    );
  });

  // ---- 2. Scroll affordance ------------------------------------------------------------------

  const SCROLLERS = [
    "div.math > mjx-container",
    "span.math",
    ".pst-scrollable-table-container",
    ".table-wrapper",
    "table.indextable",
    "div.highlight pre",
    ".cell_output .output",
  ].join(", ");

  // Overhangs of a few pixels (an italic letter's tail) are not worth a scroll bar.
  const SLACK = 3;
  const markScroll = (box) => {
    const scrolls = box.scrollWidth > box.clientWidth + SLACK;
    box.classList.toggle("posenc-scrolls", scrolls);
    box.classList.toggle("posenc-more-left", scrolls && box.scrollLeft > SLACK);
    box.classList.toggle(
      "posenc-more-right",
      scrolls && box.scrollLeft + box.clientWidth < box.scrollWidth - SLACK,
    );
  };

  // Re-measure a box whenever it or its content changes size: MathJax's boxes take their final
  // width only once its fonts have loaded, after its typesetting promise has resolved, so a box
  // measured then may look wider than it is (a faded one-letter formula).
  let pending = null;
  const markSoon = () => {
    clearTimeout(pending);
    pending = setTimeout(markAll, 150);
  };
  const resized = window.ResizeObserver ? new ResizeObserver(markSoon) : null;

  function markAll() {
    document.querySelectorAll(SCROLLERS).forEach((box) => {
      if (!box.dataset.posencWatched) {
        box.dataset.posencWatched = "1";
        box.addEventListener("scroll", () => markScroll(box), { passive: true });
        if (resized) {
          resized.observe(box);
          if (box.firstElementChild) resized.observe(box.firstElementChild);
        }
      }
      markScroll(box);
    });
  }

  // After the next frame has been laid out.
  const markAfterLayout = () =>
    requestAnimationFrame(() => requestAnimationFrame(markAll));

  ready(() => {
    markAll();
    window.addEventListener("resize", markSoon);
    window.addEventListener("load", markAfterLayout);
    // MathJax replaces the TeX with its boxes after load, and its fonts arrive after that: mark
    // again once it has typeset and once every font asked for has loaded.
    const fonts = document.fonts;
    const settle = () => {
      markAfterLayout();
      if (fonts) fonts.ready.then(markAfterLayout);
    };
    const mathjax = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
    if (mathjax) mathjax.then(settle);
    else window.addEventListener("load", settle);
    if (fonts) fonts.addEventListener("loadingdone", markSoon);
  });

  // ---- 3. Search excerpts: the sentence with the match, without raw TeX or page buttons -------

  // Sphinx's excerpt looks for the query's stems ("decai" for "decay") in the text, finds
  // none and shows the page's first 240 characters: its buttons ("Colab", ".md"). Here the
  // excerpt is the sentence holding the first word whose stem is a query term (or, for Chinese,
  // the first place the term's characters appear), cut to 240 characters around the match.
  const CHROME = [
    ".headerlink",
    "script",
    "style",
    ".bd-header-article",
    ".prev-next-area",
    ".bd-footer-article",
    ".bd-sidebar-secondary",
    "nav",
    "button",
    ".dropdown-menu",
    ".math",
    "mjx-container",
    ".MathJax",
  ];
  const CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/u;
  const EXCERPT = 240;

  const excerpt = (text, keywords) => {
    const flat = text.replace(/\s+/g, " ").trim();
    const terms = [...keywords].map((k) => k.toLowerCase()).filter(Boolean);
    const stemmer = typeof Stemmer !== "undefined" ? new Stemmer() : null;
    let at = -1;
    let length = 0;
    for (const match of flat.matchAll(/[\p{L}\p{N}]+/gu)) {
      const word = match[0].toLowerCase();
      if (terms.includes(word) || (stemmer && terms.includes(stemmer.stemWord(word)))) {
        at = match.index;
        length = word.length;
        break;
      }
    }
    const lower = flat.toLowerCase();
    for (const term of terms.filter((t) => CJK.test(t))) {
      const found = lower.indexOf(term);
      if (found > -1 && (at < 0 || found < at)) {
        at = found;
        length = term.length;
      }
    }
    if (at < 0) return flat.length > EXCERPT ? flat.slice(0, EXCERPT).trim() + "..." : flat;
    // The sentence: from after the previous full stop (., ?, ! or 。) to the next one.
    const before = flat.slice(0, at);
    const stops = [...before.matchAll(/[.?!]\s|[。？！]/gu)];
    let start = stops.length ? stops[stops.length - 1].index + stops[stops.length - 1][0].length : 0;
    const next = flat.slice(at + length).search(/[.?!](\s|$)|[。？！]/u);
    let end = next < 0 ? flat.length : at + length + next + 1;
    if (end - start > EXCERPT) {
      // A long sentence: the 240 characters around the match.
      start = Math.max(start, Math.min(at - 80, end - EXCERPT));
      end = Math.min(end, start + EXCERPT);
    }
    return (start > 0 ? "..." : "") + flat.slice(start, end).trim() + (end < flat.length ? "..." : "");
  };

  const patchSearch = () => {
    if (typeof Search === "undefined" || Search.posencPatched) return;
    const original = Search.htmlToText;
    Search.htmlToText = (htmlString, anchor) => {
      const doc = new DOMParser().parseFromString(htmlString, "text/html");
      doc.querySelectorAll(CHROME.join(", ")).forEach((el) => {
        el.replaceWith(doc.createTextNode(el.matches(".math, mjx-container, .MathJax") ? "…" : " "));
      });
      return original(doc.documentElement.outerHTML, anchor);
    };
    Search.makeSearchSummary = (htmlString, keywords, anchor) => {
      const text = Search.htmlToText(htmlString, anchor);
      if (text === "") return null;
      const summary = document.createElement("p");
      summary.classList.add("context");
      summary.textContent = excerpt(text, keywords);
      return summary;
    };
    Search.posencPatched = true;
    Search.posencOriginalHtmlToText = original; // for tests/book/browser: what Sphinx would show
    Search.posencExcerpt = excerpt; // for tests/book/browser
  };
  patchSearch();
  ready(patchSearch);

  // ---- 4. Header menus and "back to top" (the theme's Bootstrap script is not loaded) -------

  const MENU_TOGGLE = '[data-bs-toggle="dropdown"]';

  const setMenu = (toggle, open) => {
    const menu = toggle.nextElementSibling;
    if (!menu || !menu.classList.contains("dropdown-menu")) return;
    menu.classList.toggle("show", open);
    toggle.setAttribute("aria-expanded", String(open));
  };

  const closeMenus = (except) => {
    document.querySelectorAll(MENU_TOGGLE).forEach((toggle) => {
      if (toggle !== except) setMenu(toggle, false);
    });
  };

  ready(() => {
    document.querySelectorAll(MENU_TOGGLE).forEach((toggle) => {
      toggle.addEventListener("click", (event) => {
        event.stopPropagation();
        closeMenus(toggle);
        setMenu(toggle, toggle.getAttribute("aria-expanded") !== "true");
      });
    });
    document.addEventListener("click", () => closeMenus(null));
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape") closeMenus(null);
    });

    const top = document.getElementById("pst-back-to-top");
    const header = document.querySelector(".bd-header");
    if (!top) return;
    top.addEventListener("click", () => {
      document.documentElement.scrollTop = 0;
      document.body.scrollTop = 0;
    });
    // As the theme's script: shown while scrolling up, once past the header's first position.
    const below = header ? header.getBoundingClientRect().bottom : 0;
    let last = window.scrollY;
    window.addEventListener("scroll", () => {
      top.style.display = window.scrollY < last && window.scrollY > below ? "block" : "none";
      last = window.scrollY;
    });
  });
})();
