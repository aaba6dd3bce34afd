// The layout checks of html_checker.py, run in the page once MathJax has typeset it.
// Returns [[kind, detail], ...] for what a reader at this viewport sees broken, the figures to
// measure from Python: [{src, shownWidth, shownHeight, naturalWidth, naturalHeight, where}],
// and the display equations: [{where, numbered, width, box}] (width: the formula's ink; box:
// the width it is shown in; wider means the reader scrolls sideways to read it).
//
// Kinds: "overflow", "equation-number", "scroll-affordance", "stray-fade", "sidebar-title", "top-bar",
// "figure-caption", "figure-alt", "heading-break". The navigation checks need real taps and are driven from
// Python, as are the rules on how many equations may scroll ("equation-width") and on the
// figures' proportions and text ("figure-shape", "figure-text").
async (options) => {
  await document.fonts.ready;
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));

  const problems = [];
  const add = (kind, detail) => problems.push([kind, detail]);
  const slack = 1; // px: sub-pixel rounding
  const overhang = 3; // px of an italic letter's tail: not worth a scroll bar (posenc.js)

  const article =
    document.querySelector(".bd-article") || document.querySelector("main") || document.body;
  const viewportWidth = document.documentElement.clientWidth;
  const column = (() => {
    const box = article.getBoundingClientRect();
    return { left: Math.max(box.left, 0), right: Math.min(box.right, viewportWidth) };
  })();
  const columnWidth = Math.round(column.right - column.left);

  const style = (el) => getComputedStyle(el);
  const shown = (el) => {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return false;
    const s = style(el);
    return s.visibility !== "hidden" && s.display !== "none";
  };
  const clipsX = (el) => style(el).overflowX !== "visible";
  const clipsY = (el) => style(el).overflowY !== "visible";
  const scrollsX = (el) => ["auto", "scroll"].includes(style(el).overflowX);
  const tag = (el) => {
    const classes = Array.from(el.classList).slice(0, 2).join(".");
    return el.tagName.toLowerCase() + (classes ? "." + classes : "");
  };
  // Where the element is, in words a chapter owner can search for: the nearest id (a section,
  // an equation, a figure) and the start of its text.
  const where = (el) => {
    let anchor = el;
    while (anchor && !anchor.id) anchor = anchor.parentElement;
    const text = (el.getAttribute("src") || el.textContent || "").replace(/\s+/g, " ").trim();
    const place = anchor ? ` in #${anchor.id}` : "";
    return `${tag(el)}${place} '${text.slice(0, 50)}${text.length > 50 ? "…" : ""}'`;
  };

  // ---- Wider than the column without a scroll box of its own ---------------------------------
  // An element's content is fine when all of it lies inside the column, or when the nearest box
  // that clips it (itself or an ancestor) scrolls sideways and that box fits the column. Content
  // clipped by a box that does not scroll is cut; content that nothing clips spills over.
  const scrollBoxes = new Set();
  const hiddenContent = (el) => {
    const box = el.getBoundingClientRect();
    // A formula's ink is its mjx-math box (MathJax's hidden MathML for screen readers may be
    // wider and is not seen).
    const ink = el.tagName === "MJX-CONTAINER" && el.querySelector("mjx-math");
    const contentRight = ink
      ? Math.max(ink.getBoundingClientRect().right, box.right)
      : box.left + Math.max(el.scrollWidth, box.width);
    for (let node = el; node && node !== document.documentElement; node = node.parentElement) {
      if (clipsX(node)) {
        const frame = node.getBoundingClientRect();
        const right = node === el ? contentRight : Math.max(contentRight, box.right);
        if (right > frame.right + overhang || box.left < frame.left - slack) {
          if (!scrollsX(node)) {
            return `cut off by ${tag(node)} (overflow-x: ${style(node).overflowX}, no scrolling)`;
          }
          if (frame.right > column.right + slack || frame.left < column.left - slack) {
            return `its scroll box ${tag(node)} is ${Math.round(frame.width)} px wide in a ${columnWidth} px column`;
          }
          scrollBoxes.add(node);
          return null;
        }
      }
      if (node === article) break;
    }
    if (contentRight > column.right + overhang || box.left < column.left - slack) {
      return `${Math.round(contentRight - box.left)} px wide in a ${columnWidth} px column, with no scroll box of its own`;
    }
    return null;
  };
  const candidates = [
    ["display equation", 'mjx-container[display="true"]'],
    ["inline math", "mjx-container:not([display])"],
    ["table", "table"],
    ["code block", "pre"],
    ["image", "img"],
  ];
  for (const [what, selector] of candidates) {
    for (const el of article.querySelectorAll(selector)) {
      if (!shown(el)) continue;
      const reason = hiddenContent(el);
      if (reason) add("overflow", `${what} ${where(el)}: ${reason}`);
    }
  }
  const page = document.scrollingElement;
  if (page.scrollWidth > window.innerWidth + slack) {
    add(
      "overflow",
      `the page scrolls sideways: ${page.scrollWidth} px of content on a ${window.innerWidth} px screen`,
    );
  }

  // ---- A visible affordance on every box that scrolls sideways -------------------------------
  // Where content is hidden at a box's side, that side fades out (mask-image, posenc.css).
  for (const node of article.querySelectorAll("*")) {
    if (node.scrollWidth > node.clientWidth + overhang && scrollsX(node) && shown(node)) {
      scrollBoxes.add(node);
    }
  }
  for (const node of scrollBoxes) {
    const hiddenRight = node.scrollLeft + node.clientWidth < node.scrollWidth - overhang;
    const mask = style(node).maskImage || style(node).webkitMaskImage || "none";
    if (hiddenRight && mask === "none") {
      add(
        "scroll-affordance",
        `${where(node)} scrolls (${node.scrollWidth} px in ${node.clientWidth} px) with nothing showing that it does`,
      );
    }
  }

  // ---- ... and no fade on a box that fits: it would hide the end of what it shows -----------
  // (a one-letter inline formula faded to nothing when the fade was set before MathJax's fonts
  // had loaded and never cleared).
  for (const node of article.querySelectorAll("*")) {
    const mask = style(node).maskImage || style(node).webkitMaskImage || "none";
    if (mask !== "none" && shown(node) && node.scrollWidth <= node.clientWidth + overhang) {
      add(
        "stray-fade",
        `${where(node)} fits (${node.scrollWidth} px in ${node.clientWidth} px) but its side is faded out`,
      );
    }
  }

  // ---- Display equations: their ink against the box they are shown in ------------------------
  // A formula that MathJax broke into lines fits its box; one that did not scrolls inside it
  // (that is not an "overflow": the box scrolls) and the reader has to scroll to read it.
  const equations = [];
  for (const el of article.querySelectorAll('mjx-container[display="true"]')) {
    if (!shown(el)) continue;
    const ink = el.querySelector("mjx-math");
    const inkWidth = ink ? ink.getBoundingClientRect().width : 0;
    const holder = el.closest("div.math");
    equations.push({
      where: where(holder && holder.id ? holder : el),
      numbered: !!(holder && holder.querySelector(":scope > .eqno")),
      width: Math.round(Math.max(inkWidth, el.scrollWidth)),
      box: Math.round(el.clientWidth),
    });
  }

  // ---- No heading broken inside a word --------------------------------------------------------
  // A word (a run without spaces or hyphens in one text node; a line may break after a
  // hyphen, and the build's <wbr> break opportunities end a text node) whose letters sit on
  // two lines was split mid-word.
  for (const heading of article.querySelectorAll("h1, h2, h3, h4")) {
    if (!shown(heading)) continue;
    const walker = document.createTreeWalker(heading, NodeFilter.SHOW_TEXT);
    let broken = null;
    for (let node = walker.nextNode(); node && !broken; node = walker.nextNode()) {
      if (node.parentElement.closest(".headerlink")) continue;
      for (const match of node.textContent.matchAll(/[^\s\-\u2010-\u2014]{2,}/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) {
          broken = match[0];
          break;
        }
      }
    }
    if (broken) add("heading-break", `${where(heading)}: the word '${broken}' is broken across lines`);
  }

  // ---- Equation numbers never over their equation ---------------------------------------------
  const intersect = (a, b) => ({
    left: Math.max(a.left, b.left),
    right: Math.min(a.right, b.right),
    top: Math.max(a.top, b.top),
    bottom: Math.min(a.bottom, b.bottom),
  });
  for (const div of article.querySelectorAll("div.math")) {
    const number = div.querySelector(":scope > .eqno");
    const math = div.querySelector("mjx-math");
    const container = div.querySelector("mjx-container");
    if (!number || !math || !shown(number)) continue;
    let ink = math.getBoundingClientRect();
    for (let node = math.parentElement; node && node !== div.parentElement; node = node.parentElement) {
      if (clipsX(node)) ink = intersect(ink, node.getBoundingClientRect());
    }
    const overlap = intersect(ink, number.getBoundingClientRect());
    if (overlap.right - overlap.left > slack && overlap.bottom - overlap.top > slack) {
      add(
        "equation-number",
        `${number.textContent.trim()} covers ${Math.round(overlap.right - overlap.left)} px of its equation ${where(container || div)}`,
      );
    }
  }

  // ---- The sidebar title is whole --------------------------------------------------------------
  const sidebar = document.querySelector("#pst-primary-sidebar, .bd-sidebar-primary");
  const title =
    sidebar && (sidebar.querySelector(".logo__title") || sidebar.querySelector(".navbar-brand"));
  if (title && shown(sidebar) && shown(title)) {
    const box = title.getBoundingClientRect();
    for (let node = title.parentElement; node; node = node.parentElement) {
      if (clipsY(node) || clipsX(node)) {
        const frame = node.getBoundingClientRect();
        if (box.top < frame.top - slack || box.bottom > frame.bottom + slack) {
          add(
            "sidebar-title",
            `'${title.textContent.trim()}' is cut by ${tag(node)}: ${Math.round(frame.top - box.top)} px hidden above, ${Math.round(box.bottom - frame.bottom)} px below`,
          );
          break;
        }
      }
      if (node === sidebar) break;
    }
    const x = (box.left + box.right) / 2;
    for (const y of [box.top + 4, box.bottom - 4]) {
      const hit = document.elementFromPoint(x, y);
      if (y > 0 && y < window.innerHeight && hit && !title.contains(hit) && !hit.contains(title)) {
        add("sidebar-title", `'${title.textContent.trim()}' is covered by ${tag(hit)}`);
        break;
      }
    }
  }

  // ---- No top bar that holds nothing but search ------------------------------------------------
  const header = document.querySelector("#pst-header, header.bd-header");
  if (header && shown(header)) {
    const useful = Array.from(header.querySelectorAll("a, button, input, img, p, nav")).filter(
      (el) => shown(el) && !el.closest(".search-button__button, .search-button-field, .sidebar-toggle"),
    );
    if (!useful.length) {
      add(
        "top-bar",
        `a ${Math.round(header.getBoundingClientRect().height)} px top bar holds nothing but search and toggles`,
      );
    }
  }

  // ---- Figures: numbered captions; sizes measured from Python ----------------------------------
  const figures = [];
  for (const img of article.querySelectorAll("img")) {
    if (img.closest(".bd-header-article, button, .btn, nav") || !shown(img)) continue;
    if (img.getBoundingClientRect().width < options.iconWidth) continue; // an icon, not a figure
    const figure = img.closest("figure");
    if (!figure || !figure.querySelector("figcaption .caption-number")) {
      add("figure-caption", `${where(img)} has no numbered caption`);
    }
    // A figure's alt text says what its caption says, not where its file is.
    const alt = (img.getAttribute("alt") || "").trim();
    if (!alt || /\.(png|svg|jpe?g|gif|webp)$/i.test(alt) || alt.startsWith("../") || alt.includes("/_images/")) {
      add("figure-alt", `${where(figure || img)} has alt text ${JSON.stringify(alt)}, not words from its caption`);
    }
    figures.push({
      src: img.currentSrc || img.src,
      shownWidth: img.getBoundingClientRect().width,
      shownHeight: img.getBoundingClientRect().height,
      naturalWidth: img.naturalWidth,
      naturalHeight: img.naturalHeight,
      where: where(figure || img),
    });
  }
  return { problems, figures, equations, hasNav: !!document.querySelector(".bd-docs-nav") };
}
