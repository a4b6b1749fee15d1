#!/usr/bin/env node
/**
 * Bundle the command line (`npm run build`, after `tsc`): esbuild (https://esbuild.github.io/) joins the compiled
 * `dist/cli/main.js`, the rest of `dist/` and the dependencies into `dist/bin/ipi-judge.js`, the package's `bin`,
 * with one chunk per command loaded on demand (`--splitting`) beside it in `dist/bin/`.
 *
 * Why: a `label` run loaded ~330 modules one by one (154 of them the `openai` SDK's, 95 zod's) before its first
 * request: ~0.12 s of a 15 s run at 300 ms a request, a measurable share of the realistic-latency target
 * (issue 15, README-bench.md). The library (`dist/index.js`) stays plain `tsc` output.
 *
 * Rules the bundle keeps:
 * - the chunks sit in `dist/bin/`, the same depth as `dist/cli/`, so files found relative to a module
 *   (`../../prompts`, `../../schemas`) resolve alike from both;
 * - modules loaded by name at run time (`createRequire`: the tokenizer encodings) stay in `node_modules`;
 * - CommonJS dependencies inside the ES module bundle get a real `require` (the banner);
 * - the licence of every package whose code is copied into the bundle is written beside it,
 *   `dist/bin/THIRD-PARTY-NOTICES.txt` (name, version, licence, and the package's licence file).
 * Errors: exits 1 with esbuild's messages when the bundle cannot be built.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const OUT = path.join(ROOT, "dist/bin");
fs.rmSync(OUT, { recursive: true, force: true }); // chunk names carry a hash: no stale chunk stays behind
try {
  const result = await build({
    entryPoints: { "ipi-judge": path.join(ROOT, "dist/cli/main.js") },
    outdir: OUT,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // jsonc-parser's "main" is a UMD build whose require() calls esbuild cannot follow; its ES module build is whole
    mainFields: ["module", "main"],
    banner: { js: 'import { createRequire as __ipiCreateRequire } from "node:module";\nconst require = __ipiCreateRequire(import.meta.url);' },
    chunkNames: "[name]-[hash]",
    // stack traces (IPI_JUDGE_DEBUG=1) name the bundle's lines; `node --enable-source-maps` maps them to src/
    sourcemap: "linked",
    legalComments: "none", // the licences are written whole, below
    metafile: true,
    logLevel: "warning",
  });
  writeNotices(Object.keys(result.metafile.inputs));
} catch (e) {
  if (!(e && Array.isArray(e.errors))) console.error(e); // esbuild has printed its own errors
  process.exitCode = 1;
}

/**
 * Write `THIRD-PARTY-NOTICES.txt` for the packages the bundle holds code of.
 * @param inputs the bundle's input files (esbuild metafile keys, relative to the repository)
 * (a package without a licence file is named with its package.json licence, and warned about)
 */
function writeNotices(inputs) {
  const roots = new Set();
  for (const f of inputs) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(f.split(path.sep).join("/"));
    if (m) roots.add(m[1]);
  }
  const parts = [];
  for (const root of [...roots].sort()) {
    const dir = path.join(ROOT, root);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    const file = fs.readdirSync(dir).find((n) => /^(licen[cs]e|copying)/i.test(n));
    const text = file ? fs.readFileSync(path.join(dir, file), "utf8").trim() : `(the package ships no licence file; its package.json says: ${pkg.license ?? "nothing"})`;
    if (!file) process.stderr.write(`bundle-cli: warning: ${root} ships no licence file; THIRD-PARTY-NOTICES.txt names its package.json licence\n`);
    parts.push(`${pkg.name} ${pkg.version} (${pkg.license ?? "licence not declared"})\n\n${text}\n`);
  }
  const head = "The ipi-judge command (dist/bin/) holds code of these packages, each under its own licence:\n\n";
  fs.writeFileSync(path.join(OUT, "THIRD-PARTY-NOTICES.txt"), head + parts.join(`\n${"-".repeat(78)}\n\n`));
}
