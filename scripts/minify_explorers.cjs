// `make explorers`: posenc_lib/course/assets/explorers.js (the source) minified by terser (npm,
// pinned in package.json) into one script per kind, explorers.<kind>.min.js, each holding only
// the code its kind uses (the source's KINDS cut to that kind; terser drops what nothing then
// calls). posenc_lib.course.explorers inlines a kind's script into that kind's output, so a
// chapter carries its explorer's code only. The scripts are committed, as the uPlot copies are
// (Colab installs the package from git); tests/course/test_explorers.py checks that they are
// what this script writes from the source (`node scripts/minify_explorers.cjs DIR` writes
// them into DIR instead).
"use strict";
const fs = require("fs");
const path = require("path");
const { minify } = require("terser");

const ASSETS = path.resolve(__dirname, "..", "posenc_lib", "course", "assets");
const KINDS_LINE = /var KINDS = \{[^}]*\};/;

const main = async () => {
  const target = process.argv[2] || ASSETS;
  const source = fs.readFileSync(path.join(ASSETS, "explorers.js"), "utf8");
  const line = KINDS_LINE.exec(source);
  if (!line) throw new Error("explorers.js: no `var KINDS = {...};` line");
  const kinds = [...line[0].matchAll(/(\w+): \1/g)].map((m) => m[1]);
  for (const kind of kinds) {
    const cut = source.replace(KINDS_LINE, `var KINDS = { ${kind}: ${kind} };`);
    const result = await minify(cut, {
      compress: { passes: 2 },
      mangle: true,
      format: {
        comments: false,
        preamble: `/* posenc_lib explorers, ${kind}: minified from explorers.js (make explorers) */`,
      },
    });
    fs.writeFileSync(path.join(target, `explorers.${kind}.min.js`), `${result.code}\n`);
  }
};

main().catch((error) => {
  process.stderr.write(`minify_explorers: ${error.stack || error}\n`);
  process.exit(1);
});
