// Minifies the book's scripts in place, for _ext/page_weight.py at the end of `make book`:
// `node scripts/minify_assets.cjs FILE...`. terser (npm, pinned in package.json) with its safe
// defaults (compress, mangle); comments that name a copyright or a licence are kept.
// The sources stay readable where they live (_static/posenc.js, the extensions' packages);
// only the copies in the built book are rewritten.
"use strict";
const fs = require("fs");
const { minify } = require("terser");

const main = async () => {
  for (const file of process.argv.slice(2)) {
    const source = fs.readFileSync(file, "utf8");
    const result = await minify(source, {
      compress: true,
      mangle: true,
      format: { comments: /^!|copyright|licen[cs]e|@preserve/i },
    });
    if (result.code.length < source.length) fs.writeFileSync(file, `${result.code}\n`);
  }
};

main().catch((error) => {
  process.stderr.write(`minify_assets: ${error.stack || error}\n`);
  process.exit(1);
});
