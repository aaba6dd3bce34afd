// The characters MathJax draws for the book's formulas, for _ext/page_weight.py (which cuts
// MathJax's fonts to them). Reads a JSON list of [tex, display] pairs on stdin; typesets each
// with the book's MathJax 4 (the npm package under node_modules, the same TeX input and
// CommonHTML output with the mathjax-newcm font) and prints the sorted code points of every
// character it laid out (each <mjx-c>'s class and text) as a JSON list.
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
  const formulas = JSON.parse(await readStdin());
  const MathJax = await MathJaxNode.init({
    loader: {
      load: ["input/tex", "output/chtml", "adaptors/liteDOM"],
      paths: { fonts: path.join(root, "node_modules/@mathjax") },
    },
    output: { font: "mathjax-newcm" },
    startup: { typeset: false },
  });
  const adaptor = MathJax.startup.adaptor;
  const points = new Set();
  const visit = (node) => {
    if (adaptor.kind(node) === "mjx-c") {
      for (const name of (adaptor.getAttribute(node, "class") || "").split(/\s+/)) {
        const match = /^mjx-c([0-9A-F]+)$/.exec(name);
        if (match) points.add(parseInt(match[1], 16));
      }
      for (const char of adaptor.textContent(node)) points.add(char.codePointAt(0));
    }
    for (const child of adaptor.childNodes(node) || []) {
      if (adaptor.kind(child) !== "#text") visit(child);
    }
  };
  for (const [tex, display] of formulas) {
    visit(await MathJax.tex2chtmlPromise(tex, { display }));
  }
  process.stdout.write(JSON.stringify([...points].sort((a, b) => a - b)));
};

main().catch((error) => {
  process.stderr.write(`mathjax_glyphs: ${error.stack || error}\n`);
  process.exit(1);
});
