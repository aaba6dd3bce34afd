// The characters MathJax draws for the book's formulas, for _ext/page_weight.py (which cuts
// MathJax's fonts and font data to them). Reads {"formulas": [[tex, display], ...], "config":
// mathjax3_config} on stdin; typesets each formula with the book's MathJax 4 (the npm package
// under node_modules) loaded as the config says (its input components and TeX packages, the
// CommonHTML output with the mathjax-newcm font and the config's output options; the full
// input/tex where the config names none) and prints the sorted code points of every character
// it laid out (the mjx-cXXXX classes, the text of each <mjx-c> and stretchy character) as a
// JSON list. A formula that the configured TeX cannot typeset (an undefined macro, a package
// not loaded) is an error: exit status 1.
"use strict";
const path = require("path");

const root = path.resolve(__dirname, "..");
const MathJaxNode = require(path.join(root, "node_modules/mathjax/node-main.cjs"));

const readStdin = () =>
  new Promise((resolve, reject) => {
    let data = "";
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (chunk) => (data += chunk));
    process.stdin.on("end", () => resolve(data));
    process.stdin.on("error", reject);
  });

const main = async () => {
  const { formulas, config = {} } = JSON.parse(await readStdin());
  const load = ((config.loader || {}).load || ["input/tex"]).filter((name) =>
    /^(input\/|\[tex\]\/)/.test(name),
  );
  const MathJax = await MathJaxNode.init({
    loader: {
      load: [...load, "output/chtml", "adaptors/liteDOM"],
      paths: { fonts: path.join(root, "node_modules/@mathjax") },
    },
    tex: config.tex || {},
    output: { ...(config.output || {}), font: "mathjax-newcm" },
    startup: { typeset: false },
  });
  const adaptor = MathJax.startup.adaptor;
  const points = new Set();
  const errors = [];
  // Every element's mjx-cXXXX class (a character, or a stretchy one: <mjx-stretchy-h>), and
  // the text of the characters and of the stretchy characters' parts; not the hidden MathML.
  const visit = (node, tex) => {
    const kind = adaptor.kind(node);
    if (kind === "mjx-assistive-mml") return;
    if (kind === "mjx-merror") {
      errors.push(`${adaptor.getAttribute(node, "data-mjx-error") || "error"}: ${tex}`);
    }
    for (const name of (adaptor.getAttribute(node, "class") || "").split(/\s+/)) {
      const match = /^mjx-c([0-9A-F]+)$/.exec(name);
      if (match) points.add(parseInt(match[1], 16));
    }
    if (/^mjx-(c|stretchy-h|stretchy-v)$/.test(kind)) {
      for (const char of adaptor.textContent(node)) points.add(char.codePointAt(0));
    }
    for (const child of adaptor.childNodes(node) || []) {
      if (adaptor.kind(child) !== "#text") visit(child, tex);
    }
  };
  for (const [tex, display] of formulas) {
    visit(await MathJax.tex2chtmlPromise(tex, { display }), tex);
  }
  if (errors.length) {
    throw new Error(`formulas the book's MathJax cannot typeset:\n${errors.join("\n")}`);
  }
  process.stdout.write(JSON.stringify([...points].sort((a, b) => a - b)));
};

main().catch((error) => {
  process.stderr.write(`mathjax_glyphs: ${error.stack || error}\n`);
  process.exit(1);
});
